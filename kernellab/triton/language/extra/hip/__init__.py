"""``tl.extra.hip``: AMD's device library, for the names it shares with CUDA's libdevice, computed
as :mod:`kernellab.triton.language.extra.libdevice` computes them (``fast_tanhf`` is ``tanh`` in fp32)."""

from . import libdevice  # noqa: F401  (a submodule, not in __all__: three modules share the name)

__all__: list[str] = []  # the submodule libdevice only (left out: three modules share the name)
