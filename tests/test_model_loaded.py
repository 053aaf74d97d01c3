"""The round trip under load (kernellab.model.loaded) and the SIMT round trips it multiplies (Block.wait_rounds).

Every expected value is derived by hand from the measured rows of RRZE's gpu-stream (``scale`` kernel) and the
specs' sourced rates; the arithmetic is in the comments.
"""

from __future__ import annotations

import numpy as np
import pytest

from kernellab import Counts, predict
from kernellab.errors import ModelWarning
from kernellab.model.loaded import STREAM_SCALE, loaded_time, queueing_curve, queueing_delay
from kernellab.simt import launch
from kernellab.specs import H100, PERF_H100

NS = 1e-9
L0_H100 = 688 / 1.98e9  # RRZE gpu-latency on the GH200: 688 cycles at the H100's 1.98 GHz = 347.47 ns
SUSTAINED_H100 = 3.35e12 * 3174 / 4000  # the spec sheet × RRZE's scale share (3174 of 4000 GB/s) = 2.6582 TB/s


# --- the measured curve -------------------------------------------------------------------------------------------

def test_curve_point_is_littles_law_over_the_first_row():
    # GH200 row (50688 threads, 1122 GB/s): 50688 × 8 B in flight ÷ 561 GB/s read = 722.82 ns; the first row
    # (2112, 61): 2112 × 8 ÷ 30.5 GB/s = 553.97 ns; so 168.85 ns of queueing at ρ = 1122 ÷ 3174 = 0.35350
    points = dict(queueing_curve("gh200"))
    assert points[1122 / 3174] == pytest.approx(50688 * 8 / 561e9 - 2112 * 8 / 30.5e9, rel=1e-12)
    assert points[1122 / 3174] == pytest.approx(168.85 * NS, abs=0.01 * NS)


def test_curve_does_not_fall():
    # row (21120, 539): 21120 × 8 ÷ 269.5 GB/s − 553.97 = 72.97 ns; the next, (25344, 655), measured
    # 25344 × 8 ÷ 327.5 GB/s − 553.97 = 65.11 ns, is kept at 72.97 (a queue does not shorten as the load grows)
    points = dict(queueing_curve("gh200"))
    assert points[539 / 3174] == pytest.approx(72.97 * NS, abs=0.01 * NS)
    assert points[655 / 3174] == points[539 / 3174]


def test_curve_keeps_only_rows_where_bandwidth_grew():
    # the A40's bandwidth peaks at row 17 (53760 threads, 659 GB/s) and then falls to 653: 17 points, the last
    # at ρ = 1 with 53760 × 8 ÷ 329.5 GB/s − 1344 × 8 ÷ 19.5 GB/s = 1305.25 − 551.38 = 753.87 ns
    curve = queueing_curve("a40")
    assert len(curve) == 17
    assert curve[-1][0] == 1.0
    assert curve[-1][1] == pytest.approx(753.87 * NS, abs=0.01 * NS)


@pytest.mark.parametrize(("gpu", "sms", "rows", "threads", "gbs", "weighted"), [
    ("gh200", 132, 39, 4_532_352, 69_463, 1_846_865),
    ("a100_80", 108, 39, 3_708_288, 43_733, 1_128_111),
    ("a40", 84, 31, 1_658_496, 15_540, 300_232),
])
def test_the_table_is_gpu_stream_s_scale_column_row_for_row(gpu, sms, rows, threads, gbs, weighted):
    # Every curve point above is read off these rows, so each row is checked against the published files
    # (gpu-benches gpu-stream/<gpu>.txt; the same rows in RRZE-HPC's and in the fork xxrjun/gpu-benches@977b087):
    # the row count, the sum of the threads column, of the scale column and of row number × scale, each summed from
    # the file itself (awk 'NR>1 {n++; t+=$2; b+=$9; w+=n*$9} END {print n, t, b, w}' <gpu>.txt), so a digit
    # changed anywhere in the table, or two rows swapped, fails. The threads column is blocks × block size × SMs,
    # with block sizes 16, 32, …, 1024 threads: a multiple of 16 × the SM count (GH200 132, A100 108, A40 84; the
    # first rows 16 × 132 = 2112, 16 × 108 = 1728, 16 × 84 = 1344).
    table = STREAM_SCALE[gpu]
    assert len(table) == rows
    assert sum(t for t, _ in table) == threads
    assert sum(b for _, b in table) == gbs
    assert sum(i * b for i, (_, b) in enumerate(table, 1)) == weighted
    assert table[0][0] == 16 * sms
    assert all(t % (16 * sms) == 0 for t, _ in table)


