"""``tl.extra``: the vendor libraries, ``tl.extra.libdevice`` (also ``tl.extra.cuda.libdevice``) and
``tl.extra.hip.libdevice``, computed with numpy (see :mod:`.libdevice`), and ``tl.extra.cuda``'s
programmatic-dependent-launch calls ``gdc_wait``/``gdc_launch_dependents`` (no-ops here: programs
and launches run in order).

Each import a Triton program writes works with kernellab's prefix:
``from kernellab.triton.language.extra import libdevice``,
``from kernellab.triton.language.extra.libdevice import tanh``,
``from kernellab.triton.language.extra.cuda import libdevice``,
``from kernellab.triton.language.extra.cuda.libdevice import tanh``.
"""

from . import cuda, hip, libdevice

__all__ = ["cuda", "hip", "libdevice"]
