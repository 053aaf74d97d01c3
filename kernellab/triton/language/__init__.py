"""``import kernellab.triton.language as tl``: the names of ``triton.language``, run on numpy.

Types (``tl.float16``, ``tl.bfloat16``, the float8 types, …), ``tl.constexpr``, ``tl.tensor``, and the
functions of :mod:`.core` (programs, creation, memory, dot, reductions, shapes), :mod:`.math`
(elementwise math), :mod:`.shapes` (cat, join, sort, gather, …), :mod:`.scan` (reduce and scan with
a combine function), :mod:`.atomics`, :mod:`.scaled` (``dot_scaled``), :mod:`.random` (Philox), :mod:`.descriptors` (block pointers,
tensor descriptors) and :mod:`.debug` (printing, assertions, hints). The coverage page of the docs
lists every public name of ``triton.language`` and whether kernellab has it.
"""

import builtins as _builtins

from kernellab.i18n import _

from ..executor import dtypes as _dtypes
from ..executor.dtypes import (
    bfloat16,
    dtype,
    float8e4b8,
    float8e4b15,
    float8e4nv,
    float8e5,
    float8e5b16,
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
from ..executor.numerics import TRITON_MAX_TENSOR_NUMEL
from ..executor.tensor import constexpr, tensor
from . import core, extra, math, random
from .atomics import (
    atomic_add,
    atomic_and,
    atomic_cas,
    atomic_load,
    atomic_max,
    atomic_min,
    atomic_or,
    atomic_poll,
    atomic_store,
    atomic_xchg,
    atomic_xor,
)
from .core import (
    add,
    arange,
    argmax,
    argmin,
    broadcast_to,
    cast,
    cdiv,
    dot,
    expand_dims,
    full,
    load,
    max,
    max_constancy,
    max_contiguous,
    min,
    mul,
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
    sub,
    sum,
    to_tensor,
    trans,
    view,
    where,
    zeros,
    zeros_like,
)
from .debug import (
    assume,
    condition,
    debug_barrier,
    device_assert,
    device_print,
    expect_zero,
    inline_asm_elementwise,
    map_elementwise,
    static_print,
)
from .descriptors import (
    advance,
    load_tensor_descriptor,
    make_block_ptr,
    make_tensor_descriptor,
    store_tensor_descriptor,
    tensor_descriptor,
)
from .math import (
    abs,
    ceil,
    clamp,
    cos,
    div_rn,
    erf,
    exp,
    exp2,
    fdiv,
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
    umulhi,
)
from .random import (
    pair_uniform_to_normal,
    philox,
    philox_impl,
    rand,
    rand4x,
    randint,
    randint4x,
    randn,
    randn4x,
    uint_to_uniform_float,
)
from .scaled import dot_scaled
from .scan import associative_scan, cumprod, cumsum, reduce, reduce_or, xor_sum
from .shapes import (
    bitonic_merge,
    broadcast,
    cat,
    flip,
    gather,
    histogram,
    interleave,
    join,
    sort,
    split,
    squeeze,
    swizzle2d,
    topk,
    unsqueeze,
)


class PropagateNan:
    """The ``propagate_nan`` options of ``tl.maximum``/``tl.minimum``/``tl.clamp`` (kernellab always propagates)."""

    NONE = 0
    ALL = 0xFFFF


class const:
    """Annotation marking a pointer to constant data (``x_ptr: tl.const``); no effect here."""


class constexpr_type:
    """The type of a ``tl.constexpr`` value."""

    def __init__(self, value):
        self.value = value

    def __repr__(self) -> str:
        return f"constexpr_type[{self.value}]"


class block_type(dtype):
    """The type of a block: ``element_ty`` and ``shape`` (``tl.block_type(tl.float32, [64])``)."""

    __slots__ = ("element_ty", "shape")

    def __init__(self, element_ty, shape):
        super().__init__(element_ty.name, element_ty.np, element_ty.kind)
        self.element_ty = element_ty
        self.shape = tuple(int(getattr(s, "value", s)) for s in shape)
        if not self.shape:
            raise TypeError(_("0d block_type is forbidden"))


void = _dtypes.dtype("void", "V1", _dtypes.INT)  #: ``tl.void``, the type of nothing
pi32_t = pointer_type(int32)  #: ``tl.pi32_t``, pointer to int32
tuple = _builtins.tuple  #: ``tl.tuple``: a Python tuple here
slice = _builtins.slice  #: ``tl.slice``: a Python slice here


class _TargetInfo:
    """``tl.target_info``: kernellab simulates no real target, so every query answers False."""

    @staticmethod
    def current_target():
        return None

    @staticmethod
    def is_cuda():
        return False

    @staticmethod
    def is_hip():
        return False

    @staticmethod
    def cuda_capability_geq(major, minor=0):
        return False


target_info = _TargetInfo()

__all__ = [
    "PropagateNan", "TRITON_MAX_TENSOR_NUMEL", "abs", "add", "advance", "arange", "argmax", "argmin",
    "associative_scan", "assume", "atomic_add", "atomic_and", "atomic_cas", "atomic_load", "atomic_max",
    "atomic_min", "atomic_or", "atomic_poll", "atomic_store", "atomic_xchg", "atomic_xor", "bfloat16",
    "bitonic_merge", "block_type", "broadcast", "broadcast_to", "cast", "cat", "cdiv", "ceil", "clamp",
    "condition", "const", "constexpr", "constexpr_type", "core", "cos", "cumprod", "cumsum", "debug_barrier",
    "device_assert", "device_print", "div_rn", "dot", "dot_scaled", "dtype", "erf", "exp", "exp2", "expand_dims",
    "expect_zero", "extra", "fdiv", "flip", "float16", "float32", "float64", "float8e4b15", "float8e4b8",
    "float8e4nv", "float8e5", "float8e5b16", "floor", "fma", "full", "gather", "histogram",
    "inline_asm_elementwise", "int1", "int16", "int32", "int64", "int8", "interleave", "join", "load",
    "load_tensor_descriptor", "log", "log2", "make_block_ptr", "make_tensor_descriptor", "map_elementwise",
    "math", "max", "max_constancy", "max_contiguous", "maximum", "min", "minimum", "mul", "multiple_of",
    "num_programs", "pair_uniform_to_normal", "permute", "philox", "philox_impl", "pi32_t", "pointer_type",
    "program_id", "rand", "rand4x", "randint", "randint4x", "randn", "randn4x", "random", "range", "ravel",
    "reduce", "reduce_or", "reshape", "rsqrt", "sigmoid", "sin", "slice", "softmax", "sort", "split", "sqrt",
    "sqrt_rn", "squeeze", "static_assert", "static_print", "static_range", "store", "store_tensor_descriptor",
    "sub", "sum", "swizzle2d", "target_info", "tensor", "tensor_descriptor", "to_tensor", "topk", "trans",
    "tuple", "uint16", "uint32", "uint64", "uint8", "uint_to_uniform_float", "umulhi", "unsqueeze", "view",
    "void", "where", "xor_sum", "zeros", "zeros_like",
]
