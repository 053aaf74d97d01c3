"""Helpers several test modules share: arrays placed at a chosen alignment, float64 references, the
mini-Triton's reference policy."""

import importlib.util
from pathlib import Path

import numpy as np


def fresh_module(path: Path, name: str):
    """The Python file ``path`` executed as a new module ``name``: each test module gets kernels of its own
    (their launch caches, learnt hints and replays are not another module's)."""
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


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


def plain_path():
    """Launches under the reference policy (:meth:`~kernellab.triton.executor.policy.Policy.reference`): programs
    one after another, no structured offsets, no closed-form counts, no deferred stores: the reference every
    shortcut equals."""
    from kernellab.triton.executor.policy import Policy, using

    return using(Policy.reference())
