"""Triton's axis analysis (``AxisInfo``) on kernellab's blocks: contiguity, divisibility and constancy.

For every integer (or pointer, or boolean) block Triton's compiler knows, along each dimension:

* **contiguity** ``c``: the values come in runs of ``c`` consecutive integers (``3, 4, 5, 6``);
* **divisibility** ``d``: the first value of each run is a multiple of ``d`` (for a pointer, in bytes);
* **constancy** ``k``: the values come in runs of ``k`` equal values.

It knows them from the program text, not from the values: ``tl.arange(0, 1024)`` has contiguity 1024;
a kernel argument is divisible by 16 only if the launch specialised it (see
:mod:`kernellab.triton.compiler.specialize`), an argument equal to 1 is the constant 1; ``tl.program_id`` is
known to be nothing. Each operation combines its operands' facts by the rule of Triton's
``lib/Analysis/AxisInfo.cpp`` written out below; the hints ``tl.multiple_of``, ``tl.max_contiguous``
and ``tl.max_constancy`` replace one fact. A load's vector width and layout follow from the facts of
its pointer and mask (:mod:`kernellab.triton.compiler.layout`).

A fact is an :class:`AxisInfo` of tuples, one entry per dimension (a scalar has one dimension).

Examples
--------
>>> offs = add(splat(binary_mul(UNKNOWN_SCALAR, constant(1024)), (1024,)), arange(0, 1024), (1024,))
>>> offs.contiguity, offs.divisibility, offs.constancy       # pid * 1024 + tl.arange(0, 1024)
((1024,), (1024,), (1,))
>>> mask = compare("<", offs, splat(argument(16), (1024,)), (1024,))
>>> mask.constancy                                           # offs < n, n divisible by 16
(16,)
>>> compare("<", offs, splat(argument(1), (1024,)), (1024,)).constancy   # n unknown
(1,)
"""

from __future__ import annotations

from functools import lru_cache
from math import gcd as _gcd
from typing import NamedTuple

MAX = 1 << 62  # Triton's kMaxDivisor: highestPowOf2Divisor(0), "divisible by anything"


class AxisInfo(NamedTuple):
    """What Triton knows of a block, per dimension (see the module's docstring); ``value``: the block's
    value when it is one known constant, else None."""

    contiguity: tuple
    divisibility: tuple
    constancy: tuple
    value: int | None = None
    param: bool = False  # a kernel parameter as the launch passed it: no operation to carry a hint


def pow2(v: int) -> int:
    """The largest power of two dividing ``v`` (``MAX`` for 0), Triton's ``highestPowOf2Divisor``."""
    v = int(v)
    return MAX if v == 0 else min(abs(v) & -abs(v), MAX)


def gcd(*xs: int) -> int:
    """gcd with Triton's convention that 0 is the identity."""
    out = 0
    for x in xs:
        out = x if out == 0 else (out if x == 0 else _gcd(out, x))
    return out


def unknown(rank: int) -> AxisInfo:
    """Nothing known (Triton's pessimistic state): runs of 1."""
    ones = (1,) * max(rank, 1)
    return AxisInfo(ones, ones, ones)


UNKNOWN_SCALAR = unknown(1)


def argument(divisibility: int) -> AxisInfo:
    """A scalar kernel argument marked ``tt.divisibility`` (1: nothing known)."""
    return AxisInfo((1,), (divisibility,), (1,), param=True)


@lru_cache(maxsize=8192)
def constant(value: int, shape: tuple = ()) -> AxisInfo:
    """An integer constant (a literal, a constexpr, an argument specialised to 1), splat to ``shape``."""
    value = int(value)
    rank = max(len(shape), 1)
    return AxisInfo((1,) * rank, (pow2(value),) * rank, tuple(shape) or (1,), value)


def arange(start: int, end: int) -> AxisInfo:
    """``tl.arange(start, end)``: one run of ``end − start`` from ``start``."""
    return AxisInfo((end - start,), (pow2(start),), (1,))


def splat(info: AxisInfo, shape: tuple) -> AxisInfo:
    """A scalar made a block of ``shape``: every element equal."""
    rank = max(len(shape), 1)
    return AxisInfo((1,) * rank, (info.divisibility[0],) * rank, tuple(shape) or (1,), info.value)


