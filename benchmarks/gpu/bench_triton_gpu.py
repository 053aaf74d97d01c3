"""Time the gallery's Triton-syntax kernels on a real GPU with real Triton, and print kernellab's predictions beside.

The kernels are taken from the gallery pages themselves (their source text, not a copy): the matmul of
lecture 10 page 06 (``matmul_kernel``), the GeLU of Triton notes 01 (``triton_gelu_kernel``) and the fused
softmax of Triton notes 02 (``triton_softmax_kernel``). Each is compiled by real Triton, checked against
torch, and timed with ``triton.testing.do_bench`` (median and 20th/80th percentiles, in ms). The SM and
memory clocks are read with ``nvidia-smi`` before and after each kernel, since the clock decides the
peak (``reference/fidelity.md`` §4.2).

Predictions, from kernellab alone:

* matmul, 4096³ FP16 in, FP32 accumulate and out, 128×128×32 tiles, 4 warps, 4 stages (Triton tutorial
  03's configuration), row-major order (GROUP_M = 1) against GROUP_M = 8: the time can be no shorter
  than the Tensor Core peak allows, nor than the DRAM bytes allow. The bytes come twice: the wave model
  (an upper bound, nothing kept in L2 between waves) and the LRU estimate of the L2
  (``kernellab.model.dram_bytes_lru``), both with the programs per SM that shared memory allows;
* GeLU and softmax: the bytes kernellab's mini-Triton counts for the same kernel on a small input,
  scaled to the benchmark's size, at the DRAM bandwidth (both are memory-bound).

Usage (on a machine with an NVIDIA GPU, ``torch`` with CUDA and ``triton``)::

    python benchmarks/gpu/bench_triton_gpu.py [--json results.json] [--quick]

Written without a GPU at hand: the calls follow Triton's documented API
(``triton.testing.do_bench(fn, warmup, rep, quantiles=...)`` returning milliseconds, ``kernel[grid](...,
num_warps=, num_stages=)``); run it and check before trusting its first output.
"""

from __future__ import annotations

import argparse
import ast
import datetime
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from kernellab import GPUS, dram_bytes_tiled, occupancy  # noqa: E402
from kernellab.model import dram_bytes_lru  # noqa: E402

SOURCES = {  # kernel name → gallery file that defines it
    "matmul_kernel": "gallery/lecture10/06_triton_style.py",
    "triton_gelu_kernel": "gallery/triton_notes/01_gelu.py",
    "triton_softmax_kernel": "gallery/triton_notes/02_softmax.py",
}
HEADER = {
    "triton": "import triton\nimport triton.language as tl\n",
    "kernellab": "import kernellab.triton as triton\nimport kernellab.triton.language as tl\n",
}
MATMUL = {"n": 4096, "BM": 128, "BN": 128, "BK": 32, "warps": 4, "stages": 4}


def kernel_module(flavour: str) -> dict:
    """The gallery's kernels, cut out of their pages by name, under real Triton or kernellab's mini-Triton."""
    text = HEADER[flavour]
    for name, path in SOURCES.items():
        src = (ROOT / path).read_text()
        fn = next(n for n in ast.parse(src).body if isinstance(n, ast.FunctionDef) and n.name == name)
        lines = src.splitlines()
        text += "\n\n" + "\n".join(lines[fn.decorator_list[0].lineno - 1:fn.end_lineno]) + "\n"
    namespace: dict = {}
    exec(compile(text, f"<gallery kernels, {flavour}>", "exec"), namespace)
    return namespace


def gpu_spec(device_name: str):
    """kernellab's GPU whose short name appears in the device name (H200 before H100)."""
    for key, gpu in (("H200", GPUS[3]), ("H100", GPUS[2]), ("A100", GPUS[1]), ("A6000", GPUS[0])):
        if key in device_name:
            return gpu
    raise SystemExit(f"no kernellab spec for the GPU {device_name!r}; add one to kernellab/specs.py")


def clocks() -> dict:
    """SM and memory clocks (MHz), power (W) and temperature (°C) from nvidia-smi, or {} without it."""
    if not shutil.which("nvidia-smi"):
        return {}
    fields = "clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active"
    out = subprocess.run(["nvidia-smi", f"--query-gpu={fields}", "--format=csv,noheader,nounits", "-i", "0"],
                         capture_output=True, text=True, check=False).stdout.strip()
    keys = ("sm_mhz", "max_sm_mhz", "mem_mhz", "power_w", "temp_c", "throttle")
    return dict(zip(keys, (v.strip() for v in out.split(","))))


