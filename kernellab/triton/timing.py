"""What a benchmark's time is here: ``do_bench``, ``do_bench_cudagraph`` and the model's price of a launch
(``triton.testing`` re-exports them, with Triton's signatures).

**What a benchmark measures here.** By default, the GPU time kernellab's performance model predicts,
on the modelled GPU (:mod:`kernellab.triton.runtime.driver`, the H100 unless ``KERNELLAB_GPU`` says otherwise),
for the kernellab launches the benchmarked function makes: ``fn`` is called once inside
:func:`~kernellab.triton.launches.recording`, its launches run as a stratified sample of their programs
(:mod:`kernellab.triton.executor.sampling`: counted, not computed, so never check what a benchmarked call
returns), and ``do_bench`` returns the sum of their predicted times in milliseconds. The prediction is
deterministic, so every quantile is that one number.

A function that launches no kernellab kernel (torch's own ``x + y``, ``torch.matmul``) cannot be
predicted: ``do_bench`` returns :data:`~kernellab.triton.timing.NOT_PREDICTED`, a NaN that stays NaN through arithmetic, and
the benchmark table's cell says so. A function whose code provably reaches no kernellab kernel (its
names, globals and closures lead to none) is not even called, to save CPU time. No CPU time is ever
put in a table of predicted GPU times.

CPU timing (how long the *simulation* takes on this machine) is there on request:
``set_measure("cpu")`` or ``KERNELLAB_BENCH=cpu``. It runs every
program, like any launch outside a benchmark. Each table and plot states which of the two it shows.

Examples
--------
>>> import numpy as np
>>> import kernellab.triton as triton
>>> import kernellab.triton.language as tl
>>> @triton.jit
... def copy(x_ptr, y_ptr, BLOCK: tl.constexpr):
...     offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
...     tl.store(y_ptr + offs, tl.load(x_ptr + offs))
>>> x = np.ones(1 << 16, np.float32); y = np.empty_like(x)
>>> ms = do_bench(lambda: copy[(64,)](x, y, BLOCK=1024))
>>> # 2 × 256 KiB from DRAM at its sustained 0.79 × 3.35 TB/s take 0.20 µs after a 0.35 µs round trip; each
>>> # program's one round trip, loaded by those bytes (0.52 µs, kernellab.model.loaded), its 4 KiB served by the
>>> # SM's share of the L2 (9.9 TB/s ÷ 64 SMs: 0.03 µs, kernellab.model.l2queue) and its work (0.03 µs) take a
>>> # little longer, 0.58 µs; + the 4.28 µs do_bench reads per launch
>>> f"{ms * 1e3:.2f} µs"
'4.86 µs'
>>> do_bench(lambda: x + 1)                     # numpy's own op: no kernellab launch
not predicted
"""

from __future__ import annotations

import dis
import inspect
import math
import os
import sys
import time
import types
from functools import partial

import numpy as np

from kernellab.i18n import _

from ..bench import do_bench as _bench
from ..model import bounds
from . import launches
from .executor import sampling
from .runtime.driver import gpu as modelled_gpu
from .runtime.driver import register_benchmarker
from .runtime.jit import KernelInterface


def launch_seconds(counts, gpu=None, timer: str = "do_bench", first: bool = True, target: str | None = None) -> float:
    """The model's time of a launch on ``gpu`` (default: the driver's modelled GPU) as ``timer`` reads it
    (:mod:`kernellab.model.timer`), in seconds: :func:`kernellab.model.bounds.launch_seconds` (``first=False``: a
    later launch of the same timed call; ``target``: the architecture it was compiled for, ``predict``'s)."""
    return bounds.launch_seconds(counts, modelled_gpu() if gpu is None else gpu, timer, first, target)


