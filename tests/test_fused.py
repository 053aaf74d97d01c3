"""``kernellab.fused.round_once``: a float64 sum rounded once to float32 or float16, against exact rationals."""

from fractions import Fraction

import numpy as np
import pytest

from kernellab.fused import round_once


def nearest(q: Fraction, dtype) -> float:
    """The value of ``dtype`` nearest the rational ``q``, ties to the even one, past the largest finite value
    ±inf (IEEE: from max + half a spacing on)."""
    info = np.finfo(dtype)
    bits = np.uint32 if info.bits == 32 else np.uint16
    top = Fraction(2) ** (info.maxexp)  # 2^128, 2^16
    biggest = Fraction(float(info.max))
    if abs(q) >= biggest + (top - biggest) / 2:
        return float("inf") if q > 0 else float("-inf")
    x = np.array(float(q), np.float64).astype(dtype)  # within a step of the answer
    steps = [np.nextafter(x, dtype.type(-np.inf)), x, np.nextafter(x, dtype.type(np.inf))]
    best = min((v for v in steps if np.isfinite(v)),
               key=lambda v: (abs(Fraction(float(v)) - q), int(np.array(v).view(bits)) & 1))
    return float(best)


def operands(rng, dtype, n):
    """(a, b, c) of ``dtype`` whose float64 sum a·b + c often falls on a tie of ``dtype``: a·b = ±2^k (1 + 2^-3m)
    and c = ±2^(k+p) or ±3·2^(k+p) (p: the type's precision, so 2^k is half a spacing there), and random,
    subnormal and near-overflow cases."""
    info = np.finfo(dtype)
    p = info.nmant + 1
    m = p // 2
    out = []
    for _ in range(n):
        kind = rng.integers(4)
        if kind == 0:  # (1 + 2^-m)(1 − (2^m − 1)·2^-2m) = 1 + 2^-3m (2m ≤ p): a·b just above 2^k
            k = int(rng.integers(-10, 10))
            a = 2.0**k * (1 + 2.0**-m) * rng.choice([1, -1])
            b = 1 - (2**m - 1) * 2.0 ** (-2 * m) * rng.choice([1, 3])
            c = 2.0 ** (k + p) * rng.choice([1, -1, 3, -3])
        elif kind == 1:
            a, b, c = rng.standard_normal(3) * 2.0 ** rng.integers(-30, 30, 3)
        elif kind == 2:  # results among the subnormals
            tiny = float(info.smallest_subnormal)
            a, b, c = rng.integers(1, 2**p) * tiny, rng.standard_normal() * 2.0 ** -int(rng.integers(0, 12)), \
                rng.integers(-50, 50) * tiny
        else:  # results around the largest value
            a = float(info.max) * rng.uniform(0.5, 1)
            b = 1 + int(rng.integers(-3, 4)) * 2.0**-p
            c = int(rng.integers(-5, 6)) * 2.0 ** (info.maxexp - p - 1 - int(rng.integers(0, 3)))
        with np.errstate(over="ignore"):
            out.append([dtype.type(a), dtype.type(b), dtype.type(c)])
    return np.array(out, dtype)


@pytest.mark.parametrize("dtype", [np.dtype(np.float32), np.dtype(np.float16)])
def test_round_once_is_the_exact_sum_rounded_once(dtype):
    # every a·b + c rounded once, as an exact rational; the float64 sum rounded again (astype) differs from it
    # on the ties these operands hit: the test would fail on the double rounding it is written for
    abc = operands(np.random.default_rng(37), dtype, 3000)
    abc = abc[np.isfinite(abc).all(axis=1)]
    a, b, c = (abc[:, i].astype(np.float64) for i in range(3))
    p = a * b  # exact: 2 × 24 (or 2 × 11) bits
    with np.errstate(all="ignore"):
        s = p + c
        twice = s.astype(dtype)
        got = round_once(s.copy(), dtype, a, b, c)  # past the largest value: numpy's overflow warning, as astype
    want = np.array([nearest(Fraction(x) * Fraction(y) + Fraction(z), dtype) for x, y, z in zip(a, b, c)])
    assert got.dtype == dtype and got.shape == s.shape
    assert (got.astype(np.float64) == want).all()
    wrong_twice = int((twice.astype(np.float64) != want).sum())
    # float32: 98 of the 3000 (seed 37). float16: none, and none can be: a tie of float16 needs the smaller of
    # a·b (22 bits) and c (11 bits) near half a spacing of the larger, so the exact sum spans at most 11 + 22 + 1
    # bits, which float64 holds; float16's subnormals (2^-24 apart, products down to 2^-48) likewise
    assert wrong_twice == (98 if dtype == np.float32 else 0)


