"""The L2 wave model of launch order: which output tiles run together, and the DRAM traffic that follows.

Programs (thread blocks) start in program-id order, ``n_sm × ctas_per_sm`` at a time — a *wave*. The
tiles of one wave advance along K together, so a block of A or B that several of them need is read
from DRAM once and shared through L2. Launch order decides how "square" a wave's footprint is, and
so how much it reads (Triton tutorial 03's grouped order; CUDA's threadblock swizzle).
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from kernellab.i18n import _

from ..grid import cdiv


def tile_order(num_m: int, num_n: int, group: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The output tile ``(pid_m, pid_n)`` each program id computes, in launch order.

    ``group=None``: row-major, ``pid_m = pid // num_n``, ``pid_n = pid % num_n``. Otherwise Triton's
    grouped order (tutorial 03-matrix-multiplication): ``group`` block-rows form a group, walked
    column by column::

        num_pid_in_group = group * num_n
        first_pid_m      = (pid // num_pid_in_group) * group
        group_size_m     = min(num_m - first_pid_m, group)
        pid_m            = first_pid_m + (pid % num_pid_in_group) % group_size_m
        pid_n            = (pid % num_pid_in_group) // group_size_m

    Returns two int arrays of length ``num_m × num_n``, indexed by program id.

    Examples
    --------
    >>> pm, pn = tile_order(4, 4, group=2)
    >>> [(int(m), int(n)) for m, n in zip(pm[:6], pn[:6])]
    [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2)]
    """
    num_m, num_n = int(num_m), int(num_n)
    if num_m < 1 or num_n < 1:
        raise ValueError(_("the tile grid must be at least 1×1, got {num_m}×{num_n}").format(
            num_m=num_m, num_n=num_n))
    pid = np.arange(num_m * num_n)
    if group is None:
        return pid // num_n, pid % num_n
    if int(group) < 1:
        raise ValueError(_("group must be a positive int or None, got {group!r}").format(group=group))
    group = int(group)
    num_pid_in_group = group * num_n
    first_pid_m = (pid // num_pid_in_group) * group
    group_size_m = np.minimum(num_m - first_pid_m, group)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m
    return pid_m, pid_n


def wave_footprints(num_m: int, num_n: int, wave: int, group: int | None = None) -> list[tuple[int, int]]:
    """For each wave of ``wave`` consecutive program ids: (distinct block-rows of A, distinct block-cols of B).

    The last wave may be partial (fewer programs than ``wave``); it is a wave all the same.

    Triton's 9×9 example, first wave of 9 programs: row-major touches 1 block-row and 9 block-cols, so with
    9 blocks along K it loads (1 + 9) × 9 = 90 blocks; grouped by 3 it touches 3 and 3: (3 + 3) × 9 = 54.

    Examples
    --------
    >>> wave_footprints(9, 9, 9)[0], wave_footprints(9, 9, 9, group=3)[0]
    ((1, 9), (3, 3))
    """
    pid_m, pid_n = tile_order(num_m, num_n, group)
    if int(wave) < 1:
        raise ValueError(_("a wave must hold at least one program, got {wave}").format(wave=wave))
    return [(len(np.unique(pid_m[s:s + wave])), len(np.unique(pid_n[s:s + wave])))
            for s in range(0, len(pid_m), int(wave))]


def _extent(block: int, size: int, count: int) -> np.ndarray:
    """Rows (or columns) in each of ``count`` blocks of ``block`` covering ``size``: the last may be short."""
    starts = np.arange(count) * block
    return np.minimum(block, size - starts)


def dram_bytes_tiled(n: int, BM: int, BN: int, ctas_per_sm: int, n_sm: int, elem: int = 2,
                     group: int | None = None, *, M: int | None = None, N: int | None = None,
                     K: int | None = None) -> int:
    """DRAM bytes of a tiled matrix product under the wave model, for a launch order.

    C (M×N) is cut into BM×BN tiles, one per program, launched in ``tile_order``. Programs start in waves
    of ``W = n_sm × ctas_per_sm`` consecutive ids (the last wave may be partial). A wave's tiles advance
    along K together and share through L2 whatever they read, so each wave reads each distinct block-row of A
    and block-column of B once::

        bytes = Σ_waves (distinct A block-rows × BM + distinct B block-cols × BN) × K × elem   (reads)
              + M × N × elem                                                               (C, written once)

    Nothing is assumed to survive in L2 from one wave to the next. ``n`` gives a square M = N = K; the
    keywords ``M``, ``N``, ``K`` override it for other shapes (a partial last tile reads only its rows).

    Worked example: 4096³ FP16, 128×128 tiles, A100 (108 SMs), row-major. 32×32 = 1024 tiles → 9 full waves
    of 108 and one of 52. A full wave spans all 32 block-cols (108 > 32) and 4 or 5 block-rows (ids 0–107 are
    rows 0–3); the block-rows are 4, 4, 5, 4, 4, 5, 4, 4, 4 and 2 (Σ 40), so reads =
    (40 × 128 + 10 × 32 × 128) × 4096 × 2 B = 377,487,360 B; plus C, 4096² × 2 B.

    Examples
    --------
    >>> dram_bytes_tiled(4096, 128, 128, 1, 108, elem=2) == (40 * 128 + 10 * 32 * 128) * 4096 * 2 + 4096**2 * 2
    True
    """
    M = n if M is None else M
    N = n if N is None else N
    K = n if K is None else K
    for name, v in (("M", M), ("N", N), ("K", K), ("BM", BM), ("BN", BN), ("ctas_per_sm", ctas_per_sm),
                    ("n_sm", n_sm), ("elem", elem)):
        if int(v) < 1:
            raise ValueError(_("{name} must be a positive int, got {v!r}").format(name=name, v=v))
    num_m, num_n = cdiv(M, BM), cdiv(N, BN)
    rows, cols = _extent(BM, M, num_m), _extent(BN, N, num_n)
    pid_m, pid_n = tile_order(num_m, num_n, group)
    wave = int(n_sm) * int(ctas_per_sm)
    reads = int(rows[_distinct_per_wave(pid_m, num_m, wave)].sum() + cols[_distinct_per_wave(pid_n, num_n, wave)].sum())
    return reads * int(K) * int(elem) + int(M) * int(N) * int(elem)


def _distinct_per_wave(ids: np.ndarray, count: int, wave: int) -> np.ndarray:
    """Each wave's distinct values of ``ids`` (ints in ``[0, count)``, program p in wave p // ``wave``), all
    waves' one after another: the distinct pairs (wave, id), numbered wave × count + id, modulo ``count``.

    The pairs are marked in a table of waves × count flags where that table is at most 8 flags a program
    (every launch the model meets), found by ``np.unique`` otherwise (a table that would be too large).

    >>> [int(v) for v in _distinct_per_wave(np.array([0, 0, 1, 1, 1, 0]), 2, 4)]   # waves {0, 1} and {1, 0}
    [0, 1, 0, 1]
    """
    pairs = np.arange(len(ids)) // wave * count + ids
    waves = -(-len(ids) // wave)
    if waves * count > 8 * len(ids) + 4096:
        return np.unique(pairs) % count
    seen = np.zeros(waves * count, bool)
    seen[pairs] = True
    return np.flatnonzero(seen) % count


def dram_bytes_lru(n: int, BM: int, BN: int, BK: int, ctas_per_sm: int, n_sm: int, l2_bytes: int, elem: int = 2,
                   group: int | None = None) -> int:
    """DRAM bytes of a square tiled matrix product through an LRU cache of ``l2_bytes``, wave by wave.

    A toy L2, for comparison with :func:`~kernellab.dram_bytes_tiled` (which keeps nothing from one wave to the
    next). Programs run in waves of ``n_sm × ctas_per_sm`` consecutive ids (launch order ``group`` as in
    :func:`~kernellab.tile_order`), in lockstep along K: at each K step of BK, the wave touches the distinct
    BM×BK blocks of A and BK×BN blocks of B its programs need, in program-id order. The cache is fully
    associative, holds whole blocks, and evicts the least recently used; each miss reads one block from
    DRAM. C is written once, M × N × elem bytes. Real L2s are set-associative and split in partitions,
    so treat the result as an estimate of the reuse a cache *could* find, not a prediction.

    Examples
    --------
    An L2 too small to keep anything between waves reads what the wave model says; one that holds
    both operands reads each block once (compulsory traffic, 2 × 256² × 2 B for A and B, plus C):

    >>> wave = dram_bytes_tiled(256, 64, 64, 1, 4, elem=2)
    >>> dram_bytes_lru(256, 64, 64, 32, 1, 4, l2_bytes=64 * 32 * 2 * 8, elem=2) == wave
    True
    >>> dram_bytes_lru(256, 64, 64, 32, 1, 4, l2_bytes=2**30, elem=2) == 3 * 256 * 256 * 2
    True
    """
    for name, v in (("n", n), ("BM", BM), ("BN", BN), ("BK", BK), ("ctas_per_sm", ctas_per_sm), ("n_sm", n_sm),
                    ("l2_bytes", l2_bytes), ("elem", elem)):
        if int(v) < 1:
            raise ValueError(_("{name} must be a positive int, got {v!r}").format(name=name, v=v))
    if n % BM or n % BN or n % BK:
        raise ValueError(_("n = {n} must be a multiple of BM, BN and BK ({BM}, {BN}, {BK})").format(
            n=n, BM=BM, BN=BN, BK=BK))
    num_m, num_n, steps = n // BM, n // BN, n // BK
    pid_m, pid_n = tile_order(num_m, num_n, group)
    a_block, b_block = BM * BK * elem, BK * BN * elem
    wave = int(n_sm) * int(ctas_per_sm)
    cache: OrderedDict = OrderedDict()
    used = 0
    read = 0
    for s in range(0, len(pid_m), wave):
        rows = list(dict.fromkeys(pid_m[s:s + wave].tolist()))  # distinct, in order of first use
        cols = list(dict.fromkeys(pid_n[s:s + wave].tolist()))
        for k in range(steps):
            for key, size in [(("A", r, k), a_block) for r in rows] + [(("B", c, k), b_block) for c in cols]:
                if key in cache:
                    cache.move_to_end(key)
                    continue
                read += size
                cache[key] = size
                used += size
                while used > l2_bytes:
                    used -= cache.popitem(last=False)[1]
    return read + n * n * elem
