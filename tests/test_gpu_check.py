"""benchmarks/gpu/gpu_check.py without a GPU: the plan, the dry run, the table, and the compile step where
nvcc is installed (issue 25, "On a GPU, when one is lent").

Every launch and budget is checked against arithmetic done by hand; nothing here needs CuPy, torch or a GPU.
"""

import doctest
import importlib.util
import json
import math
import os
from pathlib import Path

import numpy as np
import pytest

from kernellab import H200, KERNELS
from kernellab.specs import PERF_H200

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("gpu_check", ROOT / "benchmarks" / "gpu" / "gpu_check.py")
gpu_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gpu_check)

#: C elements one thread of each SGEMM twin computes (k1–k3 one, k4 a column of 8, k5–k9 8×8, k10 8×16)
OUTPUTS = {1: 1, 2: 1, 3: 1, 4: 8, 5: 64, 6: 64, 7: 64, 8: 64, 9: 64, 10: 128}


@pytest.fixture(scope="module")
def the_plan():
    return gpu_check.plan("H200", triton=True)


def test_docstring_examples():
    assert doctest.testmod(gpu_check).failed == 0


def test_every_sgemm_twin_is_planned_with_a_launch_that_covers_c(the_plan):
    sgemm = {j["id"]: j for j in the_plan["jobs"] if j["kind"] == "sgemm"}
    assert sorted(sgemm) == [f"k{k:02d}" for k in range(1, 11)]
    for k, spec_k in enumerate(KERNELS, 1):
        job = sgemm[f"k{k:02d}"]
        assert job["kernel"] == spec_k.name and job["source"].startswith("cuda/k")
        # threads × outputs per thread = 4096² elements of C, each written once
        assert math.prod(job["grid"]) * math.prod(job["block"]) * OUTPUTS[k] == 4096 * 4096, k
        assert job["flops"] == 2 * 4096**3


def test_k1_bound_is_the_l1_line_rate_by_hand(the_plan):
    # loads: 33 lines per 32 FMAs (32 rows of A, one broadcast element of B), n³·33/32; stores: lanes walk
    # down a column of C, so each warp's store touches 32 lines, n² in all; 1 line per SM per cycle on the
    # busiest SM, which runs ⌈16384 ÷ 132⌉ = 125 of the (4096 ÷ 32)² = 16384 blocks (the bound leaves the
    # launch out)
    n = 4096
    lines = n**3 * 33 // 32 + n * n
    k1 = next(j for j in the_plan["jobs"] if j["id"] == "k01")
    assert k1["model"]["bound"] == "L1"
    t_l1 = lines * 125 / 16384 / 1.98e9
    assert k1["model"]["bound_gflops"] == pytest.approx(2 * n**3 / t_l1 / 1e9, rel=1e-9)


def test_estimates_never_exceed_bounds_and_repeats_fill_about_a_second(the_plan):
    for j in the_plan["jobs"]:
        if j["kind"] != "sgemm":
            continue
        m = j["model"]
        assert m["estimate_gflops"] <= m["bound_gflops"] * (1 + 1e-12)
        assert gpu_check.MIN_REPS <= j["reps"] <= gpu_check.MAX_REPS
        # fewest repeats reaching TIME_PER_JOB_S, unless capped
        assert j["reps"] == min(gpu_check.MAX_REPS,
                                max(gpu_check.MIN_REPS, math.ceil(gpu_check.TIME_PER_JOB_S / m["t_estimate_s"])))


def test_the_plan_fits_eight_minutes_and_adds_up(the_plan):
    # 15 twins compile in one round of 16 at once; the jobs' budgets add the rest
    assert the_plan["compile_s"] == gpu_check.COMPILE_S * math.ceil(15 / gpu_check.COMPILE_WORKERS)
    assert the_plan["budget_s"] == pytest.approx(the_plan["compile_s"] + sum(j["budget_s"] for j in the_plan["jobs"]))
    assert the_plan["budget_s"] <= 8 * 60
    ids = [j["id"] for j in the_plan["jobs"]]
    assert {"matmul-g1", "matmul-g8", "gelu", "softmax-1024", "softmax-4096"} <= set(ids)
    assert len(ids) == len(set(ids))
    json.dumps(the_plan)  # the record is plain JSON


