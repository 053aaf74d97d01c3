"""Host-side tensor descriptors, as ``triton.tools.tensor_descriptor.TensorDescriptor``.

A kernel that takes a descriptor argument (Triton 3.9's fused-attention tutorial does) is launched with
``TensorDescriptor.from_tensor(x, block_shape)``; inside the kernel it is the same object as
``tl.make_tensor_descriptor`` returns, with ``desc.load`` and ``desc.store`` counted like masked loads
and stores. ``base`` is a numpy array or a CPU torch tensor; shapes and strides are in elements.

Examples
--------
>>> import numpy as np
>>> import kernellab.triton as triton
>>> import kernellab.triton.language as tl
>>> @triton.jit
... def twice(desc, BM: tl.constexpr, BN: tl.constexpr):
...     tile = desc.load([tl.program_id(0) * BM, 0])
...     desc.store([tl.program_id(0) * BM, 0], tile * 2)
>>> x = np.ones((6, 4), np.float32)
>>> _ = twice[(3,)](TensorDescriptor.from_tensor(x, [2, 4]), BM=2, BN=4); float(x.sum())
48.0
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kernellab.i18n import _


@dataclass
class TensorDescriptor:
    """A tensor, its shape and strides in elements, and the tile shape the kernel loads."""

    base: Any
    shape: list
    strides: list
    block_shape: list
    padding: str = "zero"
    round_f32_to_tf32: bool = False

    def __post_init__(self):
        rank = len(self.shape)
        if not (len(self.strides) == rank == len(self.block_shape)) or not 0 < rank <= 5:
            raise ValueError(_("a TensorDescriptor needs shape, strides and block_shape of one "
                               "rank 1-5, got {self}").format(
                self=self))
        if self.padding not in ("zero", "nan"):
            raise ValueError(_("padding must be 'zero' or 'nan', not {padding!r}").format(
                padding=self.padding))

    @staticmethod
    def from_tensor(tensor: Any, block_shape: list, padding: str = "zero", round_f32_to_tf32: bool = False):
        """The descriptor of a whole numpy array or torch tensor."""
        if hasattr(tensor, "stride") and callable(tensor.stride):  # torch: strides in elements
            strides = list(tensor.stride())
        else:  # numpy: strides in bytes
            strides = [s // tensor.itemsize for s in tensor.strides]
        return TensorDescriptor(tensor, list(tensor.shape), strides, list(block_shape), padding, round_f32_to_tf32)


__all__ = ["TensorDescriptor"]
