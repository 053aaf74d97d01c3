"""The special functions of libdevice that numpy lacks, computed from numpy and Python's ``math``:
``erfcx``, ``erfinv``, ``erfcinv``, ``normcdf``, ``normcdfinv``, ``sinpi``, ``cospi``, ``remainder``,
``lgamma``, ``tgamma``, and ``erf``/``erfc`` on arrays, with the special values CUDA documents.

They compute in numpy's ``longdouble`` (64-bit significand on x86-64 Linux; on a platform where it is
fp64 they are less accurate), and fp64 callers round the result once. The inverse error functions are
Newton's method from Winitzki's approximation, evaluated where it is well conditioned: ``erfinv``
near 0 through ``erf``, and the tails through ``erfcx`` (the continued fraction of ``erfc``), so that
tiny probabilities keep their relative accuracy.

Examples
--------
>>> float(erfinv(np.array([0.5]))[0])          # erf(0.4769362762044699) = 0.5
0.4769362762044699
>>> float(normcdfinv(np.array([0.975]))[0])    # the 97.5 % quantile of the standard normal
1.9599639845400538
>>> float(sinpi(np.array([1e300]))[0]), float(cospi(np.array([0.5]))[0])
(0.0, 0.0)
"""

from __future__ import annotations

import math

import numpy as np

from .rounding import _quiet

LD = np.longdouble
_PI = 4 * np.arctan(LD(1))
_SQRT_PI = np.sqrt(_PI)
_SQRT2 = np.sqrt(LD(2))


def _py(fn, special):
    """Python's ``math.fn`` on every element of a float array; ``special(x)`` for values it refuses."""
    def one(x):
        try:
            return fn(x)
        except (ValueError, OverflowError):
            return special(x)

    vec = np.frompyfunc(one, 1, 1)
    return lambda x: np.asarray(vec(np.asarray(x, np.float64)), np.float64)


erf = _py(math.erf, lambda x: math.nan)
erfc = _py(math.erfc, lambda x: math.nan)
# lgamma: +inf at 0 and at the poles (negative integers); tgamma: ±inf at ±0, NaN at the poles and
# -inf, +inf past 171.6 (CUDA's lgamma and tgamma documentation)
lgamma = _py(math.lgamma, lambda x: math.inf)
tgamma = _py(math.gamma, lambda x: math.copysign(math.inf, x) if x == 0 or x > 0 else math.nan)


@_quiet
def remainder(x, y) -> np.ndarray:
    """IEEE remainder ``x − n·y`` with ``n`` the integer nearest ``x / y`` (ties to even), exact;
    NaN when ``y`` is 0 or ``x`` infinite, ``x`` when ``y`` is infinite."""
    def one(a, b):
        if math.isnan(a) or math.isnan(b) or math.isinf(a) or b == 0:
            return math.nan
        return a if math.isinf(b) else math.remainder(a, b)

    x, y = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(y, np.float64))
    return np.asarray(np.frompyfunc(one, 2, 1)(x, y), np.float64)


@_quiet
def erfcx(x) -> np.ndarray:
    """The scaled complementary error function ``exp(x²)·erfc(x)`` (longdouble)."""
    x = np.asarray(x, np.float64)
    a = np.abs(x).astype(LD)
    # each element by one of two formulas, each computed on its own elements only (elementwise: the same values
    # as computing both everywhere and choosing): the continued fraction erfc(a) = exp(-a²)/√π · 1/(a + ½/(a +
    # 1/(a + 3/2/(a + …)))) for a ≥ 2, else exp(a²)·erfc(a) from Python's erfc
    far = a >= 2
    pos = np.empty(a.shape, LD)
    if far.any():  # (no element: no 80 steps on an empty array)
        b = a[far]
        t = b.copy()
        for k in range(80, 0, -1):
            t = b + LD(k / 2) / t
        pos[far] = 1 / (_SQRT_PI * t)
    near = ~far
    if near.any():
        b = a[near]
        pos[near] = np.exp(b * b) * erfc(np.abs(x)[near]).astype(LD)
    out = np.where(x < 0, 2 * np.exp(a * a) - pos, pos)
    return np.where(np.isnan(x), np.nan, np.where(x == np.inf, 0, out))


@_quiet
def _erfinv_small(x) -> np.ndarray:
    """erfinv for |x| ≤ 0.5, by Newton's method on erf (well conditioned there); longdouble."""
    y = _winitzki(x.astype(LD), np.log1p(-x.astype(LD) ** 2))
    for _ in range(4):
        y = y - (erf(y.astype(np.float64)).astype(LD) - x) * (_SQRT_PI / 2) * np.exp(y * y)
    return y


@_quiet
def _erfcinv_tail(q) -> np.ndarray:
    """erfcinv for 0 < q ≤ 0.5 (y ≥ 0.477), by Newton's method on ln(erfc) written through erfcx, so that
    tiny q (down to the subnormals) keep their relative accuracy; longdouble."""
    q = q.astype(LD)
    lq = np.log(q)
    y = _winitzki(1 - q, lq + np.log(2 - q))
    for _ in range(6):  # Newton on ln(erfc(y)) − ln(q) = ln(erfcx(y)) − y² − ln(q), nearly linear in y
        e = erfcx(y.astype(np.float64))
        y = y + (np.log(e) - y * y - lq) * (_SQRT_PI / 2) * e
    return y


