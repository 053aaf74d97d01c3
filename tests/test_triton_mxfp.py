"""Microscaling: ``triton.tools.mxfp`` (MXFP4Tensor, MXScaleTensor) and ``tl.dot_scaled``, against values
decoded by hand (formulas written out below, independent of kernellab's tables) and a float64 product."""

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab.triton.executor import microscaling as mx
from kernellab.triton.tools.mxfp import MXFP4Tensor, MXScaleTensor, fp8e8m0_to_float32


# --- formats, decoded by hand ----------------------------------------------------------------------------
def e2m1(code) -> float:
    """s eem: subnormal m·0.5 when e = 0, else (1 + m/2)·2^(e − 1)."""
    code = int(code)
    s, e, m = code >> 3 & 1, code >> 1 & 3, code & 1
    return (-1) ** s * (m * 0.5 if e == 0 else (1 + m / 2) * 2.0 ** (e - 1))


def e4m3(code) -> float:
    """s eeee mmm, bias 7 (e4m3fn: no inf; 0x7f and 0xff are NaN)."""
    code = int(code)
    s, e, m = code >> 7 & 1, code >> 3 & 15, code & 7
    return (-1) ** s * (m / 8 * 2.0**-6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7))


def e5m2(code) -> float:
    """s eeeee mm, bias 15."""
    code = int(code)
    s, e, m = code >> 7 & 1, code >> 2 & 31, code & 3
    return (-1) ** s * (m / 4 * 2.0**-14 if e == 0 else (1 + m / 4) * 2.0 ** (e - 15))


def test_e2m1_and_e8m0_codes_by_hand():
    # the 16 e2m1 codes: 0b0111 = (1 + 1/2)·2^2 = 6.0, 0b0001 = 0.5 (subnormal), 0b1010 = -1.0
    assert mx.e2m1_decode(np.arange(16)).tolist() == [e2m1(c) for c in range(16)]
    assert [e2m1(c) for c in (0b0111, 0b0001, 0b0010, 0b0101, 0b1010)] == [6.0, 0.5, 1.0, 3.0, -1.0]
    # e8m0 127 = 2^0 = 1.0, 128 = 2.0, 126 = 0.5, 0 = 2^-127, 254 = 2^127, 255 = NaN
    got = mx.e8m0_decode(np.uint8([127, 128, 126, 0, 254, 255]))
    assert got[:5].tolist() == [1.0, 2.0, 0.5, 2.0**-127, 2.0**127] and np.isnan(got[5])
    assert fp8e8m0_to_float32(np.uint8([127, 130])).tolist() == [1.0, 8.0]


def test_mxfp4_from_floats_rounds_to_nearest_even_and_clamps():
    vals = np.float32([0, -0.0, 0.24, 0.25, 0.26, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, 5.1, 6.0, 100, -100, np.inf, np.nan, -7])
    # ties: 0.25 → 0 (even), 0.75 → 1.0, 1.25 → 1.0, 1.75 → 2.0, 2.5 → 2, 3.5 → 4, 5 → 4; beyond 6 → 6
    want = [0, -0.0, 0, 0, 0.5, 1.0, 1.0, 2.0, 2.0, 4.0, 4.0, 6.0, 6.0, 6.0, -6.0, 6.0, 6.0, -6.0]
    t = MXFP4Tensor(vals)
    assert t.data.dtype == np.uint8 and t.to(np.float32)[:16].tolist() == want[:16]
    assert abs(t.to(np.float32)[16]) == 6.0 and t.to(np.float32)[17] == -6.0  # NaN keeps its sign bit
    assert int(t.data[1]) == 0b1000  # -0 keeps its sign
    x = np.random.default_rng(0).uniform(-7, 7, 2000).astype(np.float32)
    dec = MXFP4Tensor(x).to(np.float32).astype(np.float64)
    grid = np.array([e2m1(c) for c in range(16)])
    nearest = np.abs(x.astype(np.float64)[:, None] - grid[None, :]).min(axis=1)
    assert np.allclose(np.abs(dec - x), nearest)  # always a nearest code


def test_packing_along_either_dimension_and_odd_lengths():
    codes = np.random.default_rng(1).integers(0, 16, (5, 7)).astype(np.uint8)
    t = MXFP4Tensor(size=(5, 7))
    t.data = codes
    for dim in (0, 1):
        packed = t.to_packed_tensor(dim)
        assert packed.shape[dim] == (codes.shape[dim] + 1) // 2
        np.testing.assert_array_equal(t.unpack_packed_tensor(packed, dim, codes.shape), codes)
    p = t.to_packed_tensor(1)
    assert int(p[0, 0]) == int(codes[0, 0]) | int(codes[0, 1]) << 4  # first element in the low nibble
    assert int(p[0, 3]) == int(codes[0, 6])  # 7 is odd: the last byte's high nibble is padding
    with pytest.raises(ValueError, match="not within the range"):
        t.to_packed_tensor(2)


