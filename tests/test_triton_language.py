"""The Triton 3.9 language in mini-Triton: every new operation against a float64 (or exact integer) numpy
reference on random and edge shapes, run vectorised and one program at a time, with its counts."""

import math
from pathlib import Path

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import OutOfBoundsError
from kernellab.triton.executor import dtypes as T
from kernellab.triton.language.random import philox_np
from tests.reference import fresh_module

K = fresh_module(Path(__file__).with_name("triton_kernels.py"), "kl_triton_kernels_lang")

MODES = [pytest.param(True, id="vectorised"), pytest.param(False, id="one-by-one")]


# --- tensor members and the module layout ------------------------------------------------------
def test_members_are_registered_by_the_functions_themselves():
    import ast

    src = (Path(triton.__file__).parent / "executor" / "tensor.py").read_text()
    imported = [n.module for n in ast.walk(ast.parse(src)) if isinstance(n, ast.ImportFrom)]
    assert not any("language" in (m or "") for m in imported), "tensor.py must not import the language modules"
    for name in ["exp", "exp2", "log", "log2", "cos", "sin", "sqrt", "sqrt_rn", "rsqrt", "abs", "erf", "floor", "ceil",
                 "sigmoid", "softmax", "ravel", "max", "argmax", "min", "argmin", "sum", "xor_sum", "reduce_or",
                 "cumsum", "cumprod", "flip", "broadcast_to", "trans", "permute", "split", "view", "reshape",
                 "expand_dims", "cast", "store", "advance", "reduce", "associative_scan", "histogram", "gather",
                 "atomic_add", "atomic_cas", "atomic_xchg", "atomic_max", "atomic_min", "atomic_and", "atomic_or",
                 "atomic_xor", "atomic_load", "atomic_store", "atomic_poll", "cdiv", "item"]:
        assert getattr(tl.tensor, name) is getattr(tl.core if name == "item" else tl, name), name


def test_runtime_is_laid_out_as_tritons():
    import kernellab.triton.runtime as rt

    # triton.runtime.jit is a module holding JITFunction (libraries import from it), triton.jit its decorator
    assert isinstance(rt.jit, type(rt)) and triton.jit is rt.jit.jit and rt.JITFunction is rt.jit.JITFunction
    assert rt.driver.active.get_current_target().backend == "cuda"  # the driver object, as in Triton


