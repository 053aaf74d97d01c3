"""One GPU check for kernellab, at most 8 minutes on an H200: the CUDA twins and the Triton gallery kernels,
measured, beside what the model predicts.

    python benchmarks/gpu/gpu_check.py                    # on a machine with an NVIDIA GPU
    python benchmarks/gpu/gpu_check.py --dry-run          # anywhere: plan and compile, time nothing
    python benchmarks/gpu/gpu_check.py --json out.json --table out.md [--arch sm_90] [--only k01,reduce1]

Five steps, each a function a test can call:

1. :func:`plan` (no GPU, no nvcc): every job, its launch, its budget and kernellab's prediction for the
   GPU. The SGEMM twins ``cuda/k01``–``k10`` at 4096³ are matched to ``kernellab.KERNELS`` by the kernel
   name in their source; the model runs on the simulator's counts of the twin and, beside them, on the
   counts of nvcc 13's ``sm_86`` SASS of Boehm's sources (``kernellab.sgemm.study``). The Harris reduction
   twins ``cuda/r*.cu`` and the quickstart's ``cuda/q01_axpy.cu``, where present, are memory-bound: their
   model is the DRAM time of their bytes plus one launch. The Triton jobs are the gallery's matmul
   (4096³ FP16, row-major and ``GROUP_M = 8``), GeLU (16384² FP32) and fused softmax (4096 × 1024 and
   × 4096 FP32), cut out of the pages' own source; their model is kernellab's mini-Triton byte count
   and, for the matmul, the Tensor Core peak with the wave-model and LRU DRAM bytes. The plan refuses to
   exceed :data:`BUDGET_S`.
2. :func:`compile_twins`: ``nvcc -O3 -DNDEBUG -arch=sm_90 -cubin -Xptxas -v``, one cubin per twin, the
   registers ptxas reports, and, where ``cuobjdump`` is there, the ``sm_90`` instruction mix of each
   SGEMM twin's main K loop (``cuda/sass_mix.py``'s parser), so that the model can later take the
   GPU's own counts. nvcc is looked for as :func:`find_nvcc` says (``$NVCC``, the PyPI wheel
   ``nvidia-cuda-nvcc`` that ``nox -s sass`` installs, then ``PATH``). With ``--cache DIR``, a twin compiled
   before under the same :func:`compile_key` (nvcc and gcc, flags, source and includes) is reused from there.
3. :func:`time_twins` (not in a dry run): CuPy loads each cubin, runs it once and checks it (SGEMM
   against ``cupy.matmul``, reductions against per-block sums, axpy against ``a·x + y``), then times it
   with CUDA events around each launch; ``nvidia-smi`` gives the SM clock before and after.
4. :func:`time_triton` (not in a dry run): real Triton compiles the gallery kernels, checks them
   against torch, and times them with ``triton.testing.do_bench``.
5. :func:`write`: one JSON record and the measured-vs-model table (printed; Markdown with ``--table``).

Besides (``validation_jobs.py``; ``--no-validation`` leaves them out): the validation rows' own kernels
(``benchmarks/validation``), in the budget the jobs above leave: their Triton kernels checked against
numpy and timed with real Triton, their SIMT kernels' CUDA twins (``benchmarks/validation/cuda``) timed
or clock-counted, each beside the model's prediction for the lent GPU.

Needs on the GPU machine: numpy, CuPy (``cupy-cuda12x`` or ``cupy-cuda13x``), torch with CUDA and
triton; nvcc (the image's or PyPI's ``nvidia-cuda-nvcc``). The dry run needs kernellab and, to compile,
nvcc alone.
"""

from __future__ import annotations

import argparse
import ast
import datetime
import hashlib
import importlib.util
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from kernellab import GPUS, KERNELS, dram_bytes_tiled, occupancy, scale_counts  # noqa: E402
from kernellab.model import dram_bytes_lru, predict  # noqa: E402
from kernellab.specs import as_perf  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import validation_jobs  # noqa: E402  (benchmarks/gpu/validation_jobs.py)

CUDA_DIR = ROOT / "cuda"
BUDGET_S = 8 * 60  # the whole check, on the GPU machine
N_SGEMM = 4096
N_REDUCE = 1 << 26  # floats per reduction: 256 MiB, well beyond any L2
N_AXPY = 1 << 26
MIN_REPS, MAX_REPS, TIME_PER_JOB_S = 3, 50, 1.0  # repeats of a twin: enough for ~1 s, 3 to 50
COMPILE_S = 8.0  # budget for compiling one twin: 2–4 s each on a busy 2-core machine, and they compile in parallel
COMPILE_WORKERS = 16  # twins nvcc compiles at once on the GPU machine (compile_twins: one a core; the lent machines have 16)
TRITON_S = 30.0  # budget for one Triton job: compile, check, do_bench (100 ms of repeats)
VALIDATION_PLAN_S = 45.0  # predicting the validation jobs while planning (35–50 s for all 57 rows on a busy 2-core machine)
DEADLINE_MARGIN_S = 15.0  # validation jobs not started this close to the budget's end are skipped
FLAGS = ["-O3", "-DNDEBUG", "-cubin", "-Xptxas", "-v"]