@lru_cache(maxsize=8192)
def expand_dims(info: AxisInfo, axis: int) -> AxisInfo:
    """``tl.expand_dims`` / ``x[:, None]``: a new dimension of size 1 at ``axis``."""
    if info.value is not None:
        new_div = pow2(info.value)
    else:
        new_div = gcd(*(1 if c > 1 else d for c, d in zip(info.contiguity, info.divisibility)))
    c, d, k = list(info.contiguity), list(info.divisibility), list(info.constancy)
    c.insert(axis, 1)
    d.insert(axis, new_div)
    k.insert(axis, 1)
    return AxisInfo(tuple(c), tuple(d), tuple(k), info.value)


def broadcast(info: AxisInfo, shape: tuple, to: tuple) -> AxisInfo:
    """A block of ``shape`` broadcast to ``to`` (same rank): size-1 dimensions become constant runs."""
    c = tuple(1 if s == 1 else ci for s, ci in zip(shape, info.contiguity))
    k = tuple(t if s == 1 else ki for s, t, ki in zip(shape, to, info.constancy))
    return AxisInfo(c, info.divisibility, k, info.value)


@lru_cache(maxsize=8192)
def to_shape(info: AxisInfo, shape: tuple, to: tuple) -> AxisInfo:
    """An operand of ``shape`` made the shape ``to`` of a binary operation, as Triton's frontend does it:
    a scalar is splat; a block of lower rank gains leading dimensions; size-1 dimensions broadcast."""
    if not to or shape == to:
        return info
    if not shape:
        return splat(info, to)
    while len(shape) < len(to):
        info = expand_dims(info, 0)
        shape = (1, *shape)
    return broadcast(info, shape, to) if shape != to else info


def hint(info: AxisInfo, kind: str, values) -> AxisInfo:
    """``tl.multiple_of`` (``kind="divisibility"``), ``tl.max_contiguous`` (``"contiguity"``) or
    ``tl.max_constancy`` (``"constancy"``): the hinted fact replaced by ``values``."""
    return _hint(info, kind, tuple(int(v) for v in (values if isinstance(values, (tuple, list)) else (values,))))


@lru_cache(maxsize=4096)
def _hint(info: AxisInfo, kind: str, values: tuple) -> AxisInfo:
    """:func:`hint`, remembered: a loop's hints ask again with the same facts at every step."""
    return info._replace(**{kind: values}, param=False)


def _each(a: AxisInfo, b: AxisInfo, fn) -> tuple:
    return tuple(fn(a, b, d) for d in range(len(a.contiguity)))


@lru_cache(maxsize=8192)
def add(a: AxisInfo, b: AxisInfo, shape: tuple, elem_bytes: int | None = None, sub: bool = False) -> AxisInfo:
    """``a + b`` (``sub``: ``a − b``); ``elem_bytes``: ``a`` is a pointer to elements of that size
    (``tt.addptr``: ``b`` counts elements, divisibility is in bytes)."""
    if a.value is not None and b.value is not None:
        v = a.value - b.value if sub else a.value + b.value * (elem_bytes or 1)
        return _folded(a, b, v)
    if sub:
        c = _each(a, b, lambda x, y, d: gcd(x.contiguity[d], y.constancy[d]))
    else:
        c = _each(a, b, lambda x, y, d: max(gcd(x.constancy[d], y.contiguity[d]), gcd(x.contiguity[d], y.constancy[d])))
    scale = elem_bytes or 1
    dv = _each(a, b, lambda x, y, d: gcd(x.divisibility[d], min(y.divisibility[d] * scale, MAX)))
    k = _each(a, b, lambda x, y, d: gcd(x.constancy[d], y.constancy[d]))
    return AxisInfo(c, dv, k)


def _folded(a: AxisInfo, b: AxisInfo, value: int) -> AxisInfo:
    """A binary operation of two constants: Triton's BinaryOpVisitorImpl with a constant result."""
    rank = len(a.contiguity)
    return AxisInfo((1,) * rank, (pow2(value),) * rank, _each(a, b, lambda x, y, d: max(x.constancy[d], y.constancy[d])),
                    value)


