"""Triton's scalar types (``tl.float16``, ``tl.int32``, …) on numpy dtypes, and Triton's promotion rules.

The rules follow ``triton/language/semantic.py`` (``computation_type_impl``, ``integer_promote_impl``):
a scalar of a lower or equal *kind* (bool < uint < int < float) than a block does not take part in
promotion; otherwise fp64 > fp32 > fp16, and ``/`` and ``%`` on fp16 compute in fp32.
"""

from __future__ import annotations

from functools import cache

import numpy as np

BOOL, UINT, INT, FLOAT = 0, 1, 2, 3  # Triton's kinds, in promotion order


class dtype:
    """A Triton element type: its Triton name (``fp32``), numpy dtype, kind and bit width.

    Examples
    --------
    >>> float16.name, float16.np.itemsize, float16.is_floating(), int1.is_bool()
    ('fp16', 2, True, True)
    """

    __slots__ = ("name", "np", "kind", "primitive_bitwidth")

    def __init__(self, name: str, np_dtype, kind: int):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.kind = kind
        self.primitive_bitwidth = 1 if kind == BOOL else self.np.itemsize * 8

    def is_floating(self) -> bool:
        return self.kind == FLOAT

    def is_int(self) -> bool:
        return self.kind != FLOAT

    def is_bool(self) -> bool:
        return self.kind == BOOL

    def is_int_signed(self) -> bool:
        return self.kind == INT

    def is_int_unsigned(self) -> bool:
        return self.kind == UINT

    @property
    def int_bitwidth(self) -> int:
        return self.primitive_bitwidth

    def __repr__(self) -> str:
        return f"triton.language.{self.name}"

    def __str__(self) -> str:
        return self.name


class pointer_type(dtype):
    """The type of a pointer to ``element_ty``; its numpy form is the int64 element offset."""

    __slots__ = ("element_ty",)

    def __init__(self, element_ty: dtype):
        super().__init__(f"pointer<{element_ty.name}>", np.int64, INT)
        self.element_ty = element_ty


int1 = dtype("int1", np.bool_, BOOL)  #: ``tl.int1``, boolean
int8 = dtype("int8", np.int8, INT)  #: ``tl.int8``, 8-bit signed integer
int16 = dtype("int16", np.int16, INT)  #: ``tl.int16``, 16-bit signed integer
int32 = dtype("int32", np.int32, INT)  #: ``tl.int32``, 32-bit signed integer
int64 = dtype("int64", np.int64, INT)  #: ``tl.int64``, 64-bit signed integer
uint8 = dtype("uint8", np.uint8, UINT)  #: ``tl.uint8``, 8-bit unsigned integer
uint16 = dtype("uint16", np.uint16, UINT)  #: ``tl.uint16``, 16-bit unsigned integer
uint32 = dtype("uint32", np.uint32, UINT)  #: ``tl.uint32``, 32-bit unsigned integer
uint64 = dtype("uint64", np.uint64, UINT)  #: ``tl.uint64``, 64-bit unsigned integer
float16 = dtype("fp16", np.float16, FLOAT)  #: ``tl.float16``, IEEE half precision (``fp16``)
float32 = dtype("fp32", np.float32, FLOAT)  #: ``tl.float32``, IEEE single precision (``fp32``)
float64 = dtype("fp64", np.float64, FLOAT)  #: ``tl.float64``, IEEE double precision (``fp64``)
ALL = (int1, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32, float64)
_BY_NUMPY = {d.np: d for d in ALL}


def from_numpy(np_dtype) -> dtype:
    """The Triton type of a numpy dtype (``float16`` → ``tl.float16``); TypeError if Triton has none.

    Examples
    --------
    >>> from_numpy(np.float32), from_numpy(np.dtype("int64"))
    (triton.language.fp32, triton.language.int64)
    """
    if isinstance(np_dtype, dtype):
        return np_dtype
    try:
        return _BY_NUMPY[np.dtype(np_dtype)]
    except (KeyError, TypeError) as exc:
        raise TypeError(f"no Triton type for numpy dtype {np_dtype!r}") from exc


def of_python(value) -> dtype:
    """The type Triton gives a Python or numpy scalar: int → int32 (int64/uint if it does not fit), float → fp32.

    Examples
    --------
    >>> of_python(3), of_python(2**40), of_python(0.5), of_python(True), of_python(np.float16(1))
    (triton.language.int32, triton.language.int64, triton.language.fp32, triton.language.int1, triton.language.fp16)
    """
    if isinstance(value, (bool, np.bool_)):
        return int1
    if isinstance(value, np.generic):
        return from_numpy(value.dtype)
    if isinstance(value, int):
        if -(2**31) <= value < 2**31:
            return int32
        if 0 <= value < 2**32:
            return uint32
        if -(2**63) <= value < 2**63:
            return int64
        if 0 <= value < 2**64:
            return uint64
        raise OverflowError(f"integer {value} does not fit in 64 bits")
    if isinstance(value, float):
        return float32 if not np.isfinite(value) or abs(value) <= np.finfo(np.float32).max else float64
    raise TypeError(f"a {type(value).__name__} is not a Triton scalar")


def _integer_promote(a: dtype, b: dtype) -> dtype:
    if (a.kind == UINT) == (b.kind == UINT):
        return a if a.primitive_bitwidth > b.primitive_bitwidth else b
    if a.kind == UINT:
        return a if a.primitive_bitwidth >= b.primitive_bitwidth else b
    return b if b.primitive_bitwidth >= a.primitive_bitwidth else a


@cache
def computation_type(a: dtype, a_scalar: bool, b: dtype, b_scalar: bool, div_or_mod: bool = False) -> dtype:
    """The type a binary operation computes in, as Triton's ``computation_type_impl``.

    ``a_scalar``/``b_scalar`` say whether the operand is a scalar rather than a block.

    Examples
    --------
    >>> computation_type(float16, False, float32, True)        # fp16 block * 0.5 stays fp16
    triton.language.fp16
    >>> computation_type(int32, False, float32, True)          # int block * 0.5 → fp32
    triton.language.fp32
    >>> computation_type(float16, False, float16, False, True) # fp16 / fp16 → fp32
    triton.language.fp32
    """
    if a_scalar != b_scalar:
        scalar, block = (a, b) if a_scalar else (b, a)
        if scalar.kind <= block.kind:
            return float32 if div_or_mod and block is float16 else block
    if float64 in (a, b):
        return float64
    if float32 in (a, b):
        return float32
    if float16 in (a, b):
        return float32 if div_or_mod else float16
    if div_or_mod and a.kind != b.kind and BOOL not in (a.kind, b.kind):
        raise TypeError(f"cannot use / or % with {a} and {b}: signedness differs")
    return _integer_promote(a, b)
