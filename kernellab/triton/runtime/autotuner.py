"""``@triton.autotune``, ``@triton.heuristics`` and ``triton.Config`` for mini-Triton kernels.

The autotuner chooses the config the performance model predicts fastest on the modelled GPU
(:mod:`kernellab.triton.runtime.driver`, the H100 unless ``KERNELLAB_GPU`` says otherwise): each config runs
once, as a sampled launch (:mod:`kernellab.triton.executor.sampling`: counted, not computed) on the arguments
themselves, as Triton's trials run; a copy of each array a trial changes is kept and put back after it,
so a trial never changes the real outputs. It is hidden from ``triton.testing.do_bench``
and proton (they see the tuned launch, as Triton's ``do_bench`` times it after its warm-up), and is charged
``kernellab.model.predict(counts, gpu)["estimate_total_time"]`` (the run and its launch, as ``do_bench``
reads it). Configs predicted equally fast (to a part in 10⁹: two configs bound by the same latency path or
the same bytes) go to the one that fills more of the GPU (more SMs used: the model's time does not see the
L2 traffic and power a fuller GPU spreads, so it is the safer choice on the real one), then to the one
listed first. As in
Triton 3.9, ``key``, ``reset_to_zero`` and ``restore_value`` must name kernel arguments (a
``ValueError`` at decoration otherwise); ``prune_configs_by`` (``early_config_prune``, ``perf_model``,
``top_k``), ``reset_to_zero``, ``restore_value``, ``pre_hook``, ``post_hook`` and ``Config.pre_hook``
are called as Triton calls them, around each trial and before the chosen launch. A config whose trial
fails ``tl.static_assert`` (or needs more than the GPU has, ``OutOfResources``) is skipped, as Triton
skips a config that does not compile. Choices are cached
per value of ``key`` (and the dtypes of the array arguments).

After tuning, ``kernel.best_config`` is the choice, ``kernel.configs_timings`` maps each config to its
predicted ``[median, p20, p80]`` milliseconds (one deterministic number three times, as Triton's
quantiles), ``kernel.trials`` to its counts, ``kernel.predictions`` to its ``predict`` result, and
``kernel.config_table()`` is the table of them;
``TRITON_PRINT_AUTOTUNING=1`` prints it after each tuning.
"""

from __future__ import annotations

import os
import time
import warnings

import numpy as np

from kernellab.i18n import _

from ...errors import ModelWarning
from ...tables import Table
from .. import record
from ..executor import sampling
from ..language.core import CompileTimeAssertionFailure
from .driver import gpu as modelled_gpu
from .jit import JITFunction, OutOfResources


class Config:
    """One autotuning choice: meta-parameters (``kwargs``) and launch options, as ``triton.Config``.

    Examples
    --------
    >>> Config({"BLOCK": 128}, num_warps=4)
    Config(BLOCK: 128, num_warps: 4, num_ctas: 1, num_stages: 3, maxnreg: None)
    """

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None, pre_hook=None,
                 ir_override=None):
        self.kwargs = dict(kwargs)
        self.num_warps, self.num_stages, self.num_ctas, self.maxnreg = num_warps, num_stages, num_ctas, maxnreg
        self.pre_hook = pre_hook

    def all_kwargs(self) -> dict:
        """The meta-parameters and launch options together."""
        opts = {"num_warps": self.num_warps, "num_stages": self.num_stages, "num_ctas": self.num_ctas}
        if self.maxnreg is not None:
            opts["maxnreg"] = self.maxnreg
        return {**self.kwargs, **opts}

    def __repr__(self) -> str:
        parts = [f"{k}: {v}" for k, v in self.kwargs.items()]
        parts += [f"num_warps: {self.num_warps}", f"num_ctas: {self.num_ctas}", f"num_stages: {self.num_stages}",
                  f"maxnreg: {self.maxnreg}"]
        return "Config(" + ", ".join(parts) + ")"


def _copy(v):
    if isinstance(v, np.ndarray):
        return v.copy()
    if type(v).__module__.startswith("torch") and hasattr(v, "clone"):
        return v.clone()
    return v


class _Wrapped:
    """A kernel wrapped by a decorator: ``kernel[grid](...)`` calls :meth:`run`."""

    def __init__(self, fn):
        self.fn = fn
        self.__name__ = getattr(fn, "__name__", "kernel")
        self.__doc__ = getattr(fn, "__doc__", None)
        self.arg_names = fn.arg_names

    @property
    def signature(self):
        return self.fn.signature

    def __getitem__(self, grid):
        def launcher(*args, **kwargs):
            return self.run(*args, grid=grid, **kwargs)

        return launcher