def predicted_seconds(recorded, gpu=None, timer: str = "do_bench") -> float:
    """The model's estimate of the recorded launches' total time (:func:`kernellab.triton.launches.recording`)
    as ``timer`` reads it around one call that makes them, seconds: one after another, each on the whole GPU;
    under ``do_bench`` the first pays the cold launch cost and each later one the stream's
    (:func:`kernellab.model.timer.later_launch_overhead`).

    >>> import kernellab.triton as triton
    >>> import kernellab.triton.language as tl
    >>> @triton.jit
    ... def fill(out_ptr, BLOCK: tl.constexpr):
    ...     tl.store(out_ptr + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK), 1.0)
    >>> out = np.zeros(4096, np.float32)
    >>> with launches.recording() as made:
    ...     _ = fill[(4,)](out, BLOCK=1024)
    >>> # the busiest SM's 32 lines (16 ns) and one round trip to memory (688 cycles ÷ 1.98 GHz = 347 ns), + the
    >>> # 4.28 µs do_bench reads per launch (kernellab.model.timer)
    >>> f"{predicted_seconds(made) * 1e6:.4f} µs"
    '4.6436 µs'
    """
    return sum(launch_seconds(launch.counts, gpu, timer, i == 0) for i, launch in enumerate(recorded))


MEASURES = ("predicted", "cpu")
_STATE = {"measure": os.environ.get("KERNELLAB_BENCH", "predicted").strip().lower() or "predicted"}


def set_measure(measure: str) -> str:
    """Choose what ``do_bench`` reports: ``"predicted"`` (the model's GPU time, the default) or ``"cpu"``
    (the CPU time of the simulation). Returns the previous choice."""
    if measure not in MEASURES:
        raise ValueError(_("measure must be 'predicted' or 'cpu', not {measure!r}").format(measure=measure))
    previous, _STATE["measure"] = _STATE["measure"], measure
    return previous


def current_measure() -> str:
    """What ``do_bench`` reports now: ``"predicted"`` or ``"cpu"``."""
    m = _STATE["measure"]
    if m not in MEASURES:
        raise ValueError(_("KERNELLAB_BENCH must be 'predicted' or 'cpu', not {measure!r}").format(measure=m))
    return m


def measure_label(which: str | None = None, timers=("do_bench",)) -> str:
    """What a table's or plot's numbers come from, in the reader's language: for predictions, on which GPU and
    as which of ``timers`` reads them (``"do_bench"``: each launch included, from a cold L2; ``"cudagraph"``:
    a graph's launch included, L2 warm; :mod:`kernellab.model.timer`).

    >>> print(measure_label("predicted"))
    GPU time predicted by kernellab's model on the H100 SXM, launch included, as do_bench reads it from a cold L2 (not measured)
    """
    if (which or current_measure()) == "cpu":
        return _("CPU time of kernellab's simulation on this machine, not GPU time")
    gpu = modelled_gpu().name
    timers = set(timers or ("do_bench",))
    if timers == {"cudagraph"}:
        return _("GPU time predicted by kernellab's model on the {gpu}, a CUDA graph's launch included, as "
                 "do_bench_cudagraph reads it from a warm L2 (not measured)").format(gpu=gpu)
    if timers == {"do_bench"}:
        return _("GPU time predicted by kernellab's model on the {gpu}, launch included, as do_bench reads it "
                 "from a cold L2 (not measured)").format(gpu=gpu)
    return _("GPU time predicted by kernellab's model on the {gpu}, launch included, as do_bench or "
             "do_bench_cudagraph reads it (not measured)").format(gpu=gpu)


def timers_used() -> list:
    """The timers (``"do_bench"``, ``"cudagraph"``) the predictions since :func:`forget_timers` stood for."""
    return sorted(_STATE.setdefault("timers", set()))


def forget_timers() -> None:
    """Start a new list of the timers predictions stand for (``perf_report`` does, before each sweep)."""
    _STATE["timers"] = set()


