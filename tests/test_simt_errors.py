"""Each error the simulator raises, with the place named as compute-sanitizer would name it."""

import numpy as np
import pytest

from kernellab import A6000, BarrierError, LaunchError, MisalignedError, OutOfBoundsError
from kernellab.simt import launch


def test_out_of_bounds_global_names_everything():
    def sgemm_naive(blk, A, n):
        blk.load(A, blk.bx * blk.bdx + blk.tx + 12800 - 3 * 32 - 17)

    with pytest.raises(IndexError) as e:
        launch(sgemm_naive, 4, 32, args=(np.zeros(5000, np.float32), 5000))
    assert isinstance(e.value, OutOfBoundsError)
    # block 0 lane 0 reads 12800 − 113 = 12687 already: the first offending thread in launch order
    assert str(e.value) == "kernel sgemm_naive, block (0,0,0), thread (0,0,0): load A[12687] out of bounds (size 5000)"


def test_out_of_bounds_first_offender_is_reported():
    def k(blk, out):
        blk.store(out, blk.bx * 64 + blk.tx, 1.0)  # 100 elements: block 1 thread 36 is the first outside

    with pytest.raises(OutOfBoundsError, match=r"block \(1,0,0\), thread \(36,0,0\): store out\[100\] out of bounds \(size 100\)"):
        launch(k, 2, 64, args=(np.zeros(100, np.float32),))


def test_negative_index_and_3d_place():
    def k(blk, x):
        with blk.where((blk.by == 1) & (blk.tz == 1) & (blk.ty == 2) & (blk.tx == 3)):
            blk.load(x, -1)

    with pytest.raises(OutOfBoundsError, match=r"block \(0,1,0\), thread \(3,2,1\): load x\[-1\]"):
        launch(k, (1, 2), (4, 4, 2), args=(np.zeros(8, np.float32),))


def test_masked_lanes_are_not_checked():
    def k(blk, x, n):
        i = blk.tx
        with blk.where(i < n):
            blk.load(x, i)

    assert launch(k, 1, 64, args=(np.zeros(10, np.float32), 10)).gld_instr == 1


def test_out_of_bounds_shared():
    def k(blk):
        s = blk.shared(16, np.float32, name="tile")
        blk.store(s, blk.tx, 0.0)

    with pytest.raises(OutOfBoundsError, match=r"thread \(16,0,0\): store shared tile\[16\] out of bounds \(size 16\)"):
        launch(k, 1, 32)


def test_a_negative_shared_index_is_named_on_the_reference_and_the_moved_path():
    # compute-sanitizer's invalid __shared__ read names the kernel, block, thread, array and index. The first access
    # of a site is checked lane by lane (the reference path); a later one that is it moved by d elements is counted
    # from it (kernellab.simt.shifts) only while its lowest active index + d ≥ 0. Block b's thread t reads tile[t − b]
    # (block 1's thread 0: tile[−1]); in the loop tile[t + 32 − 32·i − b]: i = 0 reads 32 − b … 63 − b, i = 1 is that moved
    # by −32 (block 1's thread 0 at −1: the move is refused and the lane named), i = 2 is not reached
    def at_once(blk, x):
        s = blk.shared(64, np.float32, name="tile")
        blk.store(s, blk.tx, 1.0)
        blk.syncthreads()
        blk.store(x, blk.bx * 32 + blk.tx, blk.load(s, blk.tx - blk.bx))

    def moved(blk, x):
        s = blk.shared(64, np.float32, name="tile")
        blk.store(s, blk.tx, 1.0)
        blk.syncthreads()
        for i in range(3):
            blk.store(x, blk.bx * 32 + blk.tx, blk.load(s, blk.tx + 32 - 32 * i - blk.bx))

    for kernel in (at_once, moved):
        with pytest.raises(OutOfBoundsError) as e:
            launch(kernel, 2, 32, args=(np.zeros(64, np.float32),))
        assert str(e.value) == (f"kernel {kernel.__name__}, block (1,0,0), thread (0,0,0): load shared tile[-1] out of "
                                "bounds (size 64)")
        assert {k: e.value.details[k] for k in ("kernel", "block", "thread", "array", "index", "shared")} == {
            "kernel": kernel.__name__, "block": "(1,0,0)", "thread": "(0,0,0)", "array": "tile", "index": -1,
            "shared": True}

    def masked(blk, x):  # the same loop with the lanes below 0 off: nothing to name, every pass counted
        s = blk.shared(64, np.float32, name="tile")
        blk.store(s, blk.tx, 1.0)
        blk.syncthreads()
        for i in range(3):
            j = blk.tx + 32 - 32 * i - blk.bx
            blk.store(x, blk.bx * 32 + blk.tx, blk.load(s, j, mask=j >= 0))

    # 2 blocks × 1 warp, each a shared store and 3 shared loads: i = 0 and i = 1 keep lanes on (t + 32 − b ≥ 0,
    # t − b ≥ 0 for t ≥ b), i = 2 none (t − 32 − b < 0), and a warp with no lane on issues nothing: 2 + 2 + 0 = 4
    c = launch(masked, 2, 32, args=(np.zeros(64, np.float32),))
    assert (c.shst_instr, c.shld_instr) == (2, 4)