def test_delay_interpolates_between_rows_and_stops_at_the_ends():
    # between GH200 rows ρ = 1868/3174 = 0.58853 (101376 × 8 ÷ 934 GB/s − 553.97 = 314.33 ns) and
    # ρ = 1969/3174 = 0.62035 (109824 × 8 ÷ 984.5 GB/s − 553.97 = 338.44 ns), at ρ = 0.6:
    # 314.33 + (0.6 − 0.58853) ÷ 0.03182 × 24.11 = 323.02 ns
    assert queueing_delay("H100 SXM", 0.6) == pytest.approx(323.02 * NS, abs=0.02 * NS)
    assert queueing_delay("H100 SXM", 0.01) == 0.0  # below the first row (ρ = 61/3174 = 0.019): nothing queues
    # ρ ≥ 1: the last row, 270336 × 8 ÷ 1587 GB/s − 553.97 = 808.79 ns
    assert queueing_delay("H100 SXM", 1.5) == pytest.approx(808.79 * NS, abs=0.01 * NS)
    assert queueing_delay("A100 SXM 80GB", 0.5) > 0.0  # the A100s read the A100 80GB's file
    assert queueing_delay("no such GPU", 0.5) == 0.0


# --- the fixed point ----------------------------------------------------------------------------------------------

def test_fixed_point_agrees_with_its_own_utilisation():
    # 512 round trips moving 2^29 B (256 MiB read and written) with nothing else to do: T = 512 × (347.47 ns +
    # delay(ρ)), ρ = 2^29 B ÷ (T × 2.6582 TB/s) = 201.97 µs ÷ T. In the segment of the test above:
    # T = 340.59 µs gives ρ = 0.59300, delay = 314.33 + 0.00447 ÷ 0.03182 × 24.11 = 317.72 ns, and
    # 512 × (347.47 + 317.72) ns = 340.58 µs: the same T
    t, rt = loaded_time(lambda rt: 512 * rt, 2**29 / SUSTAINED_H100, 2**29, SUSTAINED_H100, L0_H100, "H100 SXM")
    assert t == pytest.approx(340.59e-6, rel=1e-4)
    assert rt == pytest.approx(665.2 * NS, rel=1e-4)
    assert 512 * rt == pytest.approx(t, rel=1e-12)


def test_other_terms_longer_than_the_path_set_the_time():
    # 124 round trips: even at ρ = 1 (808.79 ns of queueing) the path is 124 × 1156.26 ns = 143.4 µs, under
    # DRAM's 201.97 µs, which then sets the time at ρ = 1
    t_dram = 2**29 / SUSTAINED_H100
    t, rt = loaded_time(lambda rt: 124 * rt, t_dram, 2**29, SUSTAINED_H100, L0_H100, "H100 SXM")
    assert t == t_dram
    assert rt == pytest.approx(L0_H100 + 808.79 * NS, abs=0.01 * NS)


# --- predict: a streaming loop on few SMs and on all ------------------------------------------------------------

