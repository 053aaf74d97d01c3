"""Branches of the SIMT simulator's counting that no other test reached (issue 37's branch-coverage report).

Each test reaches one branch the coverage report listed as never taken and asserts what it decides, derived
by hand; each fails when that branch's code is broken (checked by planting the break).
"""

import numpy as np
import pytest

from kernellab.simt import launch


def test_two_atomics_on_one_array_at_one_line_add_their_l2_updates():
    # the loop runs blk.atomic_add twice at one line on the same counter: the second adds to the first's
    # updates per element (one tally, one array), it does not start them again.
    # each call: 32 lanes of one warp on cnt[0], merged 16 at a time → ⌈32 / 16⌉ = 2 L2 updates;
    # two calls → cnt[0] gets 2 + 2 = 4 updates = atomic_same_address; 2 warp instructions = 2 requests
    def k(blk, cnt):
        for _ in range(2):
            blk.atomic_add(cnt, 0, 1)

    cnt = np.zeros(1, np.int32)
    c = launch(k, 1, 32, args=(cnt,))
    assert cnt[0] == 64  # 2 × 32 adds of 1
    assert (c.atomic_same_address, c.atomic_requests) == (4, 2)


def test_a_predicated_inner_regions_idle_warps_count_in_the_outer_region():
    # 96 threads = warps 0, 1, 2. The outer region (tx < 64) is entered by 3 warps, 2 with active lanes;
    # the inner one (tx < 32) by warps 0 and 1, only warp 0 active. Both bodies are short (≤ 12 a warp),
    # so both are predicated: a warp entering with no active lane issues the body too.
    #   prologue: int 2 + other 2 a warp, EXIT ctrl 1 a warp → int 6, other 6, ctrl 3
    #   outer condition on 3 warps: int 3; inner condition on the 2 warps inside: int 2
    #   inner body on warp 0: load (int 1 address, ld 1), store (int 1, st 1)
    #   inner close: 2 − 1 = 1 idle warp issues the body again: int 2, ld 1, st 1
    #   the outer body is then int 2 + 2 + 2 = 6, ld 2, st 2 (10 instructions on 2 warps); its close: 1 idle
    #   warp issues round(n × 1 / 2) of each: int 3, ld 1, st 1
    # int 6 + 3 + 2 + 2 + 2 + 3 = 18, ld 3, st 3 (one each a warp). Were the inner region's idle warp
    # not counted in the outer body (int 4, ld 1, st 1), the outer close would add int 2, ld 0, st 0: 17, 2, 2.
    def k(blk, x):
        with blk.where(blk.tx < 64):
            with blk.where(blk.tx < 32):
                blk.store(x, blk.tx, blk.load(x, blk.tx) + 1)

    x = np.zeros(96, np.float32)
    c = launch(k, 1, 96, args=(x,), auto_instr=True)
    assert x[:32].tolist() == [1.0] * 32 and not x[32:].any()
    assert c.instr_by_kind == {"int": 18, "other": 6, "ctrl": 3, "ld.global": 3, "st.global": 3}


def test_a_site_whose_reference_has_no_active_lane_is_not_a_move():
    # the load's site runs twice with no active lane (tx < 0): the second access cannot be the first moved
    # by j = 1 (no active lane to compare), and counts nothing either: no request, no sector, no store
    def k(blk, x, y):
        for j in range(2):
            with blk.where(blk.tx < 0):
                blk.store(y, blk.tx, blk.load(x, blk.tx + j))

    x, y = np.arange(40, dtype=np.float32), np.zeros(40, np.float32)
    c = launch(k, 1, 32, args=(x, y))
    assert (c.gld_instr, c.gld_sectors, c.gst_instr, c.dram_sectors) == (0, 0, 0, {})
    assert not y.any()


def test_distinct_ids_of_rows_of_no_entry_are_zero():
    # 3 rows of width 0 hold no id: 0 distinct each (the all-valid path's "1 + the changes" would say 1 each)
    from kernellab.access import _distinct_per_row

    got = _distinct_per_row(np.zeros((3, 0), np.int64), np.zeros((3, 0), bool))
    assert got.tolist() == [0, 0, 0]


# --- kernellab.simt.tiled: a held value acts as its lanes array ------------------------------------------------

def _tx():
    # threadIdx.x of a 4-lane block in a batch of 3 blocks: lanes 0 1 2 3 | 0 1 2 3 | 0 1 2 3
    from kernellab.simt.tiled import Tiled

    return Tiled(np.arange(4).reshape(1, 4), 3, 4)


