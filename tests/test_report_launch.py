"""The report's predicted Speed Of Light, its Launch Statistics and Occupancy sections and its launch findings
(issue 32, item 10): each finding fires on a launch built to trigger it and stays quiet on one that does not.

H100 SXM, by hand: 132 SMs, 64 warps, 32 blocks, 65 536 registers and 233 472 B of shared memory per SM, a
1 KB runtime reservation per block; registers are allocated in units of 256 per warp; a launch that gives
no register count is charged kernellab.model.persm.DEFAULT_REGS = 32 a thread (1024 a warp).
"""

import numpy as np
import pytest

import kernellab as kl
import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import A100, H100, launch
from kernellab.metrics import values
from kernellab.profile import LIMIT_METRICS, findings, launch_findings


def store_one(blk, y):
    blk.store(y, blk.bx * blk.bdx + blk.tx, blk.tx * 0.0)


def run(blocks, threads):
    return launch(store_one, blocks, threads, args=(np.empty(blocks * threads, np.float32),))


def rules(counts, gpu=H100):
    return [f.rule for f in launch_findings(counts, gpu)]


def section(report, title):
    return next(s for s in report.sections if s.title == title)


def row(sec, label):
    return next(r for r in sec.table.rows if r[0] == label)


def test_small_grid_fires_below_the_sm_count_and_not_at_it():
    # 64-thread blocks (2 warps): threads 64 // 2 = 32, registers (65 536 // 1024) // 2 = 32, blocks 32: 32 a
    # SM, 64 warps, 100 % occupancy; one wave holds 32 × 132 = 4224 blocks, so neither 131 nor 132 has a tail
    assert rules(run(131, 64)) == ["small grid"]  # 131 blocks < 132 SMs: one SM idles
    assert rules(run(132, 64)) == []  # every SM gets a block
    f = launch_findings(run(64, 64), H100)[0]
    assert (f.metric, f.value) == ("launch__grid_size", 64)
    assert "68 SMs get no work" in f.message  # 132 − 64
    # the same 64 blocks on the A100's 108 SMs: 44 idle
    assert "44 SMs get no work" in launch_findings(run(64, 64), A100)[0].message


def test_a_partial_last_wave_fires_and_a_full_one_does_not():
    # 1024-thread blocks (32 warps): threads 64 // 32 = 2, registers (65 536 // 1024) // 32 = 2: 2 a SM, so a
    # wave is 2 × 132 = 264 blocks
    assert rules(run(264, 1024)) == []  # exactly one wave
    tail = launch_findings(run(265, 1024), H100)
    assert [f.rule for f in tail] == ["tail"]  # one full wave and a last one of 1 block
    # Nsight's estimate: the partial wave may take up to 1 ÷ (1 + full waves) = 50 % of the run
    assert tail[0].metric == "launch__waves_per_multiprocessor" and tail[0].value == pytest.approx(265 / 264)
    assert "1 full and a last one of 1" in tail[0].message and "50 %" in tail[0].message


def test_the_tail_rule_keeps_nsights_20_percent_threshold():
    # a hand-made launch record (the rule reads only counts.launch): 4 full waves and a partial one may take
    # 1 ÷ 5 = 20 % of the run, which Nsight reports; 5 full waves, 1 ÷ 6 = 16.7 %, which it does not
    def counts(blocks):
        return kl.Counts(warp_instr=1, launch={"grid": (blocks, 1, 1), "block": (1024, 1, 1), "smem_per_block": 0})

    assert rules(counts(4 * 264 + 1)) == ["tail"]
    assert rules(counts(5 * 264 + 1)) == []
    # 2 full waves and 1 block: 529 ÷ 264 = 2.004 waves; the last may take 1 ÷ 3 = 33 % of the run
    (f,) = launch_findings(counts(2 * 264 + 1), H100)
    assert f.message == ("partial last wave: 2.00 waves of 264 blocks (2 per SM × 132 SMs), 2 full and a last one "
                         "of 1; with blocks of equal work it may take up to 33 % of the run")


def shared_tile(blk, x, y, n_floats):
    s = blk.shared(n_floats, np.float32, name="s")
    i = blk.bx * blk.bdx + blk.tx
    blk.store(s, blk.tx, blk.load(x, i))
    blk.syncthreads()
    blk.store(y, i, blk.load(s, blk.tx))