@pytest.mark.parametrize("vectorize", MODES)
def test_member_math_matches_float64(vectorize):
    n = 100
    x = (3 * np.random.default_rng(0).standard_normal(n)).astype(np.float32)
    out = np.zeros(8 * n, np.float32)
    K.math2_kernel[(2,)](x, out, n, BLOCK=64, vectorize=vectorize)
    o = out.reshape(n, 8).astype(np.float64)
    d = x.astype(np.float64)
    ad = np.abs(d) + 0.5
    erf = np.array([math.erf(v) for v in d])
    ref = [erf, np.exp2(d) + np.log2(ad), np.sqrt(ad) + d / ad, d / ad + (d * d + ad),
           np.clip(d, -0.5, 0.75) + np.floor(d) + np.ceil(d), np.exp(d) + np.log(ad) + np.sqrt(ad) + 1 / (1 + np.exp(-d)),
           np.sin(d) * np.cos(d) + 1 / np.sqrt(ad) + np.abs(d), -(-np.arange(n) // 3) + d]
    for k, r in enumerate(ref):
        np.testing.assert_allclose(o[:, k], r, rtol=2e-6, atol=2e-6 * np.abs(r).max(), err_msg=f"column {k}")


def test_integer_math_exact():
    rng = np.random.default_rng(1)
    a = rng.integers(-2**31, 2**31, 16).astype(np.int32)
    b = rng.integers(-2**31, 2**31, 16).astype(np.int32)
    a[:2], b[:2] = [-1, 0x7FFFFFFF], [-1, 2]  # 0xFFFFFFFF² >> 32 = 0xFFFFFFFE; (2^31-1)·2 >> 32 = 0
    out = np.zeros(48, np.int32)
    K.intmath_kernel[(1,)](a, b, out, BLOCK=16)
    ua, ub = a.view(np.uint32).astype(object), b.view(np.uint32).astype(object)
    hi = np.array([(int(p) * int(q)) >> 32 for p, q in zip(ua, ub)], np.uint64).astype(np.uint32).view(np.int32)
    np.testing.assert_array_equal(out[:16], hi)
    assert out[0] == np.uint32(0xFFFFFFFE).view(np.int32) and out[1] == 0
    np.testing.assert_array_equal(out[16:32], (a ^ b) & (a | 255))
    np.testing.assert_array_equal(out[32:], (a >> 3) + (b << 2))


def test_fma_rounds_once():
    x = np.array([1 + 2**-12, 1 + 2**-23], np.float32)

    @triton.jit
    def k(x_ptr, out_ptr):
        v = tl.load(x_ptr + tl.arange(0, 2))
        tl.store(out_ptr + tl.arange(0, 2), tl.fma(v, v, -1.0))

    out = np.zeros(2, np.float32)
    k[(1,)](x, out)
    # (1 + e)^2 - 1 = 2e + e^2, exact in fp64, then one rounding to fp32
    np.testing.assert_array_equal(out, (x.astype(np.float64) ** 2 - 1).astype(np.float32))


def test_fma_rounds_once_where_fp64_lands_on_a_tie():
    # x·y = 64·(1 + 2^-12)·(1 − 4095·2^-24) = 64 + 2^-30 exactly; + 2^30 in fp64 is 2^30 + 64, the fp32 tie of
    # 2^30 and 2^30 + 128 (to even: 2^30 if rounded again); the exact sum is above it: 2^30 + 128, as fma.rn.f32
    # and libdevice.fma_rn give. Element 1: z = −2^30 − 256, fp64 −2^30 − 192, the tie of −2^30 − 128 and
    # −2^30 − 256; the exact sum is nearer zero: −2^30 − 128.
    x = np.full(2, 64 * (1 + 2**-12), np.float32)
    y = np.full(2, 1 - 4095 * 2**-24, np.float32)
    z = np.array([2**30, -(2**30) - 256], np.float32)

    @triton.jit
    def k(x_ptr, y_ptr, z_ptr, out_ptr):
        o = tl.arange(0, 2)
        tl.store(out_ptr + o, tl.fma(tl.load(x_ptr + o), tl.load(y_ptr + o), tl.load(z_ptr + o)))

    out = np.zeros(2, np.float32)
    k[(1,)](x, y, z, out)
    assert out.tolist() == [2**30 + 128, -(2**30) - 128]


# --- random numbers --------------------------------------------------------------------------------
def test_philox_known_answers():
    # Random123's known-answer vectors for Philox-4x32-10
    zero = [np.uint32([0])] * 4
    assert [int(v[0]) for v in philox_np(*zero, 0, 0)] == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]
    ones = [np.uint32([0xFFFFFFFF])] * 4
    assert [int(v[0]) for v in philox_np(*ones, 0xFFFFFFFF, 0xFFFFFFFF)] == [0x408F276D, 0x41C83B0E, 0xA20BC7C6,
                                                                           0x6D5451FD]
    pi = [np.uint32([v]) for v in (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344)]
    assert [int(v[0]) for v in philox_np(*pi, 0xA4093822, 0x299F31D0)] == [0xD16CFE09, 0x94FDCCEB, 0x5001E420,
                                                                         0x24126EA1]


@pytest.mark.parametrize("vectorize", MODES)
@pytest.mark.parametrize("seed", [0, 123, 2**33 + 7])
def test_random_streams_follow_philox(seed, vectorize):
    i = np.zeros(4 * 256, np.uint32)
    u = np.zeros(5 * 256, np.float32)
    n = np.zeros(3 * 256, np.float32)
    c = K.random_streams_kernel[(4,)](i, u, n, seed, BLOCK=64, vectorize=vectorize)
    offs = np.arange(256, dtype=np.uint32)
    z = np.zeros(256, np.uint32)
    ref = philox_np(offs, z, z, z, seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF)
    np.testing.assert_array_equal(i.reshape(256, 4), np.stack(ref, axis=1))
    ii = ref[0].view(np.int32).astype(np.int64)
    folded = np.where(ii < 0, -ii - 1, ii)  # ~x = -x - 1
    uni = folded.astype(np.float32) * np.float32(4.6566127342e-10)  # Triton's definition: int → fp32, × fp32
    np.testing.assert_array_equal(u.reshape(256, 5)[:, 2], uni)
    np.testing.assert_allclose(uni, folded * 2.0**-31, rtol=2**-22)  # ≈ x / 2^31 in float64
    uniform = u.reshape(256, 5)[:, [0, 1, 2, 4]]
    assert (uniform >= 0).all() and (uniform < 1).all()
    np.testing.assert_array_equal(u.reshape(256, 5)[:, 3], ref[0].astype(np.float32))
    assert len(set(u.reshape(256, 5)[:, 4].tolist()) & set(u.reshape(256, 5)[:, 2].tolist())) < 3  # seed+1 differs
    i2 = ref[1].view(np.int32).astype(np.int64)
    u2 = np.where(i2 < 0, -i2 - 1, i2) * 4.6566127342e-10
    normal = np.sqrt(-2 * np.log(np.maximum(uni, 1e-7))) * np.cos(2 * np.pi * u2)
    np.testing.assert_allclose(n.reshape(256, 3)[:, 2], normal, rtol=1e-4, atol=1e-5)
    assert c.load_bytes == 0 and c.store_bytes == 4 * 256 * (4 + 5 + 3)  # random numbers move no memory


@pytest.mark.parametrize("n", [1, 255, 1000, 1024])
def test_low_memory_dropout(n):
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    a, b = np.zeros_like(x), np.zeros_like(x)
    K.seeded_dropout_kernel[(triton.cdiv(n, 256),)](x, a, n, 0.4, 99, BLOCK_SIZE=256)
    K.seeded_dropout_kernel[(triton.cdiv(n, 128),)](x, b, n, 0.4, 99, BLOCK_SIZE=128)
    np.testing.assert_array_equal(a, b)  # the mask depends on (seed, offset) only, not on the tiling
    keep = a != 0
    np.testing.assert_allclose(a[keep], x[keep] / np.float32(0.6), rtol=1e-6)
    if n >= 1000:
        assert 0.5 < keep.mean() < 0.7


# --- atomics -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("vectorize", MODES)
@pytest.mark.parametrize("n", [1, 127, 300])
def test_histogram_with_atomics(n, vectorize):
    x = np.random.default_rng(n).integers(0, 16, n).astype(np.int32)
    bins = np.zeros(32, np.int32)
    c = K.histogram_kernel[(triton.cdiv(n, 128),)](x, bins, n, NUM_BINS=16, BLOCK=128, vectorize=vectorize)
    ref = np.bincount(x, minlength=16)
    np.testing.assert_array_equal(bins[:16], ref)
    np.testing.assert_array_equal(bins[16:], ref)
    P = triton.cdiv(n, 128)
    # per program: one atomic of its active lanes (n total, 4 bytes each), one of 16 lanes of the bins
    assert c.atomics == 2 * P and c.atomic_bytes == 4 * n + 4 * 16 * P
    assert c.atomic_requests == triton.cdiv(n, 32) if n % 128 == 0 else c.atomic_requests >= P
    assert c.load_bytes == 4 * n and c.store_bytes == 0


@pytest.mark.parametrize("vectorize", MODES)
@pytest.mark.parametrize("n", [1, 13, 16])
def test_every_atomic_returns_old_values(n, vectorize):
    rng = np.random.default_rng(n)
    f = rng.standard_normal(48).astype(np.float32)
    i = rng.integers(-100, 100, 80).astype(np.int32)
    i[64:64 + n:2] = np.arange(0, n, 2)  # atomic_cas: these lanes hold cmp = offs and swap
    f0, i0 = f.copy(), i.copy()
    old = np.zeros(32, np.int32)
    K.atomics_kernel[(1,)](f, i, old, n, BLOCK=16, vectorize=vectorize)
    offs = np.arange(16)
    m = offs < n
    v = offs.astype(np.float32) - 3
    iv = (offs * 7 - 5).astype(np.int32)
    ff, fi = f0.copy(), i0.copy()
    ff[:16][m] += v[m]
    ff[16:32][m] = np.maximum(ff[16:32][m], v[m])
    ff[32:][m] = np.minimum(ff[32:][m], v[m])
    fi[:16][m] = iv[m]
    fi[16:32][m] &= iv[m]
    fi[32:48][m] |= iv[m]
    fi[48:64][m] ^= iv[m]
    fi[64:80] = np.where(i0[64:80] == offs, iv, i0[64:80])
    np.testing.assert_array_equal(f, ff)
    np.testing.assert_array_equal(i, fi)
    o1 = (f0[:16] + f0[16:32] + f0[32:]).astype(np.int32)
    o2 = i0[:16] + i0[16:32] + i0[32:48] + i0[48:64] + i0[64:80]
    np.testing.assert_array_equal(old[:16][m], o1[m])
    np.testing.assert_array_equal(old[16:][m], o2[m])


@pytest.mark.parametrize("vectorize", MODES)
def test_atomics_take_effect_in_launch_order(vectorize):
    x = np.random.default_rng(2).standard_normal((6, 8)).astype(np.float32)
    cnt = np.zeros(3, np.float32)
    c = K.counter_kernel[(6,)](cnt, x, BLOCK=8, vectorize=vectorize)
    assert cnt[0] == 6 and cnt[1] == 5
    seq = np.float32(0)
    for row in x:  # program 0 first, then 1, …: float additions in launch order
        seq = np.float32(seq + row.sum(dtype=np.float32))
    assert cnt[2] == seq
    assert c.atomics == 18 and c.atomic_bytes == 18 * 4 and c.atomic_requests == 18 and c.atomic_sectors == 18

    @triton.jit
    def ticket(t_ptr, out_ptr):
        tl.store(out_ptr + tl.program_id(0), tl.atomic_add(t_ptr, 1))

    t, out = np.zeros(1, np.int32), np.zeros(7, np.int32)
    ticket[(7,)](t, out, vectorize=vectorize)
    assert out.tolist() == list(range(7)) and t[0] == 7  # each program gets the previous count


def test_spin_lock_accumulates_each_group():
    X = np.random.default_rng(3).standard_normal((10, 20)).astype(np.float32)
    DW, lock, count = np.zeros((3, 20), np.float32), np.zeros(3, np.int32), np.zeros(3, np.int32)
    K.locked_accumulate_kernel[(10,)](X, DW, lock, count, 10, 20, GROUP=3, BLOCK=32)
    ref = np.stack([X[g::3].astype(np.float64).sum(0) for g in range(3)])
    np.testing.assert_allclose(DW, ref, rtol=1e-5, atol=1e-6)
    assert lock.tolist() == [0, 0, 0] and count.tolist() == [1, 1, 1]


def test_atomic_errors():
    @triton.jit
    def bad_sem(p):
        tl.atomic_add(p, 1, sem="sequential")

    with pytest.raises(ValueError, match="sem must be one of"):
        bad_sem[(1,)](np.zeros(1, np.int32))

    @triton.jit
    def oob(p):
        tl.atomic_add(p + tl.arange(0, 4), 1)

    with pytest.raises(OutOfBoundsError, match="p\\[2\\] out of bounds"):
        oob[(1,)](np.zeros(2, np.int32))

    @triton.jit
    def poll(p):
        tl.atomic_poll(p, 1)

    with pytest.raises(RuntimeError, match="would wait forever"):
        poll[(1,)](np.zeros(1, np.int32))

    @triton.jit
    def never_released(lock):
        while tl.atomic_cas(lock, 0, 1) == 1:
            pass

    with pytest.raises(RuntimeError, match="program \\(1,0,0\\): tl.atomic_cas found the lock taken 1000 times"):
        never_released[(2,)](np.zeros(1, np.int32))  # program 0 takes it and never releases it


# --- scans and reductions -----------------------------------------------------------------------------
@pytest.mark.parametrize("vectorize", MODES)
@pytest.mark.parametrize("axis", [0, 1])
def test_scans_and_reductions_with_combine_functions(axis, vectorize):
    rng = np.random.default_rng(4 + axis)
    x = rng.standard_normal((8, 16)).astype(np.float32)
    xi = rng.integers(-50, 50, (8, 16)).astype(np.int32)
    xi[2, 3] = xi[5, 3] = xi[2, 9] = 60  # ties: the smallest index wins
    out, iout = np.zeros(3 * 128 + 16, np.float32), np.zeros(3 * 128 + 6 * 16, np.int32)
    c = K.scan_kernel[(1,)](x, xi, out, iout, R=8, C=16, AXIS=axis, L=16 if axis == 0 else 8,
                               vectorize=vectorize)
    d = x.astype(np.float64)
    tol = dict(rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out[:128].reshape(8, 16), np.cumsum(d, axis=axis), **tol)
    rev = np.flip(np.cumsum(np.flip(d, axis), axis=axis), axis)
    np.testing.assert_allclose(out[128:256].reshape(8, 16), rev, **tol)
    np.testing.assert_allclose(out[256:384].reshape(8, 16), np.cumsum(d, axis=axis), **tol)
    a = np.fmod(xi, 3) + 1  # C remainder, as Triton
    np.testing.assert_array_equal(iout[:128].reshape(8, 16), np.cumprod(a, axis=axis))
    # affine maps x -> a·x + b composed left to right: b_k = b_{k-1}·a_k + xi_k
    b = np.zeros_like(xi)
    idx = [slice(None)] * 2
    for k in range(xi.shape[axis]):
        idx[axis] = k
        prev = b[tuple(idx[:axis] + [k - 1] + idx[axis + 1:])] if k else 0
        b[tuple(idx)] = prev * a[tuple(idx)] + xi[tuple(idx)]
    np.testing.assert_array_equal(iout[128:256].reshape(8, 16), b)
    np.testing.assert_array_equal(iout[256:384].reshape(8, 16), np.flip(np.cumsum(np.flip(xi, axis), axis=axis), axis))
    n = 16 if axis == 0 else 8
    tail = iout[384:].reshape(6, 16)[:, :n] if axis == 0 else iout[384:384 + 6 * 8].reshape(6, 8)
    np.testing.assert_array_equal(tail[0], xi.max(axis=axis))
    lin = np.arange(128).reshape(8, 16)
    np.testing.assert_array_equal(tail[1], np.take_along_axis(lin, np.expand_dims(np.argmax(xi, axis=axis), axis),
                                                              axis).ravel())
    np.testing.assert_array_equal(tail[2], np.bitwise_xor.reduce(xi, axis=axis))
    np.testing.assert_array_equal(tail[3], np.bitwise_or.reduce(xi, axis=axis))
    np.testing.assert_array_equal(tail[4], np.argmax(xi, axis=axis))  # first of the tied maxima
    np.testing.assert_array_equal(tail[5], np.argmin(xi, axis=axis))
    s = out[384:384 + n]
    np.testing.assert_allclose(s, d.sum(axis=axis), **tol)
    assert c.loads == 2 and c.load_bytes == 2 * 128 * 4  # scans and reductions move no memory


@pytest.mark.parametrize("n", [1, 2, 8, 32])
def test_reduce_axis_none_keep_dims_and_item(n):
    @triton.jit
    def k(x_ptr, out_ptr, N: tl.constexpr):
        x = tl.load(x_ptr + tl.arange(0, N))
        tl.store(out_ptr, tl.reduce(x, 0, K._add_combine))
        tl.store(out_ptr + 1, tl.reduce(x, None, K._add_combine))
        tl.store(out_ptr + 2 + tl.arange(0, 1), tl.reduce(x, 0, K._add_combine, keep_dims=True))
        tl.store(out_ptr + 3, tl.reduce(x, 0, K._add_combine, keep_dims=True).item())

    x = np.random.default_rng(n).integers(-9, 9, n).astype(np.int32)
    out = np.zeros(4, np.int32)
    k[(1,)](x, out, N=n)
    assert out.tolist() == [x.sum()] * 4


# --- shapes ------------------------------------------------------------------------------------------
def test_shape_functions():
    rng = np.random.default_rng(5)
    N = 16
    x = rng.standard_normal(2 * N).astype(np.float32)
    idx = rng.integers(0, N, N).astype(np.int32)
    out = np.zeros(10 * N + N * N + N, np.float32)
    c = K.shapes_kernel[(1,)](x, out, idx, N=N)
    a, b = x[:N], x[N:]
    np.testing.assert_array_equal(out[:N], a - b)
    np.testing.assert_array_equal(out[N:3 * N], np.stack([a, b], 1).ravel())
    np.testing.assert_array_equal(out[3 * N:4 * N], a[::-1])
    np.testing.assert_array_equal(out[4 * N:6 * N].reshape(4, N // 2), np.stack([a, b], 1).reshape(N // 2, 4).T)
    np.testing.assert_array_equal(out[6 * N:7 * N], a[idx])
    np.testing.assert_array_equal(out[7 * N:8 * N], np.sort(a))
    np.testing.assert_array_equal(out[8 * N:9 * N], np.sort(a)[::-1])
    np.testing.assert_array_equal(out[9 * N:9 * N + 4], np.sort(a)[::-1][:4])
    np.testing.assert_array_equal(out[10 * N:10 * N + N * N].reshape(N, N), (a[None, :] + b[:, None]).T)
    np.testing.assert_array_equal(out[10 * N + N * N:], a)
    assert c.loads == 3 and c.load_bytes == 4 * (2 * N + N)


def test_cat_and_histogram_and_squeeze():
    @triton.jit
    def k(x_ptr, out_ptr):
        a = tl.load(x_ptr + tl.arange(0, 4))
        b = tl.load(x_ptr + 4 + tl.arange(0, 4))
        tl.store(out_ptr + tl.arange(0, 8), tl.cat(a, b, can_reorder=True))
        h = tl.histogram(a, 4, mask=tl.arange(0, 4) < 3)
        tl.store(out_ptr + 8 + tl.arange(0, 4), h)

    x = np.array([0, 3, 3, 1, 5, 6, 7, 8], np.int32)
    out = np.zeros(12, np.int32)
    k[(1,)](x, out)
    assert out[:8].tolist() == x.tolist()
    assert out[8:].tolist() == [1, 0, 0, 2]  # values 0, 3, 3 (lane 3 masked off)


def test_swizzle2d_groups_rows():
    s = np.zeros(48, np.int32)
    K.swizzle_kernel[(4, 6)](s, GM=4, GN=6, G=3)
    got = s.reshape(4, 6, 2)
    for i in range(4):
        for j in range(6):  # the formula of Triton's standard library, by hand
            ij = i * 6 + j
            group, size_g = ij // 18, min(4 - ij // 18 * 3, 3)
            assert tuple(got[i, j]) == (group * 3 + (ij % 18) % size_g, (ij % 18) // size_g)


# --- dtypes ------------------------------------------------------------------------------------------
def _round_ref(x: float, m: int, emin: int) -> float:
    """Round to nearest even with ``m`` mantissa bits and minimum normal exponent ``emin`` (float64 math)."""
    if x == 0 or not math.isfinite(x):
        return x
    e = max(math.frexp(abs(x))[1] - 1, emin)
    q = 2.0 ** (e - m)
    return math.copysign(round(abs(x) / q) * q, x)  # Python's round: half to even


@pytest.mark.parametrize(("fmt", "m", "emin"), [(T.bfloat16, 7, -126), (T.float8e5, 2, -14), (T.float8e4nv, 3, -6),
                                                (T.float8e4b15, 3, -14), (T.float8e4b8, 3, -7), (T.float8e5b16, 2, -15)])
def test_emulated_formats_round_to_nearest_even(fmt, m, emin):
    rng = np.random.default_rng(m - emin)
    x = np.concatenate([rng.standard_normal(2000) * 4.0 ** rng.integers(-4, 4, 2000), [0.0, -0.0, 1.0, 2.0 ** emin]])
    x = x.astype(np.float32)
    x = x[np.abs(x) < fmt.max_finite]
    got = fmt.round(x)
    ref = np.array([_round_ref(float(v), m, emin) for v in x])
    ref = np.where(np.abs(ref) > fmt.max_finite, np.inf if fmt.inf else np.nan, ref)
    np.testing.assert_array_equal(got, ref.astype(np.float32))
    # halfway cases go to the even neighbour
    one_ulp = 2.0 ** -m
    assert fmt.round(np.float32([1 + one_ulp / 2, 1 + 1.5 * one_ulp])).tolist() == [1.0, 1 + 2 * one_ulp]
    # every bit pattern decodes and encodes back
    bits = np.arange(1 << fmt.bits, dtype=fmt.storage)
    v = fmt.decode(bits)
    ok = ~np.isnan(v)
    np.testing.assert_array_equal(fmt.encode(v[ok]), bits[ok])


def test_float8_carry_and_ties():
    # 7.6 lies between 7 and 8 (e5m2 steps by 1 there): nearest is 8, a carry into the exponent;
    # 6.5 is a tie between 6 (mantissa 10b, even) and 7 (11b): to even gives 6
    assert T.float8e5.round(np.float32([7.6, 6.5, 3.9, 1.0])).tolist() == [8.0, 6.0, 4.0, 1.0]


@pytest.mark.parametrize("vectorize", MODES)
def test_conversions_and_bitcast(vectorize):
    x = (np.random.default_rng(6).standard_normal(64) * 10).astype(np.float32)
    x[:3] = [1 + 2**-8, 2049.0, -2049.0]  # a bf16 tie (to even: 1.0); fp16 rtz of ±2049 is ±2048
    out, bits = np.zeros(256, np.float32), np.zeros(128, np.int32)
    K.convert_kernel[(1,)](x, out, bits, BLOCK=64, vectorize=vectorize)
    o = out.reshape(4, 64)
    np.testing.assert_array_equal(o[0], T.bfloat16.round(x))
    assert o[0][0] == 1.0
    d = x.astype(np.float64)
    h = x.astype(np.float16).astype(np.float64)
    rtz = np.where(np.abs(h) > np.abs(d), np.nextafter(x.astype(np.float16), np.float16(0)).astype(np.float64), h)
    np.testing.assert_array_equal(o[1], rtz)
    assert o[1][1:3].tolist() == [2048.0, -2048.0]
    np.testing.assert_array_equal(o[2], [_round_ref(v, 2, -14) for v in d])
    np.testing.assert_array_equal(o[3], np.where(np.abs(x) < 464, [_round_ref(v, 3, -6) for v in d], np.nan))
    np.testing.assert_array_equal(bits[:64], x.view(np.int32))
    np.testing.assert_array_equal(bits[64:], x.view(np.int32) >> 16)


def test_bfloat16_arithmetic_rounds_and_stores_bits():
    @triton.jit
    def k(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
        offs = tl.arange(0, N)
        a = tl.load(x_ptr + offs).to(tl.bfloat16)
        b = tl.load(y_ptr + offs).to(tl.bfloat16)
        tl.store(out_ptr + offs, (a + b).to(tl.float32))
        tl.store(out_ptr + N + offs, (a * b).to(tl.float32))
        tl.store(out_ptr + 2 * N, tl.sum(a, axis=0).to(tl.float32))

    rng = np.random.default_rng(7)
    x, y = rng.standard_normal((2, 32)).astype(np.float32)
    out = np.zeros(65, np.float32)
    k[(1,)](x, y, out, N=32)
    a, b = T.bfloat16.round(x).astype(np.float64), T.bfloat16.round(y).astype(np.float64)
    np.testing.assert_array_equal(out[:32], T.bfloat16.round((a + b).astype(np.float32)))
    np.testing.assert_array_equal(out[32:64], T.bfloat16.round((a * b).astype(np.float32)))
    # a bfloat16 sum is a bfloat16 value (Triton sums bf16 in bf16): within half a bf16 ulp of the exact sum
    assert out[64] == T.bfloat16.round(np.float32([out[64]]))[0]
    assert abs(out[64] - a.sum()) <= 2.0 ** (np.floor(np.log2(abs(a.sum()))) - 8) + 1e-6


def test_torch_tensors_including_bfloat16():
    torch = pytest.importorskip("torch")
    x = torch.randn(100, dtype=torch.float32)
    y = torch.empty_like(x)
    K.add_kernel[(1,)](x, x, y, 100, BLOCK_SIZE=128)
    assert torch.equal(y, 2 * x)

    @triton.jit
    def bf(x_ptr, out_ptr, N: tl.constexpr):
        offs = tl.arange(0, N)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs) * 2)

    xb = torch.randn(16).to(torch.bfloat16)
    ob = torch.empty_like(xb)
    bf[(1,)](xb, ob, N=16)
    assert torch.equal(ob, xb * 2)


# --- block pointers and descriptors --------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore::kernellab.errors.BlockPointerWarning")  # block pointers: Triton 3.9 removed them
@pytest.mark.parametrize("vectorize", MODES)
@pytest.mark.parametrize(("M", "N"), [(1, 1), (16, 16), (37, 50)])
def test_block_pointer_row_sums(M, N, vectorize):
    X = np.random.default_rng(M * N).standard_normal((M, N)).astype(np.float32)
    out = np.zeros(M, np.float32)
    c = K.block_ptr_rowsum_kernel[(triton.cdiv(M, 16),)](X, out, M, N, N, 1, BM=16, BN=16, vectorize=vectorize)
    np.testing.assert_allclose(out, X.astype(np.float64).sum(1), rtol=1e-5, atol=1e-5)
    # counted like the masked loads they stand for: exactly the M·N elements inside the matrix
    assert c.load_bytes == 4 * M * N and c.store_bytes == 4 * M
    assert c.loads == triton.cdiv(M, 16) * triton.cdiv(N, 16)


@pytest.mark.filterwarnings("ignore::kernellab.errors.BlockPointerWarning")  # block pointers: Triton 3.9 removed them
@pytest.mark.parametrize(("M", "N", "K_"), [(16, 16, 16), (40, 20, 30)])
def test_block_pointer_matmul(M, N, K_):
    rng = np.random.default_rng(M)
    A, B = rng.standard_normal((M, K_)).astype(np.float32), rng.standard_normal((K_, N)).astype(np.float32)
    C = np.zeros((M, N), np.float32)
    c = K.block_ptr_matmul_kernel[(triton.cdiv(M, 16), triton.cdiv(N, 16))](A, B, C, M, N, K_, BM=16, BN=16, BK=16)
    np.testing.assert_allclose(C, A.astype(np.float64) @ B, rtol=1e-5, atol=1e-5)
    gm, gn = triton.cdiv(M, 16), triton.cdiv(N, 16)
    assert c.load_bytes == 4 * (M * K_ * gn + K_ * N * gm) and c.store_bytes == 4 * M * N


@pytest.mark.parametrize("vectorize", MODES)
def test_tensor_descriptors(vectorize):
    X = np.random.default_rng(8).standard_normal((37, 52)).astype(np.float32)
    X0, Y = X.copy(), np.zeros_like(X)
    c = K.descriptor_scale_kernel[(3, 4)](X, Y, 37, 52, BM=16, BN=16, vectorize=vectorize)
    np.testing.assert_array_equal(Y, 3 * X0 + 1)
    np.testing.assert_array_equal(X, X0 - 1)
    assert c.load_bytes == 2 * 4 * 37 * 52 and c.store_bytes == 2 * 4 * 37 * 52

    @triton.jit
    def bad(x_ptr, N):
        tl.make_tensor_descriptor(x_ptr, [4, N], [N, 1], [4, 4])

    with pytest.raises(ValueError, match="not a multiple of 16"):
        bad[(1,)](np.zeros((4, 5), np.float32), 5)


def test_load_store_options_checked():
    @triton.jit
    def k(x_ptr, CM: tl.constexpr, EP: tl.constexpr):
        v = tl.load(x_ptr + tl.arange(0, 4), cache_modifier=CM, eviction_policy=EP)
        tl.store(x_ptr + tl.arange(0, 4), v + 1, cache_modifier=".cs", eviction_policy="evict_first")

    x = np.zeros(4, np.float32)
    k[(1,)](x, CM=".cg", EP="evict_last")
    assert x.tolist() == [1.0] * 4
    with pytest.raises(ValueError, match="cache_modifier must be one of"):
        k[(1,)](x, CM=".xx", EP="")


# --- debugging and what is not supported ------------------------------------------------------------
def test_device_assert_print_and_unsupported(capsys):
    @triton.jit
    def k(x_ptr, N: tl.constexpr):
        x = tl.load(x_ptr + tl.arange(0, N))
        tl.static_print("N is", N)
        tl.device_print("x=", x)
        tl.device_assert(x < 3, "x must stay below 3")

    k[(1,)](np.arange(2, dtype=np.int32), N=2)
    out = capsys.readouterr().out
    assert "N is 2" in out and "pid (0, 0, 0) idx (1) x=1" in out
    with pytest.raises(AssertionError, match="program \\(1,0,0\\), lane 0: device_assert failed: x must stay"):
        _two_programs()
    for call in (lambda: tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [1], tl.int32, True, 1),
                 lambda: tl.extra.cuda.libdevice.j0(1.0), lambda: _libdevice().cyl_bessel_i1(1.0)):
        with pytest.raises(NotImplementedError, match="not supported by kernellab"):
            call()
    # scheduling hints of Triton's compiler: the same loop (issue 21: tutorials 06 and 09 pass them)
    assert list(tl.range(0, 8, 2, num_stages=3, warp_specialize=True, flatten=True)) == [0, 2, 4, 6]


def _libdevice():
    from kernellab.triton.language.extra.cuda import libdevice  # the import a tutorial writes, prefixed

    return libdevice


def _two_programs():
    @triton.jit
    def k(x_ptr):
        x = tl.load(x_ptr + tl.program_id(0) * 2 + tl.arange(0, 2))
        tl.device_assert(x < 3, "x must stay below 3")

    k[(2,)](np.array([0, 1, 5, 1], np.int32))


def test_map_elementwise_branches_per_element():
    @triton.jit
    def selu(x, alpha):
        if x > 0:
            return x
        else:
            return alpha * (tl.exp(x) - 1)

    @triton.jit
    def k(x_ptr, out_ptr):
        offs = tl.arange(0, 8)
        tl.store(out_ptr + offs, tl.map_elementwise(selu, tl.load(x_ptr + offs), 1.5))

    x = np.linspace(-2, 2, 8).astype(np.float32)
    out = np.zeros(8, np.float32)
    k[(1,)](x, out)
    np.testing.assert_allclose(out, np.where(x > 0, x, 1.5 * (np.exp(x.astype(np.float64)) - 1)), rtol=1e-6)


# --- triton: autotune, heuristics, do_bench ------------------------------------------------------------
def test_autotune_ranks_by_sectors_and_caches_per_key():
    @triton.autotune(configs=[triton.Config({"B": 16}), triton.Config({"B": 64}, num_warps=2)], key=["n"])
    @triton.jit
    def scale(x_ptr, out_ptr, n, B: tl.constexpr):
        offs = tl.program_id(0) * B + tl.arange(0, B)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)

    x = np.arange(100, dtype=np.float32)
    out = np.zeros_like(x)
    scale[lambda meta: (triton.cdiv(100, meta["B"]),)](x, out, 100)
    np.testing.assert_array_equal(out, 2 * x)
    # both move ⌈400/32⌉ = 13 sectors each way; 2 programs of 64 beat 7 of 16
    assert scale.best_config.kwargs == {"B": 64} and scale.trials[scale.configs[0]].programs == 7
    out2 = np.zeros_like(x)
    scale[lambda meta: (triton.cdiv(100, meta["B"]),)](x, out2, 100)
    assert len(scale.cache) == 1 and (out2 == out).all()


def test_do_bench_signature():
    import inspect

    params = list(inspect.signature(triton.testing.do_bench).parameters)
    assert params == ["fn", "warmup", "rep", "grad_to_none", "quantiles", "return_mode"]
    assert len(triton.testing.do_bench(lambda: None, warmup=0, rep=1, return_mode="all")) >= 1


@pytest.mark.parametrize("vectorize", MODES)
@pytest.mark.parametrize("n", [16, 50, 64])
def test_attention_on_host_tensor_descriptors(n, vectorize):
    from kernellab.triton.tools.tensor_descriptor import TensorDescriptor

    rng = np.random.default_rng(n)
    q, k, v = rng.standard_normal((3, n, 16)).astype(np.float32)
    o = np.zeros_like(q)
    descs = [TensorDescriptor.from_tensor(a, [16, 16]) for a in (q, k, v, o)]
    c = K.attention_descriptor_kernel[(triton.cdiv(n, 16),)](*descs, n, 0.25, HEAD_DIM=16, BLOCK_M=16, BLOCK_N=16,
                                                              vectorize=vectorize)
    s = q.astype(np.float64) @ k.T * 0.25
    p = np.exp(s - s.max(1, keepdims=True))
    np.testing.assert_allclose(o, (p / p.sum(1, keepdims=True)) @ v, rtol=1e-5, atol=1e-5)
    blocks = triton.cdiv(n, 16)
    # each program reads its q tile once and every k and v tile once; tiles are clipped at row n
    assert c.load_bytes == 4 * 16 * (n + 2 * n * blocks) and c.store_bytes == 4 * 16 * n


@pytest.mark.filterwarnings("ignore::kernellab.errors.BlockPointerWarning")  # block pointers: Triton 3.9 removed them
@pytest.mark.parametrize("vectorize", MODES)
@pytest.mark.parametrize(("rows", "d"), [(1, 1), (16, 64), (100, 37)])
def test_cs336_weighted_sum_forward_and_backward(rows, d, vectorize):
    rng = np.random.default_rng(rows + d)
    x = rng.standard_normal((rows, d)).astype(np.float32)
    w = rng.standard_normal(d).astype(np.float32)
    out = np.zeros(rows, np.float32)
    RT, DT = 16, 16
    tiles = triton.cdiv(rows, RT)
    K.weighted_sum_fwd[(tiles,)](x, w, out, d, 1, 1, 1, rows, d, ROWS_TILE_SIZE=RT, D_TILE_SIZE=DT,
                                 vectorize=vectorize)
    np.testing.assert_allclose(out, x.astype(np.float64) @ w, rtol=1e-5, atol=1e-5)
    g = rng.standard_normal(rows).astype(np.float32)
    gx, gw = np.zeros_like(x), np.zeros((tiles, d), np.float32)
    c = K.weighted_sum_backward[(tiles,)](x, w, g, gx, gw, d, 1, 1, 1, d, 1, d, 1, rows, d, ROWS_TILE_SIZE=RT,
                                          D_TILE_SIZE=DT, vectorize=vectorize)
    np.testing.assert_allclose(gx, np.outer(g, w), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(gw.sum(0), x.astype(np.float64).T @ g, rtol=1e-5, atol=1e-5)
    # stores: grad_x (rows·d floats) and one partial row of d floats per tile, boundary-checked exactly
    assert c.store_bytes == 4 * (rows * d + tiles * d)


@pytest.mark.filterwarnings("ignore::kernellab.errors.BlockPointerWarning")  # block pointers: Triton 3.9 removed them
def test_type_queries_students_write():
    @triton.jit
    def k(x_ptr, out_ptr, N: tl.constexpr):
        bp = tl.make_block_ptr(x_ptr, (N,), (1,), (0,), (N,), (0,))
        x = tl.load(bp).to(tl.float32)
        y = (x * 2).to(bp.type.element_ty)  # the cast of A2's FlashAttention: back to the pointer's type
        tl.static_assert(y.dtype.is_fp16() and x.type.scalar.is_fp32() and out_ptr.dtype.element_ty == tl.float16)
        tl.store(out_ptr + tl.arange(0, N), y)

    x = np.arange(8, dtype=np.float16)
    out = np.zeros_like(x)
    k[(1,)](x, out, N=8)
    assert (out == 2 * x).all()


def test_broadcast_squeeze_unsqueeze_and_bitonic_merge():
    @triton.jit
    def k(x_ptr, out_ptr):
        a = tl.load(x_ptr + tl.arange(0, 4))                        # [4]
        col, row = tl.broadcast(a[:, None], a[None, :])             # both [4, 4]
        tl.store(out_ptr + tl.arange(0, 4)[:, None] * 4 + tl.arange(0, 4)[None, :], col * 10 + row)
        u = tl.unsqueeze(a, 0)                                      # [1, 4]
        tl.store(out_ptr + 16 + tl.arange(0, 4), tl.squeeze(u, 0) + tl.squeeze(tl.unsqueeze(a, -1), 1))
        tl.store(out_ptr + 20 + tl.arange(0, 4), tl.bitonic_merge(a, descending=1))

    x = np.array([3, 1, 4, 2], np.int32)
    out = np.zeros(24, np.int32)
    k[(1,)](x, out)
    assert out[:16].reshape(4, 4).tolist() == (x[:, None] * 10 + x[None, :]).tolist()
    assert out[16:20].tolist() == (2 * x).tolist() and out[20:].tolist() == [4, 3, 2, 1]


@pytest.mark.parametrize(("body", "error", "message"), [
    ("tl.cat(a, a.to(tl.float32), can_reorder=True)", TypeError, "tl.cat needs two blocks of one type"),
    ("tl.cat(a, a[:, None], can_reorder=True)", ValueError, "tl.cat needs blocks that differ only along dim 0"),
    ("tl.split(tl.join(a, a).reshape(8))", ValueError, "last dimension is 2, got shape \\[8\\]"),
    ("tl.squeeze(a, 0)", ValueError, "tl.squeeze: dimension 0 of shape \\[4\\] is not 1"),
    ("tl.gather(a, a.to(tl.float32), 0)", ValueError, "tl.gather needs an integer index block"),
    ("tl.histogram(a[:, None], 4)", ValueError, "tl.histogram needs a 1-D integer block"),
    ("tl.sort(tl.join(a, a), dim=0)", ValueError, "sort only along the last dimension"),
    ("tl.topk(a, 3)", ValueError, "tl.topk needs k a power of two at most 4, got 3"),
])
def test_shape_operations_refuse_what_triton_refuses(body, error, message):
    scope = {"tl": tl}
    exec(f"def k(x_ptr):\n    a = tl.load(x_ptr + tl.arange(0, 4))\n    {body}\n", scope)
    kernel = triton.jit(scope["k"])
    with pytest.raises(error, match=message):
        kernel[(1,)](np.zeros(4, np.int32))


def test_philox_4x64_known_answer_and_64_bit_counters_in_a_kernel():
    # Random123's known-answer vector for Philox-4x64-10 at counter 0, key 0
    zero = [np.zeros(1, np.uint64)] * 4
    kat = [0x16554D9ECA36314C, 0xDB20FE9D672D0FDC, 0xD7E772CEE186176B, 0x7E68B68AEC7BA23B]
    assert [int(v[0]) for v in philox_np(*zero, 0, 0)] == kat

    @triton.jit
    def k(out_ptr, seed):
        z = tl.zeros((4,), tl.uint64)
        a, b, c, d = tl.philox(seed, z, z, z, z)  # a 64-bit seed keys (seed, 0)
        e, f, g, h = tl.philox_impl(z, z, z, z, seed, seed)
        offs = tl.arange(0, 4)
        tl.store(out_ptr + offs, a)
        tl.store(out_ptr + 4 + offs, d)
        tl.store(out_ptr + 8 + offs, e)

    out = np.zeros(12, np.uint64)
    k[(1,)](out, 0)
    assert out[:4].tolist() == [kat[0]] * 4 and out[4:8].tolist() == [kat[3]] * 4 and out[8:].tolist() == [kat[0]] * 4


def test_random_numbers_of_64_bit_offsets_and_their_floats():
    @triton.jit
    def k(i_ptr, f_ptr, n_ptr, seed):
        offs = tl.arange(0, 64).to(tl.int64) + (1 << 32)  # offsets past 2^32: Triton counts (low, high) words
        tl.store(i_ptr + tl.arange(0, 64), tl.randint(seed, offs))
        tl.store(f_ptr + tl.arange(0, 64), tl.uint_to_uniform_float(offs * -3))
        n1, n2, n3, n4 = tl.randn4x(seed, tl.arange(0, 64))
        tl.store(n_ptr + tl.arange(0, 64), n1 + n2 + n3 + n4)

    i, f, n = np.zeros(64, np.uint32), np.zeros(64, np.float32), np.zeros(64, np.float32)
    k[(1,)](i, f, n, 5)
    z = np.zeros(64, np.uint32)
    want = philox_np(np.arange(64, dtype=np.uint32), np.ones(64, np.uint32), z, z, 5, 0)[0]
    assert i.tolist() == want.tolist()
    x = (np.arange(64, dtype=np.int64) + (1 << 32)) * -3  # negative: ~x, then × 2^-63 (Triton's 64-bit scale)
    assert f.tolist() == ((~x).astype(np.float32) * np.float32(1.0842020432385337e-19)).tolist()
    assert np.isfinite(n).all() and 0 < n.std() < 4  # four standard normals a lane: variance 4


@pytest.mark.parametrize(("seed", "offsets", "error", "message"), [
    ("1.5", "tl.arange(0, 4)", TypeError, "the seed of tl.rand\\* must be an integer, got fp32"),
    ("tl.arange(0, 4)", "tl.arange(0, 4)", ValueError, "the seed of tl.rand\\* must be a scalar"),
    ("1", "tl.arange(0, 4).to(tl.float32)", TypeError, "the offsets of tl.rand\\* must be integers, got fp32"),
])
def test_random_numbers_refuse_a_seed_or_offsets_of_the_wrong_kind(seed, offsets, error, message):
    scope = {"tl": tl}
    exec(f"def k(out_ptr):\n    tl.store(out_ptr + tl.arange(0, 4), tl.rand({seed}, {offsets}))\n", scope)
    with pytest.raises(error, match=message):
        triton.jit(scope["k"])[(1,)](np.zeros(4, np.float32))


# --- block pointers and tensor descriptors: what they refuse, and their less common forms --------------------
@pytest.mark.parametrize(("body", "error", "message"), [
    ("tl.make_block_ptr(x_ptr + tl.arange(0, 4), (8,), (1,), (0,), (4,), (0,))", TypeError,
     "make_block_ptr needs a scalar pointer"),
    ("tl.make_block_ptr(x_ptr, (8, 8), (8,), (0, 0), (4, 4), (1, 0))", ValueError, "make_block_ptr: shape, strides, offsets and block_shape must have"),
    ("tl.make_block_ptr(x_ptr, (8,), (1,), (0,), (3,), (0,))", ValueError, "block_shape \\[3\\] must be powers of two"),
    ("tl.make_block_ptr(x_ptr, (8,), (1,), (tl.arange(0, 2),), (4,), (0,))", ValueError, "must be scalars"),
    ("tl.load(tl.make_block_ptr(x_ptr, (8,), (1,), (0,), (4,), (0,)), boundary_check=(1,))", ValueError,
     "boundary_check dimension 1 out of range"),
    ("tl.load(tl.make_block_ptr(x_ptr, (8,), (1,), (0,), (4,), (0,)), boundary_check=(0,), padding_option='one')",
     ValueError, "padding_option must be 'zero' or 'nan', not 'one'"),
    ("tl.load(tl.make_block_ptr(i_ptr, (8,), (1,), (0,), (4,), (0,)), boundary_check=(0,), padding_option='nan')",
     ValueError, "padding_option='nan' needs a floating-point tensor"),
    ("tl.make_tensor_descriptor(x_ptr + tl.arange(0, 4), [8], [1], [4])", TypeError,
     "make_tensor_descriptor needs a scalar pointer"),
    ("tl.make_tensor_descriptor(x_ptr, [8, 8], [8, 1], [4])", ValueError, "must have the same length"),
    ("tl.make_tensor_descriptor(x_ptr, [8, 8], [1, 8], [4, 4])", ValueError, "the last stride must be 1"),
    ("tl.make_tensor_descriptor(x_ptr, [8], [1], [4], padding_option='one')", ValueError,
     "padding_option must be 'zero' or 'nan'"),
    ("tl.make_tensor_descriptor(x_ptr + 1, [8], [1], [4])", ValueError, "the base must be 16-byte aligned"),
    ("tl.make_tensor_descriptor(x_ptr, [4, 4], [2, 1], [4, 4])", ValueError, "stride 0 is 2 elements = 8 bytes"),
    ("tl.make_tensor_descriptor(x_ptr, [8], [1], [4]).load([1])", ValueError,
     "the last offset of a descriptor tile must be 16-byte aligned, got 1 elements of 4 bytes"),
    ("tl.make_tensor_descriptor(x_ptr, [8], [1], [4]).load([0, 0])", ValueError,
     "a rank-1 descriptor needs 1 offsets, got 2"),
])
def test_block_pointers_and_descriptors_refuse_what_triton_refuses(body, error, message):
    scope = {"tl": tl}
    exec(f"def k(x_ptr, i_ptr):\n    {body}\n", scope)
    with pytest.raises(error, match=message):
        triton.jit(scope["k"])[(1,)](np.zeros(64, np.float32), np.zeros(64, np.int32))


def test_a_descriptor_tile_misaligned_in_a_later_program_is_refused_there():
    @triton.jit
    def k(x_ptr):
        tl.make_tensor_descriptor(x_ptr, [64], [1], [4]).load([tl.program_id(0) * 5])

    # program 0 starts at element 0 (byte 0: aligned), program 1 at element 5: 5 × 4 B = 20 B, not a multiple of 16
    with pytest.raises(ValueError, match="16-byte aligned, got 5 elements of 4 bytes"):
        k[(2,)](np.zeros(64, np.float32))


@pytest.mark.filterwarnings("ignore::kernellab.errors.BlockPointerWarning")  # block pointers: Triton 3.9 removed them
def test_a_block_pointer_moved_by_its_method_a_nan_padding_and_a_descriptor_s_atomic_add():
    @triton.jit
    def k(x_ptr, out_ptr, acc_ptr):
        p = tl.make_block_ptr(x_ptr, (6,), (1,), (0,), (4,), (0,)).advance((4,))  # elements 4, 5, then outside
        tl.store(out_ptr + tl.arange(0, 4), tl.load(p, boundary_check=(0,), padding_option="nan"))
        d = tl.make_tensor_descriptor(acc_ptr, [2, 4], [4, 1], [2, 4])
        d.atomic_add([0, 0], tl.full((2, 4), 1.5, tl.float32))
        tl.store(out_ptr + 4 + tl.arange(0, 2), tl.full((2,), d.shape[1] * 10 + d.strides[0], tl.float32))

    out, acc = np.zeros(6, np.float32), np.ones(8, np.float32)
    k[(1,)](np.arange(6, dtype=np.float32), out, acc)
    assert out[:2].tolist() == [4.0, 5.0] and np.isnan(out[2:4]).all()  # padding_option='nan' past the shape
    assert out[4:].tolist() == [44.0, 44.0] and (acc == 2.5).all()  # shape [2, 4], strides [4, 1]


@triton.jit
def _masked_copy(x_ptr, y_ptr, n, W: tl.constexpr, ROW: tl.constexpr, BY_N: tl.constexpr):
    lane = tl.arange(0, 8)
    offs = tl.program_id(0) * ROW + lane
    if BY_N:
        v = tl.load(x_ptr + offs, mask=offs < n)  # no `other`
    else:
        v = tl.load(x_ptr + offs, mask=lane < W)
    tl.store(y_ptr + offs, v)


@pytest.mark.parametrize(("programs", "n", "w", "row"), [
    (2, 13, 8, 8),     # one run of 13 elements, then 3 masked off: a prefix of the last row
    (4, 64, 5, 8),     # each of 4 rows keeps its first 5 of 8 lanes, rows 8 apart: a strided view
    (4, 64, 5, 10),    # the same, rows 10 apart
])
def test_lanes_a_load_masks_off_without_other_read_zero(programs, n, w, row):
    # every lane stored unmasked: the masked-off ones store what they read, 0 (as Triton's interpreter gives)
    x = np.arange(1, 65, dtype=np.float32)
    y = np.full(64, -1.0, np.float32)
    _masked_copy[(programs,)](x, y, n, W=w, ROW=row, BY_N=n < 64)
    lane = np.tile(np.arange(8), programs)
    offs = np.repeat(np.arange(programs) * row, 8) + lane
    np.testing.assert_array_equal(y[offs], np.where((offs < n) & (lane < w), x[offs], 0.0))
    assert (y[offs] == 0).sum() == programs * 8 - min(n, programs * 8) if n < 64 else programs * (8 - w)

@triton.jit
def _two_places(x_ptr, out_ptr, SHIFT: tl.constexpr):
    ptrs = x_ptr + tl.arange(0, 32) * 5 % 32  # floats 0, 5, 10, …: a permutation of 0–31, no run of lanes
    acc = tl.zeros((32,), tl.float32)
    for k in range(2):                     # 32 floats from byte 0 (4 sectors, 1 line), then moved by SHIFT floats
        acc += tl.load(ptrs + k * SHIFT)
    tl.store(out_ptr + tl.arange(0, 32), acc)


def test_an_access_moved_by_a_whole_number_of_lines_only_counts_alike():
    # the counts of an unmasked block are kept by where it starts within a 128-byte line. Moved by 129 floats = 516 B
    # (4 B past line 4): bytes 516–643, sectors 16–20 (5) and lines 4–5 (2); moved by 128 floats = 512 B, exactly 4
    # lines: 4 sectors and 1 line, as at byte 0. Loads: 4 + 5 and 1 + 2, then 4 + 4 and 1 + 1
    x, out = np.arange(256, dtype=np.float32), np.zeros(32, np.float32)
    c = _two_places[(1,)](x, out, SHIFT=129, num_warps=1)  # one warp: each load one request
    p = np.arange(32) * 5 % 32
    assert (c.load_sectors, c.load_lines) == (9, 3) and (out == x[p] + x[p + 129]).all()
    c = _two_places[(1,)](x, out, SHIFT=128, num_warps=1)
    assert (c.load_sectors, c.load_lines) == (8, 2)

@triton.jit
def _spaced_tiles(x_ptr, y_ptr, GAP: tl.constexpr):
    r, c = tl.arange(0, 2), tl.arange(0, 4)
    offs = tl.program_id(0) * GAP + r[:, None] * 4 + c[None, :]  # a 2×4 tile of 8 consecutive floats a program
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) * 2.0 + 1.0)


