"""Boehm's SGEMM kernels 1–5 on the simulator, each a :class:`KernelSpec`; 6–10 are in ``sgemm_tiled``.

Each kernel is a line-by-line translation of ``siboehm/SGEMM_CUDA`` (facts.md §1.3–1.4) computing
``C = A @ B`` (``alpha = 1, beta = 0``: C is stored, never loaded). Counting conventions:
global loads are vectorised only where the CUDA source casts to ``float4``; shared loads are
vectorised (``LDS.64/128``) where the index runs over contiguous, aligned elements, as nvcc does
for a ``__shared__`` array. Integer address arithmetic and loop control are not counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..counters import Counts
from ..errors import LaunchError
from ..grid import cdiv
from ..specs import A6000, GPU
from .launch import launch


@dataclass(frozen=True)
class KernelSpec:
    """One SGEMM kernel: its code, launch configuration and Boehm's A6000 measurement.

    Examples
    --------
    >>> k = KERNELS[0]
    >>> k.name, k.number, k.boehm, k.block, k.grid(100, 70, 50)
    ('sgemm_naive', 1, 309.0, (32, 32, 1), (4, 3, 1))
    """

    name: str  # the CUDA kernel's function name, as in Boehm's sources
    number: int  # Boehm's kernel number, 1–10
    label: str  # the README label, e.g. "2: GMEM Coalescing"
    boehm: float  # GFLOP/s measured on an RTX A6000 at 4096³ (facts.md §1.1, repo README at 60cba6f)
    kernel: Callable  # kernel(blk, A, B, C, M, N, K)
    block: tuple  # blockDim (x, y, z)
    grid_fn: Callable  # (M, N, K, params) → gridDim
    smem_bytes: int  # static shared memory per block, bytes (facts.md §1.3)
    params: dict = field(default_factory=dict)  # tile parameters: BM, BN, BK, TM, TN, …
    multiple_of: tuple = (1, 1, 1)  # M, N, K must be multiples of these (Boehm's kernels have no bounds checks)

    def grid(self, M: int, N: int, K: int) -> tuple:
        """gridDim for an M×K by K×N product."""
        return tuple((*self.grid_fn(M, N, K, self.params), 1, 1)[:3])

    @property
    def threads(self) -> int:
        """Threads per block."""
        return self.block[0] * self.block[1] * self.block[2]

    def check(self, M: int, N: int, K: int) -> None:
        """Raise :class:`~kernellab.errors.LaunchError` if the kernel cannot compute this shape."""
        for dim, v, m in zip("MNK", (M, N, K), self.multiple_of):
            if v < 1 or v % m:
                raise LaunchError(f"kernel {self.name} needs {dim} to be a positive multiple of {m} "
                                  f"(it has no bounds checks, as in Boehm's code); got {dim} = {v}")


def run_kernel(spec: KernelSpec, A: np.ndarray, B: np.ndarray, gpu: GPU = A6000, **kw) -> tuple[np.ndarray, Counts]:
    """Compute ``A @ B`` with ``spec``'s kernel on the simulator; return ``(C, counts)``.

    Examples
    --------
    >>> A, B = np.ones((3, 5), np.float32), np.ones((5, 2), np.float32)
    >>> C, c = run_kernel(KERNELS[1], A, B)
    >>> C.tolist(), c.fma, c.shape
    ([[5.0, 5.0], [5.0, 5.0], [5.0, 5.0]], 30, (3, 2, 5))
    """
    A = np.ascontiguousarray(A, np.float32)
    B = np.ascontiguousarray(B, np.float32)
    (M, K), (K2, N) = A.shape, B.shape
    if K != K2:
        raise ValueError(f"inner dimensions differ: A is {M}×{K}, B is {K2}×{N}")
    spec.check(M, N, K)
    C = np.zeros((M, N), np.float32)
    counts = launch(spec.kernel, spec.grid(M, N, K), spec.block, args=(A, B, C, M, N, K), gpu=gpu,
                    name=spec.name, shape=(M, N, K), **kw)
    return C, counts


# --- 1: naive ------------------------------------------------------------------------------------
def sgemm_naive(blk, A, B, C, M, N, K):
    """One thread per C element; ``threadIdx.x`` walks down a column of C (rows of A, stride K)."""
    x = blk.bx * blk.bdx + blk.tx
    y = blk.by * blk.bdy + blk.ty
    with blk.where((x < M) & (y < N)):
        acc = np.zeros(blk.n_threads, np.float32)
        for i in range(K):
            acc = blk.fma(blk.load(A, x * K + i), blk.load(B, i * N + y), acc)
        blk.store(C, x * N + y, acc)


# --- 2: global-memory coalescing -----------------------------------------------------------------
def sgemm_global_mem_coalesce(blk, A, B, C, M, N, K, BLOCKSIZE=32):
    """The same, but a warp takes 32 consecutive columns of one row: B and C accesses coalesce."""
    row = blk.bx * BLOCKSIZE + blk.tx // BLOCKSIZE
    col = blk.by * BLOCKSIZE + blk.tx % BLOCKSIZE
    with blk.where((row < M) & (col < N)):
        acc = np.zeros(blk.n_threads, np.float32)
        for i in range(K):
            acc = blk.fma(blk.load(A, row * K + i), blk.load(B, i * N + col), acc)
        blk.store(C, row * N + col, acc)


# --- 3: shared-memory caching --------------------------------------------------------------------
def sgemm_shared_mem_block(blk, A, B, C, M, N, K, BLOCKSIZE=32):
    """A 32×32 tile of A and of B goes through shared memory per K step; two barriers per step."""
    S = BLOCKSIZE
    As = blk.shared(S * S, np.float32, name="As")
    Bs = blk.shared(S * S, np.float32, name="Bs")
    c_row, c_col = blk.bx, blk.by
    t_row, t_col = blk.tx // S, blk.tx % S
    a0, b0 = c_row * S * K, c_col * S  # A += cRow·32·K; B += cCol·32
    acc = np.zeros(blk.n_threads, np.float32)
    for bk in range(0, K, S):
        blk.store(As, t_row * S + t_col, blk.load(A, a0 + bk + t_row * K + t_col))
        blk.store(Bs, t_row * S + t_col, blk.load(B, b0 + bk * N + t_row * N + t_col))
        blk.syncthreads()
        for dot in range(S):
            acc = blk.fma(blk.load(As, t_row * S + dot), blk.load(Bs, dot * S + t_col), acc)
        blk.syncthreads()
    blk.store(C, c_row * S * N + c_col * S + t_row * N + t_col, acc)


# --- 4: 1-D blocktiling --------------------------------------------------------------------------
def sgemm1DBlocktiling(blk, A, B, C, M, N, K, BM=64, BN=64, BK=8, TM=8):
    """Each thread computes TM = 8 results down a column; the Bs value is reused from a register."""
    As = blk.shared(BM * BK, np.float32, name="As")
    Bs = blk.shared(BK * BN, np.float32, name="Bs")
    c_row, c_col = blk.by, blk.bx
    t_col, t_row = blk.tx % BN, blk.tx // BN
    a0, b0 = c_row * BM * K, c_col * BN
    row_a, col_a = blk.tx // BK, blk.tx % BK
    row_b, col_b = blk.tx // BN, blk.tx % BN
    res = np.zeros((blk.n_threads, TM), np.float32)
    rows = (t_row * TM)[:, None] + np.arange(TM)  # the TM rows of this thread, lanes × TM
    for bk in range(0, K, BK):
        blk.store(As, row_a * BK + col_a, blk.load(A, a0 + bk + row_a * K + col_a))
        blk.store(Bs, row_b * BN + col_b, blk.load(B, b0 + bk * N + row_b * N + col_b))
        blk.syncthreads()
        for dot in range(BK):
            tmp_b = blk.load(Bs, dot * BN + t_col)
            res = blk.fma(blk.load(As, rows * BK + dot), tmp_b[:, None], res)
        blk.syncthreads()
    blk.store(C, c_row * BM * N + c_col * BN + rows * N + t_col[:, None], res)


# --- 5: 2-D blocktiling --------------------------------------------------------------------------
def sgemm2DBlocktiling(blk, A, B, C, M, N, K, BM=128, BN=128, BK=8, TM=8, TN=8):
    """Each thread computes a TM×TN = 8×8 outer product per dot step from registers."""
    n_thr = BM * BN // (TM * TN)
    As = blk.shared(BM * BK, np.float32, name="As")
    Bs = blk.shared(BK * BN, np.float32, name="Bs")
    c_row, c_col = blk.by, blk.bx
    t_col, t_row = blk.tx % (BN // TN), blk.tx // (BN // TN)
    a0, b0 = c_row * BM * K, c_col * BN
    row_a, col_a, stride_a = blk.tx // BK, blk.tx % BK, n_thr // BK
    row_b, col_b, stride_b = blk.tx // BN, blk.tx % BN, n_thr // BN
    offs_a = row_a[:, None] + np.arange(0, BM, stride_a)  # the loadOffset loop, one instruction per column
    offs_b = row_b[:, None] + np.arange(0, BK, stride_b)
    m_rows = (t_row * TM)[:, None] + np.arange(TM)
    n_cols = (t_col * TN)[:, None] + np.arange(0, TN, 4)  # Bs row segments: contiguous → LDS.128
    res = np.zeros((blk.n_threads, TM, TN), np.float32)
    for bk in range(0, K, BK):
        blk.store(As, offs_a * BK + col_a[:, None], blk.load(A, a0 + bk + offs_a * K + col_a[:, None]))
        blk.store(Bs, offs_b * BN + col_b[:, None], blk.load(B, b0 + bk * N + offs_b * N + col_b[:, None]))
        blk.syncthreads()
        for dot in range(BK):
            reg_m = blk.load(As, m_rows * BK + dot)  # strided by BK: scalar loads
            reg_n = blk.load(Bs, dot * BN + n_cols, vec=4).reshape(blk.n_threads, TN)
            res = blk.fma(reg_m[:, :, None], reg_n[:, None, :], res)
        blk.syncthreads()
    c_idx = c_row * BM * N + c_col * BN
    blk.store(C, c_idx[:, None, None] + m_rows[:, :, None] * N + (t_col * TN)[:, None, None] + np.arange(TN),
              res)


def _grid_rows_cols(M, N, K, p):
    return (cdiv(M, 32), cdiv(N, 32))


def _grid_tiles(M, N, K, p):
    return (cdiv(N, p["BN"]), cdiv(M, p["BM"]))
