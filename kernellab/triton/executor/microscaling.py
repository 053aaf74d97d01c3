"""The OCP microscaling (MX) element and scale formats on numpy arrays: fp4 e2m1, the e8m0 scale, and
fp4 packing two to a byte. ``tl.dot_scaled`` and ``triton.tools.mxfp`` both decode with these.

An e2m1 code is ``s eem``: sign, 2 exponent bits (bias 1), 1 mantissa bit; exponent 0 is subnormal
(``m · 0.5``). Its 16 codes are ±{0, 0.5, 1, 1.5, 2, 3, 4, 6}; there is no inf or NaN. An e8m0 scale
is a biased power of two, ``2^(code − 127)``, with 255 for NaN. A block of 32 consecutive elements
along K shares one scale (MXFP4, MXFP8). Packed fp4 keeps the first element of each pair in the low
nibble (Triton's and the MX specification's order).

Examples
--------
>>> e2m1_decode(np.uint8([0b0111, 0b0001, 0b1010, 0b1000])).tolist()   # 6, 0.5, -1, -0
[6.0, 0.5, -1.0, -0.0]
>>> e8m0_decode(np.uint8([127, 128, 0, 255])).tolist()                  # 2^0, 2^1, 2^-127, NaN
[1.0, 2.0, 5.877471754111438e-39, nan]
>>> hex(int(pack_fp4(np.uint8([[0b0010, 0b0111]]), axis=1)[0, 0]))     # 1.0 low, 6.0 high
'0x72'
"""

from __future__ import annotations

import numpy as np

E2M1_VALUES = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0], np.float32)  #: magnitudes of codes 0–7
E2M1_MAX = 6.0  #: the largest e2m1 magnitude
E8M0_BIAS = 127  #: an e8m0 code c stands for 2^(c − 127)
E8M0_NAN = 255  #: the e8m0 code of NaN
MX_BLOCK = 32  #: elements sharing one scale in MXFP4 and MXFP8


def e2m1_decode(codes) -> np.ndarray:
    """float32 values of e2m1 codes (the low 4 bits of each uint8)."""
    c = np.asarray(codes).astype(np.uint8) & 0xF
    mag = E2M1_VALUES[c & 0x7]
    return np.where(c & 0x8, -mag, mag).astype(np.float32)


def e2m1_encode(values) -> np.ndarray:
    """e2m1 codes (uint8) of float values: nearest, ties to the even mantissa; beyond ±6, and inf and
    NaN, clamp to ±6 (the sign kept); magnitudes below 0.25 become zero (of the value's sign)."""
    v = np.asarray(values, np.float64)
    sign = np.signbit(v).astype(np.uint8) << 3
    mag = np.where(np.isfinite(v), np.abs(v), E2M1_MAX)
    err = np.abs(mag[..., None] - E2M1_VALUES.astype(np.float64))
    best = err.min(axis=-1, keepdims=True)
    odd = (np.arange(8) & 1).astype(bool)  # codes with mantissa bit 1 (0.5, 1.5, 3, 6)
    # among the nearest codes (one, or two at a tie), the one with an even mantissa
    code = np.argmin(np.where(err == best, odd, 2), axis=-1).astype(np.uint8)
    return sign | code


def e8m0_decode(codes) -> np.ndarray:
    """float32 values ``2^(code − 127)`` of e8m0 codes; 255 is NaN (code 0 is 2^-127, an fp32 subnormal)."""
    c = np.asarray(codes).astype(np.int64)
    return np.where(c == E8M0_NAN, np.nan, np.ldexp(1.0, c - E8M0_BIAS)).astype(np.float32)


def e8m0_encode(values) -> np.ndarray:
    """e8m0 codes of positive values: ``floor(log2 v) + 127`` clamped to [0, 254]; zero, negative, inf
    and NaN values become 255 (NaN). ``floor(log2 v)`` is exact (``np.frexp``)."""
    v = np.asarray(values, np.float64)
    bad = ~np.isfinite(v) | (v <= 0)
    e = np.frexp(np.where(bad, 1.0, v))[1] - 1
    return np.where(bad, E8M0_NAN, np.clip(e + E8M0_BIAS, 0, 254)).astype(np.uint8)


def pack_fp4(codes, axis: int) -> np.ndarray:
    """Two e2m1 codes a byte along ``axis`` (first one in the low nibble); an odd length is padded with 0."""
    c = np.moveaxis(np.asarray(codes).astype(np.uint8) & 0xF, axis, -1)
    if c.shape[-1] % 2:
        c = np.concatenate([c, np.zeros((*c.shape[:-1], 1), np.uint8)], axis=-1)
    return np.moveaxis(c[..., 0::2] | (c[..., 1::2] << 4), -1, axis)


def unpack_fp4(packed, axis: int, length: int | None = None) -> np.ndarray:
    """The e2m1 codes of bytes packed two along ``axis``, cut to ``length`` along it (padding dropped)."""
    p = np.moveaxis(np.asarray(packed).astype(np.uint8), axis, -1)
    out = np.stack([p & 0xF, p >> 4], axis=-1).reshape(*p.shape[:-1], 2 * p.shape[-1])
    if length is not None:
        out = out[..., :length]
    return np.moveaxis(out, -1, axis)