def test_float4_past_the_end():
    def k(blk, x):
        blk.load(x, 4 * blk.tx, vec=4)

    with pytest.raises(OutOfBoundsError, match=r"thread \(2,0,0\): load float4 x\[8\] out of bounds \(size 10\)"):
        launch(k, 1, 4, args=(np.zeros(10, np.float32),))


def test_misaligned_vector_access():
    def k(blk, x):
        blk.load(x, 4 * blk.tx + 2, vec=4)

    with pytest.raises(MisalignedError, match=r"thread \(0,0,0\): load float4 x\[2\] misaligned \(byte address 8 is not a multiple of 16\)"):
        launch(k, 1, 4, args=(np.zeros(64, np.float32),))
    assert issubclass(MisalignedError, IndexError)


def test_misaligned_vectors_of_narrow_elements():
    # a byte address must be a multiple of the vector's width: int8 pairs (2 B) from element 1 start on byte 1 (odd);
    # float16 pairs (4 B) from element 3 on byte 6 (2 mod 4); float16 quads (8 B) from element 6 on byte 12 (4 mod 8).
    # Lanes 0–2 of an 8-lane warp are off (thread 3 is the first active), and elements 2, 4, 8 are aligned
    def k(blk, x, first, vec):
        with blk.where(blk.tx >= 3):
            blk.load(x, first + 0 * blk.tx, vec=vec)

    cases = [(np.int8, 1, 2, "float2 x[1] misaligned (byte address 1 is not a multiple of 2)"),
             (np.float16, 3, 2, "float2 x[3] misaligned (byte address 6 is not a multiple of 4)"),
             (np.float16, 6, 4, "float4 x[6] misaligned (byte address 12 is not a multiple of 8)")]
    for dtype, first, vec, text in cases:
        with pytest.raises(MisalignedError) as e:
            launch(k, 1, 8, args=(np.zeros(64, dtype), first, vec))
        assert str(e.value) == f"kernel k, block (0,0,0), thread (3,0,0): load {text}"
    for dtype, first, vec in ((np.int8, 2, 2), (np.float16, 4, 2), (np.float16, 8, 4)):
        launch(k, 1, 8, args=(np.zeros(64, dtype), first, vec))  # aligned: no error


def test_divergent_syncthreads():
    def k(blk):
        with blk.where(blk.tx < 40):
            blk.syncthreads()

    with pytest.raises(BarrierError, match=r"block \(0,0,0\), thread \(40,0,0\): does not reach syncthreads, which 40 of the block's 64"):
        launch(k, 1, 64)


def test_barrier_skipped_by_whole_blocks_is_fine():
    def k(blk):
        with blk.where(blk.bx == 0):
            blk.syncthreads()

    c = launch(k, 3, 64, auto_instr=False)  # the barriers alone (no automatic integer/branch counts)
    assert c.barriers == 1 and c.instr_by_kind == {"bar.sync": 2}


