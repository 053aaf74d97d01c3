"""The per-SM view of a launch: how many programs each SM holds, which SMs get work, and what the busiest does.

The hardware's block scheduler hands a grid's blocks (Triton's programs) to the SMs breadth first, one to
each SM before a second to any, up to the blocks an SM can hold at once (its occupancy, from warps,
registers and shared memory: :func:`~kernellab.occupancy`). A launch of ``P`` programs on
``S`` SMs therefore uses ``min(P, S)`` SMs, and the busiest SM runs ``⌈P / S⌉`` programs over the launch,
at most ``B`` at once. The SM resources (pipes, L1, shared memory) are charged on that busiest SM; DRAM,
L2 and the atomic units are shared by the whole device.

Inside an SM, a block's warps are spread over the four sub-partitions (SMSPs), each with its own warp
scheduler, FP32 lanes, special-function unit and Tensor Core (CUDA C++ Programming Guide, compute
capability 8.x and 9.0 architecture). A program of one warp uses one of them, so it gets a quarter of
the SM's issue, FP32, XU and ``mma.sync`` rates (``Distribution.subpartitions``).

Examples
--------
A 1024³ fp16 matmul in 128×128 tiles is 64 programs: on the 132 SMs of an H100 64 SMs get one program
each and 68 idle, so the busiest SM does 1/64 of the launch's work, not 1/132.

>>> from kernellab.specs import H100
>>> d = distribute(H100, programs=64, threads=128, smem=65536, regs=174)
>>> d.sms_used, d.per_sm, d.resident, d.waves, d.share == 1 / 64
(64, 1, 1, 1, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from kernellab.i18n import _

from ..grid import cdiv
from ..specs import GPU, as_gpu
from .residency import Occupancy, occupancy

__all__ = ["DEFAULT_REGS", "FIXED_REGS", "Distribution", "distribute", "launch_of"]

#: Registers per thread assumed for a launch that does not say (a SIMT kernel without ``regs=`` or a CUDA
#: twin, a Triton kernel that recorded neither a dot nor a floating-point value): 32, which limits no launch of up to 2048 threads per SM
#: (65 536 registers ÷ (32 × 32) = 64 warps), so occupancy then follows threads and shared memory alone.
DEFAULT_REGS = 32


@dataclass(frozen=True)
class Distribution:
    """How a launch's programs spread over the SMs (see the module); ``programs`` None: unknown, spread evenly."""

    programs: int | None  # programs (blocks) in the launch; None when the counts carry no launch
    warps: int  # warps per program
    occupancy: Occupancy | None  # resident programs per SM and their limiter; None without a launch
    sms_used: int  # SMs that get at least one program: min(programs, SMs)
    per_sm: int  # programs the busiest SM runs over the launch, ⌈programs ÷ SMs⌉
    resident: int  # programs the busiest SM holds at once: min(per_sm, blocks per SM)
    waves: int  # ⌈programs ÷ (SMs × blocks per SM)⌉
    tail: int  # programs in the last wave
    share: float  # the busiest SM's share of the launch's work: per_sm ÷ programs (1 ÷ SMs without a launch)
    subpartitions: int  # sub-partitions the busiest SM's resident warps occupy, min(4, resident × warps)
    resources: str  # where threads, registers and shared memory came from ("launch", "default", "none")

    @property
    def blocks_per_sm(self) -> int:
        """Resident programs per SM the occupancy allows (the GPU's block limit without a launch)."""
        return self.occupancy.blocks_per_sm if self.occupancy is not None else self.resident


def distribute(gpu: GPU, programs: int | None, threads: int = 128, regs: int | None = None, smem: int = 0,
               resources: str = "launch") -> Distribution:
    """The :class:`~kernellab.model.persm.Distribution` of ``programs`` programs of ``threads`` threads, ``regs`` registers per thread
    (:data:`~kernellab.model.persm.DEFAULT_REGS` when None) and ``smem`` bytes of shared memory each, on ``gpu``.

    ``programs=None`` (counts with no launch, such as hand-made ones): the work spreads evenly over every SM
    and every sub-partition, as a grid that fills the GPU does.

    Examples
    --------
    One program of 4 warps: one SM, all four sub-partitions; one program of one warp: a quarter of one SM.

    >>> from kernellab.specs import A100
    >>> [(d.sms_used, d.share, d.subpartitions) for d in (distribute(A100, 1, 128), distribute(A100, 1, 32))]
    [(1, 1.0, 4), (1, 1.0, 1)]
    >>> d = distribute(A100, 2 * 108 * 3 + 5, 256)      # 8 programs per SM fit: 653 programs are one wave
    >>> d.per_sm, d.resident, d.waves, d.tail
    (7, 7, 1, 653)
    """
    gpu = as_gpu(gpu)
    warps = cdiv(threads, gpu.warp_size)
    if programs is None:
        s = gpu.sms
        return Distribution(None, warps, None, s, 1, gpu.max_blocks_per_sm, 1, s, 1 / s, 4, "none")
    programs = int(programs)
    if programs < 1:
        raise ValueError(_("a launch needs at least one program, got {programs}").format(programs=programs))
    occ = occupancy(gpu, threads, DEFAULT_REGS if regs is None else regs, smem)
    b = occ.blocks_per_sm
    per_sm = cdiv(programs, gpu.sms)
    resident = min(per_sm, b)
    per_wave = b * gpu.sms
    waves = cdiv(programs, per_wave)
    return Distribution(
        programs=programs, warps=warps, occupancy=occ, sms_used=min(programs, gpu.sms), per_sm=per_sm,
        resident=resident, waves=waves, tail=programs - (waves - 1) * per_wave, share=per_sm / programs,
        subpartitions=min(4, resident * warps), resources=resources if regs is not None else "default",
    )


