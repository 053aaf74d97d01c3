"""The per-SM model's launch terms (kernellab.model.persm, .timer): how programs spread over the SMs, the
shared memory and registers Triton gives a dot's program, and what each timer reads, derived by hand.

Spec values used (kernellab.specs, [CCtab]): H100 132 SMs, A100 108; 64 resident warps, 32 resident blocks,
65 536 registers (allocated per warp in units of 256) and 1 KB of shared memory reserved per block on both;
228 KB (H100) and 164 KB (A100) of shared memory per SM.
"""

import warnings
from dataclasses import replace

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import launch, occupancy, predict
from kernellab.compiled import compiled_metadata
from kernellab.counters import Counts
from kernellab.errors import ModelWarning
from kernellab.model.persm import DEFAULT_REGS, DOT_REGS_BESIDES, distribute, launch_of, triton_resources
from kernellab.model.timer import (
    FLUSH_BYTES,
    FLUSH_BYTES_2024,
    TIMERS,
    cold_l2,
    flush_seconds,
    launch_overhead,
)
from kernellab.specs import A100, H100, PERF_A100, PERF_H100
from kernellab.triton import TritonCounts


def test_the_spec_values_this_file_derives_from():
    assert (H100.sms, A100.sms, H100.max_warps_per_sm, A100.max_warps_per_sm) == (132, 108, 64, 64)
    assert (H100.max_smem_per_sm, A100.max_smem_per_sm, H100.max_blocks_per_sm) == (228 * 1024, 164 * 1024, 32)
    assert DEFAULT_REGS == 32 and DOT_REGS_BESIDES == 48


# --- distribute: breadth first over the SMs ---------------------------------------------------------------

def test_one_program_more_than_the_sms_doubles_the_busiest_sms_share():
    # 133 programs of 4 warps on 132 SMs: every SM gets one, one SM a second: ⌈133 ÷ 132⌉ = 2, share 2/133.
    # Occupancy: threads 64 // 4 = 16; registers 32 × 32 = 1024 a warp, 65536 // 1024 = 64 warps // 4 = 16;
    # blocks 32: 16 a SM, so one wave (16 × 132 = 2112 ≥ 133) of 133, both of the busiest SM's resident at once
    d = distribute(H100, 133, 128)
    assert (d.sms_used, d.per_sm, d.resident, d.waves, d.tail) == (132, 2, 2, 1, 133)
    assert d.share == 2 / 133 and d.blocks_per_sm == 16 and d.subpartitions == 4
    assert d.resources == "default"  # no registers given: DEFAULT_REGS
    one = distribute(H100, 132, 128)
    assert (one.per_sm, one.share) == (1, 1 / 132)


def test_waves_and_the_tail_of_the_last_wave():
    # 256 threads = 8 warps on the A100: threads 64 // 8 = 8, registers 64 warps // 8 = 8 → 8 a SM, 8 × 108 = 864 a
    # wave. 2 × 864 + 1 = 1729 programs: 3 waves, the last of 1 program; the busiest SM runs ⌈1729 ÷ 108⌉ = 17
    # (108 × 16 = 1728), 8 at once
    d = distribute(A100, 2 * 864 + 1, 256)
    assert (d.waves, d.tail, d.per_sm, d.resident, d.blocks_per_sm) == (3, 1, 17, 8, 8)
    full = distribute(A100, 2 * 864, 256)
    assert (full.waves, full.tail, full.per_sm) == (2, 864, 16)  # a full last wave: its tail is a whole wave


def test_one_warp_programs_use_as_many_subpartitions_as_the_busiest_sm_holds_warps():
    # 1 warp a program: 264 programs on 132 SMs → 2 on each, both resident (64 a SM by threads and registers,
    # 32 by the block limit): 2 warps → 2 of the 4 sub-partitions. 5 × 132 = 660 programs: 5 warps → all 4
    assert [distribute(H100, p, 32).subpartitions for p in (1, 132, 264, 3 * 132, 4 * 132, 5 * 132)] == \
        [1, 1, 2, 3, 4, 4]
    # 2 warps a program, 64 threads: 1 a SM → 2 sub-partitions; 2 a SM → 4 (min(4, 2 × 2))
    assert [distribute(H100, p, 64).subpartitions for p in (132, 264)] == [2, 4]


def test_shared_memory_and_registers_limit_the_programs_resident_at_once():
    # 64 KB a program on the H100: 233472 // (65536 + 1024) = 3 a SM; 40 programs a SM over the launch
    d = distribute(H100, 40 * 132, 128, regs=DEFAULT_REGS, smem=65536)
    assert (d.blocks_per_sm, d.resident, d.per_sm, d.waves, d.resources) == (3, 3, 40, 14, "launch")  # ⌈40/3⌉
    # 255 registers: ⌈255 × 32 ÷ 256⌉ × 256 = 8192 a warp, 65536 // 8192 = 8 warps // 4 = 2 a SM
    assert distribute(H100, 4 * 132, 128, regs=255).resident == 2


