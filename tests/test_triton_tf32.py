"""TF32 in ``tl.dot``: the inputs' low 13 mantissa bits dropped, as Triton's compiled MMAs read them, and the
explicit roundings (``cvt.rn`` ties to even, ``cvt.rna`` ties away) a kernel or a TMA descriptor asks for.

TF32 keeps 10 of fp32's 23 mantissa bits: between 1 and 2 its values are 1 + k·2⁻¹⁰, so 1 + 2⁻¹¹ lies
exactly halfway between 1 and 1 + 2⁻¹⁰, and 1 + 3·2⁻¹¹ halfway between 1 + 2⁻¹⁰ (odd k) and 1 + 2⁻⁹ (even).
"""

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab.triton.executor.numerics import tf32_round, tf32_truncate
from kernellab.triton.tools.tensor_descriptor import TensorDescriptor

ULP = 2.0**-10  # TF32's ulp on [1, 2)


@pytest.mark.parametrize(("x", "truncated", "rn", "rna"), [
    (1 + 2**-11, 1.0, 1.0, 1 + ULP),                       # a tie, even below: rn stays, rna goes up
    (1 + 3 * 2**-11, 1 + ULP, 1 + 2 * ULP, 1 + 2 * ULP),   # a tie, odd below: both go up
    (1 + 2**-11 + 2**-23, 1.0, 1 + ULP, 1 + ULP),          # just above the tie: up, truncation still drops it
    (1 + 2**-11 - 2**-23, 1.0, 1.0, 1.0),                  # just below the tie: down
    (-(1 + 3 * 2**-11), -(1 + ULP), -(1 + 2 * ULP), -(1 + 2 * ULP)),  # signs are symmetric
    (1 + ULP, 1 + ULP, 1 + ULP, 1 + ULP),                  # already TF32: unchanged
])
def test_tf32_rounding_modes_by_hand(x, truncated, rn, rna):
    v = np.float32(x)
    assert float(v) == x  # every case is exact in fp32
    assert float(tf32_truncate(v)) == truncated
    assert float(tf32_round(v, "rn")) == rn
    assert float(tf32_round(v, "rna")) == rna


def test_tf32_special_values():
    # inf and nan keep their class; a NaN whose payload is only in the dropped bits stays NaN; the largest
    # finite fp32 (0x7F7FFFFF) rounds to nearest past the largest TF32, to inf, and truncates to a finite
    specials = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0], np.float32)
    payload_nan = np.array([0x7F800001], np.uint32).view(np.float32)
    big = np.array([0x7F7FFFFF], np.uint32).view(np.float32)
    for f in (tf32_truncate, lambda v: tf32_round(v, "rn"), lambda v: tf32_round(v, "rna")):
        out = f(specials)
        assert np.isposinf(out[0]) and np.isneginf(out[1]) and np.isnan(out[2])
        assert np.signbit(out[4]) and out[3] == 0
        assert np.isnan(f(payload_nan)[0])
    assert np.isinf(tf32_round(big, "rn")[0]) and np.isfinite(tf32_truncate(big)[0])
    with pytest.raises(ValueError, match="rounding must be 'rn' or 'rna'"):
        tf32_round(big, "rz")


def test_tf32_equals_a_bitwise_reference_on_random_values():
    # Property: truncation zeroes bits 0–12; rn picks the nearer of the two TF32 neighbours (the even one
    # on a tie), computed here in float64 from the neighbours themselves.
    rng = np.random.default_rng(11)
    x = (rng.standard_normal(20000) * 10.0 ** rng.integers(-30, 30, 20000)).astype(np.float32)
    bits = x.view(np.uint32)
    lo = (bits & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)
    assert np.array_equal(tf32_truncate(x).astype(np.float64), lo)
    hi = ((bits & np.uint32(0xFFFFE000)) + np.uint32(0x2000)).view(np.float32).astype(np.float64)
    d_lo, d_hi = np.abs(x - lo), np.abs(hi - x)
    lo_even = ((bits >> np.uint32(13)) & np.uint32(1)) == 0
    want = np.where(d_lo < d_hi, lo, np.where(d_hi < d_lo, hi, np.where(lo_even, lo, hi)))
    assert np.array_equal(tf32_round(x, "rn").astype(np.float64), want)


@triton.jit
def _dot(a_ptr, b_ptr, c_ptr, PREC: tl.constexpr):
    r = tl.arange(0, 16)
    a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])
    b = tl.load(b_ptr + r[:, None] * 16 + r[None, :])
    tl.store(c_ptr + r[:, None] * 16 + r[None, :], tl.dot(a, b, input_precision=PREC))


def _identity_product(value, prec):
    a = np.full((16, 16), 0.0, np.float32)
    a[0, 0] = value
    b = np.eye(16, dtype=np.float32)
    c = np.zeros((16, 16), np.float32)
    _dot[(1,)](a, b, c, PREC=prec)
    return float(c[0, 0])


