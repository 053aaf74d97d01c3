"""The integer intrinsics of libdevice on numpy arrays: bit counts, bit reversal, byte permutes, high
products, 24-bit products, averages and sums of absolute differences, exact as the GPU computes them.

Signed inputs are read through their two's-complement bit patterns, as the GPU reads its registers.

Examples
--------
>>> clz(np.int32([0, 1, -1])).tolist(), popc(np.int64([0, 255, -1])).tolist(), ffs(np.int32([0, 8])).tolist()
([32, 31, 0], [0, 8, 64], [0, 4])
>>> hex(int(brev(np.int32([1]))[0].view(np.uint32)))   # bit 0 becomes bit 31
'0x80000000'
>>> hex(int(byte_perm(np.int32([0x33221100]), np.int32([0x77665544]), np.int32([0x7531]))[0]))
'0x77553311'
"""

from __future__ import annotations

import numpy as np

_POPC8 = np.array([bin(i).count("1") for i in range(256)], np.int32)
_REV8 = np.array([int(f"{i:08b}"[::-1], 2) for i in range(256)], np.uint8)



def mulhi_u64(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The high 64 bits of the 128-bit products of uint64 arrays, from 32-bit halves.

    Examples
    --------
    >>> mulhi_u64(np.uint64([2**64 - 1, 2**32]), np.uint64([2**64 - 1, 2**32])).tolist()  # (2^64-1)^2 >> 64, 2^64 >> 64
    [18446744073709551614, 1]
    """
    m, s32 = np.uint64(0xFFFFFFFF), np.uint64(32)
    a, b = np.asarray(a, np.uint64), np.asarray(b, np.uint64)
    a_lo, a_hi, b_lo, b_hi = a & m, a >> s32, b & m, b >> s32
    ll, lh, hl, hh = a_lo * b_lo, a_lo * b_hi, a_hi * b_lo, a_hi * b_hi
    mid = (ll >> s32) + (lh & m) + (hl & m)
    return hh + (lh >> s32) + (hl >> s32) + (mid >> s32)


def _unsigned(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x)
    return x.view(np.uint32 if x.dtype.itemsize == 4 else np.uint64)


def _bit_length(u: np.ndarray) -> np.ndarray:
    """Bits needed for each value of a uint32/uint64 array (0 for 0), exactly (halves of 32 bits)."""
    u = u.astype(np.uint64)
    hi, lo = (u >> np.uint64(32)).astype(np.float64), (u & np.uint64(0xFFFFFFFF)).astype(np.float64)
    n_hi, n_lo = np.frexp(hi)[1], np.frexp(lo)[1]  # frexp(v)[1] is v's bit length for 0 < v < 2^53
    return np.where(hi > 0, n_hi + 32, n_lo).astype(np.int32)


def clz(x) -> np.ndarray:
    """Leading zero bits of int32 (``__clz``) or int64 (``__clzll``) values; int32."""
    bits = np.asarray(x).dtype.itemsize * 8
    return (bits - _bit_length(_unsigned(x))).astype(np.int32)


def popc(x) -> np.ndarray:
    """Set bits of int32 (``__popc``) or int64 (``__popcll``) values; int32."""
    b = np.ascontiguousarray(_unsigned(x))
    return _POPC8[b.view(np.uint8).reshape(*b.shape, b.itemsize)].sum(axis=-1, dtype=np.int32)


def ffs(x) -> np.ndarray:
    """1-based position of the lowest set bit (0 for 0) of int32 or int64 values (``__ffs``); int32."""
    u = _unsigned(x)
    return _bit_length(u & (~u + u.dtype.type(1)))  # u & -u keeps the lowest set bit


def brev(x) -> np.ndarray:
    """Bit-reversed int32 (``__brev``) or int64 (``__brevll``) values, in their own type."""
    x = np.ascontiguousarray(x)
    b = x.view(np.uint8).reshape(*x.shape, x.itemsize)
    return np.ascontiguousarray(_REV8[b[..., ::-1]]).view(x.dtype).reshape(x.shape)


def byte_perm(x, y, s) -> np.ndarray:
    """``__byte_perm(x, y, s)``: byte ``n`` of the result is byte ``(s >> 4n) & 7`` of the 8 bytes ``y:x``
    (bytes 0–3 from ``x``, 4–7 from ``y``, least significant first); int32."""
    x, y, s = np.broadcast_arrays(*(np.asarray(v).astype(np.int64) & 0xFFFFFFFF for v in (x, y, s)))
    both = x | (y << 32)
    out = np.zeros(x.shape, np.int64)
    for n in range(4):
        sel = (s >> (4 * n)) & 7
        out |= ((both >> (8 * sel)) & 0xFF) << (8 * n)
    return out.astype(np.uint32).view(np.int32)


def mulhi(x, y) -> np.ndarray:
    """High half of the double-width product: int32 (``__mulhi``), uint32 (``__umulhi``), int64
    (``__mul64hi``), uint64 (``__umul64hi``), in the operands' type."""
    x, y = np.broadcast_arrays(np.asarray(x), np.asarray(y))
    if x.itemsize == 4:
        wide = np.int64 if x.dtype.kind == "i" else np.uint64
        return ((x.astype(wide) * y.astype(wide)) >> wide(32)).astype(x.dtype)
    ux, uy = _unsigned(x), _unsigned(y)
    hi = mulhi_u64(ux, uy)
    if x.dtype.kind == "i":  # signed: subtract y·2^64 for a negative x and x·2^64 for a negative y
        hi = hi - np.where(x < 0, uy, 0).astype(np.uint64) - np.where(y < 0, ux, 0).astype(np.uint64)
    return hi.view(x.dtype)


def mul24(x, y) -> np.ndarray:
    """Low 32 bits of the product of the low 24 bits of ``x`` and ``y`` (``__mul24`` reads them as
    signed 24-bit values, ``__umul24`` as unsigned), in the operands' type."""
    x, y = np.broadcast_arrays(np.asarray(x), np.asarray(y))
    a, b = x.astype(np.int64) & 0xFFFFFF, y.astype(np.int64) & 0xFFFFFF
    if x.dtype.kind == "i":  # sign-extend bit 23
        a, b = np.where(a >= 1 << 23, a - (1 << 24), a), np.where(b >= 1 << 23, b - (1 << 24), b)
    return ((a * b) & 0xFFFFFFFF).astype(np.uint32).view(np.int32 if x.dtype.kind == "i" else np.uint32)


def sad(x, y, z) -> np.ndarray:
    """``|x − y| + z`` modulo 2^32 (``__sad`` for int32 ``x, y``, ``__usad`` for uint32), in ``x``'s type."""
    dt = np.asarray(x).dtype
    d = np.abs(np.asarray(x).astype(np.int64) - np.asarray(y).astype(np.int64))
    return ((d + (np.asarray(z).astype(np.int64) & 0xFFFFFFFF)) & 0xFFFFFFFF).astype(np.uint32).view(
        np.int32 if dt.kind == "i" else np.uint32)


def hadd(x, y, rounded: bool = False) -> np.ndarray:
    """``(x + y) >> 1`` without overflow (``__hadd``/``__uhadd``); ``rounded``: ``(x + y + 1) >> 1``
    (``__rhadd``/``__urhadd``), in ``x``'s type."""
    dt = np.asarray(x).dtype
    return ((np.asarray(x).astype(np.int64) + np.asarray(y).astype(np.int64) + int(rounded)) >> 1).astype(dt)
