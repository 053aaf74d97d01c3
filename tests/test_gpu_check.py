"""benchmarks/gpu/gpu_check.py without a GPU: the plan, the dry run, the table, and the compile step where
nvcc is installed (issue 25, "On a GPU, when one is lent").

Every launch and budget is checked against arithmetic done by hand; nothing here needs CuPy, torch or a GPU.
"""

import doctest
import importlib.util
import json
import math
from pathlib import Path

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
    # down a column of C, so each warp's store touches 32 lines, n² in all; 1 line per SM per cycle (the
    # bound leaves the launch out)
    n = 4096
    lines = n**3 * 33 // 32 + n * n
    k1 = next(j for j in the_plan["jobs"] if j["id"] == "k01")
    assert k1["model"]["bound"] == "L1"
    t_l1 = lines / (132 * 1.98e9)
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
    assert the_plan["budget_s"] == pytest.approx(sum(j["budget_s"] for j in the_plan["jobs"]))
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
    record = gpu_check.main(["--dry-run", "--no-compile", "--json", str(tmp_path / "r.json"),
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
def test_compile_step_builds_sm90_cubins(tmp_path):
    record = gpu_check.main(["--dry-run", "--no-triton", "--only", "k01,k10", "--build", str(tmp_path),
                             "--json", str(tmp_path / "r.json")])
    assert record["nvcc"].startswith("release")
    for job in record["jobs"]:
        cubin = Path(job["compile"]["cubin"])
        assert cubin.read_bytes()[:4] == b"\x7fELF"  # a cubin is an ELF file
        assert job["compile"]["registers"] > 0
    regs = {j["id"]: j["compile"]["registers"] for j in record["jobs"]}
    assert regs["k10"] > regs["k01"]  # 128 accumulators a thread against one
