"""The model's atomics and launch terms and its warnings (issue 25), each on a pattern derived by hand.

Rates (``kernellab.specs``): one update of one address per cycle at the L2 (NVIDIA, GK110 whitepaper;
assumed since), 3.0 µs per launch (a raw ``cuLaunchKernel``, tritonbench PR 1017; assumed for every GPU).
"""

import warnings

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import H100, launch, predict
from kernellab.counters import Counts
from kernellab.errors import ModelWarning
from kernellab.model import resource_events
from kernellab.specs import PERF_A100, PERF_H100


def quiet(*args, **kwargs):
    """predict without its warnings (the tests of the warnings are below)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        return predict(*args, **kwargs)


# --- atomics: SIMT ------------------------------------------------------------------------------

def simt_hist(blk, x, bins, n):
    i = blk.bx * blk.bdx + blk.tx
    with blk.where(i < n):
        blk.atomic_add(bins, blk.load(x, i), 1)


def test_simt_atomics_counts_by_hand():
    # 64 threads, one block: lane t adds 1 to bin t % 4. 2 warps → 2 requests; bins 0–3 are 16 B, one
    # sector and one line per request; 4 bytes a lane → 256 B; each bin gets 64 / 4 = 16 lanes' adds, 8 from
    # each warp, which the L1 merges into one L2 update a warp (≤ 16 lanes each): 2 L2 updates a bin
    x, bins = np.arange(64, dtype=np.int32) % 4, np.zeros(4, np.int32)
    c = launch(simt_hist, 1, 64, args=(x, bins, 64))
    assert bins.tolist() == [16, 16, 16, 16]
    assert (c.atomic_requests, c.atomic_sectors, c.atomic_lines, c.atomic_bytes, c.atomic_same_address) == (2, 2, 2, 256, 2)
    assert c.instr_by_kind["atom.global"] == 2
    ev = resource_events(c)
    # L1: 2 load lines (64 ints = 256 B = 2 lines) + 2 atomic lines; MIO: 2 loads + 2 atomics
    assert (ev["L1"], ev["MIO"], ev["atomic"]) == (4, 4, 2)
    p = quiet(c, H100)
    assert p["t_atomic"] == pytest.approx(2 / 1.98e9)  # 2 serial L2 updates at one per clock


def test_a_warps_same_address_lanes_merge_sixteen_to_an_l2_update():
    # every lane of 4 warps adds to one counter: 128 lanes, each warp's 32 merged 16 at a time → 2 L2 updates
    # a warp (accel-sim PR 33: 163 840 threads → 10 240 L2 atomics, 16 each) → 8; the old per-lane rule: 128
    def k(blk, cnt):
        blk.atomic_add(cnt, 0, 1)
    cnt = np.zeros(1, np.int32)
    c = launch(k, 1, 128, args=(cnt,))
    assert cnt[0] == 128 and c.atomic_same_address == 8 and c.atomic_requests == 4


def test_simt_colliding_integer_atomics_return_the_running_sum():
    # lanes in order: lane t on bin t % 2 sees the adds of the lanes before it on that bin, 3 each
    def k(blk, bins, out):
        blk.store(out, blk.tx, blk.atomic_add(bins, blk.tx % 2, 3))
    bins, out = np.array([10, 20], np.int64), np.zeros(8, np.int64)
    launch(k, 1, 8, args=(bins, out))
    assert out.tolist() == [10, 20, 13, 23, 16, 26, 19, 29]
    assert bins.tolist() == [22, 32]


def test_simt_float_atomics_round_as_a_sequential_loop():
    # 1e8 in float32 has a spacing of 8: each + 1.0 rounds back to 1e8, as 32 adds one after another do
    # (a sum of the 32 ones first would give 1e8 + 32)
    def k(blk, acc):
        blk.atomic_add(acc, 0, 1.0)
    acc = np.array([1e8], np.float32)
    c = launch(k, 1, 32, args=(acc,))
    assert acc[0] == np.float32(1e8) and c.atomic_same_address == 2  # 32 lanes of one warp: 2 merged L2 updates


def test_simt_atomics_reject_shared_and_masked_off_lanes_do_nothing():
    def shared(blk):
        s = blk.shared(4, np.int32, name="s")
        blk.atomic_add(s, 0, 1)
    with pytest.raises(TypeError, match="shared s"):
        launch(shared, 1, 32)
    x, bins = np.zeros(40, np.int32), np.zeros(1, np.int32)
    c = launch(simt_hist, 2, 32, args=(x, bins, 40))  # lanes 40–63 are masked off
    # warp 0: 32 lanes on bin 0 → 2 L2 updates; warp 1: 8 active lanes → 1
    assert bins[0] == 40 and c.atomic_same_address == 3 and c.atomic_requests == 2


# --- atomics: mini-Triton (issue 27, item 5) -----------------------------------------------------

@triton.jit
def hist_atomic(x_ptr, h_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.atomic_add(h_ptr + tl.load(x_ptr + offs, mask=m, other=0), 1, mask=m)


@triton.jit
def hist_private(x_ptr, h_ptr, n, BLOCK: tl.constexpr, BINS: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    h = tl.histogram(tl.load(x_ptr + offs, mask=m, other=0), BINS, mask=m)
    tl.atomic_add(h_ptr + tl.arange(0, BINS), h)


N, BLOCK = 65536, 1024  # 64 programs


def _hists():
    x = (np.arange(N) % 256).astype(np.int32)  # every bin gets N / 256 = 256 values
    out = {}
    for name, k, extra in (("atomic", hist_atomic, {}), ("private", hist_private, {"BINS": 256})):
        h = np.zeros(256, np.int32)
        out[name] = k[(N // BLOCK,)](x, h, N, BLOCK=BLOCK, **extra)
        assert (h == 256).all()
    return out


def test_triton_atomics_reach_l1_mio_and_the_atomic_term():
    c = _hists()
    a, p = c["atomic"], c["private"]
    # hist_atomic: 2048 warps of 32 consecutive values → 32 consecutive bins, 128 B aligned: 1 line each;
    # the busiest bin gets 256 updates. hist_private: 64 programs × 256 bins = 8 warps each → 512
    # requests of 1 line; each bin gets one update a program, 64
    assert (a.atomic_requests, a.atomic_lines, a.atomic_same_address) == (2048, 2048, 256)
    assert (p.atomic_requests, p.atomic_lines, p.atomic_same_address) == (512, 512, 64)
    ev = resource_events(a)
    # L1 = 2048 load lines (256 KB of x) + 2048 atomic lines; MIO = 512 load + 2048 atomic requests: x and
    # n are divisible by 16, so each thread loads 4 ints with one ld.global.v4 (128 ints an instruction)
    assert (ev["L1"], ev["MIO"], ev["atomic"]) == (4096, 512 + 2048, 256)


def test_contended_histogram_is_predicted_slower_than_privatised():
    c = _hists()
    a, p = quiet(c["atomic"], H100), quiet(c["private"], H100)
    # atomic: 256 serial updates ÷ 1.98 GHz = 129 ns; DRAM (65536 × 4 B + 1 KB of bins) ÷ 3.35 TB/s = 78.6 ns
    assert a["bound"] == "atomic" and a["time"] == pytest.approx(256 / 1.98e9)
    # private: 64 ÷ 1.98 GHz = 32 ns of atomics; DRAM binds at 78.6 ns
    assert p["bound"] == "DRAM" and p["time"] == pytest.approx((65536 * 4 + 1024) / 3.35e12)
    assert a["time"] / p["time"] == pytest.approx((256 / 1.98e9) / ((65536 * 4 + 1024) / 3.35e12))


# --- launches --------------------------------------------------------------------------------------

def _axpy_counts(n):
    return Counts(gld_instr=n // 16, gld_lines=n // 16, gst_instr=n // 32, gst_lines=n // 32, fma=n,
                  warp_instr=n // 8, dram_sectors={"x": n // 8, "y": n // 8, "out": n // 8})


def test_launch_overhead_is_what_the_timer_reads_per_launch():
    c = _axpy_counts(1 << 21)  # 24 MiB at 3.35 TB/s = 7.51 µs, longer than a launch: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", ModelWarning)
        p = predict(c, H100)
        p2 = predict(c, H100, launches=2)
    # do_bench (the default): the cold time of a tiny kernel after an L2 flush, 4.28 µs on Hopper [CCCL-2086]
    assert p["timer"] == "do_bench" and p["t_launch"] == PERF_H100.launch_cold_s == 4.28e-6
    assert p["total_time"] == pytest.approx(p["time"] + 4.28e-6)
    # two launches in one timed call: only the first follows do_bench's flush (cold, 4.28 µs); the second is
    # queued behind the first kernel in the stream, the back-to-back cost 2.43 µs: 4.28 + 2.43 = 6.71 µs
    assert p2["t_launch"] == pytest.approx(6.71e-6) and p2["time"] == p["time"]
    # back-to-back in a stream 2.43 µs, a CUDA graph 1.26 µs [RRZE gpu-small-kernels, H200], the host's
    # cuLaunchKernel 3.0 µs on top of the stream's when the GPU waits for it [TB-1017]
    with warnings.catch_warnings():  # warm, the 24 MiB fit in the 50 MB L2: no DRAM bound, a run under a launch
        warnings.simplefilter("ignore", ModelWarning)
        warm = [predict(c, H100, timer=t)["t_launch"] for t in ("kernel", "stream", "cudagraph", "host")]
    assert warm == pytest.approx([0.0, 2.43e-6, 1.26e-6, 5.43e-6])
    with warnings.catch_warnings():  # every launch of a stream or a graph already follows another: k × its cost
        warnings.simplefilter("ignore", ModelWarning)
        warm3 = [predict(c, H100, timer=t, launches=3)["t_launch"] for t in ("stream", "cudagraph")]
    assert warm3 == pytest.approx([3 * 2.43e-6, 3 * 1.26e-6])
    with pytest.raises(ValueError, match="launches"):
        predict(c, H100, launches=0)
    with pytest.raises(ValueError, match="unknown timer 'wall'"):
        predict(c, H100, timer="wall")


def reduce_pass(blk, x, out, n):
    """Harris's kernel 3 (sequential addressing), each thread first adds a grid-stride run of x."""
    s = blk.shared(blk.bdx, np.float32, name="sdata")
    tid = blk.tx
    stride = blk.bdx * blk.gdx
    acc = np.zeros(blk.n_threads, np.float32)
    for base in range(0, n, stride):
        i = base + blk.bx * blk.bdx + tid
        with blk.where(i < n):
            acc = blk.fadd(acc, blk.load(x, i))
    blk.store(s, tid, acc)
    blk.syncthreads()
    h = blk.bdx // 2
    while h > 0:
        with blk.where(tid < h):
            blk.store(s, tid, blk.fadd(blk.load(s, tid), blk.load(s, tid + h)))
        blk.syncthreads()
        h //= 2
    with blk.where(tid == 0):
        blk.store(out, blk.bx, blk.load(s, 0))


