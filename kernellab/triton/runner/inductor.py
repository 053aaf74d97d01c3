"""torch's own probes for Triton under the runner: they answer that there is none.

Before torch's compiler (inductor, behind ``torch.compile`` and ``torch._dynamo``, which even
``@torch.compiler.disable`` imports) touches Triton, it asks ``torch.utils._triton.has_triton_package()`` and
``has_triton()``; when they say yes, it imports Triton's compiler internals (``triton.backends.compiler``,
``triton.compiler.compiler``). kernellab's ``triton`` runs kernels and compiles none, so it has no such modules.
Under the runner these two probes answer False, and the torch modules that import Triton without asking them
(:data:`WITHOUT_TRITON`) find none: torch takes the paths it takes on a machine without Triton, while the script's
own ``import triton`` is kernellab's. :func:`install` replaces them by name and returns what
to put back (:func:`kernellab.triton.runner.cuda.uninstall` puts it back).
"""

from __future__ import annotations

import importlib

#: The probes of ``torch.utils._triton`` that answer False under the runner.
PROBES = ("has_triton_package", "has_triton")
#: The torch modules that import Triton themselves, asking no probe. While one runs, ``import triton`` fails
#: (:class:`kernellab.triton.runner.modules.TritonFinder`), so it takes its no-Triton branch; inductor's
#: ``triton_compat``, which ``torch.compile`` imports, would go on to Triton's compiler internals
#: (``triton.compiler.CompiledKernel``, ``triton_key``), which kernellab's ``triton`` does not have.
WITHOUT_TRITON = frozenset(("torch._inductor.runtime.triton_compat",))


def no_triton() -> bool:
    """What torch's probes answer under the runner: no Triton for torch's own compiler."""
    return False


def install(torch_module) -> list:
    """Make torch's probes answer False; returns ``(module, name, old value)`` for each name replaced."""
    del torch_module  # the probes live in a submodule torch imports on demand
    probes = importlib.import_module("torch.utils._triton")
    undo = []
    for name in PROBES:
        if name in vars(probes):
            undo.append((probes, name, vars(probes)[name]))
            setattr(probes, name, no_triton)
    return undo


__all__ = ["PROBES", "WITHOUT_TRITON", "install", "no_triton"]
