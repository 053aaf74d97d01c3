"""@triton.autotune: names validated at decoration as in 3.9, the model's fastest config chosen (from sampled
trials, as the full simulation would choose), hooks, pruning, reset_to_zero / restore_value, the config table."""

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab.triton import timing
from kernellab.triton.compiler.errors import CompileTimeAssertionFailure
from kernellab.triton.executor.numerics import tf32_truncate


def _matmul(**autotune):
    @triton.autotune(configs=[triton.Config({"BM": 16, "BN": 16}), triton.Config({"BM": 64, "BN": 64}),
                              triton.Config({"BM": 32, "BN": 64})], key=["M", "N", "K"], **autotune)
    @triton.jit
    def mm(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr):
        pid = tl.program_id(0)
        rm = (pid // tl.cdiv(N, BN)) * BM + tl.arange(0, BM)
        rn = (pid % tl.cdiv(N, BN)) * BN + tl.arange(0, BN)
        rk = tl.arange(0, 16)
        acc = tl.zeros((BM, BN), tl.float32)
        for k in range(0, K, 16):
            a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
            b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
    return mm


def grid(M, N):
    return lambda meta: (triton.cdiv(M, meta["BM"]) * triton.cdiv(N, meta["BN"]),)


@pytest.mark.parametrize("typo", [{"key": ["M", "NN"]}, {"reset_to_zero": ["cc"]}, {"restore_value": ["x"]}])
def test_names_that_are_not_arguments_raise_at_decoration(typo):
    kw = {"key": ["M"], **typo}
    param = next(iter(typo))
    with pytest.raises(ValueError, match=f"{param} contains names that are not kernel arguments: "
                                         f"{typo[param][-1]}. Valid argument names are: a_ptr, b_ptr"):
        triton.autotune(configs=[triton.Config({"BM": 16, "BN": 16})], **kw)(_matmul().fn)


def test_chooses_the_config_the_model_predicts_fastest_as_the_full_simulation_would(monkeypatch):
    import importlib

    # without what a program pays outside its loop (kernellab.model.edges) every config below ties: the tie-break
    estimate = importlib.import_module("kernellab.model.estimate")  # the module (a function has its name)
    monkeypatch.setattr(estimate, "edges", lambda *args: 0.0)
    rng = np.random.default_rng(0)
    M = N = K = 128
    a, b = rng.standard_normal((M, K)).astype(np.float32), rng.standard_normal((K, N)).astype(np.float32)
    c = np.zeros((M, N), np.float32)
    mm = _matmul()
    mm[grid(M, N)](a, b, c, M, N, K)
    # the chosen launch ran in full: its fp32 dots read TF32 inputs (Triton 3.9's default), so the reference is
    # the float64 product of the truncated inputs, which the kernel sums in fp32 (128 terms: within 1e-4)
    ref = tf32_truncate(a).astype(np.float64) @ tf32_truncate(b).astype(np.float64)
    np.testing.assert_allclose(c, ref, rtol=1e-4, atol=1e-4)
    full = {}
    for cfg in mm.configs:  # every config simulated in full, ranked by the same prediction
        full[cfg] = timing.launch_seconds(mm.fn.run(a, b, np.zeros_like(c), M, N, K, grid=grid(M, N)(cfg.kwargs),
                                                    **cfg.kwargs))
    # the fastest, as ties go in the tuner (within a relative 1e-9, kernellab.triton.runtime.tuning)
    assert full[mm.best_config] <= min(full.values()) * (1 + 1e-9)
    # at 128³ every config waits on the same K loop: 8 trips of 16, whose loads Triton issues 2 trips ahead
    # (num_stages=3), each trip's work far shorter than the round trip, so all three are one round trip plus
    # 8 half round trips, 5 round trips in all. Each is loaded by the launch's own DRAM traffic
    # (kernellab.model.loaded): 3 × 128² × 4 B = 196 608 B over 5 × 360.41 ns = 1.802 µs is ρ = 196 608 B ÷
    # (1.802 µs × 2.658 TB/s) = 0.0410 of the H100's sustained DRAM bandwidth, where the GH200's measured
    # queueing delay is 9.23 + (0.0410 − 0.0378) ÷ 0.0170 × 19.4 = 12.94 ns (rows 4224 and 6336 of
    # gpu-stream); 5 × (688 cycles ÷ 1.98 GHz + 12.94 ns) = 5 × 360.41 ns = 1.802 µs, + do_bench's 4.28 µs
    # launch: a tie, which goes to the config filling the most SMs, 16×16 tiles on 64 SMs (64×64 and 32×64
    # use 4 and 8)
    assert all(v == pytest.approx(5 * (688 / 1.98e9 + 12.94e-9) + 4.28e-6, rel=1e-4) for v in full.values())
    assert mm.best_config.kwargs == {"BM": 16, "BN": 16}
    for cfg, (median, p20, p80) in mm.configs_timings.items():
        assert median == p20 == p80 == pytest.approx(full[cfg] * 1e3, rel=0.05)
    table = mm.config_table()
    assert len(table.rows) == 3 and table.rows[0][0].startswith("→ BM=16, BN=16")
    assert table.headers[1] == "predicted time on the H100 SXM, launch included (µs)" and table.headers[3] == "SMs used"
    # the tie in the tie-break's order: the most SMs first (64, then 32×64's 8, then 64×64's 4)
    assert [row[2:4] for row in table.rows] == [["latency", "64"], ["latency", "8"], ["latency", "4"]]
    c2 = np.zeros_like(c)
    mm[grid(M, N)](a, b, c2, M, N, K)  # cached per key: no new tuning
    assert len(mm.cache) == 1 and (c2 == c).all()


def test_the_edges_of_the_smallest_tiles_cost_least_at_128_cubed():
    # the launches of the test above, with their edges (kernellab.model.edges): one program an SM, its first
    # round (K step 16 of fp32 A and B tiles) at an SM's share of the L2's loads, 9.9e12 ÷ 132 = 75 GB/s, and
    # its C tile at its share of the stores, 4.5e12 ÷ 132 = 34.09 GB/s: 16×16, 2048 B and 1024 B, 27.31 + 30.04
    # = 57.34 ns; 32×64, 6144 B and 8192 B, 81.92 + 240.30 = 322.22 ns; 64×64, 8192 B and 16 384 B, 109.23 +
    # 480.60 = 589.82 ns; on top of the loop's 5 loaded round trips, 1.802 µs, and the 4.28 µs launch. The
    # smallest tiles move the fewest bytes through one SM: 16×16 on 64 SMs is the fastest, not by a tie-break
    M = N = K = 128
    a, b = np.ones((M, K), np.float32), np.ones((K, N), np.float32)  # 3 arrays, as above: the same DRAM traffic
    mm = _matmul()
    mm[grid(M, N)](a, b, np.zeros((M, N), np.float32), M, N, K)
    edges = {(16, 16): 57.344e-9, (32, 64): 322.219e-9, (64, 64): 589.824e-9}
    for cfg in mm.configs:
        full = timing.launch_seconds(mm.fn.run(a, b, np.zeros((M, N), np.float32), M, N, K,
                                               grid=grid(M, N)(cfg.kwargs), **cfg.kwargs))
        trips = 5 * (688 / 1.98e9 + 12.94e-9) + 4.28e-6
        assert full == pytest.approx(trips + edges[(cfg.kwargs["BM"], cfg.kwargs["BN"])], rel=1e-4)
    assert mm.best_config.kwargs == {"BM": 16, "BN": 16}
    assert [row[0].lstrip("→ ").split(",")[:2] for row in mm.config_table().rows] == [
        ["BM=16", " BN=16"], ["BM=32", " BN=64"], ["BM=64", " BN=64"]]


def test_prune_configs_by_early_prune_and_perf_model():
    seen = []

    def early(configs, nargs, **kw):
        seen.append(sorted(nargs))
        return [c for c in configs if c.kwargs["BM"] != 64]

    mm = _matmul(prune_configs_by={"early_config_prune": early, "perf_model": lambda **kw: kw["BN"], "top_k": 1})
    a = np.ones((64, 64), np.float32)
    mm[grid(64, 64)](a, a, np.zeros_like(a), 64, 64, 64)
    assert seen == [["K", "M", "N", "a_ptr", "b_ptr", "c_ptr"]]
    assert mm.best_config.kwargs == {"BM": 16, "BN": 16}  # top_k=1 of the smallest BN after pruning: no trial


@triton.jit
def accumulate(x_ptr, out_ptr, n, B: tl.constexpr):
    offs = tl.program_id(0) * B + tl.arange(0, B)
    tl.atomic_add(out_ptr + offs % 4, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def test_reset_to_zero_and_hooks_around_each_trial():
    calls = []
    tuned = triton.autotune(configs=[triton.Config({"B": 32}, pre_hook=lambda nargs: calls.append(("cfg", nargs["B"]))),
                                     triton.Config({"B": 64})], key=["n"], reset_to_zero=["out_ptr"])(accumulate)
    x = np.ones(256, np.float32)
    out = np.full(4, 1000, np.float32)  # garbage: reset before the chosen launch
    tuned[lambda m: (triton.cdiv(256, m["B"]),)](x, out, 256)
    assert out.tolist() == [64.0] * 4  # 256 ones into 4 slots, once
    assert ("cfg", 32) in calls

    hooks = []
    tuned = triton.autotune(configs=[triton.Config({"B": 32}), triton.Config({"B": 64})], key=["n"],
                            pre_hook=lambda nargs, reset_only=False: hooks.append(("pre", reset_only)),
                            post_hook=lambda nargs, exception: hooks.append(("post", exception)))(accumulate)
    tuned[lambda m: (triton.cdiv(256, m["B"]),)](x, np.zeros(4, np.float32), 256)
    assert hooks == [("pre", False), ("post", None), ("pre", False), ("post", None), ("pre", True)]


@triton.jit
def bump(x_ptr, n, B: tl.constexpr):
    offs = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)


def test_restore_value_and_trials_leave_the_arguments_alone():
    tuned = triton.autotune(configs=[triton.Config({"B": 32}), triton.Config({"B": 128})], key=["n"],
                            restore_value=["x_ptr"])(bump)
    x = np.arange(100, dtype=np.float32)
    tuned[lambda m: (triton.cdiv(100, m["B"]),)](x, 100)
    np.testing.assert_array_equal(x, np.arange(100) + 1)  # incremented once: by the chosen launch only


@pytest.mark.parametrize(("n", "dtype"), [(100, np.float32), (64 * 64 + 3, np.float32), (64 * 64 + 3, np.int32)])
def test_restore_value_puts_back_what_sampled_or_full_trials_change(n, dtype):
    # grids of 4 and 1 programs (n = 100: every trial runs in full) or of 257 and 65 (sampled trials)
    big = n > 100
    tuned = triton.autotune(configs=[triton.Config({"B": 16 if big else 32}), triton.Config({"B": 64 if big else 128})],
                            key=["n"], restore_value=["x_ptr"])(bump)
    x = np.arange(n).astype(dtype)
    tuned[lambda m: (triton.cdiv(n, m["B"]),)](x, n)
    np.testing.assert_array_equal(x, np.arange(n) + 1)  # neither trial's change is left: the chosen launch's +1


def test_trials_change_what_they_write_as_triton_trials_do():
    # Triton's trials run on the arguments and put back only what restore_value names: bump without it adds
    # 1 per trial. Grids of 4 (B=32) and 1 (B=128) programs run in full: two trials + the chosen launch = +3.
    tuned = triton.autotune(configs=[triton.Config({"B": 32}), triton.Config({"B": 128})], key=["n"])(bump)
    x = np.arange(100, dtype=np.float32)
    tuned[lambda m: (triton.cdiv(100, m["B"]),)](x, 100)
    np.testing.assert_array_equal(x, np.arange(100) + 3)


def test_sampled_trials_change_only_what_their_sampled_programs_store():
    # n = 4099: B=16 is 257 programs and B=64 is 65, so each trial runs the sample of 8 (sampling.plan: the
    # middle of each of 8 strata, the lower of two for even strata). 257 programs: (i + 0.5)·257/8 − 0.5 =
    # 15.56 + 32.125·i → programs 16 + 32·i, elements [256 + 512·i, 272 + 512·i). 65 programs: (i + 0.5)·65/8
    # − 0.5 = 3.56 + 8.125·i → programs 4 + 8·i, elements [256 + 512·i, 320 + 512·i). Every element gets the
    # chosen launch's +1; the first 16 of each of the 8 ranges +2 more, the next 48 +1 more; nothing is NaN.
    n = 64 * 64 + 3
    tuned = triton.autotune(configs=[triton.Config({"B": 16}), triton.Config({"B": 64})], key=["n"])(bump)
    x = np.arange(n, dtype=np.float32)
    tuned[lambda m: (triton.cdiv(n, m["B"]),)](x, n)
    added = np.ones(n)
    for i in range(8):
        added[256 + 512 * i:272 + 512 * i] += 2
        added[272 + 512 * i:320 + 512 * i] += 1
    assert (added == 3).sum() == 8 * 16 and (added == 2).sum() == 8 * 48
    np.testing.assert_array_equal(x, np.arange(n) + added)


def test_what_no_program_writes_keeps_its_value_after_sampled_trials():
    # only the first half is stored to; 257 and 65 programs: sampled trials, which fill nothing with NaN
    @triton.autotune(configs=[triton.Config({"B": 16}), triton.Config({"B": 64})], key=["n"])
    @triton.jit
    def half(x_ptr, n, B: tl.constexpr):
        offs = tl.program_id(0) * B + tl.arange(0, B)
        tl.store(x_ptr + offs, 7.0, mask=offs < n // 2)

    n = 64 * 64 + 3
    x = np.arange(n, dtype=np.float32)
    half[lambda m: (triton.cdiv(n, m["B"]),)](x, n)
    assert (x[:n // 2] == 7).all()
    np.testing.assert_array_equal(x[n // 2:], np.arange(n // 2, n))  # as the GPU leaves them


def test_conflicting_meta_parameters_are_an_error():
    tuned = triton.autotune(configs=[triton.Config({"B": 32}), triton.Config({"B": 128})], key=["n"])(bump)
    with pytest.raises(ValueError, match="Conflicting meta-parameters: B"):
        tuned[(1,)](np.zeros(8, np.float32), 8, B=32)


def test_print_autotuning_prints_the_table(monkeypatch, capsys):
    monkeypatch.setenv("TRITON_PRINT_AUTOTUNING", "1")
    tuned = triton.autotune(configs=[triton.Config({"B": 32}), triton.Config({"B": 128})], key=["n"])(bump)
    tuned[lambda m: (triton.cdiv(100, m["B"]),)](np.zeros(100, np.float32), 100)
    out = capsys.readouterr().out
    assert "Triton autotuning for function bump" in out and "best config selected" in out
    # bump loads and stores 100 elements: 4 programs of 32 on 4 SMs beat 1 of 128 (its SM moves 4× the lines)
    assert "→ B=32, num_warps=4, num_stages=3" in out and "SMs used" in out


def test_a_config_failing_static_assert_is_skipped_as_triton_does():
    @triton.autotune(configs=[triton.Config({"B": 256}), triton.Config({"B": 32})], key=["n"])
    @triton.jit
    def capped(x_ptr, n, B: tl.constexpr):
        tl.static_assert(B <= 64)
        offs = tl.program_id(0) * B + tl.arange(0, B)
        tl.store(x_ptr + offs, 1.0, mask=offs < n)

    x = np.zeros(100, np.float32)
    capped[lambda m: (triton.cdiv(100, m["B"]),)](x, 100)
    assert capped.best_config.kwargs == {"B": 32} and x.sum() == 100
    assert capped.configs_timings[capped.configs[0]] == [float("inf")] * 3
    # every config fails: the launch raises Triton's CompileTimeAssertionFailure, a CompilationError
    with pytest.raises(CompileTimeAssertionFailure, match="Static assert failed"):
        triton.autotune(configs=[triton.Config({"B": 256}), triton.Config({"B": 128})], key=["n"])(capped.fn)[
            (1,)](x, 100)
