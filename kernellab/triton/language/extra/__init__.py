"""``tl.extra``: vendor libraries (``tl.extra.cuda.libdevice``, ``tl.extra.hip``) — not supported.

libdevice functions are calls into NVIDIA's (or AMD's) device bitcode library, compiled for the GPU;
kernellab has no such library to call. ``from triton.language.extra.cuda import libdevice`` (with
kernellab's prefix) imports, and any ``libdevice.<name>(...)`` raises a NotImplementedError that names
the function and says to write it with ``tl`` functions instead (for example
``tanh(x) = 2·sigmoid(2x) − 1``).
"""

from __future__ import annotations

from kernellab.i18n import _


class _Library:
    """A vendor library whose every function raises NotImplementedError when called."""

    def __init__(self, path: str):
        self._path = path

    def __getattr__(self, name: str):
        if name.startswith("_") or name.startswith("pytest"):  # not a library function: tools probing
            raise AttributeError(name)
        if name in ("libdevice", "cuda", "hip"):
            return _Library(f"{self._path}.{name}")

        def unsupported(*args, **kwargs):
            raise NotImplementedError(
                _("{path}.{name} is not supported by kernellab: it calls the GPU vendor's device library (libdevice), which a CPU simulator does not have; write it with triton.language functions instead").format(path=self._path, name=name))

        unsupported.__name__ = name
        return unsupported


libdevice = _Library("tl.extra.libdevice")

from . import cuda, hip  # noqa: E402  (they use _Library)

__all__ = ["cuda", "hip", "libdevice"]
