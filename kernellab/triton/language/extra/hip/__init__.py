"""``tl.extra.hip``: ``from triton.language.extra.hip import libdevice`` imports, and every call raises
NotImplementedError (see :mod:`kernellab.triton.language.extra`)."""

from .. import _Library

libdevice = _Library("tl.extra.hip.libdevice")


__all__ = ["libdevice"]
