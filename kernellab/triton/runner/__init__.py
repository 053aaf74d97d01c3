"""The runner: Triton code runs unchanged, ``import triton`` included, with kernellab standing in for the GPU.

``python -m kernellab run script.py [args…]`` runs a script under it; :func:`activate` turns it on in a
running interpreter (a notebook, a test) and :func:`deactivate` (or leaving ``with activate():``) turns it
off. While it is on:

- ``triton`` and every ``triton.X`` are kernellab's modules (:mod:`.modules`, a meta path finder), even
  with a real Triton installed, and ``importlib.metadata`` reports ``triton`` 3.9.0;
- ``torch.cuda``'s queries describe the modelled GPU (:mod:`.cuda`), and torch's own probes for Triton say
  there is none, so its compiler leaves kernellab's ``triton`` alone (:mod:`.inductor`);
- tensors asked for on ``"cuda"`` live on the CPU and say they are on ``cuda:0`` (:mod:`.devices`);
- ``triton.runtime.driver.active.get_active_torch_device()`` is ``torch.device("cuda", 0)``.

torch is changed only once it is imported (now or later) and only while the runner is on; without the
runner, importing kernellab touches nothing of torch and adds no module outside ``kernellab.*``.

Examples
--------
>>> import sys, kernellab.triton
>>> with activate():
...     import triton
...     import triton.language as tl
...     same = (triton is kernellab.triton, tl is kernellab.triton.language, triton.__version__)
>>> same
(True, True, '3.9.0')
>>> "triton" in sys.modules, active()
(False, False)
"""

from __future__ import annotations

import sys
import threading

from kernellab.i18n import _

from ..runtime import driver
from ..runtime.driver import torch_device
from . import cuda, devices, inductor
from .modules import TRITON_VERSION, TritonFinder, forget, restore, stash_real_triton

_LOCK = threading.Lock()
_STATE: dict = {}


def active() -> bool:
    """Whether the runner is on."""
    return "finder" in _STATE


class Activation:
    """What :func:`activate` returns: ``with activate():`` turns the runner off at the end of the block."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        deactivate()
        return False

    def __repr__(self) -> str:
        return f"<kernellab runner: {'on' if active() else 'off'}>"


def activate() -> Activation:
    """Turn the runner on (see the module); calling it again while it is on changes nothing."""
    with _LOCK:
        if not active():
            finder = TritonFinder(on_torch=_torch_ready)
            _STATE["real_triton"] = stash_real_triton()
            _STATE["finder"] = finder
            _STATE["undo"] = []
            sys.meta_path.insert(0, finder)
            driver.RUNNER[0] = True
            torch = sys.modules.get("torch")
            if torch is not None and hasattr(torch, "cuda"):
                _torch_ready(torch)
    return Activation()


def deactivate() -> None:
    """Turn the runner off: ``triton`` is no longer kernellab's, torch is as it was."""
    with _LOCK:
        finder = _STATE.pop("finder", None)
        if finder is None:
            return
        driver.RUNNER[0] = False
        if finder in sys.meta_path:
            sys.meta_path.remove(finder)
        mode = _STATE.pop("mode", None)
        if mode is not None:
            _leave(mode)
        cuda.uninstall(_STATE.pop("undo", []))
        forget(finder.made)
        restore(_STATE.pop("real_triton", {}))


def _torch_ready(torch) -> None:
    """torch has been imported while the runner is on: its CUDA queries and devices become the modelled GPU's."""
    if "finder" not in _STATE or "mode" in _STATE:
        return
    _STATE["undo"] = cuda.install(torch) + inductor.install(torch)
    mode = devices.make_mode(torch)
    mode.__enter__()
    _STATE["mode"] = mode


def _leave(mode) -> None:
    """Pop the mode off torch's stack; a mode pushed above it after it (by the script) stays, and ours with it."""
    import torch

    try:
        mode.__exit__(None, None, None)
    except Exception as exc:  # torch refuses to pop a mode that is not on top of its stack
        raise RuntimeError(_("kernellab runner: another torch function mode was entered after the runner's and is "
                             "still active; leave it before deactivating the runner")) from exc
    del torch


__all__ = ["TRITON_VERSION", "Activation", "activate", "active", "deactivate", "torch_device"]