class NotPredicted(float):
    """The result of benchmarking code that launches no kernellab kernel: a NaN that says why.

    Arithmetic keeps it (``gbps(ms)`` of it is itself), so a benchmark's cell shows it, never a number.

    >>> v = NOT_PREDICTED * 1e-3; w = 2.0 / v; (w, math.isnan(w), str(w))
    (not predicted, True, 'not predicted')
    """

    def __new__(cls):
        return super().__new__(cls, math.nan)

    def __repr__(self):
        return "not predicted"

    __str__ = __repr__

    def __format__(self, spec):
        return str(self)

    def _same(self, *args):
        return self

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _same
    __floordiv__ = __rfloordiv__ = __pow__ = __rpow__ = __neg__ = __pos__ = __abs__ = _same


#: What ``do_bench`` returns for a function that launches no kernellab kernel.
NOT_PREDICTED = NotPredicted()


#: Top-level packages whose modules never launch a kernellab kernel: Python's standard library and the
#: numerical libraries a benchmark compares against. Any other module may hold kernels.
_NO_KERNELLAB = frozenset(sys.stdlib_module_names) | {"numpy", "torch", "scipy", "matplotlib", "pandas"}


def _may_launch(obj, seen: set, depth: int = 0) -> bool:
    """Whether calling ``obj`` could make a kernellab launch, as far as its code shows; True when unsure."""
    if isinstance(obj, KernelInterface):  # a @triton.jit kernel, an autotuner, a library's own wrapper of one
        return True
    if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes, np.ndarray, np.generic, type(...))):
        return False
    if isinstance(obj, types.ModuleType):  # an attribute of it may be a kernel: only libraries prove nothing is
        return obj.__name__.split(".")[0] not in _NO_KERNELLAB  # launched (a user's module of kernels may launch)
    if isinstance(obj, (list, tuple, set, frozenset)):
        return any(_may_launch(v, seen, depth + 1) for v in obj)
    if type(obj).__module__.startswith("torch") and hasattr(obj, "grad_fn") and obj.grad_fn is None:
        return False  # a tensor outside autograd: its methods are torch's own
    if isinstance(obj, types.BuiltinFunctionType) or type(obj).__module__.startswith("torch._C"):
        return False  # numpy, torch and Python builtins
    if isinstance(obj, partial):
        return _may_launch(obj.func, seen, depth) or _may_launch(obj.args, seen, depth)
    fn = getattr(obj, "__func__", obj)
    code = getattr(fn, "__code__", None)
    if code is None or depth > 20:
        return True  # some other object: unsure
    if id(code) in seen:
        return False
    seen.add(id(code))
    scope = getattr(fn, "__globals__", {})
    for name in _global_names(code):
        if name in scope and _may_launch(scope[name], seen, depth + 1):
            return True
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        if _may_launch(value, seen, depth + 1):
            return True
    return getattr(obj, "__self__", None) is not None and _may_launch(obj.__self__, seen, depth + 1)


def _global_names(code) -> set:
    """The global names ``code`` (and the code nested in it) loads: not the attribute names (``torch.matmul``
    loads ``torch``, and looks up ``matmul`` on it)."""
    names, stack = set(), [code]
    while stack:
        c = stack.pop()
        names.update(i.argval for i in dis.get_instructions(c) if i.opname in ("LOAD_GLOBAL", "LOAD_NAME"))
        stack.extend(k for k in c.co_consts if inspect.iscode(k))
    return names


def _clear_grads(grad_to_none):
    for x in grad_to_none or ():
        x.grad = None


def _summary(samples_ms, quantiles, return_mode):
    if return_mode not in ("min", "max", "mean", "median", "all"):
        raise ValueError(_("return_mode must be min, max, mean, median or all, not "
                           "{return_mode!r}").format(return_mode=return_mode))
    samples = np.asarray(samples_ms, float)
    if quantiles is not None:
        return [float(v) for v in np.quantile(samples, list(quantiles))]
    if return_mode == "all":
        return samples.tolist()
    return float(getattr(np, return_mode)(samples))