class Autotuner(_Wrapped):
    """A kernel decorated with ``@triton.autotune`` (see the module)."""

    def __init__(self, fn, configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None,
                 pre_hook=None, post_hook=None, **unused):
        super().__init__(fn)
        self.configs = list(configs) if configs else [Config({})]
        self.keys = self.key = list(key)
        self.reset_to_zero = list(reset_to_zero or [])
        self.restore_value = list(restore_value or [])
        for param, names in (("key", self.keys), ("reset_to_zero", self.reset_to_zero),
                             ("restore_value", self.restore_value)):
            unknown = [n for n in names if n not in self.arg_names]
            if unknown:
                raise ValueError(_("{param} contains names that are not kernel arguments: {unknown}. Valid argument "
                                   "names are: {valid}.").format(param=param, unknown=", ".join(unknown),
                                                                  valid=", ".join(self.arg_names)))
        prune = prune_configs_by or {}
        self.early_config_prune = prune.get("early_config_prune")
        self.perf_model = prune.get("perf_model")
        self.configs_top_k = prune.get("top_k", 1.0)
        self.user_pre_hook, self.user_post_hook = pre_hook, post_hook
        self.cache: dict = {}
        self.best_config = None
        self.configs_timings: dict = {}
        self.trials: dict = {}
        self.predictions: dict = {}
        self.bench_time = 0.0
        self.nargs = None

    # --- the hooks, as Triton 3.9 calls them -----------------------------------------------------------
    def pre_hook(self, nargs: dict, reset_only: bool = False):
        """The user's ``pre_hook``, else zero the ``reset_to_zero`` arguments (and, unless ``reset_only``,
        keep copies of the ``restore_value`` ones)."""
        if self.user_pre_hook is not None:
            return self.user_pre_hook(nargs, reset_only) if _takes_two(self.user_pre_hook) else self.user_pre_hook(nargs)
        for name in self.reset_to_zero:
            if nargs.get(name) is not None:
                nargs[name][...] = 0
        if not reset_only:
            self._restore = {n: _copy(nargs[n]) for n in self.restore_value if nargs.get(n) is not None}
        return None

    def post_hook(self, nargs: dict, exception=None):
        """The user's ``post_hook``, else put the ``restore_value`` arguments back."""
        if self.user_post_hook is not None:
            return self.user_post_hook(nargs, exception)
        for name, saved in getattr(self, "_restore", {}).items():
            nargs[name][...] = saved
        self._restore = {}
        return None

    def prune_configs(self, kwargs: dict) -> list:
        """``early_config_prune``, then the ``top_k`` configs ``perf_model`` ranks best, as Triton."""
        configs = self.configs
        if self.early_config_prune is not None:
            configs = list(self.early_config_prune(self.configs, self.nargs, **kwargs))
            if not configs:
                raise ValueError(_("No valid autotuner configs after pruning. `early_config_prune` should return at "
                                   "least one config."))
        if self.perf_model is not None:
            top_k = self.configs_top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = max(1, int(len(configs) * top_k))
            elif not isinstance(top_k, int):
                raise TypeError(_("top_k must be either a float <= 1.0 or an int"))
            if len(configs) > top_k:
                est = {c: self.perf_model(**self.nargs, **kwargs, **c.all_kwargs()) for c in configs}
                configs = sorted(configs, key=lambda c: est[c])[:top_k]
        return configs

    def _trial(self, args, kwargs, grid, cfg):
        """One config's sampled launch on copies of the arrays: its counts (hooks around it, as Triton's)."""
        conflicts = kwargs.keys() & cfg.kwargs.keys()
        if conflicts:
            raise ValueError(_("Conflicting meta-parameters: {names}. Make sure that you don't re-define auto-tuned "
                               "symbols.").format(names=", ".join(sorted(conflicts))))
        nargs = {**dict(zip(self.arg_names, args)), **kwargs, **cfg.all_kwargs()}
        if cfg.pre_hook is not None:
            cfg.pre_hook(nargs)
        self.pre_hook(nargs)
        kept: dict = {}  # a copy of each array the trial changes, put back after it (sampling.restore)
        try:
            try:
                with sampling.sampled(keep=kept), record.hidden():  # a trial is not one of the caller's launches
                    cnt = self.fn.run(*args, grid=grid, **kwargs, **cfg.all_kwargs())
            except CompileTimeAssertionFailure:
                raise
            except Exception:  # a sample that cannot run alone (programs waiting on others): the whole launch
                sampling.restore(kept)
                with sampling.full(keep=kept), record.hidden():
                    cnt = self.fn.run(*args, grid=grid, **kwargs, **cfg.all_kwargs())
        except Exception as exc:
            sampling.restore(kept)
            self.post_hook(nargs, exception=exc)
            raise
        sampling.restore(kept)
        self.post_hook(nargs, exception=None)
        return cnt

    def run(self, *args, grid, **kwargs):
        self.nargs = dict(zip(self.arg_names, args))
        named = {**self.nargs, **kwargs}
        key = tuple(_key_value(named.get(k)) for k in self.keys if k in named)
        key += tuple(str(v.dtype) for v in named.values() if _is_array(v))
        if len(self.configs) > 1 and key not in self.cache:
            configs = self.prune_configs(kwargs)
            if len(configs) == 1:
                self.cache[key] = configs[0]
            else:
                start = time.perf_counter()
                self.trials, self.configs_timings, self.predictions = {}, {}, {}
                for cfg in configs:
                    try:
                        cnt = self.trials[cfg] = self._trial(args, kwargs, grid, cfg)
                    except (CompileTimeAssertionFailure, OutOfResources):  # as Triton: the config cannot run
                        self.configs_timings[cfg] = [float("inf")] * 3
                        continue
                    self.predictions[cfg] = _prediction(cnt)
                    self.configs_timings[cfg] = [record.launch_seconds(cnt) * 1e3] * 3
                self.bench_time = time.perf_counter() - start
                runnable = [c for c in configs if c in self.trials]
                if not runnable:  # every config failed: rerun the first to raise its error
                    self._trial(args, kwargs, grid, configs[0])
                self.cache[key] = self._fastest(runnable)
                self.best_config = self.cache[key]
                self.pre_hook({**named, **self.cache[key].all_kwargs()}, reset_only=True)
                if os.environ.get("TRITON_PRINT_AUTOTUNING", "0").lower() in ("1", "true", "on", "yes"):
                    print(_("Triton autotuning for function {name},\nwith key as {key},\nfinished after {s:.2f}s,\n"
                            "best config selected: {best};").format(name=self.__name__, key=key, s=self.bench_time,
                                                                    best=self.cache[key]))
                    print(self.config_table().to_text())
        cfg = self.best_config = self.cache[key] if len(self.configs) > 1 else self.configs[0]
        if cfg.pre_hook is not None:
            cfg.pre_hook({**named, **cfg.all_kwargs()})
        out = self.fn.run(*args, grid=grid, **kwargs, **cfg.all_kwargs())
        self.nargs = None
        return out

    def _fastest(self, runnable: list):
        """The config predicted fastest; among those within a part in 10⁹ of it, the one using the most SMs,
        then the one listed first (see the module)."""
        best = min(self.configs_timings[c][0] for c in runnable)
        tied = [c for c in runnable if self.configs_timings[c][0] <= best * (1 + 1e-9)]
        return min(tied, key=lambda c: (-self.predictions[c]["sms_used"], runnable.index(c)))

    def config_table(self) -> Table:
        """The last tuning's configs, fastest first: predicted time on the modelled GPU, the term that sets
        the estimate (``estimate_bound``: a pipe, DRAM, L2, latency or atomics), the SMs the grid uses, FLOPs
        and DRAM bytes, and which was chosen."""
        gpu = modelled_gpu()
        rows = []
        for cfg, cnt in sorted(self.trials.items(), key=lambda kv: self.configs_timings[kv[0]][0]):
            p = self.predictions.get(cfg) or _prediction(cnt)
            rows.append([("→ " if cfg is self.best_config or cfg == self.best_config else "  ") + _config_text(cfg),
                         f"{self.configs_timings[cfg][0] * 1e3:.4g}", p["term"], p["sms_used"], cnt.flops,
                         cnt.dram_bytes])
        return Table([_("config"), _("predicted time on the {gpu} (µs)").format(gpu=gpu.name), _("bound by"),
                      _("SMs used"), _("FLOPs"), _("DRAM bytes")], rows)


