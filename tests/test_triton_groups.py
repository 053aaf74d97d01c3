"""A vectorised step whose programs diverge reruns in groups of programs that agree, with the values, counts and
errors of programs run one by one in launch order (kernellab.triton.executor.groups).

Each case runs under the default policy, under ``Policy(groups=False)`` (the step reruns program by program, as
before groups) and under the reference policy: the arrays bit for bit, the counts and the errors the same.
"""

from unittest import mock

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab.triton.executor import engine, groups
from kernellab.triton.executor.policy import Policy, using

BLOCK = 32


def three_ways(launch, *arrays):
    """``launch(*copies)`` under the default policy, ``groups=False`` and the reference: the arrays and the
    counts (or the error) of each, and, for the default run, the sizes of its vectorised steps and how many
    programs it ran one by one."""
    runs = []
    for policy in (Policy(), Policy(groups=False), Policy.reference()):
        copies = [a.copy() for a in arrays]
        with using(policy), mock.patch.object(engine, "_batch", wraps=engine._batch) as batch, \
                mock.patch.object(engine, "_one_by_one", wraps=engine._one_by_one) as one_by_one:
            try:
                result = launch(*copies)
            except Exception as exc:
                result = (type(exc).__name__, str(exc))
        steps = [len(c.args[1]) for c in batch.call_args_list]
        runs.append((result, copies, steps, sum(len(c.args[1]) for c in one_by_one.call_args_list)))
    (fast, fa, steps, alone), *others = runs
    for result, copies, _steps, _alone in others:
        assert fast == result
        for a, b in zip(fa, copies):
            assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
    return fast, fa, steps, alone


@triton.jit
def trips_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for i in range(0, pid % 3):  # as causal attention's loop: each program's own trip count
        acc += tl.load(x_ptr + i * BLOCK + offs)
    tl.store(out_ptr + pid * BLOCK + offs, acc)


def test_programs_whose_loop_trips_differ_run_in_groups_of_equal_trips():
    rng = np.random.default_rng(1)
    x = rng.standard_normal(3 * BLOCK).astype(np.float32)
    out = np.full(6 * BLOCK, np.nan, np.float32)
    cnt, (_, out), steps, alone = three_ways(lambda x, o: trips_kernel[(6,)](x, o, BLOCK=BLOCK), x, out)
    # trips pid % 3 = 0, 1, 2, 0, 1, 2: the step of 6 stops at the loop; groups {0, 3}, {1, 4}, {2, 5}
    assert steps == [6, 2, 2, 2] and alone == 0
    rows = x.reshape(3, BLOCK)
    want = [np.zeros(BLOCK, np.float32), rows[0], rows[0] + rows[1]] * 2  # float32 sums in loop order
    np.testing.assert_array_equal(out.reshape(6, BLOCK), np.stack(want))
    # 0 + 1 + 2 + 0 + 1 + 2 = 6 loads of 32 floats = 6 × 128 B = 768 B; 6 stores of 128 B = 768 B
    assert (cnt.programs, cnt.loads, cnt.load_bytes, cnt.stores, cnt.store_bytes) == (6, 6, 768, 6, 768)


@triton.jit
def branch_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    if pid % 2 == 1:  # a branch each program decides
        x = x * 2.0
    tl.store(out_ptr + offs, tl.load(out_ptr + offs) + x)  # each program adds to its own row


def test_programs_whose_branch_differs_run_in_groups_of_equal_truth_values():
    rng = np.random.default_rng(2)
    x = rng.standard_normal(8 * BLOCK).astype(np.float32)
    out = np.ones(8 * BLOCK, np.float32)
    cnt, (_, out), steps, alone = three_ways(lambda x, o: branch_kernel[(8,)](x, o, BLOCK=BLOCK), x, out)
    assert steps == [8, 4, 4] and alone == 0  # evens {0, 2, 4, 6}, then odds {1, 3, 5, 7}
    scale = np.where(np.arange(8) % 2 == 1, np.float32(2), np.float32(1))[:, None]
    np.testing.assert_array_equal(out.reshape(8, BLOCK), 1 + x.reshape(8, BLOCK) * scale)
    # 8 programs × 2 loads of 32 floats = 16 × 128 B = 2048 B; 8 stores × 128 B = 1024 B
    assert (cnt.programs, cnt.loads, cnt.load_bytes, cnt.stores, cnt.store_bytes) == (8, 16, 2048, 8, 1024)


def test_a_group_that_fails_undoes_the_groups_before_it():
    # out has 7 rows for 8 programs: program 7 (odd) reads row 7, outside. The evens' group ran and stored first;
    # one by one, programs 0-6 add once and program 7 raises, so the evens' stores must be undone, not doubled
    rng = np.random.default_rng(3)
    x = rng.standard_normal(8 * BLOCK).astype(np.float32)
    out = np.ones(7 * BLOCK, np.float32)
    error, (_, out), steps, alone = three_ways(lambda x, o: branch_kernel[(8,)](x, o, BLOCK=BLOCK), x, out)
    assert error[0] == "OutOfBoundsError" and "program (7,0,0)" in error[1]
    assert steps == [8, 4, 4] and alone == 8  # both groups tried, then all 8 programs one by one
    scale = np.where(np.arange(7) % 2 == 1, np.float32(2), np.float32(1))[:, None]
    np.testing.assert_array_equal(out.reshape(7, BLOCK), 1 + x[:7 * BLOCK].reshape(7, BLOCK) * scale)


