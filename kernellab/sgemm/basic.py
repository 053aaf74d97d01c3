"""Boehm's SGEMM kernels 1–5 as simulator kernels: naive, coalesced, shared-memory caching, 1-D and 2-D blocktiling.

Line-by-line translations of ``siboehm/SGEMM_CUDA`` (``src/kernels/1_naive.cuh`` …
``5_kernel_2D_blocktiling.cuh``), computing ``C = A @ B`` (``alpha = 1, beta = 0``). Their specs
and launch configurations are in :mod:`kernellab.sgemm.kernels`.

Each kernel issues what nvcc compiles its CUDA twin (``cuda/k0*.cu``) into for sm_86, pass for pass
of the K loop: the same shared loads by width (nvcc reads a thread's run of consecutive ``__shared__``
floats across the unrolled dot loop with ``LDS.128``), and the integer/address and branch
instructions of one pass, counted with ``blk.count_instr`` from ``kernellab/sgemm/sass_mix.json``.
Code outside the main K loop (index set-up, the epilogue, and for k1/k2 the remainder loop nvcc
emits when K is not a multiple of its unroll factor) issues no integer overhead here.
"""

from __future__ import annotations

import numpy as np

from ..simt.launcher import declares_overhead


def _block_tiles(blk, BM, BN, BK, K, bs_row=None):
    """The prologue of Boehm's tiled kernels (4–10): ``__shared__ float As[BM * BK], Bs[BK * BN]``,
    ``cRow = blockIdx.y``, ``cCol = blockIdx.x``, ``A += cRow * BM * K``, ``B += cCol * BN``.

    ``bs_row`` is the length of a Bs row where a kernel pads it (k8); BN otherwise.
    Returns ``As, Bs, cRow, cCol`` and the block's first element of A and of B.
    """
    As = blk.shared(BM * BK, np.float32, name="As")
    Bs = blk.shared(BK * (BN if bs_row is None else bs_row), np.float32, name="Bs")
    c_row, c_col = blk.by, blk.bx
    return As, Bs, c_row, c_col, c_row * BM * K, c_col * BN


def _end_pass(blk, n_int, n_ctrl=1):
    """Close a pass of the K loop: the ``n_int`` integer/address and ``n_ctrl`` branch instructions
    nvcc emits for it (``sass_mix.json``), then the second ``__syncthreads()``."""
    blk.count_instr("int", n_int)
    blk.count_instr("ctrl", n_ctrl)
    blk.syncthreads()


# --- 1: naive ------------------------------------------------------------------------------------
@declares_overhead
def sgemm_naive(blk, A, B, C, M, N, K):
    """One thread per C element; ``threadIdx.x`` walks down a column of C (rows of A, stride K)."""
    x = blk.bx * blk.bdx + blk.tx
    y = blk.by * blk.bdy + blk.ty
    with blk.where((x < M) & (y < N)):
        acc = np.zeros(blk.n_threads, np.float32)
        a_row = x * K  # hoisted out of the loop, as nvcc does
        for i in range(K):
            a = blk.load(A, a_row + i)  # a warp's 32 lanes read 32 rows of A: 32 sectors a request
            b = blk.load(B, y + i * N)  # the same element of B for the whole warp: 1 sector
            acc = blk.fma(a, b, acc)
            if i % 4 == 3:  # nvcc unrolls the loop by 4; a pass issues 20 IMAD/IADD3/LEA/ISETP and a BRA
                blk.count_instr("int", 20)
                blk.count_instr("ctrl")
        blk.store(C, x * N + y, acc)


# --- 2: global-memory coalescing -----------------------------------------------------------------
@declares_overhead
def sgemm_global_mem_coalesce(blk, A, B, C, M, N, K, BLOCKSIZE=32):
    """The same, but a warp takes 32 consecutive columns of one row: B and C accesses coalesce."""
    row = blk.bx * BLOCKSIZE + blk.tx // BLOCKSIZE
    col = blk.by * BLOCKSIZE + blk.tx % BLOCKSIZE
    with blk.where((row < M) & (col < N)):
        acc = np.zeros(blk.n_threads, np.float32)
        a_row = row * K
        for i in range(K):
            a = blk.load(A, a_row + i)  # one element of A for the whole warp: 1 sector
            b = blk.load(B, col + i * N)  # 32 consecutive floats of a row of B: 4 sectors
            acc = blk.fma(a, b, acc)
            if i % 16 == 15:  # signed indices: nvcc unrolls by 16; a pass issues 25 integer/address and a BRA
                blk.count_instr("int", 25)
                blk.count_instr("ctrl")
        blk.store(C, row * N + col, acc)


