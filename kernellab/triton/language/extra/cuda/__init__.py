"""``tl.extra.cuda``: ``from triton.language.extra.cuda import libdevice`` imports, and every call raises
NotImplementedError (see :mod:`kernellab.triton.language.extra`)."""

from .. import _Library

libdevice = _Library("tl.extra.cuda.libdevice")


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    return getattr(_Library("tl.extra.cuda"), name)


__all__ = ["libdevice"]
