"""The validation rows' own kernels on a lent GPU, beside what the model predicts for that GPU (gpu_check.py).

``benchmarks/validation`` predicts each row of ``validation.csv`` on the row's own GPU and scores it against
the published measurement. Here the same launches run on the GPU that is lent, and are compared with
the model's prediction *for that GPU* (the H100 or H200 spec), so that the model meets measurements
made of exactly the kernels it counted:

* every Triton case (``cases.py``) through its ``launch(env)`` with torch tensors and real Triton,
  timed with ``triton.testing.do_bench`` (which flushes L2 before each run, as the rows' sources did);
  the kernels are first checked against numpy at small sizes (``checks.py``);
* every SIMT case through its CUDA twin (``benchmarks/validation/cuda/``; Boehm's kernel 10 from
  ``cuda/``), timed with CUDA events after an L2 flush (warm for MB-01, whose row measured L2-resident
  data), or, for the rows a source timed with ``clock64()``, by the twin's own cycle count around its
  loop, at two lengths, as the model's prediction is made.

Rows with the same launch (GS-01, GS-02, GS-09 and GS-10 are all the autotuned 1024³ fp16 matmul) are
one job. Jobs are planned in :data:`PRIORITY` order while the budget lasts; the rest are listed as left
out (``--only val-GS-01,...`` picks some, ``--no-gallery`` leaves the other jobs out to make room).
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
TWINS = ROOT / "benchmarks" / "validation" / "cuda"
CHECKS_S = 40.0  # the checks at small sizes: about a dozen Triton compiles and runs
TRITON_JOB_S = 6.0  # one fixed-config Triton job: compile (first use), a run, do_bench (100 ms of repeats)
TUNE_FIRST_S, TUNE_AGAIN_S = 1.5, 0.3  # per autotune config: compile and time it the first time, time it again
SIMT_JOB_S = 2.0  # one twin: its inputs (up to 8 GB for EW-09) and its runs (compiled in the plan's nvcc step)
EVENT_REPS = 10  # timed launches of a twin (each after an L2 flush)
FLUSH_BYTES = 256 << 20  # what triton.testing.do_bench zeroes to flush L2

#: The twin and launch of each SIMT row on the GPU: source, kernel, what it needs (see _simt_launch).
SIMT = {
    "EW-03": {"source": "scale_bytes.cu", "kernel": "scale_bytes", "n": 1 << 24},
    "EW-04": {"source": "scale_bytes.cu", "kernel": "scale_bytes", "n": 1 << 28},
    "EW-06": {"source": "copy_float4.cu", "kernel": "copy_float4", "blocks": 32, "threads": 256, "bytes": 1 << 28},
    "EW-07": {"source": "copy_float4.cu", "kernel": "copy_float4", "blocks": 132, "threads": 256, "bytes": 1 << 28},
    "MB-01": {"source": "copy_float4.cu", "kernel": "copy_float4", "blocks": 528, "threads": 256, "bytes": 1 << 24,
              "warm": True},
    "EW-09": {"source": "transpose_padded_float4.cu", "kernel": "transpose_padded_float4", "n": 32768},
    "MB-03": {"source": "expf_chains.cu", "kernel": "expf_chains", "lengths": (256, 128), "per": 128},
    "MB-04": {"source": "fadd_chains.cu", "kernel": "fadd_chains", "lengths": (256, 128), "per": 128},
    "LA-01": {"source": "chase_shared.cu", "kernel": "chase_shared", "lengths": (512, 256), "per": 1},
    "LA-03": {"source": "chase_global.cu", "kernel": "chase_global", "lengths": (1024, 512), "per": 1},
    "GL-16": {"source": "../../../cuda/k10_warptiling.cu", "kernel": "sgemmWarptiling", "mnk": (4096, 8192, 16384)},
    "GL-17": {"source": "../../../cuda/k10_warptiling.cu", "kernel": "sgemmWarptiling", "mnk": (5120, 4096, 4096)},
}
#: Rows first in the plan, one of each kind of kernel, then every other row in the CSV's order.
PRIORITY = ("GS-01", "GL-01", "AF-08", "AF-01", "EW-01", "SM-03", "LN-01", "LN-03", "AB-07", "GS-12", "AF-10",
            "MB-03", "MB-04", "LA-01", "LA-03", "EW-06", "EW-07", "EW-03", "GL-16", "GL-04")


def _launch_key(case) -> tuple:
    """What makes two rows the same launch: the function that makes it and the values it closes over."""
    fn = case.launch or case.run
    cells = tuple(c.cell_contents for c in fn.__closure__ or ())
    return (fn.__code__, cells)


def groups() -> list[list[str]]:
    """The rows of each distinct launch (first row first), in :data:`PRIORITY` order, then the CSV's."""
    from benchmarks.validation.cases import CASES
    from benchmarks.validation.rows import load_rows

    by_key: dict = {}
    for rid in load_rows():
        by_key.setdefault(_launch_key(CASES[rid]), []).append(rid)
    rank = {rid: i for i, rid in enumerate(PRIORITY)}
    return sorted(by_key.values(), key=lambda g: min(rank.get(r, len(rank) + 1) for r in g))