def _stream(blocks: int, rounds: int) -> Counts:
    """A copy's counts as predict sees them: 2^29 B of DRAM, ``rounds`` round trips a block, one load
    instruction (so the pipes cost nothing measurable)."""
    return Counts(gld_instr=1, dram_sectors={"x": 2**29 // 32},
                  launch={"grid": (blocks, 1, 1), "block": (256, 1, 1), "smem_per_block": 0, "rounds": rounds})


def test_few_sms_wait_for_loaded_round_trips():
    # 32 blocks of a grid-stride copy, 512 passes: the path is the fixed point above, 340.59 µs, longer than
    # DRAM's 201.97 + 0.35 µs; at the unloaded 347.47 ns it would be 512 × 347.47 ns = 177.9 µs and DRAM would
    # set 202.3 µs
    p = predict(_stream(32, 512), H100, timer="stream")
    assert p["estimate_bound"] == "latency"
    assert p["estimate_time"] == pytest.approx(340.59e-6, rel=1e-4)
    assert p["t_round"] == pytest.approx(665.2 * NS, rel=1e-4)
    assert p["t_fill"] == pytest.approx(L0_H100, rel=1e-12)  # the first round trip: nothing queued yet
    # all 132 SMs, 124 passes: DRAM + the first round trip, 201.97 + 0.35 = 202.31 µs; 340.59 ÷ 202.31 = 1.684
    q = predict(_stream(132, 124), H100, timer="stream")
    assert q["estimate_bound"] == "DRAM"
    assert q["estimate_time"] == pytest.approx(2**29 / SUSTAINED_H100 + L0_H100, rel=1e-12)
    assert p["estimate_time"] / q["estimate_time"] == pytest.approx(1.684, abs=0.001)


def test_a_dram_bound_launch_s_round_trip_is_read_at_dram_s_own_time():
    # all 132 SMs, 124 passes: the longest other term, DRAM + the first round trip = 201.966 + 0.347 = 202.313 µs,
    # sets the time, so the round trip is read at ρ = 201.966 ÷ 202.313 = 0.998282 (not at 1, the utilisation of any
    # shorter time). Between the GH200's last two points, (3155 ÷ 3174 = 0.994014, 261888 × 8 B ÷ 1577.5 GB/s −
    # 553.97 ns = 774.149 ns) and (1, 270336 × 8 ÷ 1587 − 553.97 = 808.785 ns): 774.149 + 0.004269 ÷ 0.005986 ×
    # 34.636 = 798.848 ns of queueing; the round trip 347.475 + 798.848 = 1146.322 ns (1156.26 at ρ = 1), the path
    # 124 × 1146.322 ns = 142.144 µs
    q = predict(_stream(132, 124), H100, timer="stream")
    assert q["estimate_bound"] == "DRAM"
    assert q["t_round"] == pytest.approx(1146.322 * NS, abs=0.001 * NS)
    assert q["t_latency_path"] == pytest.approx(142.144e-6, abs=0.001e-6)


def test_warm_l2_hits_do_not_queue_at_dram():
    # 16 MiB read and written fits in the H100's 50 MB L2: a warm timer's round trips are L2 hits (280 cycles =
    # 141.41 ns), 512 of them 72.40 µs, with no DRAM queueing
    c = Counts(gld_instr=1, dram_sectors={"x": 2**25 // 32},
               launch={"grid": (32, 1, 1), "block": (256, 1, 1), "smem_per_block": 0, "rounds": 512})
    with pytest.warns(ModelWarning):  # one load instruction: a bound below the launch and one round trip
        p = predict(c, H100, timer="stream")
    assert p["t_round"] == pytest.approx(280 / 1.98e9, rel=1e-12)
    assert p["t_latency_path"] == pytest.approx(512 * 280 / 1.98e9, rel=1e-6)  # and the one load's issue, 24 ps


def test_sustained_bandwidth_is_the_perf_s():
    assert SUSTAINED_H100 == pytest.approx(PERF_H100.dram_bw * PERF_H100.dram_efficiency, rel=1e-12)


# --- the SIMT engine's round trips ------------------------------------------------------------------------------

def _copy(blk, src, dst, n):
    """A grid-stride copy, two loads then their two stores a pass."""
    stride = blk.gdx * blk.bdx
    for base in range(0, n, 2 * stride):
        i = base + blk.bx * blk.bdx + blk.tx
        a, b = blk.load(src, i), blk.load(src, i + stride)
        blk.store(dst, i, a)
        blk.store(dst, i + stride, b)


def test_grid_stride_copy_waits_once_a_pass():
    # 1024 elements, 2 blocks × 32 threads, 2 loads a thread a pass: 1024 ÷ (2 × 64) = 8 passes, 8 round trips
    # (the two loads of a pass are issued together; the first store waits for both)
    src = np.arange(1024, dtype=np.float32)
    dst = np.zeros_like(src)
    c = launch(_copy, 2, 32, args=(src, dst, 1024))
    assert np.array_equal(dst, src)
    assert c.launch["rounds"] == 8


def _load_add_store(blk, x, y, out):
    i = blk.tx
    blk.store(out, i, blk.load(x, i) + blk.load(y, i))


def _shared_only(blk, out):
    s = blk.shared(32, np.float32)
    blk.store(s, blk.tx, np.float32(1.0))
    blk.syncthreads()
    blk.store(out, blk.tx, blk.load(s, blk.tx))


def _atomic_after_load(blk, x, bins):
    blk.atomic_add(bins, blk.load(x, blk.tx) % 4, 1)


def _load_unused_until_return(blk, x):
    blk.load(x, blk.tx)


def test_rounds_count_waits_not_loads():
    x = np.arange(32, dtype=np.float32)
    # two loads then one store: one round trip, not two
    assert launch(_load_add_store, 1, 32, args=(x, x.copy(), np.zeros_like(x))).launch["rounds"] == 1
    # shared-memory loads are not global round trips: none
    assert launch(_shared_only, 1, 32, args=(np.zeros(32, np.float32),)).launch["rounds"] == 0
    # an atomic after a load waits for it: one
    ints = np.arange(32, dtype=np.int32)
    assert launch(_atomic_after_load, 1, 32, args=(ints, np.zeros(4, np.int32))).launch["rounds"] == 1
    # a load still pending when the kernel returns: one
    assert launch(_load_unused_until_return, 1, 32, args=(x,)).launch["rounds"] == 1


# --- one fixed point per distinct path (lecture 10's autotuning page asks 1,260 times for 218) ----------------

def _counting_fixed_points(monkeypatch) -> list:
    """Record every fixed point ``predict`` solves (each ``loaded_time`` call), starting from an empty memo."""
    from kernellab.model import estimate
    calls = []

    def counting(*args):
        calls.append(args[1:])
        return loaded_time(*args)

    monkeypatch.setattr(estimate, "loaded_time", counting)
    estimate._loaded_round_trip.cache_clear()
    return calls


def test_equal_launches_share_one_fixed_point(monkeypatch):
    # predict evaluates the estimate at three clocks, the H100's rated 1.98 GHz and its band (1.59, 1.98) GHz:
    # two distinct clocks, so two unloaded round trips (688 cycles ÷ clock) and two fixed points; the same launch
    # predicted again solves none and gives the same floats
    calls = _counting_fixed_points(monkeypatch)
    first = predict(_stream(32, 512), H100, timer="stream")
    assert len(calls) == 2
    assert predict(_stream(32, 512), H100, timer="stream") == first
    assert len(calls) == 2
    # 513 round trips a block is another path, solved anew (two more), not the 512-trip path's round trip
    more = predict(_stream(32, 513), H100, timer="stream")
    assert len(calls) == 4
    assert more["t_round"] != first["t_round"]
    assert more["t_latency_path"] == pytest.approx(513 * more["t_round"], rel=1e-6)


def test_latency_path_by_hand():
    # a K loop of 10 round trips, 8 of them at a tl.dot, num_stages 3, 4 µs of a program's own work, round trip
    # 1 µs: the 2 plain trips cost 2 µs, the first dot trip 1 µs, each of the 8 waits max(0, 1 ÷ 2 − 4 ÷ 8) = 0:
    # 3 µs exposed; critical path 3 + 4 = 7 µs; 2 programs in turn: 14 µs
    from kernellab.model.estimate import LatencyPath
    path = LatencyPath(10.0, 8.0, 3, True, 4e-6, 0, 0.0, 2.0)
    assert path.critical(1e-6) == pytest.approx(7e-6, rel=1e-12)
    assert path(1e-6) == pytest.approx(14e-6, rel=1e-12)
    # a chain of 12 dependent global loads and 0.5 µs of shared ones is longer than the 3 µs exposed:
    # 12 × 1 + 0.5 + 4 = 16.5 µs a program
    chained = LatencyPath(10.0, 8.0, 3, True, 4e-6, 12, 0.5e-6, 2.0)
    assert chained.critical(1e-6) == pytest.approx(16.5e-6, rel=1e-12)
    # without loads no trip is exposed (0 + 4 µs), but the chain's loads still wait: 12.5 + 4 µs
    assert LatencyPath(10.0, 8.0, 3, False, 4e-6, 0, 0.0, 1.0)(1e-6) == pytest.approx(4e-6, rel=1e-12)
    assert LatencyPath(10.0, 8.0, 3, False, 4e-6, 12, 0.5e-6, 1.0)(1e-6) == pytest.approx(16.5e-6, rel=1e-12)
    # paths compare by value, so the memo keys on what the path reads and nothing else
    assert path == LatencyPath(10.0, 8.0, 3, True, 4e-6, 0, 0.0, 2.0) and hash(path) == hash(
        LatencyPath(10.0, 8.0, 3, True, 4e-6, 0, 0.0, 2.0))
    assert path != chained


def test_a_path_at_its_floor_needs_no_bisection():
    # pipes of 5 ms above 12 round trips: at t_other = 1 ms, ρ = 2.66 GB ÷ (1 ms × 2.66 TB/s) = 1, the round trip is
    # 347 + 808.79 ns and the path max(12 × 1.156 µs, 5 ms) = 5 ms, the floor. Every time T below 5 ms has a path of
    # 5 ms > T, so the bisection only raises its lower end and ends at 5 ms: with the floor given, the same floats
    # after one evaluation of the path, not 61
    evaluations = []

    def pipes(rt):
        evaluations.append(rt)
        return max(12 * rt, 5e-3)

    slow = loaded_time(pipes, 1e-3, 2.66e9, 2.66e12, L0_H100, "H100 SXM")
    assert len(evaluations) == 61 and slow[0] == 5e-3
    evaluations.clear()
    assert loaded_time(pipes, 1e-3, 2.66e9, 2.66e12, L0_H100, "H100 SXM", floor=5e-3) == slow
    assert len(evaluations) == 1
    # 4096 round trips are above the floor (4096 × 1.156 µs = 4.7 ms at ρ = 1 but the floor is 1 ms): bisected
    # as without it, the same floats
    evaluations.clear()

    def trips(rt):
        evaluations.append(rt)
        return max(4096 * rt, 1e-3)

    assert loaded_time(trips, 1e-3, 2.66e9, 2.66e12, L0_H100, "H100 SXM", floor=1e-3) == \
        loaded_time(trips, 1e-3, 2.66e9, 2.66e12, L0_H100, "H100 SXM")
    assert len(evaluations) == 2 * 61
