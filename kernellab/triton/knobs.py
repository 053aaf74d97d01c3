"""``triton.knobs`` as far as kernellab can answer it: ``runtime``'s hook chains, which stay empty.

Triton 3.5 moved its settings into ``triton.knobs``. Libraries read ``triton.knobs.runtime.launch_enter_hook`` and
``launch_exit_hook`` (chains of hooks a profiler such as proton adds to) to learn whether anything watches
launches, and take their fast launch path when nothing does (unsloth's ``triton_launch``). kernellab's launches call
no hooks: the chains are empty, as Triton's are when no hook is registered, and adding to one raises
``NotImplementedError`` naming it, rather than registering a hook that would never run. ``interpret`` is False:
kernellab is not Triton's interpreter (``TRITON_INTERPRET``). The other groups of Triton's knobs (``cache``,
``compilation``, ``autotuning``, ``nvidia``, …) set a compiler kernellab does not have; asking for one is the
``AttributeError`` of a module without it.

Examples
--------
>>> runtime.launch_enter_hook.calls, runtime.interpret
([], False)
>>> runtime.launch_enter_hook.add(print)
Traceback (most recent call last):
    ...
NotImplementedError: triton.knobs.runtime.launch_enter_hook.add: kernellab's launches call no hooks
"""

from __future__ import annotations

from kernellab.i18n import _


class HookChain:
    """Triton's chain of hooks of one kind, called in order (``reversed``: last added first): here always empty."""

    def __init__(self, name: str, reversed: bool = False):
        self.calls: list = []
        self.reversed = reversed
        self._name = name

    def add(self, func) -> None:
        """Refused: kernellab's launches would never call ``func``."""
        raise NotImplementedError(_("triton.knobs.runtime.{name}.add: kernellab's launches call no hooks").format(
            name=self._name))

    def remove(self, func) -> None:
        """Nothing to remove (no hook is ever added)."""

    def __call__(self, *args, **kwargs) -> None:
        for call in reversed(self.calls) if self.reversed else self.calls:
            call(*args, **kwargs)


class runtime_knobs:
    """Triton 3.9's ``knobs.runtime``, its fields that kernellab answers (see the module)."""

    def __init__(self):
        self.interpret = False  # kernellab is not Triton's interpreter
        self.launch_enter_hook = HookChain("launch_enter_hook")
        self.launch_exit_hook = HookChain("launch_exit_hook", reversed=True)
        self.kernel_load_start_hook = HookChain("kernel_load_start_hook")
        self.kernel_load_end_hook = HookChain("kernel_load_end_hook", reversed=True)
        self.kernel_unload_hook = HookChain("kernel_unload_hook")


#: ``triton.knobs.runtime``.
runtime = runtime_knobs()

__all__ = ["HookChain", "runtime", "runtime_knobs"]
