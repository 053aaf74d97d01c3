"""``triton.knobs`` (kernellab/triton/knobs.py): the runtime's hook chains are empty, as Triton's are when nothing
is registered, and refuse a hook kernellab's launches would never call; the runner answers ``triton.knobs``."""

import pytest

import kernellab.triton as triton
from kernellab.triton import knobs, runner


def _fast_launch_allowed(t) -> bool:
    # unsloth's kernels/triton_launch.py asks this before its fast path: a hook chain with calls means a profiler
    def active(hook):
        return hook is not None and getattr(hook, "calls", True) != []
    return not (active(t.knobs.runtime.launch_enter_hook) or active(t.knobs.runtime.launch_exit_hook))


def test_hook_chains_are_empty_and_refuse_a_hook():
    assert triton.knobs is knobs and _fast_launch_allowed(triton)
    assert knobs.runtime.interpret is False
    for name in ("launch_enter_hook", "launch_exit_hook", "kernel_load_start_hook", "kernel_load_end_hook",
                 "kernel_unload_hook"):
        chain = getattr(knobs.runtime, name)
        assert chain.calls == []
        with pytest.raises(NotImplementedError, match=rf"^triton.knobs.runtime.{name}.add: kernellab's launches call "
                                                      "no hooks$"):
            chain.add(print)
        chain.remove(print)  # nothing to remove
        assert chain.calls == [] and chain() is None
    assert knobs.runtime.launch_exit_hook.reversed and not knobs.runtime.launch_enter_hook.reversed


def test_a_chain_calls_in_its_order():
    seen = []
    chain = knobs.HookChain("test", reversed=True)
    chain.calls += [lambda x: seen.append(("a", x)), lambda x: seen.append(("b", x))]  # as Triton's own list
    chain(1)
    assert seen == [("b", 1), ("a", 1)]


def test_other_knob_groups_are_not_there():
    with pytest.raises(AttributeError, match="cache"):
        knobs.cache  # noqa: B018  (a compiler's cache settings: kernellab has no compiler)


def test_the_runner_answers_triton_knobs():
    with runner.activate():
        import triton as t
        from triton import knobs as k

        assert k is knobs and _fast_launch_allowed(t)