def test_low_occupancy_fires_with_its_limiter_and_not_at_full_occupancy():
    x = np.ones(132 * 256, np.float32)
    # 256 threads (8 warps) and 24 576 floats = 98 304 B of shared memory: 233 472 // (98 304 + 1024) = 2 blocks a
    # SM, against 64 // 8 = 8 by warps and by registers and 32 by the block limit: 2 × 8 = 16 of 64 warps, 25 %
    big = launch(shared_tile, 132, 256, args=(x, np.empty_like(x), 24576))
    (f,) = launch_findings(big, H100)
    assert (f.rule, f.metric, f.value) == ("occupancy", "sm__maximum_warps_per_active_cycle_pct", 25.0)
    assert "launch__occupancy_limit_shared_mem = 2" in f.message and "registers" not in f.message
    assert f.message.startswith("low theoretical occupancy: 25.0 % (16 of 64 warps per SM, 2 blocks per SM), "
                                "limited by the shared memory each block needs")
    # 4096 floats = 16 384 B: 233 472 // 17 408 = 13 ≥ 8: warps and registers limit it, at 8 × 8 = 64 warps, 100 %
    assert rules(launch(shared_tile, 132, 256, args=(x, np.empty_like(x), 4096))) == []


def test_occupancy_limits_are_nsights_blocks_per_sm_per_limiter():
    # Nsight's launch__occupancy_limit_blocks is the hardware's 32 blocks a SM, not the resulting blocks per SM
    # (which is the least of the four); the 1024-thread launch: warps 2, registers 2, shared 233 472 // 1024 = 228
    r = kl.report(run(264, 1024), H100)
    occ = section(r, "Occupancy")
    got = {m: int(v) for _label, m, v in occ.table.rows if m.startswith("launch__occupancy_limit_")}
    assert got == {LIMIT_METRICS["registers"]: 2, LIMIT_METRICS["shared"]: 228, LIMIT_METRICS["threads"]: 2,
                   LIMIT_METRICS["blocks"]: 32}
    assert row(occ, "Blocks per SM (the least limit)")[2] == "2" == str(min(got.values()))
    assert row(occ, "Theoretical occupancy")[2] == "100.0 %"  # 2 × 32 warps of 64
    launch_ = section(r, "Launch Statistics")
    assert row(launch_, "Waves per SM")[2] == "1"  # 264 ÷ 264
    assert row(launch_, "Registers per thread")[2] == "32 (assumed)"  # the launch gave none