def test_dot_tf32_truncates_its_inputs():
    # C[0,0] = A[0,0] × 1: the dot reads A[0,0] as TF32. 1 + 2⁻¹¹ + 2⁻²⁰ truncates to 1 (rounding would
    # give 1 + 2⁻¹⁰); "ieee" keeps it exactly; "tf32x3" recovers it: hi = 1, lo = 2⁻¹¹·(1 + 2⁻⁹) has 9
    # mantissa bits, exact in TF32. With 2⁻²³ in place of 2⁻²⁰, lo needs 12 bits: tf32x3 drops the 2⁻²³.
    x = 1 + 2**-11 + 2**-20
    assert _identity_product(x, "tf32") == 1.0
    assert _identity_product(x, "ieee") == x
    assert _identity_product(x, "tf32x3") == x
    assert _identity_product(1 + 2**-11 + 2**-23, "tf32x3") == 1 + 2**-11


def test_dot_tf32_error_on_random_matrices_grows_as_truncation_predicts():
    # Truncation loses up to one TF32 ulp per input (relative 2⁻¹⁰), always toward zero: on positive inputs
    # every product shrinks, so the TF32 result is ≤ the float64 one and within 2·2⁻¹⁰ relative of it.
    rng = np.random.default_rng(2)
    a, b = rng.random((16, 16), np.float32) + 0.5, rng.random((16, 16), np.float32) + 0.5
    c = np.zeros((16, 16), np.float32)
    _dot[(1,)](a, b, c, PREC="tf32")
    ref = a.astype(np.float64) @ b.astype(np.float64)
    assert (c <= ref * (1 + 1e-6)).all()
    assert np.abs(c / ref - 1).max() <= 2 * 2.0**-10
    exact = tf32_truncate(a).astype(np.float64) @ tf32_truncate(b).astype(np.float64)
    np.testing.assert_allclose(c, exact, rtol=16 * 2.0**-23)  # fp32 accumulation of 16 exact products


@triton.jit
def _desc_copy(x_desc, y_ptr):
    t = x_desc.load([0, 0])
    r = tl.arange(0, 16)
    tl.store(y_ptr + r[:, None] * 16 + r[None, :], t)


def test_descriptor_rounds_to_tf32_with_ties_to_even():
    # A TMA descriptor made with round_f32_to_tf32=True rounds (rn, as Hopper's TMA): the tie 1 + 2⁻¹¹
    # goes to 1, the tie 1 + 3·2⁻¹¹ to 1 + 2⁻⁹, and 1 + 2⁻¹¹ + 2⁻²³ up to 1 + 2⁻¹⁰. Without it, fp32 as is.
    x = np.ones((16, 16), np.float32)
    x[0, :3] = [1 + 2**-11, 1 + 3 * 2**-11, 1 + 2**-11 + 2**-23]
    for rounding, want in ((True, [1.0, 1 + 2 * ULP, 1 + ULP]), (False, x[0, :3].tolist())):
        y = np.zeros_like(x)
        _desc_copy[(1,)](TensorDescriptor.from_tensor(x, [16, 16], round_f32_to_tf32=rounding), y)
        assert y[0, :3].tolist() == want


@triton.jit
def _dot_mn(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, PREC: tl.constexpr):
    m, n, k = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + m[:, None] * K + k[None, :])
    b = tl.load(b_ptr + k[:, None] * N + n[None, :])
    tl.store(c_ptr + m[:, None] * N + n[None, :], tl.dot(a, b, input_precision=PREC))


@pytest.mark.parametrize(("prec", "passes"), [("tf32", 1), ("tf32x3", 3)])
def test_tf32x3_dot_big_enough_for_wgmma_runs_three_passes_on_both_targets(prec, passes):
    # A 128×64 by 64×32 fp32 dot, 4 warps. sm_80: mma.sync.m16n8k8, 128·32·64 / (16·8·8) = 256 a pass.
    # sm_90: M = 128 ≥ 64 and 4 warps (one warpgroup): wgmma.m64n32k8, (128/64)·(32/32)·(64/8) = 16 a pass,
    # each counted once per warp of the warpgroup: 16 × 4 = 64. "tf32x3" runs each pass three times.
    rng = np.random.default_rng(5)
    a = rng.integers(-4, 4, (128, 64)).astype(np.float32)  # small integers: every product exact in TF32
    b = rng.integers(-4, 4, (64, 32)).astype(np.float32)
    c = np.zeros((128, 32), np.float32)
    cnt = _dot_mn[(1,)](a, b, c, M=128, N=32, K=64, PREC=prec, num_warps=4)
    np.testing.assert_array_equal(c, a @ b)
    assert (cnt.mma_sm80, cnt.mma_sm90) == (256 * passes, 64 * passes)
    assert cnt.dot_flops == 2 * 128 * 32 * 64  # the same FLOPs whatever the passes