def test_a_distribution_without_threads_or_shared_memory_is_4_warps_and_the_runtime_s_kilobyte():
    # no threads given: 128 = 4 warps (Triton's num_warps default, as launch_of's). No smem given: none, so the
    # carve-out holds 164 KB ÷ (0 + 1 KB reserved) = 167936 // 1024 = 164 programs on the A100 and 233472 // 1024 =
    # 228 on the H100 (one byte more a program would give 167936 // 1025 = 163); the warp slots, 64 ÷ 4 warps = 16
    # programs, and the default 32 registers, 65536 ÷ (32 × 32) = 64 warps ÷ 4 = 16, still bind
    a, h = distribute(A100, 1), distribute(H100, 1)
    assert a.warps == h.warps == 4 and a.subpartitions == 4
    assert (a.occupancy.by_shared, h.occupancy.by_shared) == (164, 228)
    assert a.blocks_per_sm == h.blocks_per_sm == 16 and a.occupancy.limiters == ("threads", "registers")


def test_a_launch_with_no_programs_is_refused_and_one_with_unknown_programs_spreads_evenly():
    with pytest.raises(ValueError, match="at least one program, got 0"):
        distribute(H100, 0)
    d = distribute(A100, None, 256)
    # unknown: every SM and every sub-partition, the share of one SM; no occupancy, the GPU's block limit
    assert (d.programs, d.sms_used, d.share, d.subpartitions, d.resources) == (None, 108, 1 / 108, 4, "none")
    assert d.occupancy is None and d.blocks_per_sm == A100.max_blocks_per_sm == 32 and d.warps == 8
    assert (d.per_sm, d.resident, d.waves, d.tail) == (1, 32, 1, 108)  # one wave: a program on each SM


# --- Triton's shared memory and registers for a program of tl.dot ---------------------------------------

def test_a_program_without_a_dot_has_no_shared_memory_and_the_default_registers():
    assert triton_resources({}, 4, H100) == (0, None)
    assert triton_resources({"num_stages": 4, "dot_tile_bytes": 0}, 4, H100) == (0, None)


def test_stages_buffer_the_dot_tiles_one_fewer_on_sm_80():
    tile = 2 * (64 * 32 + 32 * 64)  # fp16 64×32 and 32×64 operand tiles: 8192 B
    res = {(64, 64): 64 * 64}  # 4096 fp32 results ÷ (32 × 4) threads = 32 registers each, + 48
    info = {"num_stages": 3, "dot_tile_bytes": tile, "dot_results": res}
    assert triton_resources(info, 4, H100) == (3 * 8192, 48 + 32)  # sm_90: a buffer a stage
    assert triton_resources(info, 4, A100) == (2 * 8192, 48 + 32)  # sm_80: the first stage is the registers
    # a loop's own tl.range(num_stages=) wins over the launch's; one stage is one buffer on both
    assert triton_resources({**info, "loop_stages": 2}, 4, H100)[0] == 2 * 8192
    assert triton_resources({**info, "num_stages": 1}, 4, A100)[0] == 8192
    assert triton_resources({**info, "num_stages": 1}, 4, H100)[0] == 8192
    assert triton_resources({**info, "num_stages": 0}, 4, H100)[0] == 8192  # at least one buffer
    # no num_stages recorded: Triton's default of 3
    assert triton_resources({"dot_tile_bytes": tile, "dot_results": res}, 4, H100)[0] == 3 * 8192


def test_shared_memory_and_registers_are_capped_at_what_a_program_may_use():
    # 6 stages of 64 KB = 384 KB > 227 KB a block; a 256×256 fp32 result on 4 warps: 65536 ÷ 128 = 512 + 48 > 255
    info = {"num_stages": 6, "dot_tile_bytes": 65536, "dot_results": {(256, 256): 256 * 256}}
    assert triton_resources(info, 4, H100) == (227 * 1024, 255)
    # two distinct result shapes each hold their registers: (64·64 + 64·32) ÷ 128 = 32 + 16
    two = {"num_stages": 2, "dot_tile_bytes": 1024, "dot_results": {(64, 64): 4096, (64, 32): 2048}}
    assert triton_resources(two, 4, H100)[1] == 48 + 48


@pytest.mark.parametrize("name", ["tutorial03_128x128x32_s4_w4", "tutorial03_128x256x64_s3_w8"])
@pytest.mark.parametrize("gpu", [H100, A100], ids=["sm_90", "sm_80"])
def test_the_rule_gives_the_compiled_shared_memory_and_as_many_programs_a_sm(name, gpu):
    # the module's claim: Triton 3.9's compiled shared memory exactly, and registers that allow the same number
    # of resident programs (128×128×32 fp16: 16 KB of tiles; 128×256×64: 48 KB; a stage less on sm_80)
    m = compiled_metadata(name, gpu.arch)
    bm, bn, bk = (int(x) for x in name.split("_")[1].split("x"))
    warps = m["num_warps"]
    info = {"num_stages": m["num_stages"], "dot_tile_bytes": 2 * (bm * bk + bk * bn), "dot_results": {(bm, bn): bm * bn}}
    smem, regs = triton_resources(info, warps, gpu)
    assert smem == m["shared_bytes"]
    rule = occupancy(gpu, 32 * warps, regs, smem).blocks_per_sm
    assert rule == occupancy(gpu, 32 * warps, m["registers"], m["shared_bytes"]).blocks_per_sm


