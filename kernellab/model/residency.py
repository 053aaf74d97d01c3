"""Occupancy and waves: how many blocks of a kernel an SM holds at once, what limits it, and how a grid
runs in waves of (blocks per SM × SMs) blocks with a partly empty last one (the tail).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from kernellab.i18n import _

from ..errors import LaunchError
from ..grid import cdiv
from ..specs import GPU, as_gpu

#: Names of the per-SM limits, in the order ``Occupancy`` reports them.
LIMITS = ("threads", "registers", "shared", "blocks")


@dataclass(frozen=True)
class Occupancy:
    """Resident blocks per SM of one kernel on one GPU, and the limit each resource sets."""

    blocks_per_sm: int  # resident blocks per SM: the least of the limits below
    limiters: tuple  # names (from LIMITS) of every resource whose limit equals blocks_per_sm
    by_threads: int  # blocks the SM's warp slots hold: max warps per SM // warps per block
    by_registers: int | None  # blocks the register file holds; None when registers were not given
    by_shared: int  # blocks the shared-memory carve-out holds, 1 KB runtime reservation included
    by_blocks: int  # the hardware's resident-block limit per SM
    warps_per_sm: int  # resident warps per SM: blocks_per_sm × warps per block
    occupancy: float  # warps_per_sm ÷ max warps per SM (0–1)


def occupancy(gpu: GPU, threads_per_block: int, regs_per_thread: int | None = None,
              smem_per_block: int = 0) -> Occupancy:
    """Blocks per SM: the least of what threads, registers, shared memory and the block limit allow.

    With ``w = ⌈threads / 32⌉`` warps per block:

    * threads:   ``max_warps_per_sm // w``
    * registers: a warp holds ``⌈regs × 32 / 256⌉ × 256`` registers (allocated in units of 256);
      ``(regs_per_sm // registers per warp) // w``
    * shared:    ``max_smem_per_sm // (smem_per_block + 1024 B)`` (the runtime reserves 1 KB per block)
    * blocks:    ``max_blocks_per_sm``

    Boehm's kernel 3 on the A6000 (1024 threads, 37 registers, 8192 B): threads 48 // 32 = 1; registers
    ⌈37 × 32 / 256⌉ × 256 = 1280 per warp, 65536 // 1280 = 51 warps, // 32 = 1; shared
    102400 // 9216 = 11; blocks 16. One block of 32 warps per SM, limited by threads and registers.

    Examples
    --------
    >>> from kernellab.specs import A6000
    >>> occ = occupancy(A6000, 1024, regs_per_thread=37, smem_per_block=8192)
    >>> occ.blocks_per_sm, occ.limiters, occ.by_shared, occ.warps_per_sm, f"{occ.occupancy:.0%}"
    (1, ('threads', 'registers'), 11, 32, '67%')
    """
    gpu = as_gpu(gpu)  # a GPU, or its Perf
    threads_per_block, smem_per_block = int(threads_per_block), int(smem_per_block)
    if not 1 <= threads_per_block <= gpu.max_threads_per_block:
        raise LaunchError(_("a block of {threads_per_block} threads cannot launch on the {gpu} "
                            "(1 to {max_threads_per_block})").format(
            threads_per_block=threads_per_block, gpu=gpu.name,
            max_threads_per_block=gpu.max_threads_per_block))
    if not 0 <= smem_per_block <= gpu.max_smem_per_block:
        raise LaunchError(_("{smem_per_block} B of shared memory per block cannot launch on the "
                            "{gpu} (at most {max_smem_per_block} B)").format(
            smem_per_block=smem_per_block, gpu=gpu.name, max_smem_per_block=gpu.max_smem_per_block))
    warps = cdiv(threads_per_block, gpu.warp_size)
    by_threads = gpu.max_warps_per_sm // warps
    by_registers = None
    if regs_per_thread is not None:
        if not 1 <= int(regs_per_thread) <= gpu.max_regs_per_thread:
            raise LaunchError(_("{regs_per_thread} registers per thread cannot launch on the "
                                "{gpu} (at most {max_regs_per_thread})").format(
                regs_per_thread=regs_per_thread, gpu=gpu.name, max_regs_per_thread=gpu.max_regs_per_thread))
        per_warp = cdiv(int(regs_per_thread) * gpu.warp_size, gpu.reg_alloc_unit) * gpu.reg_alloc_unit
        by_registers = (gpu.regs_per_sm // per_warp) // warps
    by_shared = gpu.max_smem_per_sm // (smem_per_block + gpu.smem_reserved_per_block)
    limits = {"threads": by_threads, "registers": by_registers, "shared": by_shared,
              "blocks": gpu.max_blocks_per_sm}
    blocks = min(v for v in limits.values() if v is not None)
    if blocks == 0:
        raise LaunchError(_("not one block ({threads_per_block} threads, {regs_per_thread} "
                            "registers per thread, {smem_per_block} B shared) fits on an SM of "
                            "the {gpu}").format(
            threads_per_block=threads_per_block, regs_per_thread=regs_per_thread,
            smem_per_block=smem_per_block, gpu=gpu.name))
    return Occupancy(
        blocks_per_sm=blocks,
        limiters=tuple(k for k in LIMITS if limits[k] == blocks),
        by_threads=by_threads, by_registers=by_registers, by_shared=by_shared, by_blocks=gpu.max_blocks_per_sm,
        warps_per_sm=blocks * warps, occupancy=blocks * warps / gpu.max_warps_per_sm,
    )


@dataclass(frozen=True)
class Waves:
    """How a grid runs: in waves of ``per_wave`` blocks, the last one possibly partial."""

    blocks: int  # blocks in the grid
    per_wave: int  # blocks running at once: blocks per SM × SMs
    waves: int  # waves needed: ⌈blocks ÷ per_wave⌉
    tail: int  # blocks in the last wave (per_wave when it is full)
    efficiency: float  # blocks ÷ (waves × per_wave): share of the wave slots doing work (0–1)


def waves(grid, blocks_per_sm: int, sms: int) -> Waves:
    """The waves of a grid: one wave runs only as many blocks as the SMs hold at once.

    ``per_wave = blocks_per_sm × sms``; ``waves = ⌈blocks / per_wave⌉``;
    ``tail = blocks − (waves − 1) × per_wave``; ``efficiency = blocks / (waves × per_wave)``.
    ``grid`` is a block count or a 1–3-dimensional grid shape.

    Boehm's kernel 3 at 4096² on the A6000: 128 × 128 = 16384 blocks, 1 per SM × 84 SMs = 84 per wave;
    16384 = 195 × 84 + 4, so 196 waves, the last with 4 blocks; efficiency 16384 / (196 × 84) = 99.5 %.

    Examples
    --------
    >>> w = waves((128, 128), 1, 84)
    >>> w.waves, w.tail, f"{w.efficiency:.1%}"
    (196, 4, '99.5%')
    """
    blocks = math.prod(grid) if isinstance(grid, (tuple, list)) else int(grid)
    per_wave = int(blocks_per_sm) * int(sms)
    if blocks < 1 or per_wave < 1:
        raise ValueError(_("need at least one block and one slot, got {blocks} blocks, "
                           "{per_wave} per wave").format(
            blocks=blocks, per_wave=per_wave))
    n = cdiv(blocks, per_wave)
    return Waves(blocks=blocks, per_wave=per_wave, waves=n, tail=blocks - (n - 1) * per_wave,
                 efficiency=blocks / (n * per_wave))
