"""Triton's scalar types (``tl.float16``, ``tl.int32``, …) on numpy dtypes, and Triton's promotion rules.

The rules follow ``triton/language/semantic.py`` (``computation_type_impl``, ``integer_promote_impl``):
a scalar of a lower or equal *kind* (bool < uint < int < float) than a block does not take part in
promotion; otherwise fp64 > fp32 > fp16, and ``/`` and ``%`` on fp16 compute in fp32.
"""

from __future__ import annotations

import math
from functools import cache, lru_cache

import numpy as np

from kernellab.i18n import _

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

    @property
    def scalar(self) -> dtype:
        """The element type (itself, for a scalar type), as Triton's ``x.type.scalar``."""
        return self

    def is_fp16(self) -> bool:
        return self.name == "fp16"

    def is_fp32(self) -> bool:
        return self.name == "fp32"

    def is_fp64(self) -> bool:
        return self.name == "fp64"

    def is_bf16(self) -> bool:
        return self.name == "bf16"

    def is_fp8(self) -> bool:
        return self.name.startswith("fp8")

    def is_ptr(self) -> bool:
        return isinstance(self, pointer_type)

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


class float_format(dtype):
    """A floating type numpy lacks (``bfloat16``, the float8 types), emulated in float32 registers.

    A block of this type holds float32 values that are exactly representable in the format; every
    operation that produces one rounds to it (:meth:`round`). In memory it is stored as raw bits
    (uint16 or uint8), as Triton's interpreter stores it. Formats: ``e`` exponent bits, ``m`` mantissa
    bits, ``bias``; ``inf`` says whether the top exponent encodes inf/NaN (IEEE-like); ``fnuz``
    formats have no negative zero and use 0x80 for NaN.

    Examples
    --------
    >>> bfloat16.round(np.float32([1 + 2**-8, 1 + 3 * 2**-8])).tolist()   # ties go to even
    [1.0, 1.015625]
    >>> float8e4nv.round(np.float32([0.3, 460.0, 500.0, 1e-3])).tolist()   # 448 is e4m3fn's largest
    [0.3125, 448.0, nan, 0.001953125]
    >>> float8e5.decode(float8e5.encode(np.float32([-1.5, 60000.0]))).tolist()
    [-1.5, 57344.0]
    """

    __slots__ = ("e", "m", "bias", "inf", "fnuz", "bits", "max_finite", "_values")

    def __init__(self, name: str, e: int, m: int, bias: int, inf: bool, fnuz: bool = False):
        super().__init__(name, np.float32, FLOAT)
        self.e, self.m, self.bias, self.inf, self.fnuz = e, m, bias, inf, fnuz
        self.primitive_bitwidth = self.bits = 1 + e + m
        top = (1 << e) - 1 - (1 if inf else 0)  # largest exponent field of a finite number
        top_man = (1 << m) - 1
        if not inf and not fnuz and e == 4 and m == 3 and bias == 7:  # OCP e4m3fn: S.1111.111 is NaN
            top_man -= 1
        self.max_finite = float((1 + top_man / (1 << m)) * 2.0 ** (top - bias))
        self._values = None if self.bits == 16 else self._decode(np.arange(256))  # every 8-bit code's value

    @property
    def storage(self) -> np.dtype:
        """The numpy dtype of the raw bits in memory."""
        return np.dtype(np.uint16 if self.bits == 16 else np.uint8)

    def round(self, x, mode: str = "rtne") -> np.ndarray:
        """float32 values rounded to this format (``"rtne"`` to nearest even, ``"rtz"`` toward zero).

        Beyond the largest finite value: inf for formats with inf (past the rounding midpoint, as IEEE),
        NaN for the others (the hardware's ``satfinite`` conversions are not modelled).
        """
        x = np.asarray(x, np.float32)
        if self.e == 8 and self.m == 7:  # bfloat16: the top half of the float32 bits
            b = x.view(np.uint32)
            if mode == "rtz":
                r = b & np.uint32(0xFFFF0000)
            else:
                r = (b + np.uint32(0x7FFF) + ((b >> np.uint32(16)) & np.uint32(1))) & np.uint32(0xFFFF0000)
            r = np.where(np.isnan(x), b | np.uint32(0x00400000), r)
            return r.astype(np.uint32).view(np.float32)
        d = x.astype(np.float64)
        with np.errstate(all="ignore"):
            mag = np.abs(d)
            _, ex = np.frexp(mag)  # mag = f · 2^ex with f in [0.5, 1)
            ex = np.maximum(ex - 1, 1 - self.bias)  # exponent of the leading bit, clamped to the subnormals
            q = np.ldexp(1.0, ex - self.m)  # the spacing of representable numbers there
            k = mag / q
            k = np.trunc(k) if mode == "rtz" else np.round(k)  # np.round: half to even
            r = k * q
            over = r > self.max_finite
            if self.inf:
                r = np.where(over, np.inf, r)
            else:
                r = np.where(over, np.nan, r)
            r = np.where(np.isinf(mag), np.inf if self.inf else np.nan, r)
            r = np.copysign(r, d)
            if self.fnuz:
                r = np.where(r == 0, 0.0, r)
            r = np.where(np.isnan(d), np.nan, r)
        return r.astype(np.float32)

    def encode(self, x) -> np.ndarray:
        """The raw bits of float32 values (rounded to nearest even first)."""
        x = self.round(x)
        if self.bits == 16:
            return (x.view(np.uint32) >> np.uint32(16)).astype(np.uint16)
        d = x.astype(np.float64)
        sign = np.signbit(d).astype(np.uint8)
        mag = np.abs(d)
        with np.errstate(all="ignore"):
            _, ex = np.frexp(mag)
            field = np.where(mag == 0, 0, np.maximum(ex - 1 + self.bias, 0))  # 0: subnormal or zero
            scale = np.where(field == 0, 1 - self.bias, field - self.bias) - self.m
            man = np.where(field == 0, mag / np.ldexp(1.0, scale), mag / np.ldexp(1.0, scale) - (1 << self.m))
        man = np.where(np.isfinite(man), man, 0).astype(np.int64)
        out = ((sign.astype(np.int64) << (self.e + self.m)) | (field.astype(np.int64) << self.m) | man)
        if self.inf:
            out = np.where(np.isinf(d), (sign.astype(np.int64) << 7) | (((1 << self.e) - 1) << self.m), out)
            nan = 0x7F if self.m == 3 else 0x7E
        else:
            nan = 0x80 if self.fnuz else 0x7F
        out = np.where(np.isnan(d), nan, out)
        if self.fnuz:
            out = np.where(mag == 0, 0, out)
        return out.astype(np.uint8)

    def encode_one(self, x):
        """:meth:`encode` of one value (a ``tl.load``'s scalar ``other``, encoded at every load of a loop): worked
        out once per float32 bit pattern (``-0.0`` and ``0.0``, every NaN payload, apart) and kept read-only.

        >>> float8e5.encode_one(-0.0), float8e5.encode_one(0.0), bfloat16.encode_one(1.0)
        (array(128, dtype=uint8), array(0, dtype=uint8), np.uint16(16256))
        """
        return _encoded_one(self, int(np.float32(x).view(np.uint32)))

    def decode(self, bits) -> np.ndarray:
        """float32 values of raw bits (8-bit formats: a look-up in the 256 values ``_decode`` gives)."""
        bits = np.asarray(bits)
        if self.bits == 16:
            return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)
        return self._values[bits.astype(np.uint8, copy=False)]

    def _decode(self, bits) -> np.ndarray:
        """float32 values of 8-bit codes, from the format's fields (sign, exponent, mantissa)."""
        b = np.asarray(bits).astype(np.int64)
        sign = np.where(b >> 7 & 1, -1.0, 1.0)
        field = (b >> self.m) & ((1 << self.e) - 1)
        man = b & ((1 << self.m) - 1)
        val = np.where(field == 0, np.ldexp(man.astype(np.float64), 1 - self.bias - self.m),
                       np.ldexp((man + (1 << self.m)).astype(np.float64), field - self.bias - self.m))
        val = sign * val
        if self.inf:
            top = field == (1 << self.e) - 1
            val = np.where(top & (man == 0), sign * np.inf, np.where(top, np.nan, val))
        elif self.fnuz:
            val = np.where(b == 0x80, np.nan, val)
        else:
            val = np.where((field == (1 << self.e) - 1) & (man == (1 << self.m) - 1), np.nan, val)
        return val.astype(np.float32)


