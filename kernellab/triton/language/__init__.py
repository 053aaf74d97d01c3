"""``import kernellab.triton.language as tl``: the names of ``triton.language``, run on numpy.

Types (``tl.float16``, ``tl.int32``, …), ``tl.constexpr``, ``tl.tensor``, and the functions of
:mod:`.core` and :mod:`.math`.
"""

from ..dtypes import (
    dtype,
    float16,
    float32,
    float64,
    int1,
    int8,
    int16,
    int32,
    int64,
    pointer_type,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ..tensor import constexpr, tensor
from .core import (
    arange,
    argmax,
    argmin,
    broadcast_to,
    cdiv,
    dot,
    expand_dims,
    full,
    load,
    max,
    max_contiguous,
    min,
    multiple_of,
    num_programs,
    permute,
    program_id,
    range,
    ravel,
    reshape,
    static_assert,
    static_range,
    store,
    sum,
    trans,
    view,
    where,
    zeros,
    zeros_like,
)
from .math import (
    abs,
    ceil,
    clamp,
    cos,
    exp,
    exp2,
    floor,
    fma,
    log,
    log2,
    maximum,
    minimum,
    rsqrt,
    sigmoid,
    sin,
    softmax,
    sqrt,
    sqrt_rn,
)

__all__ = [n for n in dir() if not n.startswith("_") and n not in ("core", "math")]
