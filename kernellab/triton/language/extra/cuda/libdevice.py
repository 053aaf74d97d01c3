"""``tl.extra.cuda.libdevice``: the same functions as :mod:`kernellab.triton.language.extra.libdevice`
(``from triton.language.extra.cuda.libdevice import tanh``, with kernellab's prefix)."""

from ..libdevice import *  # noqa: F403  (the whole library, under this module's name too)
from ..libdevice import SIGNATURES, UNSUPPORTED, __all__, __getattr__  # noqa: F401
