"""The validation harness (benchmarks/validation): its rows, its scoring, its scaling, and that the committed
results file is current for a cheap subset of rows (a model change that moves a prediction without
``nox -s validate`` fails here)."""

import json
import math

import numpy as np
import pytest

from benchmarks.validation import before, cases, checks, env, kernels_simt, run, scoring
from benchmarks.validation.rows import (
    NOT_SCORED,
    RATIO_TO,
    REFERENCE,
    UnknownGPUError,
    load_rows,
    resolve_gpu,
    scored_ids,
)
from kernellab import A100, H100, launch
from kernellab.specs import A100_PCIE

RESULTS = json.loads(run.RESULTS.read_text())


def test_every_row_has_a_case_and_49_are_scored():
    rows = load_rows()
    cases.check_complete(rows)
    # 57 rows − 6 reference rows of the low-confidence source − AF-18 (envelope) − GL-10 (noise floor) = 49
    assert len(rows) == 57 and len(REFERENCE) == 6 and len(NOT_SCORED) == 2
    assert len(scored_ids(rows)) == 49
    assert set(RATIO_TO.values()) <= set(REFERENCE)
    assert len(scored_ids(rows, in_sample=("GS-01", "EW-07"))) == 48  # EW-07 is a reference row already


def test_gpus_resolve_to_their_specs_or_raise_naming_the_gpu():
    assert resolve_gpu("H100 SXM") == (H100, None)
    assert resolve_gpu("A100-SXM4-80GB") == (A100, None)
    assert resolve_gpu("A100 80GB PCIe") == (A100_PCIE, None)  # GL-17's card: 1935 GB/s, not the SXM's 2039
    assert A100_PCIE.dram_bw == 1935e9
    gpu, note = resolve_gpu("A100 (variant not stated)")
    assert gpu is A100 and "not stated" in note
    for name in ("A100 40GB PCIe", "V100 SXM2", "RTX 4090"):
        with pytest.raises(UnknownGPUError, match=name):
            resolve_gpu(name)


