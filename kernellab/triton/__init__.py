"""mini-Triton: ``import kernellab.triton as triton`` stands in for ``import triton``.

Laid out by layer, as Triton lays out its own: :mod:`.language` (the ``tl`` names), :mod:`.runtime`
(``@triton.jit``, the autotuner, the driver), the API shell (:mod:`.testing`, :mod:`.benchmark`,
:mod:`.profiler`), :mod:`.compiler` (what Triton's compiler decides: layouts, conversions, MMA) and
:mod:`.executor` (programs, blocks, memory and counts). Two front ends share one engine
(:mod:`kernellab.triton.executor.engine`): the lecture form ``triton_launch(kernel, grid, *args)``
(:mod:`.seed`) and real Triton syntax, ``@triton.jit`` with ``kernel[grid](...)`` and
``import kernellab.triton.language as tl``.
"""

from ..grid import cdiv
from . import knobs, language, profiler, runtime, testing, tools
from .compiler.errors import CompilationError
from .errors import TritonError
from .executor.addresses import register_array
from .executor.counts import TritonCounts
from .replay.cache import replaying
from .runner import activate, deactivate
from .runtime.autotuner import Config, autotune, heuristics
from .runtime.driver import set_allocator, set_gpu
from .runtime.errors import InterpreterError, OutOfResources
from .runtime.jit import (
    JITFunction,
    KernelInterface,
    MockTensor,
    TensorWrapper,
    _unsupported,
    jit,
    reinterpret,
)
from .seed import SeedLanguage, triton_launch

#: The Triton release whose API and semantics the engine follows (kernellab's own version is
#: ``kernellab.__version__``).
__version__ = "3.9.0"


aggregate = _unsupported("triton.aggregate", "kernellab does not emulate aggregate classes of kernel values")
AsyncCompileMode = _unsupported("triton.AsyncCompileMode", "kernellab compiles nothing, asynchronously or not")
FutureKernel = _unsupported("triton.FutureKernel", "kernellab compiles nothing, asynchronously or not")
compile = _unsupported("triton.compile", "kernellab runs kernels in Python and builds no GPU binary")


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


__all__ = ["activate", "deactivate", "AsyncCompileMode", "CompilationError", "FutureKernel", "aggregate", "Config", "InterpreterError", "JITFunction", "KernelInterface", "MockTensor",
           "OutOfResources", "SeedLanguage", "TensorWrapper", "TritonCounts", "TritonError", "__version__", "autotune",
           "cdiv", "compile", "constexpr_function", "heuristics", "jit", "knobs", "language", "must_use_result",
           "next_power_of_2", "profiler", "register_array", "reinterpret", "replaying", "runtime", "set_allocator",
           "set_gpu", "testing", "tools",
           "triton_launch"]
