"""triton.testing: do_bench reports the model's predicted GPU time of the kernellab launches, never an invented
number; perf_report / Benchmark / Mark.run print, plot and save as Triton's; proton scopes; sampled launches."""

import csv
import functools
import math
import types
import warnings

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import H100, predict
from kernellab.errors import ModelWarning
from kernellab.triton import launches, timing
from kernellab.triton import profiler as proton
from kernellab.triton import testing as T
from kernellab.triton.executor import sampling
from kernellab.triton.runtime import tuning


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def add(x, y):
    out = np.empty_like(x)
    add_kernel[(triton.cdiv(x.size, 1024),)](x, y, out, x.size, BLOCK=1024)
    return out


def test_do_bench_is_the_predicted_time_of_the_launches():
    n = 1 << 20
    x = np.ones(n, np.float32)
    y = np.ones(n, np.float32)
    ms = T.do_bench(lambda: add(x, y))
    # do_bench flushes L2 before each call: three arrays of 4 MiB once each from DRAM at the H100's sustained
    # 3174 of its 4000 GB/s spec (0.7935 × 3.35e12 B/s), after one DRAM round trip (688 cycles at 1.98 GHz),
    # + the GPU's cost of a launch after other work, 4.28 µs
    assert ms == pytest.approx((3 * 4 * n / (3.35e12 * 3174 / 4000) + 688 / 1.98e9 + 4.28e-6) * 1e3, rel=1e-9)
    counts = add_kernel[(n // 1024,)](x, y, np.empty_like(x), n, BLOCK=1024)
    with pytest.warns(ModelWarning, match="below the launch overhead"):  # a 3.76 µs bound under a 4.28 µs launch
        p = predict(counts, H100)
    assert ms == pytest.approx(p["estimate_total_time"] * 1e3, rel=1e-9)
    assert T.do_bench(lambda: add(x, y), quantiles=[0.5, 0.2, 0.8]) == [ms] * 3
    # a CUDA graph replays the launches with no flush: the 12 MiB fit in the 50 MB L2, which serves the 8 MiB
    # loaded at 9.9 TB/s and the 4 MiB stored at 4.5 TB/s (more than the 12 MiB footprint at 9.9), + a graph
    # launch's 1.26 µs
    graph = T.do_bench_cudagraph(lambda: add(x, y))
    assert graph == pytest.approx((2 * 4 * n / 9.9e12 + 4 * n / 4.5e12 + 1.26e-6) * 1e3, rel=1e-9)
    with pytest.warns(ModelWarning):
        p = predict(counts, H100, timer="cudagraph")
    assert graph == pytest.approx(p["estimate_total_time"] * 1e3, rel=1e-9)


def test_a_call_of_several_launches_pays_one_cold_launch_and_the_streams_for_the_others():
    x = np.ones(1 << 16, np.float32)
    one = T.do_bench(lambda: add(x, x))
    # only the call's first launch follows do_bench's flush (cold: 4.28 µs on the H100, nvbench [CCCL-2086]); each
    # later one is queued behind the previous kernel in the stream and pays the back-to-back cost, 2.43 µs [RRZE]:
    # two launches = 2 × one − (4.28 − 2.43) µs = 2 × one − 1.85 µs, three = 3 × one − 3.70 µs (ms below)
    assert T.do_bench(lambda: (add(x, x), add(x, x))) == pytest.approx(2 * one - 1.85e-3, rel=1e-9)
    assert T.do_bench(lambda: [add(x, x) for _ in range(3)]) == pytest.approx(3 * one - 3.70e-3, rel=1e-9)
    # the autotuner's trial of a config prices its launches the same way
    with sampling.sampled(), launches.recording() as made:
        add(x, x), add(x, x)
    assert tuning.predicted_ms(made) == pytest.approx(2 * one - 1.85e-3, rel=1e-9)
    # a CUDA graph's launches all follow another launch: each pays the graph's 1.26 µs, so two add up
    graph = T.do_bench_cudagraph(lambda: add(x, x))
    assert T.do_bench_cudagraph(lambda: (add(x, x), add(x, x))) == pytest.approx(2 * graph, rel=1e-9)


def test_code_without_a_kernellab_launch_is_not_predicted_and_never_a_number():
    x = np.ones(1000, np.float32)
    ms = T.do_bench(lambda: x + x)
    assert isinstance(ms, T.NotPredicted) and math.isnan(ms)
    gbps = 3 * x.nbytes * 1e-9 / (ms * 1e-3)
    assert isinstance(gbps, T.NotPredicted) and str(gbps) == "not predicted"
    assert all(isinstance(v, T.NotPredicted) for v in T.do_bench(lambda: x + x, quantiles=[0.5, 0.2]))


def test_a_function_that_cannot_launch_is_not_called():
    calls = []
    ms = T.do_bench(lambda: np.copyto(np.empty(3), np.ones(3)))  # numpy only: provably no launch
    assert isinstance(ms, T.NotPredicted)

    def maybe():  # reaches add(), which launches: called (once, with the launches sampled)
        calls.append(1)
        return add(np.ones(4096, np.float32), np.ones(4096, np.float32))
    assert T.do_bench(maybe) > 0 and calls == [1]


def test_a_kernel_reached_through_a_users_module_is_predicted():
    # kernels kept in a module of one's own (``import my_kernels``; ``my_kernels.add_kernel[grid](...)``): the
    # lambda names only the module, and the kernel is an attribute of it, which the code does not name. Such a
    # module may launch, so the function is called, and the launch is predicted as it is when the lambda names
    # the kernel itself (before, do_bench returned "not predicted" without calling it).
    user = types.ModuleType("my_kernels")
    user.add_kernel = add_kernel
    x = np.ones(4096, np.float32)
    out = np.empty_like(x)
    fn = eval("lambda: my_kernels.add_kernel[(4,)](x, x, out, 4096, BLOCK=1024)",
              {"my_kernels": user, "x": x, "out": out})
    direct = T.do_bench(lambda: add_kernel[(4,)](x, x, out, 4096, BLOCK=1024))
    assert not math.isnan(direct) and T.do_bench(fn) == direct
    # a module of the standard library or numpy's still proves nothing is launched
    assert isinstance(T.do_bench(eval("lambda: math.sqrt(np.ones(3).sum())", {"math": math, "np": np})),
                      T.NotPredicted)


def test_cpu_timing_on_request_runs_in_full():
    x = np.ones(1 << 14, np.float32)
    out = []
    previous = T.set_measure("cpu")
    try:
        ms = T.do_bench(lambda: out.append(add(x, x)), warmup=0, rep=1)
        assert "CPU time" in T.measure_label()
    finally:
        T.set_measure(previous)
    assert ms > 0 and (out[-1] == 2).all()  # every program ran: the result is complete
    with pytest.raises(ValueError, match="measure must be 'predicted' or 'cpu'"):
        T.set_measure("gpu")


def test_perf_report_table_labels_the_measure_and_the_unpredicted_cells(capsys, tmp_path):
    @T.perf_report([T.Benchmark(x_names=["n"], x_vals=[1 << 12, 1 << 16], line_arg="provider",
                                line_vals=["triton", "numpy"], line_names=["Triton", "NumPy"],
                                styles=[("blue", "-"), ("green", "-")], ylabel="GB/s", plot_name="add-bench",
                                args={})])
    def bench(n, provider):
        x, y = np.ones(n, np.float32), np.ones(n, np.float32)
        fn = (lambda: add(x, y)) if provider == "triton" else (lambda: x + y)
        ms, lo, hi = T.do_bench(fn, quantiles=[0.5, 0.2, 0.8])
        gbps = lambda ms: 3 * x.nbytes * 1e-9 / (ms * 1e-3)  # noqa: E731
        return gbps(ms), gbps(hi), gbps(lo)

    frames = bench.run(print_data=True, show_plots=True, save_path=str(tmp_path), return_df=True)
    out = capsys.readouterr().out
    assert out.startswith("add-bench:\n(GB/s from the GPU time predicted by kernellab's model on the H100 SXM")
    assert "Triton (GB/s)" in out and "NumPy (GB/s)" in out
    lines = out.splitlines()
    # 64 programs, one an SM, each one round of 2 × 4 KiB loaded: the round waits its round trip under the launch's
    # own DRAM traffic (t_round, kernellab.model.loaded), the SM's share of the L2 serves its 8192 B at
    # 9.9 TB/s ÷ 64 SMs = 52.96 ns (kernellab.model.l2queue: one customer, no queue), and the program works its
    # 2 × 32 + 32 lines of 128 B at the L1's one line a cycle ÷ 1.98 GHz = 48.48 ns; + the 4.28 µs launch
    x = np.ones(1 << 16, np.float32)
    with pytest.warns(ModelWarning):
        p = predict(add_kernel[(64,)](x, x.copy(), np.empty_like(x), 1 << 16, BLOCK=1024), H100)
    seconds = p["t_round"] + 8192 / (9.9e12 / 64) + 96 / 1.98e9 + 4.28e-6
    assert p["estimate_total_time"] == pytest.approx(seconds, rel=1e-9)
    assert lines[-1].split()[:2] == ["65536", f"{3 * 4 * (1 << 16) / seconds * 1e-9:.3f}"]
    assert out.count("not predicted: no kernellab launch") == 2
    assert len(frames) == 1
    rows = list(csv.reader((tmp_path / "add-bench.csv").read_text().splitlines()))
    assert rows[0][0].startswith("# (GB/s from the GPU time predicted") and rows[1] == ["n", "Triton (GB/s)", "NumPy (GB/s)"]
    assert (tmp_path / "add-bench.png").stat().st_size > 0 and "add-bench.png" in (tmp_path / "results.html").read_text()


def test_benchmark_rejects_x_values_of_the_wrong_length():
    mark = T.perf_report(T.Benchmark(x_names=["M", "N"], x_vals=[(1, 2, 3)], line_arg="p", line_vals=[1],
                                     line_names=["a"], plot_name="", args={}))(lambda M, N, p: 1.0)
    with pytest.raises(ValueError, match="has 3 entries for the 2 x_names"):
        mark.run()


def test_recording_sees_each_launch_and_nested_recordings_each_see_theirs():
    x = np.ones(2048, np.float32)
    with launches.recording() as outer:
        add(x, x)
        with launches.recording() as inner:
            add(x, x)
    assert [r.kernel for r in outer] == ["add_kernel"] * 2 and len(inner) == 1
    assert [r.grid for r in inner] == [(2, 1, 1)]


def test_proton_scopes_sum_counts_and_predicted_times(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    x = np.ones(1 << 16, np.float32)
    sid = proton.start("t")
    with proton.scope("outer"):
        add(x, x)
        with proton.scope("inner"):
            add(x, x)
    proton.deactivate(sid)
    add(x, x)  # not recorded
    proton.activate(sid)
    add(x, x)  # recorded, outside any scope
    rows = {r[0]: r for r in proton.table(sid).rows}
    one = timing.launch_seconds(add_kernel[(64,)](x, x, np.empty_like(x), x.size, BLOCK=1024)) * 1e6
    assert rows["outer"][1] == "2" and float(rows["outer"][4]) == pytest.approx(2 * one, rel=1e-3)
    assert rows["outer/inner/add_kernel"][1] == "1" and rows["add_kernel"][1] == "1"
    assert rows["outer"][3] == str(2 * 2 * x.nbytes)  # per launch: x read once (it is both operands), out written
    proton.finalize()
    out = capsys.readouterr().out
    assert "proton session t: GPU time predicted by kernellab's model" in out
    assert (tmp_path / "t.hatchet").exists()
    with pytest.raises(ValueError, match="does not match the open scope"):
        proton.exit_scope("nothing open")


@triton.jit
def softmax_rows(out_ptr, in_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0)):
        offs = tl.arange(0, BLOCK)
        x = tl.load(in_ptr + row * n_cols + offs, mask=offs < n_cols, other=-float("inf"))
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(out_ptr + row * n_cols + offs, e / tl.sum(e, axis=0), mask=offs < n_cols)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    pid_m, pid_n = pid // tl.cdiv(N, BN), pid % tl.cdiv(N, BN)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :], mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :], mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def causal_rows(x_ptr, out_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
    start_m = tl.program_id(0)  # as causal attention: program x reads the x + 1 blocks up to its own
    row = tl.program_id(1)
    acc = tl.zeros((BLOCK,), tl.float32)
    for j in range(0, (start_m + 1) * BLOCK, BLOCK):
        acc += tl.load(x_ptr + row * N + j + tl.arange(0, BLOCK))
    tl.store(out_ptr + row * N + start_m * BLOCK + tl.arange(0, BLOCK), acc)


@triton.jit
def causal_attention(q_ptr, k_ptr, v_ptr, o_ptr, N: tl.constexpr, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    start_m = tl.program_id(0)  # tutorial 06's forward: program x of a head attends to keys 0 .. its own block
    base = tl.program_id(1) * N * D
    offs_m = start_m * BM + tl.arange(0, BM)
    offs_d = tl.arange(0, D)
    q = tl.load(q_ptr + base + offs_m[:, None] * D + offs_d[None, :])
    m_i = tl.zeros((BM,), tl.float32) - float("inf")
    l_i = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, D), tl.float32)
    for start_n in range(0, (start_m + 1) * BM, BN):
        offs_n = start_n + tl.arange(0, BN)
        k = tl.load(k_ptr + base + offs_n[None, :] * D + offs_d[:, None])
        qk = tl.dot(q, k)
        qk = tl.where(offs_m[:, None] >= offs_n[None, :], qk, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + base + offs_n[:, None] * D + offs_d[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
        m_i = m_ij
    tl.store(o_ptr + base + offs_m[:, None] * D + offs_d[None, :], (acc / l_i[:, None]).to(tl.float16))


def _name(p) -> str:
    return p.values[0] if hasattr(p, "values") else p[0]


N_ADD = 3 * 1024 * 1024 + 517


@functools.cache
def _data() -> dict:
    """The launches' arrays, drawn once, when the first of them runs (not at collection, in every worker)."""
    rng = np.random.default_rng(0)
    d = {"x": rng.random(N_ADD, dtype=np.float32), "s": rng.standard_normal((3000, 700)).astype(np.float32),
         "a": rng.standard_normal((1000, 600)).astype(np.float16), "b": rng.standard_normal((600, 900)).astype(np.float16),
         # 32 × 16 programs: every (P/S)-th program of the launch order would have x = 0 (one block read, not 16.5)
         "c": rng.random((16, 32 * 64), dtype=np.float32)}
    d["q"], d["k"], d["v"] = (rng.standard_normal((4, 512, 32)).astype(np.float16) for _ in range(3))
    return d


def _launches():
    def causal():
        c = _data()["c"]
        return causal_rows[(32, 16)](c, np.empty_like(c), 32 * 64, BLOCK=64)

    def attention():
        q, k, v = (_data()[n] for n in "qkv")
        return causal_attention[(512 // 32, 4)](q, k, v, np.empty_like(q), 512, 32, BM=32, BN=32)

    def add():
        x = _data()["x"]
        return add_kernel[(triton.cdiv(N_ADD, 1024),)](x, x, np.empty_like(x), N_ADD, BLOCK=1024)

    def softmax():
        s = _data()["s"]
        return softmax_rows[(264,)](np.empty_like(s), s, 3000, 700, BLOCK=1024)

    def matmul():
        a, b = _data()["a"], _data()["b"]
        return matmul_kernel[(triton.cdiv(1000, 64) * triton.cdiv(900, 64),)](
            a, b, np.empty((1000, 900), np.float16), 1000, 900, 600, BM=64, BN=64, BK=32)

    yield "causal rows", causal
    yield "causal attention", attention
    yield "vector add", add
    yield "persistent softmax", softmax
    # the 8-program sample of this masked matmul counts its L1 lines 16 % low (659 640 of 786 000 lines: its edge
    # tiles' share) and its edges (kernellab.model.edges) 39 % low (its edge tiles store fewer bytes): a known
    # limit of kernellab.triton.executor.sampling, recorded here so that fixing it turns this case green (strict)
    yield pytest.param("matmul", matmul, marks=pytest.mark.xfail(
        strict=True, reason="sampled L1 lines of a masked matmul 16 % low, its edges 39 % low"))


@pytest.mark.parametrize(("name", "launch"), list(_launches()), ids=[_name(p) for p in _launches()])
def test_sampled_prediction_within_its_stated_bound_of_the_full_simulation(name, launch):
    full = launch()
    with sampling.sampled():
        est = launch()
    assert est.programs == full.programs
    t_full, t_est = timing.launch_seconds(full), timing.launch_seconds(est)
    assert abs(t_est - t_full) <= sampling.ERROR_BOUND * t_full, (name, t_est / t_full)
    # the sums over programs of equal work are exact to within the sample's share of the unequal ones
    assert abs(est.flops - full.flops) <= 0.05 * full.flops + 1
    # and so are the model's terms read from them: the L1 lines and each program's edges
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        p_full, p_est = predict(full, H100), predict(est, H100)
    for key in ("t_l1", "t_edges"):
        assert abs(p_est[key] - p_full[key]) <= sampling.ERROR_BOUND * p_full[key], (name, key)


def test_sampled_launch_runs_only_its_sample_and_dot_is_not_computed():
    a = np.ones((64, 64), np.float16)
    c = np.full((64, 64), 7, np.float16)
    with sampling.sampled(programs=1):
        cnt = matmul_kernel[(4,)](a, a, c, 64, 64, 64, BM=32, BN=32, BK=32)
    assert cnt.programs == 4 and cnt.dot_flops == 4 * 2 * 32 * 32 * 64  # counted as if all four ran
    assert np.isnan(c).all()  # the one tile stored is the uncomputed dot's NaN; the rest was filled with NaN
    x = np.arange(4096, dtype=np.float32)
    out = np.zeros_like(x)
    with sampling.sampled(programs=1):
        add_kernel[(4,)](x, x, out, x.size, BLOCK=1024)
    # one program of four ran: plan puts it in the middle of the one stratum 0 .. 3, of ids 1 and 2 the lower
    assert np.array_equal(out[1024:2048], 2 * x[1024:2048]) and np.isnan(np.delete(out, np.s_[1024:2048])).all()
    with pytest.raises(ValueError, match="positive number of programs"):
        with sampling.sampled(programs=0):
            pass


def test_a_launch_no_larger_than_the_sample_runs_in_full_and_computes_its_dot():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((64, 48)).astype(np.float16)
    b = rng.standard_normal((48, 64)).astype(np.float16)
    c = np.empty((64, 64), np.float16)
    with sampling.sampled(programs=4):  # 4 programs, a sample of 4: every program runs
        cnt = matmul_kernel[(4,)](a, b, c, 64, 64, 48, BM=32, BN=32, BK=16)
    assert cnt.programs == 4 and not sampling.active()
    ref = a.astype(np.float64) @ b.astype(np.float64)
    assert np.abs(c - ref).max() <= np.abs(ref).max() * 2 ** -10  # fp16 output: within a rounding step


@triton.jit
def int_and_atomic(x_ptr, count_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(count_ptr + offs, offs)
    tl.atomic_add(x_ptr + offs, 1.0)


def test_sampled_atomics_read_the_filled_array_and_integer_arrays_are_left_alone():
    x = np.zeros(16 * 64, np.float32)
    n = np.full(16 * 64, -1, np.int32)
    with sampling.sampled(programs=2):  # strata 0–7 and 8–15: middles 3|4 (lower: 3) and 11|12 (upper: 12)
        int_and_atomic[(16,)](x, n, BLOCK=64)
    ran = np.zeros(16, bool)
    ran[[3, 12]] = True
    ran = np.repeat(ran, 64)
    assert np.isnan(x).all()  # the atomic's first change filled x with NaN, then added 1 to what it read: NaN
    assert (n[ran] == np.flatnonzero(ran)).all() and (n[~ran] == -1).all()  # no NaN for an int32 array


def test_mark_run_samples_the_launches_outside_do_bench_too():
    n = 64 * 1024
    outs = []

    @T.perf_report(T.Benchmark(x_names=["n"], x_vals=[n], line_arg="provider", line_vals=["triton"],
                               line_names=["Triton"], plot_name="", args={}))
    def bench(n, provider):
        x = np.ones(n, np.float32)
        out = add(x, x)  # outside do_bench, as tutorial 06's forward pass before its backward is timed
        outs.append(out)
        return T.do_bench(lambda: add(out, out))

    bench.run()
    # 64 programs, the default sample of 8: eight blocks of 1024 hold 1 + 1; the rest is NaN, not a result
    assert np.isfinite(outs[-1]).sum() == 8 * 1024 and (outs[-1][np.isfinite(outs[-1])] == 2).all()
    bench(n=n, provider="triton")  # called directly, the function runs as written: in full
    assert (outs[-1] == 2).all()
    previous = T.set_measure("cpu")
    try:
        bench.run()  # CPU timing runs every program
    finally:
        T.set_measure(previous)
    assert (outs[-1] == 2).all()


def test_autotune_trials_are_not_part_of_a_benchmark():
    tuned = triton.autotune(configs=[triton.Config({"BLOCK": 256}), triton.Config({"BLOCK": 1024})],
                            key=["n"])(add_kernel)
    x = np.ones(1 << 16, np.float32)
    out = np.empty_like(x)
    launch = lambda: tuned[lambda m: (triton.cdiv(x.size, m["BLOCK"]),)](x, x, out, x.size)  # noqa: E731
    with launches.recording() as made:
        first = T.do_bench(launch)  # tunes (two trials) and launches once
    # 256 programs of 256 on 132 SMs: the busiest SM's 2 programs move half the lines of 1 program of 1024
    assert len(made) == 1 and made[0].grid == (256, 1, 1)
    assert first == T.do_bench(launch)  # the same as once tuned


def _meta(grid, kernel, args):
    return {"name": f"{kernel.name} [n={args['n']}]", "flops16": 2.0 * args["n"], "bytes": 12 * args["n"]}


@triton.jit(launch_metadata=_meta)
def add_named(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def test_launch_metadata_names_proton_rows_and_the_viewer_derives_proton_metrics(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    from kernellab.triton.profiler import viewer

    n = 1 << 16
    x = np.ones(n, np.float32)
    out = np.empty_like(x)
    add_named[(64,)](x, x, out, n, BLOCK=1024)  # no session open: the hook is not needed, and nothing is recorded
    proton.start("named", hook="triton")
    with proton.scope("blas", {"flops16": 1e9, "bytes": 10}):
        np.dot(x, x)  # host work: a scope with metrics and no launch
    with proton.scope("triton"):
        add_named[(64,)](x, x, out, n, BLOCK=1024)
    rows = {r[0]: r for r in proton.table().rows}
    assert rows["triton/add_named [n=65536]"][1] == "1"
    assert rows["blas"][1] == "0" and "not predicted" in rows["blas"][4]
    t = timing.launch_seconds(add_kernel[(64,)](x, x, np.empty_like(x), n, BLOCK=1024))
    proton.finalize()
    capsys.readouterr()
    tree, metrics = viewer.parse(["tflop16/s", "time/us", "gbyte/s", "count"], "named.hatchet")
    viewer.print_tree(tree, metrics)
    lines = {ln.split()[-1] if "[" not in ln else "add": ln for ln in capsys.readouterr().out.splitlines()}
    # the launch declares 2n FLOPs and 12n bytes (launch_metadata): rates are those over the predicted time
    tflops, us, gbps, count = lines["add"].split()[:4]
    assert float(us) == pytest.approx(t * 1e6, rel=1e-3) and count == "1"
    assert float(tflops) == pytest.approx(2.0 * n / t / 1e12, rel=1e-3)
    assert float(gbps) == pytest.approx(12 * n / t / 1e9, rel=1e-3)
    assert lines["blas"].startswith("not predicted")  # declared FLOPs, but no time to divide them by
    with pytest.raises(ValueError, match="unknown metric 'flops/ms'"):
        viewer.parse(["flops/ms"], "named.hatchet")


@pytest.mark.parametrize(("m", "n", "k"), [(1, 1, 1), (17, 33, 5), (64, 48, 130)])
def test_cublas_stand_in_is_a_times_b_transposed_rounded_once(m, n, k):
    from kernellab.triton._C.libtriton import amd, nvidia

    rng = np.random.default_rng(m * n * k)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((n, k)).astype(np.float16)
    ref = (a.astype(np.float64) @ b.astype(np.float64).T).astype(np.float16)  # fp16 inputs: fp32 sums ~exact
    for blas in (nvidia.cublas.CublasLt(None), amd.hipblas.HipblasLt(None)):
        c = np.empty((m, n), np.float16)
        blas.matmul(a, b, c)
        assert np.abs(c.astype(np.float64) - ref).max() <= np.abs(ref.astype(np.float64)).max() * 2 ** -10 + 1e-3
    with pytest.raises(ValueError, match=r"do not fit c = a @ b.T"):
        nvidia.cublas.CublasLt(None).matmul(a, b, np.empty((m, n + 1), np.float16))
    with pytest.raises(TypeError, match="must be a torch tensor or a numpy array"):
        nvidia.cublas.CublasLt(None).matmul([[1.0]], b, c)


@triton.jit
def _store_own_id(out_ptr):
    pid = tl.program_id(0) + 4 * (tl.program_id(1) + 2 * tl.program_id(2))
    tl.store(out_ptr + pid * 8 + tl.arange(0, 8), tl.full((8,), 1.0, tl.float32) * pid)


def test_a_sampled_launch_on_a_3d_grid_runs_a_latin_hypercube_of_its_programs():
    from kernellab.triton.executor import sampling

    # 4 × 2 × 3 = 24 programs, 8 sampled: x = middles of 8 strata of 4 ids, 0 0 1 1 2 2 3 3; y of strata 3i mod 8
    # of 2 ids, 0 0 1 0 1 1 0 1; z of strata 5i mod 8 of 3 ids, 0 2 0 2 1 0 2 1 (even strata take the lower
    # middle). Programs x + 4·(y + 2z): 0 16 5 17 14 6 19 15, all distinct: a scale of 24 / 8 = 3
    out = np.zeros(24 * 8, np.float32)
    with sampling.sampled(programs=8):
        c = _store_own_id[(4, 2, 3)](out)
    ran = [p for p in range(24) if np.isfinite(out[p * 8:(p + 1) * 8]).all()]
    assert ran == [0, 5, 6, 14, 15, 16, 17, 19]
    assert all((out[p * 8:(p + 1) * 8] == p).all() for p in ran)
    assert (c.programs, c.store_bytes) == (24, 8 * 32 * 3)  # 8 programs × 32 B, × 3
