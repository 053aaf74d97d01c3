"""mini-Triton: ``import kernellab.triton as triton`` stands in for ``import triton``.

Two front ends share one engine (:mod:`.engine`): the lecture form ``triton_launch(kernel, grid, *args)``
(:mod:`.seed`) and real Triton syntax, ``@triton.jit`` with ``kernel[grid](...)`` (:mod:`.runtime`) and
``import kernellab.triton.language as tl``. Data flows: front end → program step (:mod:`.program`) →
block values (:mod:`.tensor`) → loads and stores (:mod:`.memory`) → access records and counters
(:mod:`kernellab.access`, :mod:`.counts`).
"""

from ..grid import cdiv
from . import language, testing, tools
from .autotuner import Config, autotune, heuristics
from .counts import TritonCounts
from .runtime import JITFunction, jit
from .seed import SeedLanguage, triton_launch


def next_power_of_2(n: int) -> int:
    """The smallest power of two ≥ n, as ``triton.next_power_of_2``.

    Examples
    --------
    >>> next_power_of_2(1000), next_power_of_2(1024), next_power_of_2(1)
    (1024, 1024, 1)
    """
    return 1 << (int(n) - 1).bit_length() if n > 1 else 1


__all__ = ["Config", "JITFunction", "SeedLanguage", "TritonCounts", "autotune", "cdiv", "heuristics", "jit", "language",
           "next_power_of_2", "testing", "tools", "triton_launch"]
