"""Elementwise math of ``triton.language``: ``exp``, ``log``, ``sqrt``, ``rsqrt``, ``abs``, ``sigmoid``, ``maximum``, …

Transcendental functions accept fp32 and fp64 only, as Triton's (libdevice's) do: convert fp16 with
``.to(tl.float32)`` first. ``maximum``/``minimum`` promote like arithmetic.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as T
from ..tensor import _binary, tensor
from .core import _to_tensor


def _float_only(name: str, fn):
    def op(x, _semantic=None) -> tensor:
        x = _to_tensor(x)
        if x.dtype not in (T.float32, T.float64):
            raise ValueError(f"Expected dtype ['fp32', 'fp64'] but got {x.dtype} (tl.{name}: convert with .to(tl.float32))")
        return tensor(fn(x.data), x.dtype, x._shape)

    op.__name__ = name
    op.__doc__ = f"Elementwise ``{name}`` of an fp32 or fp64 block."
    return op


exp = _float_only("exp", np.exp)
exp2 = _float_only("exp2", np.exp2)
log = _float_only("log", np.log)
log2 = _float_only("log2", np.log2)
sqrt = _float_only("sqrt", np.sqrt)
sqrt_rn = _float_only("sqrt_rn", np.sqrt)
sin = _float_only("sin", np.sin)
cos = _float_only("cos", np.cos)
floor = _float_only("floor", np.floor)
ceil = _float_only("ceil", np.ceil)
rsqrt = _float_only("rsqrt", lambda d: 1 / np.sqrt(d))


def abs(x, _semantic=None) -> tensor:
    """Elementwise absolute value, any type."""
    x = _to_tensor(x)
    return tensor(np.abs(x.data), x.dtype, x._shape)


def sigmoid(x) -> tensor:
    """``1 / (1 + exp(-x))``, as Triton's standard library defines it."""
    return 1 / (1 + exp(-_to_tensor(x)))


def maximum(x, y, propagate_nan=None, _semantic=None) -> tensor:
    """Elementwise maximum (NaN-propagating, as ``propagate_nan=ALL``; Triton's default may return either)."""
    return _binary(_to_tensor(x), y, np.maximum, "maximum")


def minimum(x, y, propagate_nan=None, _semantic=None) -> tensor:
    """Elementwise minimum."""
    return _binary(_to_tensor(x), y, np.minimum, "minimum")


def clamp(x, min, max, propagate_nan=None) -> tensor:
    """``minimum(maximum(x, min), max)``."""
    return minimum(maximum(x, min), max)


def fma(x, y, z) -> tensor:
    """``x * y + z`` (computed as two roundings here; a GPU fuses them)."""
    return _to_tensor(x) * y + z


def softmax(x, ieee_rounding=False) -> tensor:
    """Softmax along the last axis."""
    from .core import max as _max
    from .core import sum as _sum

    x = _to_tensor(x)
    z = x - _max(x, len(x._shape) - 1, keep_dims=True)
    num = exp(z)
    return num / _sum(num, len(x._shape) - 1, keep_dims=True)


__all__ = ["abs", "ceil", "clamp", "cos", "exp", "exp2", "floor", "fma", "log", "log2", "maximum", "minimum",
           "rsqrt", "sigmoid", "sin", "softmax", "sqrt", "sqrt_rn"]
