"""``tl.extra``: the vendor libraries, computed with numpy, and programmatic dependent launch.

``tl.extra.libdevice`` (also ``tl.extra.cuda.libdevice``) and ``tl.extra.hip.libdevice`` are
described in ``kernellab.triton.language.extra.libdevice``; ``tl.extra.cuda``'s
``gdc_wait``/``gdc_launch_dependents`` are no-ops here, since programs and launches run in order.

Each import a Triton program writes works with kernellab's prefix:
``from kernellab.triton.language.extra import libdevice``,
``from kernellab.triton.language.extra.libdevice import tanh``,
``from kernellab.triton.language.extra.cuda import libdevice``,
``from kernellab.triton.language.extra.cuda.libdevice import tanh``.
"""

from . import cuda, hip, libdevice  # noqa: F401  (libdevice: a submodule, not in __all__)

__all__ = ["cuda", "hip"]  # and the submodule libdevice (left out: three modules share the name)
