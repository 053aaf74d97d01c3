"""IEEE arithmetic in the four rounding modes of CUDA's ``_rn``/``_rz``/``_rd``/``_ru`` intrinsics, on numpy arrays.

Every result is the exact value rounded once in the mode asked for. numpy computes round-to-nearest
(``rn``); the other modes start from it and move one step (``np.nextafter``) when the sign of the
rounding error ``exact − nearest`` says the nearest value lies on the wrong side. That sign is computed
exactly: for fp32 in fp64 (products of two fp32 values are exact in fp64), for fp64 sums by Knuth's
two-sum, and for other fp64 operations with ``fractions.Fraction`` (exact rationals; slow, one
element at a time, but these intrinsics are rare in kernels). Zeros keep IEEE's signs: an exact zero
sum is ``+0`` except in ``rd``, where it is ``-0``.

Examples
--------
>>> a, b = np.float32([1.0]), np.float32([2.0**-30])
>>> [float(add(a, b, m)[0]) - 1 for m in ("rn", "rz", "rd", "ru")]   # 1 + 2^-30 lies between 1 and 1 + 2^-23
[0.0, 0.0, 0.0, 1.1920928955078125e-07]
>>> float(div(np.float64([1.0]), np.float64([3.0]), "ru")[0]) > 1 / 3   # exact 1/3 rounded up
True
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .... import cvt

MODES = ("rn", "rz", "rd", "ru")


def _quiet(fn):
    def run(*args, **kwargs):
        with np.errstate(all="ignore"):  # the GPU raises no floating-point exceptions
            return fn(*args, **kwargs)

    run.__name__, run.__doc__ = fn.__name__, fn.__doc__
    return run


def nudge(r: np.ndarray, sign: np.ndarray, mode: str) -> np.ndarray:
    """The ``mode`` rounding of a value whose nearest rounding is ``r`` and whose rounding error
    ``exact − r`` has the sign ``sign`` (−1, 0, +1; 0 where ``r`` is exact or NaN)."""
    if mode == "rn":
        return r
    inf = np.array(np.inf, r.dtype)
    up, down = np.nextafter(r, inf), np.nextafter(r, -inf)
    if mode == "ru":
        return np.where(sign > 0, up, r)
    if mode == "rd":
        return np.where(sign < 0, down, r)
    if mode == "rz":
        return np.where((sign < 0) & (r > 0), down, np.where((sign > 0) & (r < 0), up, r))
    raise ValueError(f"unknown rounding mode {mode!r} (expected one of {MODES})")


def _overflowed(r, sign, finite):
    """An infinite nearest result from finite operands overshot the exact value."""
    return np.where(np.isinf(r) & finite, -np.sign(r), np.where(np.isnan(r), 0, sign))


def _sign_of(x) -> np.ndarray:
    return np.sign(x).astype(np.int8)


def _zero_sign_rd(r, mode, plus_zero):
    """Exact zero sums are -0 in rd unless both addends are +0 (``plus_zero``)."""
    if mode != "rd":
        return r
    return np.where((r == 0) & ~plus_zero, -np.abs(r), r)


def _pos0(x):
    return (x == 0) & ~np.signbit(x)


def _fractions(fn, *arrays) -> np.ndarray:
    """``fn`` on the exact rational values of finite float arrays, one element at a time (int8 signs)."""
    def one(*vals):
        if not all(math.isfinite(v) for v in vals):
            return 0
        return fn(*(Fraction(v) for v in vals))

    out = np.frompyfunc(one, len(arrays), 1)(*(np.asarray(a, np.float64) for a in arrays))
    return np.asarray(out, dtype=np.int64).astype(np.int8)


def _cmp(q: Fraction, r: float) -> int:
    if not math.isfinite(r):
        return 0
    d = q - Fraction(r)
    return (d > 0) - (d < 0)


@_quiet
def add(a, b, mode: str) -> np.ndarray:
    """``a + b`` rounded in ``mode`` (fp32 or fp64 arrays of one dtype)."""
    a, b = np.asarray(a), np.asarray(b)
    s = a + b
    if mode == "rn":
        return s
    bb = s - a
    err = (a - (s - bb)) + (b - bb)  # two-sum: a + b = s + err exactly, when s does not overflow
    sign = _overflowed(s, _sign_of(err), np.isfinite(a) & np.isfinite(b))
    return _zero_sign_rd(nudge(s, sign, mode), mode, _pos0(a) & _pos0(b))


def sub(a, b, mode: str) -> np.ndarray:
    """``a − b`` rounded in ``mode``."""
    return add(a, -np.asarray(b), mode)


@_quiet
def mul(a, b, mode: str) -> np.ndarray:
    """``a · b`` rounded in ``mode``."""
    a, b = np.asarray(a), np.asarray(b)
    p = a * b
    if mode == "rn":
        return p
    if p.dtype == np.float32:  # the product of two fp32 values is exact in fp64
        sign = _sign_of(a.astype(np.float64) * b - p.astype(np.float64))
    else:
        sign = _fractions(lambda x, y, r: _cmp(x * y, float(r)), a, b, p)
    return nudge(p, _overflowed(p, sign, np.isfinite(a) & np.isfinite(b)), mode)


@_quiet
def div(a, b, mode: str) -> np.ndarray:
    """``a / b`` rounded in ``mode``."""
    a, b = np.asarray(a), np.asarray(b)
    q = a / b
    if mode == "rn":
        return q
    if q.dtype == np.float32:  # the remainder a − q·b is exact in fp64
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        sign = _sign_of(a64 - q.astype(np.float64) * b64) * _sign_of(b64)
    else:
        sign = _fractions(lambda x, y, r: _cmp(x / y, float(r)) if y else 0, a, b, q)
    finite = np.isfinite(a) & np.isfinite(b) & (b != 0)
    return nudge(q, _overflowed(q, np.where(finite, sign, 0), finite), mode)


def rcp(a, mode: str) -> np.ndarray:
    """``1 / a`` rounded in ``mode``."""
    a = np.asarray(a)
    return div(np.ones_like(a), a, mode)


@_quiet
def sqrt(a, mode: str) -> np.ndarray:
    """``√a`` rounded in ``mode``."""
    a = np.asarray(a)
    r = np.sqrt(a)
    if mode == "rn":
        return r
    if r.dtype == np.float32:
        r64 = r.astype(np.float64)
        sign = _sign_of(a.astype(np.float64) - r64 * r64)
    else:
        sign = _fractions(lambda x, y: (x > Fraction(float(y)) ** 2) - (x < Fraction(float(y)) ** 2), a, r)
    return nudge(r, np.where(np.isfinite(r) & (a > 0), sign, 0), mode)


def _round64(q: Fraction, mode: str) -> float:
    """The exact rational ``q`` rounded to fp64 in ``mode``."""
    if abs(q) >= Fraction(2**1024 - 2**970):  # rounds to infinity in rn
        r = math.inf if q > 0 else -math.inf
    else:
        r = q.numerator / q.denominator  # Python rounds integer division correctly (to nearest)
    if mode == "rn":
        return r
    c = _cmp(q, r) if math.isfinite(r) else (-1 if r > 0 else 1)
    if mode == "ru" and c > 0 or mode == "rz" and c > 0 and r < 0:
        return math.nextafter(r, math.inf)
    if mode == "rd" and c < 0 or mode == "rz" and c < 0 and r > 0:
        return math.nextafter(r, -math.inf)
    return r


@_quiet
def fma(a, b, c, mode: str) -> np.ndarray:
    """``a · b + c`` with one rounding in ``mode`` (the GPU's fused multiply-add)."""
    a, b, c = np.broadcast_arrays(np.asarray(a), np.asarray(b), np.asarray(c))
    dt = np.result_type(a, b, c)
    p = a.astype(np.float64) * b
    finite = np.isfinite(a) & np.isfinite(b) & np.isfinite(c)
    # where an operand is infinite or NaN, a·b + c in fp64 is right, except that a finite product
    # (however large) plus an infinite c is c
    naive = np.where(np.isfinite(a) & np.isfinite(b) & np.isinf(c), c, p + c).astype(dt)
    if dt == np.float32:  # p = a·b is exact in fp64, and p + c = s + e exactly (two-sum)
        s = p + c
        bb = s - p
        e = (p - (s - bb)) + (c - bb)
        odd = (s.view(np.int64) & 1) == 1  # round to odd, so that rounding on to fp32 is right (53 ≥ 24 + 2)
        s_odd = np.where((e != 0) & ~odd, np.nextafter(s, np.where(e > 0, np.inf, -np.inf)), s)
        r = s_odd.astype(np.float32)
        sign = _sign_of((s - r.astype(np.float64)) + e)
        r = nudge(r, _overflowed(r, sign, finite), mode)
        exact_zero = (s == 0) & (e == 0)
    else:
        def one(x, y, z):
            if not (math.isfinite(x) and math.isfinite(y) and math.isfinite(z)):
                return math.nan, False
            q = Fraction(x) * Fraction(y) + Fraction(z)
            return _round64(q, mode), q == 0

        r, exact_zero = np.frompyfunc(one, 3, 2)(a, b, c)
        r, exact_zero = np.asarray(r, np.float64), np.asarray(exact_zero, bool)
    # an exact zero takes IEEE's sign for sums: two zeros of one sign keep it; otherwise +0 (-0 in rd)
    p_neg, c_neg = np.signbit(a) ^ np.signbit(b), np.signbit(c)
    same = ((a == 0) | (b == 0)) & (c == 0) & (p_neg == c_neg)
    zero = np.where(np.where(same, c_neg, mode == "rd"), -0.0, 0.0).astype(dt)
    r = np.where(finite & exact_zero, zero, r)
    return np.where(finite, r, naive).astype(dt, copy=False)


@_quiet
def to_float(x, dst, mode: str) -> np.ndarray:
    """Integers or fp64 converted to float type ``dst`` (np.float32/np.float64), rounded in ``mode``."""
    x = np.asarray(x)
    r = x.astype(dst)
    if mode == "rn":
        return r
    if x.dtype.kind == "f":
        sign = _overflowed(r, _sign_of(x - r.astype(x.dtype)), np.isfinite(x))
    else:  # exact integer comparison of x with r (r may be 2^63 or 2^64, just past the integer range)
        info = np.iinfo(x.dtype)
        past = r >= float(info.max) + 1
        ri = np.where(past, 0, r).astype(x.dtype)
        sign = np.where(past, -1, (x > ri).astype(np.int8) - (x < ri).astype(np.int8))
    return nudge(r, sign, mode)


_TO_INT = {"rn": np.rint, "rz": np.trunc, "rd": np.floor, "ru": np.ceil}


@_quiet
def to_int(x, dst, mode: str) -> np.ndarray:
    """Floats converted to integer type ``dst``, rounded in ``mode``; out of range saturates and NaN is
    0 (PTX's ``cvt`` to integers, :func:`kernellab.cvt.saturate`). ``mode`` may also be ``"away"``
    (``round``: halves away from zero)."""
    x = np.asarray(x, np.float64)
    return cvt.saturate(round_away(x) if mode == "away" else _TO_INT[mode](x), dst)


@_quiet
def round_away(x) -> np.ndarray:
    """Round to the nearest integer, halves away from zero (C's ``round``)."""
    x = np.asarray(x)
    t = np.trunc(x)
    return np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t).astype(x.dtype, copy=False)
