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
    # give 1 + 2⁻¹⁰); "ieee" keeps it exactly. "tf32x3" (Triton's F32DotTC): hi = cvt.rna(x) = 1 + 2⁻¹⁰ (x is
    # above the tie 1 + 2⁻¹¹), lo = x − hi = −2⁻¹¹·(1 − 2⁻⁹), 9 significant bits: exact in TF32, so hi + lo = x.
    # With 2⁻²³ in place of 2⁻²⁰, lo = −2⁻¹¹·(1 − 2⁻¹²) = −2⁻¹²·1.11111111111₂ has 12 significant bits; the
    # tensor cores keep 11, truncating |lo| to 2⁻¹¹ − 2⁻²², so hi + lo = 1 + 2⁻¹⁰ − 2⁻¹¹ + 2⁻²² = 1 + 2⁻¹¹ + 2⁻²²
    # (a split that truncated hi too would give hi = 1, lo = 2⁻¹¹ + 2⁻²³ → 2⁻¹¹: 1 + 2⁻¹¹).
    x = 1 + 2**-11 + 2**-20
    assert _identity_product(x, "tf32") == 1.0
    assert _identity_product(x, "ieee") == x
    assert _identity_product(x, "tf32x3") == x
    assert _identity_product(1 + 2**-11 + 2**-23, "tf32x3") == 1 + 2**-11 + 2**-22


@triton.jit
def _dot_default(a_ptr, b_ptr, c_ptr):
    r = tl.arange(0, 16)
    a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])
    b = tl.load(b_ptr + r[:, None] * 16 + r[None, :])
    tl.store(c_ptr + r[:, None] * 16 + r[None, :], tl.dot(a, b))


@triton.jit
def _dot_allow(a_ptr, b_ptr, c_ptr, ALLOW: tl.constexpr):
    r = tl.arange(0, 16)
    a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])
    b = tl.load(b_ptr + r[:, None] * 16 + r[None, :])
    tl.store(c_ptr + r[:, None] * 16 + r[None, :], tl.dot(a, b, allow_tf32=ALLOW))


def _run(kernel, value, **meta):
    """C[0,0] of A·I with A[0,0] = value (A zero elsewhere), and the launch's counts."""
    a = np.zeros((16, 16), np.float32)
    a[0, 0] = value
    c = np.zeros((16, 16), np.float32)
    cnt = kernel[(1,)](a, np.eye(16, dtype=np.float32), c, **meta)
    return float(c[0, 0]), cnt


X = 1 + 2**-11 + 2**-20  # truncated to TF32: 1 (see test_dot_tf32_truncates_its_inputs)
# A 16×16×16 fp32 dot, 4 warps, on sm_80: warpsPerCTA [2, 2], so each warp runs ⌈16 / (16·2)⌉ row tiles ×
# ⌈16 / (8·2)⌉ column tiles × 16/8 K steps = 2 mma.sync.m16n8k8, and the 4 warps 8 (Triton 3.9's PTX for sm_80
# holds 2 mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 and its TTGIR inputPrecision = tf32); "ieee":
# FMAs, no MMA.
TF32_MMA = 8
# "tf32x3": F32DotTC's three dots are chained through their accumulator, so warpsPerTileV2 puts the 4 warps
# along M ([4, 1]; M ≥ N): each warp ⌈16 / (16·4)⌉ = 1 row tile (the rows repeated) × 16/8 = 2 column tiles × 2 K
# steps = 4 a dot, × 3 dots × 4 warps = 48 (3.9's PTX for sm_80: 12 mma.sync, warpsPerCTA = [4, 1]).
TF32X3_MMA = 48


def test_dot_of_fp32_defaults_to_tf32_as_triton_compiles_it(monkeypatch):
    # Triton 3.9's core.dot: input_precision None → TRITON_F32_DEFAULT or "tf32" (allow_tf32 None or True),
    # "ieee" for allow_tf32=False. Each case's value and its MMAs: 1 and 4 for TF32, X and 0 for IEEE.
    monkeypatch.delenv("TRITON_F32_DEFAULT", raising=False)
    value, cnt = _run(_dot_default, X)
    assert (value, cnt.mma_sm80, cnt.dot_flops_tf32) == (1.0, TF32_MMA, 2 * 16**3)
    assert _run(_dot_allow, X, ALLOW=True)[0] == 1.0
    value, cnt = _run(_dot_allow, X, ALLOW=False)
    assert (value, cnt.mma_sm80, cnt.dot_flops_fma) == (X, 0, 2 * 16**3)


