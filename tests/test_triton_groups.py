"""A vectorised step whose programs diverge reruns in groups of programs that agree, with the values, counts and
errors of programs run one by one in launch order (kernellab.triton.executor.groups).

Each case runs under the default policy, under ``Policy(groups=False)`` (the step reruns program by program, as
before groups) and under the reference policy: the arrays bit for bit, the counts and the errors the same.
"""

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
    ([0, 8, 4], [8, 16, 12], [0, 1, 0], [True, True, False], True),   # 0 reads 4-11: its own 4-7, 1's 8-11
])
def test_spans_meet_where_one_program_stores_a_byte_another_touches(lo, hi, owner, stored, meet):
    assert groups.overlap(lo, hi, owner, stored) is meet


def meet_pairwise(lo, hi, owner, stored):
    """The definition :func:`groups.overlap` computes, pair by pair: a store span and another program's span share
    a byte (``SHARED`` spans belong to no program, so to another than every span)."""
    for i in range(len(lo)):
        for j in range(len(lo)):
            other = owner[i] != owner[j] or owner[i] == groups.SHARED
            if stored[i] and i != j and other and lo[i] < hi[j] and lo[j] < hi[i]:
                return True
    return False


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(1, 12), st.integers(-1, 2), st.booleans()),
                min_size=1, max_size=8))
def test_spans_meet_exactly_where_some_pair_of_them_does(spans):
    lo = [s[0] for s in spans]
    hi = [s[0] + s[1] for s in spans]
    owner, stored = [s[2] for s in spans], [s[3] for s in spans]
    assert groups.overlap(lo, hi, owner, stored) is meet_pairwise(lo, hi, owner, stored)


@triton.jit
def tiles_kernel(x_ptr, out_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)[:, None] * N + pid * BLOCK + tl.arange(0, BLOCK)[None, :]  # a column of tiles
    acc = tl.zeros([BLOCK, BLOCK], tl.float32)
    for _ in range(pid % 2 + 1):  # trips 1, 2, 1, 2
        acc += tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, acc)


def test_tiles_side_by_side_whose_spans_meet_but_whose_lines_do_not_stay_in_groups():
    # 4 programs, each an 8 × 8 tile of an 8 × 32 float32 matrix, program p's columns 8p to 8p + 7. Program 0
    # stores bytes 0 to 4·(7·32 + 7) + 4 = 928, program 1 bytes 32 to 960: their spans meet, but row r of
    # program 0 is bytes 128r to 128r + 32 and of program 1 128r + 32 to 128r + 64, which share none. So the
    # groups {0, 2} (1 trip) and {1, 3} (2 trips) stand: nothing runs one by one
    rng = np.random.default_rng(5)
    x = rng.standard_normal((8, 32)).astype(np.float32)
    out = np.zeros((8, 32), np.float32)
    cnt, (_, out), steps, alone = three_ways(lambda x, o: tiles_kernel[(4,)](x, o, N=32, BLOCK=8), x, out)
    assert steps == [4, 2, 2] and alone == 0
    trips = np.repeat(np.array([1, 2, 1, 2], np.float32), 8)
    np.testing.assert_array_equal(out, x * trips)  # x + x = 2x exactly
    # 1 + 2 + 1 + 2 = 6 loads of 64 floats = 6 × 256 B = 1536 B; 4 stores of 256 B = 1024 B
    assert (cnt.loads, cnt.load_bytes, cnt.stores, cnt.store_bytes) == (6, 1536, 4, 1024)


@triton.jit
def shifted_row_kernel(buf_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    r = tl.arange(0, BLOCK)
    own = r[:, None] * N + pid * BLOCK + r[None, :]
    shift = tl.where(r == BLOCK - 1, 4, 0)  # the last row read 4 columns right: half of it the next tile's
    acc = tl.zeros([BLOCK, BLOCK], tl.float32)
    for _ in range(pid % 2 + 1):  # trips 1, 2, 1
        acc += tl.load(buf_ptr + own + shift[:, None])
    tl.store(buf_ptr + own, acc)


def test_tiles_whose_lines_meet_below_their_first_row_rerun_one_by_one():
    # 3 programs, each an 8 × 8 tile of an 8 × 32 float32 matrix (program p: columns 8p to 8p + 7), reading its
    # own tile but row 7 at columns 8p + 4 to 8p + 11. Only row 7 meets: program 1 reads columns 12-19 of it,
    # 16-19 program 2's. In launch order program 1 reads them before program 2 stores; in groups {0, 2} then
    # {1} it would read them after. So the groups are undone and the 3 programs rerun one by one, each reading
    # the matrix as it was: rows 0-6 its own tile, row 7 shifted by 4, times its trips
    rng = np.random.default_rng(6)
    buf = rng.standard_normal((8, 32)).astype(np.float32)
    _cnt, (out,), steps, alone = three_ways(lambda b: shifted_row_kernel[(3,)](b, N=32, BLOCK=8), buf)
    assert steps == [3, 2, 1] and alone == 3
    want = buf.copy()
    for p, trips in enumerate([1, 2, 1]):
        want[:7, 8 * p:8 * p + 8] = buf[:7, 8 * p:8 * p + 8] * np.float32(trips)
        want[7, 8 * p:8 * p + 8] = buf[7, 8 * p + 4:8 * p + 12] * np.float32(trips)
    np.testing.assert_array_equal(out, want)


def test_a_kernel_whose_groups_met_in_memory_runs_its_next_diverging_steps_one_by_one():
    chain = triton.jit(chain_kernel.fn)  # a kernel of its own: what launches learnt is kept per kernel
    for steps_wanted in ([6, 3, 3], [6]):  # the second launch tries no groups: its step of 6, then one by one
        buf = np.zeros((7, BLOCK), np.float32)
        buf[0] = 1
        _cnt, (buf,), steps, alone = three_ways(lambda b: chain[(6,)](b, BLOCK=BLOCK), buf)
        assert steps == steps_wanted and alone == 6
        np.testing.assert_array_equal(buf[:, 0], [1, 2, 5, 6, 13, 14, 29])  # as in the test above


def test_a_kernel_whose_groups_failed_on_an_error_still_tries_groups():
    branch = triton.jit(branch_kernel.fn)
    rng = np.random.default_rng(3)
    x = rng.standard_normal(8 * BLOCK).astype(np.float32)
    error, _arrays, steps, alone = three_ways(lambda x, o: branch[(8,)](x, o, BLOCK=BLOCK), x,
                                              np.ones(7 * BLOCK, np.float32))
    assert error[0] == "OutOfBoundsError" and (steps, alone) == ([8, 4, 4], 8)  # as in the test above
    _cnt, _arrays, steps, alone = three_ways(lambda x, o: branch[(8,)](x, o, BLOCK=BLOCK), x,
                                             np.ones(8 * BLOCK, np.float32))
    assert steps == [8, 4, 4] and alone == 0  # an error says nothing of where programs meet


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