def bench(fn, quick: bool) -> tuple[float, float, float]:
    """Median, 20th and 80th percentile of ``fn``'s time in ms (``triton.testing.do_bench``)."""
    import triton.testing

    res = triton.testing.do_bench(fn, warmup=10 if quick else 25, rep=30 if quick else 200,
                                  quantiles=[0.5, 0.2, 0.8])
    return tuple(float(v) for v in res)


def checked_time(fn, error, limit: float, what: str, quick: bool) -> tuple[tuple[float, float, float], dict, dict]:
    """Run ``fn`` once and stop unless ``error()``, its max error against torch, is below ``limit``; then time
    it (:func:`bench`) between two clock readings. Returns the times in ms, the clocks before and after."""
    import torch

    fn()
    torch.cuda.synchronize()
    err = error()
    if not err < limit:
        raise SystemExit(f"{what} is wrong: max error {err:.3g}")
    before = clocks()
    ms = bench(fn, quick)
    return ms, before, clocks()


def memory_bound_result(label: str, kernel: str, ms, before: dict, after: dict, numel: int, bpe: float, gpu,
                        **extra) -> tuple[list, dict]:
    """The table row and the JSON record of a memory-bound kernel: its bandwidth against the DRAM-bound time."""
    med, p20, p80 = ms
    t_pred = numel * bpe / gpu.dram_bw * 1e3
    row = [label, f"{med:.3f} [{p20:.3f}, {p80:.3f}]", f"{numel * bpe / (med * 1e-3) / 1e9:.0f} GB/s",
           f"≥ {t_pred:.3f} ({bpe:g} B/element)", f"{t_pred / med:.2f}", after.get("sm_mhz", "?")]
    return row, {"kernel": kernel, **extra, "ms": [med, p20, p80], "bytes_per_element": bpe, "predicted_ms": t_pred,
                 "clocks_before": before, "clocks_after": after}


def predict_matmul(gpu, group: int) -> dict:
    """Shortest time by the Tensor Core peak and by DRAM bytes (wave model; LRU), for one launch order."""
    m = MATMUL
    smem = m["stages"] * (m["BM"] * m["BK"] + m["BK"] * m["BN"]) * 2
    ctas = occupancy(gpu, 32 * m["warps"], None, smem).blocks_per_sm
    g = None if group == 1 else group
    wave = dram_bytes_tiled(m["n"], m["BM"], m["BN"], ctas, gpu.sms, elem=2, group=g)
    lru = dram_bytes_lru(m["n"], m["BM"], m["BN"], m["BK"], ctas, gpu.sms, gpu.l2_bytes, elem=2, group=g)
    # C is FP32 here (the gallery kernel stores the FP32 accumulator): add the other half of its bytes
    wave += m["n"] ** 2 * 2
    lru += m["n"] ** 2 * 2
    t_math = 2 * m["n"] ** 3 / gpu.fp16_tensor_peak
    return {"ctas_per_sm": ctas, "wave_bytes": wave, "lru_bytes": lru, "t_math_ms": t_math * 1e3,
            "t_wave_ms": max(t_math, wave / gpu.dram_bw) * 1e3, "t_lru_ms": max(t_math, lru / gpu.dram_bw) * 1e3}