def _winitzki(x, log1mx2):
    """Winitzki's approximation of erfinv (relative error below 0.2 %), from ``ln(1 − x²)``."""
    a = LD(0.147)
    t = 2 / (_PI * a) + log1mx2 / 2
    return np.copysign(np.sqrt(np.sqrt(t * t - log1mx2 / a) - t), x)


@_quiet
def erfinv_ld(x) -> np.ndarray:
    """The inverse error function (longdouble): ±inf at ±1, NaN outside [-1, 1]."""
    x = np.asarray(x, np.float64)
    a = np.abs(x)
    # each method on its own elements only (elementwise: the values computing it everywhere would give there);
    # the rest (±1, NaN, |x| > 1) is set below
    out = np.zeros(x.shape, LD)
    small = a <= 0.5
    if small.any():
        out[small] = _erfinv_small(x[small])
    tail = (a > 0.5) & (a < 1)
    if tail.any():
        out[tail] = np.copysign(_erfcinv_tail(1 - a[tail]), x[tail])  # 1 − |x| exact here
    out = np.where(a == 1, np.copysign(LD(np.inf), x), out)
    return np.where(np.isnan(x) | (a > 1), LD(np.nan), out)


@_quiet
def erfcinv_ld(q) -> np.ndarray:
    """The inverse complementary error function (longdouble): +inf at 0, -inf at 2, NaN outside [0, 2]."""
    q = np.asarray(q, np.float64)
    lo = np.where(q > 1, 2 - q, q)  # erfcinv(q) = −erfcinv(2 − q); 2 − q is exact for 1 ≤ q ≤ 2
    # each method on its own elements only, as in erfinv_ld; the rest (0, NaN, outside [0, 2]) is set below
    out = np.zeros(q.shape, LD)
    mid = lo >= 0.5
    if mid.any():
        out[mid] = _erfinv_small(1 - lo[mid])  # erfcinv(q) = erfinv(1 − q)
    tail = (lo > 0) & (lo < 0.5)
    if tail.any():
        out[tail] = _erfcinv_tail(lo[tail])
    out = np.where(lo == 0, LD(np.inf), out)
    out = np.where(q > 1, -out, out)
    return np.where(np.isnan(q) | (q < 0) | (q > 2), LD(np.nan), out)


def erfinv(x) -> np.ndarray:
    """The inverse error function, fp64."""
    return erfinv_ld(x).astype(np.float64)


def erfcinv(q) -> np.ndarray:
    """The inverse complementary error function, fp64."""
    return erfcinv_ld(q).astype(np.float64)


@_quiet
def normcdfinv(p) -> np.ndarray:
    """The standard normal quantile ``−√2·erfcinv(2p)``, fp64."""
    return (-_SQRT2 * erfcinv_ld(2 * np.asarray(p, np.float64))).astype(np.float64)


@_quiet
def normcdf(x) -> np.ndarray:
    """The standard normal distribution function ``½·erfc(−x/√2)``, fp64.

    ``−x/√2`` is rounded to fp64 for ``erfc``; the rounding error ``d`` is put back to first order,
    ``erfc(t + d) ≈ erfc(t)·(1 − 2d / (√π·erfcx(t)))``, which matters in the far left tail.
    """
    x = np.asarray(x, np.float64)
    t_ld = -x.astype(LD) / _SQRT2
    t = t_ld.astype(np.float64)
    d = t_ld - t.astype(LD)
    fix = 1 - 2 * d / (_SQRT_PI * erfcx(t))
    out = erfc(t).astype(LD) * np.where(np.isfinite(fix), fix, 1) / 2
    return out.astype(np.float64)


@_quiet
def sinpi(x) -> np.ndarray:
    """``sin(πx)`` with the argument reduced exactly (``sinpi(n) = ±0`` for integers ``n``)."""
    x = np.asarray(x, np.float64)
    r = x - 2 * np.rint(x / 2)  # exact, in [-1, 1]
    s = np.where(r > 0.5, 1 - r, np.where(r < -0.5, -1 - r, r))  # sin(π(1 − r)) = sin(πr); exact
    out = np.sin(_PI * s.astype(LD)).astype(np.float64)
    return np.where(np.isinf(x), np.nan, np.where(out == 0, np.copysign(0.0, x), out))


@_quiet
def cospi(x) -> np.ndarray:
    """``cos(πx)`` with the argument reduced exactly (``cospi(n + ½) = +0``)."""
    x = np.asarray(x, np.float64)
    r = np.abs(x - 2 * np.rint(x / 2))  # exact, in [0, 1]
    out = np.sin(_PI * (LD(0.5) - r.astype(LD))).astype(np.float64)  # cos(πr) = sin(π(½ − r))
    return np.where(np.isinf(x), np.nan, np.where(out == 0, 0.0, out))


@_quiet
def i0(x) -> np.ndarray:
    """The modified Bessel function of the first kind of order 0 (``np.i0``; +inf at ±inf)."""
    x = np.asarray(x, np.float64)
    out = np.i0(np.where(np.isfinite(x), x, 0))
    return np.where(np.isinf(x), np.inf, np.where(np.isnan(x), np.nan, out))