#: The Harris reductions and the quickstart kernel: name → (elements per thread, argument kinds).
#: Each reduction block of 256 threads sums 256 × elements-per-thread floats into out[blockIdx.x].
OTHER_TWINS = {
    "reduce1": {"kind": "reduce", "per_thread": 1},
    "reduce2": {"kind": "reduce", "per_thread": 1},
    "reduce3": {"kind": "reduce", "per_thread": 1},
    "reduce4": {"kind": "reduce", "per_thread": 2},
    "axpy": {"kind": "axpy"},
}
REDUCE_THREADS = 256
MATMUL = {"n": 4096, "BM": 128, "BN": 128, "BK": 32, "warps": 4, "stages": 4}
TRITON_SOURCES = {  # kernel name → gallery file that defines it
    "matmul_kernel": "gallery/lecture10/06_triton_style.py",
    "triton_gelu_kernel": "gallery/triton_notes/01_gelu.py",
    "triton_softmax_kernel": "gallery/triton_notes/02_softmax.py",
}
HEADER = {
    "triton": "import triton\nimport triton.language as tl\n",
    "kernellab": "import kernellab.triton as triton\nimport kernellab.triton.language as tl\n",
}


class PlanError(RuntimeError):
    """The plan cannot be made: a twin without a known launch, or a budget over :data:`BUDGET_S`."""


# --- 1. the plan ---------------------------------------------------------------------------------------

def gpu_spec(device_name: str):
    """kernellab's GPU whose short name appears in a device name (H200 before H100).

    >>> gpu_spec("NVIDIA H200").name, gpu_spec("NVIDIA A100-SXM4-80GB").name
    ('H200 SXM', 'A100 SXM 80GB')
    """
    for key, gpu in (("H200", GPUS[3]), ("H100", GPUS[2]), ("A100", GPUS[1]), ("A6000", GPUS[0])):
        if key in device_name:
            return gpu
    raise PlanError(f"no kernellab spec for the GPU {device_name!r}; add one to kernellab/specs.py")


def kernel_name(source: str) -> str:
    """The one ``extern "C" __global__`` function a twin defines.

    >>> kernel_name('extern "C" __global__ void __launch_bounds__(256)\\n  sgemmVectorize(const float *A)')
    'sgemmVectorize'
    """
    names = re.findall(r'extern\s+"C"\s+__global__\s+void\s+(?:__launch_bounds__\([^)]*\)\s+)?(\w+)\s*\(', source)
    if len(names) != 1:
        raise PlanError(f"expected one extern \"C\" __global__ kernel, found {names}")
    return names[0]


def twin_sources(cuda_dir: Path = CUDA_DIR) -> dict[str, Path]:
    """Kernel name → source file, for every ``.cu`` twin in ``cuda_dir``."""
    return {kernel_name(p.read_text()): p for p in sorted(cuda_dir.glob("*.cu"))}


def _rel(path: Path) -> str:
    """A source's path as the record gives it: relative to the repository when inside it."""
    path = Path(path).resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def _sgemm_job(spec, path: Path, perf, n: int) -> dict:
    from kernellab.sgemm.study import _simulate, compiled_counts, loop_shape

    shape = loop_shape(spec)
    twin = predict(scale_counts(_simulate(spec), n), n, perf, shape=shape, spec=spec)
    boehm = predict(compiled_counts(spec, n), n, perf, shape=shape, spec=spec)
    t_est = 2 * n**3 / (twin["estimate_gflops"] * 1e9)
    return {
        "id": f"k{spec.number:02d}", "kind": "sgemm", "kernel": spec.name, "source": _rel(path),
        "n": n, "grid": list(spec.grid(n, n, n)), "block": list(spec.block_for(n, n, n)), "flops": 2 * n**3,
        "model": {"bound": twin["bound"], "bound_gflops": twin["gflops"], "band_gflops": list(twin["gflops_band"]),
                  "estimate_gflops": twin["estimate_gflops"], "boehm_sm86_bound_gflops": boehm["gflops"],
                  "boehm_sm86_estimate_gflops": boehm["estimate_gflops"], "t_estimate_s": t_est},
        "reps": int(min(MAX_REPS, max(MIN_REPS, math.ceil(TIME_PER_JOB_S / t_est)))),
    }


