"""Old home of Boehm's SGEMM kernels, now the package :mod:`kernellab.sgemm`; kept so old imports work."""

from ..sgemm.kernels import K1, K2, K3, K4, K5, K6, K7, K8, K9, K10, KERNELS, KernelSpec, run_kernel  # noqa: F401

__all__ = ["KERNELS", "KernelSpec", "run_kernel"]