def test_a_value_turned_into_its_lanes_array_answers_as_that_array():
    from kernellab.simt.tiled import Tiled

    y = _tx() * 2 + 1                      # held: 1 3 5 7 in every block
    y[5] = -1                              # a write turns it into its 12 lanes for good
    lanes_ = [1, 3, 5, 7, 1, -1, 5, 7, 1, 3, 5, 7]
    assert type(y) is Tiled and not y.immutable
    assert (y.shape, y.dtype, y.ndim, y.size, len(y)) == ((12,), np.dtype(np.int64), 1, 12, 12)
    assert (np.shape(y), np.ndim(y)) == ((12,), 1)
    as_float = np.asarray(y, dtype=np.float64)  # a converted copy
    assert as_float.dtype == np.float64 and as_float.tolist() == [float(v) for v in lanes_]
    assert y.__array__(np.float64).dtype == np.float64  # the protocol's own answer, before numpy would convert it
    with pytest.raises(ValueError, match="a copy is needed"):
        y.__array__(np.float64, copy=False)
    assert list(y) == lanes_ and -1 in y and repr(y) == repr(np.array(lanes_))  # forwarded to the lanes array
    y.shape = (3, 4)                       # an attribute of the array's, set on it
    assert (y.shape, y.ndim, y.size, len(y)) == ((3, 4), 2, 12, 3)
    assert np.asarray(y).tolist() == [lanes_[0:4], lanes_[4:8], lanes_[8:12]]
    with pytest.raises(ValueError):        # as numpy: an array's elements cannot be deleted
        del y[0]


def test_a_held_values_shape_functions_and_a_conversion_that_copies_nothing():
    tx = _tx()
    assert (np.shape(tx), np.ndim(tx)) == ((12,), 1) and tx.immutable  # asked without turning it into lanes
    assert tx.astype(np.int64, copy=False) is tx                       # no conversion, no copy: the value itself
    assert tx.immutable


def test_a_ufunc_of_two_results_gives_two_held_values():
    # divmod(tx, 3) on one block's lanes 0 1 2 3: quotients 0 0 0 1, remainders 0 1 2 0, in each of the 3 blocks
    from kernellab.simt.tiled import Tiled

    q, r = np.divmod(_tx(), 3)
    assert type(q) is Tiled and type(r) is Tiled
    assert q.tolist() == [0, 0, 0, 1] * 3 and r.tolist() == [0, 1, 2, 0] * 3


def test_operands_not_of_one_held_form_are_computed_on_their_lanes():
    from kernellab.simt.tiled import Tiled

    lanes_ = np.tile(np.arange(4), 3)
    # a held value of 2 dimensions (a lane holds 1 element, shape (12, 1)) plus one of 1: numpy broadcasts the
    # lanes arrays to (12, 12), element [i, j] = lane j's + lane i's; computed on the parts (1, 4, 1) + (1, 4) it
    # would be (1, 4, 4), another value
    column = Tiled(np.arange(4).reshape(1, 4, 1), 3, 4)
    got = column + _tx()
    assert np.asarray(got).shape == (12, 12)
    np.testing.assert_array_equal(np.asarray(got), lanes_[:, None] + lanes_[None, :])
    # a list is no part: the lanes array plus the list, element by element
    assert np.asarray(_tx() + list(range(12))).tolist() == (lanes_ + np.arange(12)).tolist()


def test_lanes_keeps_what_is_not_an_array_of_lanes_as_it_is():
    # kernellab.simt.lanes.lanes: "a numpy array as Lanes counting into counter (anything else as it is)";
    # a 0-d array or a numpy scalar is one value, not lanes: returned as it is, so nothing counts on it
    from kernellab.simt.lanes import Lanes, lanes
    from kernellab.simt.tally import Tally

    counter = Tally()
    scalar, zero_d = np.float32(2.5), np.array(3)
    assert lanes(scalar, counter) is scalar and lanes(zero_d, counter) is zero_d
    assert type(lanes(np.arange(4), counter)) is Lanes


def test_an_unknown_hazard_kind_is_refused_by_name():
    from kernellab.simt.race import hazard_label

    with pytest.raises(ValueError, match="unknown hazard kind 'read-after-read'"):
        hazard_label("read-after-read")


def test_a_kernel_that_is_no_function_and_one_whose_parameters_cannot_be_read():
    from kernellab.errors import LaunchError

    with pytest.raises(LaunchError, match="the arguments do not fit its parameters: 42 is not a callable object"):
        launch(42, 1, 32)
    # dir is a builtin whose signature inspect cannot read (ValueError): its arguments go unchecked, and it runs
    # once a batch (one block: once), on the Block, counting no instruction
    c = launch(dir, 1, 32)
    assert (c.warp_instr, c.gld_instr) == (0, 0)
