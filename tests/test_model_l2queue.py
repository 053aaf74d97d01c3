"""The L2 as a closed queue of each SM's load rounds (kernellab.model.l2queue), derived by hand.

Rates used (kernellab.specs): H100 132 SMs at 1.98 GHz, L2 loads 9.9 TB/s [RRZE gpu-l2-cache, H200], an L2 hit
280 cycles and a DRAM round trip 688 cycles [RRZE gpu-latency], dense fp16 Tensor Cores 989.4 TFLOP/s at the
fitted wgmma efficiency ETA_WGMMA.
"""

import warnings

import pytest

from kernellab import H100, predict
from kernellab.errors import ModelWarning
from kernellab.model.l2queue import L2Queue, hit_round_trip, in_flight, pipelined, throughput
from kernellab.specs import PERF_H100
from kernellab.triton import TritonCounts


def test_exact_mean_value_analysis_for_one_two_and_three_customers():
    # one station of S = 0.5 s, a delay of Z = 1 s.
    # n = 1: R = 0.5, X = 1 ÷ (0.5 + 1) = 2/3, the station holds Q = 2/3 × 0.5 = 1/3
    # n = 2: R = 0.5 × (1 + 1/3) = 2/3, X = 2 ÷ (2/3 + 1) = 1.2, Q = 1.2 × 2/3 = 0.8
    # n = 3: R = 0.5 × 1.8 = 0.9, X = 3 ÷ 1.9 = 1.5789…
    assert throughput(1, (0.5,), 1.0) == pytest.approx(2 / 3, rel=1e-12)
    assert throughput(2, (0.5,), 1.0) == pytest.approx(1.2, rel=1e-12)
    assert throughput(3, (0.5,), 1.0) == pytest.approx(3 / 1.9, rel=1e-12)
    # many customers saturate the station: X → 1 ÷ S = 2, never above
    assert 2 - 1e-9 < throughput(200, (0.5,), 1.0) <= 2 and throughput(20, (0.5,), 1.0) < 2
    # two stations of 0.5 and 0.25 s, no delay: n = 1, X = 1 ÷ 0.75 = 4/3, Q = 2/3 and 1/3;
    # n = 2: R = 0.5 × 5/3 + 0.25 × 4/3 = 5/6 + 1/3 = 7/6, X = 2 ÷ 7/6 = 12/7
    assert throughput(2, (0.5, 0.25), 0.0) == pytest.approx(12 / 7, rel=1e-12)
    with pytest.raises(ValueError, match="at least one customer, not 0"):
        throughput(0, (0.5,), 1.0)


def test_a_queue_takes_its_rounds_at_its_throughput():
    # 3 customers, S = 0.5, Z = 1: X = 3 ÷ 1.9 (above); 30 rounds take 30 × 1.9 ÷ 3 = 19 s, none take none
    q = L2Queue(3, 0.5, 1.0)
    assert q.time(30) == pytest.approx(19.0, rel=1e-12) and q.time(0) == 0.0


def test_a_pipelined_k_loop_keeps_num_stages_minus_one_rounds_in_flight():
    # Triton's pipeliner issues num_stages − 1 trips ahead; one stage, or no dot loop, is one round at a time
    assert [in_flight(s, 8.0) for s in (1, 2, 3, 5)] == [1, 1, 2, 4]
    assert in_flight(4, 0.0) == 1
    # never more than the loop has rounds: its prologue issues min(num_stages − 1, trips); one round at a dot has
    # no later trip to issue ahead, so one in flight, and it is not pipelined (its work follows its load)
    assert [in_flight(5, t) for t in (1.0, 2.0, 3.0, 4.0, 9.0)] == [1, 2, 3, 4, 4]
    assert [pipelined(s, t) for s, t in ((3, 1.0), (3, 2.0), (1, 8.0), (2, 8.0), (3, 0.0))] == [
        False, True, False, True, False]