@triton.jit
def _mm(a_ptr, b_ptr, c_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    a = tl.load(a_ptr + r[:, None] * N + r[None, :])
    b = tl.load(b_ptr + r[:, None] * N + r[None, :])
    tl.store(c_ptr + r[:, None] * N + r[None, :], tl.dot(a, b))


def test_a_triton_launch_gets_its_occupancy():
    a = np.ones((64, 64), np.float16)
    c = _mm[(1,)](a, a, np.zeros((64, 64), np.float32), N=64)
    r = kl.report(c, H100)
    # Triton's rule (kernellab.model.persm.triton_resources): num_stages 3 on sm_90 buffers 3 × (64·64 + 64·64) × 2 B
    # = 49 152 B; registers 48 + 64·64 ÷ (32 × 4 warps) = 80. Shared: 233 472 // (49 152 + 1024) = 4; registers
    # 80 × 32 = 2560 a warp, 65 536 // 2560 = 25 warps, // 4 = 6; warps 64 // 4 = 16: 4 programs, 16 warps, 25 %
    occ = section(r, "Occupancy")
    assert row(occ, "Block limit shared memory")[2] == "4" and row(occ, "Block limit registers")[2] == "6"
    assert row(occ, "Theoretical occupancy")[2] == "25.0 %"
    launch_ = section(r, "Launch Statistics")
    assert row(launch_, "Registers per thread")[2] == "80 (Triton's rule)"
    assert row(launch_, "Shared memory per program")[2] == "49.15 kB"
    assert [f.rule for f in r.findings] == ["small grid", "occupancy"]  # 1 program; 25 % < 80 %


def test_speed_of_light_is_a_utilisation_over_the_predicted_duration():
    # one block of 128 threads, 1000 FMAs each: its SM's four sub-partitions do 128 000 FMAs at 128 a clock,
    # 1000 ÷ 1.98 GHz = 505 ns on the busiest SM; spread over the device's 132 SMs that is 505 ÷ 132 = 3.83 ns,
    # so the FMA pipes are at most 100 ÷ 132 = 0.76 % busy over any duration at least the busiest SM's time
    def fmas(blk, y):
        v = blk.tx * 1.0
        for _ in range(1000):
            v = blk.fma(v, 1.0, 1.0)
        blk.store(y, blk.tx, v)

    c = launch(fmas, 1, 128, args=(np.empty(128, np.float32),))
    p = kl.predict(c, H100, timer="kernel")
    sol = section(kl.report(c, H100), "GPU Speed Of Light (predicted)")
    fma = row(sol, "FMA pipe")
    assert fma[1] == "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed"
    assert fma[2] == "505 ns"
    pct = float(fma[3].rstrip(" %"))
    assert pct == pytest.approx(round(100 * 505.05e-9 / 132 / p["estimate_time"], 1), abs=0.05)
    assert 0 < pct <= 100 / 132
    duration = section(kl.report(c, H100), "Predicted duration").table.rows[0]
    assert duration[1:] == ["gpu__time_duration.sum", kl.fmt_time(p["estimate_time"])]


def test_a_grid_that_fills_the_gpu_reads_its_dram_share_over_the_duration():
    # a copy of 132 × 8 × 256 floats (8 blocks a SM): 2 × 270 336 × 4 B = 2.16 MB ÷ 3.35 TB/s = 646 ns of DRAM; the
    # prediction's duration is longer (the sustained share, a round trip), so DRAM reads below 100 %
    n = 132 * 8 * 256

    def copy(blk, x, y):
        i = blk.bx * blk.bdx + blk.tx
        blk.store(y, i, blk.load(x, i))

    x = np.ones(n, np.float32)
    c = launch(copy, n // 256, 256, args=(x, np.empty_like(x)))
    p = kl.predict(c, H100, timer="kernel")
    dram = row(section(kl.report(c, H100), "GPU Speed Of Light (predicted)"), "DRAM")
    assert dram[2] == "646 ns"
    pct = float(dram[3].rstrip(" %"))
    assert pct == pytest.approx(100 * 2 * n * 4 / 3.35e12 / p["estimate_time"], abs=0.05) and pct < 100


def test_flop_count_sp_leaves_the_tensor_cores_out():
    a = np.ones((64, 64), np.float16)
    c = _mm[(1,)](a, a, np.zeros((64, 64), np.float32), N=64)
    # 2 · 64³ = 524 288 FLOPs, all of one dot on the Tensor Cores (128 mma.sync): none of them FP32 FLOPs
    assert c.flops == c.dot_flops == 2 * 64 ** 3 and c.mma_sm80 == 128
    assert values(c)["flop_count_sp"] == 0

    @triton.jit
    def ieee(a_ptr, b_ptr, c_ptr, N: tl.constexpr):
        r = tl.arange(0, N)
        a = tl.load(a_ptr + r[:, None] * N + r[None, :])
        b = tl.load(b_ptr + r[:, None] * N + r[None, :])
        tl.store(c_ptr + r[:, None] * N + r[None, :], tl.dot(a, b, input_precision="ieee") + 1.0)

    f = np.ones((16, 16), np.float32)
    ci = ieee[(1,)](f, f, np.zeros((16, 16), np.float32), N=16)
    # an ieee dot compiles to FFMAs, which flop_count_sp counts: 2 · 16³ = 8192, + 256 adds
    assert ci.mma_sm80 == 0 and values(ci)["flop_count_sp"] == 2 * 16 ** 3 + 256


@triton.jit
def _desc_dot(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    a = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[M, K])
    b = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[K, N])
    rm, rn = tl.arange(0, M), tl.arange(0, N)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a.load([0, 0]), b.load([0, 0])))