@lru_cache(maxsize=256)
def _encoded_one(fmt: float_format, bits: int):
    """``fmt.encode`` of the float32 whose bits are ``bits`` (:meth:`float_format.encode_one`), read-only."""
    out = fmt.encode(np.uint32(bits).view(np.float32))
    if out.__class__ is np.ndarray:
        out.flags.writeable = False
    return out


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
bfloat16 = float_format("bf16", 8, 7, 127, inf=True)  #: ``tl.bfloat16``, brain float (8-bit exponent)
float8e5 = float_format("fp8e5", 5, 2, 15, inf=True)  #: ``tl.float8e5``, OCP e5m2
float8e4nv = float_format("fp8e4nv", 4, 3, 7, inf=False)  #: ``tl.float8e4nv``, OCP e4m3fn (max 448)
float8e4b15 = float_format("fp8e4b15", 4, 3, 15, inf=False)  #: ``tl.float8e4b15``, e4m3 with bias 15
float8e4b8 = float_format("fp8e4b8", 4, 3, 8, inf=False, fnuz=True)  #: ``tl.float8e4b8``, e4m3fnuz
float8e5b16 = float_format("fp8e5b16", 5, 2, 16, inf=False, fnuz=True)  #: ``tl.float8e5b16``, e5m2fnuz
EMULATED = (bfloat16, float8e5, float8e4nv, float8e4b15, float8e4b8, float8e5b16)
ALL = (int1, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32, float64)
_BY_NUMPY = {d.np: d for d in ALL}
# numpy dtypes of ml_dtypes (and of torch tensors viewed as their bits), by name
_BY_NAME = {"bfloat16": bfloat16, "float8_e5m2": float8e5, "float8_e4m3fn": float8e4nv,
            "float8_e4m3fnuz": float8e4b8, "float8_e5m2fnuz": float8e5b16, "float8_e4m3b11fnuz": float8e4b15}