def test_a_4mb_reduction_and_its_second_pass():
    n = 1 << 20  # 4 MiB of floats
    x = np.random.default_rng(1).standard_normal(n).astype(np.float32)
    part, total = np.zeros(4096, np.float32), np.zeros(1, np.float32)
    c1 = launch(reduce_pass, 4096, 256, args=(x, part, n))
    c2 = launch(reduce_pass, 1, 1024, args=(part, total, 4096))
    assert total[0] == pytest.approx(float(x.astype(np.float64).sum()), abs=1e-2)
    with pytest.warns(ModelWarning) as caught:
        p = predict([c1, c2], H100)
    # both passes run shorter than do_bench's 4.28 µs a launch: one warning each. Pass 1 issues more than DRAM
    # takes (the tree's integer and branch work, counted automatically, as in Harris's kernel 3): 4096 blocks on
    # 132 SMs, the busiest runs ⌈4096 ÷ 132⌉ = 32 of them, so its warp instructions × 32/4096 ÷ (4 × 1.98 GHz),
    # above 4 MiB + 16 KiB of partials = 4210688 B ÷ 3.35 TB/s = 1.257 µs; pass 2 is one block of 1024 threads,
    # all its warp instructions on one SM: ÷ (4 × 1.98 GHz), longer than a DRAM round trip (688 cycles)
    messages = [str(w.message) for w in caught]
    assert sum("launch overhead" in m for m in messages) == 2 and sum("round trip" in m for m in messages) == 0
    t1, t2 = (q["time"] for q in p["launches"])
    assert p["launches"][0]["bound"] == "issue" and t1 == pytest.approx(c1.warp_instr * 32 / 4096 / (4 * 1.98e9))
    assert p["launches"][0]["t_dram"] == pytest.approx(4210688 / 3.35e12) and 4210688 / 3.35e12 < t1 < 4.28e-6
    assert p["launches"][1]["sms_used"] == 1 and t2 == pytest.approx(c2.warp_instr / (4 * 1.98e9))
    assert 688 / 1.98e9 < t2 < t1
    assert p["time"] == pytest.approx(t1 + t2)
    # one timed call, two launches: the first after do_bench's flush (4.28 µs), the second behind the first pass
    # in the stream (2.43 µs): 6.71 µs of launching
    assert [q["t_launch"] for q in p["launches"]] == pytest.approx([4.28e-6, 2.43e-6])
    assert p["t_launch"] == pytest.approx(6.71e-6) and p["total_time"] == pytest.approx(t1 + t2 + 6.71e-6)
    assert p["bound"] == "issue" and p["flops"] == c1.flops + c2.flops


