"""Software pipelining (num_stages), chained dots and the other rules of issue 35, on kernels whose
counts are derived by hand below (each rule is also held to Triton 3.9's PTX by tests/test_compiled_counts.py)."""

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from tests.shared_kernels import fp8_dot_kernel as _fp8  # the compiled reference's own kernels
from tests.shared_kernels import invariant_a_kernel as _invariant_a


@triton.jit
def _kloop(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * BN + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
        a_ptrs += BK
        b_ptrs += BK * BN
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


def _matmul(K, stages):
    a = np.ones((64, K), np.float16)
    b = np.ones((K, 64), np.float16)
    c = np.zeros((64, 64), np.float32)
    return _kloop[(1,)](a, b, c, K, BM=64, BN=64, BK=32, num_warps=4, num_stages=stages)


@pytest.mark.parametrize("n,stages", [(1, 3), (4, 3), (4, 2), (4, 5)])
def test_pipelined_loads_run_n_plus_stages_minus_one_times(n, stages):
    # A 64×32 and B 32×64 fp16 tiles: 2048 halves over 128 threads = 16 a thread = 2 × 16-byte loads
    # each, × 4 warps = 8 warp instructions a tile per iteration, 16 for both. Pipelined, each runs in
    # the prologue stages − 1 times more (predicated off past the loop's end): (n + S − 1) × 16.
    cnt = _matmul(32 * n, stages)
    assert cnt.load_instructions == (n + stages - 1) * 16
    assert cnt.load_instructions_sm90 == (n + stages - 1) * 16
    # the copies beyond n are predicated off: requests and bytes are those of the n iterations
    plain = _matmul(32 * n, 1)
    assert (cnt.load_requests, cnt.load_bytes) == (plain.load_requests, plain.load_bytes)
    assert plain.load_instructions == n * 16


def test_pipelined_operands_are_not_stored_and_sm80_prefetches_a_slice():
    # num_stages=1: each iteration stores both operands (A: 16 halves a thread in 2 st.v4, B alike:
    # 4 per thread × 4 warps = 16) and loads them with ldmatrix.x4 (warps 2 × 2: each warp's 32 rows
    # × 32 K × 2 B = 2048 B = 4 x4 of 512 B for A, 32 K × 32 columns for B: 4; 8 × 4 warps = 32); the
    # accumulator (64×64 fp32) then goes to the store's layout (8 st + 8 ld a thread: 32 + 32).
    n = 3
    one = _matmul(32 * n, 1)
    assert one.shared_stores_sm80 == n * 16 + 32 and one.shared_loads_sm80 == n * 32 + 32
    # pipelined: cp.async writes the operands, no st.shared for them; sm_80's Prefetch loads the first
    # K slice (16 wide: A 32 × 16 × 2 B = 2 x4, B 16 × 32 × 2 B = 2; 4 × 4 warps = 16) before the loop
    piped = _matmul(32 * n, 3)
    assert piped.shared_stores_sm80 == 32 and piped.shared_loads_sm80 == n * 32 + 16 + 32
    # sm_90: wgmma reads the operands in shared memory; only the accumulator's conversion remains (its
    # 32 floats a thread leave in 8 st.shared.v4: 32 a program)
    assert piped.shared_loads_sm90 == one.shared_loads_sm90 and piped.shared_stores_sm90 == 32


@triton.jit
def _kloop_bt(a_ptr, bt_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    bt_ptrs = bt_ptr + rn[:, None] * K + rk[None, :]  # Bᵀ (N × K) row-major: B read through tl.trans
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        acc += tl.dot(tl.load(a_ptrs), tl.trans(tl.load(bt_ptrs)))
        a_ptrs += BK
        bt_ptrs += BK
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


def test_a_transposed_load_feeding_a_dot_is_pipelined():
    # B loaded as a 64 × 32 fp16 tile and tl.trans'd into the dot: the load still feeds the dot, so
    # both tiles are copied ahead, as in _kloop: 2048 halves / 128 threads = 16 a thread = 2 × 16-byte
    # copies × 4 warps = 8 a tile, 16 an iteration, (3 + 3 − 1) × 16 = 80 (real Triton 3.9's PTX runs 80
    # cp.async a program for this kernel, sm_80 and sm_90). Were the trans not seen through, B's load
    # would not be a dot operand and would run only 3 times: 5 × 8 + 3 × 8 = 64.
    # The copy is the operand, read through a transposed view (ttg.memdesc_trans; Bᵀ along K is B along K,
    # as mma.sync's ldmatrix reads it): no st.shared of B's, no read-back; sm_80's Prefetch does not look
    # through that view, so no first slice either. Stores: the accumulator's conversion alone, 32 (as in
    # _kloop); loads 3 × 32 ldmatrix + 32 = 128 (_kloop's 144 less the prefetch's 16). sm_90: wgmma reads both
    # buffers, 32 / 32. (tests/compiled_cases.py kloop_trans_s3 holds these to the PTX.)
    rng = np.random.default_rng(0)
    a = rng.integers(-2, 3, (64, 96)).astype(np.float16)
    bt = rng.integers(-2, 3, (64, 96)).astype(np.float16)
    c = np.zeros((64, 64), np.float32)
    cnt = _kloop_bt[(1,)](a, bt, c, 96, BM=64, BN=64, BK=32, num_warps=4, num_stages=3)
    np.testing.assert_array_equal(c, a.astype(np.float64) @ bt.astype(np.float64).T)  # small integers: exact
    assert cnt.load_instructions == cnt.load_instructions_sm90 == (3 + 3 - 1) * 16
    assert (cnt.shared_stores_sm80, cnt.shared_loads_sm80) == (32, 3 * 32 + 32)
    assert (cnt.shared_stores_sm90, cnt.shared_loads_sm90) == (32, 32)


@triton.jit
def _kloop_at(at_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    at_ptrs = at_ptr + rk[:, None] * BM + rm[None, :]  # Aᵀ (K × M) row-major: A read through tl.trans, along M
    b_ptrs = b_ptr + rk[:, None] * BN + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        acc += tl.dot(tl.trans(tl.load(at_ptrs)), tl.load(b_ptrs))
        at_ptrs += BK * BM
        b_ptrs += BK * BN
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


def test_a_transposed_a_along_m_is_stored_every_iteration_on_sm80():
    # Aᵀ loaded as 32 × 64 (contiguous along M) and tl.trans'd: mma.sync's ldmatrix wants A along K, so
    # Triton 3.9 loads A ahead into registers (still (3 + 2) × 8 loads, B's copies (3 + 2) × 8: 80) and
    # stores it every iteration: 16 halves a thread = 2 st.shared.v4 × 4 warps = 8, 32 + 3 × 8 = 56 stores
    # with the accumulator's; no read-back and no prefetch: 3 × 32 + 32 = 128 loads. wgmma reads a
    # transposed A from its copy: sm_90 32 / 32 (tests/compiled_cases.py kloop_trans_a_s3: the PTX's).
    rng = np.random.default_rng(2)
    at = rng.integers(-2, 3, (96, 64)).astype(np.float16)
    b = rng.integers(-2, 3, (96, 64)).astype(np.float16)
    c = np.zeros((64, 64), np.float32)
    cnt = _kloop_at[(1,)](at, b, c, 96, BM=64, BN=64, BK=32, num_warps=4, num_stages=3)
    np.testing.assert_array_equal(c, at.astype(np.float64).T @ b.astype(np.float64))
    assert cnt.load_instructions == (3 + 3 - 1) * 16
    assert (cnt.shared_stores_sm80, cnt.shared_loads_sm80) == (32 + 3 * 8, 3 * 32 + 32)
    assert (cnt.shared_stores_sm90, cnt.shared_loads_sm90) == (32, 32)


@triton.jit
def _first_dot_only(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * BN + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, K, BK, num_stages=3):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        if k == 0:
            acc += tl.dot(a, b)
        a_ptrs += BK
        b_ptrs += BK * BN
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


def test_a_dot_that_only_an_earlier_iteration_ran():
    # 2 iterations; the dot runs in the first only, so the loop's last iteration (the one the frame
    # keeps) has no dot while the first's dot left its operand flags: they must be passed over, not
    # looked up among the last iteration's dots. Both 64 × 32 / 32 × 64 fp16 tiles are loaded every
    # iteration, 8 instructions each (2 × 16 B a thread × 4 warps), pipelined 2 ahead (num_stages=3):
    # (2 + 2) × 16 = 64 (real Triton 3.9: 64 cp.async a program); C = A[:, :32] @ B[:32, :].
    rng = np.random.default_rng(1)
    a = rng.integers(-2, 3, (64, 64)).astype(np.float16)
    b = rng.integers(-2, 3, (64, 64)).astype(np.float16)
    c = np.zeros((64, 64), np.float32)
    cnt = _first_dot_only[(1,)](a, b, c, 64, BM=64, BN=64, BK=32, num_warps=4)
    np.testing.assert_array_equal(c, a[:, :32].astype(np.float64) @ b[:32].astype(np.float64))
    assert cnt.load_instructions == (2 + 2) * 16


@triton.jit
def _row_sum(x_ptr, out_ptr, N, BM: tl.constexpr, BN: tl.constexpr, STAGES: tl.constexpr):
    rows = tl.arange(0, BM)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for j in tl.range(0, N, BN, num_stages=STAGES):
        acc += tl.load(x_ptr + rows[:, None] * N + j + tl.arange(0, BN)[None, :])
    tl.store(out_ptr + rows, tl.sum(acc, axis=1))


def test_a_loop_given_stages_pipelines_its_loads_even_with_no_dot():
    # 16 × 128 fp32 per iteration: 16 floats a thread = 4 × 16-byte loads × 4 warps = 16 instructions.
    # tl.range(num_stages=3) pipelines them (2 ahead) and reads each tile back from shared memory into
    # the load's layout every iteration (4 ld.shared.v4 a thread: 16 a program); without it, nothing
    x, out = np.ones((16, 256), np.float32), np.zeros(16, np.float32)
    piped = _row_sum[(1,)](x, out, 256, BM=16, BN=128, STAGES=3)
    plain = _row_sum[(1,)](x, out, 256, BM=16, BN=128, STAGES=1)
    assert plain.load_instructions == 2 * 16 and piped.load_instructions == (2 + 2) * 16
    assert piped.shared_loads_sm80 - plain.shared_loads_sm80 == 2 * 16


@triton.jit
def _nested(x_ptr, out_ptr, N, BN: tl.constexpr):
    acc = tl.zeros((BN,), dtype=tl.float32)
    for i in tl.range(0, 2, num_stages=3):
        for j in tl.range(0, N, BN, num_stages=3):
            acc += tl.load(x_ptr + i * N + j + tl.arange(0, BN))
        acc += tl.load(x_ptr + i * N + tl.arange(0, BN))
    tl.store(out_ptr + tl.arange(0, BN), acc)


def test_only_innermost_loops_are_pipelined():
    # 512 floats: 4 a thread, one 16-byte load × 4 warps = 4 instructions. The inner loop (2 iterations,
    # run twice) pipelines its load: (2 + 2) × 4 each time; the outer loop's own load is not: 2 × 4.
    x, out = np.ones(2048, np.float32), np.zeros(512, np.float32)
    cnt = _nested[(1,)](x, out, 1024, BN=512)
    assert cnt.load_instructions == 2 * (2 + 2) * 4 + 2 * 4


@triton.jit
def _chain(q_ptr, k_ptr, v_ptr, o_ptr, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    rm, rn, rd = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, D)
    q = tl.load(q_ptr + rm[:, None] * D + rd[None, :])
    kt = tl.load(k_ptr + rn[None, :] * D + rd[:, None])
    p = tl.dot(q, kt).to(tl.float16)
    o = tl.dot(p, tl.load(v_ptr + rn[:, None] * D + rd[None, :]))
    tl.store(o_ptr + rm[:, None] * D + rd[None, :], o)


def _attention(D, warps):
    q = np.ones((64, D), np.float16)
    k = np.ones((64, D), np.float16)
    o = np.zeros((64, D), np.float32)
    return _chain[(1,)](q, k, k, o, D=D, BM=64, BN=64, num_warps=warps)


def test_chained_dots_put_all_warps_on_one_axis():
    # q·kᵀ (64×64, K = D) feeds p·v (64×D, K = 64). sm_80: the chain takes its warps from the last dot:
    # along M when M ≥ N. D = 64, 8 warps: all 8 along M, but 64 rows give 4 tiles of 16: warps 4-7
    # repeat 0-3. Each warp: 1 × (64 / 8 = 8) × (64 / 16 = 4) = 32 mma.sync a dot, × 8 warps × 2 dots
    cnt = _attention(64, 8)
    assert cnt.mma_sm80 == 2 * 8 * 32
    # D = 128: p·v is 64 × 128, M < N: all 8 warps along N for both dots. q·kᵀ: each warp 4 row tiles ×
    # 64 / (8 · 8) = 1 column tile × 128 / 16 = 8 k-steps = 32; p·v: 4 × 128 / 64 = 2 × 4 = 32
    assert _attention(128, 8).mma_sm80 == 8 * (32 + 32)
    # sm_90, D = 128: q·kᵀ feeds a dot: warps [8, 1], wgmma N = 64 / max(8 / (64 / 16), 1) = 32:
    # 1 × 2 × 8 = 16 a thread; p·v: warps [4, 2], N = 64: 1 × 1 × 4 = 4; (16 + 4) × 8 warps
    assert _attention(128, 8).mma_sm90 == (16 + 4) * 8


def test_a_dot_fed_by_a_dots_result_is_recorded_for_the_async_wgmma_overlap():
    # _chain: q·kᵀ (operands loaded) then p·v with p computed from q·kᵀ: only p·v is fed by a dot's result,
    # 2·64·128·64 = 1 048 576 FLOPs of the program's 2 097 152 (D = 128)
    cnt = _attention(128, 8)
    assert cnt.launch["dot_accumulated_flops"] == 2 * 64 * 128 * 64 == cnt.dot_flops / 2


@triton.jit
def _trips(a_ptr, b_ptr, o_ptr, CAUSAL: tl.constexpr, WITH_DOT: tl.constexpr):
    # program i: 4 trips, or i + 1 with CAUSAL (a causal key loop's program-dependent trips)
    r = tl.arange(0, 16)
    a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])
    acc = tl.zeros([16, 16], dtype=tl.float32)
    hi = tl.program_id(0) + 1 if CAUSAL else 4
    for i in range(0, hi):
        b = tl.load(b_ptr + i * 256 + r[:, None] * 16 + r[None, :])
        if WITH_DOT:
            acc = tl.dot(a, b, acc)
        else:
            acc += b.to(tl.float32)
    tl.store(o_ptr + tl.program_id(0) * 256 + r[:, None] * 16 + r[None, :], acc)


@pytest.mark.parametrize(("causal", "with_dot", "trips"), [
    (False, True, 4.0),     # every program 4 trips of a loop holding a dot
    (True, True, 2.5),      # programs 0..3 make 1, 2, 3, 4 trips: (1 + 2 + 3 + 4) ÷ 4 = 2.5 a program
    (False, False, 0.0),    # 4 trips of a loop with no dot: not counted
])
def test_the_trips_of_a_loop_holding_a_dot_are_recorded_per_program(causal, with_dot, trips):
    a = np.ones((16, 16), np.float16)
    b = np.ones((4 * 16, 16), np.float16)
    o = np.zeros((4 * 16, 16), np.float32)
    cnt = _trips[(4,)](a, b, o, CAUSAL=causal, WITH_DOT=with_dot)
    assert cnt.launch.get("dot_trips", 0.0) == trips


def test_async_wgmma_runs_beside_the_softmax_on_sm_90_only(monkeypatch):
    # 132 programs, one a SM, of one 128×128×4096 fp16 dot each, F = 134 217 728 FLOPs (32 768 mma.sync, 8192
    # wgmma warp instructions): on an H100 SM F ÷ (989.4e12 ÷ 132) = 17.906 µs, ÷ η_wgmma 0.81 = 22.106 µs.
    # SIMT work on its result: D = 2 509 056 FP32 operations a program: D ÷ (128 lanes × 1.98 GHz) ÷ η 0.66 =
    # 15.0 µs, and its issue, D ÷ 32 ÷ (4 a cycle × 1.98 GHz) ÷ 0.66, the same 15.0 µs. Nothing is loaded.
    import importlib

    from kernellab import A100, H100, predict
    from kernellab.specs import PERF_A100, PERF_H100
    from kernellab.triton import TritonCounts

    estimate = importlib.import_module("kernellab.model.estimate")  # the module (a function has its name)
    monkeypatch.setattr(estimate, "OVERLAP", ["async"])  # the candidate (the validation kept "serial")
    F, D, n = 134_217_728, 2_509_056, 132
    def counts(share):
        return TritonCounts(flops=n * F, dot_flops=n * F, mma_sm80=n * 32_768, mma_sm90=n * 8192, wgmma_sm90=n * 8192,
                            tensor_flops_sm90=n * F,
                            launch={"grid": (n, 1, 1), "num_warps": 4, "dot_dependent_flops": float(D),
                                    "dot_accumulated_flops": share * F})
    t_tensor = F / (989.4e12 / 132) / PERF_H100.eta_wgmma
    t_simt = D / (128 * 1.98e9) / PERF_H100.eta
    assert t_simt == pytest.approx(15.0e-6, rel=1e-3)
    # none fed by a dot: Tensor Cores, then SIMT, 22.106 + 15.0 = 37.1 µs
    assert predict(counts(0.0), H100)["estimate_time"] == pytest.approx(t_tensor + t_simt)
    # half of it fed (attention's p·v): that half runs beside the SIMT work, 11.053 + max(11.053, 15.0) = 26.1 µs
    p = predict(counts(0.5), H100)
    assert p["estimate_time"] == pytest.approx(t_tensor / 2 + t_simt) and p["estimate_bound"] == "serial"
    monkeypatch.setattr(estimate, "OVERLAP", ["serial"])  # the model's choice: in turn
    assert predict(counts(0.5), H100)["estimate_time"] == pytest.approx(t_tensor + t_simt)
    monkeypatch.setattr(estimate, "OVERLAP", ["async"])
    # the A100's mma.sync is synchronous: in turn, whatever is fed; 132 programs on 108 SMs: 2 on the busiest
    a = predict(counts(0.5), A100)
    t80 = 2 * F / (312e12 / 108) / PERF_A100.eta_mma
    simt80 = 2 * D / (64 * 1.41e9) / PERF_A100.eta
    assert a["estimate_time"] == pytest.approx(t80 + simt80)


def test_tensor_work_counts_the_warps_that_repeat_a_tile():
    # D = 128, 8 warps, 64 rows: the dots do 2·64·64·128 + 2·64·128·64 = 2 097 152 FLOPs. sm_80 (all warps
    # along N, 512 mma.sync m16n8k16 above): 512 × 4096 = 2 097 152, no warp repeats a tile. sm_90: q·kᵀ's
    # 8 warps along M cover 64 rows in 4 tiles of 16, so warps 4-7 repeat 0-3: 16 × 8 = 128 wgmma of N 32,
    # each 2·16·32·16 = 16 384 FLOPs, 2 097 152 (twice the dot's 1 048 576); p·v: 4 × 8 = 32 of N 64, each
    # 2·16·64·16 = 32 768, 1 048 576: 3 145 728 in all
    cnt = _attention(128, 8)
    assert cnt.dot_flops == 2_097_152 and cnt.mma_sm80 * 4096 == 2_097_152
    assert cnt.tensor_flops_sm90 == 128 * 16_384 + 32 * 32_768 == 3_145_728
    # the model charges each target its own instructions' work: on the H100, 3 145 728 ÷ (989.4e12 ÷ 132 SMs)
    # (one program: one SM; its 0.4 µs are below a launch, which warns)
    from kernellab import A100, H100, predict
    from kernellab.errors import ModelWarning
    with pytest.warns(ModelWarning, match="below the launch overhead"):
        assert predict(cnt, H100)["t_tensor"] == pytest.approx(3_145_728 / (989.4e12 / 132))
    with pytest.warns(ModelWarning, match="below the launch overhead"):
        assert predict(cnt, A100)["t_tensor"] == pytest.approx(2_097_152 / (312e12 / 108))


def test_a_chained_operand_in_registers_needs_no_shared_memory():
    # 4 warps, D = 64: both dots [4, 1] on sm_80, so p is already in the mma operand's registers: only
    # q, kᵀ and v go through shared memory (3 tiles of 4096 halves: 4 × 16-byte stores a thread... each
    # tile 32 halves a thread = 4 st.v4 × 4 warps = 16), plus the output's conversion (64 × 64 fp32 from
    # the accumulator: 8 + 8 a thread, 32 + 32)
    cnt = _attention(64, 4)
    assert cnt.shared_stores_sm80 == 3 * 16 + 32


@triton.jit
def _spin(lock, out):
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    tl.store(out + tl.program_id(0), 1)
    tl.atomic_xchg(lock, 0)


def test_a_scalar_atomic_broadcasts_its_result_only_when_used():
    # atomic_cas's old value is compared: one thread's result goes through shared memory to every
    # thread (1 st + 1 ld a thread, 4 warps); atomic_xchg's is dropped: nothing
    cnt = _spin[(1,)](np.zeros(1, np.int32), np.zeros(1, np.int32))
    assert (cnt.shared_stores_sm80, cnt.shared_loads_sm80) == (4, 4)


@triton.jit
def _bdot(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rb, rm, rn, rk = tl.arange(0, B), tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rb[:, None, None] * M * K + rm[None, :, None] * K + rk[None, None, :])
    b = tl.load(b_ptr + rb[:, None, None] * K * N + rk[None, :, None] * N + rn[None, None, :])
    tl.store(c_ptr + rb[:, None, None] * M * N + rm[None, :, None] * N + rn[None, None, :], tl.dot(a, b))


def test_a_batched_dot_stages_its_operands_per_batch_share():
    # (2, 32, 16) @ (2, 16, 32) fp16, 4 warps: mma.sync warps [2, 1, 2] (2 along the batch, the other 2
    # by the 2-D rule: 32 / 16 = 2 row tiles < 32 / 8 = 4 column tiles: along N). Each warp: one batch
    # entry, 2 row tiles × 32 / (8 · 2) = 2 column tiles × 1 k-step = 4 mma a thread, 16 a program.
    # Operands: 1024 halves each over 128 threads, 8 a thread: one st.v4 each; each warp loads its 32
    # rows × 16 k × 2 B = 1024 B of A (2 ldmatrix.x4) and 16 k × 16 columns of B (1 .trans)
    a, b = np.ones((2, 32, 16), np.float16), np.ones((2, 16, 32), np.float16)
    cnt = _bdot[(1,)](a, b, np.zeros((2, 32, 32), np.float32), B=2, M=32, N=32, K=16)
    assert cnt.mma_sm80 == cnt.mma_sm90 == 16
    # the (2, 32, 32) fp32 accumulator then goes to the store's layout: 16 floats a thread, 4 + 4
    assert (cnt.shared_stores_sm80, cnt.shared_loads_sm80) == ((2 + 4) * 4, (3 + 4) * 4)


def test_fp8_wgmma_reads_b_k_major_and_a_computed_operand_from_registers():
    # 64 × 64 fp8 bytes each, 32 a thread. wgmma reads B K-major (only 16-bit floats may be transposed):
    # B, loaded along N, is stored one byte at a time: 32 st.shared a thread. A is a bitcast, not a
    # load's result: wgmma takes it in registers, converted from its load layout (16 bytes a thread
    # along K, twice) with 2 st.shared.v4 and 2 ldmatrix.x4. The 64 × 64 fp32 accumulator: 8 + 8.
    cnt = _fp8[(1,)](np.zeros((64, 64), np.uint8), np.zeros((64, 64), np.uint8), np.zeros((64, 64), np.float32),
                     M=64, N=64, K=64)
    assert (cnt.shared_stores_sm90, cnt.shared_loads_sm90) == ((32 + 2 + 8) * 4, (2 + 8) * 4)


@triton.jit
def _scale(w_ptr, s_ptr, out_ptr, N: tl.constexpr, BM: tl.constexpr):
    rm, rn = tl.arange(0, BM), tl.arange(0, N)
    w = tl.load(w_ptr + rm[:, None] * N + rn[None, :])
    s = tl.load(s_ptr + rn)
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], w.to(tl.float32) * s[None, :])


