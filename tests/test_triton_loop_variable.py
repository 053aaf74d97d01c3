"""A ``for`` loop's variable in a ``@triton.jit`` kernel is what Triton 3.9's code generator makes it
(``visit_For``): a scalar block of the type the bounds promote to, with an induction variable's axis
facts; ``tl.static_range``'s is a compile-time int (kernellab.triton.executor.loops)."""

from __future__ import annotations

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab.triton.executor import loops
from kernellab.triton.replay import cache as replay


@triton.jit
def widened_kernel(out_ptr, n):
    for i in range(n):  # flash-linear-attention's chunk loops: `i_t.to(tl.int64)` before the offset
        tl.store(out_ptr + i.to(tl.int64), i * 10)


@triton.jit
def product_kernel(out_ptr, start, SCALE: tl.constexpr):
    for i in range(start, start + 1):
        tl.store(out_ptr, i * SCALE)
        tl.store(out_ptr + 1, i.to(tl.int64) * SCALE)


@triton.jit
def typed_kernel(out_ptr, start, WIDE: tl.constexpr):
    for i in range(start, start + 1):
        tl.static_assert(i.dtype == (tl.int64 if WIDE else tl.int32))
        tl.store(out_ptr, i * 4)
    for j in tl.range(0, 3, num_stages=2):
        tl.static_assert(j.dtype == tl.int32)


def test_range_variable_is_a_block_with_to():
    out = np.zeros(5, np.int32)
    widened_kernel[(1,)](out, 5)
    assert out.tolist() == [0, 10, 20, 30, 40]


def test_range_variable_multiplies_in_int32_as_on_a_gpu():
    # i = 3 is int32, SCALE = 2^30 an int32 constant: 3 · 2^30 = 3,221,225,472 ≥ 2^31 wraps to
    # 3,221,225,472 − 2^32 = −1,073,741,824; widened first, the product is 3,221,225,472
    out = np.zeros(2, np.int64)
    product_kernel[(1,)](out, 3, SCALE=2**30)
    assert out.tolist() == [-1_073_741_824, 3_221_225_472]


def test_range_variable_is_int64_when_a_bound_is():
    # start = 2^31 is an int64 argument: the loop is int64 and i · 4 = 2^33 = 8,589,934,592 (int32: 0)
    out = np.zeros(1, np.int64)
    typed_kernel[(1,)](out, 2**31, WIDE=True)
    assert out.tolist() == [8_589_934_592]
    typed_kernel[(1,)](out, 5, WIDE=False)  # int32 bounds: 5 · 4 = 20
    assert out.tolist() == [20]


@triton.jit
def branch_kernel(out_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), tl.int32)
    for i in tl.range(n - 1, -1, -1):  # a constant negative step: Triton counts up and maps the values back
        if i % 2 == 0:
            acc += i
        if i >= n - 1:
            acc += 100
    tl.store(out_ptr + tl.arange(0, BLOCK), acc)


def test_range_variable_in_branches_and_a_negative_step():
    # i = 6, 5, …, 0 (n = 7): the even ones 6 + 4 + 2 + 0 = 12, and 100 for i = 6 only: 112
    out = np.zeros(4, np.int32)
    branch_kernel[(1,)](out, 7, BLOCK=4)
    assert out.tolist() == [112] * 4


@triton.jit
def static_kernel(out_ptr):
    for i in tl.static_range(3):  # a constexpr: tl.arange's bounds may use it
        tl.store(out_ptr + tl.arange(4 * i, 4 * i + 4), tl.arange(0, 4) + 10 * i)


def test_static_range_variable_stays_a_compile_time_int():
    out = np.zeros(12, np.int32)
    static_kernel[(1,)](out)
    assert out.tolist() == [0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23]


@triton.jit
def strided_sum_kernel(x_ptr, out_ptr, n, STEP: tl.constexpr):
    acc = tl.zeros((128,), tl.float32)
    for i in range(0, n, STEP):
        acc += tl.load(x_ptr + i + tl.arange(0, 128))
    tl.store(out_ptr + tl.arange(0, 128), acc)


