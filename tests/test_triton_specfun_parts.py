"""libdevice's special functions that choose a method per element (kernellab/triton/language/extra/specfun.py:
``erfcx``'s continued fraction or ``exp(x²)·erfc(x)``, the inverse error functions' Newton near 0 or in the
tails) compute each method on its own elements only. The reference below computes every method everywhere
and then chooses, as the module did before; the two must agree bit for bit on every element, wherever it
sits in the array, and the boundaries must go to the method the module's text names."""

import math

import numpy as np
import pytest

from kernellab.triton.language.extra import specfun as S

LD = np.longdouble


def _cf(a):
    """erfc(a)·exp(a²) by the continued fraction, 80 terms, longdouble (the module's formula for a ≥ 2)."""
    t = a.copy()
    for k in range(80, 0, -1):
        t = a + LD(k / 2) / t
    return 1 / (S._SQRT_PI * t)


def _erfcx_everywhere(x):
    """erfcx with both formulas computed on every element, then chosen."""
    with np.errstate(all="ignore"):
        x = np.asarray(x, np.float64)
        a = np.abs(x).astype(LD)
        direct = np.exp(a * a) * S.erfc(np.abs(x)).astype(LD)
        pos = np.where(a >= 2, _cf(a), direct)
        out = np.where(x < 0, 2 * np.exp(a * a) - pos, pos)
        return np.where(np.isnan(x), np.nan, np.where(x == np.inf, 0, out))


def _erfinv_everywhere(x):
    with np.errstate(all="ignore"):
        x = np.asarray(x, np.float64)
        a = np.abs(x)
        small = S._erfinv_small(np.where(a <= 0.5, x, 0))
        tail = np.copysign(S._erfcinv_tail(np.where((a > 0.5) & (a < 1), 1 - a, 0.5)), x)
        out = np.where(a <= 0.5, small, tail)
        out = np.where(a == 1, np.copysign(LD(np.inf), x), out)
        return np.where(np.isnan(x) | (a > 1), LD(np.nan), out)


def _erfcinv_everywhere(q):
    with np.errstate(all="ignore"):
        q = np.asarray(q, np.float64)
        lo = np.where(q > 1, 2 - q, q)
        mid = S._erfinv_small(np.where(lo >= 0.5, 1 - lo, 0))
        tail = S._erfcinv_tail(np.where((lo > 0) & (lo < 0.5), lo, 0.5))
        out = np.where(lo >= 0.5, mid, tail)
        out = np.where(lo == 0, LD(np.inf), out)
        out = np.where(q > 1, -out, out)
        return np.where(np.isnan(q) | (q < 0) | (q > 2), LD(np.nan), out)


def _same(got, want):
    """Equal values, the same sign (−0.0 apart from 0.0) and NaN in the same places."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    assert np.array_equal(got, want, equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(want))


_BELOW2 = float(np.nextafter(2.0, 0.0))


def _mixed(rng, specials, lo, hi, n=600):
    x = np.concatenate([rng.uniform(lo, hi, n), specials])
    return x[rng.permutation(x.size)]


def test_erfcx_each_element_as_both_formulas_everywhere_give_it():
    rng = np.random.default_rng(1)
    x = _mixed(rng, [0.0, -0.0, 2.0, -2.0, _BELOW2, -_BELOW2, np.inf, -np.inf, np.nan, 26.0, -26.0, 1e150,
                     5e-324], -9, 9)
    _same(S.erfcx(x), _erfcx_everywhere(x))
    for v in (2.0, _BELOW2, -3.0, np.nan, 0.0):  # one element, and a 0-d array
        _same(S.erfcx(np.array([v])), _erfcx_everywhere(np.array([v])))
        _same(S.erfcx(np.asarray(v)), _erfcx_everywhere(np.asarray(v)))


def test_erfcx_takes_the_continued_fraction_from_2_on():
    # the two formulas differ in the last bits at 2 and just below it (0.25539567631050574389 by the fraction,
    # …71768 directly at 2), so each element shows which one it took: a ≥ 2 the fraction, below it erfc
    x = np.array([0.5, _BELOW2, 2.0, 3.0, -2.0])
    a = np.abs(x).astype(LD)
    cf = _cf(a)
    direct = np.exp(a * a) * np.array([math.erfc(v) for v in np.abs(x)]).astype(LD)
    assert cf[1] != direct[1] and cf[2] != direct[2]  # the check below can tell them apart
    got = S.erfcx(x)
    _same(got[:4], np.array([direct[0], direct[1], cf[2], cf[3]]))
    _same(got[4], 2 * np.exp(a[4] * a[4]) - cf[4])  # erfcx(−x) = 2·exp(x²) − erfcx(x)


def test_erfcx_special_values_by_hand():
    # erfcx(0) = exp(0)·erfc(0) = 1·1; erfcx(+inf) = 0; erfcx(−inf) = 2·exp(+inf) − 0 = +inf; NaN stays NaN
    _same(S.erfcx(np.array([0.0, np.inf, -np.inf, np.nan])), np.array([1, 0, np.inf, np.nan], LD))


def test_erfinv_each_element_as_both_methods_everywhere_give_it():
    rng = np.random.default_rng(2)
    x = _mixed(rng, [0.5, -0.5, float(np.nextafter(0.5, 1)), 1.0, -1.0, float(np.nextafter(1, 0)), 0.0, -0.0,
                     np.nan, 2.0, -np.inf, 1e-300], -1.2, 1.2)
    _same(S.erfinv_ld(x), _erfinv_everywhere(x))
    for v in (0.5, 0.75, 1.0, -0.0, np.nan, 3.0):
        _same(S.erfinv_ld(np.array([v])), _erfinv_everywhere(np.array([v])))
        _same(S.erfinv_ld(np.asarray(v)), _erfinv_everywhere(np.asarray(v)))


def test_erfcinv_each_element_as_both_methods_everywhere_give_it():
    rng = np.random.default_rng(3)
    q = _mixed(rng, [0.0, 2.0, 1.0, 0.5, 1.5, float(np.nextafter(0.5, 0)), float(np.nextafter(1.5, 2)), 1e-300,
                     5e-324, np.nan, -1.0, 3.0, np.inf, -0.0], -0.1, 2.1)
    _same(S.erfcinv_ld(q), _erfcinv_everywhere(q))
    p = q / 2
    _same(S.normcdfinv(p), (-S._SQRT2 * _erfcinv_everywhere(2 * p)).astype(np.float64))  # −√2·erfcinv(2p)
    for v in (0.5, 0.2, 1.9, 0.0, 2.0, np.nan):
        _same(S.erfcinv_ld(np.array([v])), _erfcinv_everywhere(np.array([v])))
        _same(S.erfcinv_ld(np.asarray(v)), _erfcinv_everywhere(np.asarray(v)))


@pytest.mark.parametrize(("fn", "x", "want"), [
    # erfinv(±1) = ±inf, erfinv(0) = 0 with its sign, NaN outside [−1, 1]
    ("erfinv_ld", [1.0, -1.0, 0.0, -0.0, 1.5, np.nan], [np.inf, -np.inf, 0.0, -0.0, np.nan, np.nan]),
    # erfcinv(1) = erfinv(0) = 0; erfcinv(0) = +inf, erfcinv(2) = −inf; NaN outside [0, 2]
    ("erfcinv_ld", [1.0, 0.0, 2.0, -0.5, 2.5, np.nan], [0.0, np.inf, -np.inf, np.nan, np.nan, np.nan]),
])
def test_inverse_special_values_by_hand(fn, x, want):
    _same(getattr(S, fn)(np.array(x)), np.array(want, LD))
