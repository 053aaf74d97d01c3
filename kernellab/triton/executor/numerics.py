"""Numeric rules both front ends share: ``arange``'s power-of-two rule, block shapes, and ``dot``.

``dot`` multiplies blocks with a leading axis over programs, accumulating in fp32 for floating inputs
(fp16 products are exact in fp32) and int32 for integer inputs, as ``tl.dot`` does by default. Its
``input_precision`` is the one the caller resolved (``tl.dot`` resolves Triton 3.9's default, ``"tf32"`` on
every GPU kernellab models; None here, which the lecture form passes, and ``"ieee"`` compute IEEE fp32).

**TF32.** Triton passes the fp32 registers to the tensor cores unchanged (no ``cvt`` in the PTX it
compiles for sm_80 and sm_90), and the tensor cores drop the low 13 mantissa bits: "``wgmma.mma_async``
involving type ``.tf32`` will truncate lower 13 bits of the 32-bit input data" (PTX ISA), and
``tl.dot``'s own docstring warns that fp32 inputs "may be truncated to TF32 format … without rounding".
So ``input_precision="tf32"`` truncates here (:func:`tf32_truncate`). Rounding is what a kernel asks for
explicitly: ``cvt.rn.tf32.f32`` (to nearest, ties to even — what a TMA descriptor made with
``round_f32_to_tf32=True`` does on Hopper) or ``cvt.rna.tf32.f32`` (ties away from zero), both
:func:`tf32_round`. ``"tf32x3"`` is Triton's F32DotTC split (``_tf32x3``): each input's high part
rounded to TF32 by ``cvt.rna.tf32.f32``, its remainder left for the tensor cores to truncate, and three
TF32 products added, recovering about fp32 accuracy.
"""

from __future__ import annotations

import math
from functools import cache
from typing import NamedTuple

import numpy as np

from kernellab.i18n import _

TRITON_MAX_TENSOR_NUMEL = 1048576  # Triton's limit on the elements of one block
# tl.dot's input_precision values Triton 3.9's NVIDIA backend allows (backends/nvidia/compiler.py, CUDAOptions)
DOT_INPUT_PRECISIONS = ("tf32", "tf32x3", "ieee", "bf16x3", "bf16x6")


def check_arange(start, end) -> int:
    """The length of ``arange(start, end)``, or ValueError as Triton (a power of two, at most 2^20).

    Examples
    --------
    >>> check_arange(0, 1024)
    1024
    >>> check_arange(0, 1000)
    Traceback (most recent call last):
    ...
    ValueError: arange's range must be a power of 2, got arange(0, 1000) of length 1000
    """
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in (start, end)):
        raise TypeError(_("arange's arguments must be compile-time ints, got arange({start!r}, "
                          "{end!r})").format(
            start=start, end=end))
    n = int(end) - int(start)
    if n <= 0:
        raise ValueError(_("arange's end must be greater than start, got arange({start}, {end})").format(
            start=start, end=end))
    if n & (n - 1):
        raise ValueError(_("arange's range must be a power of 2, got arange({start}, {end}) of "
                           "length {n}").format(
            start=start, end=end, n=n))
    if n > TRITON_MAX_TENSOR_NUMEL:
        raise ValueError(_("arange's range must be at most {TRITON_MAX_TENSOR_NUMEL}, got {n}").format(
            TRITON_MAX_TENSOR_NUMEL=TRITON_MAX_TENSOR_NUMEL, n=n))
    return n


def check_shape(shape) -> tuple[int, ...]:
    """A block shape as a tuple of powers of two (Triton's rule for ``zeros`` and ``full``).

    Examples
    --------
    >>> check_shape([64, 32]), check_shape(16)
    ((64, 32), (16,))
    """
    dims = tuple(int(d) for d in (shape if isinstance(shape, (tuple, list)) else (shape,)))
    for i, d in enumerate(dims):
        if d < 1 or d & (d - 1):
            raise ValueError(_("Shape element {i} must be a power of 2, got shape {dims}").format(
                i=i, dims=list(dims)))
    if int(np.prod(dims, dtype=np.int64)) > TRITON_MAX_TENSOR_NUMEL:
        raise ValueError(_("a block may hold at most {TRITON_MAX_TENSOR_NUMEL} elements, got "
                           "shape {dims}").format(
            TRITON_MAX_TENSOR_NUMEL=TRITON_MAX_TENSOR_NUMEL, dims=list(dims)))
    return dims


