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


def test_the_first_read_after_a_barrier_keeps_two_readers_of_one_element():
    # threads 7 and 8 read element 4 in one instruction, the first read since the barrier: 8 (the later lane) is its
    # reader, 7 the second; thread 8 writing it then finds thread 7's read (write-after-read), thread 9 finds 8's
    for first in (True, False):  # as the first read since the barrier, and after another read was applied
        t = HazardTracker(8)
        if not first:
            t.read(np.array([0]), np.array([1]))
            assert t.write(np.array([1]), np.array([1])) is None  # applies thread 1's read of element 0
        t.barrier()
        assert t.read(np.array([4, 4]), np.array([7, 8])) is None
        hz = t.write(np.array([4]), np.array([8]))
        assert (hz.kind, hz.element, hz.thread, hz.other) == ("write-after-read", 4, 8, 7), first
        t.barrier()
        t.read(np.array([4, 4]), np.array([7, 8]))
        hz = t.write(np.array([4]), np.array([9]))
        assert (hz.kind, hz.element, hz.thread, hz.other) == ("write-after-read", 4, 9, 8), first
    # a read applied since the barrier keeps its reader: thread 1 reads element 4, thread 9's write of element 5
    # applies it; thread 2 reads element 4 (its second reader), and thread 1 writing it finds thread 2, thread 3 thread 1
    for writer, other in ((1, 2), (3, 1)):
        t = HazardTracker(8)
        t.read(np.array([4]), np.array([1]))
        assert t.write(np.array([5]), np.array([9])) is None
        t.read(np.array([4]), np.array([2]))
        hz = t.write(np.array([4]), np.array([writer]))
        assert (hz.kind, hz.element, hz.thread, hz.other) == ("write-after-read", 4, writer, other)


def test_each_block_reads_its_own_copy_of_shared_arrays_of_two_sizes():
    # 3 blocks of 32 threads; s holds 32 floats, t 64: block b writes b + 0.5 to s[tx] and 10·b + tx to t[tx] and
    # t[tx + 32], then thread tx reads s[31 − tx] and t[63 − tx] (another lane's, after the barrier): out[32·b + tx] =
    # b + 0.5 + 10·b + (63 − tx − 32) = 11·b + 31.5 − tx
    def k(blk, out):
        s = blk.shared(32, np.float32, name="s")
        t = blk.shared(64, np.float32, name="t")
        blk.store(s, blk.tx, blk.bx + 0.5)
        v = (10 * blk.bx + blk.tx).astype(np.float32)
        blk.store(t, blk.tx, v)
        blk.store(t, blk.tx + 32, v)
        blk.syncthreads()
        blk.store(out, blk.bx * 32 + blk.tx, blk.load(s, 31 - blk.tx) + blk.load(t, 63 - blk.tx))

    out = np.zeros(96, np.float32)
    launch(k, 3, 32, args=(out,))
    b, tx = np.arange(96) // 32, np.arange(96) % 32
    assert out.tolist() == (11 * b + 31.5 - tx).tolist()
