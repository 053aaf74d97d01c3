"""The SIMT simulator: CUDA-style kernels in Python, with the counts a profiler gives.

Data flows kernel → :class:`~kernellab.Block` (executes a batch of thread blocks as
numpy vectors) → :class:`~kernellab.Access` records → :class:`~kernellab.Counts`.
"""

from .block import Block
from .launch import launch
from .memory import SharedArray
from .race import HazardTracker
from .scale import per_fma, scale_counts
from .sgemm import KERNELS, KernelSpec, run_kernel

__all__ = ["KERNELS", "Block", "HazardTracker", "KernelSpec", "SharedArray", "launch", "per_fma", "run_kernel",
           "scale_counts"]
