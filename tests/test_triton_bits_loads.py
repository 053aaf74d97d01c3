"""Loads of bfloat16 and float8 blocks (numpy holds them as raw bits): their float32 values are decoded only
when read, and a scalar ``other`` is encoded once per bit pattern. Each shortcut gives what decoding and encoding
at every load gives: the same arrays bit for bit and the same counts, under a full launch and a sampled one; and a
sampled ``tl.dot`` of such blocks decodes none of them (tutorial 03's fp8 sweep decoded two tiles a trip of every
autotuning trial only to skip the dot).
"""

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab.triton.executor import dtypes as T
from kernellab.triton.executor import sampling
from kernellab.triton.language import core

LAZY = core._decoded  # the shortcut itself (the tests put the eager reference in its place)
FORMATS = [T.bfloat16, T.float8e5, T.float8e4nv, T.float8e4b15, T.float8e4b8, T.float8e5b16]


def eager_decode(elem, bits):
    """The reference: the bits decoded at the load, as before the shortcut."""
    values = elem.decode(bits)

    def decoded():
        return values

    decoded.rows = bits.shape[0]
    return decoded


@triton.jit
def _masked_tail(x_ptr, out_ptr, n, ELEM: tl.constexpr, OTHER: tl.constexpr, BLOCK: tl.constexpr):
    # program p reads x[p·BLOCK …] below n, OTHER past it, and writes it as fp32 and back in x's own format
    x_ptr = x_ptr.to(tl.pointer_type(ELEM))  # numpy holds the raw bits (uint16, uint8)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n, other=OTHER)
    tl.store(out_ptr + offs, v.to(tl.float32))
    tl.store(x_ptr + BLOCK * 4 + offs, v)


def _bits_of(elem, values):
    return elem.encode(np.float32(values))


@pytest.mark.parametrize("elem", FORMATS, ids=lambda e: e.name)
@pytest.mark.parametrize("other", [0.0, -0.0, 1.5])
def test_a_masked_tail_reads_other_and_the_loaded_values_bit_for_bit(elem, other, monkeypatch):
    # 4 programs × 16 lanes, n = 50: programs 0–2 read 16 values, program 3 reads 2 and fills 14 with `other`
    n, block = 50, 16
    vals = np.float32(np.linspace(-3, 3, 4 * block))
    x = np.zeros(8 * block, elem.storage)
    x[:4 * block] = _bits_of(elem, vals)
    runs = []
    for decode in (core._decoded, eager_decode):
        monkeypatch.setattr(core, "_decoded", decode)
        xs, out = x.copy(), np.zeros(4 * block, np.float32)
        counts = _masked_tail[(4,)](xs, out, n, ELEM=elem, OTHER=other, BLOCK=block)
        runs.append((counts, xs, out))
    (fast, fx, fout), (ref, rx, rout) = runs
    assert fast == ref and fx.tobytes() == rx.tobytes() and fout.tobytes() == rout.tobytes()
    # the values: each lane below 50 the value of its bits, the 14 past it the value of `other`'s bits (its sign
    # kept: −0.0 is 0x80, or 0x8000 in bf16; past a format's range, its NaN code or infinity)
    fill = elem.decode(np.asarray(elem.encode(np.float32(other))).reshape(1))
    want = np.where(np.arange(4 * block) < n, elem.decode(x[:4 * block]), fill)
    assert fout.view(np.uint32).tolist() == np.float32(want).view(np.uint32).tolist()
    if str(other) == "-0.0":  # lane 50 (the first past n) stored back as bits: −0.0's code
        # e5m2, e4m3fn, e4m3b15: sign 1, exponent 0, mantissa 0 = 0b1000_0000 = 0x80 (bf16: 0x8000); e4m3fnuz and
        # e5m2fnuz have no −0 (0x80 is their NaN): +0
        assert int(fx[4 * block + n]) == (0 if elem.fnuz else 0x8000 if elem.bits == 16 else 0x80)


def test_minus_zero_and_zero_are_encoded_apart():
    # the cache is keyed by the float32 bits: 0.0 is 0x00000000, −0.0 0x80000000 (one key each, both kept)
    assert int(T.float8e5.encode_one(0.0)) == 0x00
    assert int(T.float8e5.encode_one(-0.0)) == 0x80  # e5m2: sign bit 1, all else 0
    assert int(T.bfloat16.encode_one(-0.0)) == 0x8000  # bf16: the top 16 bits of −0.0's float32
    assert int(T.float8e5.encode_one(0.0)) == 0x00  # asked again after −0.0: still +0