def test_a_computed_2d_tile_stored_to_rows_spaced_apart():
    # 4 programs, each 8 consecutive floats, GAP floats apart: 12 and 20 (4 and 12 left between tiles), 8 (one run);
    # the floats between the tiles keep their value; each tile computed straight into its place
    for gap in (12, 8, 20):
        x, y = np.arange(80, dtype=np.float32), np.full(80, -1.0, np.float32)
        _spaced_tiles[(4,)](x, y, GAP=gap)
        offs = (np.arange(4)[:, None] * gap + np.arange(8)).ravel()
        expect = np.full(80, -1.0, np.float32)
        expect[offs] = x[offs] * 2 + 1
        np.testing.assert_array_equal(y, expect)



@triton.jit
def _tile_3d(x_ptr, out_ptr):
    # a 1×8×4 tile whose middle axis steps by one element and last by 8: element (0, i, j) is x[i + 8j]
    src = tl.make_block_ptr(x_ptr, shape=(1, 8, 4), strides=(32, 1, 8), offsets=(0, 0, 0), block_shape=(1, 8, 4),
                            order=(1, 2, 0))
    i, j = tl.arange(0, 8), tl.arange(0, 4)
    tl.store(out_ptr + (i[:, None] * 4 + j[None, :])[None, :, :], tl.load(src))


def test_a_3d_block_pointer_whose_unit_stride_is_not_its_last_axis():
    x, out = np.arange(32, dtype=np.float32), np.zeros(32, np.float32)
    _tile_3d[(1,)](x, out)
    i, j = np.meshgrid(np.arange(8), np.arange(4), indexing="ij")
    np.testing.assert_array_equal(out.reshape(8, 4), x[i + 8 * j])