def test_a_small_load_broadcast_is_reloaded_in_its_consumers_layout():
    # w: 16 × 64 int8, 8 bytes a thread (one 8-byte load, × 4 warps: 4). s: 64 floats, fewer than the 128
    # threads: Triton loads it again in w's layout sliced (each thread the 8 consecutive columns its w
    # row has, every row of lanes a copy): 2 × 16-byte loads a thread, 8 a program, not one float a
    # thread (4); 4 + 8 = 12 load instructions, on both targets
    w, s = np.ones((16, 64), np.int8), np.ones(64, np.float32)
    cnt = _scale[(1,)](w, s, np.zeros((16, 64), np.float32), N=64, BM=16)
    assert cnt.load_instructions == cnt.load_instructions_sm90 == 4 + 8


@triton.jit
def _tile_bp(x_ptr, y_ptr, M, N, SM, SN, BM: tl.constexpr, BN: tl.constexpr):
    x = tl.make_block_ptr(x_ptr, (M, N), (SM, SN), (0, 0), (BM, BN), (0, 1))
    y = tl.make_block_ptr(y_ptr, (M, N), (SM, SN), (0, 0), (BM, BN), (0, 1))
    tl.store(y, tl.load(x))


def test_a_block_pointer_is_laid_out_along_its_unit_stride():
    # A 64 × 64 fp16 tile stored column by column (strides (1, 64), order (0, 1)). Triton compiled a
    # block pointer to base + (0 + arange)·1 + (0 + arange)·64: 64 consecutive halves down each column,
    # so 16-byte vectors along dimension 0: 4096 / 8 = 512 vectors over 128 threads, 4 a thread, × 4
    # warps = 16 load and 16 store instructions, 4096 × 2 B / 32 B = 256 sectors. Nothing known of the
    # strides (no stride specialised to 1): one element a lane, 4096 / 128 = 32 a thread, × 4 = 128.
    from kernellab.triton.compiler.specialize import nothing_known

    x, y = np.arange(4096, dtype=np.float16).reshape(64, 64), np.zeros((64, 64), np.float16)
    cnt = _tile_bp[(1,)](x, y, 64, 64, 1, 64, BM=64, BN=64)
    assert (cnt.load_instructions, cnt.store_instructions, cnt.load_sectors) == (16, 16, 256)
    assert np.array_equal(y, x)
    cnt = nothing_known(_tile_bp)[(1,)](x, y, 64, 64, 1, 64, BM=64, BN=64)
    assert (cnt.load_instructions, cnt.store_instructions) == (128, 128)


