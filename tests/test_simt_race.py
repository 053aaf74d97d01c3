"""Shared-memory hazards between barriers: each kind detected, named, and collectable as a report."""

import numpy as np
import pytest

from kernellab import RaceError
from kernellab.simt import HazardTracker, launch


def shift_kernel(barrier: bool):
    """Each thread writes s[t], then reads s[t+1] (its right neighbour's write)."""
    def kernel(blk, out):
        s = blk.shared(33, np.float32, name="s")
        blk.store(s, blk.tx, blk.tx.astype(np.float32))
        if barrier:
            blk.syncthreads()
        blk.store(out, blk.tx, blk.load(s, (blk.tx + 1) % 32))
    return kernel


def test_read_after_write():
    with pytest.raises(RaceError) as e:
        launch(shift_kernel(False), 1, 32, args=(np.zeros(32, np.float32),))
    assert str(e.value) == (
        "kernel kernel, block (0,0,0), thread (0,0,0): read-after-write hazard on shared s[1] (byte 4): "
        "thread (0,0,0) reads what thread (1,0,0) wrote, with no syncthreads between")
    assert isinstance(e.value, RuntimeError)


def test_barrier_removes_the_hazard():
    out = np.zeros(32, np.float32)
    launch(shift_kernel(True), 1, 32, args=(out,))
    assert out.tolist() == [float((t + 1) % 32) for t in range(32)]


def test_write_after_read():
    def k(blk):
        s = blk.shared(32, np.float32, name="s")
        blk.store(s, blk.tx, 0.0)
        blk.syncthreads()
        blk.load(s, 0 * blk.tx)          # everybody reads s[0]
        with blk.where(blk.tx == 5):
            blk.store(s, 0, 1.0)         # thread 5 overwrites it

    with pytest.raises(RaceError, match=r"thread \(5,0,0\): write-after-read hazard on shared s\[0\] \(byte 0\): "
                                        r"thread \(5,0,0\) writes what thread \(\d+,0,0\) read"):
        launch(k, 1, 32)


def test_write_after_write_and_same_instruction():
    def k(blk):
        s = blk.shared(32, np.float32, name="s")
        with blk.where(blk.tx == 3):
            blk.store(s, 7, 1.0)
        with blk.where(blk.tx == 4):
            blk.store(s, 7, 2.0)

    with pytest.raises(RaceError, match=r"write-after-write hazard on shared s\[7\].*thread \(4,0,0\) writes what thread \(3,0,0\) wrote"):
        launch(k, 1, 32)

    def same(blk):
        s = blk.shared(32, np.float32, name="s")
        blk.store(s, blk.tx // 2, 1.0)  # threads 2i and 2i+1 write one element in one instruction

    with pytest.raises(RaceError, match="write-after-write"):
        launch(same, 1, 32)


def test_own_accesses_are_not_hazards():
    def k(blk):
        s = blk.shared(32, np.float32, name="s")
        blk.store(s, blk.tx, 1.0)
        v = blk.load(s, blk.tx)
        blk.store(s, blk.tx, v + 1)

    assert launch(k, 1, 32).shst_instr == 2


def test_blocks_do_not_race_with_each_other():
    def k(blk):
        s = blk.shared(1, np.float32, name="s")
        with blk.where(blk.tx == 0):
            blk.store(s, 0, blk.bx.astype(np.float32))   # one writer per block

    assert launch(k, 4, 32).shst_instr == 4


def test_hazards_collected_as_a_report():
    found = []
    out = np.zeros(32, np.float32)
    launch(shift_kernel(False), 1, 32, args=(out,), hazards=found)
    assert len(found) == 1 and isinstance(found[0], RaceError) and "read-after-write" in str(found[0])


def test_racecheck_off():
    launch(shift_kernel(False), 1, 32, args=(np.zeros(32, np.float32),), racecheck=False)


def test_tracker_vector_and_second_reader():
    t = HazardTracker(8)
    assert t.read(np.array([2, 2]), np.array([1, 1])) is None      # thread 1 twice
    assert t.read(np.array([2]), np.array([3])) is None             # thread 3: a second reader
    hz = t.write(np.array([2]), np.array([1]))                      # thread 1 writes: thread 3 read it
    assert (hz.kind, hz.element, hz.thread, hz.other) == ("write-after-read", 2, 1, 3)


def test_tracker_after_a_barrier_sees_only_what_came_after_it():
    # the first write after a barrier looks at no reader and no writer when none came since: each step by hand
    t = HazardTracker(8)
    assert t.write(np.array([0, 1]), np.array([10, 11])) is None     # nothing since the barrier (the start)
    t.barrier()
    assert t.read(np.array([1]), np.array([10])) is None              # a read waiting to be applied, no writer
    hz = t.write(np.array([1]), np.array([11]))                       # applied first: thread 10 read element 1
    assert (hz.kind, hz.element, hz.thread, hz.other) == ("write-after-read", 1, 11, 10)
    t.barrier()
    assert t.write(np.array([2]), np.array([3])) is None              # the barrier dropped the reader and writer of 1
    hz = t.write(np.array([2]), np.array([4]))                        # no read since: the writer decides
    assert (hz.kind, hz.element, hz.thread, hz.other) == ("write-after-write", 2, 4, 3)
    t.barrier()
    hz = t.write(np.array([5, 5]), np.array([6, 7]))                  # two threads, one element, one instruction:
    assert (hz.kind, hz.element, hz.thread, hz.other) == ("write-after-write", 5, 6, 7)   # the later lane wins it
    t.barrier()
    assert t.read(np.array([3]), np.array([1])) is None
    t.barrier()                                                       # the read is dropped unapplied
    assert t.write(np.array([3]), np.array([2])) is None


def test_a_two_column_store_names_the_lanes_lane_by_lane():
    # every lane t of one warp stores s[t] and s[t + 1] in one instruction (an index of lanes × 2), all active: in
    # lane order the elements are 0, 1 | 1, 2 | 2, 3 … and element 1 is written by lane 0 (its second) and then
    # lane 1 (its first), which keeps it: the first lane whose write did not stay is lane 0, at s[1], lane 1's
    def k(blk):
        s = blk.shared(33, np.float32, name="s")
        blk.store(s, np.stack([blk.tx, blk.tx + 1], axis=1), 1.0)

    found = []
    launch(k, 1, 32, hazards=found)
    assert [str(h) for h in found] == [
        "kernel k, block (0,0,0), thread (0,0,0): write-after-write hazard on shared s[1] (byte 4): "
        "thread (0,0,0) writes what thread (1,0,0) wrote, with no syncthreads between"]

    def masked(blk):  # the same with lane 0 off: lane 1 at s[2], lane 2's
        s = blk.shared(33, np.float32, name="s")
        with blk.where(blk.tx > 0):
            blk.store(s, np.stack([blk.tx, blk.tx + 1], axis=1), 1.0)

    launch(masked, 1, 32, hazards=found)
    assert "thread (1,0,0): write-after-write hazard on shared s[2] (byte 8): thread (1,0,0) writes what " \
           "thread (2,0,0) wrote" in str(found[1])