def test_first_touches_pay_dram_and_the_rest_hit_l2():
    # a quarter of the loaded bytes come from DRAM: 0.75 × 100 + 0.25 × 500 = 200; none: all hits; more DRAM
    # bytes than loaded (a launch that stores more than it loads): all from DRAM
    assert hit_round_trip(4000, 1000, 100.0, 500.0) == pytest.approx(200.0)
    assert hit_round_trip(4000, 0, 100.0, 500.0) == 100.0
    assert hit_round_trip(4000, 8000, 100.0, 500.0) == 500.0


def _one_stage_loop(grid: int, stages: int = 1, trips: int = 8) -> TritonCounts:
    """264 programs (2 an SM), each ``trips`` trips of a 64×64×32 fp16 wgmma dot on two 4 KiB tiles (made by hand:
    the queue reads only the counts' loaded sectors and the launch's rounds)."""
    return TritonCounts(
        programs=grid, flops=grid * trips * 2 * 64 * 64 * 32, dot_flops=grid * trips * 2 * 64 * 64 * 32,
        mma_sm80=grid * trips * 64, mma_sm90=grid * trips * 4, wgmma_sm90=grid * trips * 4,
        load_requests=grid * trips * 2 * 32, load_sectors=grid * trips * 2 * 128, load_lines=grid * trips * 2 * 32,
        load_bytes=grid * trips * 2 * 4096,
        launch={"grid": (grid, 1, 1), "num_warps": 4, "rounds": float(trips), "dot_rounds": float(trips),
                "num_stages": stages})


def _predict(counts, timer):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        return predict(counts, H100, timer=timer)


def test_the_l2_queue_binds_a_warm_unpipelined_loop_and_not_a_cold_one():
    # 264 programs on 132 SMs: 2 an SM, both resident (4 warps, 32 registers: 16 fit). A round is 2 × 4 KiB =
    # 8192 B; the SM's share of the L2, 9.9 TB/s ÷ 132 = 75 GB/s, serves it in S = 8192 ÷ 75e9 = 109.23 ns.
    # A program's work a round, its slowest pipe: its 2 × 32 = 64 load instructions at the LSU's one a cycle and the
    # SIMT efficiency, 64 ÷ 1.98 GHz ÷ η = 48.97 ns, above its dot's 2 × 64 × 64 × 32 = 262 144 FLOP at
    # 989.4 TFLOP/s ÷ 132 × ETA_WGMMA = 43.18 ns.
    # No DRAM bytes are counted, so every round trip is an L2 hit: 280 ÷ 1.98 GHz = 141.41 ns.
    # One stage: 1 round in flight a program, N = 2, think Z = 141.41 + work.
    # n = 1: X = 1 ÷ (S + Z), Q = S·X; n = 2: X = 2 ÷ (S·(1 + Q) + Z); the SM's 2 × 8 rounds take 16 ÷ X.
    s = 8192 / (9.9e12 / 132)
    work = 64 / 1.98e9 / PERF_H100.eta
    assert work > 2 * 64 * 64 * 32 / (989.4e12 / 132 * PERF_H100.eta_wgmma)
    z = 280 / 1.98e9 + work
    q1 = s / (s + z)
    t_queue = 16 / (2 / (s * (1 + q1) + z))
    assert (s * 1e9, z * 1e9) == (pytest.approx(109.23, abs=0.01), pytest.approx(141.41 + work * 1e9, abs=0.01))

    warm = _predict(_one_stage_loop(264), "cudagraph")
    assert (warm["per_sm"], warm["resident"]) == (2, 2)
    assert warm["t_l2_queue"] == pytest.approx(t_queue, rel=1e-9)
    # it binds: above the bandwidth alone (264 × 8 × 8192 B ÷ 9.9 TB/s = 1.748 µs) and the latency path
    # (one turn of 8 L2 round trips + the work: 8 × (141.41 ns + work))
    assert warm["t_l2"] == pytest.approx(264 * 8 * 8192 / 9.9e12, rel=1e-12)
    assert warm["t_latency_path"] == pytest.approx(8 * z, rel=1e-9)
    assert warm["estimate_time"] == pytest.approx(t_queue, rel=1e-9) and warm["estimate_bound"] == "L2 queue"
    assert t_queue > 1.5 * warm["t_l2"]

    # do_bench flushes the L2: the latency path's round trips come from DRAM (688 cycles = 347.47 ns) and take
    # 8 × (347.47 ns + work), longer than the queue, whose rounds still hit (no DRAM bytes): it does not bind
    cold = _predict(_one_stage_loop(264), "do_bench")
    assert cold["t_l2_queue"] == pytest.approx(t_queue, rel=1e-9)
    assert cold["t_latency_path"] == pytest.approx(8 * (688 / 1.98e9 + work), rel=1e-9)
    assert cold["estimate_time"] == pytest.approx(cold["t_latency_path"]) and cold["estimate_bound"] == "latency"