def test_tma_copies_appear_in_the_memory_section_on_hopper():
    a, b = np.ones((64, 32), np.float16), np.ones((32, 64), np.float16)
    c = _desc_dot[(1,)](a, b, np.zeros((64, 64), np.float32), M=64, N=64, K=32)
    # two descriptor tiles, one TMA copy each a warp × 4 warps = 8, and no LSU load on sm_90
    mem = section(kl.report(c, H100), "Memory Workload Analysis")
    assert row(mem, "TMA copies (UTMALDG, UTMASTG)")[1:] == ["tma_instructions_sm90", "8"]
    assert row(mem, "Global load instructions (LSU)")[2] == "0"
    # they move the two tiles whole: (64 × 32 + 32 × 64) halves × 2 B = 8192 B
    assert row(mem, "TMA bytes (sm_90)")[1] == "tma_bytes_sm90" and c.tma_bytes_sm90 == 8192
    # the A100 has no TMA: its report has no such row
    assert not any(r[0].startswith("TMA") for r in section(kl.report(c, A100), "Memory Workload Analysis").table.rows)


def test_findings_without_a_gpu_leave_the_launch_out():
    c = run(1, 32)  # 1 block: a small grid on any GPU, but findings(c) alone names no GPU
    assert findings(c) == [] and [f.rule for f in findings(c, H100)] == ["small grid", "occupancy"]


# --- where a prediction is read, it says what it is (issue 36's labels) -------------------------------------

@triton.jit
def _add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + tl.load(y_ptr + offs, mask=offs < n), mask=offs < n)


def test_a_perf_report_caption_says_which_timer_its_predictions_stand_for(capsys):
    from kernellab.triton import testing as T

    def sweep(bench_fn):
        @T.perf_report(T.Benchmark(x_names=["n"], x_vals=[1 << 12], line_arg="p", line_vals=[1], line_names=["t"],
                                   ylabel="ms", plot_name="labels", args={}))
        def bench(n, p):
            x = np.ones(n, np.float32)
            return bench_fn(lambda: _add[(triton.cdiv(n, 1024),)](x, x, np.empty_like(x), n, BLOCK=1024))

        bench.run(print_data=True)
        return capsys.readouterr().out.splitlines()[1]

    cold = sweep(T.do_bench)
    assert "H100 SXM, launch included, as do_bench reads it from a cold L2 (not measured)" in cold
    warm = sweep(T.do_bench_cudagraph)
    assert "a CUDA graph's launch included, as do_bench_cudagraph reads it from a warm L2 (not measured)" in warm
    both = sweep(lambda fn: T.do_bench(fn) + T.do_bench_cudagraph(fn))
    assert "launch included, as do_bench or do_bench_cudagraph reads it" in both


def test_labels_of_predictions_in_chinese(monkeypatch):
    from kernellab.triton import testing as T

    monkeypatch.setenv("KERNELLAB_LANG", "zh_CN")
    assert T.measure_label("predicted") == "kernellab 性能模型预测的 H100 SXM 上的 GPU 时间，含启动，即 do_bench 从空的 L2 开始时读到的时间（非实测）"
    assert T.measure_label("predicted", ["cudagraph"]).endswith("do_bench_cudagraph 在 L2 已预热时读到的时间（非实测）")


def test_a_triton_launch_shows_its_l2_traffic_in_the_speed_of_light():
    from kernellab.specs import PERF_H100

    n = 1 << 20
    x = np.ones(n, np.float32)
    c = _add[(n // 1024,)](x, x, np.empty_like(x), n, BLOCK=1024)
    # every requested sector crosses L2 (mini-Triton's programs share data through L2): x, y read, 2 × 4 MiB at the
    # L2's load bandwidth, and o written, 4 MiB at its store bandwidth, over the predicted duration
    p = kl.predict(c, H100, timer="kernel")
    l2 = row(section(kl.report(c, H100), "GPU Speed Of Light (predicted)"), "L2 (sectors sent)")
    assert l2[1] == "lts__throughput.avg.pct_of_peak_sustained_elapsed"
    t_l2 = 2 * 4 * n / PERF_H100.l2_bw + 4 * n / PERF_H100.l2_write_bw
    assert float(l2[3].rstrip(" %")) == pytest.approx(100 * t_l2 / p["estimate_time"], abs=0.05)