# --- launch_of: the distribution of a launch's counts ------------------------------------------------------

@triton.jit
def _one_dot(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    m, n, k = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + m[:, None] * K + k[None, :])
    b = tl.load(b_ptr + k[:, None] * N + n[None, :])
    tl.store(c_ptr + m[:, None] * N + n[None, :], tl.dot(a, b))


def test_launch_of_a_triton_dot_takes_its_shared_memory_and_registers_from_the_launch():
    # one program of a 64×64×32 fp16 dot, 4 warps, 3 stages: tiles 2 × (64·32 + 32·64) = 8192 B, 3 buffers on
    # the H100 = 24576 B; 64·64 ÷ 128 = 32 + 48 = 80 registers. Resident a SM: smem 233472 // 25600 = 9; registers
    # ⌈80 × 32 ÷ 256⌉ × 256 = 2560 a warp, 65536 // 2560 = 25 warps // 4 = 6; threads 16: 6, limited by registers
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(s).astype(np.float16) for s in ((64, 32), (32, 64)))
    c = np.zeros((64, 64), np.float32)
    counts = _one_dot[(1,)](a, b, c, M=64, N=64, K=32, num_warps=4, num_stages=3)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-2, atol=1e-2)
    d = launch_of(counts, H100)
    assert (d.programs, d.warps, d.sms_used, d.resources) == (1, 4, 1, "launch")
    assert d.blocks_per_sm == 6 and d.occupancy.limiters == ("registers",)
    assert launch_of(counts, A100).occupancy.blocks_per_sm == 6  # 2 buffers: 16384 + 1024 B, 9 by shared memory


def _with_shared(blk, out):
    s = blk.shared(2048, np.float32, name="s")  # 8 KB
    blk.store(s, blk.tx, blk.tx * 1.0)
    blk.syncthreads()
    blk.store(out, blk.bx * blk.bdx + blk.tx, blk.load(s, blk.tx))


def test_launch_of_a_simt_launch_takes_its_blocks_and_shared_memory():
    # 300 blocks of 256 threads and 8 KB: on the A100 threads 64 // 8 = 8, shared 167936 // 9216 = 18 → 8 a SM;
    # ⌈300 ÷ 108⌉ = 3 on the busiest SM. No registers recorded: the default's 32
    out = np.zeros(300 * 256, np.float32)
    c = launch(_with_shared, 300, 256, args=(out,))
    d = launch_of(c, A100)
    assert (d.programs, d.warps, d.per_sm, d.blocks_per_sm, d.resources) == (300, 8, 3, 8, "default")
    assert d.occupancy.by_shared == 18
    # counts without a launch (made by hand, or summed): spread over the whole GPU
    assert launch_of(Counts(warp_instr=10), A100).programs is None


# --- the busiest SM's share in predict --------------------------------------------------------------------

def _warp_instr_kernel(blk, out):
    blk.store(out, blk.bx * blk.bdx + blk.tx, 1.0)


@pytest.mark.parametrize(("blocks", "threads", "per_sm_share", "issue_share"), [
    (132, 64, 1 / 132, 2 / 4),   # one block of 2 warps a SM: 2 of the 4 schedulers
    (264, 64, 2 / 264, 4 / 4),   # two a SM: all four
    (1, 32, 1.0, 1 / 4),         # one warp on one SM: a quarter of its issue rate
])
def test_issue_time_is_the_busiest_sms_share_at_the_schedulers_its_warps_occupy(blocks, threads, per_sm_share,
                                                                                issue_share):
    out = np.zeros(blocks * threads, np.float32)
    c = launch(_warp_instr_kernel, blocks, threads, args=(out,))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        p = predict(c, H100)
    # t_issue = warp instructions × share ÷ (4 a cycle × 1.98 GHz × the schedulers' share)
    assert p["t_issue"] == pytest.approx(c.warp_instr * per_sm_share / (4 * 1.98e9 * issue_share))
    assert p["subpartitions"] == issue_share * 4 and p["programs"] == blocks


# --- what each timer reads ------------------------------------------------------------------------------

@pytest.mark.parametrize("perf", [PERF_H100, PERF_A100], ids=["H100", "A100"])
def test_each_timer_reads_its_own_launch_cost(perf):
    got = dict(zip(TIMERS, (launch_overhead(perf, t) for t in TIMERS), strict=True))
    assert got == {"kernel": 0.0, "do_bench": perf.launch_cold_s, "stream": perf.launch_stream_s,
                   "cudagraph": perf.launch_graph_s, "host": perf.launch_stream_s + perf.launch_s}
    # the measured costs order as their mechanisms do: a graph's launch is the cheapest, the host's the dearest
    assert 0 < perf.launch_graph_s < perf.launch_stream_s < got["host"]


