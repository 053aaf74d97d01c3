"""``x.to(tl.float16)`` of a float32 block through ``numerics.fp16_values`` (issue 23) equals the plain
conversion: the float32 values a ``tl.dot`` reads and the float16 array a store writes, bit for bit, and
every count, on FlashAttention (whose ``p.to(tl.float16)`` feeds its second dot) at edge lengths."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab.triton.executor import tensor as tensor_module
from kernellab.triton.executor.numerics import _widen, fp16_values
from tests.reference import attention_float64


def reference(x):
    return x.astype(np.float16).astype(np.float32).view(np.uint32)


@pytest.mark.parametrize("seed", range(4))
def test_fp16_values_equal_astype_on_every_exponent(seed):
    rng = np.random.default_rng(seed)
    n = 1 << 18
    exp = rng.integers(0, 143, n).astype(np.uint32)  # float32 exponents from 0 (subnormal) to 2^15
    man = rng.integers(0, 1 << 23, n).astype(np.uint32)
    man[::3] = (man[::3] & ~np.uint32(0x1FFF)) | 0x1000  # exactly halfway between fp16 neighbours (normal range)
    man[1::5] = (man[1::5] & ~np.uint32(0xFFFFF)) | 0x80000  # halfway for subnormal fp16 results
    sign = rng.integers(0, 2, n).astype(np.uint32) << 31
    x = ((exp << 23) | man | sign).view(np.float32)
    x = x[np.abs(x) < 65520]
    assert np.array_equal(fp16_values(x).view(np.uint32), reference(x))


def test_fp16_values_of_unsigned_values_on_every_exponent():
    # no sign bit set (FlashAttention's p = exp2(…) ≥ 0): no copysign, and x's own bits give 2^e, so x must
    # come back unchanged. +0, 2^-25 (half the smallest subnormal: a tie, to +0), 3·2^-26 (up to 2^-24),
    # 2^-14 − 2^-30 (up to the smallest normal), halfway points of every exponent, random mantissas
    rng = np.random.default_rng(11)
    exp = rng.integers(0, 143, 1 << 16).astype(np.uint32)
    man = rng.integers(0, 1 << 23, exp.size).astype(np.uint32)
    man[::3] = (man[::3] & ~np.uint32(0x1FFF)) | 0x1000  # halfway between fp16 normal neighbours
    man[1::5] = (man[1::5] & ~np.uint32(0xFFFFF)) | 0x80000  # halfway for subnormal fp16 results
    x = ((exp << 23) | man).view(np.float32)
    x = np.concatenate([np.float32([0.0, 2**-25, 3 * 2**-26, 2**-14 - 2**-30, 65519]), x[x < 65520]])
    before = x.copy()
    got = fp16_values(x)
    assert np.array_equal(got.view(np.uint32), reference(x))
    assert np.array_equal(x.view(np.uint32), before.view(np.uint32))  # not written over
    assert got[0].view(np.uint32) == 0 and got[1].view(np.uint32) == 0  # +0, not −0


def test_fp16_values_of_normals_only_near_every_fp16_value():
    # fp16 normals only (|x| ≥ 2^-14): fp16_values rounds the bits. fp16 normals are 2^13 float32 steps apart;
    # around every one (both signs) the float32 values at the halfway points to its neighbours (±2^12 steps)
    # and next to them, next to the value itself, and 32 more at random
    rng = np.random.default_rng(7)
    steps = np.concatenate([np.arange(-4098, -4093), np.arange(-2, 3), np.arange(4094, 4099),
                            rng.integers(-4096, 4096, 32)]).astype(np.int64)
    h = np.arange(0x0400, 0x7C00, dtype=np.uint16).view(np.float16).astype(np.float32)  # every fp16 normal
    bits = np.concatenate([h, -h]).view(np.uint32).astype(np.int64)
    x = (bits[:, None] + steps).astype(np.uint32).reshape(-1).view(np.float32)
    x = x[(np.abs(x) >= 2**-14) & (np.abs(x) < 65520)]
    assert np.array_equal(fp16_values(x).view(np.uint32), reference(x))

def test_fp16_values_at_the_edges():
    # 2^-25 is half the smallest subnormal (a tie: to 0, keeping the sign); 3·2^-26 rounds up to 2^-24;
    # 65519 rounds to 65504, the largest float16; 2^-14 − 2^-30 rounds up to the smallest normal
    x = np.float32([0.0, -0.0, 2**-25, -2**-25, 3 * 2**-26, -3 * 2**-26, 2**-24, 2**-14 - 2**-30, 65504,
                    65519, -65519, 1e-30, -1e-45, 1 + 2**-11, 1 + 3 * 2**-11, 2049, 2051])
    assert np.array_equal(fp16_values(x).view(np.uint32), reference(x))
    for bad in (65520, -65520, np.inf, np.nan, 1e38):  # past float16's range, or NaN: declined
        assert fp16_values(np.float32([1, bad])) is None
    assert fp16_values(np.float16([1])) is None and fp16_values(np.zeros(0, np.float32)) is None


def flash_attention():
    path = Path(__file__).parents[1] / "benchmarks" / "speed_kernels.py"
    spec = importlib.util.spec_from_file_location("speed_kernels", path)
    ks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ks)
    return ks.attention_fwd_kernel


def both(monkeypatch, launch, *arrays):
    """The launch with fp16_values (the default) and without (the plain conversion): results and arrays."""
    out = []
    for lanes in (tensor_module._FP16_VALUES_FROM, 1 << 62):
        monkeypatch.setattr(tensor_module, "_FP16_VALUES_FROM", lanes)
        copies = [a.copy() for a in arrays]
        out.append((launch(*copies), copies))
    (fast, fa), (plain, pa) = out
    assert fast == plain
    for a, b in zip(fa, pa):
        assert a.dtype == b.dtype and np.array_equal(a.view(np.uint8), b.view(np.uint8))
    return fa


@pytest.mark.parametrize("heads,n", [(1, 1), (2, 97), (1, 200), (2, 128)])
def test_flash_attention_equal_with_and_without_fp16_values(monkeypatch, heads, n):
    kernel = flash_attention()
    rng = np.random.default_rng(n)
    q, k, v = (rng.standard_normal((heads, n, 64)).astype(np.float16) for _ in range(3))
    *_, o = both(monkeypatch, lambda q, k, v, o: kernel[(triton.cdiv(n, 64), heads)](
        q, k, v, o, n, 0.125, HEAD_DIM=64, BLOCK_M=64, BLOCK_N=64), q, k, v, np.zeros_like(q))
    assert np.abs(o - attention_float64(q, k, v, 0.125)).max() < 2e-2


@triton.jit
def half_kernel(x_ptr, w_ptr, y_ptr, z_ptr, BLOCK: tl.constexpr):
    # y = fp16(x) stored (the float16 array made), z = fp16(x) @ w (read as float32 by the dot)
    rows = tl.arange(0, BLOCK)
    offs = rows[:, None] * BLOCK + rows[None, :]
    h = tl.load(x_ptr + offs).to(tl.float16)
    tl.store(y_ptr + offs, h)
    tl.store(z_ptr + offs, tl.dot(h, tl.load(w_ptr + offs)))


@pytest.mark.parametrize("scale", [1.0, 1e-6, 7e4])  # 7e4: some lanes overflow, fp16_values declines
def test_stored_and_dotted_halves_equal_the_plain_conversion(monkeypatch, scale):
    rng = np.random.default_rng(5)
    x = (scale * rng.standard_normal((64, 64))).astype(np.float32)
    x[0, :3] = [-0.0, 2**-25, -2**-25]
    w = rng.standard_normal((64, 64)).astype(np.float16)
    _, _, y, z = both(monkeypatch, lambda *a: half_kernel[(1,)](*a, BLOCK=64), x, w, np.zeros((64, 64), np.float16),
                      np.zeros((64, 64), np.float32))
    with np.errstate(over="ignore"):  # 7e4 becomes infinity
        assert np.array_equal(y.view(np.uint16), x.astype(np.float16).view(np.uint16))


def test_widen_is_astype_bit_for_bit():
    h = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    assert np.array_equal(_widen(h).view(np.uint32), h.astype(np.float32).view(np.uint32))
    t = h.reshape(256, 256).T  # not contiguous
    assert np.array_equal(_widen(t).view(np.uint32), t.astype(np.float32).view(np.uint32))
