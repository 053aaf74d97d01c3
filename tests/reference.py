"""Helpers several test modules share: arrays placed at a chosen alignment, float64 references, the
mini-Triton's plain path."""

from contextlib import contextmanager

import numpy as np


def placed(values: np.ndarray, at: int) -> np.ndarray:
    """A copy of ``values`` starting ``at`` elements past a 256-byte boundary (numpy's own alignment varies)."""
    w = values.itemsize
    buf = np.zeros(values.size + (256 + at * w) // w + 1, values.dtype)
    lo = (-buf.ctypes.data % 256) // w + at
    out = buf[lo:lo + values.size]
    out[:] = values
    return out


def attention_float64(q, k, v, scale: float) -> np.ndarray:
    """softmax(q·kᵀ · scale)·v per head (axis 0), in float64: the reference of the FlashAttention tests."""
    q64, k64, v64 = (a.astype(np.float64) for a in (q, k, v))
    s = q64 @ k64.transpose(0, 2, 1) * scale
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v64


@contextmanager
def plain_path():
    """Launches without the structured fast path and without deferred stores (the reference they equal)."""
    from kernellab.triton import engine, tensor

    saved = tensor._STRUCTURED, engine.DEFER
    tensor._STRUCTURED, engine.DEFER = frozenset(), False
    try:
        yield
    finally:
        tensor._STRUCTURED, engine.DEFER = saved
