"""A fused multiply-add rounded once, as the GPU's ``fma.rn`` rounds it, from its product and sum in float64.

Both engines compute ``a × b + c`` in float64: the product of two float32 (or float16) values is exact
there (24 + 24 ≤ 53 bits), but the sum is rounded, to float64, and rounding that to float32 is a second
rounding. The two give a different answer from one rounding where the float64 sum lands exactly halfway
between two float32 values while the exact sum does not. With ``a = 64 · (1 + 2⁻¹²)``,
``b = 1 − 4095 · 2⁻²⁴`` (both float32) and ``c = 2³⁰``, ``a × b = 64 · (1 + 2⁻³⁶) = 64 + 2⁻³⁰`` exactly, and
``a × b + c = 2³⁰ + 64 + 2⁻³⁰``: float64 (spacing 2⁻²² there) rounds it to ``2³⁰ + 64``, the tie between the
float32 values ``2³⁰`` and ``2³⁰ + 128``, which goes to the even one, ``2³⁰``; rounded once, the exact sum lies
above the tie and gives ``2³⁰ + 128``, as CUDA's ``fmaf`` does (PTX ``fma.rn.f32``: "computes the product of
a and b to infinite precision and then adds c to this product, again in infinite precision. The resulting
value is then rounded").

:func:`round_once` rounds the float64 sum and corrects those ties. A float64 sum ``s`` can be a float32 tie
only if its 29 bits below float32's last are 1 and 28 zeros (a tie in float32's normal range), or if it
rounds into float32's subnormals or lowest binade, where ties sit elsewhere; only those elements are looked
at again. There the sum's rounding error ``e`` (``p + c = s + e`` exactly, Knuth's two-sum) says on which side
of the tie the exact sum lies, and an element whose ``s`` is a tie and whose ``e`` is not zero takes the
neighbour on ``e``'s side. The same holds for float16 (42 bits below its last).

Examples
--------
>>> import numpy as np
>>> a, b, c = np.float32(64 * (1 + 2**-12)), np.float32(1 - 4095 * 2**-24), np.float32(2**30)
>>> s = np.array([np.float64(a) * np.float64(b) + np.float64(c)])   # a·b = 64 + 2^-30 exactly; the sum is not
>>> int(s.astype(np.float32)[0]) - 2**30               # rounded twice: the tie goes to even
0
>>> int(round_once(s, np.float32, a, b, c)[0]) - 2**30   # once: the exact sum is above the tie
128
"""

from __future__ import annotations

import numpy as np

_INT64_MIN = np.iinfo(np.int64).min  # a normal-range tie's bits below the type's last, at the word's top

#: For each target type: bits of a float64 fraction below the type's last bit, the unsigned integer of the
#: type's bits, the magnitude bits of its lowest normal binade's end (exponent field 1, fraction all ones),
#: and the first power of two past its largest finite value (where a tie between the largest value and
#: "infinity" sits half a spacing below).
_LAYOUT = {
    np.dtype(np.float32): (29, np.uint32, 0x00FFFFFF, 2.0**128),
    np.dtype(np.float16): (42, np.uint16, 0x07FF, 2.0**16),
}
#: The same, with the numpy scalars :func:`round_once` shifts and compares by (made once, not per call).
_SCALARS = {t: (np.uint64(64 - below), uint(1), uint(2 * lowest), uint(2)) for t, (below, uint, lowest, _top) in _LAYOUT.items()}
_min = np.minimum.reduce  # ndarray.min without its Python wrapper


def round_once(s: np.ndarray, dtype, a, b, c) -> np.ndarray:
    """``a × b + c`` rounded once to ``dtype`` (float32 or float16; ties to even), given ``s``, its float64
    value: ``a × b`` in float64 plus ``c`` in float64 (``np.multiply(a, b, dtype=np.float64) + c``), an array
    of the result's shape, to which ``a``, ``b`` and ``c`` broadcast.

    With float32 or float16 ``a`` and ``b`` (whose product float64 holds exactly) this is ``fma.rn(a, b, c)``;
    a float64 operand is multiplied as it is. Other types are ``s.astype(dtype)``. Returns a new array;
    ``s`` is used as scratch space (its values are lost), so that no other large array is made.
    """
    dtype = np.dtype(dtype)
    if np.ndim(s) == 0:
        return round_once(np.reshape(s, 1), dtype, a, b, c).reshape(())
    r = s.astype(dtype)
    layout = _LAYOUT.get(dtype)
    if layout is None or r.size == 0:
        return r
    flags = s.flags
    if not (flags.c_contiguous and flags.writeable and s.dtype == np.float64):
        s = np.array(s, np.float64)
    _below, uint, _lowest_binade, top = layout
    shift, one, twice_lowest, two = _SCALARS[dtype]
    flat_r = r.reshape(-1)
    # a tie of dtype's normal range: the bits below dtype's last are 1 and zeros, so that shifted to the top of
    # the word they leave its sign bit alone, the smallest int64 (the smallest word says whether any does)
    bits = s.reshape(-1).view(np.uint64)
    np.left_shift(bits, shift, out=bits)  # by 64 − the bits below dtype's last; unsigned: no bit is lost to a sign
    word = bits.view(np.int64)
    tie = word == _INT64_MIN if _min(word) == _INT64_MIN else None
    # or |r| among the subnormals or in the lowest normal binade, not zero: twice its bits without the sign (in
    # s's memory, no longer needed) at most twice that binade's end; their minimum above it (no such |r| and no
    # zero, the common case) rules them all out in one pass, otherwise zero is told apart by subtracting 2
    # (zero wraps round)
    mag = word.view(uint)[: flat_r.size]
    np.left_shift(flat_r.view(uint), one, out=mag)
    if _min(mag) <= twice_lowest:
        np.subtract(mag, two, out=mag)
        tiny = mag < twice_lowest
        if tiny.any():
            tie = tiny if tie is None else tie | tiny
    if tie is None:
        return r
    i = np.flatnonzero(tie)
    with np.errstate(all="ignore"):  # infinities and NaNs in the sums looked at again
        at = np.unravel_index(i, r.shape)
        shape = r.shape
        pf = np.multiply(np.broadcast_to(a, shape)[at], np.broadcast_to(b, shape)[at], dtype=np.float64)
        cf = np.asarray(np.broadcast_to(c, shape)[at], np.float64)
        sf = pf + cf  # the float64 sum again, where s was a candidate
        bb = sf - pf  # Knuth's two-sum: a·b + c = sf + e exactly
        e = (pf - (sf - bb)) + (cf - bb)
        near = flat_r[i]
        lo = _wide(near, sf, top)
        other = np.nextafter(near, np.where(sf > lo, np.inf, -np.inf).astype(dtype))  # the neighbour on sf's side
        hi = _wide(other, sf, top)
        halfway = (sf != lo) & ((lo + hi) * 0.5 == sf)
        move = halfway & (np.sign(e) == np.sign(hi - lo))  # the exact sum lies past the tie, on other's side
        flat_r[i[move]] = other[move]
    return r


def _wide(x: np.ndarray, s: np.ndarray, top: float) -> np.ndarray:
    """``x`` in float64, an infinity from a finite ``s`` as ``±top`` (the power of two past the largest value)."""
    w = x.astype(np.float64)
    return np.where(np.isinf(w) & np.isfinite(s), np.copysign(top, s), w)