def test_the_tie_by_hand():
    # a = 64·(1 + 2^-12), b = 1 − 4095·2^-24: a·b = 64·(1 + 2^-12 − 4095·2^-24 − 4095·2^-36) = 64·(1 + 2^-36)
    # = 64 + 2^-30 exactly. float32's spacing just above 2^30 is 128, float64's 2^-22, so float64 drops the 2^-30:
    # c = 2^30:         s = 2^30 + 64, the tie of 2^30 and 2^30 + 128; to even: 2^30; once (above it): 2^30 + 128
    # c = −2^30 − 256:  s = −2^30 − 192, the tie of −2^30 − 128 (odd) and −2^30 − 256 (even); the exact sum is
    #                   2^-30 nearer zero than the tie: once, −2^30 − 128
    # c = 2^30 + 256:   s = 2^30 + 320, the tie of 2^30 + 256 (even) and 2^30 + 384; once: 2^30 + 384
    a, b = np.float32(64 * (1 + 2**-12)), np.float32(1 - 4095 * 2**-24)
    p = np.float64(a) * np.float64(b)
    assert p == 64 + 2.0**-30
    c = np.array([2.0**30, -(2.0**30) - 256, 2.0**30 + 256])
    s = p + c
    assert s.tolist() == [2**30 + 64, -(2**30) - 192, 2**30 + 320]
    assert s.astype(np.float32).tolist() == [2**30, -(2**30) - 256, 2**30 + 256]  # rounded twice
    assert round_once(s, np.float32, a, b, c).tolist() == [2**30 + 128, -(2**30) - 128, 2**30 + 384]


def test_special_values_and_shapes():
    # NaN and ±inf pass as numpy rounds them; ±0 keep the float64 sum's sign; a 0-d sum stays 0-d; the largest
    # float32 plus half its spacing (2^104 / 2 = 2^103) is a tie: below it by 2^-30·2^103 → the largest, not inf
    big = np.float64(np.finfo(np.float32).max)
    p = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, big, big])
    c = np.array([1.0, 1.0, 1.0, 0.0, -0.0, 2.0**103, 2.0**103 - 2.0**73])
    s = p + c
    with np.errstate(over="ignore"):  # big + 2^103 → inf: numpy's overflow warning, as astype gives it
        got = round_once(s.copy(), np.float32, p, 1.0, c)
    assert np.isnan(got[0]) and got[1] == np.inf and got[2] == -np.inf
    assert got[3] == 0 and not np.signbit(got[3]) and np.signbit(got[4])
    with np.errstate(over="ignore"):
        assert s.astype(np.float32)[5] == np.inf and got[5] == np.inf  # exactly the tie: to even, which is inf
    assert s[6] == big + 2.0**103  # float64 rounded the sum onto the tie (spacing 2^76 there)
    assert got[6] == np.float32(big)  # exactly below the tie
    zero_d = round_once(np.float64(1.5), np.float32, 1.0, 1.0, 0.5)
    assert zero_d.shape == () and zero_d == 1.5
    assert round_once(np.array([3.0]), np.float64, 1.0, 1.0, 2.0).tolist() == [3.0]  # other types: astype


def test_ties_among_the_subnormals():
    # float32's subnormals are k·2^-149 apart; c = 512·2^-149 = 2^-140 and c = 513·2^-149. A float64 addend a
    # (b = 1) carries bits float64 drops there (its spacing at 2^-140 is 2^-192):
    # 2^-140 + (2^-150 + 2^-195) → float64 2^-140 + 2^-150, the tie of 512 and 513 (×2^-149): twice → 512 (even),
    #   once (above the tie) → 513;
    # 513·2^-149 + (2^-150 − 2^-195) → float64 513.5·2^-149, the tie of 513 and 514: twice → 514, once (below) → 513;
    # 2^-140 + (2^-151 + 2^-195): no tie (a quarter of a spacing): 512 both ways.
    u = 2.0**-149
    a = np.array([2.0**-150 + 2.0**-195, 2.0**-150 - 2.0**-195, 2.0**-151 + 2.0**-195])
    c = np.array([512 * u, 513 * u, 512 * u])
    s = a + c
    assert (s / u).tolist() == [512.5, 513.5, 512.25]
    assert (s.astype(np.float32).astype(np.float64) / u).tolist() == [512, 514, 512]  # rounded twice
    assert (round_once(s, np.float32, a, 1.0, c).astype(np.float64) / u).tolist() == [513, 513, 512]