TF32_DROPPED_BITS = 13  # fp32 has 23 mantissa bits, TF32 keeps 10
_TF32_KEEP = np.uint32(0xFFFFFFFF << TF32_DROPPED_BITS & 0xFFFFFFFF)


def tf32_truncate(x: np.ndarray) -> np.ndarray:
    """fp32 values as the tensor cores read them for a TF32 MMA: the low 13 mantissa bits dropped.

    Truncation is toward zero in magnitude; infinities and NaNs keep their class.

    Examples
    --------
    >>> float(tf32_truncate(np.float32(1 + 2**-11))), float(tf32_truncate(np.float32(-(1 + 3 * 2**-11))))
    (1.0, -1.0009765625)
    """
    x = np.asarray(x, np.float32)
    out = (x.view(np.uint32) & _TF32_KEEP).view(np.float32)
    if x.size and np.isnan(np.max(x)):  # np.max is NaN where any is: one pass, the usual case done
        out = np.where(np.isnan(x), x, out)  # a NaN whose payload lies in the low bits stays a NaN
    return out


def tf32_round(x: np.ndarray, rounding: str = "rn") -> np.ndarray:
    """Round fp32 to TF32 (10 mantissa bits), as ``cvt.rn.tf32.f32`` (``"rn"``: to nearest, ties to even)
    or ``cvt.rna.tf32.f32`` (``"rna"``: to nearest, ties away from zero) do.

    A finite value that rounds past the largest TF32 becomes infinity; infinities and NaNs stay.

    Examples
    --------
    >>> tie, odd_tie = np.float32(1 + 2**-11), np.float32(1 + 3 * 2**-11)   # halfway between TF32 neighbours
    >>> float(tf32_round(tie)), float(tf32_round(odd_tie))                  # ties to the even mantissa
    (1.0, 1.001953125)
    >>> float(tf32_round(tie, "rna"))                                       # ties away from zero
    1.0009765625
    """
    if rounding not in ("rn", "rna"):
        raise ValueError(_("rounding must be 'rn' or 'rna', not {rounding!r}").format(rounding=rounding))
    x = np.asarray(x, np.float32)
    bits = x.view(np.uint32)
    half = np.uint32(1 << (TF32_DROPPED_BITS - 1))
    if rounding == "rn":  # add half an ulp, minus one unless the kept last bit is odd: ties go to even
        bias = half - np.uint32(1) + ((bits >> np.uint32(TF32_DROPPED_BITS)) & np.uint32(1))
    else:
        bias = half
    rounded = ((bits + bias) & _TF32_KEEP).view(np.float32)
    return np.where(np.isfinite(x), rounded, x)


