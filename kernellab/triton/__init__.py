"""mini-Triton: ``import kernellab.triton as triton`` stands in for ``import triton``.

Two front ends share one engine (:mod:`.engine`): the lecture form ``triton_launch(kernel, grid, *args)``
(:mod:`.seed`) and real Triton syntax, ``@triton.jit`` with ``kernel[grid](...)`` (:mod:`.runtime`) and
``import kernellab.triton.language as tl``. Data flows: front end → program step (:mod:`.program`) →
block values (:mod:`.tensor`) → loads and stores (:mod:`.memory`) → access records and counters
(:mod:`kernellab.access`, :mod:`.counts`).
"""

from ..grid import cdiv
from . import language, profiler, runtime, testing, tools
from .addresses import register_array
from .autotuner import Config, autotune, heuristics
from .counts import TritonCounts
from .driver import set_allocator, set_gpu
from .runtime import (
    InterpreterError,
    JITFunction,
    KernelInterface,
    MockTensor,
    OutOfResources,
    TensorWrapper,
    jit,
    reinterpret,
)
from .seed import SeedLanguage, triton_launch

runtime._alias_submodules()

#: The Triton release whose API and semantics the engine follows (kernellab's own version is
#: ``kernellab.__version__``).
__version__ = "3.9.0"


class TritonError(Exception):
    """Base of Triton's own errors (``triton.TritonError``); kernellab raises :mod:`kernellab.errors` classes."""


class CompilationError(TritonError):
    """``triton.CompilationError``: kernellab compiles nothing, so it never raises it; kept for ``except`` clauses."""


aggregate = runtime._unsupported("triton.aggregate", "kernellab does not emulate aggregate classes of kernel values")
AsyncCompileMode = runtime._unsupported("triton.AsyncCompileMode", "kernellab compiles nothing, asynchronously or not")
FutureKernel = runtime._unsupported("triton.FutureKernel", "kernellab compiles nothing, asynchronously or not")
compile = runtime._unsupported("triton.compile", "kernellab runs kernels in Python and builds no GPU binary")


def constexpr_function(fn):
    """``@triton.constexpr_function``: a host function a kernel may call on constexpr values; here it is the
    function itself (kernels are Python)."""
    return fn


def must_use_result(fn):
    """``@triton.must_use_result``: a hint for Triton's compiler; here the function itself."""
    return fn


def next_power_of_2(n: int) -> int:
    """The smallest power of two ≥ n, as ``triton.next_power_of_2``.

    Examples
    --------
    >>> next_power_of_2(1000), next_power_of_2(1024), next_power_of_2(1)
    (1024, 1024, 1)
    """
    return 1 << (int(n) - 1).bit_length() if n > 1 else 1


__all__ = ["AsyncCompileMode", "CompilationError", "FutureKernel", "aggregate", "Config", "InterpreterError", "JITFunction", "KernelInterface", "MockTensor",
           "OutOfResources", "SeedLanguage", "TensorWrapper", "TritonCounts", "TritonError", "__version__", "autotune",
           "cdiv", "compile", "constexpr_function", "heuristics", "jit", "language", "must_use_result",
           "next_power_of_2", "profiler", "register_array", "reinterpret", "runtime", "set_allocator", "set_gpu", "testing", "tools",
           "triton_launch"]