# --- 3: shared-memory caching --------------------------------------------------------------------
@declares_overhead
def sgemm_shared_mem_block(blk, A, B, C, M, N, K, BLOCKSIZE=32):
    """A 32×32 tile of A and of B goes through shared memory per K step; two barriers per step."""
    S = BLOCKSIZE
    As = blk.shared(S * S, np.float32, name="As")
    Bs = blk.shared(S * S, np.float32, name="Bs")
    c_row, c_col = blk.bx, blk.by
    t_row, t_col = blk.tx // S, blk.tx % S
    a0, b0 = c_row * S * K, c_col * S  # A += cRow·32·K; B += cCol·32
    acc = np.zeros(blk.n_threads, np.float32)
    a_run = (t_row * S)[:, None] + np.arange(0, S, 4)  # the thread's As row, 4 floats per LDS.128
    b_col = np.arange(S) * S + t_col[:, None]  # Bs[dot·32 + t_col] for dot = 0..31: scalar loads
    for bk in range(0, K, S):
        blk.store(As, t_row * S + t_col, blk.load(A, a0 + bk + t_row * K + t_col))
        blk.store(Bs, t_row * S + t_col, blk.load(B, b0 + bk * N + t_row * N + t_col))
        blk.syncthreads()
        a = blk.load(As, a_run, vec=4).reshape(blk.n_threads, S)  # 8 LDS.128
        b = blk.load(Bs, b_col)  # 32 LDS
        for dot in range(S):
            acc = blk.fma(a[:, dot], b[:, dot], acc)
        _end_pass(blk, 7)  # SASS, cuda/k03: pointer bumps, loop test, 2 MOVs; the branch back
    blk.store(C, c_row * S * N + c_col * S + t_row * N + t_col, acc)


# --- 4: 1-D blocktiling --------------------------------------------------------------------------
@declares_overhead
def sgemm1DBlocktiling(blk, A, B, C, M, N, K, BM=64, BN=64, BK=8, TM=8):
    """Each thread computes TM = 8 results down a column; the Bs value is reused from a register."""
    As, Bs, c_row, c_col, a0, b0 = _block_tiles(blk, BM, BN, BK, K)
    t_col, t_row = blk.tx % BN, blk.tx // BN
    row_a, col_a = blk.tx // BK, blk.tx % BK
    row_b, col_b = blk.tx // BN, blk.tx % BN
    res = np.zeros((blk.n_threads, TM), np.float32)
    rows = (t_row * TM)[:, None] + np.arange(TM)  # the TM rows of this thread, lanes × TM
    a_runs = (rows * BK)[:, :, None] + np.arange(0, BK, 4)  # each row's BK floats: BK/4 LDS.128
    b_col = np.arange(BK) * BN + t_col[:, None]  # Bs[dot·BN + t_col]: one scalar load per dot step
    for bk in range(0, K, BK):
        blk.store(As, row_a * BK + col_a, blk.load(A, a0 + bk + row_a * K + col_a))
        blk.store(Bs, row_b * BN + col_b, blk.load(B, b0 + bk * N + row_b * N + col_b))
        blk.syncthreads()
        a = blk.load(As, a_runs.reshape(blk.n_threads, -1), vec=4).reshape(blk.n_threads, TM, BK)  # 16 LDS.128
        b = blk.load(Bs, b_col)  # 8 LDS
        for dot in range(BK):
            res = blk.fma(a[:, :, dot], b[:, dot, None], res)
        _end_pass(blk, 5)  # SASS, cuda/k04
    blk.store(C, (c_row * BM * N + c_col * BN)[:, None] + rows * N + t_col[:, None], res)


# --- 5: 2-D blocktiling --------------------------------------------------------------------------
@declares_overhead
def sgemm2DBlocktiling(blk, A, B, C, M, N, K, BM=128, BN=128, BK=8, TM=8, TN=8):
    """Each thread computes a TM×TN = 8×8 outer product per dot step from registers."""
    n_thr = BM * BN // (TM * TN)
    As, Bs, c_row, c_col, a0, b0 = _block_tiles(blk, BM, BN, BK, K)
    t_col, t_row = blk.tx % (BN // TN), blk.tx // (BN // TN)
    row_a, col_a, stride_a = blk.tx // BK, blk.tx % BK, n_thr // BK
    row_b, col_b, stride_b = blk.tx // BN, blk.tx % BN, n_thr // BN
    offs_a = row_a[:, None] + np.arange(0, BM, stride_a)  # the loadOffset loop, one instruction per column
    offs_b = row_b[:, None] + np.arange(0, BK, stride_b)
    m_rows = (t_row * TM)[:, None] + np.arange(TM)
    a_runs = (m_rows * BK)[:, :, None] + np.arange(0, BK, 4)  # each As row's BK floats: LDS.128s
    b_runs = (np.arange(BK) * BN)[:, None] + (t_col * TN)[:, None, None] + np.arange(0, TN, 4)  # Bs row segments
    res = np.zeros((blk.n_threads, TM, TN), np.float32)
    for bk in range(0, K, BK):
        blk.store(As, offs_a * BK + col_a[:, None], blk.load(A, a0[:, None] + bk + offs_a * K + col_a[:, None]))
        blk.store(Bs, offs_b * BN + col_b[:, None], blk.load(B, b0[:, None] + bk * N + offs_b * N + col_b[:, None]))
        blk.syncthreads()
        a = blk.load(As, a_runs.reshape(blk.n_threads, -1), vec=4).reshape(blk.n_threads, TM, BK)  # 16 LDS.128
        b = blk.load(Bs, b_runs.reshape(blk.n_threads, -1), vec=4).reshape(blk.n_threads, BK, TN)  # 16 LDS.128
        for dot in range(BK):
            res = blk.fma(a[:, :, dot, None], b[:, dot, None, :], res)
        _end_pass(blk, 44, 2)  # SASS, cuda/k05: the scalar staging's addresses; exit test and branch back
    c_idx = c_row * BM * N + c_col * BN
    c_off = c_idx[:, None, None] + m_rows[:, :, None] * N + (t_col * TN)[:, None, None] + np.arange(TN)
    blk.store(C, c_off.reshape(blk.n_threads, TM * TN), res.reshape(blk.n_threads, TM * TN))