def test_predict_list_rejects_shape_and_launches():
    c = _axpy_counts(1 << 20)
    with pytest.raises(TypeError, match="list of counts"):
        predict([c, c], H100, launches=2)


# --- warnings ----------------------------------------------------------------------------------------

def test_round_trip_warning_when_latency_would_set_the_time():
    # 8 sectors = 256 B; on the A100 t_dram = 256 B ÷ 2.039 TB/s = 0.13 ns, far below one DRAM round trip,
    # 552 cycles ÷ 1.41 GHz = 0.391 µs [RRZE]: latency, not DRAM, sets the time (and the launch warns too)
    c = Counts(gld_instr=1, gld_lines=1, warp_instr=1, dram_sectors={"x": 8})
    with pytest.warns(ModelWarning) as caught:
        p = predict(c, PERF_A100)
    messages = [str(w.message) for w in caught]
    assert any("round trip" in m and "0.391" in m for m in messages)
    assert any("launch overhead" in m for m in messages)
    assert p["bound"] == "DRAM" and p["estimate_time"] >= 552 / 1.41e9


def test_no_round_trip_warning_without_memory_or_for_long_kernels():
    big = _axpy_counts(1 << 24)  # 192 MiB: 60 µs
    with warnings.catch_warnings():
        warnings.simplefilter("error", ModelWarning)
        predict(big, H100)


