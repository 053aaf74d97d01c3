"""``tl.extra.cuda``: ``libdevice``, the grid-dependency calls of programmatic dependent launch
(``gdc_wait``, ``gdc_launch_dependents``) and the device queries of ``utils``.

Programmatic dependent launch (PDL, Hopper and later) lets the next kernel start while this one
finishes; ``gdc_wait`` makes a program wait until the previous kernel's writes are visible, and
``gdc_launch_dependents`` says the next kernel may start. kernellab runs launches one after another
and every program of a launch before the next launch starts, so both calls have nothing to do and
return None, as on a GPU launched without ``launch_pdl=True``.

Of ``utils``, ``num_warps()`` and ``num_threads()`` are the launch's (``num_warps=``, default 4; 32
threads a warp); ``globaltimer``, ``smid`` and the fp8e4b15 conversions raise NotImplementedError.

Examples
--------
>>> gdc_wait(), gdc_launch_dependents()
(None, None)
>>> import numpy as np
>>> import kernellab.triton as triton
>>> import kernellab.triton.language as tl
>>> @triton.jit
... def k(out_ptr):
...     tl.store(out_ptr, tl.extra.cuda.num_threads())
>>> out = np.zeros(1, np.int32); _ = k[(1,)](out, num_warps=8); out.tolist()
[256]
"""

from kernellab.i18n import _

from ....executor.program import current
from ....executor.tensor import constexpr
from . import libdevice  # noqa: F401  (a submodule, not in __all__: three modules share the name)


def gdc_wait(_semantic=None):
    """Wait until the previous kernel's memory operations are visible: a no-op (launches run in order)."""
    return None


def gdc_launch_dependents(_semantic=None):
    """Let the next kernel of a programmatic dependent launch start: a no-op (launches run in order)."""
    return None


def num_warps(_semantic=None) -> constexpr:
    """The launch's warps per program (``num_warps=``, default 4), a compile-time constant as in Triton."""
    return constexpr(current().num_warps)


def num_threads(_semantic=None) -> constexpr:
    """The launch's threads per program, ``32 · num_warps``, a compile-time constant as in Triton."""
    return constexpr(32 * current().num_warps)


def _no_device(name: str, why):
    def fn(*args, _semantic=None, **kwargs):
        raise NotImplementedError(_("tl.extra.cuda.{name} is not supported by kernellab: {why}").format(
            name=name, why=why()))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Not supported: raises NotImplementedError ({why.__doc__})."
    return fn


def _clock():
    """a simulated program has no GPU clock to read"""
    return _("a simulated program has no GPU clock to read")


def _placement():
    """kernellab does not place programs on SMs"""
    return _("kernellab does not place programs on SMs")


def _fp8():
    """use .to() with kernellab's float8 types instead"""
    return _("use .to() with kernellab's float8 types instead")


globaltimer = _no_device("globaltimer", _clock)
smid = _no_device("smid", _placement)
convert_custom_float8_sm70 = _no_device("convert_custom_float8_sm70", _fp8)
convert_custom_float8_sm80 = _no_device("convert_custom_float8_sm80", _fp8)

__all__ = ["convert_custom_float8_sm70", "convert_custom_float8_sm80", "gdc_launch_dependents", "gdc_wait",
           "globaltimer", "num_threads", "num_warps", "smid"]
