"""Triton's types as ``triton.language`` exposes them: what each says of itself, the type of a Python
scalar argument, and the type a binary operation computes in (Triton 3.9's ``computation_type_impl``)."""

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
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
