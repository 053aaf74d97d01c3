"""kernellab: see why GPU kernels are fast or slow, exactly, on the CPU.

The package is laid out in the order data flows through it (see the docs' layout page):
kernel source → executor (SIMT block, Triton program) → memory access record → counters →
performance model → reporting.
"""

# --- specs and reporting (platform) ---
from .access import Access
from .claims import Claims
from .compiled import compiled_code, compiled_metadata
from .counters import Counts, per_fma, scale_counts
from .errors import (
    BarrierError,
    BlockPointerWarning,
    ClaimError,
    Float64Warning,
    KernelTypeError,
    KernelValueError,
    LaunchError,
    MisalignedError,
    OutOfBoundsError,
    RaceError,
    ReplayError,
)
from .float64 import allow_float64
from .grid import cdiv
from .i18n import current_language
from .tables import Table, fmt_bytes, fmt_num, fmt_time, print_header, print_observations, print_table, show
from .specs import (
    A100,
    A6000,
    GPUS,
    H100,
    H200,
    PERF_A100,
    PERF_A6000,
    PERF_H100,
    PERF_H200,
    GPU,
    Perf,
    as_gpu,
    as_perf,
)

# --- SIMT simulator ---
from .simt import Block, HazardTracker, SharedArray, launch

# --- mini-Triton: ``kernellab.triton``, ``TritonCounts`` and ``triton_launch`` are imported when first asked
# for (``__getattr__`` below), so that ``import kernellab`` for the SIMT simulator or the model does not load
# it (≈ 45 ms of CPU a process: a third of the package's import)

# --- Boehm's SGEMM kernels on the simulator (a study above the engines) ---
from .sgemm import KERNELS, KernelSpec, run_kernel

# --- performance model ---
from .model import (
    Occupancy,
    RooflinePoint,
    Waves,
    attainable_flops,
    dram_bytes_tiled,
    occupancy,
    peak_flops,
    predict,
    ridge,
    tile_order,
    wave_footprints,
    waves,
)

from .model.kernel import roofline
from .sgemm.study import compare_kernels

# --- benchmarking ---
from .bench import Timing, do_bench

# --- profiling: counts per line, the source view, the report ---
from . import record
from .profile import Report, report
from .source import SourceView

_LAZY = ("TritonCounts", "triton_launch")

__version__ = "0.1.0"  # the one place the version is written (pyproject reads it)


def __getattr__(name: str):
    """The mini-Triton's names (``kernellab.TritonCounts``, ``kernellab.triton_launch``, ``kernellab.triton``),
    imported on first use (PEP 562); every other unknown name is an AttributeError as usual.

    >>> import kernellab
    >>> kernellab.triton_launch is kernellab.triton.triton_launch
    True
    """
    if name == "triton" or name in _LAZY:
        import kernellab.triton as triton  # the one deferred import of a kernellab module (tests/test_layers.py)

        return triton if name == "triton" else getattr(triton, name)
    raise AttributeError(f"module 'kernellab' has no attribute {name!r}")


def __dir__() -> list:
    return sorted({*globals(), *_LAZY, "triton"})
