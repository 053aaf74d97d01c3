"""``@triton.autotune``, ``@triton.heuristics`` and ``triton.Config``: Triton 3.9's classes, on the simulator.

``Autotuner``, ``Heuristics`` and ``Config`` take Triton 3.9's constructor signatures and keep its public
attributes (``fn``, ``base_fn``, ``arg_names``, ``configs``, ``keys``, ``cache``, ``nargs``, ``pre_hook``,
``post_hook``, ``user_defined_pre_hook``, ``restore_copies``, ``configs_timings``, ``bench_time``,
``best_config``, …), and ``run``, ``prune_configs``, ``_bench`` and ``warmup`` do what Triton's do, in its
order: a library's subclass written against Triton's (``super().__init__(fn, arg_names, configs, key, …)``,
overriding ``run`` and calling ``self._bench``) works unchanged.

What differs is the clock. The autotuner chooses the config the performance model predicts fastest on the
modelled GPU (:mod:`kernellab.triton.runtime.driver`, the H100 unless ``KERNELLAB_GPU`` says otherwise):
``_bench`` runs a config once, as a sampled launch (:mod:`kernellab.triton.executor.sampling`: counted, not
computed) on the arguments themselves, as Triton's trials run. As Triton's, a trial keeps no copy of what it
changes: only ``restore_value`` and ``reset_to_zero`` (or the caller's hooks) put arrays back, so a kernel
that reads what it writes needs them here as on a GPU; each trial runs once here, where Triton's
``do_bench`` runs it as often as fits its time budget. It is hidden from
``triton.testing.do_bench`` and proton (they see the tuned launch), and returns
``kernellab.model.predict(counts, gpu)["estimate_total_time"]`` in ms as Triton's ``[median, p20, p80]``
(one deterministic number three times). A ``do_bench=`` given to ``autotune`` is called as Triton calls it,
on the same hidden trial. Configs predicted equally fast (to a part in 10⁹: two configs bound by the same
latency path or the same bytes) go to the one that fills more of the GPU (more SMs used: the model's time does
not see the L2 traffic and power a fuller GPU spreads, so it is the safer choice on the real one), then to the
one listed first. A config whose trial fails ``tl.static_assert`` (or needs more than the GPU
has, ``OutOfResources``) is skipped, as Triton skips a config that does not compile. Choices are cached
per value of ``key`` (and the dtypes of the array arguments).

After tuning, ``kernel.best_config`` is the choice, ``kernel.configs_timings`` maps each config to its
timings, ``kernel.trials`` to its counts, ``kernel.predictions`` to what the table reads of its ``predict`` result, and
``kernel.config_table()`` is the table of them;
``TRITON_PRINT_AUTOTUNING=1`` prints it after each tuning.
"""

from __future__ import annotations

import inspect
import os
import time
import warnings
from functools import cached_property

import numpy as np

from kernellab.i18n import _

from .. import launches
from ..compiler.errors import CompileTimeAssertionFailure
from ..executor import sampling
from . import driver
from .errors import AutotunerError, OutOfResources, PTXASError
from .jit import KernelInterface
from .tuning import config_table, fastest, predicted_ms, prediction


class Config:
    """One autotuning choice: meta-parameters (``kwargs``) and launch options, as ``triton.Config``.

    Examples
    --------
    >>> Config({"BLOCK": 128}, num_warps=4)
    Config(BLOCK: 128, num_warps: 4, num_ctas: 1, num_stages: 3, maxnreg: None, ir_override: None)
    >>> Config({"BLOCK": 128}) == Config({"BLOCK": 128}), Config({"BLOCK": 128}).all_kwargs()
    (True, {'BLOCK': 128, 'num_warps': 4, 'num_ctas': 1, 'num_stages': 3})
    """

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None, pre_hook=None,
                 ir_override=None):
        self.kwargs = kwargs
        self.num_warps = num_warps
        self.num_ctas = num_ctas
        self.num_stages = num_stages
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook
        self.ir_override = ir_override

    def __setstate__(self, state):
        self.kwargs = state.get("kwargs", {})
        self.num_warps = state.get("num_warps", 4)
        self.num_stages = state.get("num_stages", 3)
        self.num_ctas = state.get("num_ctas", 1)
        self.maxnreg = state.get("maxnreg", None)
        self.pre_hook = state.get("pre_hook", None)
        self.ir_override = state.get("ir_override", None)

    def all_kwargs(self) -> dict:
        """The meta-parameters and the launch options that are set."""
        options = (("num_warps", self.num_warps), ("num_ctas", self.num_ctas), ("num_stages", self.num_stages),
                   ("maxnreg", self.maxnreg), ("ir_override", self.ir_override))
        return {**self.kwargs, **{k: v for k, v in options if v is not None}}

    def __str__(self) -> str:
        res = [f"{k}: {v}" for k, v in self.kwargs.items()]
        res += [f"num_warps: {self.num_warps}", f"num_ctas: {self.num_ctas}", f"num_stages: {self.num_stages}",
                f"maxnreg: {self.maxnreg}", f"ir_override: {self.ir_override}"]
        return ", ".join(res)

    def __repr__(self) -> str:
        return f"Config({self})"

    def __hash__(self):
        return hash((*self.all_kwargs().items(), self.pre_hook))

    def __eq__(self, other):
        if not isinstance(other, Config):
            return NotImplemented
        return (*self.all_kwargs().items(), self.pre_hook) == (*other.all_kwargs().items(), other.pre_hook)