def test_a_pipelined_loop_thinks_only_its_round_trip():
    # three stages: 2 rounds in flight a program, N = 4; the work overlaps the loads ahead, so Z = 141.41 ns.
    # MVA for n = 1 … 4 (S = 109.23 ns as above); the 16 rounds take 16 ÷ X(4), closer to the bandwidth alone
    s, z = 8192 / (9.9e12 / 132), 280 / 1.98e9
    q, x = 0.0, 0.0
    for n in range(1, 5):
        r = s * (1 + q)
        x = n / (r + z)
        q = x * r
    warm = _predict(_one_stage_loop(264, stages=3), "cudagraph")
    assert warm["t_l2_queue"] == pytest.approx(16 / x, rel=1e-9)
    assert warm["t_l2"] < warm["t_l2_queue"] < _predict(_one_stage_loop(264), "cudagraph")["t_l2_queue"]


def test_two_stages_keep_one_round_in_flight_and_think_only_the_round_trip():
    # two stages: the pipeliner issues one trip ahead, so 2 − 1 = 1 round in flight a program (N = 2, as one stage),
    # but the loop is pipelined: trip i's work overlaps trip i + 1's loads, so a customer thinks its round trip
    # only, Z = 280 ÷ 1.98 GHz = 141.41 ns (one stage adds the work to Z).
    # S = 109.23 ns as above; n = 1: Q = S ÷ (S + Z) = 109.23 ÷ 250.64 = 0.4358; n = 2: R = S × 1.4358 = 156.83 ns,
    # X = 2 ÷ (156.83 + 141.41) = 1 ÷ 149.12 ns; the SM's 16 rounds take 16 × 149.12 = 2385.9 ns
    s, z = 8192 / (9.9e12 / 132), 280 / 1.98e9
    q1 = s / (s + z)
    t_queue = 16 / (2 / (s * (1 + q1) + z))
    assert t_queue * 1e9 == pytest.approx(2385.9, abs=0.1)
    warm = _predict(_one_stage_loop(264, stages=2), "cudagraph")
    assert warm["t_l2_queue"] == pytest.approx(t_queue, rel=1e-9)
    assert warm["t_l2_queue"] < _predict(_one_stage_loop(264), "cudagraph")["t_l2_queue"]


def test_one_round_at_a_dot_is_one_in_flight_and_its_work_follows_its_load_whatever_the_stages():
    # a single trip (a lone tl.dot, or a loop of one trip) of three stages: the pipeliner has no later trip to issue
    # ahead, so 1 round in flight a program (N = 2 on the SM) and the work in the think time, as one stage:
    # Z = 141.41 ns + work (work = 64 load instructions ÷ 1.98 GHz ÷ η, as in the first queue test).
    # n = 1: Q = S ÷ (S + Z); n = 2: X = 2 ÷ (S·(1 + Q) + Z); the SM's 2 programs × 1 round take 2 ÷ X.
    s = 8192 / (9.9e12 / 132)
    z = 280 / 1.98e9 + 64 / 1.98e9 / PERF_H100.eta
    q1 = s / (s + z)
    t_queue = 2 / (2 / (s * (1 + q1) + z))
    for stages in (1, 3):
        warm = _predict(_one_stage_loop(264, stages=stages, trips=1), "cudagraph")
        assert warm["t_l2_queue"] == pytest.approx(t_queue, rel=1e-9), stages