def launch_of(counts, gpu: GPU) -> Distribution:
    """The :class:`~kernellab.model.persm.Distribution` of the launch ``counts`` record (``counts.launch``), on ``gpu``.

    SIMT :class:`~kernellab.Counts`: the grid's blocks of ``block`` threads, with the shared memory the kernel
    declared and ``regs`` from the launch (``launch(..., regs=)``) when given. Mini-Triton
    :class:`~kernellab.TritonCounts`: ``programs`` programs of ``num_warps`` warps (4 unless the launch
    says), with the registers and shared memory of the launch's compiled metadata when it records them. Counts
    with no launch (hand-made, scaled to another size, or summed over launches) spread over the whole GPU.
    """
    info = getattr(counts, "launch", None) or {}
    grid = info.get("grid")
    if not grid:
        return distribute(gpu, None)
    programs = math.prod(grid)
    if "block" in info:  # SIMT
        threads = math.prod(info["block"])
        smem = int(info.get("smem_per_block", 0))
        regs = info.get("regs")
    else:
        programs = int(getattr(counts, "programs", 0) or programs)
        warps = int(info.get("num_warps", 4))
        threads = warps * as_gpu(gpu).warp_size
        smem, regs = triton_resources(info, warps, as_gpu(gpu))
    return distribute(gpu, programs, threads, regs, smem, "launch" if regs is not None else "default")


#: Registers per thread a Triton program of ``tl.dot`` holds besides its results (addresses, loop state, operand
#: fragments): a documented rule, not a measurement. With it the rule gives 48 + 128 = 176 registers for the
#: tutorial's 128×128 tile on 4 warps and 48 + 128 = 176 for 128×256 on 8 warps, where real Triton 3.9
#: compiles 174 and 208 for sm_90 (250 and 255 for sm_80): the same programs per SM in each case
#: (``tests/test_model_persm.py`` checks it against ``kernellab.compiled_metadata``).
DOT_REGS_BESIDES = 48


#: Registers per thread a Triton program without a dot holds besides its floating-point values (its program id,
#: the kernel's arguments, addresses, offsets and loop counters): what real Triton 3.9 compiles a program that
#: holds none into, for sm_80 and sm_90 alike — the one-element copy and the scalar kernel of
#: ``kernellab/compiled_counts.json`` (cases ``copy_small``, ``scalar``: 10 registers each). A measurement of the
#: compiler, not fitted to a validation row.
FIXED_REGS = 10


def triton_resources(info: dict, warps: int, gpu: GPU) -> tuple[int, int | None]:
    """``(shared memory bytes, registers per thread)`` of a mini-Triton program, by Triton's rule where the
    launch recorded its dots (``counts.launch``, :mod:`kernellab.triton.executor.rounds`): each pipeline stage buffers
    the operand tiles of the program's largest ``tl.dot`` in shared memory (``num_stages`` buffers on sm_90,
    one fewer on sm_80, where the first stage is the registers), and each thread holds its share of every
    distinct dot result in registers, ``M × N ÷ (32 × num_warps)`` each, plus :data:`DOT_REGS_BESIDES`.

    A program without a dot: no shared memory, and :data:`FIXED_REGS` plus the most words a thread held in
    floating-point values at one time (``counts.launch["live_words"]``, :mod:`kernellab.triton.executor.liveness`),
    at most 255; :data:`~kernellab.model.persm.DEFAULT_REGS` (None here) when the launch recorded no value.

    >>> from kernellab.specs import A100, H100
    >>> info = {"num_stages": 4, "dot_tile_bytes": 2 * (128 * 32 + 32 * 128), "dot_results": {(128, 128): 128 * 128}}
    >>> triton_resources(info, 4, H100), triton_resources(info, 4, A100)      # 64 KB and 48 KB, as compiled
    ((65536, 176), (49152, 176))
    >>> triton_resources({"live_words": 66.0}, 8, A100)     # layer-norm backward's dx at N 4096: 10 + 66
    (0, 76)
    """
    tile = int(info.get("dot_tile_bytes", 0))
    if not tile:
        live = info.get("live_words")
        return 0, (None if live is None else min(gpu.max_regs_per_thread, FIXED_REGS + math.ceil(live)))
    stages = max(1, int(info.get("loop_stages") or info.get("num_stages", 3)))
    buffers = stages if gpu.arch == "sm_90" else max(1, stages - 1)
    acc = sum(info.get("dot_results", {}).values()) // (gpu.warp_size * warps)
    return min(buffers * tile, gpu.max_smem_per_block), min(gpu.max_regs_per_thread, DOT_REGS_BESIDES + acc)
