"""The undo journal of a vectorised step (kernellab.triton.executor.program): what a step stores at once is kept
before each store changes it, a large array by the span the store may write, and an undone step leaves every
array as it was, so that its programs rerun one by one as if the step had never run."""

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab.triton.executor.counts import Tally
from kernellab.triton.executor.policy import Policy, using
from kernellab.triton.executor.program import JOURNAL_WHOLE, Program


def step(journal):
    return Program("k", (4, 1, 1), np.zeros((4, 3), np.int32), Tally(), {}, journal=journal)


def test_a_large_array_is_journaled_by_span_and_restored_last_entry_first():
    big = np.arange(4 * JOURNAL_WHOLE, dtype=np.float32)  # 4 × 65,536 elements: above JOURNAL_WHOLE
    small = np.arange(64, dtype=np.float32)
    before_big, before_small = big.copy(), small.copy()
    prog = step([])
    prog.before_store(big, (100, 300))  # the first store writes 100 .. 299
    big[100:300] = -1.0
    prog.before_store(big, lambda: (200, 400))  # the second overlaps it: 200 .. 299 hold the first's -1
    big[200:400] = -2.0
    prog.before_store(small, (0, 8))  # a small array: kept whole, once
    small[:8] = -3.0
    prog.before_store(small, (8, 16))
    small[8:16] = -4.0
    # two spans of 200 elements (not 2 × 262,144), and the small array once: 3 entries
    assert [(lo, saved.size) for _flat, lo, saved in prog.journal] == [(100, 200), (200, 200), (0, 64)]
    prog.undo()
    # last entry first: 200 .. 399 back to the first store's -1 and the originals, then 100 .. 299 to the originals
    # (first entry first would leave 200 .. 299 at -1)
    np.testing.assert_array_equal(big, before_big)
    np.testing.assert_array_equal(small, before_small)


def test_a_span_over_half_the_array_keeps_it_whole_once():
    big = np.zeros(2 * JOURNAL_WHOLE, np.int32)
    prog = step([])
    prog.before_store(big, (0, JOURNAL_WHOLE))  # half of it: the whole array (one copy, not one per store)
    big[:JOURNAL_WHOLE] = 1
    prog.before_store(big, (10, 20))  # already kept whole: nothing more
    big[10:20] = 2
    assert [(lo, saved.size) for _flat, lo, saved in prog.journal] == [(0, 2 * JOURNAL_WHOLE)]
    prog.undo()
    assert not big.any()


@triton.jit
def twice_then_diverge(Y, BLOCK: tl.constexpr):
    # each program adds 1 to its 64 elements, then 2 to the 96 from there (overlapping the next program's first
    # 32), then branches on its id: a vectorised step cannot follow that branch, is undone and reruns one by one
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.load(Y + offs) + 1.0)
    wide = pid * BLOCK + tl.arange(0, 2 * BLOCK)
    keep = tl.arange(0, 2 * BLOCK) < BLOCK + BLOCK // 2
    tl.store(Y + wide, tl.load(Y + wide, mask=keep) + 2.0, mask=keep)
    if pid == 0:
        tl.store(Y + offs, tl.load(Y + offs) * 10.0)


@pytest.mark.parametrize("structured", [True, False])
def test_an_undone_step_on_a_large_array_reruns_as_one_by_one(structured):
    # 4 programs on 2 × 65,536 floats (journaled by span). One by one, in launch order: program p adds 1 to
    # 64p .. 64p + 63 and 2 to 64p .. 64p + 95; program 0 then multiplies its 64 by 10. From 0:
    # 0 .. 63: (1 + 2) × 10 = 30; then each program's first 32: its own 1 + 2 plus the previous program's 2 = 5,
    # its last 32: 3; after program 3, 256 .. 287: 2 (program 3's overlap); the rest 0
    def run(policy):
        y = np.zeros(2 * JOURNAL_WHOLE, np.float32)
        with using(policy):
            c = twice_then_diverge[(4,)](y, BLOCK=64)
        return c, y

    fast, y = run(Policy(structured=structured, defer=False))
    ref, y_ref = run(Policy.reference())
    want = np.zeros_like(y)
    want[0:64] = 30.0
    for p in (1, 2, 3):
        want[64 * p:64 * p + 32] = 5.0
        want[64 * p + 32:64 * p + 64] = 3.0
    want[256:288] = 2.0
    np.testing.assert_array_equal(y, want)
    np.testing.assert_array_equal(y_ref, want)
    assert fast == ref
