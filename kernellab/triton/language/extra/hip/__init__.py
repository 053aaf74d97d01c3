"""``tl.extra.hip``: AMD's device library, for the names it shares with CUDA's libdevice, computed
as :mod:`kernellab.triton.language.extra.libdevice` computes them (``fast_tanhf`` is ``tanh`` in fp32)."""

from . import libdevice

__all__: list[str] = []  # the submodule libdevice only (left out: three modules share the name)
