"""How a kernel is launched and loops, and what that adds to its throughput time: DRAM bytes by the wave
model, and the latency a K loop exposes when nothing else can run while its loads are in flight.

The counts say *how much* work each resource does; they do not say how many blocks share an SM, how
big a block's tile is, or whether its K loop waits for its own loads. :class:`LoopShape` carries those
facts, the ones a profiler's launch statistics would show.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from kernellab.i18n import _

from ..access import WARP_SIZE
from ..grid import cdiv
from ..specs import GPU, Perf, as_gpu, as_perf
from .l2waves import dram_bytes_tiled
from .residency import occupancy, waves

__all__ = ["LoopShape", "dram_bytes_waves", "latency_units", "exposed_latency"]


@dataclass(frozen=True)
class LoopShape:
    """A tiled kernel's launch and K loop, as the latency term and the wave model need them.

    Examples
    --------
    Boehm's kernel 3: 1024 threads, 36 registers (ptxas, sm_86), 8 KB of shared memory, a 32×32 tile of
    C per block, K steps of 32 with a barrier pair and no prefetch.

    >>> k3 = LoopShape(threads=1024, regs=36, smem=8192, tile=(32, 32), k_step=32)
    >>> from kernellab.specs import A6000
    >>> k3.blocks_per_sm(A6000), latency_units(k3, A6000)
    (1, 1)
    """

    threads: int  # threads per block
    regs: int | None  # registers per thread as ptxas reports them; None: not a limit
    smem: int  # shared memory per block, bytes
    tile: tuple  # (BM, BN): the block of C each thread block computes
    k_step: int  # K elements per trip of the main loop (BK, or the compiler's unroll factor)
    barriers: bool = True  # the loop synchronises the block at __syncthreads each trip
    prefetch: bool = False  # the loop loads trip t+1 while it computes trip t (double buffering)
    elem: int = 4  # bytes per element of A and B

    def __post_init__(self):
        if len(self.tile) != 2 or min(int(v) for v in self.tile) < 1:
            raise ValueError(_("tile must be (BM, BN) with positive sizes, got {tile!r}").format(
                tile=self.tile))
        if int(self.k_step) < 1 or int(self.elem) < 1:
            raise ValueError(_("k_step and elem must be positive, got {k_step!r} and {elem!r}").format(
                k_step=self.k_step, elem=self.elem))

    def blocks_per_sm(self, gpu: GPU | Perf) -> int:
        """Resident blocks per SM (``kernellab.occupancy``) on a GPU given as a ``GPU`` or its ``Perf``."""
        return occupancy(gpu, self.threads, self.regs, self.smem).blocks_per_sm


def dram_bytes_waves(shape: LoopShape, mnk, gpu: GPU | Perf) -> int:
    """DRAM bytes of the launch under the wave model, with the blocks per SM that occupancy allows.

    Examples
    --------
    Kernel 5 on the A6000 at 4096³: 2 blocks per SM, so waves of 168 blocks of 128×128:

    >>> from kernellab.specs import A6000
    >>> k5 = LoopShape(threads=256, regs=128, smem=8192, tile=(128, 128), k_step=8)
    >>> dram_bytes_waves(k5, (4096, 4096, 4096), A6000) / 1e9
    0.580911104
    """
    gpu = as_gpu(gpu)
    M, N, K = mnk
    BM, BN = shape.tile
    return _tiled_bytes(M, N, K, BM, BN, shape.blocks_per_sm(gpu), gpu.sms, shape.elem)


@lru_cache(maxsize=1024)
def _tiled_bytes(M: int, N: int, K: int, BM: int, BN: int, ctas_per_sm: int, n_sm: int, elem: int) -> int:
    """:func:`~kernellab.model.l2waves.dram_bytes_tiled` in launch order, remembered: a pure function of these
    ints whose cost is two passes over every program of the launch (1,024 at 4096³ in 128×128 tiles), which
    ``predict`` asks for at each call and the SGEMM study's scans ask for with the same launch again and again
    (lecture 10's autotuning page: 406 calls, 24 launches)."""
    return dram_bytes_tiled(M, BM, BN, ctas_per_sm, n_sm, elem=elem, M=M, N=N, K=K)


def latency_units(shape: LoopShape, gpu: GPU | Perf) -> int:
    """How many independent waiters share an SM: blocks if the loop has barriers, else warps.

    A barrier makes a block's warps wait for one another, so the block waits as one; without barriers
    every warp waits on its own loads.
    """
    blocks = shape.blocks_per_sm(gpu)
    return blocks if shape.barriers else blocks * cdiv(shape.threads, WARP_SIZE)


def exposed_latency(shape: LoopShape, mnk, perf: Perf | GPU, t_sm: float, t_dram: float) -> float:
    """Seconds of load latency a K loop without prefetch leaves uncovered (Little's law with U waiters).

    The SM runs ``trips = waves × ⌈K / k_step⌉`` rounds; in each, ``U`` waiters (``latency_units``) each
    do ``C = t_sm / (trips × U)`` of work and then wait ``L`` for their next loads, ``L`` = the assumed
    round trip ``perf.latency_s`` plus the trip's share of the DRAM transfer, ``t_dram / trips``. While
    one waits, the other ``U − 1`` work, so each round leaves ``max(0, L − (U − 1)·C)`` uncovered::

        t_exposed = trips × max(0, L − (U − 1)·C)

    ``t_sm`` is the throughput time of the SM's pipes at the clock in use. A loop with prefetch
    exposes nothing (0).

    Examples
    --------
    Kernel 3 (one block of 32 warps per SM, barriers, no prefetch) exposes every trip's round trip:
    U = 1, so each of its trips adds L in full.

    >>> from kernellab.specs import PERF_A6000
    >>> k3 = LoopShape(threads=1024, regs=36, smem=8192, tile=(32, 32), k_step=32)
    >>> trips = 196 * 4096 // 32                      # 196 waves of 84 blocks, 128 K steps each
    >>> exposed_latency(k3, (4096,) * 3, PERF_A6000, t_sm=0.0, t_dram=0.0) == trips * PERF_A6000.latency_s
    True
    """
    if shape.prefetch:
        return 0.0
    M, N, K = mnk
    perf = as_perf(perf)
    gpu = perf.gpu
    blocks = cdiv(M, shape.tile[0]) * cdiv(N, shape.tile[1])
    w = waves(blocks, shape.blocks_per_sm(gpu), gpu.sms)
    trips = w.waves * cdiv(K, shape.k_step)
    units = latency_units(shape, gpu)
    wait = perf.latency_s + t_dram / trips
    work = t_sm / (trips * units)
    return trips * max(0.0, wait - (units - 1) * work)