def is_emulated(t: dtype) -> bool:
    """Whether ``t`` is a format numpy lacks (bfloat16, float8), held in float32 registers."""
    return isinstance(t, float_format)


def from_numpy(np_dtype) -> dtype:
    """The Triton type of a numpy dtype (``float16`` → ``tl.float16``); TypeError if Triton has none.

    Examples
    --------
    >>> from_numpy(np.float32), from_numpy(np.dtype("int64"))
    (triton.language.fp32, triton.language.int64)
    """
    if isinstance(np_dtype, dtype):
        return np_dtype
    name = getattr(np_dtype, "name", None) or str(getattr(np_dtype, "__name__", np_dtype))
    if name in _BY_NAME:
        return _BY_NAME[name]
    try:
        return _BY_NUMPY[np.dtype(np_dtype)]
    except (KeyError, TypeError) as exc:
        raise TypeError(_("no Triton type for numpy dtype {np_dtype!r}").format(np_dtype=np_dtype)) from exc


def of_python(value) -> dtype:
    """The type Triton gives a Python or numpy scalar in a kernel's code (Triton's ``to_tensor``): int → int32
    (uint32, int64, uint64 when it does not fit), float → fp32 (fp64 for a magnitude fp32 holds only as a
    subnormal or not at all). A scalar *argument* is typed by :func:`of_argument`.

    Examples
    --------
    >>> of_python(3), of_python(2**40), of_python(0.5), of_python(True), of_python(np.float16(1)), of_python(1e-40)
    (triton.language.int32, triton.language.int64, triton.language.fp32, triton.language.int1, triton.language.fp16, triton.language.fp64)
    """
    cls = value.__class__
    if cls is float:  # (the commonest literals first: a Python float, a Python int in int32's range)
        return float32 if value == 0 or not math.isfinite(value) or _FP32_NORMAL <= abs(value) <= _FP32_MAX else float64
    if cls is int and -(2**31) <= value < 2**31:
        return int32
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
        raise OverflowError(_("integer {value} does not fit in 64 bits").format(value=value))
    if isinstance(value, float):  # fp32 when it is 0, inf, NaN or a normal fp32 magnitude, as Triton's to_tensor
        return float32 if value == 0 or not math.isfinite(value) or _FP32_NORMAL <= abs(value) <= _FP32_MAX else float64
    raise TypeError(_("a {type} is not a Triton scalar").format(type=type(value).__name__))


_FP32_NORMAL, _FP32_MAX = 2.0**-126, (2 - 2**-23) * 2.0**127  # Python floats: compared without a cast to fp32


def of_argument(value) -> dtype:
    """The type Triton's launcher gives a scalar kernel argument (Triton 3.9's ``specialize_impl``), which is
    not :func:`of_python`'s for a number in the kernel's code: a float is fp32 whatever its magnitude (the
    launcher passes a C ``float``), an int is int32 when it fits, uint64 in [2^63, 2^64), else int64.

    Examples
    --------
    >>> of_argument(3), of_argument(2**31), of_argument(2**63), of_argument(1e300), of_argument(True)
    (triton.language.int32, triton.language.int64, triton.language.uint64, triton.language.fp32, triton.language.int1)
    """
    if isinstance(value, (bool, np.bool_)):
        return int1
    if isinstance(value, np.generic):
        return from_numpy(value.dtype)
    if isinstance(value, int):
        if -(2**31) <= value < 2**31:
            return int32
        if 2**63 <= value < 2**64:
            return uint64
        if -(2**63) <= value < 2**63:
            return int64
        raise OverflowError(_("integer {value} does not fit in 64 bits").format(value=value))
    if isinstance(value, float):
        return float32
    raise TypeError(_("a {type} is not a Triton scalar").format(type=type(value).__name__))


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
            return float32 if div_or_mod and block.is_floating() and block is not float64 else block
    if float64 in (a, b):
        return float64
    if float32 in (a, b):
        return float32
    if div_or_mod and (a.is_floating() or b.is_floating()):
        return float32
    if float16 in (a, b):
        return float16
    if a is bfloat16 and b is bfloat16:
        return bfloat16
    if bfloat16 in (a, b):
        return float32
    if is_emulated(a) and is_emulated(b):
        return a if a is b else float16
    if a.is_floating() or b.is_floating():
        raise TypeError(_("unexpected type {a} and {b}").format(a=a, b=b))
    if div_or_mod and a.kind != b.kind and BOOL not in (a.kind, b.kind):
        raise TypeError(_("cannot use / or % with {a} and {b}: signedness differs").format(a=a, b=b))
    return _integer_promote(a, b)