@pytest.mark.parametrize("elem", FORMATS, ids=lambda e: e.name)
def test_encode_one_equals_encode_on_ties_infinities_and_nans(elem):
    # ties of each format (1 + half a step), its largest finite value and one past, ±inf, and two NaN payloads
    step = 2.0 ** -elem.m
    specials = np.float32([1 + step / 2, 1 + 3 * step / 2, elem.max_finite, min(elem.max_finite * 1.2, 3e38), np.inf,
                           -np.inf, -0.0, 0.0, 2.0 ** -30])
    nans = np.uint32([0x7FC00000, 0xFFC00001]).view(np.float32)
    for v in np.concatenate([specials, nans]):
        got, want = elem.encode_one(v), elem.encode(np.float32(v))
        assert np.asarray(got).dtype == np.asarray(want).dtype and int(got) == int(want), (elem.name, v)


def test_the_kept_encoding_is_read_only():
    # a caller writing into the fill it was handed would change every later load's fill
    fill = T.float8e4nv.encode_one(2.0)
    with pytest.raises(ValueError):
        fill[...] = 0


@triton.jit
def _fp8_dot(a_ptr, b_ptr, c_ptr, K: tl.constexpr, BLOCK: tl.constexpr):
    # program p: c[p] = a[p] (BLOCK × K) @ b (K × BLOCK), over two halves of K (32 each: fp8 dots need
    # K ≥ 32), masked, other 0
    pid = tl.program_id(0)
    a_ptr, b_ptr = a_ptr.to(tl.pointer_type(tl.float8e5)), b_ptr.to(tl.pointer_type(tl.float8e5))
    r, k = tl.arange(0, BLOCK), tl.arange(0, K // 2)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for h in range(2):
        a = tl.load(a_ptr + pid * BLOCK * K + r[:, None] * K + h * (K // 2) + k[None, :],
                    mask=k[None, :] < K, other=0.0)
        b = tl.load(b_ptr + (h * (K // 2) + k[:, None]) * BLOCK + r[None, :], mask=k[:, None] < K, other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + pid * BLOCK * BLOCK + r[:, None] * BLOCK + r[None, :], acc)


def _dot_arrays(programs=16, block=16, k=64):
    rng = np.random.default_rng(3)
    a = T.float8e5.encode(np.float32(rng.integers(-4, 5, (programs * block, k))))
    b = T.float8e5.encode(np.float32(rng.integers(-4, 5, (k, block))))
    return a, b, np.zeros((programs * block, block), np.float32)


def test_a_full_fp8_dot_decodes_its_tiles_and_equals_the_eager_reference(monkeypatch):
    a, b, c = _dot_arrays()
    got = []
    for decode in (core._decoded, eager_decode):
        monkeypatch.setattr(core, "_decoded", decode)
        cc = c.copy()
        got.append((_fp8_dot[(16,)](a, b, cc, K=64, BLOCK=16), cc))
    (fast, fc), (ref, rc) = got
    assert fast == ref and fc.tobytes() == rc.tobytes()
    # small integers are exact in e5m2 and their products' sums (|·| ≤ 64 × 16 = 1024) exact in fp32
    want = T.float8e5.decode(a).reshape(16, 16, 64) @ T.float8e5.decode(b)
    assert np.array_equal(fc.reshape(16, 16, 16), want)


def test_a_sampled_fp8_dot_decodes_nothing_and_counts_as_the_eager_reference(monkeypatch):
    # 16 programs, 8 sampled (rows × 2): each sampled program loads 2 a-tiles and 2 b-tiles that only feed
    # tl.dot, which a sampled launch does not compute: no tile is decoded
    a, b, c = _dot_arrays()
    calls = []
    decode = T.float_format.decode

    def counting(self, bits):
        calls.append(np.shape(bits))
        return decode(self, bits)

    with sampling.sampled():
        fast = _fp8_dot[(16,)](a, b, c.copy(), K=64, BLOCK=16)
    monkeypatch.setattr(T.float_format, "decode", counting)
    with sampling.sampled():
        _fp8_dot[(16,)](a, b, c.copy(), K=64, BLOCK=16)
    assert calls == []
    monkeypatch.setattr(core, "_decoded", eager_decode)
    with sampling.sampled():
        ref = _fp8_dot[(16,)](a, b, c.copy(), K=64, BLOCK=16)
    assert fast == ref and len(calls) == 4  # the reference decodes 2 trips × (a, b) of the one vectorised step


@triton.jit
def _fp8_dot_t(a_ptr, bt_ptr, c_ptr, K: tl.constexpr, BLOCK: tl.constexpr):
    # program p: c[p] = a[p] (BLOCK × K) @ bt.T, bt held as BLOCK × K rows (tutorial 06's fp8 k.T, v.T)
    pid = tl.program_id(0)
    a_ptr, bt_ptr = a_ptr.to(tl.pointer_type(tl.float8e5)), bt_ptr.to(tl.pointer_type(tl.float8e5))
    r, k = tl.arange(0, BLOCK), tl.arange(0, K)
    a = tl.load(a_ptr + pid * BLOCK * K + r[:, None] * K + k[None, :])
    bt = tl.load(bt_ptr + r[:, None] * K + k[None, :])
    acc = tl.dot(a, bt.T)
    tl.store(c_ptr + pid * BLOCK * BLOCK + r[:, None] * BLOCK + r[None, :], acc)


def test_a_transposed_fp8_tile_is_decoded_only_when_read(monkeypatch):
    # 16 programs, BLOCK 16, K 64: full launch c = a @ btᵀ exactly (small integers, |·| ≤ 64 × 16 = 1024); a
    # sampled launch (8 programs) transposes and decodes neither tile; both equal the eager reference
    a, b, c = _dot_arrays()
    bt = np.ascontiguousarray(b.T)  # (16, 64) bits
    calls = []
    decode = T.float_format.decode

    def counting(self, bits):
        calls.append(np.shape(bits))
        return decode(self, bits)

    runs = {}
    for name, dec in (("lazy", core._decoded), ("eager", eager_decode)):
        monkeypatch.setattr(core, "_decoded", dec)
        cc = c.copy()
        full = _fp8_dot_t[(16,)](a, bt, cc, K=64, BLOCK=16)
        with sampling.sampled():
            sampled = _fp8_dot_t[(16,)](a, bt, c.copy(), K=64, BLOCK=16)
        runs[name] = (full, sampled, cc)
    (lf, ls, lc), (ef, es, ec) = runs["lazy"], runs["eager"]
    assert lf == ef and ls == es and lc.tobytes() == ec.tobytes()
    assert np.array_equal(lc.reshape(16, 16, 16), T.float8e5.decode(a).reshape(16, 16, 64) @ T.float8e5.decode(b))
    monkeypatch.setattr(core, "_decoded", LAZY)
    monkeypatch.setattr(T.float_format, "decode", counting)
    with sampling.sampled():
        _fp8_dot_t[(16,)](a, bt, c.copy(), K=64, BLOCK=16)
    assert calls == []


@triton.jit
def _read_then_overwrite(x_ptr, out_ptr, BLOCK: tl.constexpr):
    # the loaded block is read only after the program has stored over its source; odd and even programs branch
    # apart, so a step of several runs them one by one, each store applied at once
    x_ptr = x_ptr.to(tl.pointer_type(tl.bfloat16))
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs)
    tl.store(x_ptr + offs, tl.full((BLOCK,), 7.0, tl.bfloat16))
    if pid % 2 == 0:
        tl.store(out_ptr + offs, v.to(tl.float32) + 1.0)
    else:
        tl.store(out_ptr + offs, v.to(tl.float32) + 2.0)


@pytest.mark.parametrize("programs", [1, 3])
def test_values_decoded_late_are_those_loaded_not_those_stored_since(programs):
    # bf16 1.0, 2.0, 3.0, … (exact): out = loaded + 1 (even programs) or + 2 (odd), whatever the program stored
    # over x after its load (7.0)
    x = T.bfloat16.encode(np.arange(1, 8 * programs + 1, dtype=np.float32))
    out = np.zeros(8 * programs, np.float32)
    _read_then_overwrite[(programs,)](x, out, BLOCK=8)
    assert out.tolist() == [float(i + 1 + 1 + i // 8 % 2) for i in range(8 * programs)]
    assert T.bfloat16.decode(x).tolist() == [7.0] * (8 * programs)