@pytest.mark.parametrize(("env", "want", "mma"), [
    ("ieee", X, 0),
    ("IEEE", X, 0),                    # semantic.dot compares input_precision.lower()
    ("tf32", 1.0, TF32_MMA),
    ("tf32x3", X, TF32X3_MMA),         # hi + lo recovers X exactly (test_dot_tf32_truncates_its_inputs)
])
def test_triton_f32_default_sets_the_precision_of_dots_that_name_none(monkeypatch, env, want, mma):
    # The variable wins over allow_tf32 (core.dot: `knobs.language.fp32_default or (...)`), both ways; an
    # explicit input_precision wins over the variable.
    monkeypatch.setenv("TRITON_F32_DEFAULT", env)
    for kernel, meta in ((_dot_default, {}), (_dot_allow, {"ALLOW": True}), (_dot_allow, {"ALLOW": False})):
        value, cnt = _run(kernel, X, **meta)
        assert (value, cnt.mma_sm80) == (want, mma), (kernel, meta)
    assert _run(_dot, X, PREC="tf32")[0] == 1.0
    assert _run(_dot, X, PREC="ieee")[0] == X


def test_a_replayed_launch_follows_triton_f32_default(monkeypatch):
    # TRITON_F32_DEFAULT is one of the variables Triton's compile cache is keyed on (libtriton's
    # get_cache_invalidating_env_vars): a launch recorded under one value does not replay under another.
    from kernellab.triton.replay.cache import status

    def launch():
        value, cnt = _run(_dot_default, X)
        return value, cnt.mma_sm80, status(_dot_default)

    monkeypatch.delenv("TRITON_F32_DEFAULT", raising=False)
    with triton.replaying():
        assert [launch() for _ in range(2)] == [(1.0, TF32_MMA, "recorded"), (1.0, TF32_MMA, "replayed")]
        monkeypatch.setenv("TRITON_F32_DEFAULT", "ieee")  # FMAs: no MMA
        assert [launch() for _ in range(2)] == [(X, 0, "recorded"), (X, 0, "replayed")]


def test_knob_fp32_default_is_the_variable_unless_set(monkeypatch):
    from kernellab.triton import knobs
    monkeypatch.setenv("TRITON_F32_DEFAULT", "tf32")
    assert knobs.language.fp32_default == "tf32"
    try:
        knobs.language.fp32_default = "ieee"  # as Triton's env_opt_str: stored, and the variable set too
        assert (knobs.language.fp32_default, _run(_dot_default, X)[0]) == ("ieee", X)
        import os
        assert os.environ["TRITON_F32_DEFAULT"] == "ieee"
        knobs.language.fp32_default = None  # set to None: no default, whatever the variable says
        assert (knobs.language.fp32_default, _run(_dot_default, X)[0]) == (None, 1.0)
    finally:
        del knobs.language.fp32_default
    monkeypatch.setenv("TRITON_F32_DEFAULT", "tf32x3")
    assert knobs.language.fp32_default == "tf32x3"


def test_precision_names_triton_refuses_are_refused(monkeypatch):
    # semantic.dot: `input_precision.lower() in options.allowed_dot_input_precisions`, else AssertionError,
    # which Triton's code generator wraps in a CompilationError; core.dot refuses both arguments at once.
    monkeypatch.setenv("TRITON_F32_DEFAULT", "fp32")
    with pytest.raises(triton.CompilationError, match="_dot_default") as info:
        _run(_dot_default, X)
    assert isinstance(info.value.__cause__, AssertionError)
    assert str(info.value.__cause__) == ("input_precision must be one of ('tf32', 'tf32x3', 'ieee', 'bf16x3', "
                                         "'bf16x6'). Got fp32")
    monkeypatch.delenv("TRITON_F32_DEFAULT")
    with pytest.raises(triton.CompilationError) as info:
        _run(_dot, X, PREC="tf16")
    assert str(info.value.__cause__).endswith("Got tf16")


