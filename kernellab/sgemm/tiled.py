"""Boehm's SGEMM kernels 6–10 as simulator kernels: float4 access, bank-conflict layouts, autotuned tiles, warptiling.

Translations of ``siboehm/SGEMM_CUDA`` ``src/kernels/6_kernel_vectorize.cuh`` …
``10_kernel_warptiling.cuh`` (facts.md §1.3–1.4), computing ``C = A @ B``. A is read with
``float4`` loads and stored transposed into ``As`` (four scalar stores), so the inner loop reads
``As`` and ``Bs`` rows as contiguous runs (``LDS.128``) — except where k7 and k8 change ``Bs``'s
layout to move bank conflicts. All assume M, N multiples of the block tile and K of BK.

As in :mod:`kernellab.sgemm.basic`, each pass of the K loop also issues the integer/address and
branch instructions that nvcc emits for the kernel's CUDA twin (``cuda/k*.cu``, sm_86), counted with
``blk.count_instr`` from ``kernellab/sgemm/sass_mix.json``.
"""

from __future__ import annotations

import numpy as np

from ..grid import cdiv
from ..simt.launcher import declares_overhead
from .basic import _block_tiles, _end_pass


def _load_a_transposed(blk, A, As, a0, bk, K, BM, BK, n_thr):
    """float4 loads of the BM×BK tile of A, each stored as four scalars down a column of As (BK×BM)."""
    row_a, col_a = blk.tx // (BK // 4), blk.tx % (BK // 4)
    rows = row_a[:, None] + np.arange(0, BM, n_thr * 4 // BK)  # the rowStrideA loop: one float4 per column
    tmp = blk.load(A, a0[:, None] + bk + rows * K + (col_a * 4)[:, None], vec=4)  # lanes × iterations × 4
    for r in range(rows.shape[1]):
        blk.store(As, (col_a[:, None] * 4 + np.arange(4)) * BM + rows[:, r:r + 1], tmp[:, r])


def _load_b_rows(blk, B, b0, bk, N, BN, BK, n_thr):
    """float4 loads of the BK×BN tile of B: returns the values (lanes × iterations × 4) and tile rows/cols."""
    row_b, col_b = blk.tx // (BN // 4), blk.tx % (BN // 4)
    rows = row_b[:, None] + np.arange(0, BK, n_thr * 4 // BN)
    return blk.load(B, b0[:, None] + bk * N + rows * N + (col_b * 4)[:, None], vec=4), rows, col_b


def _load_tiles(blk, A, B, As, Bs, a0, b0, bk, K, N, BM, BN, BK, n_thr):
    """Kernel 6's loads of one K step: A transposed into As, and B's rows into Bs as they are (float4 stores)."""
    _load_a_transposed(blk, A, As, a0, bk, K, BM, BK, n_thr)
    tmp, rows, col_b = _load_b_rows(blk, B, b0, bk, N, BN, BK, n_thr)
    blk.store(Bs, rows * BN + (col_b * 4)[:, None], tmp, vec=4)


def _load_as(blk, As, dot, m_start, BM, TM):
    """A thread's TM values of As row ``dot`` from column ``m_start`` (contiguous: float4 shared loads)."""
    return blk.load(As, dot * BM + m_start[:, None] + np.arange(0, TM, 4), vec=4).reshape(blk.n_threads, TM)


def _outer(blk, As, Bs, m_start, n_start, dot, BM, BN, TM, TN, res):
    """Load TM values of As and TN of Bs (contiguous: float4 shared loads) and add their outer product."""
    reg_m = _load_as(blk, As, dot, m_start, BM, TM)
    reg_n = blk.load(Bs, dot * BN + n_start[:, None] + np.arange(0, TN, 4), vec=4).reshape(blk.n_threads, TN)
    return blk.fma(reg_m[:, :, None], reg_n[:, None, :], res)


#: How nvcc loads a thread's run of 8 consecutive ``__shared__`` floats whose first element sits at
#: ``o`` floats past a 16-byte boundary (``o`` = 0–3): (first element relative to the run, floats per
#: load). It widens a load to 16 bytes when that reads one float outside the run (o = 1, 3), and uses
#: 8-byte loads when it would read two (o = 2). Read off the SASS of cuda/k08 (sm_86, nvcc 13):
#: LDS.128 ×2 | LDS.128 [-1..2], [3..6], LDS [7] | LDS.64 [0,1], LDS.128 [2..5], LDS.64 [6,7] |
#: LDS [0], LDS.128 [1..4], [5..8].
RUN8_LOADS = {0: ((0, 4), (4, 4)), 1: ((-1, 4), (3, 4), (7, 1)), 2: ((0, 2), (2, 4), (6, 2)),
              3: ((0, 1), (1, 4), (5, 4))}


def _load_run(blk, arr, start, n):
    """Load ``arr[start : start + n]`` per lane (n = 8) with the loads nvcc emits; ``start`` mod 4 must be uniform."""
    o = (arr.offset // arr.itemsize + start) % 4
    if n != 8 or np.asarray(o != o[0]).any():  # a check of the simulation (its ISETP as counted), not a vote
        raise ValueError("_load_run reads runs of 8 floats whose start is the same mod 4 on every lane")
    out = np.empty((blk.n_threads, n + 2), arr.dtype)  # one float of slack each side for widened loads
    for first, vec in RUN8_LOADS[int(o[0])]:
        v = blk.load(arr, start + first, vec=vec)
        out[:, 1 + first:1 + first + vec] = v.reshape(blk.n_threads, vec)
    return out[:, 1:1 + n]


def _store_c(blk, C, c0, row0, col0, N, TM, TN, res):
    """float4 stores of a thread's TM×TN results at rows ``row0 + m`` and columns ``col0 + n``."""
    idx = c0[:, None, None] + (row0[:, None] + np.arange(TM))[:, :, None] * N + col0[:, None, None] + np.arange(0, TN, 4)
    blk.store(C, idx.reshape(blk.n_threads, -1), res.reshape(blk.n_threads, -1, 4), vec=4)


def _thread_tiles(blk, N, K, BM, BN, BK, TM, TN, bs_row=None):
    """The prologue of kernels 6–8: :func:`~kernellab.sgemm.basic._block_tiles`, the block's first
    element of C, the thread's tile row and column (its TM×TN results start at row ``t_row·TM`` and
    column ``t_col·TN`` of the block's tile) and the results, zero.

    Returns ``As, Bs, a0, b0, c0, t_row, t_col, res``.
    """
    As, Bs, c_row, c_col, a0, b0 = _block_tiles(blk, BM, BN, BK, K, bs_row)
    t_col, t_row = blk.tx % (BN // TN), blk.tx // (BN // TN)
    res = np.zeros((blk.n_threads, TM, TN), np.float32)
    return As, Bs, a0, b0, c_row * BM * N + c_col * BN, t_row, t_col, res


@declares_overhead
def sgemmVectorize(blk, A, B, C, M, N, K, BM=128, BN=128, BK=8, TM=8, TN=8):
    """Kernel 6: kernel 5 with float4 global loads and stores, and As transposed."""
    n_thr = BM * BN // (TM * TN)
    As, Bs, a0, b0, c0, t_row, t_col, res = _thread_tiles(blk, N, K, BM, BN, BK, TM, TN)
    for bk in range(0, K, BK):
        _load_tiles(blk, A, B, As, Bs, a0, b0, bk, K, N, BM, BN, BK, n_thr)
        blk.syncthreads()
        for dot in range(BK):
            res = _outer(blk, As, Bs, t_row * TM, t_col * TN, dot, BM, BN, TM, TN, res)
        _end_pass(blk, 10, 2)  # SASS, cuda/k06; the exit test and the branch back
    _store_c(blk, C, c0, t_row * TM, t_col * TN, N, TM, TN, res)


@declares_overhead
def sgemmResolveBankConflicts(blk, A, B, C, M, N, K, BM=128, BN=128, BK=8, TM=8, TN=8):
    """Kernel 7: kernel 6 with Bs "linearized": the 8 values a thread reads per dot step sit 16 floats apart."""
    n_thr = BM * BN // (TM * TN)
    As, Bs, a0, b0, c0, t_row, t_col, res = _thread_tiles(blk, N, K, BM, BN, BK, TM, TN)
    for bk in range(0, K, BK):
        _load_a_transposed(blk, A, As, a0, bk, K, BM, BK, n_thr)
        tmp, rows, col_b = _load_b_rows(blk, B, b0, bk, N, BN, BK, n_thr)
        # Bs[((innerColB % 2)·4 + innerRowB·8 + j)·16 + innerColB / 2] = tmp[j], four scalar stores
        idx = (((col_b % 2) * 4)[:, None] + rows[:, :1] * 8 + np.arange(4)) * 16 + (col_b // 2)[:, None]
        blk.store(Bs, idx, tmp[:, 0])
        blk.syncthreads()
        for dot in range(BK):
            reg_m = _load_as(blk, As, dot, t_row * TM, BM, TM)
            reg_n = blk.load(Bs, ((dot * 8 + np.arange(TN)) * 16)[None, :] + t_col[:, None])  # 16 apart: scalar
            res = blk.fma(reg_m[:, :, None], reg_n[:, None, :], res)
        _end_pass(blk, 10, 2)  # SASS, cuda/k07
    _store_c(blk, C, c0, t_row * TM, t_col * TN, N, TM, TN, res)


@declares_overhead
def sgemmResolveBankExtraCol(blk, A, B, C, M, N, K, BM=128, BN=128, BK=8, TM=8, TN=8, extraCols=5):
    """Kernel 8: kernel 6 with each Bs row padded by ``extraCols = 5`` floats (Bs is BK × (BN + 5))."""
    n_thr = BM * BN // (TM * TN)
    BNp = BN + extraCols
    As, Bs, a0, b0, c0, t_row, t_col, res = _thread_tiles(blk, N, K, BM, BN, BK, TM, TN, bs_row=BNp)
    for bk in range(0, K, BK):
        _load_a_transposed(blk, A, As, a0, bk, K, BM, BK, n_thr)
        tmp, rows, col_b = _load_b_rows(blk, B, b0, bk, N, BN, BK, n_thr)
        blk.store(Bs, rows[:, :1] * BNp + (col_b * 4)[:, None] + np.arange(4), tmp[:, 0])  # row 133 floats: scalar
        blk.syncthreads()
        for dot in range(BK):
            reg_m = _load_as(blk, As, dot, t_row * TM, BM, TM)
            reg_n = _load_run(blk, Bs, dot * BNp + t_col * TN, TN)  # rows of 133 floats: mixed widths
            res = blk.fma(reg_m[:, :, None], reg_n[:, None, :], res)
        _end_pass(blk, 10, 2)  # SASS, cuda/k08
    _store_c(blk, C, c0, t_row * TM, t_col * TN, N, TM, TN, res)


@declares_overhead
def sgemmAutotuned(blk, A, B, C, M, N, K, BM=128, BN=128, BK=16, TM=8, TN=8, NUM_THREADS=256):
    """Kernel 9: kernel 6 generalised to a warp-sized iteration structure, with the A6000's autotuned tiles."""
    WM, WN = TM * 16, TN * 16
    WMITER, WNITER = cdiv(BM, WM), cdiv(BN, WN)
    As, Bs, c_row, c_col, a0, b0 = _block_tiles(blk, BM, BN, BK, K)
    t_col, t_row = blk.tx % (WN // TN), blk.tx // (WN // TN)
    res = np.zeros((blk.n_threads, WMITER, WNITER, TM, TN), np.float32)
    for bk in range(0, K, BK):
        _load_tiles(blk, A, B, As, Bs, a0, b0, bk, K, N, BM, BN, BK, NUM_THREADS)
        blk.syncthreads()
        for wm in range(WMITER):
            for wn in range(WNITER):
                for dot in range(BK):
                    res[:, wm, wn] = _outer(blk, As, Bs, wm * WM + t_row * TM, wn * WN + t_col * TN, dot,
                                            BM, BN, TM, TN, res[:, wm, wn])
        _end_pass(blk, 14, 2)  # SASS, cuda/k09
    for wm in range(WMITER):
        for wn in range(WNITER):
            _store_c(blk, C, c_row * BM * N + c_col * BN + wm * WM * N + wn * WN, t_row * TM, t_col * TN,
                     N, TM, TN, res[:, wm, wn])


@declares_overhead
def sgemmWarptiling(blk, A, B, C, M, N, K, BM=128, BN=128, BK=16, WM=64, WN=64, WNITER=4, TM=8, TN=4,
                    NUM_THREADS=128):
    """Kernel 10: each warp computes a WM×WN warp tile in WMITER×WNITER sub-tiles of 8×4 per thread."""
    WMITER = (WM * WN) // (32 * TM * TN * WNITER)
    WSUBM, WSUBN = WM // WMITER, WN // WNITER
    As, Bs, c_row, c_col, a0, b0 = _block_tiles(blk, BM, BN, BK, K)
    warp = blk.tx // 32
    warp_col, warp_row = warp % (BN // WN), warp // (BN // WN)
    lane = blk.tx % 32
    t_col, t_row = lane % (WSUBN // TN), lane // (WSUBN // TN)
    res = np.zeros((blk.n_threads, WMITER * TM, WNITER * TN), np.float32)
    m_start = warp_row * WM + t_row * TM  # + wsub·WSUBM
    n_start = warp_col * WN + t_col * TN  # + wsub·WSUBN
    for bk in range(0, K, BK):
        _load_tiles(blk, A, B, As, Bs, a0, b0, bk, K, N, BM, BN, BK, NUM_THREADS)
        blk.syncthreads()
        for dot in range(BK):
            m_idx = (m_start[:, None, None] + (np.arange(WMITER) * WSUBM)[:, None] + np.arange(0, TM, 4))
            n_idx = (n_start[:, None, None] + (np.arange(WNITER) * WSUBN)[:, None] + np.arange(0, TN, 4))
            reg_m = blk.load(As, dot * BM + m_idx.reshape(blk.n_threads, -1), vec=4).reshape(blk.n_threads, -1)
            reg_n = blk.load(Bs, dot * BN + n_idx.reshape(blk.n_threads, -1), vec=4).reshape(blk.n_threads, -1)
            res = blk.fma(reg_m[:, :, None], reg_n[:, None, :], res)
        _end_pass(blk, 37, 2)  # SASS, cuda/k10
    c0 = (c_row * BM + warp_row * WM) * N + c_col * BN + warp_col * WN
    for wm in range(WMITER):
        for wn in range(WNITER):
            _store_c(blk, C, c0 + wm * WSUBM * N + wn * WSUBN, t_row * TM, t_col * TN, N, TM, TN,
                     res[:, wm * TM:(wm + 1) * TM, wn * TN:(wn + 1) * TN])