@pytest.mark.parametrize("block, message", [
    ((32, 33), "block (32,33,1) has 1056 threads; RTX A6000 allows at most 1024 per block"),
    ((1, 1, 65), "block dimension z = 65 exceeds the limit 64"),
    (0, "dimensions must be positive"),
    ((1, 2, 3, 4), "1 to 3 dimensions"),
])
def test_launch_shape_errors(block, message):
    with pytest.raises(LaunchError, match=message.replace("(", r"\(").replace(")", r"\)")):
        launch(lambda blk: None, 1, block)


def test_launch_error_is_a_value_error():
    with pytest.raises(ValueError, match="kernel k: grid dimension y = 70000"):
        launch(lambda blk: None, (1, 70000), 1, name="k")


def test_too_much_shared_memory():
    def k(blk):
        blk.shared(A6000.max_smem_per_block // 4, np.float32, name="a")  # exactly the limit: fine
        blk.shared(1, np.float32, name="b")

    with pytest.raises(LaunchError, match=f"shared memory {A6000.max_smem_per_block + 4} bytes per block \\(with b\\) exceeds the limit of {A6000.max_smem_per_block}"):
        launch(k, 1, 32)


@pytest.mark.parametrize("arg, kind", [([1.0, 2.0], "list"), ("x", "str"), (None, "NoneType")])
def test_wrong_argument_kind(arg, kind):
    def k(blk, x):
        pass

    with pytest.raises(LaunchError, match=f"argument x is a {kind}"):
        launch(k, 1, 32, args=(arg,))


def test_non_contiguous_array_refused():
    def k(blk, x):
        pass

    with pytest.raises(LaunchError, match="argument x must be a C-contiguous"):
        launch(k, 1, 32, args=(np.zeros((4, 4), np.float32).T,))


def test_arguments_must_fit_the_kernel():
    def k(blk, x):
        pass

    with pytest.raises(LaunchError, match="do not fit its parameters") as e:
        launch(k, 1, 32, args=(1, 2))
    assert isinstance(e.value.__cause__, TypeError)


def test_indices_of_a_shape_that_is_not_per_lane():
    def k(blk, out):
        blk.load(out, np.arange(5))  # 5 indices for 32 lanes

    with pytest.raises(ValueError, match=r"kernel k: an index must be a scalar, a vector over the 32 lanes, or lanes × "
                                         r"instructions; got shape \(5,\)"):
        launch(k, 1, 32, args=(np.zeros(8, np.float32),))

    def two_per_lane(blk, out):
        blk.atomic_add(out, np.zeros((32, 2), np.int64), 1.0)

    with pytest.raises(ValueError, match=r"two_per_lane: blk.atomic_add takes one index per lane, got shape \(32, 2\)"):
        launch(two_per_lane, 1, 32, args=(np.zeros(8, np.float32),))


def test_a_shared_array_of_another_launch_is_refused():
    kept = []

    def declare(blk, out):
        kept.append(blk.shared(32, np.float32, name="sh"))

    def reuse(blk, out):
        blk.store(kept[0], blk.tx, 1.0)

    launch(declare, 1, 32, args=(np.zeros(1, np.float32),))
    with pytest.raises(ValueError, match="kernel reuse: shared array sh was declared by another launch"):
        launch(reuse, 1, 32, args=(np.zeros(1, np.float32),))


def test_an_array_the_kernel_meets_names_the_kernel():
    table = np.arange(64, dtype=np.float32)[::2]  # every other element of its memory: not C-contiguous

    def lookup(blk, out):
        blk.store(out, blk.tx, blk.load(table, blk.tx))  # `table` is no argument: placed where first used

    with pytest.raises(LaunchError, match=r"kernel lookup: global array \w+ must be a C-contiguous numeric numpy array"):
        launch(lookup, 1, 32, args=(np.zeros(32, np.float32),))