def test_do_bench_hides_a_host_launch_path_up_to_its_flush():
    # Triton 3.9 zeroes 256 MiB = 268 435 456 B; Triton 2.2/2.3 (2024) zeroed 256·10⁶ B.
    assert (FLUSH_BYTES, FLUSH_BYTES_2024) == (268_435_456, 256_000_000)
    # H100: 3.35 TB/s × 3174/4000 = 2.658225 TB/s sustained; 268 435 456 / 2.658225e12 = 100.983 µs,
    # 256e6 / 2.658225e12 = 96.305 µs. A100 80GB: 2039 GB/s × 1737/2039 = 1.737 TB/s; 268 435 456 / 1.737e12
    # = 154.540 µs.
    assert flush_seconds(PERF_H100) * 1e6 == pytest.approx(100.983, abs=5e-4)
    assert flush_seconds(PERF_H100, FLUSH_BYTES_2024) * 1e6 == pytest.approx(96.305, abs=5e-4)
    assert flush_seconds(PERF_A100) * 1e6 == pytest.approx(154.540, abs=5e-4)
    # the driver's host cost of a launch (3.0 µs) is far inside it: do_bench reads none of it
    assert PERF_H100.launch_s < flush_seconds(PERF_H100) and launch_overhead(PERF_H100, "do_bench") == \
        PERF_H100.launch_cold_s


def test_only_the_kernel_timer_and_do_bench_start_with_a_cold_l2():
    assert [t for t in TIMERS if cold_l2(t)] == ["kernel", "do_bench"]
    for bad in ("wall", "Kernel", ""):
        with pytest.raises(ValueError, match="unknown timer"):
            cold_l2(bad)
        with pytest.raises(ValueError, match="unknown timer"):
            launch_overhead(PERF_H100, bad)


# --- the latency path: rounds of loads, pipelined by num_stages ------------------------------------------

def _dot_loop_counts(stages: int, rounds: float = 8.0, dot_rounds: float = 8.0, grid: int = 1, **launch_info):
    """A K loop of ``dot_rounds`` trips, each loading its two tiles for a 64×64×32 fp16 tl.dot (made by hand:
    the latency terms read only these counts and the launch's rounds)."""
    trips = int(dot_rounds)
    return TritonCounts(
        programs=grid, flops=trips * 2 * 64 * 64 * 32, dot_flops=trips * 2 * 64 * 64 * 32,
        mma_sm80=trips * 64, mma_sm90=trips * 4, wgmma_sm90=trips * 4, load_requests=trips * 2 * 32, load_sectors=trips * 2 * 128,
        load_lines=trips * 2 * 32, load_bytes=trips * 2 * 4096,
        launch={"grid": (grid, 1, 1), "num_warps": 4, "rounds": rounds, "dot_rounds": dot_rounds,
                "num_stages": stages, **launch_info})


def _quiet_predict(counts, gpu=H100):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        return predict(counts, gpu)


def test_num_stages_hides_the_k_loops_round_trips_as_the_pipeliner_issues_them_ahead():
    # L = one DRAM round trip (cold L2 under do_bench), D = 8 dot rounds, a = the program's own work. One stage:
    # every trip waits L: D·L + a. S stages issue the loads S − 1 trips ahead: after the first L, a trip waits
    # max(0, L ÷ (S − 1) − a ÷ D), so with a ÷ D < L ÷ 2: S = 2 → L + D·L − a + a = 9L; S = 3 → L + D·L/2 = 5L;
    # with many stages nothing is left but the first trip: L + a, and one stage costs (D − 1)·L more than that
    p = {s: _quiet_predict(_dot_loop_counts(s)) for s in (1, 2, 3, 1000)}
    L = p[1]["t_round"]
    assert L == pytest.approx(PERF_H100.dram_latency_cycles / H100.clock_hz)
    assert p[2]["t_critical"] == pytest.approx(9 * L)
    assert p[3]["t_critical"] == pytest.approx(5 * L)
    assert p[1]["t_critical"] - p[1000]["t_critical"] == pytest.approx(7 * L)
    # a round that is not at a dot (its values used by plain code) is never pipelined: 2 more cost 2L at any S
    plain = _quiet_predict(_dot_loop_counts(3, rounds=10.0))
    assert plain["t_critical"] == pytest.approx(7 * L) and plain["rounds"] == 10.0
    # a loop's own tl.range(num_stages=) is what the pipeliner uses
    assert _quiet_predict(_dot_loop_counts(1, loop_stages=3))["t_critical"] == pytest.approx(5 * L)


def test_the_busiest_sm_runs_its_programs_critical_paths_in_turns_of_those_resident():
    # 40 programs a SM (40 × 132), 16 resident (4 warps, 32 registers: 64 // 4 warps): ⌈40 ÷ 16⌉ = 3 turns;
    # the slowest program waits twice the average's rounds (rounds_max): the last turn is its, 2 paths long
    c = _dot_loop_counts(3, grid=40 * 132)
    p = _quiet_predict(c)
    assert (p["per_sm"], p["resident"]) == (40, 16)
    assert p["t_latency_path"] == pytest.approx(3 * p["t_critical"])
    slow = _quiet_predict(_dot_loop_counts(3, grid=40 * 132, rounds_max=16.0))
    assert slow["t_latency_path"] == pytest.approx((3 - 1 + 2) * slow["t_critical"])


# --- fp8 dots --------------------------------------------------------------------------------------------