def _zero(v) -> None:
    v[...] = 0  # numpy arrays and torch tensors alike (Triton: tensor.zero_())


def _copy(v):
    return v.clone() if hasattr(v, "clone") else np.array(v, copy=True)


class Autotuner(KernelInterface):
    """A kernel decorated with ``@triton.autotune`` (see the module): Triton 3.9's constructor and attributes."""

    def __init__(self, fn, arg_names, configs, key, reset_to_zero, restore_value, pre_hook=None, post_hook=None,
                 prune_configs_by=None, warmup=None, rep=None, use_cuda_graph=False, do_bench=None,
                 cache_results=False):
        self.configs = configs if configs else [Config({}, num_warps=4, num_stages=3, num_ctas=1)]
        self.keys = key
        self.cache: dict = {}
        self.arg_names = arg_names
        self.cache_results = cache_results  # Triton's disk cache of timings: predictions need none
        self.reset_to_zero = list(reset_to_zero) if reset_to_zero is not None else []
        self.restore_value = list(restore_value) if restore_value is not None else []
        for param, names in (("key", self.keys), ("reset_to_zero", self.reset_to_zero),
                             ("restore_value", self.restore_value)):
            unknown = [name for name in names if name not in self.arg_names]
            if unknown:
                raise ValueError(_("{param} contains names that are not kernel arguments: {unknown}. Valid argument "
                                   "names are: {valid}.").format(param=param, unknown=", ".join(unknown),
                                                                  valid=", ".join(self.arg_names)))
        self.restore_copies: dict = {}
        self.pre_hook = lambda kwargs, reset_only=False: 0
        self.post_hook = lambda kwargs, exception: 0
        self.user_defined_pre_hook = self.user_defined_post_hook = False
        if pre_hook:
            self.pre_hook, self.user_defined_pre_hook = pre_hook, True
        elif self.reset_to_zero or self.restore_value:
            def _pre_hook(kwargs, reset_only=False):
                for name in self.reset_to_zero:
                    if kwargs[name] is not None:
                        _zero(kwargs[name])
                if not reset_only:
                    self.restore_copies = {n: _copy(kwargs[n]) for n in self.restore_value if kwargs[n] is not None}

            self.pre_hook = _pre_hook
        if post_hook:
            self.post_hook, self.user_defined_post_hook = post_hook, True
        elif self.restore_value:
            def _post_hook(kwargs, exception):
                for name, value in self.restore_copies.items():
                    kwargs[name][...] = value
                self.restore_copies = {}

            self.post_hook = _post_hook
        self.perf_model, self.configs_top_k, self.early_config_prune = None, 1.0, None
        if prune_configs_by:
            self.perf_model = prune_configs_by.get("perf_model", self.perf_model)
            self.configs_top_k = prune_configs_by.get("top_k", self.configs_top_k)
            self.early_config_prune = prune_configs_by.get("early_config_prune", self.early_config_prune)
        self.fn = fn
        self.base_fn = fn
        while not inspect.isfunction(self.base_fn):
            self.base_fn = self.base_fn.fn
        self._do_bench = do_bench
        self.num_warmups, self.num_reps, self.use_cuda_graph = warmup, rep, use_cuda_graph
        if warmup is not None or rep is not None or use_cuda_graph:
            warnings.warn("warmup, rep, and use_cuda_graph parameters are deprecated. See "
                          "https://github.com/triton-lang/triton/pull/4496 for details.", DeprecationWarning,
                          stacklevel=3)
        # kernellab's: what the last tuning measured, and names for messages and tables
        self.nargs = None
        self.best_config = None
        self.configs_timings: dict = {}
        self.trials: dict = {}
        self.predictions: dict = {}
        self.bench_time = 0.0
        self.__name__ = getattr(fn, "__name__", "kernel")
        self.__doc__ = getattr(fn, "__doc__", None)

    @property
    def signature(self):
        return self.fn.signature

    @cached_property
    def do_bench(self):
        """The benchmarker ``_bench`` hands a trial to: ``do_bench=`` if given, else the driver's (kernellab's
        ``triton.testing.do_bench``, the model's predicted time)."""
        if self._do_bench is None:
            return driver.active.get_benchmarker()
        return self._do_bench

    def _bench(self, *args, config, **meta):
        """``[median, p20, p80]`` ms of one config (one prediction, three times); inf when it cannot run."""
        conflicts = meta.keys() & config.kwargs.keys()
        if conflicts:
            raise ValueError(_("Conflicting meta-parameters: {names}. Make sure that you don't re-define auto-tuned "
                               "symbols.").format(names=", ".join(sorted(conflicts))))
        current = dict(meta, **config.all_kwargs())
        full_nargs = {**self.nargs, **current}

        def kernel_call():
            if config.pre_hook:
                config.pre_hook(full_nargs)
            self.pre_hook(full_nargs)
            try:
                self.fn.run(*args, **current)
            except Exception as e:
                try:
                    self.post_hook(full_nargs, exception=e)
                finally:
                    raise  # Triton's order: the hook, then the launch's own error
            self.post_hook(full_nargs, exception=None)

        try:
            made, timings = self._trial(kernel_call)
        except (OutOfResources, CompileTimeAssertionFailure, PTXASError):
            return [float("inf")] * 3
        if made:
            self.trials[config] = made[-1].counts
            self.predictions[config] = prediction(made[-1].counts)
        return timings

    def _trial(self, kernel_call):
        """Run ``kernel_call`` as a sampled trial (the whole launch when a sample cannot run alone) hidden from
        the caller's recorders; its launches and ``[ms] * 3``.

        As in Triton, a trial runs on the arguments themselves and keeps no copy of them: only the hooks
        (``restore_value``, ``reset_to_zero`` or the caller's own) put anything back. Its sampled launches
        fill nothing with NaN, so what no sampled program stores keeps its value.
        """
        try:
            with sampling.sampled(fill=False), launches.hidden(), launches.recording() as made:
                timings = self._timed(kernel_call, made)
        except (CompileTimeAssertionFailure, OutOfResources):
            raise
        except Exception:  # a sample that cannot run alone (programs waiting on others): the whole launch
            with sampling.full(), launches.hidden(), launches.recording() as made:
                timings = self._timed(kernel_call, made)
        return made, timings

    def _timed(self, kernel_call, made) -> list:
        if self._do_bench is not None:  # the caller's benchmarker, as Triton calls it
            return list(self._do_bench(kernel_call, quantiles=(0.5, 0.2, 0.8)))
        kernel_call()
        return [predicted_ms(made)] * 3

    def run(self, *args, **kwargs):
        self.nargs = dict(zip(self.arg_names, args))
        used_cached_result = True
        key = None
        if len(self.configs) > 1:
            all_args = {**self.nargs, **kwargs}
            _args = {k: v for k, v in all_args.items() if k in self.arg_names}
            key = [_key_value(_args[k]) for k in self.keys if k in _args]
            key += [str(arg.dtype) for arg in _args.values() if hasattr(arg, "dtype")]
            key = tuple(key)
            if key not in self.cache:
                used_cached_result = False
                pruned_configs = self.prune_configs(kwargs)
                if len(pruned_configs) == 1:
                    self.cache[key] = pruned_configs[0]
                    used_cached_result = True
                else:
                    bench_start = time.time()
                    self.trials, self.predictions = {}, {}
                    timings = {config: self._bench(*args, config=config, **kwargs) for config in pruned_configs}
                    self.bench_time = time.time() - bench_start
                    self.cache[key] = fastest(self, pruned_configs, timings)
                    full_nargs = {**self.nargs, **kwargs, **self.cache[key].all_kwargs()}
                    self.pre_hook(full_nargs, reset_only=True)
                    self.configs_timings = timings
            config = self.cache[key]
        else:
            config = self.configs[0]
        self.best_config = config
        if os.environ.get("TRITON_PRINT_AUTOTUNING", "0").lower() in ("1", "true", "on", "yes") \
                and not used_cached_result:
            print(_("Triton autotuning for function {name},\nwith key as {key},\nfinished after {s:.2f}s,\n"
                    "best config selected: {best};").format(name=self.base_fn.__name__, key=key, s=self.bench_time,
                                                            best=self.best_config))
            print(self.config_table().to_text())
        if config.pre_hook is not None:
            config.pre_hook({**self.nargs, **kwargs, **config.all_kwargs()})
        ret = self.fn.run(*args, **kwargs, **config.all_kwargs())
        self.nargs = None
        return ret

    def prune_configs(self, kwargs: dict) -> list:
        """``early_config_prune``, then the ``top_k`` configs ``perf_model`` ranks best, as Triton."""
        pruned_configs = self.configs
        if self.early_config_prune:
            pruned_configs = self.early_config_prune(self.configs, self.nargs, **kwargs)
            if not pruned_configs:
                raise AutotunerError("No valid autotuner configs after pruning. `early_config_prune` should return "
                                     "at least one config.")
        if self.perf_model:
            top_k = self.configs_top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = max(1, int(len(pruned_configs) * top_k))
            elif not isinstance(top_k, int):
                raise TypeError("Error while pruning configs, top_k must be either 1) a float <= 1.0 or 2) an int")
            if len(pruned_configs) > top_k:
                est_timing = {config: self.perf_model(**self.nargs, **kwargs, **config.all_kwargs())
                              for config in pruned_configs}
                pruned_configs = sorted(est_timing.keys(), key=lambda x: est_timing[x])[:top_k]
        return pruned_configs

    def warmup(self, *args, **kwargs):
        self.nargs = dict(zip(self.arg_names, args))
        ret = [self.fn.warmup(*args, **kwargs, **config.all_kwargs()) for config in self.prune_configs(kwargs)]
        self.nargs = None
        return ret

    def config_table(self):
        """The last tuning's configs, fastest first (:func:`kernellab.triton.runtime.tuning.config_table`)."""
        return config_table(self)