def bytes_per_element(kl: dict, name: str) -> float:
    """Bytes loaded + stored per element by the kernellab run of the same kernel on a small input."""
    if name == "gelu":
        x = np.random.default_rng(0).standard_normal(4096 + 17).astype(np.float32)
        y = np.empty_like(x)
        c = kl["triton_gelu_kernel"][(math.ceil(x.size / 1024),)](x, y, x.size, BLOCK_SIZE=1024)
        return (c["load_bytes"] + c["store_bytes"]) / x.size
    M, N = 8, 1000
    x = np.random.default_rng(0).standard_normal((M, N)).astype(np.float32)
    y = np.empty_like(x)
    c = kl["triton_softmax_kernel"][(M,)](x, y, N, N, N, BLOCK_SIZE=1024)
    return (c["load_bytes"] + c["store_bytes"]) / x.size


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", type=Path, help="also write the results to this JSON file")
    ap.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke test)")
    args = ap.parse_args()

    import torch
    import triton

    if not torch.cuda.is_available():
        raise SystemExit("no CUDA device: this benchmark needs an NVIDIA GPU")
    name = torch.cuda.get_device_name(0)
    gpu = gpu_spec(name)
    real, kl = kernel_module("triton"), kernel_module("kernellab")
    dev = "cuda"
    rows, record = [], {"date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                        "device": name, "kernellab_gpu": gpu.name, "torch": torch.__version__,
                        "triton": triton.__version__, "results": []}

    # --- matmul, 4096³ FP16: row-major (GROUP_M = 1) against GROUP_M = 8
    m = MATMUL
    n = m["n"]
    a = torch.randn((n, n), device=dev, dtype=torch.float16)
    b = torch.randn((n, n), device=dev, dtype=torch.float16)
    c = torch.empty((n, n), device=dev, dtype=torch.float32)
    grid = (triton.cdiv(n, m["BM"]) * triton.cdiv(n, m["BN"]),)
    ref = (a.float() @ b.float())
    for group in (1, 8):
        def run(group=group):
            real["matmul_kernel"][grid](a, b, c, n, n, n, BLOCK_M=m["BM"], BLOCK_N=m["BN"], BLOCK_K=m["BK"],
                                        GROUP_M=group, MASK_K=True, num_warps=m["warps"], num_stages=m["stages"])
        (med, p20, p80), before, after = checked_time(run, lambda: float((c - ref).abs().max()), 1e-2 * math.sqrt(n),
                                                      f"matmul GROUP_M={group}", args.quick)
        p = predict_matmul(gpu, group)
        tflops = 2 * n**3 / (med * 1e-3) / 1e12
        label = "row-major" if group == 1 else f"GROUP_M = {group}"
        rows.append([f"matmul 4096³ FP16, {label}", f"{med:.3f} [{p20:.3f}, {p80:.3f}]", f"{tflops:.0f} TFLOP/s",
                     f"≥ {p['t_lru_ms']:.3f} (Tensor Core peak {p['t_math_ms']:.3f}; DRAM "
                     f"{p['wave_bytes'] / 1e6:.0f} MB wave model, {p['lru_bytes'] / 1e6:.0f} MB LRU, "
                     f"{p['ctas_per_sm']} per SM)",
                     f"{p['t_lru_ms'] / med:.2f}", after.get("sm_mhz", "?")])
        record["results"].append({"kernel": "matmul", "group_m": group, "ms": [med, p20, p80], "tflops": tflops,
                                  "prediction": p, "clocks_before": before, "clocks_after": after})

    # --- GeLU, 16384² FP32 (CS336's size)
    x = torch.randn((16384, 16384), device=dev, dtype=torch.float32)
    y = torch.empty_like(x)
    numel = x.numel()

    def gelu():
        real["triton_gelu_kernel"][(triton.cdiv(numel, 1024),)](x, y, numel, BLOCK_SIZE=1024)
    ms, before, after = checked_time(gelu, lambda: float((y - torch.nn.functional.gelu(x, approximate="tanh")).abs().max()),
                                     1e-4, "GeLU", args.quick)
    row, rec = memory_bound_result("GeLU 16384² FP32", "gelu", ms, before, after, numel, bytes_per_element(kl, "gelu"), gpu)
    rows.append(row)
    record["results"].append(rec)

    # --- fused softmax, 4096 rows of 1024 and 4096 FP32 columns
    for cols in (1024, 4096):
        x = torch.randn((4096, cols), device=dev, dtype=torch.float32)
        y = torch.empty_like(x)
        block = triton.next_power_of_2(cols)

        def softmax(x=x, y=y, cols=cols, block=block):
            real["triton_softmax_kernel"][(x.shape[0],)](x, y, x.stride(0), y.stride(0), cols, BLOCK_SIZE=block)
        ms, before, after = checked_time(softmax, lambda x=x, y=y: float((y - torch.softmax(x, dim=1)).abs().max()),
                                         1e-5, "softmax", args.quick)
        row, rec = memory_bound_result(f"softmax 4096 × {cols} FP32", "softmax", ms, before, after, x.numel(),
                                       bytes_per_element(kl, "softmax"), gpu, cols=cols)
        rows.append(row)
        record["results"].append(rec)

    from kernellab import print_table

    print(f"{name} ({gpu.name} in kernellab), torch {torch.__version__}, triton {triton.__version__}, "
          f"{record['date_utc']}")
    print_table(["kernel", "measured ms, median [p20, p80]", "measured rate", "predicted ms (shortest possible)",
                 "predicted / measured", "SM MHz after"], rows)
    if args.json:
        args.json.write_text(json.dumps(record, indent=1))


if __name__ == "__main__":
    main()