def test_scaled_counts_equal_the_full_launch():
    # The transpose at 512² is 16 × 16 identical blocks; at 256², 8 × 8: the 256² counts × 4 are the 512²
    # counts, DRAM sectors included (every block touches its own 32 rows of 128 B in and out).
    def counts(n):
        a = np.arange(n * n, dtype=np.float32).reshape(n, n)
        o = np.zeros_like(a)
        c = launch(kernels_simt.transpose_padded_float4, (n // 32, n // 32), (8, 32), args=(a, o, n), gpu=H100)
        assert (o == a.T).all()
        return c
    full, part = counts(512), cases.scaled(counts(256), 4, (16, 16, 1))
    assert part == full and part.dram_bytes == 2 * 512 * 512 * 4
    assert part.launch["grid"] == (16, 16, 1) and part.shld_wavefronts == part.shld_ideal  # padded: no conflict


@pytest.mark.parametrize("check", checks.CHECKS, ids=lambda c: c.__name__)
def test_triton_kernels_compute_what_numpy_does(check):
    """The rows are predicted from sampled launches, which do not compute: each kernel, run in full at a small
    size (edges included), agrees with float64 numpy within its limit (the limits are argued in checks.py)."""
    for name, (err, limit) in check(env.KERNELLAB).items():
        assert err <= limit, f"{name}: largest error {err:.3g} over {limit:.3g}"


def test_every_triton_case_launches_on_an_env_and_every_simt_case_does_not():
    for c in cases.CASES.values():
        assert (c.launch is not None) == (c.engine == "triton"), c.row


def test_scores_windows_and_summary_by_hand():
    recs = [{"id": "GS-01", "category": "g", "ratio": 1.25}, {"id": "GS-02", "category": "g", "ratio": 0.4},
            {"id": "GL-17", "category": "g", "ratio": None},
            {"id": "EW-06", "category": "e", "ratio": 0.5}, {"id": "EW-07", "category": "e", "ratio": 0.25}]
    scoring.score_rows(recs)
    by = {r["id"]: r for r in recs}
    # EW-06 is scored on its ratio to EW-07: 0.5 / 0.25 = 2.0, on the edge of [0.5, 2]; EW-07 is not scored
    assert by["EW-06"]["score"] == 2.0 and by["EW-06"]["ratio_to"] == "EW-07" and by["EW-07"]["score"] is None
    s = scoring.summarise(run.scored(recs))
    # 4 scored rows: 1.25 within both windows; 2.0 within [0.5, 2]; 0.4 in neither; GL-17 a miss
    assert s["all"]["rows"] == 4 and s["all"]["within_1.25"] == 1 / 4 and s["all"]["within_2"] == 2 / 4
    assert s["all"]["geomean"] == pytest.approx((1.25 * 0.4 * 2.0) ** (1 / 3))
    assert s["all"]["worst"]["id"] == "GS-02" and s["all"]["misses"] == ["GL-17"]
    assert s["categories"]["e"]["rows"] == 1


def test_units_convert_to_seconds_both_ways():
    rows = load_rows()
    # GS-01: 121.1 TFLOP/s over 2·1024³ FLOPs is 17.73 µs
    assert scoring.measured_seconds(rows["GS-01"], 2 * 1024**3, 1.98e9) == pytest.approx(17.73e-6, rel=1e-3)
    # LA-03: 570.5 cycles a hop × 512 hops ÷ 1.98 GHz
    assert scoring.measured_seconds(rows["LA-03"], 512, 1.98e9) == pytest.approx(570.5 * 512 / 1.98e9)
    assert scoring.predicted_value(rows["EW-03"], 31.874e-6, None, 1.98e9) == pytest.approx(31.874)


@pytest.mark.parametrize("row_id", [rid for rid, c in cases.CASES.items() if c.cheap])
def test_results_file_is_current(row_id):
    """The committed kernellab/validation.json holds what the model predicts now for the cheap rows."""
    hint = "kernellab/validation.json is stale: run `nox -s validate` and commit the file"
    assert RESULTS["harness"] == before.harness_hash(), f"the harness changed since the file was made; {hint}"
    stored = {r["id"]: r for r in RESULTS["rows"]}[row_id]
    now, = run.finish(run.predict_rows([row_id]))
    assert now["error"] == stored["error"], hint
    if now["seconds"] is not None:
        assert math.isclose(now["seconds"], stored["seconds"], rel_tol=1e-9), \
            f"{row_id}: predicted {now['seconds']:.6g} s now, {stored['seconds']:.6g} s in the file; {hint}"
        assert now["bound"] == stored["bound"], hint


def test_results_file_summaries_follow_from_its_rows():
    """The stored summaries (now and before) are what the scoring gives for the stored rows."""
    for part in (RESULTS, RESULTS["before"]):
        rows = run.finish([before._raw(r) for r in part["rows"]])
        assert scoring.summarise(run.scored(rows)) == json.loads(json.dumps(part["summary"]))
    assert RESULTS["before"]["commit"] == before.COMMIT and len(RESULTS["before"]["rows"]) == 57


def test_moved_rows_are_listed_against_the_file(capsys):
    stored = {"commit": "abc", "rows": [{"id": "GS-01", "seconds": 1e-5, "ratio": 0.5, "bound": "tensor"},
                                        {"id": "GS-02", "seconds": 2e-5, "ratio": 0.8, "bound": "tensor"}]}
    now = [{"id": "GS-01", "seconds": 1e-5, "ratio": 0.5, "bound": "tensor"},
           {"id": "GS-02", "seconds": 3e-5, "ratio": 1.2, "bound": "DRAM"}]
    run.print_moved(stored, now)
    out = capsys.readouterr().out
    # GS-02's time and binding term changed, GS-01's did not
    assert "(commit abc): 1" in out and "GS-02" in out and "GS-01" not in out and "1.2" in out


def test_af17_stand_in_counts_an_fp8_wgmma_then_an_fp16_one():
    """AF-17 runs tutorial 06 as its 2023-10 revision's benchmark did on an H100: q and k (and O) stored as fp8
    e5m2, V fp16. q·kᵀ is an fp8 dot (wgmma k32 on sm_90) and P·V, P cast to V's dtype, an fp16 one (k16)."""
    from kernellab.triton.launches import recording

    make = cases._attention_fwd(1, 1, 256, 64, causal=True, config=cases.TUT06_2023_H100, qk_dtype="fp8e5")
    fn, work = make(env.KERNELLAB)
    with recording() as launches:
        fn()
    c, = (launch.counts for launch in launches)
    # 2 programs of 128 query rows, 64-wide key blocks: program 0 its 2 diagonal blocks, program 1 2 below the
    # diagonal and 2 on it: 6 key blocks. Each dot is 128 × 64 × 64: 2·128·64·64 = 1,048,576 FLOPs
    assert c.dot_flops_fp8 == 6 * 1_048_576 and c.dot_flops_f16 == 6 * 1_048_576 and c.dot_flops == 12 * 1_048_576
    assert work == 4 * 256 * 256 * 64 * 0.5  # the rows' FLOPs: 4·N²·d halved (the masked half still computed)
    # 8 warps are 2 warpgroups of 64 rows each, N 64 in one wgmma: q·kᵀ is K 64 ÷ 32 = 2 wgmma a warpgroup, P·V
    # K 64 ÷ 16 = 4; × 2 warpgroups × 4 warps: 16 + 32 = 48 warp instructions a block, × 6 blocks = 288
    # (fp16 q and k: 32 + 32 = 64 a block, 384)
    assert c.wgmma_sm90 == 288


def test_ln_backward_stand_in_runs_the_call_as_olmo_measured_it():
    """LN-03's do_bench call is OLMo's ``y.backward(dy, retain_graph=True)``: torch.zeros of the lock words, dx, dW/dB,
    then the in-place accumulation of the weight's and the bias's gradients, in that order on the stream."""
    made = []

    class Kernel:  # records each launch's name, grid and arguments instead of running it
        def __init__(self, name):
            self.name = name

        def __getitem__(self, grid):
            return lambda *args, **meta: made.append((self.name, tuple(grid), args, meta))

    class Recording(env.Env):
        def __init__(self):
            super().__init__()
            self.kt = type("Kernels", (), {k: Kernel(k) for k in ("zero_kernel", "layer_norm_bwd_dx",
                                                                  "layer_norm_bwd_dwdb", "add_kernel")})

    fn, work = cases.CASES["LN-03"].launch(Recording())
    fn()
    # 2 · GROUP_SIZE_M 128 = 256 lock words: one program of 256; 4096 rows; cdiv(4096, 128) = 32 column blocks of
    # dW/dB; each gradient's 4096 elements in cdiv(4096, 1024) = 4 programs
    assert [(name, grid) for name, grid, _, _ in made] == [
        ("zero_kernel", (1,)), ("layer_norm_bwd_dx", (4096,)), ("layer_norm_bwd_dwdb", (32,)),
        ("add_kernel", (4,)), ("add_kernel", (4,))]
    (_, _, zero_args, _), (_, _, dx_args, _), (_, _, dwdb_args, _), (_, _, w_args, _), (_, _, b_args, _) = made
    assert zero_args[0] is dx_args[8] and zero_args[1] == 256  # the locks the dx kernel spins on, all 256 words
    # weight.grad += dW and bias.grad += dB, in place: each adds the dW/dB kernel's output into its own gradient
    assert w_args[0] is w_args[2] and w_args[1] is dwdb_args[2] and b_args[0] is b_args[2] and b_args[1] is dwdb_args[3]
    assert w_args[0] is not b_args[0] and work == 3 * 4096 * 4096 * 2
