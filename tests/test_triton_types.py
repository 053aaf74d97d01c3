"""Triton's types as ``triton.language`` exposes them: what each says of itself, the type of a Python
scalar argument, and the type a binary operation computes in (Triton 3.9's ``computation_type_impl``)."""

import math

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab.triton.executor import dtypes as T
from kernellab.triton.executor.dtypes import computation_type, from_numpy, of_argument, of_python


def test_each_type_says_what_it_is():
    assert [t.is_int_signed() for t in (tl.int8, tl.uint8, tl.float32)] == [True, False, False]
    assert [t.is_int_unsigned() for t in (tl.int8, tl.uint8, tl.int1)] == [False, True, False]
    assert (tl.float64.is_fp64(), tl.bfloat16.is_bf16(), tl.float8e5.is_fp8(), tl.float16.is_fp8()) == \
        (True, True, True, False)
    assert (tl.int16.int_bitwidth, tl.int1.int_bitwidth, tl.float8e4nv.primitive_bitwidth) == (16, 1, 8)
    assert tl.float32.scalar is tl.float32 and not tl.float32.is_ptr() and tl.pointer_type(tl.int8).is_ptr()
    assert str(tl.float16) == "fp16" and repr(tl.bfloat16) == "triton.language.bf16"


def test_a_python_scalar_takes_the_narrowest_type_that_holds_it():
    # int: int32, then uint32 for [2^31, 2^32), int64, then uint64 for [2^63, 2^64); past 64 bits an error
    assert [of_python(v) for v in (-(2**31), 2**31 - 1, 2**31, 2**32, -(2**63), 2**63, 2**64 - 1)] == \
        [tl.int32, tl.int32, tl.uint32, tl.int64, tl.int64, tl.uint64, tl.uint64]
    with pytest.raises(OverflowError, match="does not fit in 64 bits"):
        of_python(2**64)
    # float: fp32 for 0, inf, nan and the normal fp32 magnitudes [2^-126, (2 − 2^-23)·2^127], else fp64
    assert [of_python(v) for v in (3.4e38, 3.5e38, float("inf"), float("nan"), 0.0, -(2.0**-126), 2.0**-127)] == \
        [tl.float32, tl.float64, tl.float32, tl.float32, tl.float32, tl.float32, tl.float64]
    with pytest.raises(TypeError, match="a str is not a Triton scalar"):
        of_python("1")
    with pytest.raises(TypeError, match="no Triton type for numpy dtype"):
        from_numpy(np.complex64)


@pytest.mark.parametrize(("a", "b", "div", "want"), [
    (tl.bfloat16, tl.bfloat16, False, tl.bfloat16),   # bf16 with bf16 stays bf16
    (tl.bfloat16, tl.float16, False, tl.float16),     # fp16 beats bf16
    (tl.bfloat16, tl.int32, False, tl.float32),       # bf16 with anything else: fp32
    (tl.float8e5, tl.float8e5, False, tl.float8e5),   # one fp8 type with itself
    (tl.float8e5, tl.float8e4nv, False, tl.float16),  # two fp8 types: fp16
    (tl.int8, tl.uint32, False, tl.uint32),           # mixed signs: the unsigned one when as wide or wider
    (tl.uint8, tl.int32, False, tl.int32),            # … else the wider signed one
    (tl.uint16, tl.int16, False, tl.uint16),
    (tl.int1, tl.uint8, True, tl.uint8),              # a bool divides with either sign
])
def test_the_type_two_blocks_compute_in(a, b, div, want):
    assert computation_type(a, False, b, False, div) is want


def test_types_two_blocks_cannot_compute_in():
    with pytest.raises(TypeError, match="signedness differs"):
        computation_type(tl.int32, False, tl.uint32, False, True)
    with pytest.raises(TypeError, match="unexpected type"):
        computation_type(tl.float8e5, False, tl.int32, False)


@triton.jit
def _scalar_arguments(i_ptr, f_ptr, big, f):
    tl.store(i_ptr, big - 3_000_000_001)  # int64 arithmetic: -1
    tl.store(f_ptr, f * 0.5)  # fp32 arithmetic


