"""Elementwise math of ``triton.language``: ``exp``, ``erf``, ``rsqrt``, ``umulhi``, ``fdiv``, ``fma``, ``maximum``, …

Transcendental functions accept fp32 and fp64 only, as Triton's (libdevice's) do: convert fp16 with
``.to(tl.float32)`` first. ``maximum``/``minimum`` promote like arithmetic. Results are numpy's,
correctly rounded where numpy's are; a GPU's ``ex2.approx``-based ``exp`` may differ in the last bits.

Before Triton 3.0 this module was libdevice (``tl.math.tanh``); in Triton 3.9 those functions are
``tl.extra.libdevice``'s only, and so here: ``tl.math.tanh`` is an ``AttributeError``, and in a
``@triton.jit`` kernel the ``CompilationError`` Triton 3.9 raises for it.

Examples
--------
>>> from kernellab.triton.language.math import tanh
Traceback (most recent call last):
...
ImportError: cannot import name 'tanh' from 'kernellab.triton.language.math' ...
>>> from kernellab.triton.language.extra.libdevice import tanh      # where Triton 3.9 has it
>>> tanh(np.float32([0.5])).tolist()
[0.46211716532707214]
"""

from __future__ import annotations

import math as _pymath

import numpy as np

from kernellab.fused import round_once
from kernellab.i18n import _

from ..compiler.limits import missing_name, refuse
from ..executor import kinds
from ..executor.rounds import dependent
from ..executor.tensor import _binary, _tensor_member_fn, count_special, tensor
from .core import _to_tensor
from .core import max as _max
from .core import sum as _sum
from .extra.bits import mulhi_u64


def _checked(name: str, x, allowed: tuple) -> tensor:
    x = _to_tensor(x)
    if x.dtype.name not in allowed:  # Triton checks it when it compiles: a CompilationError in a kernel (limits)
        raise refuse(ValueError(_("Expected dtype {allowed} but got {dtype} (tl.{fn}: convert with "
                           ".to(tl.float32))").format(
            allowed=list(allowed), dtype=x.dtype.name, fn=name)))
    return x


def _unary(name: str, fn, allowed=("fp32", "fp64"), doc=None, mufu: bool = False):
    def op(x, _semantic=None) -> tensor:
        x = _checked(name, x, allowed)
        if mufu and x.dtype.name == "fp32":  # one MUFU a thread's element (counts.TritonCounts.xu_instructions)
            count_special(x._shape)
        out = tensor(fn(x.data).astype(x.dtype.np, copy=False), x.dtype, x._shape)
        if x._dep:
            out._dep = True
            dependent(x._shape, 0, mufu)
        out._lay = x._lay
        return out

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc or f"Elementwise ``{name}`` of an fp32 or fp64 block (a tensor member: ``x.{name}()``)."
    return _tensor_member_fn(kinds.pure(op))


_erf = np.frompyfunc(_pymath.erf, 1, 1)

exp = _unary("exp", np.exp, mufu=True)
exp2 = _unary("exp2", np.exp2, mufu=True)
log = _unary("log", np.log, mufu=True)
log2 = _unary("log2", np.log2, mufu=True)
sqrt = _unary("sqrt", np.sqrt, mufu=True)
sqrt_rn = _unary("sqrt_rn", np.sqrt, ("fp32",), "Square root rounded to nearest (IEEE), fp32 only.", mufu=True)
sin = _unary("sin", np.sin, mufu=True)
cos = _unary("cos", np.cos, mufu=True)
floor = _unary("floor", np.floor)
ceil = _unary("ceil", np.ceil)
rsqrt = _unary("rsqrt", lambda d: 1 / np.sqrt(d), mufu=True)
erf = _unary("erf", lambda d: _erf(d.astype(np.float64)).astype(np.float64),
             doc="The error function of an fp32 or fp64 block (``math.erf`` of each value, rounded).")


@kinds.pure
@_tensor_member_fn
def abs(x, _semantic=None) -> tensor:
    """Elementwise absolute value, any type (unsigned and boolean blocks unchanged)."""
    x = _to_tensor(x)
    if x.dtype.is_int_unsigned() or x.dtype.is_bool():
        return x
    return tensor(np.abs(x.data), x.dtype, x._shape)


@kinds.pure
def umulhi(x, y, _semantic=None) -> tensor:
    """The high half of the 2N-bit product of N-bit integers (``__umulhi``), for int32/int64/uint32/uint64.

    The operands multiply as unsigned numbers (signed ones through their bit patterns), as on the GPU.

    Examples
    --------
    >>> from kernellab.triton.executor import dtypes as T
    >>> a = tensor(np.uint32([[0xFFFFFFFF, 3]]), T.uint32, (2,))
    >>> umulhi(a, a).data[0].tolist()      # (2^32 - 1)^2 >> 32 = 2^32 - 2;  9 >> 32 = 0
    [4294967294, 0]
    """
    ints = ("int32", "int64", "uint32", "uint64")
    x = _checked("umulhi", x, ints)
    y = _checked("umulhi", y, ints) if isinstance(y, tensor) else y

    def hi(a, b):
        bits = a.dtype.itemsize * 8
        ua = a.view(np.uint32 if bits == 32 else np.uint64)  # the bit patterns, as unsigned (as the GPU)
        ub = np.asarray(b).astype(a.dtype, copy=False).view(ua.dtype)
        if bits == 32:  # exact in 64 bits
            return ((ua.astype(np.uint64) * ub.astype(np.uint64)) >> np.uint64(32)).astype(np.uint32).view(a.dtype)
        return mulhi_u64(ua, ub).view(a.dtype)

    return _binary(x, y, hi, "umulhi")