def _tf32x3(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` as Triton 3.9's F32DotTC pass computes ``input_precision="tf32x3"`` (its TTGIR for sm_80 and
    sm_90): ``hi = cvt.rna.tf32.f32(x)``, ``lo = x − hi`` (exact in fp32), three TF32 MMAs whose tensor cores
    truncate ``lo`` (``hi`` is TF32 already): ``small = lo_a·hi_b + hi_a·lo_b``, a NaN there replaced by 0
    (an infinite input's ``lo`` is NaN), then ``hi_a·hi_b + small``.

    >>> one = np.float32(1 + 2**-11 + 2**-12)    # hi = 1 + 2^-10 (nearest), lo = 2^-11 + 2^-12 - 2^-10 = -2^-12
    >>> float(_tf32x3(np.full((1, 1), one), np.ones((1, 1), np.float32))[0, 0]) == float(one)
    True
    """
    a_hi, b_hi = tf32_round(a, "rna"), tf32_round(b, "rna")
    a_lo, b_lo = tf32_truncate(a - a_hi), tf32_truncate(b - b_hi)
    small = np.matmul(a_lo, b_hi)
    small += np.matmul(a_hi, b_lo)
    small[np.isnan(small)] = 0
    return np.matmul(a_hi, b_hi) + small


class Grouped(NamedTuple):
    """A ``(G · per, r, c)`` block of float32 tiles whose consecutive programs share them, ``per`` programs a tile:
    program ``p`` holds ``tiles[p // per]`` (FlashAttention's keys and values, which the programs of a head
    share), kept without its copies.

    >>> g = Grouped(np.arange(8.0).reshape(2, 2, 2), 3)
    >>> g.shape, np.array_equal(g.array()[4], g.tiles[1])
    ((6, 2, 2), True)
    """

    tiles: np.ndarray
    per: int

    @property
    def shape(self) -> tuple:
        g, r, c = self.tiles.shape
        return g * self.per, r, c

    def array(self) -> np.ndarray:
        """Every program's tile, copied: ``(G · per, r, c)``."""
        return np.repeat(self.tiles, self.per, axis=0)


def matmul(a, b) -> np.ndarray:
    """``np.matmul`` of ``(P, …)`` blocks, either of them :class:`Grouped`: the other's programs then broadcast
    against its tiles, so that each matrix product is the one the copied tiles give, bit for bit (numpy runs the
    same product per matrix whatever the batch's strides).

    >>> a = np.random.default_rng(0).standard_normal((6, 4, 4)).astype(np.float32)
    >>> g = Grouped(np.random.default_rng(1).standard_normal((2, 4, 4)).astype(np.float32), 3)
    >>> np.array_equal(matmul(a, g), np.matmul(a, g.array()))
    True
    """
    if a.__class__ is Grouped and b.__class__ is Grouped:
        b = b.array()
    if b.__class__ is Grouped:
        g, per = b.tiles.shape[0], b.per
        if a.ndim == 3 and a.shape[0] == g * per:
            return np.matmul(a.reshape(g, per, *a.shape[1:]), b.tiles[:, None]).reshape(g * per, a.shape[1], -1)
        b = b.array()
    if a.__class__ is Grouped:
        g, per = a.tiles.shape[0], a.per
        if b.ndim == 3 and b.shape[0] == g * per:
            return np.matmul(a.tiles[:, None], b.reshape(g, per, *b.shape[1:])).reshape(g * per, a.tiles.shape[1], -1)
        a = a.array()
    return np.matmul(a, b)


def dot(a: np.ndarray, b: np.ndarray, acc=None, input_precision=None, out_dtype=np.float32, a32=None,
        b32=None) -> np.ndarray:
    """``acc + a @ b`` over the last two axes, accumulating in fp32 (int32 for integer inputs).

    ``a`` is ``(..., M, K)`` and ``b`` ``(..., K, N)``; leading axes broadcast (programs, batch).
    ``input_precision`` matters for fp32 operands only: ``"tf32"`` reads them truncated to TF32,
    ``"tf32x3"`` as ``_tf32x3``, None or ``"ieee"`` as they are.
    ``a32``, ``b32``: floating inputs already widened to float32 (``_widen``), when the caller has them, each
    an array or a :class:`Grouped` block.

    Examples
    --------
    >>> a = np.full((1, 16, 16), 0.1, np.float16)
    >>> dot(a, a).dtype, float(dot(a, a)[0, 0, 0]) == 16 * float(np.float16(0.1)) ** 2
    (dtype('float32'), True)
    """
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(_("First input shape ({shape}) and second input shape {shape2} are not "
                           "compatible for matmul (second index of first shape ({shape3}) must "
                           "be equal to first index of second shape ({shape4})").format(
            shape=list(a.shape[1:]), shape2=list(b.shape[1:]), shape3=a.shape[-1], shape4=b.shape[-2]))
    if a.dtype.kind == "f" or b.dtype.kind == "f":
        a32 = _widen(a) if a32 is None else a32
        b32 = _widen(b) if b32 is None else b32
        fp32 = a.dtype == np.float32  # the precision matters for fp32 operands only
        if fp32 and input_precision == "tf32x3":
            a32, b32 = (x.array() if x.__class__ is Grouped else x for x in (a32, b32))
            out = _tf32x3(a32, b32)
        else:
            if fp32 and input_precision == "tf32":  # element by element: a Grouped block's tiles stay shared
                a32, b32 = (Grouped(tf32_truncate(x.tiles), x.per) if x.__class__ is Grouped else tf32_truncate(x)
                            for x in (a32, b32))
            out = matmul(a32, b32)
    else:
        out = np.matmul(a.astype(np.int32, copy=False), b.astype(np.int32, copy=False))
    if acc is not None:
        out = np.add(out, acc, out=out) if out.shape == np.shape(acc) and out.dtype == acc.dtype else out + acc
    return out.astype(out_dtype, copy=False)


@cache
def _fp16_table() -> np.ndarray:
    """Every float16 bit pattern's value as a float32 (256 KB), for :func:`_widen`."""
    table = np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float32)
    table.flags.writeable = False
    return table


def _widen(x: np.ndarray) -> np.ndarray:
    """``x.astype(np.float32)``, the same bits; float16 through a table of its 65,536 values (about twice
    as fast as numpy's conversion loop).

    >>> h = np.array([1.5, -0.0, np.inf, 6e-8], np.float16)
    >>> _widen(h).view(np.uint32).tolist() == h.astype(np.float32).view(np.uint32).tolist()
    True
    """
    if x.dtype == np.float16:
        return _fp16_table().take(x.view(np.uint16))
    return x.astype(np.float32, copy=False)


_FP16_TOO_BIG = np.float32(65520).view(np.uint32)  # |x| from here rounds past fp16's largest finite value, 65504
_FP16_MIN_NORMAL = np.float32(2.0**-14).view(np.uint32)


def fp16_values(x: np.ndarray) -> np.ndarray | None:
    """``x.astype(np.float16).astype(np.float32)``, bit for bit, computed in float32 without the float16 array
    (``p.to(tl.float16)`` feeding a ``tl.dot``); None when some ``|x|`` rounds past fp16's largest finite
    value, or is NaN (the caller then converts as usual).

    Where every ``|x|`` is an fp16 normal (at least ``2^−14``), the float32 bits are rounded to fp16's 10
    mantissa bits, to nearest even: ``(b + 0xFFF + bit 13 of b)`` with its low 13 bits cleared (a carry out of
    the mantissa moves the value to the next binade, as it should). Otherwise each value is rounded on its fp16
    grid by ``(x + c) − c``, where ``c = 1.5·2^(e+13)`` has a float32 spacing of ``2^(e−10)``, fp16's spacing at
    ``x``'s exponent ``e`` (``e`` at least −14: below it fp16's subnormals are evenly spaced by ``2^−24``); ``c``
    is an even multiple of that spacing, so ties go to the even fp16 neighbour, and ``copysign`` restores the
    sign of values that round to 0 (where no ``x`` has its sign bit set, ``(x + c) − c`` is +0 or positive
    already: FlashAttention's ``p``, one pass and one copy fewer).

    >>> x = np.float32([1 + 2**-11, 1 + 3 * 2**-11, 2**-25, -2**-25, 3 * 2**-26, 65519, 1e-30])
    >>> fp16_values(x).view(np.uint32).tolist() == x.astype(np.float16).astype(np.float32).view(np.uint32).tolist()
    True
    >>> y = np.float32([1 + 2**-11, -(1 + 3 * 2**-11), 2**-14, 65519, 2047.5])   # fp16 normals only: on the bits
    >>> fp16_values(y).view(np.uint32).tolist() == y.astype(np.float16).astype(np.float32).view(np.uint32).tolist()
    True
    >>> fp16_values(np.float32([65520])) is None, fp16_values(np.float32([np.nan])) is None
    (True, True)
    """
    if x.dtype != np.float32:
        return None
    if x.size == 0:
        return None
    b = x.view(np.uint32)
    signed = np.maximum.reduce(b, axis=None) >= _FP16_TOO_BIG  # a sign bit makes b at least 2^31
    if signed:
        a = b & np.uint32(0x7FFFFFFF)  # |x| as bits (ordered as the values are; NaN above infinity)
        if np.maximum.reduce(a, axis=None) >= _FP16_TOO_BIG:
            return None  # |x| ≥ 65520, infinity, NaN
    else:  # every x is +0 or positive, below 65520 (p = exp2(…) in FlashAttention): x is |x|, its own sign
        a = b
    if np.minimum.reduce(a, axis=None) >= _FP16_MIN_NORMAL:  # fp16 normals only: on the bits
        r = b >> np.uint32(13)
        r &= np.uint32(1)
        r += np.uint32(0x0FFF)
        r += b
        r &= np.uint32(0xFFFFE000)
        return r.view(np.float32)
    if signed:
        e = a
        e &= np.uint32(0x7F800000)  # 2^e as bits
    else:
        e = b & np.uint32(0x7F800000)  # b is x's own bits: not written over
    np.maximum(e, _FP16_MIN_NORMAL, out=e)
    e += np.uint32((13 << 23) + (1 << 22))
    c = e.view(np.float32)
    out = np.add(x, c)
    out -= c
    if not signed:  # x ≥ +0 and c > 0: (x + c) − c is +0 or positive, the sign copysign would give it
        return out
    return np.copysign(out, x, out=out)


def _across(whole):
    """``whole(a, axis, keepdims)`` (``np.max``, ``np.min``) of a batch of 2-D blocks ``(P, rows, n)`` along
    their last axis of 16–128 lanes, reduced across the rows of a transposed copy (numpy's contiguous-axis
    loop is slower at that length): the same values bit for bit, for the largest (smallest) of values is one
    value whatever the order, unless it is 0 (which of −0 and +0 is order's choice) or NaN (which NaN):
    such a result is computed again by ``whole``."""

    def reduce(a, axis=None, keepdims=False):
        if a.ndim != 3 or axis != 2 or not 16 <= a.shape[2] <= 128 or a.size < 4096 or a.dtype.kind != "f":
            return whole(a, axis=axis, keepdims=keepdims)
        out = whole(np.ascontiguousarray(a.transpose(0, 2, 1)), axis=1, keepdims=keepdims)
        if not ((out > 0) | (out < 0)).all():
            return whole(a, axis=axis, keepdims=keepdims)
        return out.transpose(0, 2, 1) if keepdims else out

    reduce.__name__ = whole.__name__
    return reduce


block_max = _across(np.max)
block_max.__doc__ = """``np.max(a, axis, keepdims)``, bit for bit, faster for ``(P, rows, n)`` blocks along ``n``.

>>> a = np.random.default_rng(0).standard_normal((4, 64, 64)).astype(np.float32)
>>> np.array_equal(block_max(a, axis=2), np.max(a, axis=2)), block_max(a, axis=2, keepdims=True).shape
(True, (4, 64, 1))
"""
block_min = _across(np.min)
block_min.__doc__ = """``np.min(a, axis, keepdims)``, bit for bit, as ``block_max`` computes ``np.max``."""


def dot_flops(a_shape, b_shape, programs: int) -> int:
    """``2·M·N·K`` per batch entry, times the programs that run the dot.

    Examples
    --------
    >>> dot_flops((1, 64, 32), (1, 32, 64), programs=4)      # 2·64·64·32 · 4
    1048576
    """
    m, k = a_shape[-2:]
    n = b_shape[-1]
    a_batch, b_batch = tuple(a_shape[1:-2]), tuple(b_shape[1:-2])
    batch = math.prod(a_batch if a_batch == b_batch else np.broadcast_shapes(a_batch, b_batch))
    return 2 * m * n * k * batch * programs
