"""``triton._C.libtriton``: the vendor BLAS handles Triton's tutorials compare against, computed on the host.

Tutorial 09 (persistent matmul) builds ``nvidia.cublas.CublasLt(workspace)`` (``amd.hipblas.HipblasLt`` on
ROCm) and calls ``blas.matmul(a, b, c)``: ``c = a @ b.T`` with ``b`` given transposed, accumulated in
fp32 and rounded once to ``c``'s dtype, as cuBLAS computes it. Here the product is computed on the CPU
(torch's or numpy's fp32 matmul). It is not a kernellab launch: nothing is counted and no GPU time is
predicted for it (``triton.testing.do_bench`` says "not predicted", and so does a proton scope holding
it). The rest of Triton's C extension (the compiler's IR builders, the driver) is not provided.

>>> import numpy as np
>>> a = np.arange(6, dtype=np.float16).reshape(2, 3); b = np.ones((4, 3), np.float16)
>>> c = np.empty((2, 4), np.float16)
>>> nvidia.cublas.CublasLt(np.empty(1 << 20, np.uint8)).matmul(a, b, c); c[:, 0]   # rows of a summed
array([ 3., 12.], dtype=float16)
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from kernellab.i18n import _


def _host(x, what: str):
    if type(x).__module__.startswith("torch"):
        return x
    if isinstance(x, np.ndarray):
        return x
    raise TypeError(_("{what} must be a torch tensor or a numpy array, not {type}").format(what=what, type=type(x).__name__))


class _BlasLt:
    """A BLAS handle: ``matmul(a, b, c)`` writes ``a @ b.T`` into ``c`` (fp32 accumulation, one rounding)."""

    library = "cuBLASLt"

    def __init__(self, workspace=None):
        self.workspace = workspace

    def matmul(self, a, b, c):
        """``c[...] = a @ b.T`` for ``a`` of shape (M, K), ``b`` (N, K) and ``c`` (M, N)."""
        a, b, c = _host(a, "a"), _host(b, "b"), _host(c, "c")
        (m, k), (n, k2), shape = tuple(a.shape), tuple(b.shape), tuple(c.shape)
        if k != k2 or shape != (m, n):
            raise ValueError(_("{lib}.matmul: a {a}, b {b} (transposed) and c {c} do not fit c = a @ b.T").format(
                lib=self.library, a=list(a.shape), b=list(b.shape), c=list(c.shape)))
        if isinstance(c, np.ndarray):
            c[...] = (np.asarray(a, np.float32) @ np.asarray(b, np.float32).T).astype(c.dtype)
        else:
            import torch

            c.copy_(torch.matmul(a.float(), b.float().T).to(c.dtype))

    def fp8_matmul(self, a, b, c):
        """The fp8 entry point: the same product (the inputs are upcast exactly to fp32)."""
        self.matmul(a, b, c)


class CublasLt(_BlasLt):
    """``nvidia.cublas.CublasLt(workspace)``."""


class HipblasLt(_BlasLt):
    """``amd.hipblas.HipblasLt(workspace)``."""

    library = "hipBLASLt"


nvidia = SimpleNamespace(cublas=SimpleNamespace(CublasLt=CublasLt))
amd = SimpleNamespace(hipblas=SimpleNamespace(HipblasLt=HipblasLt))

__all__ = ["CublasLt", "HipblasLt", "amd", "nvidia"]