def test_a_scalar_argument_is_typed_as_triton_s_launcher_types_it():
    # the launcher: an int in [2^31, 2^32) is int64 (not the uint32 a constant in the code would be), a float is
    # fp32 whatever its magnitude: 3.5e38 arrives as inf, and inf · 0.5 is inf
    assert [of_argument(v) for v in (2**31 - 1, 2**31, 2**32, 2**63, -(2**63), 3.5e38, np.float64(1.0))] == \
        [tl.int32, tl.int64, tl.int64, tl.uint64, tl.int64, tl.float32, tl.float64]
    with pytest.raises(OverflowError):
        of_argument(2**64)
    i, f = np.zeros(1, np.int64), np.zeros(1, np.float32)
    _scalar_arguments[(1,)](i, f, 3_000_000_000, 3.5e38)
    assert i.tolist() == [-1] and np.isposinf(f[0])

def test_float8_decode_hand_values():
    # codes read by hand: S.EEEE.MMM (e4m3) and S.EEEEE.MM (e5m2), value (1 + M/2^m) * 2^(E - bias), E = 0 subnormal
    # e4m3fn: 0x7E = 0.1111.110 = 1.75 * 2^8 = 448; 0x01 = 2^-6 * 1/8 = 2^-9; 0x7F = NaN; 0xB8 = -(1.0 * 2^0)
    assert T.float8e4nv.decode(np.uint8([0x7E, 0x01, 0xB8])).tolist() == [448.0, 2.0 ** -9, -1.0]
    assert np.isnan(T.float8e4nv.decode(np.uint8([0x7F, 0xFF]))).all()
    # e5m2: 0x7B = 0.11110.11 = 1.75 * 2^15 = 57344; 0x7C = inf; 0x7D = NaN; 0x01 = 2^-14 / 4 = 2^-16
    v = T.float8e5.decode(np.uint8([0x7B, 0x7C, 0xFC, 0x01]))
    assert v.tolist() == [57344.0, math.inf, -math.inf, 2.0 ** -16] and np.isnan(T.float8e5.decode(np.uint8([0x7D])))
    # e4m3 bias 15: 0x7E = 0.1111.110 = 1.75 * 2^0, 0x08 = 2^(1-15); e4m3 bias 8 fnuz: 0x80 is NaN,
    # 0x7F = 1.875 * 2^7 = 240; e5m2 bias 16 fnuz: 0x7F = 1.75 * 2^15 = 57344
    assert T.float8e4b15.decode(np.uint8([0x7E, 0x08])).tolist() == [1.75, 2.0 ** -14]
    assert T.float8e4b8.decode(np.uint8([0x7F, 0x00])).tolist() == [240.0, 0.0]
    assert np.isnan(T.float8e4b8.decode(np.uint8([0x80]))).all() and np.isnan(T.float8e5b16.decode(np.uint8([0x80])))
    assert T.float8e5b16.decode(np.uint8([0x7F])).tolist() == [57344.0]
    # decode keeps the shape and gives fresh float32 values
    out = T.float8e5.decode(np.uint8([[0x3C, 0xBC]]))
    assert out.dtype == np.float32 and out.tolist() == [[1.0, -1.0]] and out.flags.writeable


@pytest.mark.parametrize(("fmt", "name"), [(T.float8e5, "float8_e5m2"), (T.float8e4nv, "float8_e4m3fn"),
                                           (T.float8e4b8, "float8_e4m3fnuz"), (T.float8e5b16, "float8_e5m2fnuz")])
def test_float8_decode_matches_torch(fmt, name):
    torch = pytest.importorskip("torch", reason="torch's float8 dtypes are the reference (nox -s conformance)")
    codes = torch.arange(256, dtype=torch.int32).to(torch.uint8)
    ref = codes.view(getattr(torch, name)).to(torch.float32).numpy()
    np.testing.assert_array_equal(fmt.decode(np.arange(256, dtype=np.uint8)), ref)  # NaN where torch has NaN