def test_triton_models_by_hand(the_plan):
    jobs = {j["id"]: j for j in the_plan["jobs"]}
    # GeLU reads x and writes y once: 8 bytes an element, at 4.8 TB/s
    assert jobs["gelu"]["bytes_per_element"] == 8
    assert jobs["gelu"]["model"]["t_estimate_s"] == pytest.approx(16384**2 * 8 / H200.dram_bw)
    # the matmul can be no faster than the dense FP16 Tensor Core peak
    assert jobs["matmul-g1"]["model"]["t_math_s"] == pytest.approx(2 * 4096**3 / H200.fp16_tensor_peak)
    assert jobs["matmul-g8"]["model"]["t_estimate_s"] >= jobs["matmul-g8"]["model"]["t_math_s"]


def test_memory_twins_are_planned_from_their_source(tmp_path):
    # a reduction that adds two elements per thread while loading: blocks of 256 threads sum 512 floats
    (tmp_path / "r04.cu").write_text('extern "C" __global__ void reduce4(const float *g_idata, float *g_odata, '
                                     'unsigned int n) {}\n')
    (tmp_path / "q01.cu").write_text('extern "C" __global__ void axpy(const float *x, const float *y, float *out, '
                                     'float a, int n) {}\n')
    jobs = {j["id"]: j for j in gpu_check.plan("H200", triton=False, cuda_dir=tmp_path)["jobs"]}
    r4, ax = jobs["reduce4"], jobs["axpy"]
    n = gpu_check.N_REDUCE
    assert r4["grid"] == [n // 512, 1, 1] and r4["block"] == [256, 1, 1] and r4["per_block"] == 512
    assert r4["bytes"] == n * 4 + n // 512 * 4  # every input float once, one output float a block
    assert r4["model"]["t_bound_s"] == pytest.approx(r4["bytes"] / H200.dram_bw + PERF_H200.launch_s)
    assert ax["bytes"] == 3 * gpu_check.N_AXPY * 4  # x and y read, out written


def test_unknown_twin_and_unknown_job_and_budget_are_refused(tmp_path, monkeypatch):
    (tmp_path / "x.cu").write_text('extern "C" __global__ void mystery(float *p) {}\n')
    with pytest.raises(gpu_check.PlanError, match="x.cu: kernel 'mystery' has no launch"):
        gpu_check.plan("H200", triton=False, cuda_dir=tmp_path)
    with pytest.raises(gpu_check.PlanError, match="names no job: \\['k99'\\]"):
        gpu_check.plan("H200", only={"k99"}, triton=False)
    with pytest.raises(gpu_check.PlanError, match="no kernellab spec for the GPU 'Tesla T4'"):
        gpu_check.plan("Tesla T4")
    monkeypatch.setattr(gpu_check, "BUDGET_S", 10)
    with pytest.raises(gpu_check.PlanError, match="more than the 10 s budget"):
        gpu_check.plan("H200", triton=False)


def test_kernel_name_wants_exactly_one_kernel():
    with pytest.raises(gpu_check.PlanError, match="found \\['a', 'b'\\]"):
        gpu_check.kernel_name('extern "C" __global__ void a() {}\nextern "C" __global__ void b() {}')


def test_table_ratios_by_hand(the_plan):
    plan = {**the_plan, "jobs": [dict(j) for j in the_plan["jobs"] if j["id"] in ("k10", "gelu")]}
    k10, gelu = plan["jobs"]
    k10["timing"] = {"ms": [4.0, 3.9, 4.1], "clocks_after": {"sm_mhz": "1980"}}
    gelu["timing"] = {"ms": [0.5, 0.49, 0.51], "clocks_after": {}}
    rows = {r[0]: r for r in gpu_check.table_rows(plan)}
    bound_s = 2 * 4096**3 / (k10["model"]["bound_gflops"] * 1e9)
    assert rows["k10"][3] == "4.000 [3.900, 4.100]"
    assert rows["k10"][4] == f"{2 * 4096**3 / 4e-3 / 1e9:.0f} GFLOP/s"
    assert rows["k10"][7] == f"{bound_s / 4e-3:.2f}" and rows["k10"][9] == "1980"
    assert rows["gelu"][4] == f"{16384**2 * 8 / 0.5e-3 / 1e9:.0f} GB/s" and rows["gelu"][9] == "?"
    assert "—" not in rows["k10"][3:9]


def test_dry_run_without_nvcc_plans_and_writes_the_record(tmp_path, capsys):
    record = gpu_check.main(["--dry-run", "--no-compile", "--no-validation", "--json", str(tmp_path / "r.json"),
                             "--table", str(tmp_path / "t.md")])
    saved = json.loads((tmp_path / "r.json").read_text())
    assert saved["dry_run"] is True and saved["nvcc"] is None and saved["gpu"] == "H200 SXM"
    assert not any("timing" in j or "compile" in j for j in saved["jobs"])
    assert len(saved["jobs"]) == len(record["jobs"])
    table = (tmp_path / "t.md").read_text()
    assert "dry run: nothing timed" in table
    assert table.count("\n| k") == 10  # one row per SGEMM twin
    assert "sgemmWarptiling" in capsys.readouterr().out


def test_find_nvcc_prefers_env_then_the_pypi_wheel(tmp_path, monkeypatch):
    monkeypatch.setenv("NVCC", "/opt/x/nvcc")
    assert gpu_check.find_nvcc() == "/opt/x/nvcc"
    monkeypatch.delenv("NVCC")
    wheel = tmp_path / "nvidia" / "cu13" / "bin"
    wheel.mkdir(parents=True)
    (wheel / "nvcc").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert gpu_check.find_nvcc() == str(wheel / "nvcc")


@pytest.mark.skipif(gpu_check.find_nvcc() is None, reason="nvcc is not installed ($NVCC, nvidia-cuda-nvcc, PATH)")
def test_compile_step_builds_sm90_cubins(tmp_path, request):
    # the cubins of an earlier run are reused from pytest's cache only under the same compile_key (nvcc, gcc, flags,
    # sources and includes: test_a_cached_cubin_is_reused_only_under_the_same_key); without the cache, compiled here
    cache = request.config.cache.mkdir("gpu_check-cubins") if hasattr(request.config, "cache") else tmp_path / "cache"
    record = gpu_check.main(["--dry-run", "--no-triton", "--only", "k01,k10", "--build", str(tmp_path),
                             "--json", str(tmp_path / "r.json"), "--cache", str(cache)])
    assert record["nvcc"].startswith("release")
    for job in record["jobs"]:
        cubin = Path(job["compile"]["cubin"])
        assert cubin.parent == tmp_path  # copied out of the cache when it came from there
        assert cubin.read_bytes()[:4] == b"\x7fELF"  # a cubin is an ELF file
        assert job["compile"]["registers"] > 0
    regs = {j["id"]: j["compile"]["registers"] for j in record["jobs"]}
    assert regs["k10"] > regs["k01"]  # 128 accumulators a thread against one


# --- the validation rows' kernels (benchmarks/gpu/validation_jobs.py) ------------------------------------

VAL = gpu_check.validation_jobs


def test_rows_of_one_launch_are_one_job():
    groups = {g[0]: g for g in VAL.groups()}
    # the autotuned 1024³ fp16 matmul stands in for cuBLAS and for tutorial 03 on both GPUs; attention rows of
    # one shape, one key loop and one tiling are one launch whatever they stand in for (FlashAttention-3's AF-05
    # runs its loop warp-specialised; FA2's AF-01 runs FlashAttention-2's 128 × 128 tiles, Triton's AF-03 the
    # tutorial's 128 × 64); every row is in exactly one group
    assert groups["GS-01"] == ["GS-01", "GS-02", "GS-09", "GS-10"]
    assert groups["AF-01"] == ["AF-01"] and groups["AF-03"] == ["AF-03"] and groups["AF-05"] == ["AF-05"]
    assert groups["LO-03"] == ["LO-03", "LO-04"]
    assert groups["GL-01"] == ["GL-01", "GL-10"] and ["GL-03"] in groups.values() and ["GL-04"] in groups.values()
    rows = [r for g in groups.values() for r in g]
    assert len(rows) == len(set(rows)) == 57
    assert set(VAL.SIMT) == {g[0] for g in groups.values() if g[0] in VAL.SIMT}


def test_validation_jobs_fill_the_budget_in_priority_order():
    plan = gpu_check.plan("H200", only={"k01", "val-GS-01", "val-MB-03", "val-LA-01"}, validation=True)
    ids = [j["id"] for j in plan["jobs"]]
    assert ids == ["k01", "val-GS-01", "val-MB-03", "val-LA-01"]
    gs, mb = plan["jobs"][1], plan["jobs"][2]
    # 8 configs of tutorial 03, tuned for the first time: 2 s + 8 × 1.5 s
    assert gs["autotune"] == "fp16" and gs["budget_s"] == 2 + 8 * VAL.TUNE_FIRST_S
    assert mb["kind"] == "validation-simt" and mb["source"] == "benchmarks/validation/cuda/expf_chains.cu"
    # one round of nvcc for k01 and the 12 validation twins; planning and the checks; the jobs
    assert plan["compile_s"] == gpu_check.COMPILE_S
    assert plan["budget_s"] == pytest.approx(plan["compile_s"] + gpu_check.VALIDATION_PLAN_S + VAL.CHECKS_S
                                             + sum(j["budget_s"] for j in plan["jobs"]))
    # the model for the H200 (the lent GPU), not the row's H100: the same 1024³ matmul as in kernellab/validation.json's GS-01
    # row, whose autotuned 128×64 tiles (128 programs, one an SM) have their estimate set by their latency path:
    # the K loop's round trips (5.23 µs on the H200) and the program's edges (0.62 µs: its first tiles' and its C
    # tile's bytes, kernellab.model.edges), 5.86 µs, above the L2 (5.55 µs: the tiles' requested sectors at the
    # L2's rate) and the Tensor Cores: the binding term is the estimate's
    assert gs["model"]["bound"] == "latency" and gs["model"]["work"] == 2 * 1024**3
    assert mb["model"]["cycles_per_event"] == pytest.approx(mb["model"]["t_estimate_s"] * 1.98e9 / (128 * 128))
    with pytest.raises(gpu_check.PlanError, match="names no job"):
        gpu_check.plan("H200", only={"val-XX-99"}, validation=True)
    small = VAL.plan_jobs(H200, VAL.CHECKS_S + 1.0)  # room for the checks and nothing else
    assert small[0] == [] and len(small[1]) == len(VAL.groups())


def test_validation_table_ratios_by_hand():
    plan = {"jobs": [
        {"id": "val-GS-01", "kind": "validation-triton", "rows": ["GS-01"], "timing": {"ms": [0.02, 0.019, 0.021]},
         "model": {"t_estimate_s": 10e-6, "bound": "tensor"}},
        {"id": "val-MB-03", "kind": "validation-simt", "rows": ["MB-03"], "timing": {"cycles_per_event": 8.0},
         "model": {"t_estimate_s": 1e-9, "bound": "issue", "cycles_per_event": 2.0}},
        {"id": "val-LA-03", "kind": "validation-simt", "rows": ["LA-03"], "timing": {"skipped": "out of time"},
         "model": {"t_estimate_s": 1e-9, "bound": "DRAM", "cycles_per_event": 600.0}},
        {"id": "val-GL-03", "kind": "validation-triton", "rows": ["GL-03"], "timing": {"error": "OutOfResources: x"},
         "model": {"t_estimate_s": 1e-3, "bound": "tensor"}}]}
    rows = {r[0]: r for r in VAL.table_rows(plan)}
    # 10 µs predicted against 20 µs measured: 0.50; 2 cycles against 8: 0.25
    assert rows["val-GS-01"][2:5] == ["0.02 ms", "0.01 ms", "0.50"]
    assert rows["val-MB-03"][2:5] == ["8 cycles", "2 cycles", "0.25"]
    assert rows["val-LA-03"][2] == "out of time" and rows["val-GS-01"][6] == "121.1 TFLOP/s"
    assert rows["val-GL-03"][2:5] == ["OutOfResources: x", "1 ms", "—"]  # a job that failed is shown, not timed
    s = VAL.summary(plan)
    assert s["timed"] == 2 and s["within_1.25"] == 0 and s["within_2"] == 0.5
    assert s["geomean"] == pytest.approx((0.5 * 0.25) ** 0.5)


def test_twin_launches_cover_their_data():
    class FakeCupy:  # numpy in CuPy's place: the arrays and launches a twin gets, without a GPU
        float32, int8, int32, int64 = np.float32, np.int8, np.int32, np.int64
        zeros, asarray = staticmethod(np.zeros), staticmethod(np.asarray)

    def launch(row, length=None):
        make, cycles = VAL._simt_launch({"rows": [row]}, FakeCupy)
        return make(length), cycles
    (grid, block, args), cycles = launch("EW-06")
    # 32 blocks of 256 threads (the source's SM-scaling launch) stride over 2^28 bytes = 2^24 float4
    assert grid == (32,) and block == (256,) and args[2] == 1 << 24 and cycles is None
    (grid, block, args), _ = launch("EW-09")
    # 1024 × 1024 tiles of 32 × 32, 8 × 32 threads each moving 4 floats: 32768² floats
    assert math.prod(grid) * math.prod(block) * 4 == 32768**2 and block == (8, 32)
    (grid, block, args), _ = launch("EW-04")
    assert grid[0] * block[0] * 16 == 1 << 28  # 16 bytes a thread
    (grid, block, args), cycles = launch("LA-01", 512)
    assert grid == block == (1,) and args[3] == 512 and args[4] == 2048 and cycles is not None
    (grid, block, args), _ = launch("GL-16")
    # kernel 10's 128 × 128 tiles over C = 4096 × 8192
    assert math.prod(grid) == 4096 * 8192 // (128 * 128) and args[3:] == (4096, 8192, 16384)


def test_dry_run_plans_validation_jobs_and_writes_their_table(tmp_path):
    gpu_check.main(["--dry-run", "--no-compile", "--only", "k01,val-LO-03", "--json", str(tmp_path / "r.json"),
                    "--table", str(tmp_path / "t.md")])
    saved = json.loads((tmp_path / "r.json").read_text())
    assert [j["id"] for j in saved["jobs"]] == ["k01", "val-LO-03"]
    table = (tmp_path / "t.md").read_text()
    assert "| val-LO-03 | LO-03, LO-04 | — |" in table and "Validation rows' kernels" in table


FAKE_NVCC = """#!/bin/sh
# a stand-in for nvcc: --version names $FAKE_VERSION; a compile logs its arguments, writes a cubin that says which
# compile of the run made it, and reports as ptxas -v does
if [ "$1" = "--version" ]; then echo "Cuda compilation tools, release $FAKE_VERSION"; exit 0; fi
echo "$@" >> "$FAKE_LOG"
n=$(wc -l < "$FAKE_LOG")
prev=""
for a in "$@"; do
  if [ "$prev" = "-o" ]; then printf '\\177ELF compile %s' "$n" > "$a"; fi
  prev="$a"
done
echo "ptxas info    : Used $((30 + n)) registers, 380 bytes cmem[0]" >&2
"""


def test_a_cached_cubin_is_reused_only_under_the_same_key(tmp_path, monkeypatch):
    # a twin that includes a header, compiled by a stand-in nvcc that logs each compile: a second run with nothing
    # changed compiles nothing and gives the same cubin and registers; a change to the source, the header, the
    # arch, nvcc's version, nvcc's own path or an NVCC_* variable compiles again
    (tmp_path / "cuda").mkdir()
    (tmp_path / "cuda" / "twin.cu").write_text('#include "tiled.cuh"\n__global__ void k() {}\n')
    (tmp_path / "cuda" / "tiled.cuh").write_text("#define TM 8\n")
    for folder in ("bin", "bin2"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "nvcc").write_text(FAKE_NVCC)
        (tmp_path / folder / "nvcc").chmod(0o755)
    log = tmp_path / "log"
    log.write_text("")
    monkeypatch.setattr(gpu_check, "ROOT", tmp_path)
    monkeypatch.setattr(gpu_check, "CUDA_DIR", tmp_path / "cuda")
    monkeypatch.setenv("FAKE_LOG", str(log))
    monkeypatch.setenv("FAKE_VERSION", "13.0, V13.0.88")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}/usr/bin{os.pathsep}/bin")  # no cuobjdump: no loop mix
    for name in gpu_check.NVCC_ENV:
        monkeypatch.delenv(name, raising=False)
    cache = tmp_path / "cache"
    plan = {"arch": "sm_90", "jobs": [{"id": "k10", "kind": "sgemm", "source": "cuda/twin.cu"}]}

    def run(nvcc=str(tmp_path / "bin" / "nvcc")):
        out = tmp_path / f"out{len(list(tmp_path.glob('out*')))}"
        gpu_check.compile_twins(plan, nvcc, out, cache)
        got = plan["jobs"][0]["compile"]
        return len(log.read_text().splitlines()), got["cached"], got["registers"], Path(got["cubin"]).read_bytes()

    # the stand-in's n-th compile reports 30 + n registers and writes "ELF compile n"
    assert run() == (1, False, 31, b"\x7fELF compile 1")
    assert run() == (1, True, 31, b"\x7fELF compile 1")  # nothing changed: reused, nvcc not run
    assert "-arch=sm_90" in log.read_text() and "-O3 -DNDEBUG -cubin" in log.read_text()
    (tmp_path / "cuda" / "tiled.cuh").write_text("#define TM 16\n")  # the included header
    assert run() == (2, False, 32, b"\x7fELF compile 2")
    assert run()[:2] == (2, True)
    (tmp_path / "cuda" / "twin.cu").write_text('#include "tiled.cuh"\n__global__ void k() { }\n')  # the source
    assert run()[:2] == (3, False)
    plan["arch"] = "sm_80"  # the flags
    assert run()[:2] == (4, False)
    plan["arch"] = "sm_90"
    assert run() == (4, True, 33, b"\x7fELF compile 3")  # the sm_90 build of this source is still there
    monkeypatch.setenv("FAKE_VERSION", "13.1, V13.1.12")  # another nvcc release
    assert run()[:2] == (5, False)
    assert run(str(tmp_path / "bin2" / "nvcc"))[:2] == (6, False)  # another nvcc, though it says the same version
    monkeypatch.setenv("NVCC_APPEND_FLAGS", "-lineinfo")  # a flag nvcc reads from the environment
    assert run()[:2] == (7, False)
    assert run()[:2] == (7, True)
    # without a cache every run compiles, and none is written
    before = sorted(p.name for p in cache.iterdir())
    assert len(before) == 7  # one entry per key compiled above
    gpu_check.compile_twins(plan, str(tmp_path / "bin" / "nvcc"), tmp_path / "nocache")
    assert len(log.read_text().splitlines()) == 8 and plan["jobs"][0]["compile"]["cached"] is False
    assert sorted(p.name for p in cache.iterdir()) == before
