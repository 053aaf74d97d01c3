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

_MOVED_TO_SGEMM = ("KERNELS", "KernelSpec", "run_kernel")  # Boehm's kernels live in kernellab.sgemm now


def __getattr__(name: str):
    """``from kernellab.simt import KERNELS`` keeps working: the SGEMM study moved up to :mod:`kernellab.sgemm`.

    Looked up on first use, so the simulator never imports the study that stands on it.
    """
    if name in _MOVED_TO_SGEMM:
        from .. import sgemm

        return getattr(sgemm, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
