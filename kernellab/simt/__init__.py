"""The SIMT simulator: CUDA-style kernels in Python, with the counts a profiler gives.

Data flows kernel → :class:`~kernellab.Block` (executes a batch of thread blocks as
numpy vectors) → :class:`~kernellab.Access` records → :class:`~kernellab.Counts`.
The launcher is :func:`~kernellab.launch` (module :mod:`kernellab.simt.launcher`).
"""

from ..counters import per_fma, scale_counts
from .block import Block
from .launcher import declares_overhead, launch
from .memory import SharedArray
from .race import HazardTracker

__all__ = ["Block", "HazardTracker", "SharedArray", "declares_overhead", "launch", "per_fma", "scale_counts"]