def test_atomics_per_source_line_add_up():
    # lines=True: the atomic line's row holds the launch's atomic counts; its busiest bin is the launch's
    x, bins = np.arange(64, dtype=np.int32) % 4, np.zeros(4, np.int32)
    c = launch(simt_hist, 1, 64, args=(x, bins, 64), lines=True)
    rows = [row for row in c.by_line.values() if row.atomic_requests]
    assert len(rows) == 1 and rows[0].atomic_requests == c.atomic_requests == 2
    assert rows[0].atomic_same_address == c.atomic_same_address == 2


def test_tl_dot_compiled_to_mma_is_charged_on_the_tensor_cores():
    from kernellab.triton import TritonCounts
    # N = 10 000 programs of one 128×128×64 fp16 tl.dot: 2·128·128·64 = 2 097 152 FLOPs each, 2.097e10 in
    # all; on sm_80 2 097 152 ÷ 4096 = 512 mma.sync a program; on sm_90 (4 warps) 2 wgmma m64n128k16 along
    # M × 4 along K × 4 warps = 32 warp instructions a program. Tensor: 2.097152e10 ÷ 989.4e12 FLOP/s =
    # 21.196 µs; FMA none; issue (320 000 + 20 000 requests) ÷ (4 × 132 × 1.98e9) = 0.325 µs; DRAM
    # 10 000 × 32 sectors × 32 B ÷ 3.35e12 = 3.06 µs: the Tensor Cores bind
    n = 10_000
    c = TritonCounts(flops=n * 2_097_152, dot_flops=n * 2_097_152, mma_sm80=n * 512, mma_sm90=n * 32, wgmma_sm90=n * 32,
                     load_requests=2 * n, load_lines=2 * n, dram_sectors={"a": 32 * n})
    ev = resource_events(c, "sm_90")
    assert ev["tensor"] == n * 2_097_152 and ev["FMA"] == 0 and ev["issue"] == 32 * n + 2 * n
    assert resource_events(c)["issue"] == 512 * n + 2 * n  # sm_80: the mma.sync instructions
    p = predict(c, H100)
    assert p["bound"] == "tensor" and p["t_tensor"] == pytest.approx(2.097152e10 / 989.4e12)
    assert p["t_fma"] == 0 and p["t_issue"] == pytest.approx(340_000 / (4 * 132 * 1.98e9))
    assert p["gflops"] == pytest.approx(989.4e3)  # all FLOPs are dot FLOPs: the dense peak
    # the band does not move the spec sheet's peak; the estimate divides it by wgmma's η (fewer sm_90 than sm_80
    # instructions: wgmma) and waits one DRAM round trip (688 cycles) for the first tiles
    assert p["gflops_band"] == pytest.approx((989.4e3, 989.4e3)) and p["tensor_kind"] == "wgmma"
    assert p["estimate_time"] == pytest.approx(p["t_tensor"] / PERF_H100.eta_wgmma + 688 / 1.98e9)
    # a TF32 dot (fp32 operands, m16n8k8: 2048 FLOPs an instruction) takes twice the mma.sync: half the rate
    tf32 = TritonCounts(flops=n * 2_097_152, dot_flops=n * 2_097_152, mma_sm80=n * 1024, mma_sm90=n * 64, wgmma_sm90=n * 64)
    assert predict(tf32, H100)["t_tensor"] == pytest.approx(2 * 2.097152e10 / 989.4e12)