@triton.jit
def _dot_of(a_ptr, b_ptr, c_ptr, FP8: tl.constexpr):
    r = tl.arange(0, 64)
    a = tl.load(a_ptr + r[:, None] * 64 + r[None, :])
    b = tl.load(b_ptr + r[:, None] * 64 + r[None, :])
    if FP8:
        a, b = a.to(tl.float8e4nv, bitcast=True), b.to(tl.float8e4nv, bitcast=True)
    tl.store(c_ptr + r[:, None] * 64 + r[None, :], tl.dot(a, b))


def test_an_fp8_wgmma_runs_at_the_fp8_peak_and_the_a100_has_none():
    fp8 = _dot_of[(1,)](np.zeros((64, 64), np.uint8), np.zeros((64, 64), np.uint8), np.zeros((64, 64), np.float32),
                        FP8=True)
    fp16 = _dot_of[(1,)](np.zeros((64, 64), np.float16), np.zeros((64, 64), np.float16),
                         np.zeros((64, 64), np.float32), FP8=False)
    assert fp8.launch.get("fp8") and not fp16.launch.get("fp8")
    assert fp8.mma_sm80 == fp16.mma_sm80 > 0  # the same FP16-equivalent Tensor Core work on sm_80's count
    h8, h16 = _quiet_predict(fp8), _quiet_predict(fp16)
    assert (h8["tensor_kind"], h16["tensor_kind"]) == ("fp8-wgmma", "wgmma")
    # one program of 4 warps: a warpgroup, the SM's whole wgmma rate; fp8 at 1978.9 TFLOP/s, fp16 at 989.4
    assert h8["t_tensor"] / h16["t_tensor"] == pytest.approx(989.4 / 1978.9)
    assert "outside" not in h8
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ModelWarning)
        a8 = predict(fp8, A100)
    assert sum("no fp8 Tensor Cores" in str(w.message) for w in caught) == 1  # besides the launch's warning
    assert a8["tensor_kind"] == "mma" and "A100" in a8["outside"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        assert "outside" not in predict(fp16, A100)

@triton.jit
def _dot_of_warps(a_ptr, b_ptr, c_ptr):
    r = tl.arange(0, 64)
    a = tl.load(a_ptr + r[:, None] * 64 + r[None, :]).to(tl.float8e4nv, bitcast=True)
    b = tl.load(b_ptr + r[:, None] * 64 + r[None, :]).to(tl.float8e4nv, bitcast=True)
    tl.store(c_ptr + r[:, None] * 64 + r[None, :], tl.dot(a, b))


def test_an_fp8_dot_of_two_warps_is_mma_sync_on_sm90_not_wgmma():
    # 64×64×64 fp8 on 2 warps: fewer than a warpgroup, so mma.sync on sm_90, m16n8k32: 64·64·64 / (16·8·32) = 64
    # instructions, against sm_80's m16n8k16 on the inputs converted to fp16: 64·64·64 / (16·8·16) = 128. Fewer sm_90
    # instructions than sm_80's, and still no wgmma: the kind is read from wgmma_sm90 (0), not from that ratio
    c = _dot_of_warps[(1,)](np.zeros((64, 64), np.uint8), np.zeros((64, 64), np.uint8),
                            np.zeros((64, 64), np.float32), num_warps=2)
    assert (c.mma_sm80, c.mma_sm90, c.wgmma_sm90) == (128, 64, 0)
    assert _quiet_predict(c)["tensor_kind"] == "fp8-mma"


# --- the estimate's pipes: a program's Tensor Core and SIMT phases wait for each other ----------------------

def _dot_with_dependent_work(flops: float, xu: float, warps: int = 4, **launch_info):
    """One program of ``warps`` warps whose tl.dot results then get ``flops`` FP32 operations and ``xu`` MUFU
    instructions (per program), made by hand: 64 dots of 64×64×64, wgmma on 4 warps (counted once a warp), mma.sync
    on fewer, no loads, nothing else."""
    return TritonCounts(programs=1, flops=64 * 2 * 64 * 64 * 64, dot_flops=64 * 2 * 64 * 64 * 64, mma_sm80=64 * 128,
                        mma_sm90=64 * 4 if warps == 4 else 64 * 128, wgmma_sm90=64 * 4 if warps == 4 else 0,
                        launch={"grid": (1, 1, 1), "num_warps": warps, "dot_dependent_flops": flops,
                                "dot_dependent_xu": xu, **launch_info})


@pytest.mark.parametrize(("flops", "xu", "warps", "cycles"), [
    (128_000, 0, 4, 1000),      # FP32 pipe: 128 000 ÷ 128 a cycle = 1000; issue 128 000 ÷ 32 ÷ 4 = 1000 too
    (0, 1000, 4, 2000),         # XU: 1000 × 32 lanes ÷ 16 a cycle = 2000; issue 1000 ÷ 4 = 250
    (128_000, 100, 4, 1025),    # issue: (4000 + 100) ÷ 4 = 1025 > FP32's 1000 and XU's 100 × 32 ÷ 16 = 200
    # 2 warps: 2 of the 4 sub-partitions, half of each rate: FP32 2000 (= issue), XU 4000, issue 2050
    (128_000, 0, 2, 2000), (0, 1000, 2, 4000), (128_000, 100, 2, 2050),
])
def test_work_on_dot_results_runs_after_the_dot_unless_warp_specialised(flops, xu, warps, cycles):
    # H100: 128 FP32 lanes, 16 XU results and 4 warp instructions a cycle per SM, at 1.98 GHz; one program of 4
    # warps holds all four sub-partitions. The dots alone bind (no loads: no round trip, no fill, no DRAM, no L2)
    # (a warp-specialised loop: every dot fed by a dot's result, an accumulating K loop, so the SIMT work runs
    # beside all of them; 64 × 2 × 64³ = 33 554 432 FLOPs a program)
    serial = _quiet_predict(_dot_with_dependent_work(flops, xu, warps))
    special = _quiet_predict(_dot_with_dependent_work(flops, xu, warps, warp_specialize=True,
                                                      dot_accumulated_flops=64 * 2 * 64 ** 3))
    kind = "wgmma" if warps == 4 else "mma"
    t_tensor = special["t_tensor"] / (PERF_H100.eta_wgmma if warps == 4 else PERF_H100.eta_mma)
    assert serial["tensor_kind"] == kind and serial["t_round"] == special["t_round"] == 0.0
    assert special["estimate_time"] == pytest.approx(t_tensor)  # overlapped: the Tensor Cores alone
    assert serial["estimate_time"] == pytest.approx(t_tensor + cycles / 1.98e9 / serial["eta"])
    assert serial["t_critical"] == pytest.approx(t_tensor)  # one program alone: its dots, no load chain


def test_a_warp_specialised_loop_hides_its_softmax_only_behind_the_dots_it_feeds():
    # FlashAttention-3's two-stage pipeline (its Algorithm 2): the consumer warpgroup issues the next q·kᵀ and
    # this step's p·v, waits for q·kᵀ, then runs the softmax while p·v (the dot fed by a dot's result) runs:
    # t = T·(1 − a) + max(T·a, S), a = the FLOP share of the dots fed by a dot's result.
    # One program of 4 warps (wgmma, all four sub-partitions) on an H100: 64 dots of 64×64×64 = 33 554 432 FLOPs
    # ÷ (989.4e12 ÷ 132 = 7.4955e12 FLOP/s an SM) = 4.4766 µs, ÷ η_wgmma 0.81 = T = 5.5267 µs. SIMT work on the
    # results: 4000 MUFU warp instructions × 32 lanes ÷ 16 a cycle = 8000 cycles (issue 4000 ÷ 4 = 1000), at
    # 1.98 GHz 4.0404 µs, ÷ η 0.66 = S = 6.1218 µs.
    T = 64 * 2 * 64 ** 3 / (989.4e12 / 132) / PERF_H100.eta_wgmma
    S = 4000 * 32 / 16 / 1.98e9 / PERF_H100.eta
    assert (T * 1e6, S * 1e6) == (pytest.approx(5.5267, abs=1e-4), pytest.approx(6.1218, abs=1e-4))

    def est(specialised, fed, warps=4):
        extra = {"warp_specialize": True} if specialised else {}
        counts = _dot_with_dependent_work(0, 4000, warps, dot_accumulated_flops=fed * 64 * 2 * 64 ** 3, **extra)
        return _quiet_predict(counts)

    # not warp-specialised: in turn, whatever feeds what: 5.5267 + 6.1218 = 11.6485 µs
    assert est(False, 0.25)["estimate_time"] == pytest.approx(T + S)
    # a quarter of the FLOPs fed: 0.75 T = 4.1450 in turn, then max(0.25 T = 1.3817, S) = 6.1218: 10.2668 µs
    p = est(True, 0.25)
    assert p["estimate_time"] == pytest.approx(0.75 * T + S) and p["estimate_bound"] == "pipelined"
    assert p["estimate_time"] * 1e6 == pytest.approx(10.2668, abs=1e-4)
    # none fed: nothing runs beside the SIMT work, T + S; all fed: max(T, S) = S = 6.1218 µs
    assert est(True, 0.0)["estimate_time"] == pytest.approx(T + S)
    assert est(True, 1.0)["estimate_time"] == pytest.approx(S)
    # mma.sync (2 warps) is synchronous: the rule is wgmma's; a warp-specialised mma.sync loop keeps its pipes
    # overlapped, its Tensor Cores alone (the SIMT work here is only the launch's record, no pipe's events)
    m = est(True, 0.25, warps=2)
    assert m["tensor_kind"] == "mma" and m["estimate_time"] == pytest.approx(m["t_tensor"] / PERF_H100.eta_mma)
    assert m["estimate_time"] < est(False, 0.25, warps=2)["estimate_time"]  # in turn without the specialisation


def test_a_warp_specialised_loop_pays_its_first_softmax_and_its_last_pv_alone(monkeypatch):
    import importlib

    estimate_module = importlib.import_module("kernellab.model.estimate")
    # FlashAttention-3's Algorithm 2 per program of n trips, each q·kᵀ (T_qk), p·v (T_pv) and softmax (S_t):
    # a prologue q·kᵀ + softmax that nothing overlaps, n − 1 trips of q·kᵀ + max(p·v, softmax), the last p·v
    # alone: n·T_qk + (n − 1)·max + S_t + T_pv = T·(1 − a) + max(T·a, S) + min(T·a, S) ÷ n.
    # The program of the test above: T = 5.5267 µs, a = 0.5, so T_qk = T_pv = 2.7634 ÷ n.
    T = 64 * 2 * 64 ** 3 / (989.4e12 / 132) / PERF_H100.eta_wgmma

    def est(xu, trips, **extra):
        counts = _dot_with_dependent_work(0, xu, 4, dot_accumulated_flops=0.5 * 64 * 2 * 64 ** 3,
                                          warp_specialize=True, dot_trips=trips, **extra)
        return _quiet_predict(counts)["estimate_time"] * 1e6

    # S = 6.1218 µs (4000 MUFU instructions). Two trips: T_qk = T_pv = 1.3817, S_t = 3.0609: prologue
    # 1.3817 + 3.0609 = 4.4426, one trip 1.3817 + max(1.3817, 3.0609) = 4.4426, epilogue 1.3817: 10.2669 µs
    assert est(4000, 2) == pytest.approx(10.2669, abs=1e-4)
    # four trips: T_qk = T_pv = 0.6908, S_t = 1.5305: prologue 2.2213, three trips 3 × 2.2213 = 6.6640,
    # epilogue 0.6908: 9.5761 µs; the steady state alone (no trips recorded) is 2.7634 + 6.1218 = 8.8851 µs
    assert est(4000, 4) == pytest.approx(9.5761, abs=1e-4)
    assert est(4000, 0) == pytest.approx(8.8851, abs=1e-4)
    # S = 1.5305 µs (1000 instructions), p·v the longer half. Two trips: S_t = 0.7652: prologue 1.3817 + 0.7652
    # = 2.1469, one trip 1.3817 + 1.3817 = 2.7634, epilogue 1.3817: 6.2920 µs; four trips: S_t = 0.3826:
    # prologue 1.0735, three trips 3 × 1.3817 = 4.1450, epilogue 0.6908: 5.9093 µs
    assert est(1000, 2) == pytest.approx(6.2920, abs=1e-4)
    assert est(1000, 4) == pytest.approx(5.9093, abs=1e-4)
    assert T * 1e6 == pytest.approx(5.5267, abs=1e-4)
    # a loop that is not warp-specialised runs in turn, T + S = 11.6485 µs, whatever its trips
    plain = _dot_with_dependent_work(0, 4000, 4, dot_accumulated_flops=0.5 * 64 * 2 * 64 ** 3, dot_trips=2)
    assert _quiet_predict(plain)["estimate_time"] * 1e6 == pytest.approx(11.6485, abs=1e-4)
    # the candidate overlap "async" pipelines such a wgmma loop too, and so pays its two ends: 10.2669 µs; a
    # synchronous mma.sync loop (2 warps) runs in turn and has no ends to pay, whatever its trips
    monkeypatch.setattr(estimate_module, "OVERLAP", ["async"])
    assert _quiet_predict(plain)["estimate_time"] * 1e6 == pytest.approx(10.2669, abs=1e-4)
    mma = {n: _quiet_predict(_dot_with_dependent_work(0, 4000, 2, dot_accumulated_flops=0.5 * 64 * 2 * 64 ** 3,
                                                      dot_trips=n)) for n in (0, 2)}
    assert mma[2]["tensor_kind"] == "mma" and mma[2]["estimate_time"] == mma[0]["estimate_time"]


def _tensor_programs(per_sm: int, tile_bytes: int):
    """``per_sm`` × 132 programs of 4 warps, each 64 dots of 64×64×64 (wgmma) with ``tile_bytes`` of operand tiles
    a stage (3 stages in shared memory on sm_90), 4000 MUFU instructions on their results, after one load of 4
    sectors (one round, not at a dot); made by hand."""
    n = per_sm * 132
    return TritonCounts(programs=n, flops=n * 64 * 2 * 64 ** 3, dot_flops=n * 64 * 2 * 64 ** 3,
                        mma_sm80=n * 64 * 128, mma_sm90=n * 64 * 4, wgmma_sm90=n * 64 * 4, load_requests=n, load_sectors=n * 4,
                        load_lines=n, load_bytes=n * 128,
                        launch={"grid": (n, 1, 1), "num_warps": 4, "rounds": 1.0, "dot_rounds": 0.0,
                                "num_stages": 3, "dot_tile_bytes": tile_bytes, "dot_results": {(64, 64): 4096},
                                "dot_dependent_xu": 4000.0})


@pytest.mark.parametrize(("per_sm", "tile_bytes", "resident", "starts"), [
    (1, 64 * 1024, 1, 1), (2, 64 * 1024, 1, 2), (3, 64 * 1024, 1, 3),   # 3 × 64 KB: one program a SM
    (4, 32 * 1024, 2, 1),                                                 # 3 × 32 KB: two a SM, 2 turns
])
def test_a_program_alone_on_its_sm_waits_for_its_first_loads_with_the_sm_idle(per_sm, tile_bytes, resident,
                                                                                starts):
    # Each program: its Tensor Cores T = 5.5267 µs, then its SIMT work S = 6.1218 µs (not warp-specialised: in
    # turn), 11.6485 µs. 3 stages × 64 KB = 192 KB of shared memory: one program a SM (228 KB), and each turn
    # starts with a round trip for its first loads that nothing on the SM overlaps, L = 688 cycles ÷ 1.98 GHz =
    # 347.47 ns (no DRAM bytes: unloaded): 3 programs a SM, 3 × 11.6485 + 3 × 0.34747 = 35.9880 µs. With 2
    # resident (96 KB each), one program's work runs while the other waits: only the launch's first round trip,
    # 4 × 11.6485 + 0.34747 = 46.9416 µs.
    p = _quiet_predict(_tensor_programs(per_sm, tile_bytes))
    L = 688 / 1.98e9
    work = 64 * 2 * 64 ** 3 / (989.4e12 / 132) / PERF_H100.eta_wgmma + 4000 * 32 / 16 / 1.98e9 / PERF_H100.eta
    assert p["estimate_time"] == pytest.approx(per_sm * work + starts * L) and p["estimate_bound"] == "serial"
    assert (p["per_sm"], p["resident"], p["t_round"]) == (per_sm, resident, pytest.approx(L))
    assert p["t_starts"] == pytest.approx(starts * L)
    if per_sm in (3, 4):
        assert p["estimate_time"] * 1e6 == pytest.approx({3: 35.9880, 4: 46.9416}[per_sm], abs=1e-4)


def test_the_later_programs_alone_on_an_sm_wait_this_launchs_loaded_round_trip():
    # the 3-programs-a-SM launch above, now reading 64 MiB from DRAM (64 MiB ÷ (3.35 TB/s × 3174/4000) = 25.2457 µs
    # sustained): the first program waits the unloaded 688 cycles (nothing queues yet), the two later ones the
    # launch's own round trip, loaded by its DRAM traffic at ρ = 25.2457 µs ÷ T (kernellab.model.loaded), where
    # T = 3 × 11.6485 + 0.34747 + 2 × (0.34747 + q(ρ)). At T = 36.7589 µs, ρ = 0.68679, between gpu-stream's rows
    # at ρ 0.68179 (382.96 ns) and 0.71487 (399.18 ns): q = 382.96 + 0.00500 ÷ 0.03308 × 16.21 = 385.42 ns, a
    # round trip of 732.89 ns, and 34.9456 + 0.34747 + 2 × 0.73289 = 36.7589 µs; starts 347.47 + 2 × 732.89 ns
    counts = _tensor_programs(3, 64 * 1024)
    p = _quiet_predict(replace(counts, dram_sectors={"x": (64 << 20) // 32}))
    L = 688 / 1.98e9
    assert p["estimate_time"] * 1e6 == pytest.approx(36.7589, abs=1e-4) and p["estimate_bound"] == "serial"
    assert p["t_fill"] == pytest.approx(L) and p["t_round"] * 1e9 == pytest.approx(732.89, abs=0.01)
    assert p["t_starts"] * 1e9 == pytest.approx(347.47 + 2 * 732.89, abs=0.02)


def test_programs_alone_on_an_sm_that_mostly_wait_for_their_first_loads_are_latency_bound():
    # 3 × 132 programs of 4 warps, each one load (4 sectors) and nothing else, 3 stages × 64 KB of tiles: one
    # program a SM, so the three on an SM each wait an unloaded round trip in turn, t_starts = 3 × 347.47 ns =
    # 1042.42 ns, beside work of at most 3 × 4 warp instructions = 12 cycles = 6.06 ns. The pipes' term is that work +
    # the starts, and its waits (1042.42 ns) outweigh the rest (≤ 6.06 ns): the round trips bind, "latency"
    n = 3 * 132
    counts = TritonCounts(programs=n, load_requests=n, load_sectors=n * 4, load_lines=n, load_bytes=n * 128,
                          launch={"grid": (n, 1, 1), "num_warps": 4, "rounds": 1.0, "dot_rounds": 0.0,
                                  "num_stages": 3, "dot_tile_bytes": 64 * 1024})
    p = _quiet_predict(counts)
    L = 688 / 1.98e9
    assert (p["per_sm"], p["resident"]) == (3, 1)
    assert p["t_starts"] == pytest.approx(3 * L) and p["t_fill"] == pytest.approx(L)
    assert 0 < p["estimate_time"] - p["t_starts"] <= 12 / 1.98e9
    assert p["estimate_bound"] == "latency"


def test_the_pipelined_term_is_named_in_both_languages(monkeypatch):
    from kernellab.model import estimate_label

    monkeypatch.setenv("KERNELLAB_LANG", "zh_CN")
    assert estimate_label("pipelined") == "Tensor Core 与 SIMT 两级流水并行"
    monkeypatch.setenv("KERNELLAB_LANG", "en")
    assert (estimate_label("pipelined"), estimate_label("serial")) == ("Tensor Cores beside SIMT, two stages",
                                                                        "Tensor Cores, then SIMT")


def test_one_trip_of_a_k_loop_is_pipelined_too():
    # D = 1: one stage waits L; two stages: the first L, then max(0, L − a) more, with a < L: 2L in all
    one = _quiet_predict(_dot_loop_counts(1, rounds=1.0, dot_rounds=1.0))
    two = _quiet_predict(_dot_loop_counts(2, rounds=1.0, dot_rounds=1.0))
    L = one["t_round"]
    assert two["t_critical"] == pytest.approx(2 * L) and L < one["t_critical"] < 2 * L