def test_scales_from_floats_and_random_ranges():
    s = MXScaleTensor(np.array([1.0, 0.75, 3.0, 2.0**-130, 2.0**200, 0.0, -1.0, np.nan, 1 - 2.0**-24]))
    # floor(log2 v) + 127: 0.75 → -1 → 126; 3 → 1 → 128; clamped to 0 and 254; invalid → 255;
    # just below 1 → floor(log2) = -1 → 126 (exactly)
    assert s.data.tolist() == [127, 126, 128, 0, 254, 255, 255, 255, 126]
    r = MXScaleTensor(size=(4000,)).random(low=0.25, high=8.0, rng=3)
    assert r.data.min() == 125 and r.data.max() == 130  # int(log2 0.25) + 127 = 125, int(log2 8) + 127 = 130
    assert 254 >= MXScaleTensor(size=(500,)).random(rng=4).data.max()  # 255 (NaN) is never drawn
    codes = MXFP4Tensor(size=(2000,)).random(rng=5).data
    assert set(np.unique(codes).tolist()) == set(range(16))
    with pytest.raises(ValueError, match="Either parameter data or size"):
        MXFP4Tensor()
    with pytest.raises(ValueError, match="only float32"):
        MXScaleTensor(np.float32([1.0])).to(np.float16)


def test_torch_tensors_in_torch_tensors_out():
    torch = pytest.importorskip("torch", reason="the torch mode of triton.tools.mxfp needs torch")
    x = torch.tensor([1.0, 6.0, -2.5, 0.3])
    t = MXFP4Tensor(x)
    assert isinstance(t.data, torch.Tensor) and t.data.tolist() == MXFP4Tensor(x.numpy()).data.tolist()
    assert t.to(torch.float32).tolist() == [1.0, 6.0, -2.0, 0.5]
    assert isinstance(t.to_packed_tensor(0), torch.Tensor)
    s = MXScaleTensor(torch.tensor([4.0, 0.5]))
    assert s.data.dtype == torch.uint8 and s.to(torch.float32).tolist() == [4.0, 0.5]
    torch.manual_seed(0)
    a = MXFP4Tensor(size=(8, 8), device="cpu").random().data
    torch.manual_seed(0)
    assert torch.equal(a, MXFP4Tensor(size=(8, 8), device="cpu").random().data)  # torch's seed applies


# --- tl.dot_scaled --------------------------------------------------------------------------------------
@triton.jit
def scaled_kernel(a_ptr, sa_ptr, b_ptr, sb_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, KA: tl.constexpr,
                  KB: tl.constexpr, S: tl.constexpr, FA: tl.constexpr, FB: tl.constexpr, NV: tl.constexpr):
    rm, rn, rs = tl.arange(0, M), tl.arange(0, N), tl.arange(0, S)
    a = tl.load(a_ptr + rm[:, None] * KA + tl.arange(0, KA)[None, :])
    b = tl.load(b_ptr + rn[:, None] * KB + tl.arange(0, KB)[None, :])  # B stored [N, K], as the tutorial's
    sa = tl.load(sa_ptr + rm[:, None] * S + rs[None, :])
    sb = tl.load(sb_ptr + rn[:, None] * S + rs[None, :])
    if NV:  # NVFP4: e4m3 scale values
        sa = sa.to(tl.float8e4nv, bitcast=True)
        sb = sb.to(tl.float8e4nv, bitcast=True)
    c = tl.dot_scaled(a, sa, FA, b.T, sb, FB)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


DECODE = {"e2m1": e2m1, "e4m3": e4m3, "e5m2": e5m2}


def _operand(fmt, rows, k, rng):
    """(bytes stored [rows, K or K/2], float64 values [rows, K]) of random finite codes."""
    if fmt == "e2m1":
        codes = rng.integers(0, 16, (rows, k)).astype(np.uint8)
        return mx.pack_fp4(codes, 1), np.vectorize(e2m1)(codes)
    codes = rng.integers(0, 256, (rows, k)).astype(np.uint8)
    exp_bits = (codes >> 3 & 15) if fmt == "e4m3" else (codes >> 2 & 31)
    codes = np.where(exp_bits == (15 if fmt == "e4m3" else 31), codes & 0x87, codes).astype(np.uint8)  # no NaN/inf
    return codes, np.vectorize(DECODE[fmt])(codes)


@pytest.mark.parametrize("fa, fb", [("e2m1", "e2m1"), ("e4m3", "e4m3"), ("e4m3", "e2m1"), ("e5m2", "e5m2"),
                                    ("e2m1", "e5m2")])
