"""Boehm's SGEMM kernels as :class:`~kernellab.KernelSpec` objects, ``KERNELS`` (k1–k10) and ``run_kernel``.

The kernels' code is in :mod:`~kernellab.sgemm.basic` (1–5) and :mod:`~kernellab.sgemm.tiled`
(6–10). Each kernel is a line-by-line translation of ``siboehm/SGEMM_CUDA`` (facts.md §1.3–1.4) computing
``C = A @ B`` (``alpha = 1, beta = 0``: C is stored, never loaded). Counting conventions: each
kernel issues, per pass of its K loop, the instructions nvcc emits for its CUDA twin in ``cuda/``
(sm_86; ``tests/test_sass_mix.py`` holds them equal). Global loads are vectorised only where the
CUDA source casts to ``float4``; shared loads are read with the widths nvcc chose (``LDS.64/128``
across a thread's run of consecutive floats); the loop's integer/address and branch instructions
are counted with ``blk.count_instr``. Code outside the K loop issues no integer overhead here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, partial
from pathlib import Path

import numpy as np

from ..counters import Counts
from ..errors import LaunchError
from ..grid import cdiv
from ..simt.launcher import launch
from ..specs import A6000, GPU
from .basic import (
    sgemm1DBlocktiling,
    sgemm2DBlocktiling,
    sgemm_global_mem_coalesce,
    sgemm_naive,
    sgemm_shared_mem_block,
)
from .tiled import (
    sgemmAutotuned,
    sgemmResolveBankConflicts,
    sgemmResolveBankExtraCol,
    sgemmVectorize,
    sgemmWarptiling,
)


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
    multiple_of: tuple = (1, 1, 1)  # M, N, K must be multiples of these ints or of these params
    small_params: dict = field(default_factory=dict)  # params that replace ``params`` when M or N < 128 (k5)

    def params_for(self, M: int, N: int, K: int) -> dict:
        """The tile parameters used for this shape (Boehm's runner shrinks k5's tiles below 128)."""
        return {**self.params, **self.small_params} if self.small_params and min(M, N) < 128 else dict(self.params)

    def grid(self, M: int, N: int, K: int) -> tuple:
        """gridDim for an M×K by K×N product."""
        return tuple((*self.grid_fn(M, N, K, self.params_for(M, N, K)), 1, 1)[:3])

    def block_for(self, M: int, N: int, K: int) -> tuple:
        """blockDim for this shape (equal to ``block`` unless the tiles shrink)."""
        p = self.params_for(M, N, K)
        if self.small_params and p != self.params:
            return (p["BM"] * p["BN"] // (p["TM"] * p["TN"]), 1, 1)
        return self.block

    @property
    def threads(self) -> int:
        """Threads per block."""
        return self.block[0] * self.block[1] * self.block[2]

    def check(self, M: int, N: int, K: int) -> None:
        """Raise :class:`~kernellab.LaunchError` if the kernel cannot compute this shape."""
        p = self.params_for(M, N, K)
        for dim, v, m in zip("MNK", (M, N, K), self.multiple_of):
            m = p[m] if isinstance(m, str) else m
            if v < 1 or v % m:
                raise LaunchError(f"kernel {self.name} needs {dim} to be a positive multiple of {m} "
                                  f"(it has no bounds checks, as in Boehm's code); got {dim} = {v}")


#: The CUDA twins' SASS record, written by ``nox -s sass`` (cuda/sass_mix.py): per kernel its K-loop mix and
#: ptxas's resource usage (registers per thread, static shared memory per block).
SASS_MIX_FILE = Path(__file__).with_name("sass_mix.json")


@cache
def _record() -> dict:
    return json.loads(SASS_MIX_FILE.read_text())


def run_kernel(spec: KernelSpec, A: np.ndarray, B: np.ndarray, gpu: GPU = A6000, **kw) -> tuple[np.ndarray, Counts]:
    """Compute ``A @ B`` with ``spec``'s kernel on the simulator; return ``(C, counts)``.

    Examples
    --------
    >>> A, B = np.ones((3, 5), np.float32), np.ones((5, 2), np.float32)
    >>> C, c = run_kernel(KERNELS[1], A, B)
    >>> C.tolist(), c.fma, c.shape
    ([[5.0, 5.0], [5.0, 5.0], [5.0, 5.0]], 30, (3, 2, 5))

    The launch carries the registers per thread ptxas gives the kernel's CUDA twin (``sass_mix.json``), for
    the residency per SM, unless ``regs=`` is given; the shared memory is what the kernel declares, which
    equals the twin's static shared memory:

    >>> c.launch["regs"], c.launch["smem_per_block"]     # k2's twin: "Used 40 registers", no shared memory
    (40, 0)
    """
    A = np.ascontiguousarray(A, np.float32)
    B = np.ascontiguousarray(B, np.float32)
    (M, K), (K2, N) = A.shape, B.shape
    if K != K2:
        raise ValueError(f"inner dimensions differ: A is {M}×{K}, B is {K2}×{N}")
    spec.check(M, N, K)
    C = np.zeros((M, N), np.float32)
    kernel = partial(spec.kernel, **spec.params_for(M, N, K)) if spec.params else spec.kernel
    twin = _record()["kernels"].get(spec.name)  # a spec of your own has none
    if twin and spec.params_for(M, N, K) == spec.params:  # the twin's tiles (k5's small tiles have no twin)
        kw.setdefault("regs", twin["registers"])
    counts = launch(kernel, spec.grid(M, N, K), spec.block_for(M, N, K), args=(A, B, C, M, N, K), gpu=gpu,
                    name=spec.name, shape=(M, N, K), **kw)
    return C, counts


def _grid_rows_cols(M, N, K, p):
    return (cdiv(M, 32), cdiv(N, 32))


def _grid_tiles(M, N, K, p):
    return (cdiv(N, p["BN"]), cdiv(M, p["BM"]))


_T5 = {"BM": 128, "BN": 128, "BK": 8, "TM": 8, "TN": 8}

K1 = KernelSpec("sgemm_naive", 1, "1: Naive", 309.0, sgemm_naive, (32, 32, 1), _grid_rows_cols, 0)
K2 = KernelSpec("sgemm_global_mem_coalesce", 2, "2: GMEM Coalescing", 1986.5, sgemm_global_mem_coalesce,
                (1024, 1, 1), _grid_rows_cols, 0)
K3 = KernelSpec("sgemm_shared_mem_block", 3, "3: SMEM Caching", 2980.3, sgemm_shared_mem_block,
                (1024, 1, 1), _grid_rows_cols, 8192, multiple_of=(32, 32, 32))
K4 = KernelSpec("sgemm1DBlocktiling", 4, "4: 1D Blocktiling", 8474.7, sgemm1DBlocktiling, (512, 1, 1),
                _grid_tiles, 4096, {"BM": 64, "BN": 64, "BK": 8, "TM": 8}, ("BM", "BN", "BK"))
K5 = KernelSpec("sgemm2DBlocktiling", 5, "5: 2D Blocktiling", 15971.7, sgemm2DBlocktiling, (256, 1, 1),
                _grid_tiles, 8192, _T5, ("BM", "BN", "BK"), {"BM": 64, "BN": 64})

_V = ("BM", "BN", "BK")
K6 = KernelSpec("sgemmVectorize", 6, "6: Vectorized Mem Access", 18237.3, sgemmVectorize, (256, 1, 1), _grid_tiles,
                8192, dict(_T5), _V)
K7 = KernelSpec("sgemmResolveBankConflicts", 7, "7: Avoid Bank Conflicts (Linearize)", 16213.4,
                sgemmResolveBankConflicts, (256, 1, 1), _grid_tiles, 8192, dict(_T5), _V)
K8 = KernelSpec("sgemmResolveBankExtraCol", 8, "8: Avoid Bank Conflicts (Offset)", 16459.2, sgemmResolveBankExtraCol,
                (256, 1, 1), _grid_tiles, 8352, {**_T5, "extraCols": 5}, _V)
K9 = KernelSpec("sgemmAutotuned", 9, "9: Autotuning", 19721.0, sgemmAutotuned, (256, 1, 1), _grid_tiles, 16384,
                {"BM": 128, "BN": 128, "BK": 16, "TM": 8, "TN": 8, "NUM_THREADS": 256}, _V)
K10 = KernelSpec("sgemmWarptiling", 10, "10: Warptiling", 21779.3, sgemmWarptiling, (128, 1, 1), _grid_tiles, 16384,
                 {"BM": 128, "BN": 128, "BK": 16, "WM": 64, "WN": 64, "WNITER": 4, "TM": 8, "TN": 4,
                  "NUM_THREADS": 128}, _V)

#: Boehm's kernels in his numbering — ``KERNELS[0]`` is k1 (naive), ``KERNELS[9]`` k10 (warptiling).
KERNELS = (K1, K2, K3, K4, K5, K6, K7, K8, K9, K10)
