"""The model's efficiencies fitted on rows of ``validation.csv``, with their leave-one-out figures.

    python -m benchmarks.validation.fit

Issue 32, item 8: one η per pipe family, each fitted on named rows that are then marked in-sample
(:mod:`in_sample`: reported, not scored), each with a leave-one-out figure. A row's own η is the value
that makes the model's ``do_bench`` time of the row's launches equal its measurement (found by
bisection: the time falls as η rises); the fitted η is the geometric mean of the rows' own values; the
leave-one-out ratio of a row is its predicted ÷ measured time with the η of the *other* rows alone.

``eta_wgmma`` (``Perf.eta_wgmma`` of the H100 and H200): the share of the dense Tensor Core peak a
``wgmma`` pipeline sustains, which takes in the clock a power-limited H100 holds under Tensor Core load
(the 989.4 TFLOP/s of the spec sheet are at the 1.83 GHz boost) and the issue gaps between K steps. It is
fitted on the two cuBLAS GEMMs of one source and one binary (fast.cu's kernel 0, 8192³ and 6144³ bf16 on an
H100 SXM): the best-tuned Tensor Core kernels of the file, in the tutorial matmul that stands in for them.

The other families keep their values: ``eta_mma`` (``mma.sync``) stays 1, as no row measures a large
``mma.sync`` GEMM (the A100 ones are 1024³ or smaller, set by their tail and launch, not the pipe); the SIMT
η is Boehm's (``facts.md``, :data:`kernellab.specs.ETA`); DRAM has its measured sustained share.
"""

from __future__ import annotations

import dataclasses
import math
import sys
import warnings

from kernellab.errors import ModelWarning
from kernellab.model import predict
from kernellab.specs import as_perf

from .cases import CASES
from .rows import load_rows, resolve_gpu
from .scoring import measured_seconds

#: the fitted constant → the rows it is fitted on (each named in ``in_sample.IN_SAMPLE``)
FITS = {"eta_wgmma": ("GL-01", "GL-07")}


def _launches(row_id: str, gpu):
    """The counts of every launch the row's ``do_bench`` makes on ``gpu`` (its autotuned config included)."""
    import kernellab.triton as triton
    from kernellab.triton.launches import recording

    from .env import KERNELLAB

    fn, work = CASES[row_id].launch(KERNELLAB)
    previous = triton.set_gpu(gpu)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ModelWarning)
            with recording() as launches:
                triton.testing.do_bench(fn)
    finally:
        triton.set_gpu(previous)
    return [launch.counts for launch in launches], work


def _seconds(counts_list, perf) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        return sum(predict(c, perf)["estimate_total_time"] for c in counts_list)


def row_eta(name: str, counts_list, perf, measured: float, lo: float = 0.2, hi: float = 2.0) -> float:
    """The value of ``perf``'s field ``name`` at which the launches' predicted time equals ``measured`` s."""
    def t(v):
        return _seconds(counts_list, dataclasses.replace(perf, **{name: v}))
    if not t(hi) <= measured <= t(lo):
        raise ValueError(f"{name}: no value in [{lo}, {hi}] predicts {measured * 1e6:.1f} µs")
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if t(mid) > measured else (lo, mid)
    return (lo + hi) / 2


def fit(name: str = "eta_wgmma", rows=None) -> dict:
    """``{"value", "rows": {id: {"eta", "loo_eta", "loo_ratio"}}}`` of the fitted constant ``name``."""
    table = load_rows()
    data = {}
    for rid in rows or FITS[name]:
        gpu, _ = resolve_gpu(table[rid].gpu)
        counts_list, work = _launches(rid, gpu)
        perf = as_perf(gpu)
        measured = measured_seconds(table[rid], work, gpu.clock_hz)
        data[rid] = (counts_list, perf, measured, row_eta(name, counts_list, perf, measured))
    value = math.exp(sum(math.log(d[3]) for d in data.values()) / len(data))
    out = {"value": value, "rows": {}}
    for rid, (counts_list, perf, measured, eta) in data.items():
        others = [d[3] for r, d in data.items() if r != rid]
        loo = math.exp(sum(map(math.log, others)) / len(others))
        ratio = _seconds(counts_list, dataclasses.replace(perf, **{name: loo})) / measured
        out["rows"][rid] = {"eta": eta, "loo_eta": loo, "loo_ratio": ratio}
    return out


def main() -> None:
    for name in FITS:
        f = fit(name)
        print(f"{name} = {f['value']:.3f}, the geometric mean over {', '.join(f['rows'])}")
        for rid, r in f["rows"].items():
            print(f"  {rid}: its own {r['eta']:.3f}; left out, the others' {r['loo_eta']:.3f} predict it at "
                  f"{r['loo_ratio']:.3f} × the measured time")


if __name__ == "__main__":
    sys.exit(main())