@kinds.pure
def fdiv(x, y, ieee_rounding=False, approx=False, _semantic=None) -> tensor:
    """``x / y`` on floats (the GPU's fast division unless ``ieee_rounding``; IEEE here)."""
    return _binary(_to_tensor(x), y, np.true_divide, "fdiv", div=True)


@kinds.pure
def div_rn(x, y, _semantic=None) -> tensor:
    """``x / y`` rounded to nearest (IEEE), fp32 only."""
    x = _checked("div_rn", x, ("fp32",))
    return _binary(x, y, np.true_divide, "div_rn", div=True)


@kinds.pure
def fma(x, y, z, _semantic=None) -> tensor:
    """``x * y + z`` with one rounding, as the GPU's fused multiply-add.

    The product in fp64, exact for fp16 and fp32 (fp64 holds 24 + 24 bits), then the sum in fp64, rounded
    once to fp32 or fp16 (``kernellab.fused.round_once`` corrects the sums that fp64 rounded onto a tie;
    bf16 and fp8 results are rounded from the fp64 sum, and fp64 inputs round twice here). Integers compute
    ``x * y + z`` in their own type.

    Examples
    --------
    >>> from kernellab.triton.executor import dtypes as T
    >>> a = tensor(np.float32([1 + 2**-12]), T.float32, ())
    >>> float(fma(a, a, -1.0).data[0]) == 2**-11 + 2**-24      # unfused, fp32 would drop the 2^-24
    True
    """
    x = _to_tensor(x)
    p = _binary(x, y, lambda a, b: np.multiply(a, b, dtype=np.float64 if a.dtype.kind == "f" else None), "fma")
    if not p.dtype.is_floating():
        return p + z
    added = []

    def add(a, b):  # the fp64 sum, and the operands it was made from
        added.append((a, b))
        return np.add(a, b, dtype=np.float64)

    out = _binary(p, z, add, "fma")
    s = out.data
    if len(added) == 1 and out.dtype.np in (np.float32, np.float16):
        return tensor(round_once(s, out.dtype.np, added[0][0], 1.0, added[0][1]), out.dtype, out._shape)
    return tensor(s.astype(out.dtype.np, copy=False), out.dtype, out._shape)


@kinds.pure
def maximum(x, y, propagate_nan=None, _semantic=None) -> tensor:
    """Elementwise maximum (NaN-propagating, as ``propagate_nan=ALL``; Triton's default may return either)."""
    return _binary(_to_tensor(x), y, np.maximum, "maximum")


@kinds.pure
def minimum(x, y, propagate_nan=None, _semantic=None) -> tensor:
    """Elementwise minimum."""
    return _binary(_to_tensor(x), y, np.minimum, "minimum")


@kinds.pure
def clamp(x, min, max, propagate_nan=None, _semantic=None) -> tensor:
    """``minimum(maximum(x, min), max)``."""
    return minimum(maximum(x, min), max)


@kinds.pure
@_tensor_member_fn
def sigmoid(x) -> tensor:
    """``1 / (1 + exp(-x))``, as Triton's standard library defines it."""
    return 1 / (1 + exp(-_to_tensor(x)))


@kinds.pure
@_tensor_member_fn
def softmax(x, dim=None, keep_dims=False, ieee_rounding=False) -> tensor:
    """Softmax along ``dim`` (the last axis when None), as Triton's standard library."""

    x = _to_tensor(x)
    d = len(x._shape) - 1 if dim is None else int(getattr(dim, "value", dim))
    z = x - _max(x, d, keep_dims=True)
    num = exp(z)
    return num / _sum(num, d, keep_dims=True)


def __getattr__(name: str):
    """Names Triton 3.9's ``triton.language.math`` does not have: before Triton 3.0 this module was libdevice
    (``tl.math.tanh``); since then those functions are ``tl.extra.libdevice``'s. Asking for one raises
    ``AttributeError``, and in a ``@triton.jit`` kernel the ``CompilationError`` Triton raises for it
    (:mod:`kernellab.triton.compiler.limits`)."""
    if name.startswith("_"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    raise missing_name("triton.language.math", name)


__all__ = ["abs", "ceil", "clamp", "cos", "div_rn", "erf", "exp", "exp2", "fdiv", "floor", "fma", "log", "log2",
           "maximum", "minimum", "rsqrt", "sigmoid", "sin", "softmax", "sqrt", "sqrt_rn", "umulhi"]