@triton.jit
def _fp8_loop(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :]).to(tl.float8e5, bitcast=True)
        b = tl.load(b_ptr + (k + rk)[:, None] + rn[None, :] * K).to(tl.float8e5, bitcast=True)  # K-major
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


def test_pipelined_fp8_operands_computed_by_a_bitcast():
    # 64 × 64 × 64 bytes a tile, 2 iterations, 4 warps, sm_90 (wgmma). A = bitcast(load): the
    # conversion to wgmma's register operand is hoisted through the bitcast to the copy's buffer:
    # 2 ldmatrix.x4 a thread (each warp 16 rows × 64 B = 1024 B, 512 B an ldmatrix), no store. B =
    # bitcast(load): wgmma reads B from shared memory, the copy cannot be it: read back into the load's
    # layout (4096 B / 128 threads = 32 B, 2 ld.shared.v4), stored K-major (16 bytes along K a thread:
    # 2 st.shared.v4). Per iteration (2 + 2) × 4 warps = 16 loads, 2 × 4 = 8 stores; the 64 × 64 fp32
    # accumulator's conversion for the store: 8 + 8 a thread. 2 × 16 + 32 = 64, 2 × 8 + 32 = 48.
    a, b = np.ones((64, 128), np.uint8), np.ones((64, 128), np.uint8)
    cnt = _fp8_loop[(1,)](a, b, np.zeros((64, 64), np.float32), 128, BM=64, BN=64, BK=64)
    assert (cnt.shared_loads_sm90, cnt.shared_stores_sm90) == (64, 48)


