"""What a kernellab user would see as a launch's time: the one place the harness asks the model.

* Triton rows: ``triton.testing.do_bench(fn)`` with the row's GPU modelled (``triton.set_gpu``), which
  runs ``fn`` once with sampled launches and returns the model's predicted milliseconds (each launch's
  estimate plus its launch overhead, as ``kernellab.triton.testing`` defines them).
* SIMT rows: ``predict(counts, gpu)``: ``estimate_total_time`` (the run and its launch) for a row timed
  with CUDA events, ``estimate_time`` (the run alone) for a row timed with ``clock64()`` inside the kernel.

The binding term of a row is the term that sets the estimate of its longest launch
(``predict(...)["estimate_bound"]``). Nothing here changes the
model: when the model changes, these functions give its new answers.
"""

from __future__ import annotations

import inspect
import math
import warnings
from dataclasses import dataclass, field

import kernellab.triton as triton
from kernellab.errors import ModelWarning
from kernellab.model import predict

try:  # the launches host code makes, and the model's time of one (kernellab.triton.record before issue 33)
    from kernellab.triton.launches import recording
    from kernellab.triton.timing import launch_seconds
except ImportError:  # the kernellab the "before" column runs (75152b7)
    from kernellab.triton.record import launch_seconds, recording


@dataclass
class Prediction:
    """The model's time for a row's measured quantity, its binding term and the launches behind it."""

    seconds: float
    bound: str
    launches: list = field(default_factory=list)  # one dict a launch: kernel, grid, µs, bound, terms (µs)


def _terms(p: dict) -> dict:
    """The model's time on each term (``t_*`` keys), µs, for the record."""
    return {k: round(v * 1e6, 6) for k, v in p.items() if k.startswith("t_") and isinstance(v, float)}


def _binding(p: dict) -> str:
    """The term that sets the predicted time: ``estimate_bound`` (the estimate's), or, on a kernellab whose
    ``predict`` has none (the "before" run), ``bound`` (its roofline's, which set its estimate too)."""
    return p.get("estimate_bound") or p["bound"]


def _quiet_predict(*args, **kwargs) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        return predict(*args, **kwargs)


def _takes(function, name: str) -> bool:
    """Whether this kernellab's ``function`` takes the argument ``name`` (the "before" run's, 75152b7, may not)."""
    return name in inspect.signature(function).parameters


def triton_bench(fn, gpu, target: str | None = None) -> Prediction:
    """``triton.testing.do_bench(fn)`` on ``gpu``: the seconds it reports, and the launches ``fn`` made. ``target``:
    the architecture the row's kernel was compiled for (``predict``'s, e.g. ``"sm_80"`` for FlashAttention-2 on an
    H100), when it is not the GPU's own: the same launches, priced as ``do_bench`` prices them, for that target. A
    kernellab whose ``predict`` takes no target (the "before" run) prices them for the GPU's own."""
    previous = triton.set_gpu(gpu)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ModelWarning)
            with recording() as made:
                ms = triton.testing.do_bench(fn)
        if not made or math.isnan(ms):
            raise RuntimeError("do_bench saw no kernellab launch")
        parts = []
        later = {"first": False} if _takes(launch_seconds, "first") else {}
        compiled = {"target": target} if target is not None and _takes(launch_seconds, "target") else {}
        for i, launch in enumerate(made):  # the call's later launches follow the first in the stream
            p = _quiet_predict(launch.counts, gpu, **compiled)
            us = launch_seconds(launch.counts, gpu, **({} if i == 0 else later), **compiled) * 1e6
            parts.append({"kernel": launch.kernel, "grid": list(launch.grid),
                          "us": us, "bound": _binding(p), "terms": _terms(p)})
        if compiled:  # do_bench priced them for the GPU's own target: the sum of the parts, as do_bench adds them
            ms = sum(part["us"] for part in parts) * 1e-3
    finally:
        triton.set_gpu(previous)
    longest = max(parts, key=lambda p: p["us"])
    return Prediction(ms * 1e-3, longest["bound"], parts)


def _takes_timer() -> bool:
    """Whether this kernellab's ``predict`` takes ``timer=`` (the model before issue 32, the "before" run, does not)."""
    return "timer" in inspect.signature(predict).parameters


def simt(counts, gpu, *, with_launch: bool = True, n=None, shape=None, name: str = "",
         timer: str = "do_bench") -> Prediction:
    """``predict`` of one SIMT launch's counts on ``gpu`` (``n``, ``shape``: a GEMM's size and loop shape), timed
    as the row's source timed it (``timer``, :mod:`kernellab.model.timer`: ``"do_bench"`` for a cold launch after
    a flush, nvbench's cold runs included; ``"stream"`` for CUDA events around back-to-back launches, whose L2
    holds what the previous launch left)."""
    args = (counts, gpu) if n is None else (counts, n, gpu)
    p = _quiet_predict(*args, shape=shape, **({"timer": timer} if _takes_timer() else {}))
    seconds = p["estimate_total_time" if with_launch else "estimate_time"]
    launch = getattr(counts, "launch", {}) or {}
    return Prediction(seconds, _binding(p), [{"kernel": name, "grid": list(launch.get("grid", ())),
                                             "us": seconds * 1e6, "bound": _binding(p), "terms": _terms(p)}])


def difference(long: Prediction, short: Prediction) -> Prediction:
    """The time ``long`` takes beyond ``short`` (two runs of one loop, of different lengths): what
    ``clock64()`` around the loop measures, with the set-up and the launch taken out."""
    return Prediction(long.seconds - short.seconds, long.bound, long.launches + short.launches)