@triton.jit
def chain_kernel(buf_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.load(buf_ptr + pid * BLOCK + offs)  # what program pid - 1 stored (program 0: the input)
    for _ in range(pid % 2):  # odd programs double it
        acc = acc * 2.0
    tl.store(buf_ptr + (pid + 1) * BLOCK + offs, acc + 1.0)


def test_groups_out_of_launch_order_that_touch_the_same_memory_rerun_one_by_one():
    # groups {0, 2, 4} then {1, 3, 5}: program 2 would read row 2 before program 1 stored it. In launch order, from
    # row 0 = 1: row 1 = 1 + 1 = 2, row 2 = 2·2 + 1 = 5, row 3 = 6, row 4 = 2·6 + 1 = 13, row 5 = 14, row 6 = 29
    buf = np.zeros((7, BLOCK), np.float32)
    buf[0] = 1
    cnt, (buf,), steps, alone = three_ways(lambda b: chain_kernel[(6,)](b, BLOCK=BLOCK), buf)
    assert steps == [6, 3, 3] and alone == 6  # the groups ran, met each other's rows, and were undone
    np.testing.assert_array_equal(buf[:, 0], [1, 2, 5, 6, 13, 14, 29])
    assert (buf == buf[:, :1]).all()
    # 6 loads and 6 stores of 32 floats: 6 × 128 = 768 B each way
    assert (cnt.loads, cnt.load_bytes, cnt.stores, cnt.store_bytes) == (6, 768, 6, 768)


@triton.jit
def chain_trips_kernel(buf_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.load(buf_ptr + pid * BLOCK + offs)
    for _ in range(pid):  # every program its own trip count: groups of one
        acc = acc * 2.0
    tl.store(buf_ptr + (pid + 1) * BLOCK + offs, acc + 1.0)


def test_groups_of_one_program_run_in_launch_order_with_no_check():
    # program p doubles row p p times and adds 1: rows 1, 2·1 + 1 = 3… from row 0 = 1: 2, 5, 21, 169, 2705, 86561
    # (2 = 1 + 1, 5 = 2·2 + 1, 21 = 5·4 + 1, 169 = 21·8 + 1, 2705 = 169·16 + 1, 86561 = 2705·32 + 1)
    buf = np.zeros((7, BLOCK), np.float32)
    buf[0] = 1
    cnt, (buf,), steps, alone = three_ways(lambda b: chain_trips_kernel[(6,)](b, BLOCK=BLOCK), buf)
    assert steps == [6, 1, 1, 1, 1, 1, 1] and alone == 0  # each reads what the one before stored: launch order
    np.testing.assert_array_equal(buf[:, 0], [1, 2, 5, 21, 169, 2705, 86561])
    assert (cnt.loads, cnt.stores) == (6, 6)


def test_groups_split_by_each_keys_bits_in_the_order_of_their_first_programs():
    # -0.0 and 0.0 compare equal but are two values a program may act on differently: two groups
    keys = np.array([3.0, -0.0, 3.0, 0.0, -0.0], np.float32)
    assert [g.tolist() for g in groups.split(np.arange(5), keys)] == [[0, 2], [1, 4], [3]]


@pytest.mark.parametrize(("lo", "hi", "owner", "stored", "meet"), [
    ([0, 16], [16, 32], [0, 1], [True, True], False),     # bytes 0-15 and 16-31: apart
    ([0, 15], [16, 32], [0, 1], [True, False], True),     # byte 15: stored by 0, loaded by 1
    ([0, 15], [16, 32], [0, 1], [False, False], False),   # two loads never meet
    ([0, 15], [16, 32], [0, 0], [True, True], False),     # one program's own bytes
    ([0, 40, 15], [32, 48, 20], [0, 0, 1], [True, True, True], True),   # 15-19 inside program 0's 0-31
    ([0, 15], [16, 32], [groups.SHARED, 1], [False, True], True),   # every program of a group reads 0-15
])
def test_spans_meet_where_one_program_stores_a_byte_another_touches(lo, hi, owner, stored, meet):
    assert groups.overlap(lo, hi, owner, stored) is meet


@triton.jit
def widths_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    if pid < 100:
        v = tl.load(x_ptr + offs + 1)  # one float past a 16-byte boundary: a float a thread
    else:
        v = tl.load(x_ptr + offs)  # 16-byte aligned: 4 floats a thread
    tl.store(out_ptr + pid, tl.sum(v, 0))


def test_groups_that_ask_one_load_shape_for_two_widths_rerun_one_by_one():
    # the two loads share a shape and an order, so the launch lays both out alike, at the widest width asked
    # for so far when their counts settle: one by one, programs 0-63 settle (after program 63) under 1 float a
    # thread, 64-127 under 4 (programs 100-127 asked for it). Grouped, programs 0-99 then 100-127, everything
    # would settle under 4: the groups see the shape asked for at two widths and rerun one by one
    x = (np.arange(128 * 512 + 1) % 8).astype(np.float32)  # sums of 512 such floats are exact
    out = np.zeros(128, np.float32)
    cnt, (_, out), steps, alone = three_ways(lambda x, o: widths_kernel[(128,)](x, o, BLOCK=512), x, out)
    assert steps == [128, 100, 28] and alone == 128  # 512 floats, 4 warps: up to 4 floats a thread
    assert out[0] == x[1:513].sum(dtype=np.float32) and out[127] == x[127 * 512:128 * 512].sum(dtype=np.float32)