def predict_ms(fn, grad_to_none=None, timer: str = "do_bench") -> float:
    """The model's GPU time, ms, of the kernellab launches ``fn()`` makes (sampled), as ``timer`` reads it
    (:mod:`kernellab.model.timer`); :data:`~kernellab.triton.timing.NOT_PREDICTED` when it makes none."""
    if not _may_launch(fn, set()):
        return NOT_PREDICTED
    _STATE.setdefault("timers", set()).add(timer)
    _clear_grads(grad_to_none)
    with sampling.sampled(), launches.recording() as made:
        fn()
    if not made:
        return NOT_PREDICTED
    return predicted_seconds(made, timer=timer) * 1e3


def _cpu_ms(fn, warmup, rep, grad_to_none):
    with sampling.full():
        start = time.perf_counter()
        fn()
        estimate_ms = max((time.perf_counter() - start) * 1e3, 1e-6)
        n_warmup = max(1, int(warmup / estimate_ms)) if warmup > 0 else 0
        n_rep = max(1, int(rep / estimate_ms))

        def call():
            _clear_grads(grad_to_none)
            return fn()

        return np.asarray(_bench(call, warmup=n_warmup, repeat=n_rep).samples) * 1e3


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Milliseconds per call of ``fn()``: the model's predicted GPU time (default), or CPU time on request.

    Predicted, as Triton's ``do_bench`` measures (:mod:`kernellab.model.timer`, ``"do_bench"``): before each
    timed call Triton zeroes a 256 MB buffer, so every launch starts with a cold L2 and pays the GPU's cost
    of a launch after other work (``Perf.launch_cold_s``); the host's launch is hidden behind the zeroing.
    ``fn`` runs once and the result is deterministic (every quantile equal); ``warmup`` and ``rep`` are
    unused. CPU (:func:`set_measure` ``("cpu")`` or ``KERNELLAB_BENCH=cpu``): warm up for about ``warmup`` ms,
    then time calls for about ``rep`` ms. ``return_mode`` is ``"min"``, ``"max"``, ``"mean"``, ``"median"``
    or ``"all"``; with ``quantiles`` the quantiles are returned instead, as Triton's. ``grad_to_none``:
    tensors whose ``.grad`` is cleared before each call.

    >>> previous = set_measure("cpu")
    >>> len(do_bench(lambda: None, warmup=0, rep=1, quantiles=[0.2, 0.5, 0.8]))
    3
    >>> _ = set_measure(previous)
    """
    return _bench_predicted(fn, warmup, rep, grad_to_none, quantiles, return_mode, "do_bench")


def _bench_predicted(fn, warmup, rep, grad_to_none, quantiles, return_mode, timer: str):
    if current_measure() == "cpu":
        return _summary(_cpu_ms(fn, warmup, rep, grad_to_none), quantiles, return_mode)
    _summary([0.0], quantiles, return_mode)  # the same argument errors either way
    ms = predict_ms(fn, grad_to_none, timer)
    if quantiles is not None:
        return [ms for _q in quantiles]
    return [ms] if return_mode == "all" else ms


def do_bench_cudagraph(fn, rep=20, grad_to_none=None, quantiles=None, return_mode="mean"):
    """``do_bench`` for code Triton replays as a CUDA graph (:mod:`kernellab.model.timer`, ``"cudagraph"``):
    the graph's launches run back to back with no L2 flush between them, so a launch whose data fits in L2
    reads it from there, and each pays a graph launch's cost (``Perf.launch_graph_s``), no host cost."""
    return _bench_predicted(fn, 0, rep, grad_to_none, quantiles, return_mode, "cudagraph")


register_benchmarker(do_bench)  # what ``triton.runtime.driver.active.get_benchmarker()`` returns

__all__ = ["MEASURES", "NOT_PREDICTED", "NotPredicted", "current_measure", "do_bench", "do_bench_cudagraph",
           "forget_timers", "launch_seconds", "measure_label", "predict_ms", "predicted_seconds", "set_measure",
           "timers_used"]