@pytest.mark.parametrize("group", [32, 16])
def test_dot_scaled_against_dequantised_float64(fa, fb, group):
    rng = np.random.default_rng(hash((fa, fb, group)) % 2**32)
    M, N, K = 16, 32, 64
    a, da = _operand(fa, M, K, rng)
    b, db = _operand(fb, N, K, rng)
    if group == 32:  # MXFP: e8m0 scales 2^-4 … 2^4
        sa, sb = (rng.integers(123, 132, (r, K // 32)).astype(np.uint8) for r in (M, N))
        va, vb = 2.0 ** (sa.astype(np.float64) - 127), 2.0 ** (sb.astype(np.float64) - 127)
    else:  # NVFP4's e4m3 scales, one per 16 elements
        sa, sb = (rng.integers(0x20, 0x50, (r, K // 16)).astype(np.uint8) for r in (M, N))
        va, vb = np.vectorize(e4m3)(sa), np.vectorize(e4m3)(sb)
    ref = (da * np.repeat(va, group, axis=1)) @ (db * np.repeat(vb, group, axis=1)).T
    c = np.zeros((M, N), np.float32)
    cnt = scaled_kernel[(1,)](a, sa, b, sb, c, M=M, N=N, KA=a.shape[1], KB=b.shape[1], S=K // group, FA=fa, FB=fb,
                              NV=group == 16)
    # exact products summed in fp32: at most K·2^-24 of the sum of |terms|
    bound = K * 2.0**-24 * (np.abs(da * np.repeat(va, group, axis=1)) @ np.abs(db * np.repeat(vb, group, axis=1)).T)
    assert np.all(np.abs(c - ref) <= bound + 1e-30)
    assert cnt.flops == 2 * M * N * K  # as tl.dot: 2·16·32·64 = 65536


@triton.jit
def general_kernel(a_ptr, s_ptr, b_ptr, c_ptr, A0: tl.constexpr, A1: tl.constexpr, B0: tl.constexpr, B1: tl.constexpr,
                   M: tl.constexpr, N: tl.constexpr, FA: tl.constexpr, FB: tl.constexpr, LK: tl.constexpr,
                   RK: tl.constexpr, HAS_S: tl.constexpr, HAS_ACC: tl.constexpr):
    a = tl.load(a_ptr + tl.arange(0, A0)[:, None] * A1 + tl.arange(0, A1)[None, :])
    b = tl.load(b_ptr + tl.arange(0, B0)[:, None] * B1 + tl.arange(0, B1)[None, :])
    s = tl.load(s_ptr + tl.arange(0, M)[:, None] + tl.arange(0, 1)[None, :]) if HAS_S else None
    acc = tl.full((M, N), 1.0, tl.float32) if HAS_ACC else None
    c = tl.dot_scaled(a, s, FA, b, None, FB, acc, lhs_k_pack=LK, rhs_k_pack=RK)
    tl.store(c_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], c)


def general(a, s, b, fa, fb, m, n, lk=True, rk=True, acc=False):
    c = np.zeros((m, n), np.float32)
    general_kernel[(1,)](a, s if s is not None else np.zeros(1, np.uint8), b, c, A0=a.shape[0], A1=a.shape[1],
                         B0=b.shape[0], B1=b.shape[1], M=m, N=n, FA=fa, FB=fb, LK=lk, RK=rk, HAS_S=s is not None,
                         HAS_ACC=acc)
    return c


def test_dot_scaled_packing_along_m_and_n_bf16_and_accumulator():
    M, N, K = 16, 16, 32  # tl.dot's smallest block: 16 (Triton's rule)
    rng = np.random.default_rng(9)
    ca, cb = rng.integers(0, 16, (M, K)).astype(np.uint8), rng.integers(0, 16, (K, N)).astype(np.uint8)
    a_m, b_n = mx.pack_fp4(ca, 0), mx.pack_fp4(cb, 1)  # lhs packed along M [8, 32], rhs along N [32, 8]
    s = np.full(M, 128, np.uint8)  # e8m0 128 = 2.0 for every row of the lhs
    out = general(a_m, s, b_n, "e2m1", "e2m1", M, N, lk=False, rk=False, acc=True)
    ref = 1 + 2 * np.vectorize(e2m1)(ca) @ np.vectorize(e2m1)(cb)
    np.testing.assert_array_equal(out, ref)  # small sums of halves: exact in fp32
    x = rng.standard_normal((M, K)).astype(np.float32)
    y = rng.standard_normal((K, N)).astype(np.float32)
    np.testing.assert_allclose(general(x, None, y, "bf16", "fp16", M, N), x.astype(np.float64) @ y, rtol=1e-5, atol=1e-5)
    nan = np.full(M, 255, np.uint8)  # e8m0 255 is NaN
    assert np.isnan(general(a_m, nan, b_n, "e2m1", "e2m1", M, N, lk=False, rk=False)).all()
    with pytest.raises(ValueError, match=r"lhs_format 'e3m0' is not one of"):
        general(a_m, None, b_n, "e3m0", "e2m1", M, N)
    with pytest.raises(ValueError, match=r"lhs has K = 64 \(unpacked\) but rhs has 32 rows"):
        general(a_m, None, b_n, "e2m1", "e2m1", M, N, rk=False)
    with pytest.raises(TypeError, match=r"lhs in e2m1 must be uint8 bytes"):
        general(x, None, b_n, "e2m1", "e2m1", M, N, rk=False)