@pytest.mark.parametrize("step, per_iteration", [(2, 2), (4, 1)])
def test_range_variable_has_an_induction_variables_divisibility(step, per_iteration):
    # 128 fp32 on one warp: 4 elements a thread. Triton knows i only as divisible by gcd(0's, STEP's) = STEP
    # elements: STEP 2 → 8 B aligned, two ld.global.v2 a thread; STEP 4 → 16 B, one ld.global.v4 (the PTX of
    # Triton 3.9 for sm_80 shows exactly these in the loop body). n = 8: 8 / STEP iterations,
    # STEP 2: 4 × 2 = 8 warp instructions (a Python int i gave 0, 4 → v4 and 2, 6 → v2: 6); STEP 4: 2 × 1 = 2
    x, out = np.arange(256, dtype=np.float32), np.zeros(128, np.float32)
    c = strided_sum_kernel[(1,)](x, out, 8, STEP=step, num_warps=1)
    assert c.load_instructions == c.load_instructions_sm90 == (8 // step) * per_iteration
    want = sum(x[i:i + 128].astype(np.float64) for i in range(0, 8, step))
    assert np.array_equal(out, want.astype(np.float32))


@pytest.mark.parametrize("bounds, dtype, divisibility", [
    ((8,), "int32", 1),                    # 0 and 1: gcd(2^62, 1) = 1
    ((0, 64), "int32", 1),                 # two bounds: the step is 1, gcd(2^62, 1) = 1
    ((32, 64), "int32", 1),                # gcd(32, 1) = 1
    ((0, 64, 16), "int32", 16),            # gcd(2^62, 16) = 16
    ((16, 64, 32), "int32", 16),           # gcd(16, 32) = 16
    ((0, 2**31, 64), "uint32", 64),        # 2^31 in the kernel's code is uint32 (as an argument: int64)
    ((0, 2**31 + 2**30, 4), "uint32", 4),  # 3 · 2^30 < 2^32 is uint32; with int32 the unsigned wins (C's rule)
    ((0, 2**32, 1), "int64", 1),           # 2^32 is int64
])
def test_induction_type_and_facts(bounds, dtype, divisibility):
    dt, info, negative = loops.induction(*bounds)
    assert (dt.name, info.divisibility, info.contiguity, info.constancy, negative) == \
        (dtype, (divisibility,), (1,), (1,), False)


def test_negative_step_facts_are_carried_through_the_mapping():
    # range(64, 0, -16): Triton loops iv over [0, 64) step 16 (divisible by gcd(2^62, 16) = 16) and uses
    # 64 − iv + 0: gcd(64, 16) = 16, then gcd(16, 2^62) = 16
    dt, info, negative = loops.induction(64, 0, -16)
    assert (dt.name, info.divisibility, negative) == ("int32", (16,), True)


@triton.jit
def float_bound_kernel(out_ptr, n):
    for i in range(0, n):
        tl.store(out_ptr, i)


def test_float_bound_is_refused_as_triton_refuses_it():
    with pytest.raises(triton.CompilationError) as info:
        float_bound_kernel[(1,)](np.zeros(1, np.int32), 2.5)
    assert isinstance(info.value.__cause__, TypeError)
    assert str(info.value.__cause__) == "For loop bounds and step must all be ints, are (int32, fp32, int32)"


@triton.jit
def zero_step_float_bound_kernel(out_ptr, n):
    for i in range(0, n, 0):
        tl.store(out_ptr, i)


def test_a_zero_step_is_not_negative_the_float_bound_is_named_in_place():
    # Triton 3.9's visit_For swaps lb and ub only for a constexpr step < 0 (strict): a step of 0 keeps them, so
    # range(0, 2.5, 0) is typed (0 → int32, 2.5 → fp32, 0 → int32) and refused with those three in that order.
    # A step of 0 taken as negative (step <= 0, step < 1) would swap them: "(fp32, int32, int32)".
    with pytest.raises(triton.CompilationError) as info:
        zero_step_float_bound_kernel[(1,)](np.zeros(1, np.int32), 2.5)
    assert isinstance(info.value.__cause__, TypeError)
    assert str(info.value.__cause__) == "For loop bounds and step must all be ints, are (int32, fp32, int32)"


@triton.jit
def chunked_copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    for i in range(0, n, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs) * 2)


def test_a_loop_variable_is_static_to_a_replay():
    # the variable comes from the launch's signature, not from data: the second launch replays
    x, out = np.arange(64, dtype=np.float32), np.zeros(64, np.float32)
    with replay.replaying():
        replay.clear(chunked_copy_kernel)
        statuses = []
        for _ in range(2):
            chunked_copy_kernel[(1,)](x, out, 64, BLOCK=16)
            statuses.append(replay.status(chunked_copy_kernel))
    assert statuses == ["recorded", "replayed"] and out.tolist() == (2 * x).tolist()


def test_loop_at_the_prompt_gives_python_ints():
    assert list(tl.range(0, 8, 2, num_stages=3)) == [0, 2, 4, 6] and all(
        type(v) is int for v in tl.range(3))