def _key_value(v):
    """A key argument as the cache's key: an array by its dtype and shape (numpy arrays do not hash)."""
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
    config                              predicted time on the H100 SXM, launch included (µs)  bound by  SMs used  FLOPs  DRAM bytes
    ----------------------------------  ----------------------------------------------------  --------  --------  -----  ----------
    → B=32, num_warps=4, num_stages=3                                                  4.628  latency          4      0         416
      B=128, num_warps=4, num_stages=3                                                 4.631  latency          1      0         416
    """

    def decorator(fn):
        if not isinstance(fn, KernelInterface):
            raise TypeError(_("@triton.autotune must decorate a @triton.jit kernel (put it above "
                              "@triton.jit)"))
        return Autotuner(fn, fn.arg_names, configs, key, reset_to_zero, restore_value, pre_hook=pre_hook,
                         post_hook=post_hook, prune_configs_by=prune_configs_by, warmup=warmup, rep=rep,
                         use_cuda_graph=use_cuda_graph, do_bench=do_bench, cache_results=cache_results)

    return decorator


class Heuristics(KernelInterface):
    """A kernel decorated with ``@triton.heuristics``: meta-parameters computed from the arguments (Triton 3.9's
    constructor, ``Heuristics(fn, arg_names, values)``)."""

    def __init__(self, fn, arg_names, values) -> None:
        self.fn = fn
        self.values = values
        self.arg_names = arg_names
        self.__name__ = getattr(fn, "__name__", "kernel")
        self.__doc__ = getattr(fn, "__doc__", None)

    @property
    def signature(self):
        return self.fn.signature

    def run(self, *args, **kwargs):
        for v, heur in self.values.items():
            kwargs[v] = heur({**dict(zip(self.arg_names, args)), **kwargs})
        return self.fn.run(*args, **kwargs)


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
        if not isinstance(fn, KernelInterface):
            raise TypeError(_("@triton.heuristics must decorate a @triton.jit kernel"))
        return Heuristics(fn, fn.arg_names, values)

    return decorator


__all__ = ["Autotuner", "Config", "Heuristics", "autotune", "heuristics"]