@triton.jit
def _dot_both(a_ptr, b_ptr, c_ptr):
    r = tl.arange(0, 16)
    a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])
    tl.store(c_ptr + r[:, None] * 16 + r[None, :], tl.dot(a, a, input_precision="tf32", allow_tf32=True))


def test_input_precision_and_allow_tf32_together_are_refused():
    with pytest.raises(triton.CompilationError) as info:
        _run(_dot_both, X)
    assert str(info.value.__cause__) == "Only one of input_precision and allow_tf32 can be specified"


def test_bf16_splits_of_an_fp32_dot_are_not_modelled():
    # Triton 3.9 allows "bf16x3" and "bf16x6" on NVIDIA; kernellab computes neither, and says so rather than
    # giving another precision's values.
    with pytest.raises(NotImplementedError, match="bf16x3"):
        _run(_dot, X, PREC="bf16x3")


def test_tf32x3_keeps_an_infinite_input_infinite():
    # F32DotTC zeroes a NaN in the small products: an infinite a gives lo = inf − inf = NaN, so lo·hi is NaN,
    # replaced by 0, and the result is hi·hi = inf·1 = inf (a NaN there would have made it NaN). B all ones.
    a = np.zeros((16, 16), np.float32)
    a[0, 0] = np.inf
    c = np.zeros((16, 16), np.float32)
    _dot[(1,)](a, np.ones((16, 16), np.float32), c, PREC="tf32x3")
    assert np.isposinf(c[0]).all() and (c[1:] == 0).all()


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


@pytest.mark.parametrize(("m", "n", "k", "compiled"), [
    # Triton 3.9's PTX for num_warps=4 (scratch: compiled for GPUTarget("cuda", 80 / 90)): mma.sync (or wgmma)
    # in the code each thread runs, for "tf32" and "tf32x3" on sm_80 and sm_90; × 4 warps = warp instructions
    (16, 16, 16, {"tf32": (2, 2), "tf32x3": (12, 12)}),      # tf32 [2, 2] warps; tf32x3 [4, 1]: rows repeated
    (32, 32, 32, {"tf32": (8, 8), "tf32x3": (48, 48)}),
    (128, 32, 64, {"tf32": (64, 16), "tf32x3": (192, 48)}),  # sm_90: wgmma
    (64, 64, 32, {"tf32": (32, 4), "tf32x3": (96, 12)}),
])
def test_mma_counts_of_tf32_and_tf32x3_equal_the_compiled_code(m, n, k, compiled):
    # "tf32x3" is three dots chained through their accumulator: Triton plans them as a chain (all warps along
    # M here), which for blocks under 64 rows repeats rows across warps: not 3 × the "tf32" count there.
    for prec, (sm80, sm90) in compiled.items():
        c = np.zeros((m, n), np.float32)
        cnt = _dot_mn[(1,)](np.ones((m, k), np.float32), np.ones((k, n), np.float32), c, M=m, N=n, K=k, PREC=prec,
                            num_warps=4)
        assert (cnt.mma_sm80, cnt.mma_sm90) == (4 * sm80, 4 * sm90), prec


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


def _lecture_dot(tl, a, b, c):
    r = tl.arange(0, 16)
    offs = r[:, None] * 16 + r[None, :]
    tl.store(c, offs, tl.dot(tl.load(a, offs), tl.load(b, offs)))


def test_the_lecture_form_dot_stays_ieee(monkeypatch):
    # The lecture form (kernel(tl, ...), triton_launch) is the course's specification, not Triton code: its
    # tl.dot has no input_precision and computes IEEE fp32 whatever TRITON_F32_DEFAULT says (docs/triton.md).
    from kernellab import triton_launch
    monkeypatch.setenv("TRITON_F32_DEFAULT", "tf32")
    a = np.zeros((16, 16), np.float32)
    a[0, 0] = X
    c = np.zeros((16, 16), np.float32)
    triton_launch(_lecture_dot, 1, a, np.eye(16, dtype=np.float32), c)
    assert float(c[0, 0]) == X