def _budget(job: dict, tuned: set) -> float:
    if job["kind"] == "validation-simt":
        return SIMT_JOB_S
    if not job.get("autotune"):
        return TRITON_JOB_S
    first = job["autotune"] not in tuned
    tuned.add(job["autotune"])
    return 2.0 + job["configs"] * (TUNE_FIRST_S if first else TUNE_AGAIN_S)


def _job(rows: list[str]) -> dict:
    from benchmarks.validation.cases import CASES

    c = CASES[rows[0]]
    job = {"id": f"val-{rows[0]}", "kind": f"validation-{c.engine}", "rows": rows, "stand_in": c.stand_in}
    if c.engine == "simt":
        spec = SIMT[rows[0]]
        job.update(kernel=spec["kernel"], source=str((TWINS / spec["source"]).resolve().relative_to(ROOT)))
    else:
        job["kernel"] = "triton"
        text = c.stand_in
        if "autotuned" in text:  # the configs it tries: tutorial 03's (and its fp8 ones)
            fp8 = "fp8" in text
            dtype = "fp8" if fp8 else "bf16" if "bf16" in text else "tf32" if "TF32" in text else "fp16"
            from benchmarks.validation.kernels_triton import MATMUL_CONFIGS_FP8, MATMUL_CONFIGS_FP16
            job["autotune"] = dtype
            job["configs"] = len(MATMUL_CONFIGS_FP16) + (len(MATMUL_CONFIGS_FP8) if fp8 else 0)
    return job


def plan_jobs(gpu, budget_s: float, only=None) -> tuple[list[dict], list[str], float]:
    """``(jobs, left out, budget)``: the validation jobs that fit ``budget_s`` (after the checks), each with the
    model's prediction for ``gpu``; ``only`` keeps the jobs named (``val-GS-01``, ...)."""
    jobs, left, tuned = [], [], set()
    used = CHECKS_S
    for rows in groups():
        job = _job(rows)
        if only is not None and job["id"] not in only:
            continue
        b = _budget(job, tuned)
        if used + b > budget_s:
            left.append(job["id"])
            continue
        job["budget_s"] = b
        used += b
        jobs.append(job)
    for job in jobs:
        job["model"] = model(job, gpu)
    return jobs, left, used if jobs else 0.0


def model(job: dict, gpu) -> dict:
    """The model's prediction of the job's first row, on ``gpu``: seconds, or cycles per event for clock64 rows."""
    from benchmarks.validation.cases import CASES

    p, work = CASES[job["rows"][0]].run(gpu)
    out = {"t_estimate_s": p.seconds, "bound": p.bound, "work": work}
    if "lengths" in SIMT.get(job["rows"][0], {}):
        out["cycles_per_event"] = p.seconds * gpu.clock_hz / work
    return out


# --- on the GPU ------------------------------------------------------------------------------------------

def check_kernels(the_plan: dict) -> bool:
    """Run ``checks.py`` with real Triton on the GPU; record each largest error; False (and the error) on a failure."""
    from benchmarks.validation import checks, env

    try:
        the_plan["validation_checks"] = {k: list(v) for k, v in checks.run_all(env.torch_env("cuda")).items()}
        return True
    except Exception as exc:  # a wrong kernel is not timed
        the_plan["validation_checks"] = {"error": f"{type(exc).__name__}: {exc}"}
        return False


