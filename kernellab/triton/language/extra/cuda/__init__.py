"""``tl.extra.cuda``: ``from triton.language.extra.cuda import libdevice`` imports, and every call raises
NotImplementedError (see :mod:`kernellab.triton.language.extra`)."""

from .. import _Library

libdevice = _Library("tl.extra.cuda.libdevice")


__all__ = ["libdevice"]