def _prediction(cnt) -> dict:
    """What the table and the tie-break read of a trial's prediction: the term that sets its estimate
    (in the reader's language, ``-`` for counts that charge nothing) and the SMs its grid uses."""
    from ...model.bounds import estimate_label, predict

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        try:
            p = predict(cnt, modelled_gpu())
        except ValueError:  # counts that charge nothing: the launch alone
            return {"term": "-", "sms_used": 0}
    return {"term": estimate_label(p["estimate_bound"]), "sms_used": p["sms_used"]}


def _config_text(cfg) -> str:
    parts = [f"{k}={v}" for k, v in cfg.kwargs.items()]
    return ", ".join(parts + [f"num_warps={cfg.num_warps}", f"num_stages={cfg.num_stages}"])


def _takes_two(fn) -> bool:
    import inspect

    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params) >= 2 or any(
        p.kind is p.VAR_POSITIONAL for p in params)


def _is_array(v) -> bool:
    return isinstance(v, np.ndarray) or (type(v).__module__.startswith("torch") and hasattr(v, "dtype")
                                         and hasattr(v, "shape"))


def _key_value(v):
    if isinstance(v, np.ndarray) or hasattr(v, "dtype") and hasattr(v, "shape"):
        return (str(v.dtype), tuple(v.shape))
    return v


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None, pre_hook=None,
             post_hook=None, warmup=None, rep=None, use_cuda_graph=False, do_bench=None, cache_results=False):
    """Try each of ``configs`` and launch with the one the model predicts fastest (see the module).

    Examples
    --------
    >>> import kernellab.triton as triton
    >>> import kernellab.triton.language as tl
    >>> @triton.autotune(configs=[triton.Config({"B": 32}), triton.Config({"B": 128})], key=["n"])
    ... @triton.jit
    ... def fill(out_ptr, n, B: tl.constexpr):
    ...     offs = tl.program_id(0) * B + tl.arange(0, B)
    ...     tl.store(out_ptr + offs, 1.0, mask=offs < n)
    >>> out = np.zeros(100, np.float32)
    >>> _ = fill[lambda meta: (triton.cdiv(100, meta["B"]),)](out, 100)
    >>> fill.best_config.kwargs, float(out.sum())  # 4 programs on 4 SMs: each stores a quarter
    ({'B': 32}, 100.0)

    Both wait one DRAM round trip (688 cycles ÷ 1.98 GHz = 0.35 µs) and pay ``do_bench``'s 4.28 µs launch; the
    busiest SM of ``B=128`` stores 4 times the bytes of ``B=32``'s, a few nanoseconds more:

    >>> print(fill.config_table().to_text())
    config                              predicted time on the H100 SXM (µs)  bound by  SMs used  FLOPs  DRAM bytes
    ----------------------------------  -----------------------------------  --------  --------  -----  ----------
    → B=32, num_warps=4, num_stages=3                                 4.628  latency          4      0         416
      B=128, num_warps=4, num_stages=3                                4.631  latency          1      0         416
    """

    def decorator(fn):
        if not isinstance(fn, (JITFunction, _Wrapped)):
            raise TypeError(_("@triton.autotune must decorate a @triton.jit kernel (put it above "
                              "@triton.jit)"))
        return Autotuner(fn, configs, key, prune_configs_by, reset_to_zero, restore_value, pre_hook, post_hook)

    return decorator


