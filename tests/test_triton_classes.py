"""Triton 3.9's runtime classes as Triton defines them: Autotuner, Heuristics, JITFunction, Config, KernelInterface
and OutOfResources take its constructor signatures and keep its public attributes, so code written against
Triton's (a library's autotuner subclass, a wrapper of its own) works here."""

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab.triton.runtime import Autotuner, Heuristics, JITFunction, KernelInterface, OutOfResources
from kernellab.triton.runtime.autotuner import Config


@triton.jit
def fill(out_ptr, n, B: tl.constexpr):
    offs = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(out_ptr + offs, tl.load(out_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)


CONFIGS = [triton.Config({"B": 32}), triton.Config({"B": 128}), triton.Config({"B": 64}, num_warps=8)]


class RememberingAutotuner(Autotuner):
    """A library's autotuner, in the style of those published against Triton 3.x: Triton's constructor, passed on
    positionally, and ``run`` rewritten to keep the timings of every tuning; it reads the attributes Triton
    keeps (``nargs``, ``keys``, ``cache``, ``user_defined_pre_hook``) and benchmarks with ``self._bench``."""

    def __init__(self, fn, arg_names, configs, key, reset_to_zero, restore_value, pre_hook=None, post_hook=None,
                 prune_configs_by=None, warmup=None, rep=None, use_cuda_graph=False, do_bench=None,
                 cache_results=False):
        super().__init__(fn, arg_names, configs, key, reset_to_zero, restore_value, pre_hook, post_hook,
                         prune_configs_by, warmup, rep, use_cuda_graph, do_bench, cache_results)
        self.history = []

    def run(self, *args, **kwargs):
        self.nargs = dict(zip(self.arg_names, args))
        key = tuple(self.nargs[k] for k in self.keys)
        if key not in self.cache:
            timings = {c: self._bench(*args, config=c, **kwargs) for c in self.prune_configs(kwargs)}
            self.history.append(timings)
            self.cache[key] = min(timings, key=timings.get)
            if not self.user_defined_pre_hook:
                self.pre_hook({**self.nargs, **kwargs, **self.cache[key].all_kwargs()}, reset_only=True)
        config = self.cache[key]
        out = self.fn.run(*args, **kwargs, **config.all_kwargs())
        self.nargs = None
        return out


def remembering_autotune(configs, key, reset_to_zero=None, restore_value=None, prune_configs_by=None):
    def decorator(fn):
        return RememberingAutotuner(fn, fn.arg_names, configs, key, reset_to_zero, restore_value,
                                    prune_configs_by=prune_configs_by)

    return decorator


def test_a_library_autotuner_subclass_works_unchanged():
    kernel = remembering_autotune(CONFIGS, key=["n"], reset_to_zero=["out_ptr"])(fill)
    assert kernel.fn is fill and kernel.base_fn is fill.fn and kernel.arg_names == ["out_ptr", "n", "B"]
    assert kernel.keys == ["n"] and kernel.cache == {} and not kernel.user_defined_pre_hook
    out = np.full(1000, 7.0, np.float32)
    kernel[lambda meta: (triton.cdiv(1000, meta["B"]),)](out, 1000)
    # the trials put back what they changed, reset_to_zero zeroed the output once after tuning: 0 + 1 everywhere
    assert (out == 1.0).all()
    (timings,) = kernel.history
    assert set(timings) == set(CONFIGS)
    for median, p20, p80 in timings.values():  # one prediction, as Triton's three quantiles
        assert median == p20 == p80 and 0 < median < 1  # milliseconds on the modelled H100
    # 1000 floats read and written by each config, the same bytes: the fewest programs do not win here, the
    # subclass's own min() does (the first of equal timings, B=32), as it would under Triton
    assert kernel.cache[(1000,)] is min(timings, key=timings.get)
    kernel[lambda meta: (triton.cdiv(1000, meta["B"]),)](out, 1000)
    assert len(kernel.history) == 1 and (out == 2.0).all()  # cached: no second tuning, no reset


def test_bench_gives_inf_to_a_config_that_cannot_run_as_triton_does():
    def too_big(nargs):
        if nargs["B"] == 128:
            raise OutOfResources(262144, 232448, "shared memory")

    configs = [triton.Config({"B": 128}, pre_hook=too_big), triton.Config({"B": 32})]
    kernel = triton.autotune(configs, key=["n"])(fill)
    out = np.zeros(100, np.float32)
    kernel[lambda meta: (triton.cdiv(100, meta["B"]),)](out, 100)
    assert kernel.configs_timings[configs[0]] == [float("inf")] * 3 and kernel.best_config is configs[1]
    # B=128's hook raised before its launch; B=32's trial (4 programs, in full) and the chosen launch each added
    # 1 (as Triton's trials, no restore_value: nothing put back)
    assert (out == 2.0).all()


def test_autotune_builds_triton_s_autotuner():
    kernel = triton.autotune(CONFIGS, key=["n"], restore_value=["out_ptr"])(fill)
    assert type(kernel) is Autotuner and isinstance(kernel, KernelInterface)
    assert kernel.restore_value == ["out_ptr"] and kernel.reset_to_zero == [] and kernel.restore_copies == {}
    assert kernel.configs_top_k == 1.0 and kernel.early_config_prune is None and kernel.perf_model is None
    with pytest.raises(ValueError, match="key contains names that are not kernel arguments: m"):
        triton.autotune(CONFIGS, key=["m"])(fill)
    with pytest.raises(triton.runtime.errors.AutotunerError, match="No valid autotuner configs after pruning"):
        triton.autotune(CONFIGS, key=["n"], prune_configs_by={"early_config_prune": lambda c, a, **k: []})(fill)[
            (1,)](np.zeros(4, np.float32), 4)


class Scaled(Heuristics):
    """A library's heuristics subclass: Triton's constructor ``(fn, arg_names, values)``."""

    def run(self, *args, **kwargs):
        self.calls = getattr(self, "calls", 0) + 1
        return super().run(*args, **kwargs)


def test_a_heuristics_subclass_and_triton_s_constructor():
    kernel = Scaled(fill, fill.arg_names, {"B": lambda args: triton.next_power_of_2(args["n"])})
    out = np.zeros(37, np.float32)
    kernel[(1,)](out, 37)  # B = 64 ≥ 37: one program
    assert (out == 1.0).all() and kernel.calls == 1 and kernel.values.keys() == {"B"}


class Twice(KernelInterface):
    """A wrapper of a library's own on Triton's KernelInterface: ``kernel[grid](...)`` comes from the base class."""

    def __init__(self, fn):
        self.fn, self.arg_names = fn, fn.arg_names

    def run(self, *args, grid, warmup, **kwargs):
        self.fn.run(*args, grid=grid, warmup=warmup, **kwargs)
        return self.fn.run(*args, grid=grid, warmup=warmup, **kwargs)


def test_a_kernel_interface_of_one_s_own_launches_and_can_be_autotuned():
    out = np.zeros(64, np.float32)
    Twice(fill)[(1,)](out, 64, B=64)
    assert (out == 2.0).all()
    tuned = triton.autotune([triton.Config({"B": 64})], key=["n"])(Twice(fill))
    tuned[(1,)](out, 64)
    assert (out == 4.0).all()


def test_jit_function_attributes_as_triton_s():
    assert isinstance(fill, JITFunction) and isinstance(fill, KernelInterface)
    assert fill.arg_names == ["out_ptr", "n", "B"] and fill.constexprs == [2]  # positions, as Triton keeps them
    assert [(p.num, p.name, p.is_constexpr) for p in fill.params] == [(0, "out_ptr", False), (1, "n", False),
                                                                      (2, "B", True)]
    assert fill.src.startswith("def fill(out_ptr, n, B: tl.constexpr):") and len(fill.cache_key) == 64
    assert repr(fill) == f"JITFunction({__name__}:fill)" and fill.launch_metadata is None
    k = triton.jit(do_not_specialize=["n"], debug=True)(fill.fn)
    assert k.do_not_specialize == ["n"] and k.debug is True and k.params[1].do_not_specialize
    seen = []
    k.add_pre_run_hook(lambda *args, **kwargs: seen.append(kwargs.get("B")))
    out = np.zeros(8, np.float32)
    compiled = k.run(out, 8, B=8, grid=(1,), warmup=True)  # Triton's warmup through run: nothing launched
    assert (out == 0).all() and compiled.name == "fill" and seen == []
    k[(1,)](out, 8, B=8)
    assert (out == 1.0).all() and seen == [8]


def test_config_as_triton_s():
    a = Config({"B": 64}, num_warps=8, maxnreg=128)
    assert a == Config({"B": 64}, num_warps=8, maxnreg=128) and hash(a) == hash(Config({"B": 64}, num_warps=8,
                                                                                         maxnreg=128))
    assert a != Config({"B": 64}, num_warps=4, maxnreg=128)
    assert a.all_kwargs() == {"B": 64, "num_warps": 8, "num_ctas": 1, "num_stages": 3, "maxnreg": 128}
    assert str(a) == "B: 64, num_warps: 8, num_ctas: 1, num_stages: 3, maxnreg: 128, ir_override: None"