def time_triton_jobs(the_plan: dict, deadline: float) -> None:
    """Each Triton validation job: its launch with torch tensors on the GPU, run once, then ``do_bench``."""
    import torch
    import triton.testing

    from benchmarks.validation import env
    from benchmarks.validation.cases import CASES

    gpu_env = env.torch_env("cuda")
    for job in the_plan["jobs"]:
        if job["kind"] != "validation-triton":
            continue
        if time.monotonic() > deadline:
            job["timing"] = {"skipped": "out of time"}
            continue
        t0 = time.monotonic()
        fn = None
        try:
            fn, _work = CASES[job["rows"][0]].launch(gpu_env)
            fn()  # compile (and autotune)
            torch.cuda.synchronize()
            ms = [float(v) for v in triton.testing.do_bench(fn, warmup=10, rep=100, quantiles=[0.5, 0.2, 0.8])]
            job["timing"] = {"ms": ms, "wall_s": round(time.monotonic() - t0, 2)}
        except Exception as exc:  # one job that fails (an older Triton, memory) does not stop the others
            job["timing"] = {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"}
        del fn
        torch.cuda.empty_cache()


def _simt_launch(job: dict, cp):
    """``(launch(length) → (grid, block, args), reader)`` of a twin: its arguments on the GPU; ``reader`` gives
    the cycles a clock64 twin counted (None for an event-timed one)."""
    rid = job["rows"][0]
    spec = SIMT[rid]
    if spec["kernel"] == "copy_float4":
        n4 = spec["bytes"] // 16
        src, dst = cp.zeros(4 * n4, cp.float32), cp.zeros(4 * n4, cp.float32)
        return (lambda _=None: ((spec["blocks"],), (spec["threads"],), (src, dst, np.int32(n4)))), None
    if spec["kernel"] == "scale_bytes":
        n = spec["n"]
        c, b = cp.zeros(n, cp.int8), cp.zeros(n, cp.int8)
        return (lambda _=None: ((n // 4096,), (256,), (c, b, np.int32(3), np.int32(n)))), None
    if spec["kernel"] == "transpose_padded_float4":
        n = spec["n"]
        a, o = cp.zeros((n, n), cp.float32), cp.zeros((n, n), cp.float32)
        return (lambda _=None: ((n // 32, n // 32), (8, 32), (a, o, np.int32(n)))), None
    if spec["kernel"] == "sgemmWarptiling":
        from kernellab import KERNELS

        m, n, k = spec["mnk"]
        a, b, c = cp.zeros((m, k), cp.float32), cp.zeros((k, n), cp.float32), cp.zeros((m, n), cp.float32)
        k10 = KERNELS[9]
        return (lambda _=None: (k10.grid(m, n, k), k10.block_for(m, n, k),
                                (a, b, c, np.int32(m), np.int32(n), np.int32(k)))), None
    cycles = cp.zeros(1, cp.int64)
    if spec["kernel"] in ("expf_chains", "fadd_chains"):
        out = cp.zeros(32 * 128, cp.float32)
        return (lambda it: ((1,), (32,), (out, cycles, np.int32(it)))), cycles
    if spec["kernel"] == "chase_shared":
        from benchmarks.validation.cases import shared_cycle

        nxt = cp.asarray(shared_cycle())
        out = cp.zeros(1, cp.int32)
        return (lambda hops: ((1,), (1,), (nxt, out, cycles, np.int32(hops), np.int32(nxt.size)))), cycles
    from benchmarks.validation.cases import hbm_chain

    nxt = cp.asarray(hbm_chain())
    out = cp.zeros(1, cp.int64)
    return (lambda hops: ((1,), (1,), (nxt, out, cycles, np.int32(hops)))), cycles


def time_simt_jobs(the_plan: dict, deadline: float) -> None:
    """Each SIMT validation job on its compiled twin (CuPy): event-timed after an L2 flush, or by its clock64 count."""
    import cupy as cp

    flush = cp.empty(FLUSH_BYTES, cp.uint8)
    for job in the_plan["jobs"]:
        if job["kind"] != "validation-simt" or "compile" not in job:
            continue
        if time.monotonic() > deadline:
            job["timing"] = {"skipped": "out of time"}
            continue
        try:
            _time_twin(job, cp, flush)
        except Exception as exc:  # as for the Triton jobs: recorded, and the next job runs
            job["timing"] = {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"}
        cp.get_default_memory_pool().free_all_blocks()


def _time_twin(job: dict, cp, flush) -> None:
    """One twin: its clock64 count at two lengths, or CUDA events around each launch after an L2 flush."""
    spec = SIMT[job["rows"][0]]
    fn = cp.RawModule(path=job["compile"]["cubin"]).get_function(job["kernel"])
    make, cycles = _simt_launch(job, cp)
    if cycles is not None:  # clock64 around the loop, at two lengths: cycles per event from the difference
        counts = {}
        for length in spec["lengths"]:
            runs = []
            for _ in range(5):
                flush.fill(0)
                fn(*make(length))
                cp.cuda.Device().synchronize()
                runs.append(int(cycles.get()[0]))
            counts[length] = float(np.median(runs))
        long, short = spec["lengths"]
        events = (long - short) * spec["per"]
        job["timing"] = {"cycles": counts, "cycles_per_event": (counts[long] - counts[short]) / events}
        return
    grid, block, args = make()
    fn(grid, block, args)  # warm-up
    ms = []
    for _ in range(EVENT_REPS):
        if not spec.get("warm"):
            flush.fill(0)
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        fn(grid, block, args)
        end.record()
        end.synchronize()
        ms.append(cp.cuda.get_elapsed_time(start, end))
    job["timing"] = {"ms": [float(np.median(ms)), float(np.percentile(ms, 20)), float(np.percentile(ms, 80))]}


# --- the table -------------------------------------------------------------------------------------------

TABLE_HEADERS = ["job", "rows", "measured here", "model for this GPU", "model / measured (time)", "bound",
                 "published (the row's GPU)"]


def table_rows(the_plan: dict) -> list[list[str]]:
    """One row a validation job: measured on this GPU, the model's estimate for it, their time ratio."""
    from benchmarks.validation.rows import load_rows

    published = load_rows()
    out = []
    for j in the_plan["jobs"]:
        if not j["kind"].startswith("validation"):
            continue
        m, t = j["model"], j.get("timing") or {}
        row = published[j["rows"][0]]
        pub = f"{row.measured:g} {row.unit}"
        if "cycles_per_event" in m:
            pred = f"{m['cycles_per_event']:.3g} cycles"
            meas = f"{t['cycles_per_event']:.3g} cycles" if "cycles_per_event" in t else t.get("skipped") or t.get("error") or "—"
            ratio = f"{m['cycles_per_event'] / t['cycles_per_event']:.2f}" if "cycles_per_event" in t else "—"
        else:
            pred = f"{m['t_estimate_s'] * 1e3:.4g} ms"
            meas = f"{t['ms'][0]:.4g} ms" if "ms" in t else t.get("skipped") or t.get("error") or "—"
            ratio = f"{m['t_estimate_s'] / (t['ms'][0] * 1e-3):.2f}" if "ms" in t else "—"
        out.append([j["id"], ", ".join(j["rows"]), meas, pred, ratio, m["bound"], pub])
    return out


def summary(the_plan: dict) -> dict:
    """Share of timed validation jobs whose model time is within [0.8, 1.25] and [0.5, 2] of the measured one."""
    ratios = []
    for j in the_plan["jobs"]:
        m, t = j.get("model", {}), j.get("timing") or {}
        if "cycles_per_event" in t and t["cycles_per_event"] > 0:
            ratios.append(m["cycles_per_event"] / t["cycles_per_event"])
        elif "ms" in t and j["kind"].startswith("validation"):
            ratios.append(m["t_estimate_s"] / (t["ms"][0] * 1e-3))
    if not ratios:
        return {"timed": 0}
    return {"timed": len(ratios), "within_1.25": sum(0.8 <= r <= 1.25 for r in ratios) / len(ratios),
            "within_2": sum(0.5 <= r <= 2 for r in ratios) / len(ratios),
            "geomean": math.exp(sum(math.log(r) for r in ratios) / len(ratios))}