class Heuristics(_Wrapped):
    """A kernel decorated with ``@triton.heuristics``: meta-parameters computed from the arguments."""

    def __init__(self, fn, values: dict):
        super().__init__(fn)
        self.values = dict(values)

    def run(self, *args, grid, **kwargs):
        named = dict(zip(self.arg_names, args))
        named.update(kwargs)
        for name, rule in self.values.items():
            kwargs[name] = named[name] = rule(named)
        return self.fn.run(*args, grid=grid, **kwargs)


def heuristics(values: dict):
    """Compute meta-parameters from the other arguments: ``@triton.heuristics({"EVEN": lambda a: a["n"] % 64 == 0})``.

    Examples
    --------
    >>> import kernellab.triton as triton
    >>> import kernellab.triton.language as tl
    >>> @triton.heuristics({"B": lambda args: triton.next_power_of_2(args["n"])})
    ... @triton.jit
    ... def fill(out_ptr, n, B: tl.constexpr):
    ...     offs = tl.arange(0, B)
    ...     tl.store(out_ptr + offs, B, mask=offs < n)
    >>> out = np.zeros(5, np.int32); _ = fill[(1,)](out, 5); out.tolist()
    [8, 8, 8, 8, 8]
    """

    def decorator(fn):
        if not isinstance(fn, (JITFunction, _Wrapped)):
            raise TypeError(_("@triton.heuristics must decorate a @triton.jit kernel"))
        return Heuristics(fn, values)

    return decorator


__all__ = ["Autotuner", "Config", "Heuristics", "autotune", "heuristics"]
