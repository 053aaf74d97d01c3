"""``triton.knobs`` as far as kernellab can answer it: ``runtime``'s hook chains, which stay empty, and
``language.fp32_default``, the ``input_precision`` an fp32 ``tl.dot`` takes when it names none.

Triton 3.5 moved its settings into ``triton.knobs``. Libraries read ``triton.knobs.runtime.launch_enter_hook`` and
``launch_exit_hook`` (chains of hooks a profiler such as proton adds to) to learn whether anything watches
launches, and take their fast launch path when nothing does (unsloth's ``triton_launch``). kernellab's launches call
no hooks: the chains are empty, as Triton's are when no hook is registered, and adding to one raises
``NotImplementedError`` naming it, rather than registering a hook that would never run. ``interpret`` is False:
kernellab is not Triton's interpreter (``TRITON_INTERPRET``). The other groups of Triton's knobs (``cache``,
``compilation``, ``autotuning``, ``nvidia``, …) set a compiler kernellab does not have; asking for one is the
``AttributeError`` of a module without it.

``language.fp32_default`` is Triton 3.9's: the environment variable ``TRITON_F32_DEFAULT``, read each time it is
asked for, unless a value was set on the knob (setting a string also sets the variable, as Triton does; ``del``
goes back to the variable). ``tl.dot`` reads it when a kernel names no ``input_precision``: Triton's
``core.dot`` takes ``knobs.language.fp32_default or ("tf32" if allow_tf32 is None or allow_tf32 else "ieee")``,
so the variable overrides ``allow_tf32`` too.

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

import os

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


class language_knobs:
    """Triton 3.9's ``knobs.language``, its field that kernellab answers: ``fp32_default`` (see the module)."""

    _ENV = "TRITON_F32_DEFAULT"
    _UNSET = object()  # no value set on the knob: the variable answers

    def __init__(self):
        self._value = self._UNSET

    @property
    def fp32_default(self) -> str | None:
        """The default ``input_precision`` of an fp32 ``tl.dot``: the value set here, else ``TRITON_F32_DEFAULT``
        (None when unset)."""
        return os.environ.get(self._ENV) if self._value is self._UNSET else self._value

    @fp32_default.setter
    def fp32_default(self, value: str | None) -> None:
        self._value = value
        if value is not None:
            os.environ[self._ENV] = str(value)

    @fp32_default.deleter
    def fp32_default(self) -> None:
        self._value = self._UNSET


#: ``triton.knobs.runtime``.
runtime = runtime_knobs()
#: ``triton.knobs.language``.
language = language_knobs()

__all__ = ["HookChain", "language", "language_knobs", "runtime", "runtime_knobs"]
