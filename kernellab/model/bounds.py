"""Throughput bounds and the calibrated estimate: a kernel's time on each resource of the SM, from its
counts alone, the binding one, a band over the clock, and an estimate with the fitted η and exposed latency.

Each resource serves a fixed number of events per SM per cycle (a named rate of ``kernellab.specs.Perf``);
a kernel can finish no sooner than its busiest resource allows. That *bound* charges no latency and no
scheduling loss. The *estimate* adds both: the pipes fed by the warp schedulers run at the fitted
efficiency η, and a K loop that cannot cover its loads pays the exposed latency (``latency.py``).
"""

from __future__ import annotations

import warnings
from numbers import Integral

from ..counters import Counts
from ..errors import ModelWarning
from ..grid import cdiv
from ..i18n import _
from ..specs import GPU, Perf, as_gpu, as_perf
from .estimate import RESOURCES, estimate_terms, sm_times, tensor_kind
from .latency import LoopShape, dram_bytes_waves, exposed_latency, latency_units
from .persm import Distribution, distribute, launch_of
from .roofline import gemm_flops
from .timer import TIMERS, call_overhead, cold_l2, later_launch_overhead, launch_overhead

__all__ = ["RESOURCES", "SCHEDULER_FED", "TARGETS", "compiled_for", "estimate_eta", "estimate_label", "launch_seconds", "predict",
           "resource_events", "resource_label"]

#: The resources whose rate is the whole device's (DRAM and the L2's atomic units, shared by every SM).
DEVICE_WIDE = ("DRAM", "atomic")
#: The SM resources each of the four sub-partitions has its own of. A program whose warps sit on fewer
#: sub-partitions gets that share of the SM's rate (``mma.sync`` too; ``wgmma`` spans a warpgroup's four).
PER_SUBPARTITION = ("FMA", "XU", "issue", "tensor")
#: FLOPs of one ``mma.sync.m16n8k16`` (2·16·8·16): the FP16-equivalent work of one sm_80 MMA instruction.
MMA_FP16_FLOPS = 2 * 16 * 8 * 16
#: The pipes the warp schedulers feed, whose times the estimate divides by a fitted efficiency (``Perf.eta``
#: for the SIMT ones; ``Perf.eta_mma`` and ``eta_wgmma`` for the Tensor Cores, :mod:`kernellab.model.estimate`).
#: L1's rate is not scaled, as it is itself measured (k1 reaches 0.99–1.06 of it on three GPUs), nor DRAM's,
#: which has its measured sustained share instead.
SCHEDULER_FED = ("FMA", "tensor", "XU", "issue", "shared", "MIO")


