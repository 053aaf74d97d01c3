"""``@triton.autotune``, ``@triton.heuristics`` and ``triton.Config`` for mini-Triton kernels.

kernellab has no GPU clock, so the autotuner ranks its configs by what it can count exactly: it runs
each config once on copies of the array arguments (so the trial leaves the real outputs alone, as
``restore_value`` would) and keeps the one that moves the fewest 32-byte sectors, then the one with
the fewest programs, then the first listed. Choices are cached per value of ``key``, as Triton's.
``kernel.best_config`` is the last choice and ``kernel.trials`` maps each config to its counts.
"""

from __future__ import annotations

import numpy as np

from kernellab.i18n import _

from .runtime import JITFunction


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
    """A kernel decorated with ``@triton.autotune``."""

    def __init__(self, fn, configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None,
                 pre_hook=None, post_hook=None, **unused):
        super().__init__(fn)
        if not configs:
            configs = [Config({})]
        self.configs = list(configs)
        self.key = list(key)
        self.prune_configs_by = prune_configs_by or {}
        self.reset_to_zero = list(reset_to_zero or [])
        self.cache: dict = {}
        self.best_config = None
        self.trials: dict = {}

    def _bound(self, args, kwargs) -> dict:
        names = self.arg_names
        d = dict(zip(names, args))
        d.update(kwargs)
        return d

    def run(self, *args, grid, **kwargs):
        named = self._bound(args, kwargs)
        key = tuple(_key_value(named.get(k)) for k in self.key)
        if key not in self.cache:
            configs = self.configs
            prune = self.prune_configs_by.get("early_config_prune")
            if prune is not None:
                configs = list(prune(configs, named))
            if len(configs) == 1:
                self.cache[key] = configs[0]
            else:
                self.trials = {}
                for cfg in configs:
                    trial_args = [_copy(a) for a in args]
                    trial_kwargs = {k: _copy(v) for k, v in kwargs.items()}
                    cnt = self.fn.run(*trial_args, grid=grid, **trial_kwargs, **cfg.all_kwargs())
                    self.trials[cfg] = cnt
                self.cache[key] = min(configs, key=lambda c: (self.trials[c].sectors + self.trials[c].atomic_sectors,
                                                              self.trials[c].programs, configs.index(c)))
        self.best_config = cfg = self.cache[key]
        for name in self.reset_to_zero:
            arr = named.get(name)
            if arr is not None:
                arr[...] = 0
        if cfg.pre_hook is not None:
            cfg.pre_hook({**named, **cfg.all_kwargs()})
        return self.fn.run(*args, grid=grid, **kwargs, **cfg.all_kwargs())


def _key_value(v):
    if isinstance(v, np.ndarray) or hasattr(v, "dtype") and hasattr(v, "shape"):
        return (str(v.dtype), tuple(v.shape))
    return v


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None, pre_hook=None,
             post_hook=None, warmup=None, rep=None, use_cuda_graph=False, do_bench=None, cache_results=False):
    """Try each of ``configs`` and launch with the best (see the module: ranked by sectors moved).

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
    >>> fill.best_config.kwargs, float(out.sum())      # same sectors (13); 1 program beats 4
    ({'B': 128}, 100.0)
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
