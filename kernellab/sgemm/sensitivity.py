"""How much the study's agreement owes to its two calibrated constants, η and the K-step latency.

``kernellab.sgemm.study`` fits η on the measurements it is then compared with, and its latency term
uses a round trip that the measurements of kernel 3 constrain. This module measures both effects,
so that the pages can state them instead of asserting "out of sample":

* :func:`leave_one_out` refits η without each kernel in turn and gives that kernel's
  measured ÷ estimate, the honest out-of-sample number for the fitted GPU;
* :func:`sample_split` counts the (GPU, kernel) measurements that entered a fit and those that did not;
* :func:`latency_window` scans the round trip and returns the range that keeps a kernel's
  measured ÷ estimate inside a band on every GPU: a *calibrated* constant, not a free one;
* :func:`ratio_at_base_clock` gives measured ÷ bound at the base clock instead of the rated boost,
  which shows how much of η is the unknown clock rather than scheduling.
"""

from __future__ import annotations

import math
from dataclasses import replace

from ..model import predict
from ..specs import Perf
from .study import MEASURED, PERFS, compiled_counts, fit_eta, loop_shape, spec_for, study

__all__ = ["ETA_KERNELS", "estimate_ratios", "latency_window", "leave_one_out", "own_eta", "ratio_at_base_clock", "sample_split"]

#: The kernels η is fitted on (two or more blocks per SM, see :func:`~kernellab.sgemm.study.fit_eta`).
ETA_KERNELS = range(4, 11)


def leave_one_out(perf: Perf, kernels=ETA_KERNELS) -> dict[int, float]:
    """Measured ÷ estimate of each kernel when η is fitted on the *other* kernels of ``kernels``.

    η is the geometric mean of measured ÷ bound (rated boost clock), so leaving kernel k out gives
    η₋ₖ = exp(mean of the other logs), and its estimate ratio is (measured ÷ bound)ₖ ÷ η₋ₖ. The
    estimate is recomputed by :func:`~kernellab.sgemm.study.study` with η₋ₖ, not by that formula.

    Examples
    --------
    >>> from kernellab import PERF_A6000
    >>> r = leave_one_out(PERF_A6000)
    >>> sorted(r), f"{min(r.values()):.2f}–{max(r.values()):.2f}"
    ([4, 5, 6, 7, 8, 9, 10], '0.85–1.19')
    """
    boost = {r["number"]: r["ratio_boost"] for r in study(perf) if r["measured"] is not None}
    out = {}
    for k in kernels:
        if k not in boost:
            continue
        others = [math.log(boost[j]) for j in kernels if j != k and j in boost]
        eta = math.exp(sum(others) / len(others))
        out[k] = study(replace(perf, eta=eta))[k - 1]["estimate_ratio"]
    return out


def sample_split(fitted=("RTX A6000", "A100 SXM 80GB"), kernels=ETA_KERNELS) -> dict[str, int]:
    """How many measurements entered a fit of η, how many η kernels did not, and how many in all.

    ``in_sample``: measured (GPU, kernel) pairs of ``kernels`` on the GPUs whose η was fitted on them;
    ``out_of_sample``: measured pairs of ``kernels`` on the other GPUs (they use another GPU's η);
    ``total``: every measured pair, k1–k3 included.

    >>> sample_split()
    {'in_sample': 14, 'out_of_sample': 5, 'total': 28}
    """
    measured = [(gpu, k) for gpu, row in MEASURED.items() for k, v in row.items() if v is not None]
    return {"in_sample": sum(gpu in fitted and k in kernels for gpu, k in measured),
            "out_of_sample": sum(gpu not in fitted and k in kernels for gpu, k in measured),
            "total": len(measured)}


def latency_window(kernel: int = 3, perfs=PERFS, band=(0.8, 1.25), step_ns: int = 5,
                   span_ns=(50, 500)) -> tuple[float, float] | None:
    """The round trips (s) that keep ``kernel``'s measured ÷ estimate within ``band`` on every GPU.

    Scans ``Perf.latency_s`` from ``span_ns[0]`` to ``span_ns[1]`` ns in steps of ``step_ns`` and
    returns the smallest and largest value that passes on all of ``perfs`` (None if none does). The
    estimate ratio falls as the latency grows (a longer trip makes the estimate slower), so the passing
    values form one interval.

    >>> lo, hi = latency_window()
    >>> round(lo * 1e9), round(hi * 1e9)
    (125, 200)
    """
    cases = []
    for perf in perfs:
        spec = spec_for(kernel, perf.gpu)
        measured = MEASURED[perf.gpu.name][kernel]
        if measured is not None:
            cases.append((perf, spec, compiled_counts(spec), loop_shape(spec), measured))
    ok = []
    for ns in range(span_ns[0], span_ns[1] + 1, step_ns):
        ratios = [m / predict(c, 4096, replace(perf, latency_s=ns * 1e-9), shape=shape, spec=spec)["estimate_gflops"]
                  for perf, spec, c, shape, m in cases]
        if all(band[0] <= r <= band[1] for r in ratios):
            ok.append(ns * 1e-9)
    return (min(ok), max(ok)) if ok else None


def estimate_ratios(kernel: int, latency_s: float, perfs=PERFS) -> dict[str, float]:
    """Measured ÷ estimate of ``kernel`` on each GPU of ``perfs`` with the round trip set to ``latency_s``.

    >>> {g: round(r, 2) for g, r in estimate_ratios(3, 350e-9).items()}
    {'RTX A6000': 0.92, 'A100 SXM 80GB': 1.32, 'H100 SXM': 1.41}
    """
    out = {}
    for perf in perfs:
        spec = spec_for(kernel, perf.gpu)
        m = MEASURED[perf.gpu.name][kernel]
        if m is not None:
            p = predict(compiled_counts(spec), 4096, replace(perf, latency_s=latency_s), shape=loop_shape(spec),
                        spec=spec)
            out[perf.name] = m / p["estimate_gflops"]
    return out


def ratio_at_base_clock(perf: Perf, kernel: int) -> float:
    """Measured ÷ bound of ``kernel`` at the GPU's base clock (the bottom of its clock band).

    >>> from kernellab import PERF_A6000
    >>> round(ratio_at_base_clock(PERF_A6000, 10), 2)   # 0.66 at the rated 1.8 GHz
    0.84
    """
    r = study(perf)[kernel - 1]
    if r["measured"] is None:
        raise ValueError(f"kernel {kernel} has no measurement on the {perf.name}")
    return r["measured"] / r["prediction"]["gflops_band"][0]


def own_eta(perf: Perf) -> float:
    """η fitted on ``perf``'s own η kernels (for a GPU that reuses another's, a check of the transfer)."""
    return fit_eta(perf, ETA_KERNELS)