def test_an_operand_made_before_the_loop_is_stored_once():
    # 64 × 64 fp16 A loaded before a loop of 3 dots (num_stages=1: no copies). Its store to shared
    # memory is placed before the loop: 4 st.shared.v4 a thread once (16 a program), B's every
    # iteration (16); mma.sync's warps 2 × 2, each reads 32 rows of A and 32 columns of B, 64 deep:
    # 32 × 64 × 2 B / 512 B = 4 ldmatrix.x4 each, 8 a thread, 32 a program, every iteration. The fp32
    # accumulator's conversion for the store: 8 + 8 a thread. Stores 16 + 3 × 16 + 32 = 96 (not 3 × 32
    # + 32 = 128), loads 3 × 64 + 32 = 224.
    cnt = _invariant_a[(1,)](np.ones((64, 64), np.float16), np.ones((192, 64), np.float16),
                             np.zeros((64, 64), np.float32), 192, BM=64, BN=64, BK=64, num_stages=1)
    assert (cnt.shared_stores_sm80, cnt.shared_loads_sm80) == (96, 224)


@triton.jit
def _row_sums(x_ptr, out_ptr, N, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.arange(0, BM)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for j in tl.range(0, N, BN, num_stages=3):
        acc += tl.load(x_ptr + rows[:, None] * N + j + tl.arange(0, BN)[None, :])
    tl.store(out_ptr + rows, tl.sum(acc, axis=1))


def test_a_pipelined_load_no_dot_reads_is_read_back_in_its_registers_order():
    # 16 × 128 floats, nothing known of N: one element a lane, lanes and warps along the 128 columns,
    # so each thread holds 16 rows of one column. The copies go to a plain buffer ordered as the
    # thread's registers run (rows first: LinearEncodingAttr::getOrder), read back 4 floats at a time:
    # 4 ld.shared.v4 a thread an iteration, not 16 (one a register), 2 iterations × 4 × 4 warps = 32.
    from kernellab.triton.compiler.specialize import nothing_known

    x = np.ones((16, 256), np.float32)
    cnt = nothing_known(_row_sums)[(1,)](x, np.zeros(16, np.float32), 256, BM=16, BN=128)
    plain = nothing_known(_row_sums)[(1,)](x, np.zeros(16, np.float32), 128, BM=16, BN=128)
    assert cnt.shared_loads_sm80 - plain.shared_loads_sm80 == 4 * 4


@triton.jit
def _scaled_sums(x_ptr, s_ptr, out_ptr, N, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.arange(0, BM)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for j in tl.range(0, N, BN, num_stages=3):
        acc += tl.load(s_ptr + j // BN) * tl.load(x_ptr + rows[:, None] * N + j + tl.arange(0, BN)[None, :])
    tl.store(out_ptr + rows, tl.sum(acc, axis=1))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_a_scalar_load_of_32_bits_is_pipelined_and_one_of_16_is_not(dtype):
    # _row_sums' 16 × 128 fp32 tile (16 load instructions a program an iteration, 2 iterations) and one scalar
    # a block, which every warp loads: 4 a program. An fp32 scalar is 4 bytes, a cp.async like the tile's: both
    # run 2 + 2 times, (16 + 4) × 4 = 80, and both are read back from shared memory every iteration (the tile 4
    # ld.shared.v4 a thread, the scalar 1: (4 + 1) × 4 warps × 2 = 40, beside the sum's 4). An fp16 scalar is 2
    # bytes, below cp.async's 4 (isSmallLoad): loaded each iteration, 16 × 4 + 4 × 2 = 72, no read-back: 32 + 4.
    # (compiled cases scaled_sum_s3, scaled_sum16_s3: Triton 3.9's PTX executes these.) 128 × 2 + 128 × 3 = 640.
    x, out = np.ones((16, 256), np.float32), np.zeros(16, np.float32)
    cnt = _scaled_sums[(1,)](x, np.array([2, 3], dtype), out, 256, BM=16, BN=128)
    assert (out == 640).all()
    piped = dtype == np.float32
    assert cnt.load_instructions == ((16 + 4) * 4 if piped else 16 * 4 + 4 * 2)
    assert cnt.shared_loads_sm80 == cnt.shared_loads_sm90 == 4 + (4 + piped) * 4 * 2
