"""``triton.runtime``, laid out as Triton lays out its own: :mod:`.jit` (``@triton.jit`` and the launch),
:mod:`.autotuner` (``@triton.autotune``, ``@triton.heuristics``, ``triton.Config``) and :mod:`.driver`
(the modelled GPU's driver: ``triton.runtime.driver.active``).
"""

from . import driver
from .autotuner import Autotuner, Config, Heuristics, autotune, heuristics
from .errors import InterpreterError, OutOfResources
from .jit import (
    JITFunction,
    KernelInterface,
    MockTensor,
    RedisRemoteCacheBackend,
    RemoteCacheBackend,
    TensorWrapper,
    reinterpret,
)

__all__ = ["Autotuner", "Config", "Heuristics", "InterpreterError", "JITFunction", "KernelInterface", "MockTensor",
           "OutOfResources", "RedisRemoteCacheBackend", "RemoteCacheBackend", "TensorWrapper", "autotune", "driver",
           "heuristics", "reinterpret"]