def launch_seconds(counts, gpu, timer: str = "do_bench", first: bool = True, target: str | None = None) -> float:
    """Seconds ``timer`` would read around the launch (:mod:`kernellab.model.timer`: ``"do_bench"``, Triton's
    ``do_bench``, a cold L2 and the GPU's cost of each launch; ``"cudagraph"``, a warm L2 and a graph's
    launch): :func:`~kernellab.predict`'s ``estimate_total_time``, the calibrated estimate of the run plus what the timer
    reads besides it. ``first=False``: a later launch of the same timed call, which pays
    :func:`~kernellab.model.timer.later_launch_overhead` (under ``do_bench`` the stream's cost, not the cold one);
    ``target``: the architecture the kernel was compiled for, as :func:`~kernellab.predict` takes it.
    The model's warnings (a run shorter than its launch) are not repeated: the total
    already includes it. Counts that charge nothing cost the launch alone.

    >>> from kernellab import Counts, H100
    >>> f"{launch_seconds(Counts(), H100) * 1e6:.2f} µs"     # nothing to run: do_bench's cold launch alone
    '4.28 µs'
    >>> f"{launch_seconds(Counts(), H100, first=False) * 1e6:.2f} µs"  # the call's second launch: the stream's
    '2.43 µs'
    >>> f"{launch_seconds(Counts(), H100, 'cudagraph') * 1e6:.2f} µs"  # a CUDA graph's launch alone
    '1.26 µs'
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        try:
            return float(_predict_one((counts, gpu), {}, None, 1, timer, first, target)["estimate_total_time"])
        except ValueError:  # all counts zero: nothing but the launch
            perf = as_perf(gpu)
            return float(launch_overhead(perf, timer) if first else later_launch_overhead(perf, timer))


def resource_label(bound: str) -> str:
    """The name of a binding resource (a ``predict(...)["bound"]`` key) in the reader's language.

    Examples
    --------
    >>> resource_label("shared"), resource_label("L1"), resource_label("MIO")
    ('shared memory', 'L1', 'load/store issue (MIO)')
    """
    labels = {"FMA": _("FP32 arithmetic"), "tensor": _("Tensor Cores"), "XU": _("special functions (XU)"),
              "issue": _("instruction issue"), "L1": _("L1"),
              "shared": _("shared memory"), "MIO": _("load/store issue (MIO)"), "DRAM": _("DRAM"),
              "atomic": _("same-address atomics")}
    if bound not in labels:
        raise ValueError(_("unknown resource {bound!r}; expected one of {labels}").format(
            bound=bound, labels=list(labels)))
    return labels[bound]


def estimate_label(term: str) -> str:
    """The name of the term that sets an estimate (a ``predict(...)["estimate_bound"]``) in the reader's
    language: a resource of :func:`~kernellab.model.bounds.resource_label`, or ``"L2"``, ``"L2 queue"`` (its rounds in
    flight keep the L2 below its bandwidth, :mod:`kernellab.model.l2queue`), ``"latency"`` (the latency path of
    :mod:`kernellab.model.estimate`), ``"serial"`` (a program's Tensor Core and dependent SIMT work in turn) or
    ``"lock"`` (a spin lock's critical sections one after another, :mod:`kernellab.model.locks`).

    Examples
    --------
    >>> estimate_label("latency"), estimate_label("DRAM")
    ('latency', 'DRAM')
    """
    extra = {"L2": _("L2"), "L2 queue": _("L2 queue"), "latency": _("latency"), "serial": _("Tensor Cores, then SIMT"),
             "pipelined": _("Tensor Cores beside SIMT, two stages"), "lock": _("lock chain")}
    return extra[term] if term in extra else resource_label(term)


def resource_events(counts, target: str = "sm_80") -> dict[str, int]:
    """What each resource must process, by bound name (the numerators of ``predict``), from either engine.

    SIMT :class:`~kernellab.Counts`: FP32 thread instructions (FFMA + FADD + FMUL), no Tensor Core work,
    special-function results (``xu_instr`` × 32: a warp's MUFU holds the XU for 32 lanes, masked or not),
    warp instructions, global lines (loads, stores and atomics), shared wavefronts, LSU instructions
    (atomics included), compulsory DRAM bytes, and ``atomic_same_address``.

    Mini-Triton :class:`~kernellab.TritonCounts`:

    * **tensor** = the FP16-equivalent FLOPs of the ``tl.dot`` calls Triton compiles to ``mma.sync`` /
      ``wgmma`` (Nsight Compute: ``sm__pipe_tensor_cycles_active``): ``mma_sm80`` × 4096, the FLOPs of
      one ``mma.sync.m16n8k16``; for ``target="sm_90"``, ``tensor_flops_sm90``, the same measure of the
      sm_90 instructions, which differ where sm_80's warps repeat a tile (a chained dot whose warps lie
      along N, attention at head dim 256) and ``wgmma``'s do not. Each sm_80 MMA instruction occupies the pipe as long as an fp16 one, so
      this charges an fp16/bf16 dot its FLOPs, a TF32 dot (``m16n8k8``, half the FLOPs an instruction)
      twice its FLOPs (half the FP16 rate), ``"tf32x3"`` six times, an int8 dot half. An **fp8** dot (the
      launch records its operands: ``counts.launch["fp8"]``) runs at ``GPU.fp8_tensor_peak`` as ``wgmma``;
      sm_80 converts fp8 to fp16, so there it is charged at the FP16 rate.
    * **FMA** = elementwise FLOPs, plus ``dot_flops`` ÷ 2 (FFMAs) when the launch compiled no MMA
      (``mma_sm80 == 0``: every dot has ``input_precision="ieee"``, or a lecture-form kernel). The counts
      sum dots without telling them apart: a launch that mixes ieee and MMA dots is charged as if all its
      dot FLOPs ran on the Tensor Cores (its ieee dots' FFMAs are missed).
    * **issue** = FP32 instructions ÷ 32 + the memory requests + the target's MMA warp instructions
      (``mma_sm90`` for ``target="sm_90"``, else ``mma_sm80``): a lower bound, address arithmetic is not
      counted.
    * XU = ``xu_instructions`` × 32 (the special functions as Triton compiles them, ``MUFU``), also issued.
    * **shared** = the shared-memory wavefronts of the instructions Triton 3.9 adds for layout conversions,
      cross-warp reductions and ``tl.dot``'s operands, as the target compiles them (``shared_wavefronts_sm90``
      for ``target="sm_90"``, else ``shared_wavefronts_sm80``; Nsight Compute's
      ``l1tex__data_pipe_lsu_wavefronts_mem_shared.sum``), bank conflicts included: each takes the SM's shared
      memory a cycle, as a SIMT launch's do. ``wgmma`` reads its operands from shared memory without them.
    * L1 = lines (loads, stores, atomics); MIO = requests (atomics included); DRAM = compulsory bytes;
      atomic = ``atomic_same_address``.

    An atomic request is charged like a load at L1 and MIO (its lines and its instruction) and, at the
    L2, by the serial chain of updates to its most-updated address (``atomic``; see ``predict``).

    Examples
    --------
    >>> c = Counts(fma=64, warp_instr=6, gld_instr=2, gld_lines=66, gst_lines=1, shld_wavefronts=3,
    ...            dram_sectors={"A": 2}, atomic_requests=1, atomic_lines=1, atomic_same_address=5)
    >>> resource_events(c)
    {'FMA': 64, 'tensor': 0, 'XU': 0, 'issue': 6, 'L1': 68, 'shared': 3, 'MIO': 3, 'DRAM': 64, 'atomic': 5}

    A 64×64×32 fp16 ``tl.dot`` (2·64·64·32 = 262 144 FLOPs) compiles to 262 144 ÷ 4096 = 64
    ``mma.sync``: the tensor pipe gets its FLOPs, the FMA pipe none:

    >>> from kernellab.triton import TritonCounts
    >>> t = TritonCounts(flops=262_144, dot_flops=262_144, mma_sm80=64, mma_sm90=64)
    >>> {k: v for k, v in resource_events(t).items() if v}
    {'tensor': 262144, 'issue': 64}

    A conversion whose stores take 96 wavefronts on sm_80 and 64 on sm_90 (a different swizzle) charges each
    target its own:

    >>> t = TritonCounts(shared_wavefronts_sm80=96, shared_wavefronts_sm90=64)
    >>> resource_events(t)["shared"], resource_events(t, "sm_90")["shared"]
    (96, 64)
    """
    if isinstance(counts, Counts):
        return {
            "FMA": counts.fma + counts.fadd + counts.fmul,
            "tensor": 0,
            "XU": counts.xu_instr * 32,
            "issue": counts.warp_instr,
            "L1": counts.gld_lines + counts.gst_lines + counts.atomic_lines,
            "shared": counts.shld_wavefronts + counts.shst_wavefronts,
            "MIO": counts.gld_instr + counts.gst_instr + counts.shld_instr + counts.shst_instr + counts.atomic_requests,
            "DRAM": counts.dram_bytes,
            "atomic": counts.atomic_same_address,
        }
    if all(hasattr(counts, a) for a in ("dot_flops", "load_lines", "atomic_requests", "dram_bytes")):
        mma80 = getattr(counts, "mma_sm80", 0)
        mma = getattr(counts, "mma_sm90", 0) if target == "sm_90" else mma80
        tensor = mma80 * MMA_FP16_FLOPS
        if target == "sm_90" and getattr(counts, "tensor_flops_sm90", 0):
            tensor = counts.tensor_flops_sm90  # the sm_90 instructions' own work (wgmma repeats no warp's tile)
        fp = counts.flops - counts.dot_flops + (0 if mma80 else counts.dot_flops // 2)
        requests = counts.load_requests + counts.store_requests + counts.atomic_requests
        xu = getattr(counts, "xu_instructions", 0)
        return {
            "FMA": fp,
            "tensor": tensor,
            "XU": xu * 32,
            "issue": -(-fp // 32) + requests + mma + xu,
            "L1": counts.load_lines + counts.store_lines + counts.atomic_lines,
            "shared": getattr(counts, "shared_wavefronts_sm90" if target == "sm_90" else "shared_wavefronts_sm80", 0),
            "MIO": requests,
            "DRAM": counts.dram_bytes,
            "atomic": getattr(counts, "atomic_same_address", 0),
        }
    raise TypeError(_("counts must be what a launch returns (kernellab.Counts or "
                      "kernellab.triton.TritonCounts), got a {type}").format(
        type=type(counts).__name__))


def _binding(times: dict, scale: dict | None = None) -> tuple[str, float]:
    """The resource with the largest (optionally scaled) time, first in ``RESOURCES`` order on a tie."""
    scale = scale or {}
    b = max(RESOURCES, key=lambda r: times[RESOURCES[r][0]] / scale.get(r, 1.0))
    return b, times[RESOURCES[b][0]] / scale.get(b, 1.0)


def estimate_eta(perf: Perf, shape: LoopShape | None) -> float:
    """The η the estimate applies: ``perf.eta``, or 1 when one block per SM waits at barriers.

    η is fitted where several blocks (or free-running warps) share an SM and cover one another's waits.
    With a single block per SM that synchronises every trip, the idle cycles *are* the exposed latency,
    which ``exposed_latency`` counts; applying η as well would count them twice.
    """
    if shape is not None and latency_units(shape, perf.gpu) == 1:
        return 1.0
    return perf.eta


def _is_counts(x) -> bool:
    return isinstance(x, Counts) or all(hasattr(x, a) for a in ("dot_flops", "load_lines", "dram_bytes"))


def _parse(args, kwargs):
    """Accept ``(counts, [n,] perf[, gpu])`` and the lecture scripts' ``(spec, counts, n, perf[, gpu])``."""
    args = list(args)
    spec = kwargs.pop("spec", None)
    if args and not _is_counts(args[0]) and len(args) > 1 and _is_counts(args[1]):
        spec = args.pop(0)
    if len(args) >= 2 and (isinstance(args[1], (GPU, Perf)) or (len(args) == 2 and "perf" not in kwargs and
                                                              not isinstance(args[1], (Integral, tuple, list)))):
        args.insert(1, None)  # predict(counts, gpu): no GEMM size
    names = ("counts", "n", "perf", "gpu")
    if len(args) > len(names):
        raise TypeError(_("predict takes (counts, n, perf[, gpu]) or (spec, counts, n, perf[, "
                          "gpu]); got {n_args} positional arguments after the spec").format(
            n_args=len(args)))
    vals = dict(zip(names, args))
    for k in list(kwargs):
        if k in names:
            if k in vals:
                raise TypeError(_("predict got {k!r} twice").format(k=k))
            vals[k] = kwargs.pop(k)
    if kwargs:
        raise TypeError(_("predict got unexpected keyword arguments {kwargs}").format(kwargs=sorted(kwargs)))
    vals.setdefault("n", None)
    missing = [k for k in ("counts", "perf") if k not in vals]
    if missing:
        raise TypeError(_("predict is missing {missing}: call predict(counts, gpu) or "
                          "predict(counts, n, gpu)").format(
            missing=missing))
    if not _is_counts(vals["counts"]):
        raise TypeError(_("counts must be what a launch returns (kernellab.Counts or "
                          "kernellab.triton.TritonCounts), got a {type}").format(
            type=type(vals['counts']).__name__))
    gpu = vals.get("gpu")
    return spec, vals["counts"], vals["n"], as_perf(vals["perf"]), None if gpu is None else as_gpu(gpu)


def predict(*args, shape: LoopShape | None = None, launches: int = 1, timer: str = "do_bench",
            target: str | None = None, **kwargs) -> dict:
    """Predict a kernel's time from its counts: a bound (the slowest resource), a clock band, an estimate.

    Call it as ``predict(counts, gpu)`` for any kernel, with the counts of either engine (SIMT
    ``Counts`` or mini-Triton ``TritonCounts``, see :func:`~kernellab.model.bounds.resource_events`) and a GPU given as a
    ``GPU`` (``H100``) or its rates (``PERF_H100``). For a GEMM, ``predict(counts, n, gpu)`` adds the
    size ``n`` of the launch the counts are from (an int, or a triple ``(M, N, K)``; see
    ``scale_counts``): ``gflops`` then counts 2·M·N·K, and a ``shape`` (``LoopShape``) enables the wave
    model. The lecture scripts' form ``predict(spec, counts, n, perf, gpu)`` works too (``spec.name`` is
    copied into the result; ``gpu`` must be ``perf.gpu`` or None).

    **What a prediction includes.** The GPU time of the launch on its busiest SM (the per-SM view of
    :mod:`kernellab.model.persm`: occupancy, waves, the SMs a small grid leaves idle, a program's share of
    the sub-partitions its warps sit on), the DRAM, L2 and atomic traffic the device shares, the latency
    a program cannot hide, and what a timer reads besides (``timer``: :mod:`kernellab.model.timer`). It
    does not include the host's launch path unless ``timer="host"``, the clocks a power limit lowers, or
    L2 hits beyond a warm launch's whole footprint.

    **The bound** (``time``, ``bound``): for each resource of the busiest SM, its share of the launch's
    events (``share``, the programs it runs ÷ all programs; 1 ÷ SMs for counts without a launch) ÷ the
    SM's rate at the sub-partitions its resident warps occupy (FP32, XU, issue and ``mma.sync`` are per
    sub-partition, ``wgmma`` spans all four):

    * ``t_fma``    = FP32 FMA, add and multiply thread instructions ÷ ``fma_per_sm_cycle``
    * ``t_tensor`` = the FP16-equivalent FLOPs of ``tl.dot`` on the Tensor Cores ÷ the dense peak per SM
      (``GPU.fp16_tensor_peak`` ÷ SMs, at the spec sheet's own clock; ``mma.sync`` on sm_90 at
      ``Perf.mma_sync_share`` of it, fp8 ``wgmma`` at ``GPU.fp8_tensor_peak``)
    * ``t_xu``     = special-function results (``MUFU`` warp instructions × 32) ÷ ``xu_per_sm_cycle``
    * ``t_issue``  = warp instructions of every kind ÷ ``issue_per_sm_cycle``; on a 128-lane SM (GA102,
      GH100) 128 FMAs a cycle are the whole issue rate (``Perf.fp32_is_issue_peak``)
    * ``t_mio``    = load/store instructions (global and shared) ÷ ``mio_per_sm_cycle``
    * ``t_l1``     = global lines loaded + stored ÷ ``l1_lines_per_sm_cycle``
    * ``t_smem``   = shared wavefronts, loads + stores ÷ ``smem_wavefronts_per_sm_cycle``
    * ``t_dram``   = DRAM bytes ÷ the spec sheet's bandwidth (the wave model's bytes with a ``shape``,
      else the compulsory bytes): the whole device's
    * ``t_atomic`` = L2 updates of the most-updated address (``atomic_same_address``, a warp's same-address
      lanes merged) ÷ (``atomic_same_address_per_cycle`` × clock): the device's

    each at the rated boost clock; ``gflops_band`` is the bound's GFLOP/s at both ends of the clock band.
    A measurement above the band's top proves the model wrong.

    **The estimate** (``estimate_time``, ``estimate_bound``) is :mod:`kernellab.model.estimate`: the pipes at
    their fitted efficiencies (``eta`` for the SIMT pipes, ``Perf.eta_mma``/``eta_wgmma`` for the Tensor
    Cores), a ``tl.dot``'s Tensor Core work and the SIMT work on its results one after the other in a
    program, DRAM at its measured sustained share (``t_dram_sustained``), L2 traffic (``t_l2``), and the
    latency a program exposes (``t_round``, ``rounds``, ``t_critical``, ``t_latency_path``, ``t_fill``, ``t_starts``), the longest
    chain of a spin lock's critical sections (``t_lock``, :mod:`kernellab.model.locks`); with a
    ``shape``, the K loop's exposed latency of :mod:`kernellab.model.latency` instead (``t_latency``).

    **The launch** (``programs``, ``sms_used``, ``per_sm``, ``resident``, ``waves``, ``tail``,
    ``blocks_per_sm``, ``limiters``, ``subpartitions``): :class:`~kernellab.model.persm.Distribution`.

    **The timer** (``timer``, default ``"do_bench"``): ``t_launch`` = what it reads besides the run around one
    timed call of ``launches`` launches (:func:`~kernellab.model.timer.call_overhead`: under ``do_bench`` the first
    launch's cold cost and the stream's for each later one, as only the first follows the L2 flush),
    ``total_time`` = ``time + t_launch``,
    ``estimate_total_time`` = ``estimate_time + t_launch``; a warm timer (``"cudagraph"``, ``"stream"``) reads
    a footprint that fits in L2 from L2. For a pipeline of kernels in one timed call pass a list of their counts,
    ``predict([c1, c2], gpu)``: each is predicted alone (in ``launches``; the first with the first launch's cost,
    the others with a later launch's), ``time``, ``flops``, ``t_launch``
    and ``total_time`` are sums, ``bound`` is the bound of the longest.

    **The target** (``target``, default the GPU's own: ``"sm_90"`` on the H100 and H200, else ``"sm_80"``): the
    architecture the kernel was compiled for, whose instructions the counts are read for. ``target="sm_80"`` on an
    H100 prices a kernel built with sm_80's instructions only, as FlashAttention-2's CUDA kernels are on every GPU
    (their MMA atom is ``SM80_16x8x16``): its dots run as ``mma.sync`` at ``Perf.mma_sync_share`` of the peak and
    its operands through ``ldmatrix`` (``shared_wavefronts_sm80``). A newer target than the GPU's raises.

    **Warnings** (:class:`~kernellab.errors.ModelWarning`): a launch whose ``time`` is below what its timer
    reads per launch (a measurement sees mostly the launch: read ``total_time``); a bound shorter than one
    DRAM round trip (latency sets such a kernel's time, as ``estimate_time`` says); fp8 dots on a GPU
    without fp8 Tensor Cores (charged at the FP16 rate, outside what the model was checked on).

    Examples
    --------
    The naive SGEMM at 4096³ on the A6000: a warp touches 33 lines per 32 FMAs (32 of A, 1 of B), so
    L1 sees 4096³ × 33/32 lines; at 1 line per SM per cycle × 84 SMs × 1.8e9 Hz that takes 0.469 s,
    and 2 × 4096³ FLOP / 0.469 s ≈ 293 GFLOP/s; between 1.41 and 1.935 GHz, 230–315 GFLOP/s:

    >>> from kernellab import Counts
    >>> from kernellab.specs import PERF_A6000
    >>> n = 4096
    >>> naive = Counts(fma=n**3, warp_instr=n**3 // 32 * 3, gld_instr=n**3 // 16, gld_lines=n**3 // 32 * 33)
    >>> p = predict(naive, n, PERF_A6000)
    >>> p["bound"], f"{p['t_l1']:.3f} s", round(p["gflops"]), [round(g) for g in p["gflops_band"]]
    ('L1', '0.469 s', 293, [230, 315])

    A histogram of 10⁶ atomics into 256 bins of random values (``tl.atomic_add(h + v, 1)``,
    1024 values a program): its busiest bin gets 4069 updates, which the L2 serialises, 4069 ÷ 1.98 GHz =
    2.06 µs on the H100; L1 sees 31 250 load lines and 246 533 atomic lines (each warp's 32 bins fall in
    about 8 of the 8 lines of the bins), 277 783 ÷ (132 SMs × 1.98 GHz) = 1.06 µs; DRAM 4 001 024 B ÷
    3.35 TB/s = 1.19 µs. The atomics bind, and the run is shorter than what ``do_bench`` reads per launch
    (4.28 µs on Hopper, :mod:`kernellab.model.timer`), which warns; ``total_time`` = 2.06 + 4.28 µs:

    >>> import warnings
    >>> from kernellab.specs import PERF_H100
    >>> hist = Counts(gld_instr=31250, gld_lines=31250, dram_sectors={"x": 125_000, "bins": 32},
    ...               atomic_requests=31250, atomic_lines=246_533, atomic_same_address=4069)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     p = predict(hist, PERF_H100)
    >>> p["bound"], f"{p['t_atomic'] * 1e6:.2f} µs", f"{p['t_l1'] * 1e6:.2f} µs", f"{p['total_time'] * 1e6:.2f} µs"
    ('atomic', '2.06 µs', '1.06 µs', '6.34 µs')
    >>> [type(w.message).__name__ for w in caught]
    ['ModelWarning']
    """
    if timer not in TIMERS:
        raise ValueError(_("unknown timer {timer!r}; expected one of {timers}").format(timer=timer, timers=TIMERS))
    if args and isinstance(args[0], (list, tuple)) and args[0] and all(_is_counts(c) for c in args[0]):
        return _pipeline(args[0], args[1:], kwargs, shape, launches, timer, target)
    if not isinstance(launches, Integral) or launches < 1:
        raise ValueError(_("launches must be a positive int, got {launches!r}").format(launches=launches))
    p = _predict_one(args, kwargs, shape, launches, timer, True, target)
    _warn(p, launches)
    return p


def _pipeline(counts_list, rest, kwargs, shape, launches, timer, target=None) -> dict:
    """``predict`` of several launches in a row, one result each, and their sums."""
    if shape is not None or launches != 1:
        raise TypeError(_("predict of a list of counts takes no shape or launches: each item is one launch"))
    parts = [_predict_one((c, *rest), dict(kwargs), None, 1, timer, i == 0, target)
             for i, c in enumerate(counts_list)]
    for p in parts:
        _warn(p, 1)
    longest = max(parts, key=lambda p: p["time"])
    time = sum(p["time"] for p in parts)
    flops = sum(p["flops"] for p in parts)
    t_launch = sum(p["t_launch"] for p in parts)
    est = sum(p["estimate_time"] for p in parts)
    return {"name": None, "launches": parts, "time": time, "bound": longest["bound"], "flops": flops,
            "gflops": flops / time / 1e9, "t_launch": t_launch, "total_time": time + t_launch,
            "estimate_time": est, "estimate_total_time": est + t_launch}


def _warn(p: dict, launches: int) -> None:
    """Warn when the launch overhead exceeds the predicted run, or when an uncharged cost would bind."""
    per_launch = p["t_launch"] / launches
    if p["time"] < per_launch:
        warnings.warn(_("the predicted time {time:.2f} µs{name} is below the launch overhead of "
                        "{launch:.1f} µs: a measurement sees mostly the launch; read 'total_time' "
                        "({total:.2f} µs)").format(
            time=p["time"] * 1e6, launch=per_launch * 1e6, total=p["total_time"] * 1e6,
            name=f" ({p['name']})" if p.get("name") else ""), ModelWarning, stacklevel=3)
    if p.get("outside"):
        warnings.warn(p["outside"], ModelWarning, stacklevel=3)
    if p["time"] < p.get("t_round_trip", 0.0):
        warnings.warn(_("the predicted time {time:.3f} µs{name} is shorter than one global-memory round "
                        "trip ({lat:.3f} µs), which the bound leaves out: latency, not {bound}, sets this "
                        "kernel's time").format(
            time=p["time"] * 1e6, lat=p["t_round_trip"] * 1e6, bound=resource_label(p["bound"]),
            name=f" ({p['name']})" if p.get("name") else ""), ModelWarning, stacklevel=3)


def _distribution(counts, gpu: GPU, shape: LoopShape | None, mnk) -> Distribution:
    """The launch's spread over the SMs: from a ``LoopShape`` and the GEMM size, else from ``counts.launch``."""
    if shape is None or mnk is None:
        return launch_of(counts, gpu)
    programs = cdiv(mnk[0], shape.tile[0]) * cdiv(mnk[1], shape.tile[1])
    return distribute(gpu, programs, shape.threads, shape.regs, shape.smem, "launch")


TARGETS = ("sm_80", "sm_90")  # the architectures the counts are read for (``predict``'s ``target``)


def compiled_for(gpu, target: str | None = None) -> str:
    """The architecture a launch's counts are read for on ``gpu``: ``target`` (``predict``'s), or by default the
    GPU's own, ``"sm_90"`` on Hopper and ``"sm_80"`` on the A100 and the A6000 (sm_86 runs sm_80's instructions).

    >>> from kernellab import A100, H100
    >>> compiled_for(H100), compiled_for(H100, "sm_80"), compiled_for(A100)
    ('sm_90', 'sm_80', 'sm_80')
    """
    own = gpu.arch if gpu.arch == "sm_90" else "sm_80"
    if target is None:
        return own
    if target not in TARGETS:
        raise ValueError(_("unknown target {target!r}; expected one of {targets}").format(target=target,
                                                                                         targets=TARGETS))
    if TARGETS.index(target) > TARGETS.index(own):
        raise ValueError(_("a kernel compiled for {target} cannot run on the {gpu} ({arch})").format(
            target=target, gpu=gpu.name, arch=gpu.arch))
    return target


def _predict_one(args, kwargs, shape, launches, timer="do_bench", first=True, target=None) -> dict:
    spec, counts, n, perf, gpu = _parse(args, kwargs)
    if gpu is not None and gpu != perf.gpu:
        raise ValueError(_("the rates are for the {rates_gpu}, but the GPU given is the {gpu}").format(
            rates_gpu=perf.gpu.name, gpu=gpu.name))
    gpu = perf.gpu
    if n is None:
        if shape is not None:
            raise TypeError(_("a LoopShape needs the GEMM size: call predict(counts, n, gpu, shape=...)"))
        mnk, flops = None, counts.flops
    else:
        mnk = tuple(int(v) for v in n) if isinstance(n, (tuple, list)) else (int(n),) * 3
        flops = gemm_flops(*mnk)
    target = compiled_for(gpu, target)
    events = resource_events(counts, target)
    kind = tensor_kind(counts, target)
    dist = _distribution(counts, gpu, shape, mnk)
    dram = dram_bytes_waves(shape, mnk, gpu) if shape is not None else events["DRAM"]
    eta = estimate_eta(perf, shape)
    cold = cold_l2(timer)

    # a warm timer finds a footprint that fits in L2 there: DRAM is then no bound (its reads are L2 hits)
    warm = not cold and gpu.l2_bytes and dram <= gpu.l2_bytes

    def at(clock_hz):
        times = sm_times(events, perf, clock_hz, 0 if warm else dram, dist, kind)
        bound, t = _binding(times)
        terms = estimate_terms(counts, events, times, perf, clock_hz, dist, kind, eta, cold, dram)
        if shape is not None:  # the SIMT SGEMMs' K loop: its exposed latency, on top of the pipes (latency.py)
            sm_only = _binding({**times, "t_dram": 0.0, "t_atomic": 0.0})[1]
            t_lat = exposed_latency(shape, mnk, perf, sm_only, times["t_dram"])
            terms["estimate_time"] = max(terms["t_pipes"], times["t_dram"]) + t_lat
            terms["t_latency"] = t_lat
        else:
            terms["t_latency"] = max(0.0, terms["estimate_time"] - terms["t_pipes"])
        return times, bound, t, terms

    times, bound, t, terms = at(gpu.clock_hz)
    if t <= 0:
        raise ValueError(_("the counts charge no resource (all zero): nothing to predict"))
    lo, hi = (at(f) for f in gpu.clock_band)
    t_est = terms["estimate_time"]
    t_launch = call_overhead(perf, timer, launches) if first else launches * later_launch_overhead(perf, timer)
    occ = dist.occupancy
    out = {
        "name": getattr(spec, "name", None), **times, "time": t, "bound": bound, "flops": flops,
        "gflops": flops / t / 1e9,
        "gflops_band": (flops / lo[2] / 1e9, flops / hi[2] / 1e9),
        "eta": eta, "t_latency": terms["t_latency"], "estimate_time": t_est, "estimate_gflops": flops / t_est / 1e9,
        "estimate_band": (flops / lo[3]["estimate_time"] / 1e9, flops / hi[3]["estimate_time"] / 1e9),
        "estimate_bound": terms["estimate_bound"], "dram_bytes": dram,
        "t_l2": terms["t_l2"], "t_l2_queue": terms["t_l2_queue"], "t_dram_sustained": terms["t_dram_est"], "t_round": terms["t_round"],
        "rounds": terms["rounds"], "t_critical": terms["t_critical"], "t_latency_path": terms["t_latency_path"],
        "t_fill": terms["t_fill"], "t_starts": terms["t_starts"], "t_lock": terms["t_lock"], "t_edges": terms["t_edges"],
        "programs": dist.programs, "sms_used": dist.sms_used, "per_sm": dist.per_sm, "resident": dist.resident,
        "waves": dist.waves, "tail": dist.tail, "subpartitions": dist.subpartitions,
        "blocks_per_sm": None if occ is None else occ.blocks_per_sm,
        "limiters": () if occ is None else occ.limiters, "tensor_kind": kind, "target": target,
        "timer": timer, "t_launch": t_launch, "total_time": t + t_launch, "estimate_total_time": t_est + t_launch,
    }
    if shape is None and events["MIO"]:  # a kernel that touches memory waits for it at least once
        out["t_round_trip"] = perf.dram_latency_cycles / gpu.clock_hz or perf.latency_s
    if (getattr(counts, "launch", None) or {}).get("fp8") and not gpu.fp8_tensor_peak:
        out["outside"] = _("fp8 dots on the {gpu}, which has no fp8 Tensor Cores: Triton converts the operands to "
                           "fp16 there, and the model charges them at the FP16 rate, which no measurement of "
                           "this project has checked").format(gpu=gpu.name)
    return out