def test_ieee_tl_dot_stays_on_the_fma_pipe():
    from kernellab.triton import TritonCounts
    # input_precision="ieee": no MMA (mma = 0), the 2³¹ dot FLOPs are 2³⁰ FFMAs: 2³⁰ ÷ (128 × 132 SMs ×
    # 1.98 GHz) = 32.1 µs of FMA, issue (2³⁰ ÷ 32 + 4096 requests) ÷ (4 × 132 × 1.98 GHz) ≈ 32.1 µs binds
    c = TritonCounts(flops=2**31, dot_flops=2**31, load_requests=4096, load_lines=4096,
                     dram_sectors={"a": 1_046_875})
    p = predict(c, H100)
    assert p["bound"] == "issue" and p["time"] == pytest.approx((2**30 / 32 + 4096) / (4 * 132 * 1.98e9))
    assert p["t_fma"] == pytest.approx(2**30 / (128 * 132 * 1.98e9)) and p["t_tensor"] == 0
    assert "tensor_core_bound" not in p


def test_flash_attention_is_not_fma_bound():
    import numpy as np

    import kernellab.triton as triton
    from kernellab.triton import language as tl

    @triton.jit
    def attn(q_ptr, k_ptr, o_ptr, N: tl.constexpr, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
        # one block of rows of softmax(Q Kᵀ) V with V = K, online softmax, fp16 operands
        rows = tl.program_id(0) * BM + tl.arange(0, BM)
        d = tl.arange(0, D)
        q = tl.load(q_ptr + rows[:, None] * D + d[None, :])
        m = tl.full((BM,), -float("inf"), tl.float32)
        s_sum = tl.zeros((BM,), tl.float32)
        acc = tl.zeros((BM, D), tl.float32)
        for start in range(0, N, BN):
            cols = start + tl.arange(0, BN)
            k = tl.load(k_ptr + cols[:, None] * D + d[None, :])
            s = tl.dot(q, tl.trans(k))
            m_new = tl.maximum(m, tl.max(s, 1))
            p = tl.exp(s - m_new[:, None])
            alpha = tl.exp(m - m_new)
            s_sum = s_sum * alpha + tl.sum(p, 1)
            acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), k)
            m = m_new
        tl.store(o_ptr + rows[:, None] * D + d[None, :], acc / s_sum[:, None])

    n, dh = 256, 64
    q = np.random.default_rng(0).standard_normal((n, dh)).astype(np.float16)
    k = np.random.default_rng(1).standard_normal((n, dh)).astype(np.float16)
    o = np.zeros((n, dh), np.float32)
    cnt = attn[(n // 64,)](q, k, o, N=n, D=dh, BM=64, BN=64)
    assert cnt.mma_sm80 > 0 and cnt.mma_sm90 > 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        p = predict(cnt, H100)
    # every dot compiled to MMA: the FMA pipe sees only the softmax's elementwise FLOPs
    assert resource_events(cnt)["FMA"] == cnt.flops - cnt.dot_flops
    # 4 programs on 4 SMs: the busiest does a quarter of the Tensor Core work, at an SM's share of the peak
    assert p["sms_used"] == 4 and p["bound"] != "FMA"
    assert p["t_tensor"] == pytest.approx(cnt.mma_sm80 * 4096 / 4 / (989.4e12 / 132))
    # the softmax's exponentials are MUFU warp instructions: p on 64×64 scores over 4 warps (64 × 64 ÷
    # (32 × 4) = 32 elements a thread → 32 × 4 warps = 128) and alpha on 64 rows (⌈64 ÷ 128⌉ × 4 warps = 4),
    # a step, 4 steps; then the epilogue's fp32 division acc / s_sum (div.full: one MUFU.RCP an element,
    # 64 × 64 ÷ 128 × 4 = 128) → ((128 + 4) × 4 + 128) a program × 4 programs
    assert cnt.xu_instructions == ((128 + 4) * 4 + 128) * 4
