"""Throughput bounds: a kernel's time on each resource of the SM, from its counts, and the binding one.

Each resource serves a fixed number of events per SM per cycle (a named rate of ``kernellab.specs.Perf``);
a kernel can finish no sooner than its busiest resource allows. Latency, dependencies and scheduling are
not modelled, so the prediction is an upper bound on speed (a lower bound on time).
"""

from __future__ import annotations

from ..counters import Counts
from ..i18n import _
from ..specs import GPU, Perf

#: The resources in the order ties are broken, as bound name → (result key, what is counted, rate field).
RESOURCES = {
    "FMA": ("t_fma", "FP32 FMAs (thread level)", "fma_per_sm_cycle"),
    "issue": ("t_issue", "warp instructions", "issue_per_sm_cycle"),
    "L1": ("t_l1", "128-byte global lines loaded and stored", "l1_lines_per_sm_cycle"),
    "shared": ("t_smem", "shared-memory wavefronts, loads and stores", "smem_wavefronts_per_sm_cycle"),
    "DRAM": ("t_dram", "compulsory DRAM bytes", "dram_bw"),
}


def resource_label(bound: str) -> str:
    """The name of a binding resource (a ``predict(...)["bound"]`` key) in the reader's language.

    Examples
    --------
    >>> resource_label("shared"), resource_label("L1")
    ('shared memory', 'L1')
    """
    labels = {"FMA": _("FP32 arithmetic"), "issue": _("instruction issue"), "L1": _("L1"),
              "shared": _("shared memory"), "DRAM": _("DRAM")}
    if bound not in labels:
        raise ValueError(f"unknown resource {bound!r}; expected one of {list(labels)}")
    return labels[bound]


def resource_events(counts: Counts) -> dict[str, int]:
    """What each resource must process, by bound name (the numerators of ``predict``).

    Examples
    --------
    >>> c = Counts(fma=64, warp_instr=6, gld_lines=66, gst_lines=1, shld_wavefronts=3, dram_sectors={"A": 2})
    >>> resource_events(c)
    {'FMA': 64, 'issue': 6, 'L1': 67, 'shared': 3, 'DRAM': 64}
    """
    return {
        "FMA": counts.fma,
        "issue": counts.warp_instr,
        "L1": counts.gld_lines + counts.gst_lines,
        "shared": counts.shld_wavefronts + counts.shst_wavefronts,
        "DRAM": counts.dram_bytes,
    }


def _flops(n) -> int:
    if isinstance(n, (tuple, list)):
        m, nn, k = (int(v) for v in n)
        return 2 * m * nn * k
    return 2 * int(n) ** 3


def predict(spec, counts: Counts, n, perf: Perf, gpu: GPU | None = None) -> dict:
    """Predict a kernel's time and GFLOP/s from its counts: the slowest resource sets the time.

    For each on-chip resource, time (s) = events ÷ (rate per SM per cycle × SMs × clock in Hz):

    * ``t_fma``   = FMAs ÷ (``fma_per_sm_cycle`` × SMs × clock)
    * ``t_issue`` = warp instructions ÷ (``issue_per_sm_cycle`` × SMs × clock)
    * ``t_l1``    = (global lines loaded + stored) ÷ (``l1_lines_per_sm_cycle`` × SMs × clock)
    * ``t_smem``  = shared wavefronts (loads + stores) ÷ (``smem_wavefronts_per_sm_cycle`` × SMs × clock)
    * ``t_dram``  = compulsory DRAM bytes ÷ DRAM bandwidth (bytes/s)

    ``time`` = the largest; ``bound`` = its resource ("FMA", "issue", "L1", "shared" or "DRAM");
    ``gflops`` = 2·n³ FLOP ÷ ``time`` ÷ 1e9 (2·M·N·K if ``n`` is a triple ``(M, N, K)``), the useful FLOPs
    a benchmark counts. ``counts`` must already be at size ``n`` (see ``scale_counts``).

    The arguments: ``spec`` is the kernel's spec (its ``name`` is copied into the result) or None; ``counts``
    the counts of a launch at size ``n``; ``n`` an int or a triple ``(M, N, K)``, the size the FLOPs are
    counted at; ``perf`` the rates charged (e.g. ``PERF_A6000``); ``gpu`` the GPU, which must be
    ``perf.gpu`` (SMs and clock come from it), None meaning ``perf.gpu``.

    Examples
    --------
    The naive SGEMM at 4096³ on the A6000: a warp touches 33 lines per 32 FMAs (32 of A, 1 of B), so
    L1 sees 4096³ × 33/32 lines; at 1 line per SM per cycle × 84 SMs × 1.8e9 Hz that takes 0.469 s,
    and 2 × 4096³ FLOP / 0.469 s ≈ 293 GFLOP/s:

    >>> from kernellab.specs import A6000, PERF_A6000
    >>> n = 4096
    >>> naive = Counts(fma=n**3, warp_instr=n**3 // 32 * 3, gld_lines=n**3 // 32 * 33)
    >>> p = predict(None, naive, n, PERF_A6000, A6000)
    >>> p["bound"], f"{p['t_l1']:.3f} s", round(p["gflops"])
    ('L1', '0.469 s', 293)
    """
    gpu = perf.gpu if gpu is None else gpu
    if gpu != perf.gpu:
        raise ValueError(f"the rates are for the {perf.gpu.name}, but the GPU given is the {gpu.name}")
    per_second = gpu.sms * gpu.clock_hz  # SM-cycles per second
    events = resource_events(counts)
    out: dict = {"name": getattr(spec, "name", None)}
    for bound, (key, _what, rate) in RESOURCES.items():
        if rate == "dram_bw":
            out[key] = events[bound] / gpu.dram_bw
        else:
            out[key] = events[bound] / (getattr(perf, rate) * per_second)
    bound = max(RESOURCES, key=lambda b: out[RESOURCES[b][0]])
    out["time"] = out[RESOURCES[bound][0]]
    out["bound"] = bound
    if out["time"] <= 0:
        raise ValueError("the counts charge no resource (all zero): nothing to predict")
    out["gflops"] = _flops(n) / out["time"] / 1e9
    return out