def _memory_job(name: str, path: Path, gpu, perf) -> dict:
    info = OTHER_TWINS[name]
    if info["kind"] == "reduce":
        per_block = REDUCE_THREADS * info["per_thread"]
        n = N_REDUCE
        grid, nbytes = [n // per_block, 1, 1], n * 4 + n // per_block * 4
        extra = {"per_block": per_block}
    else:
        n = N_AXPY
        grid, nbytes, extra = [n // REDUCE_THREADS, 1, 1], 3 * n * 4, {}
    t = nbytes / gpu.dram_bw + perf.launch_s
    return {"id": name, "kind": info["kind"], "kernel": name, "source": _rel(path), "n": n,
            "grid": grid, "block": [REDUCE_THREADS, 1, 1], "bytes": nbytes, **extra,
            "model": {"bound": "DRAM", "t_bound_s": t, "bound_gbs": nbytes / t / 1e9, "t_estimate_s": t},
            "reps": int(min(MAX_REPS, max(MIN_REPS, math.ceil(TIME_PER_JOB_S / t))))}


def kernel_module(flavour: str) -> dict:
    """The gallery's Triton kernels, cut out of their pages by name, under real Triton or kernellab's mini-Triton."""
    text = HEADER[flavour]
    for name, path in TRITON_SOURCES.items():
        src = (ROOT / path).read_text()
        fn = next(n for n in ast.parse(src).body if isinstance(n, ast.FunctionDef) and n.name == name)
        lines = src.splitlines()
        text += "\n\n" + "\n".join(lines[fn.decorator_list[0].lineno - 1:fn.end_lineno]) + "\n"
    namespace: dict = {}
    exec(compile(text, f"<gallery kernels, {flavour}>", "exec"), namespace)
    return namespace


def predict_matmul(gpu, group: int) -> dict:
    """Shortest time by the Tensor Core peak and by DRAM bytes (wave model; LRU), for one launch order."""
    m = MATMUL
    smem = m["stages"] * (m["BM"] * m["BK"] + m["BK"] * m["BN"]) * 2
    ctas = occupancy(gpu, 32 * m["warps"], None, smem).blocks_per_sm  # by shared memory; registers unknown here
    g = None if group == 1 else group
    wave = dram_bytes_tiled(m["n"], m["BM"], m["BN"], ctas, gpu.sms, elem=2, group=g) + m["n"] ** 2 * 2  # C is FP32
    lru = dram_bytes_lru(m["n"], m["BM"], m["BN"], m["BK"], ctas, gpu.sms, gpu.l2_bytes, elem=2, group=g) \
        + m["n"] ** 2 * 2
    t_math = 2 * m["n"] ** 3 / gpu.fp16_tensor_peak
    return {"bound": "Tensor Core", "ctas_per_sm": ctas, "wave_bytes": wave, "lru_bytes": lru,
            "t_math_s": t_math, "t_wave_s": max(t_math, wave / gpu.dram_bw), "t_estimate_s": max(t_math, lru / gpu.dram_bw)}


def bytes_per_element(kl: dict, name: str) -> float:
    """Bytes loaded + stored per element by kernellab's run of the same kernel on a small input."""
    if name == "gelu":
        x = np.random.default_rng(0).standard_normal(4096 + 17).astype(np.float32)
        c = kl["triton_gelu_kernel"][(math.ceil(x.size / 1024),)](x, np.empty_like(x), x.size, BLOCK_SIZE=1024)
        return (c["load_bytes"] + c["store_bytes"]) / x.size
    M, N = 8, 1000
    x = np.random.default_rng(0).standard_normal((M, N)).astype(np.float32)
    c = kl["triton_softmax_kernel"][(M,)](x, np.empty_like(x), N, N, N, BLOCK_SIZE=1024)
    return (c["load_bytes"] + c["store_bytes"]) / x.size


def _triton_jobs(gpu) -> list[dict]:
    kl = kernel_module("kernellab")
    jobs = [{"id": f"matmul-g{g}", "kind": "triton-matmul", "kernel": "matmul_kernel", "group_m": g,
             "source": TRITON_SOURCES["matmul_kernel"], "n": MATMUL["n"], "flops": 2 * MATMUL["n"] ** 3,
             "model": predict_matmul(gpu, g)} for g in (1, 8)]
    gelu_bpe = bytes_per_element(kl, "gelu")
    jobs.append({"id": "gelu", "kind": "triton-memory", "kernel": "triton_gelu_kernel", "shape": [16384, 16384],
                 "source": TRITON_SOURCES["triton_gelu_kernel"], "bytes_per_element": gelu_bpe,
                 "model": {"bound": "DRAM", "t_estimate_s": 16384**2 * gelu_bpe / gpu.dram_bw}})
    soft_bpe = bytes_per_element(kl, "softmax")
    for cols in (1024, 4096):
        jobs.append({"id": f"softmax-{cols}", "kind": "triton-memory", "kernel": "triton_softmax_kernel",
                     "shape": [4096, cols], "source": TRITON_SOURCES["triton_softmax_kernel"],
                     "bytes_per_element": soft_bpe,
                     "model": {"bound": "DRAM", "t_estimate_s": 4096 * cols * soft_bpe / gpu.dram_bw}})
    return jobs


def budget_s(job: dict) -> float:
    """Seconds a job may take on the GPU machine: compile, a check run and its warm-up, the repeats."""
    if job["kind"].startswith("validation"):
        return job["budget_s"]  # validation_jobs.plan_jobs sets it
    if job["kind"].startswith("triton"):
        return TRITON_S
    return (job["reps"] + 2) * job["model"]["t_estimate_s"]  # its compile is in the plan's compile_s


def plan(gpu_name: str = "H200", arch: str = "sm_90", only=None, triton: bool = True,
         cuda_dir: Path = CUDA_DIR, validation: bool = False) -> dict:
    """Every job of the check for the GPU named ``gpu_name``, with its launch, model and budget.

    ``only`` keeps the jobs whose id is in it (``k01``, ``reduce1``, ``matmul-g8``, ``val-GS-01``, …).
    ``validation`` adds the validation rows' jobs (``validation_jobs.py``) that fit the budget the other
    jobs leave, after :data:`VALIDATION_PLAN_S` for predicting them; the rest are listed in
    ``validation_left_out``. Raises :class:`PlanError` for a twin with no known launch or a plan over
    :data:`BUDGET_S`.
    """
    gpu = gpu_spec(gpu_name)
    perf = as_perf(gpu)
    by_name = {spec.name: spec for spec in KERNELS}
    jobs = []
    for name, path in twin_sources(cuda_dir).items():
        if name in by_name:
            jobs.append(_sgemm_job(by_name[name], path, perf, N_SGEMM))
        elif name in OTHER_TWINS:
            jobs.append(_memory_job(name, path, gpu, perf))
        else:
            raise PlanError(f"{path.name}: kernel {name!r} has no launch in benchmarks/gpu/gpu_check.py "
                            "(add it to OTHER_TWINS)")
    if triton:
        jobs += _triton_jobs(gpu)
    val_ids = {f"val-{rows[0]}" for rows in validation_jobs.groups()} if validation else set()
    if only:
        unknown = set(only) - {j["id"] for j in jobs} - val_ids
        if unknown:
            raise PlanError(f"--only names no job: {sorted(unknown)}")
        jobs = [j for j in jobs if j["id"] in only]
    for j in jobs:
        j["budget_s"] = budget_s(j)
    # nvcc compiles the twins in parallel, COMPILE_WORKERS at once: a round of COMPILE_S per COMPILE_WORKERS twins
    # (the validation rows' twins counted in, whether or not the budget leaves room to time them)
    val_only = None if not only else set(only) & val_ids
    val_planned = validation and val_only != set()
    n_cu = sum(j.get("source", "").endswith(".cu") for j in jobs) + (len(validation_jobs.SIMT) if val_planned else 0)
    compile_s = COMPILE_S * math.ceil(n_cu / COMPILE_WORKERS)
    total = compile_s + sum(j["budget_s"] for j in jobs)
    if total > BUDGET_S:
        raise PlanError(f"the plan needs {total:.0f} s, more than the {BUDGET_S} s budget")
    out = {"gpu": gpu.name, "arch": arch, "budget_s": total, "compile_s": compile_s, "jobs": jobs}
    if val_planned:
        vjobs, left, used = validation_jobs.plan_jobs(gpu, BUDGET_S - total - VALIDATION_PLAN_S, val_only)
        jobs += vjobs
        out.update(budget_s=total + VALIDATION_PLAN_S + used, validation_left_out=left,
                   validation_overhead_s={"planning": VALIDATION_PLAN_S, "checks": validation_jobs.CHECKS_S})
    return out


# --- 2. compiling the twins ----------------------------------------------------------------------------

def find_nvcc() -> str | None:
    """nvcc: ``$NVCC``, else the PyPI wheel ``nvidia-cuda-nvcc`` in this Python's site-packages (what
    ``nox -s sass`` installs), else the one on ``PATH``; None if there is none."""
    if os.environ.get("NVCC"):
        return os.environ["NVCC"]
    for entry in sys.path:
        found = sorted(Path(entry).glob("nvidia/cu*/bin/nvcc")) if entry and Path(entry).is_dir() else []
        if found:
            return str(found[-1])
    return shutil.which("nvcc")


def _sass_mix_module():
    spec = importlib.util.spec_from_file_location("kernellab_cuda_sass_mix", CUDA_DIR / "sass_mix.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: Environment variables nvcc reads that change what it compiles (extra flags, the host compiler)
NVCC_ENV = ("NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "NVCC_CCBIN")
_INCLUDE = re.compile(rb'^\s*#\s*include\s*"([^"]+)"', re.M)


def _local_sources(source: Path) -> list[Path]:
    """``source`` and every file it includes with ``#include "…"`` (found beside the including file or in
    ``cuda/``, nvcc's working directory), each once, in the order first met."""
    seen, todo = [], [source]
    while todo:
        path = todo.pop(0)
        if path in seen:
            continue
        seen.append(path)
        for name in _INCLUDE.findall(path.read_bytes()):
            for folder in (path.parent, CUDA_DIR):
                if (folder / name.decode()).is_file():
                    todo.append((folder / name.decode()).resolve())
                    break
    return seen


def toolchain(nvcc: str) -> bytes:
    """What identifies the compilers: the nvcc it runs (its path and its ``--version``, which names the toolkit and
    so cicc, ptxas and the CUDA headers) and the host compiler nvcc preprocesses with (``$NVCC_CCBIN`` or gcc, its
    ``--version``)."""
    version = subprocess.run([nvcc, "--version"], capture_output=True, check=True).stdout
    host = os.environ.get("NVCC_CCBIN") or shutil.which("gcc") or "gcc"
    try:
        host_version = subprocess.run([host, "--version"], capture_output=True).stdout
    except OSError:
        host_version = b"none"
    return str(Path(shutil.which(nvcc) or nvcc).resolve()).encode() + b"\0" + version + b"\0" + host_version


def compile_key(tools: bytes, command: list[str], source: Path) -> str:
    """What decides a twin's cubin and ptxas report, as one hash: the compilers (:func:`toolchain`), the command's
    flags, the environment variables nvcc reads (:data:`NVCC_ENV`), and the bytes of the source and of every file
    it includes with quotes (:func:`_local_sources`), each under its name. :func:`compile_twins` reuses a cached
    cubin only under the same key; a change to any of these compiles again.
    """
    digest = hashlib.sha256()

    def add(label: str, data: bytes) -> None:
        digest.update(label.encode() + b"\0" + str(len(data)).encode() + b"\0" + data)

    add("tools", tools)
    add("command", "\0".join(command).encode())
    for name in NVCC_ENV:
        add(name, os.environ.get(name, "").encode())
    for path in _local_sources(source):
        add(path.name, path.read_bytes())
    return digest.hexdigest()


def compile_twins(the_plan: dict, nvcc: str, out_dir: Path, cache: Path | None = None) -> None:
    """Compile every twin of the plan for its arch into ``out_dir``; record cubin, registers and the
    sm_90 K-loop mix (SGEMM twins, when cuobjdump is found beside nvcc or on PATH) in each job.

    With ``cache``, a twin whose :func:`compile_key` is there already is copied from it (cubin and nvcc's
    output, ``"cached": true`` in its record) instead of compiled; one compiled is stored there under its key.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
    cuobjdump = shutil.which("cuobjdump", path=os.pathsep.join([str(Path(nvcc).parent), os.environ.get("PATH", "")]))
    mix = _sass_mix_module() if cuobjdump else None
    jobs = [j for j in the_plan["jobs"] if j.get("source", "").endswith(".cu")]
    tools = toolchain(nvcc) if cache is not None else b""

    def build(job):
        cubin = out_dir / f"{job['id']}.cubin"
        t0 = time.perf_counter()
        flags = [*FLAGS, f"-arch={the_plan['arch']}"]
        entry = cache / compile_key(tools, flags, ROOT / job["source"]) if cache is not None else None
        if entry is not None and entry.is_dir():
            shutil.copyfile(entry / "twin.cubin", cubin)
            output, cached = (entry / "nvcc.out").read_text(encoding="utf-8"), True
        else:
            run = subprocess.run([nvcc, *flags, str(ROOT / job["source"]), "-o", str(cubin)],
                                 capture_output=True, text=True, cwd=CUDA_DIR)
            if run.returncode:
                raise RuntimeError(f"nvcc failed on {job['source']}:\n{run.stderr}")
            output, cached = run.stdout + run.stderr, False
            if entry is not None:  # written whole beside it, then renamed: a run stopped half way leaves none
                part = Path(tempfile.mkdtemp(prefix=entry.name + ".", dir=cache))
                shutil.copyfile(cubin, part / "twin.cubin")
                (part / "nvcc.out").write_text(output, encoding="utf-8")
                try:
                    part.rename(entry)
                except OSError:  # another run stored the same key first
                    shutil.rmtree(part, ignore_errors=True)
        regs = re.search(r"Used (\d+) registers", output)
        record = {"cubin": str(cubin), "registers": int(regs.group(1)) if regs else None,
                  "seconds": round(time.perf_counter() - t0, 2), "cached": cached}
        if mix and job["kind"] == "sgemm":
            sass = subprocess.run([cuobjdump, "-sass", str(cubin)], check=True, capture_output=True, text=True).stdout
            (_, code), = mix.functions(sass).items()
            record["loop_mix"] = dict(sorted(Counter(mix.classify(o) for o in mix.main_loop(code)).items()))
        return record

    with ThreadPoolExecutor(max_workers=max(1, min(len(jobs), os.cpu_count() or 1))) as pool:
        for job, record in zip(jobs, pool.map(build, jobs)):
            job["compile"] = record


# --- 3 and 4. timing (GPU only) ------------------------------------------------------------------------

def clocks() -> dict:
    """SM and memory clocks (MHz), power (W), temperature (°C) and throttle reasons from nvidia-smi, or {}."""
    if not shutil.which("nvidia-smi"):
        return {}
    fields = "clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active"
    out = subprocess.run(["nvidia-smi", f"--query-gpu={fields}", "--format=csv,noheader,nounits", "-i", "0"],
                         capture_output=True, text=True, check=False).stdout.strip()
    return dict(zip(("sm_mhz", "max_sm_mhz", "mem_mhz", "power_w", "temp_c", "throttle"),
                    (v.strip() for v in out.split(","))))


def _events_ms(cp, launch, reps: int) -> list[float]:
    """Milliseconds of each of ``reps`` launches, each between its own pair of CUDA events."""
    pairs = []
    for _ in range(reps):
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        launch()
        end.record()
        pairs.append((start, end))
    pairs[-1][1].synchronize()
    return [cp.cuda.get_elapsed_time(s, e) for s, e in pairs]


def _inputs(job: dict, cp, rng) -> tuple[tuple, object, float]:
    """A twin's arguments on the GPU, the function giving its error against a reference, and the limit."""
    if job["kind"] == "sgemm":
        n = job["n"]
        a, b = (cp.asarray(rng.standard_normal((n, n), dtype=np.float32)) for _ in range(2))
        c = cp.zeros((n, n), cp.float32)
        ref = cp.matmul(a, b)

        def error():  # relative to the largest element: FP32 sums of 4096 products
            return float(cp.abs(c - ref).max() / cp.abs(ref).max())
        return (a, b, c, np.int32(n), np.int32(n), np.int32(n)), error, 1e-4
    if job["kind"] == "reduce":
        x = cp.asarray(rng.standard_normal(job["n"], dtype=np.float32))
        out = cp.zeros(job["grid"][0], cp.float32)
        ref = x.reshape(-1, job["per_block"]).sum(axis=1)

        def error():
            return float(cp.abs(out - ref).max())
        return (x, out, np.uint32(job["n"])), error, 1e-2  # sums of 256–512 floats near 20 in size
    x, y = (cp.asarray(rng.standard_normal(job["n"], dtype=np.float32)) for _ in range(2))
    out = cp.zeros_like(x)

    def error():
        return float(cp.abs(out - (2 * x + y)).max())
    return (x, y, out, np.float32(2.0), np.int32(job["n"])), error, 1e-5


def time_twins(the_plan: dict) -> None:
    """Run, check and time every compiled twin with CuPy; record ms (median, p20, p80) and clocks per job."""
    import cupy as cp

    rng = np.random.default_rng(0)
    for job in the_plan["jobs"]:
        if "compile" not in job or job["kind"].startswith("validation"):
            continue
        fn = cp.RawModule(path=job["compile"]["cubin"]).get_function(job["kernel"])
        grid, block = tuple(job["grid"]), tuple(job["block"])
        args, check, limit = _inputs(job, cp, rng)

        def launch(fn=fn, grid=grid, block=block, args=args):
            fn(grid, block, args)
        launch()
        cp.cuda.Device().synchronize()
        err = check()
        if not err < limit:
            raise RuntimeError(f"{job['id']} ({job['kernel']}) computed a wrong result: error {err:.3g} ≥ {limit}")
        launch()  # warm-up
        before = clocks()
        ms = _events_ms(cp, launch, job["reps"])
        job["timing"] = {"ms": [float(np.median(ms)), float(np.percentile(ms, 20)), float(np.percentile(ms, 80))],
                         "reps": job["reps"], "max_error": err, "clocks_before": before, "clocks_after": clocks()}


def time_triton(the_plan: dict) -> None:
    """Compile the gallery's Triton kernels with real Triton, check them against torch, time them."""
    import torch
    import triton
    import triton.testing

    real = kernel_module("triton")
    dev = "cuda"

    def bench(fn):
        return tuple(float(v) for v in triton.testing.do_bench(fn, warmup=10, rep=100, quantiles=[0.5, 0.2, 0.8]))

    cache: dict = {}
    for job in the_plan["jobs"]:
        if not job["kind"].startswith("triton"):
            continue
        if job["kind"] == "triton-matmul":
            n = job["n"]
            if "mm" not in cache:
                a = torch.randn((n, n), device=dev, dtype=torch.float16)
                b = torch.randn((n, n), device=dev, dtype=torch.float16)
                cache["mm"] = (a, b, torch.empty((n, n), device=dev, dtype=torch.float32), a.float() @ b.float())
            a, b, c, ref = cache["mm"]
            m = MATMUL

            def run(group=job["group_m"], a=a, b=b, c=c, n=n, m=m):
                grid = (triton.cdiv(n, m["BM"]) * triton.cdiv(n, m["BN"]),)
                real["matmul_kernel"][grid](a, b, c, n, n, n, BLOCK_M=m["BM"], BLOCK_N=m["BN"], BLOCK_K=m["BK"],
                                            GROUP_M=group, MASK_K=True, num_warps=m["warps"], num_stages=m["stages"])
            error, limit = (lambda c=c, ref=ref: float((c - ref).abs().max())), 1e-2 * math.sqrt(n)
        elif job["kernel"] == "triton_gelu_kernel":
            x = torch.randn(job["shape"], device=dev, dtype=torch.float32)
            y = torch.empty_like(x)

            def run(x=x, y=y):
                real["triton_gelu_kernel"][(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK_SIZE=1024)
            error = lambda x=x, y=y: float((y - torch.nn.functional.gelu(x, approximate="tanh")).abs().max())  # noqa: E731
            limit = 1e-4
        else:
            x = torch.randn(job["shape"], device=dev, dtype=torch.float32)
            y = torch.empty_like(x)
            block = triton.next_power_of_2(job["shape"][1])

            def run(x=x, y=y, block=block):
                real["triton_softmax_kernel"][(x.shape[0],)](x, y, x.stride(0), y.stride(0), x.shape[1],
                                                             BLOCK_SIZE=block)
            error, limit = (lambda x=x, y=y: float((y - torch.softmax(x, dim=1)).abs().max())), 1e-5
        run()
        torch.cuda.synchronize()
        err = error()
        if not err < limit:
            raise RuntimeError(f"{job['id']} is wrong: max error {err:.3g}")
        before = clocks()
        job["timing"] = {"ms": list(bench(run)), "max_error": err, "clocks_before": before, "clocks_after": clocks()}


# --- 5. the record and the table -----------------------------------------------------------------------

def table_rows(the_plan: dict) -> list[list[str]]:
    """One row a job: measured time and rate beside the model's bound and estimate (— where not timed)."""
    rows = []
    for j in the_plan["jobs"]:
        if j["kind"].startswith("validation"):
            continue  # their own table: validation_jobs.table_rows
        t = j.get("timing")
        med = t["ms"][0] * 1e-3 if t else None
        model = j["model"]
        regs = str(j.get("compile", {}).get("registers") or "—")
        if j["kind"] in ("sgemm", "triton-matmul"):
            work, unit = j["flops"], "GFLOP/s"
            if j["kind"] == "sgemm":
                bound_s, est_s = j["flops"] / (model["bound_gflops"] * 1e9), model["t_estimate_s"]
            else:
                bound_s, est_s = model["t_math_s"], model["t_estimate_s"]
        else:
            work, unit = j.get("bytes") or math.prod(j["shape"]) * j["bytes_per_element"], "GB/s"
            bound_s = est_s = model["t_estimate_s"]

        def rate(seconds, work=work, unit=unit):
            return f"{work / seconds / 1e9:.0f} {unit}"
        rows.append([j["id"], j["kernel"], regs, f"{t['ms'][0]:.3f} [{t['ms'][1]:.3f}, {t['ms'][2]:.3f}]" if t else "—",
                     rate(med) if t else "—", f"{model['bound']}: {rate(bound_s)}", rate(est_s),
                     f"{bound_s / med:.2f}" if t else "—", f"{est_s / med:.2f}" if t else "—",
                     (t.get("clocks_after") or {}).get("sm_mhz", "?") if t else "—"])
    return rows


TABLE_HEADERS = ["job", "kernel", "registers", "measured ms, median [p20, p80]", "measured rate", "model bound",
                 "model estimate", "bound time / measured", "estimate time / measured", "SM MHz after"]


def markdown(the_plan: dict) -> str:
    """The table as Markdown, under a line naming the GPU, the date and whether anything was timed."""
    head = (f"{the_plan.get('device', the_plan['gpu'])}, {the_plan.get('date_utc', '')}, arch {the_plan['arch']}"
            + (" (dry run: nothing timed)" if the_plan.get("dry_run") else ""))
    lines = [head, "", "| " + " | ".join(TABLE_HEADERS) + " |", "|" + "---|" * len(TABLE_HEADERS)]
    lines += ["| " + " | ".join(r) + " |" for r in table_rows(the_plan)]
    val = validation_jobs.table_rows(the_plan)
    if val:
        heads = validation_jobs.TABLE_HEADERS
        lines += ["", "Validation rows' kernels (benchmarks/validation), measured here beside the model for this GPU:",
                  "", "| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
        lines += ["| " + " | ".join(r) + " |" for r in val]
    if the_plan.get("validation_left_out"):
        lines += ["", "Left out for the budget: " + ", ".join(the_plan["validation_left_out"])]
    return "\n".join(lines) + "\n"


def write(the_plan: dict, json_path: Path | None, table_path: Path | None) -> None:
    """Print the table; write the JSON record and the Markdown table where asked."""
    from kernellab import print_table

    print_table(TABLE_HEADERS, table_rows(the_plan))
    val = validation_jobs.table_rows(the_plan)
    if val:
        print()
        print_table(validation_jobs.TABLE_HEADERS, val)
        the_plan["validation_summary"] = validation_jobs.summary(the_plan)
    if the_plan.get("validation_left_out"):
        print("left out for the budget:", ", ".join(the_plan["validation_left_out"]))
    if json_path:
        json_path.write_text(json.dumps(the_plan, indent=1) + "\n")
    if table_path:
        table_path.write_text(markdown(the_plan))


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dry-run", action="store_true", help="plan and compile, time nothing (no GPU needed)")
    ap.add_argument("--no-compile", action="store_true", help="with --dry-run: plan only")
    ap.add_argument("--no-triton", action="store_true", help="leave the Triton gallery jobs out")
    ap.add_argument("--no-validation", action="store_true",
                    help="leave out the validation rows' kernels (benchmarks/validation)")
    ap.add_argument("--gpu", help="the GPU to plan for in a dry run (default: H200; on a GPU, the device's)")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--only", help="comma-separated job ids (k01, reduce1, matmul-g8, gelu, softmax-1024, …)")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--table", type=Path, help="also write the table as Markdown")
    ap.add_argument("--build", type=Path, help="folder for the cubins (default: a temporary one)")
    ap.add_argument("--cache", type=Path, help="reuse cubins compiled before under the same key (compile_key), and keep "
                    "new ones there")
    args = ap.parse_args(argv)

    deadline = time.monotonic() + BUDGET_S - DEADLINE_MARGIN_S  # validation jobs not started after it are skipped
    device = None
    if not args.dry_run:
        import cupy as cp

        device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    only = set(args.only.split(",")) if args.only else None
    the_plan = plan(args.gpu or device or "H200", args.arch, only, triton=not args.no_triton,
                    validation=not args.no_validation)
    the_plan.update({"date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                     "device": device or f"none (dry run, planned for the {the_plan['gpu']})",
                     "dry_run": args.dry_run})
    nvcc = None if args.dry_run and args.no_compile else find_nvcc()
    if nvcc:
        version = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
        the_plan["nvcc"] = (re.search(r"release [^\n]*", version) or re.search(r".+", version)).group(0)
        with tempfile.TemporaryDirectory() as tmp:
            compile_twins(the_plan, nvcc, args.build or Path(tmp), args.cache)
            if not args.dry_run:
                time_twins(the_plan)
                validation_jobs.time_simt_jobs(the_plan, deadline)
    elif not args.dry_run:
        raise SystemExit("no nvcc found ($NVCC, the nvidia-cuda-nvcc wheel, PATH): the twins cannot be built")
    else:
        the_plan["nvcc"] = None
    if not args.dry_run and not args.no_triton:
        time_triton(the_plan)
    if not args.dry_run and any(j["kind"] == "validation-triton" for j in the_plan["jobs"]):
        if validation_jobs.check_kernels(the_plan):
            validation_jobs.time_triton_jobs(the_plan, deadline)
    write(the_plan, args.json, args.table)
    return the_plan


if __name__ == "__main__":
    main()
