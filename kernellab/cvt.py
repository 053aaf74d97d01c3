"""Conversions to another element type as the GPU's ``cvt`` instruction makes them, where numpy's differ.

A float converted to an integer type, of any width, signed or unsigned, rounds toward zero and
saturates: a value past the type's range gives the type's largest or smallest value, and NaN gives 0
(PTX ISA, ``cvt``: "for float-to-integer conversions, the result is clamped to the destination range by
default", and NaN converts to 0; ``cvt.rzi`` is what a C cast, Triton's ``.to`` and ``tl.cast`` compile
to). numpy leaves those cases undefined: on x86 it gives INT_MIN for NaN and 4294967295 for −1.0 →
uint32. Both engines convert through :func:`astype` (the SIMT simulator's stores, the mini-Triton's
``.to``, ``tl.cast`` and stores), and libdevice's ``float2int_rz`` and its siblings saturate the same
way after rounding in their own mode.

Examples
--------
>>> import numpy as np
>>> x = np.float32([np.nan, -1.0, 3.9, -3.9, 1e10, -1e10, np.inf])
>>> astype(x, np.int32).tolist()
[0, -1, 3, -3, 2147483647, -2147483648, 2147483647]
>>> astype(x, np.uint32).tolist()                   # −1.0 and −3.9 are below 0: 0
[0, 0, 3, 0, 4294967295, 0, 4294967295]
>>> astype(x, np.int8).tolist(), astype(np.int32([300]), np.int8).tolist()  # ints wrap, as cvt between ints
([0, -1, 3, -3, 127, -128, 127], [44])
"""

from __future__ import annotations

import numpy as np


def saturate(y: np.ndarray, dtype) -> np.ndarray:
    """Whole-valued floats ``y`` (already rounded, in any mode) as integer type ``dtype``: past the range,
    its largest or smallest value; NaN, 0."""
    dtype = np.dtype(dtype)
    info = np.iinfo(dtype)
    y = np.asarray(y)
    with np.errstate(invalid="ignore"):
        hi = y >= float(info.max) + 1  # 2^7, 2^8, …, 2^63, 2^64: exact in every float type that reaches them
        lo = y < float(info.min)
        bad = hi | lo | (y != y)
        if not bad.any():
            return y.astype(dtype)
        out = np.where(bad, 0, y).astype(dtype)
    out[hi] = info.max
    out[lo] = info.min
    return out


def to_int(x: np.ndarray, dtype) -> np.ndarray:
    """Floats ``x`` as integer type ``dtype``, rounded toward zero and saturated (``cvt.rzi``)."""
    x = np.asarray(x)
    if x.dtype.kind != "f" or x.dtype.itemsize < 4:  # float16: its bounds (±2^31 …) are past its range
        x = x.astype(np.float32 if x.dtype.kind == "f" else np.float64)
    with np.errstate(invalid="ignore"):
        return saturate(np.trunc(x), dtype)


def astype(x, dtype) -> np.ndarray:
    """``x`` (a numpy array or scalar) as ``dtype``: a float to an integer type through :func:`to_int`,
    anything else as numpy converts it (ints wrap, floats round to nearest even)."""
    dtype = np.dtype(dtype)
    x = np.asarray(x)
    if x.dtype.kind == "f" and dtype.kind in "iu":
        return to_int(x, dtype)
    return x.astype(dtype, copy=False)