def binary_mul(a: AxisInfo, b: AxisInfo) -> AxisInfo:
    """``a * b``."""
    if a.value is not None and b.value is not None:
        return _folded(a, b, a.value * b.value)

    def contig(x, y, d):
        return max(x.contiguity[d] if y.value == 1 else 1, y.contiguity[d] if x.value == 1 else 1)

    def div(x, y, d):
        dx = 1 if x.contiguity[d] > 1 and y.value != 1 else x.divisibility[d]
        dy = 1 if y.contiguity[d] > 1 and x.value != 1 else y.divisibility[d]
        return min(dx * dy, MAX)

    return AxisInfo(_each(a, b, contig), _each(a, b, div), _each(a, b, lambda x, y, d: gcd(x.constancy[d], y.constancy[d])))


def _contiguous_dim(x: AxisInfo, shape: tuple, d: int) -> bool:
    """Whether ``x`` is one run along dimension ``d`` of a block (``shape`` not empty: its callers ask of blocks)."""
    return x.contiguity[d] == shape[d]


def _constant_dim(x: AxisInfo, shape: tuple, d: int) -> bool:
    """Whether ``x`` is one value along dimension ``d`` of a block (``shape`` not empty)."""
    return x.constancy[d] == shape[d]


def divide(a: AxisInfo, b: AxisInfo, shape: tuple) -> AxisInfo:
    """``a // b`` (C division, ``arith.divsi``)."""
    if a.value is not None and b.value is not None and b.value != 0:
        q = abs(a.value) // abs(b.value) * (1 if (a.value < 0) == (b.value < 0) else -1)
        return _folded(a, b, q)
    c = _each(a, b, lambda x, y, d: x.contiguity[d] if y.value == 1 else 1)

    def const(x, y, d):
        k = gcd(x.constancy[d], y.constancy[d])
        if shape and _contiguous_dim(x, shape, d) and _constant_dim(y, shape, d):
            k = max(k, gcd(x.contiguity[d], x.divisibility[d], y.divisibility[d]))
        return k

    def div(x, y, d):
        if x.value == 0 or y.value == 1:
            return x.divisibility[d]
        if y.value is not None and y.value != 0 and (abs(y.value) & (abs(y.value) - 1)) == 0 and x.contiguity[d] == 1:
            return max(1, x.divisibility[d] // abs(y.value))
        return 1

    return AxisInfo(c, _each(a, b, div), _each(a, b, const) if shape else (1,) * len(a.contiguity))


def remainder(a: AxisInfo, b: AxisInfo, shape: tuple) -> AxisInfo:
    """``a % b`` (C remainder, ``arith.remsi``)."""
    if a.value is not None and b.value is not None and b.value != 0:
        r = abs(a.value) % abs(b.value) * (1 if a.value >= 0 else -1)
        return _folded(a, b, r)

    def contig(x, y, d):
        if shape and _contiguous_dim(x, shape, d) and _constant_dim(y, shape, d):
            return gcd(x.contiguity[d], x.divisibility[d], y.divisibility[d])
        return 1

    def div(x, y, d):
        return gcd(x.divisibility[d], y.divisibility[d]) if y.constancy[d] > 1 else 1

    def const(x, y, d):
        if not shape:
            return 1
        return shape[d] if y.value == 1 else gcd(x.constancy[d], y.constancy[d])

    out = AxisInfo(_each(a, b, contig) if shape else (1,) * len(a.contiguity), _each(a, b, div), _each(a, b, const))
    return out._replace(value=0) if b.value == 1 else out


_LT_GE, _GT_LE = frozenset(("<", ">=")), frozenset((">", "<="))


def compare(op: str, a: AxisInfo, b: AxisInfo, shape: tuple) -> AxisInfo:
    """``a < b`` and the other comparisons (``arith.cmpi``): a mask, whose constancy says how many
    consecutive lanes it keeps or drops together."""
    rank = len(a.contiguity)
    if not shape:
        if a.value is not None and b.value is not None:
            return AxisInfo((1,), (1,), (a.constancy[0],), int(_cmp(op, a.value, b.value)))
        return unknown(1)
    if a.value is not None and b.value is not None:
        return AxisInfo((1,) * rank, (1,) * rank, a.constancy, int(_cmp(op, a.value, b.value)))

    def const(x, y, d):
        k = gcd(x.constancy[d], y.constancy[d])
        if op in _GT_LE and _constant_dim(x, shape, d):
            k = max(k, gcd(y.contiguity[d], x.divisibility[d], y.divisibility[d]))
        elif op in _LT_GE and _constant_dim(y, shape, d):
            k = max(k, gcd(x.contiguity[d], x.divisibility[d], y.divisibility[d]))
        return k

    return AxisInfo((1,) * rank, (1,) * rank, _each(a, b, const))


def _cmp(op: str, x: int, y: int) -> bool:
    return {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y, "==": x == y, "!=": x != y}[op]


def logical(op: str, a: AxisInfo, b: AxisInfo) -> AxisInfo:
    """``a & b``, ``a | b``, ``a ^ b``: runs of equal values where both operands have them."""
    value = None
    if a.value is not None and b.value is not None:
        value = {"&": a.value & b.value, "|": a.value | b.value, "^": a.value ^ b.value}[op]
        return _folded(a, b, value)
    rank = len(a.contiguity)
    return AxisInfo((1,) * rank, (1,) * rank, _each(a, b, lambda x, y, d: gcd(x.constancy[d], y.constancy[d])))


def shift(op: str, a: AxisInfo, b: AxisInfo) -> AxisInfo:
    """``a << b`` and ``a >> b``."""
    if a.value is not None and b.value is not None:
        return _folded(a, b, a.value << b.value if op == "<<" else a.value >> b.value)
    s = b.value
    c = _each(a, b, lambda x, y, d: x.contiguity[d] if s == 0 else 1)

    def div(x, y, d):
        dx = 1 if x.contiguity[d] > 1 and s else x.divisibility[d]
        if op == "<<":
            return min(dx << (s or 0), MAX)
        return 1 if s is None else max(1, dx >> s)

    return AxisInfo(c, _each(a, b, div), _each(a, b, lambda x, y, d: gcd(x.constancy[d], y.constancy[d])))


def _div_from_contiguity(x: AxisInfo, y: AxisInfo, d: int) -> int:
    cx, cy = x.contiguity[d], y.contiguity[d]
    if cx == cy or cx == MAX or cy == MAX:
        return gcd(x.divisibility[d], y.divisibility[d])
    return gcd(x.divisibility[d], y.divisibility[d], cx, cy)


def minmax(op: str, a: AxisInfo, b: AxisInfo) -> AxisInfo:
    """``tl.minimum`` / ``tl.maximum`` of integers."""
    rank = len(a.contiguity)
    if a.value is not None and b.value is not None:
        ones = (1,) * rank
        return AxisInfo(ones, ones, ones, min(a.value, b.value) if op == "min" else max(a.value, b.value))
    return AxisInfo(_each(a, b, lambda x, y, d: gcd(x.contiguity[d], y.contiguity[d])),
                    _each(a, b, _div_from_contiguity),
                    _each(a, b, lambda x, y, d: gcd(x.constancy[d], y.constancy[d])))


def select(cond: AxisInfo, a: AxisInfo, b: AxisInfo, scalar_cond: bool) -> AxisInfo:
    """``tl.where(cond, a, b)`` (``arith.select``)."""
    if cond.value is not None:
        return b if cond.value == 0 else a
    value = a.value if a.value is not None and a.value == b.value else None
    if scalar_cond:
        c = _each(a, b, lambda x, y, d: gcd(x.contiguity[d], y.contiguity[d]))
        k = _each(a, b, lambda x, y, d: gcd(x.constancy[d], y.constancy[d]))
    else:
        c = _each(a, b, lambda x, y, d: gcd(x.contiguity[d], y.contiguity[d], cond.constancy[d]))
        k = _each(a, b, lambda x, y, d: gcd(x.constancy[d], y.constancy[d], cond.constancy[d]))
    return AxisInfo(c, _each(a, b, _div_from_contiguity), k, value)


@lru_cache(maxsize=8192)
def binary(op: str, a: AxisInfo, b: AxisInfo, shape: tuple) -> AxisInfo | None:
    """The rule of integer operator ``op`` (``+ - * // % < <= > >= == != & | ^ << >>``) on operands
    already made ``shape``; None for an operator Triton's analysis does not follow."""
    if op == "+":
        return add(a, b, shape)
    if op == "-":
        return add(a, b, shape, sub=True)
    if op == "*":
        return binary_mul(a, b)
    if op == "//":
        return divide(a, b, shape)
    if op == "%":
        return remainder(a, b, shape)
    if op in ("<", "<=", ">", ">=", "==", "!="):
        return compare(op, a, b, shape)
    if op in ("&", "|", "^"):
        return logical(op, a, b)
    if op in ("<<", ">>"):
        return shift(op, a, b)
    return None
