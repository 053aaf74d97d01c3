"""Float → integer conversions as PTX's ``cvt.rzi`` makes them (kernellab.cvt): toward zero, saturated to the
destination's range, NaN → 0, for every integer width signed or unsigned, in both engines and every route a
value takes into an integer type (``.to``, ``tl.cast``, a store into an integer array, an atomic's operand,
libdevice, the SIMT simulator's stores)."""

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import cvt
from kernellab.simt import launch
from kernellab.triton.language.extra import libdevice

INTS = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]
# NaN, ±∞, −1 (below every unsigned range), a fraction each side of 0, whole values, 1e10 (past 32 bits)
X = np.float32([np.nan, np.inf, -np.inf, -1.0, -0.75, 0.75, 3.9, -3.9, 200.0, -200.0, 70000.0, 1e10, -1e10])


def expected(x: np.ndarray, dtype) -> list:
    """What cvt.rzi gives, worked out one value at a time in Python integers (no numpy conversion)."""
    info = np.iinfo(dtype)
    out = []
    for v in x.astype(np.float64).tolist():
        if v != v:
            out.append(0)
        elif v == float("inf") or v >= info.max + 1:
            out.append(int(info.max))
        elif v == float("-inf") or v < info.min:
            out.append(int(info.min))
        else:
            t = int(v)  # Python's int() rounds toward zero
            out.append(max(int(info.min), min(int(info.max), t)))
    return out


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("src", [np.float16, np.float32, np.float64])
def test_cvt_saturates_every_width(dtype, src):
    with np.errstate(over="ignore"):  # 70000 and 1e10 are ∞ in float16
        x = X.astype(src)
    assert cvt.astype(x, dtype).tolist() == expected(x, dtype)


def test_the_cases_numpy_gets_wrong():
    # numpy (x86): NaN → INT_MIN, −1.0 → 4294967295 as uint32; cvt.rzi: 0 and 0
    assert cvt.astype(np.float32([np.nan]), np.int32).tolist() == [0]
    assert cvt.astype(np.float32([-1.0]), np.uint32).tolist() == [0]
    # ints to ints still wrap (cvt between integer types truncates the bits), floats still round to nearest
    assert cvt.astype(np.int32([300, -1]), np.uint8).tolist() == [44, 255]
    assert cvt.astype(np.float64([0.1]), np.float32).tolist() == [np.float32(0.1)]


@triton.jit
def _to_int(x_ptr, o_to, o_cast, o_store, o_lib, n, B: tl.constexpr):
    i = tl.arange(0, B)
    m = i < n
    x = tl.load(x_ptr + i, mask=m)
    tl.store(o_to + i, x.to(o_to.dtype.element_ty), mask=m)
    tl.store(o_cast + i, tl.cast(x, o_cast.dtype.element_ty), mask=m)
    tl.store(o_store + i, x, mask=m)  # a float block stored into an integer array
    tl.store(o_lib + i, libdevice.float2int_rz(x), mask=m)


@pytest.mark.parametrize("dtype", INTS)
def test_triton_conversions_saturate(dtype):
    n = len(X)
    outs = [np.zeros(n, dtype), np.zeros(n, dtype), np.zeros(n, dtype), np.zeros(n, np.int32)]
    _to_int[(1,)](X, *outs, n, B=16)
    want = expected(X, dtype)
    assert outs[0].tolist() == want  # .to
    assert outs[1].tolist() == want  # tl.cast
    assert outs[2].tolist() == want  # tl.store of a float block into an int array
    assert outs[3].tolist() == expected(X, np.int32)  # libdevice.float2int_rz, as before


@triton.jit
def _atomic_into_int(x_ptr, acc_ptr, n, B: tl.constexpr):
    i = tl.arange(0, B)
    m = i < n
    tl.atomic_add(acc_ptr + i, tl.load(x_ptr + i, mask=m), mask=m)


def test_an_atomic_converts_its_float_operand_as_cvt():
    x = np.float32([np.nan, -1.0, 3.9, -3.9])
    acc = np.full(4, 5, np.int32)
    _atomic_into_int[(1,)](x, acc, 4, B=4)
    assert acc.tolist() == [5 + 0, 5 - 1, 5 + 3, 5 - 3]  # NaN → 0, then the integer add
    acc = np.full(4, 5, np.uint32)
    _atomic_into_int[(1,)](x, acc, 4, B=4)
    assert acc.tolist() == [5, 5, 8, 5]  # −1.0 and −3.9 as uint32: 0


@triton.jit
def _fill_int(x_ptr, o_ptr, n, B: tl.constexpr):
    i = tl.arange(0, B)
    tl.store(o_ptr + i, tl.load(x_ptr + i, mask=i < n, other=-1.0))


def test_other_converts_as_cvt():
    x, o = np.arange(4, dtype=np.uint32), np.full(8, 7, np.uint32)
    _fill_int[(1,)](x, o, 4, B=8)
    assert o.tolist() == [0, 1, 2, 3, 0, 0, 0, 0]  # other = −1.0 as uint32: 0, not 4294967295


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int8])
def test_simt_store_saturates(dtype):
    def kernel(blk, x, out):
        i = blk.tx
        with blk.where(i < x.shape[0]):
            blk.store(out, i, blk.load(x, i))

    out = np.zeros(len(X), dtype)
    launch(kernel, 1, 32, args=(X, out))
    assert out.tolist() == expected(X, dtype)
