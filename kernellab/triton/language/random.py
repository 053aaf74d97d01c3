"""Triton's random numbers: Philox-4x32-10 (and 4x64) counter-based generation, bit for bit.

Follows ``triton/language/random.py`` (Triton 3.9) step by step: ``randint4x(seed, offset)`` runs
Philox on the counter ``(offset_lo, offset_hi, 0, 0)`` with key ``(seed_lo, seed_hi)``;
``uint_to_uniform_float`` maps a 32-bit draw to ``[0, 1)`` by ``x·4.6566127342e-10`` after folding
negatives with ``~x``; ``randn`` is Box–Muller of the first two draws. The same seed and offsets give
the same bits as Triton, so a dropout mask can be regenerated in the backward pass instead of stored.
Random numbers are computed in registers: they count no memory.

Examples
--------
>>> c = philox_np(np.uint32([0]), np.uint32([0]), np.uint32([0]), np.uint32([0]), np.uint32(0), np.uint32(0))
>>> [hex(int(v[0])) for v in c]          # Philox-4x32-10 of counter 0, key 0 (Random123's known answer)
['0x6627e8d5', '0xe169c58d', '0xbc57ac4c', '0x9b00dbd8']
"""

from __future__ import annotations

import numpy as np

from kernellab.i18n import _

from ..executor import dtypes as T
from ..executor import kinds
from ..executor.tensor import tensor
from .core import _to_tensor
from .extra.bits import mulhi_u64
from .math import cos, log, maximum, sin, sqrt

N_ROUNDS_DEFAULT = 10  # Philox rounds, Triton's default

_KEYS = {32: (0x9E3779B9, 0xBB67AE85, 0xD2511F53, 0xCD9E8D57),
         64: (0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B, 0xD2E7470EE14C6C93, 0xCA5A826395121157)}


def _umulhi(a: int, x: np.ndarray) -> np.ndarray:
    if x.dtype == np.uint32:
        return ((np.uint64(a) * x.astype(np.uint64)) >> np.uint64(32)).astype(np.uint32)
    return mulhi_u64(np.uint64(a), x)


def philox_np(c0, c1, c2, c3, k0, k1, n_rounds: int = N_ROUNDS_DEFAULT):
    """``n_rounds`` rounds of Philox on counters ``(c0, c1, c2, c3)`` (uint32 or uint64 arrays), key ``(k0, k1)``."""
    bits = 32 if np.asarray(c0).dtype == np.uint32 else 64
    ut = np.uint32 if bits == 32 else np.uint64
    key_a, key_b, round_a, round_b = _KEYS[bits]
    c0, c1, c2, c3 = (np.asarray(c, ut) for c in (c0, c1, c2, c3))
    k0, k1 = ut(k0), ut(k1)
    with np.errstate(over="ignore"):
        for _ in range(int(n_rounds)):
            _c0, _c2 = c0, c2
            c0 = _umulhi(round_b, _c2) ^ c1 ^ k0
            c2 = _umulhi(round_a, _c0) ^ c3 ^ k1
            c1 = (ut(round_b) * _c2).astype(ut)
            c3 = (ut(round_a) * _c0).astype(ut)
            k0 = ut(k0 + ut(key_a))
            k1 = ut(k1 + ut(key_b))
    return c0, c1, c2, c3


def _seed_parts(seed, bits: int):
    s = _to_tensor(seed)
    if not s.dtype.is_int():
        raise TypeError(_("the seed of tl.rand* must be an integer, got {dtype}").format(dtype=s.dtype))
    d = s.data.astype(np.int64).view(np.uint64)
    if s._shape:
        raise ValueError(_("the seed of tl.rand* must be a scalar"))
    if bits == 32:
        return (d & np.uint64(0xFFFFFFFF)).astype(np.uint32), ((d >> np.uint64(32)) & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    return d, np.zeros_like(d)


@kinds.pure
def randint4x(seed, offset, n_rounds=N_ROUNDS_DEFAULT) -> tuple[tensor, tensor, tensor, tensor]:
    """Four blocks of random uint32 (uint64 for 64-bit offsets) for ``seed`` and an ``offset`` block."""
    off = _to_tensor(offset)
    if not off.dtype.is_int():
        raise TypeError(_("the offsets of tl.rand* must be integers, got {dtype}").format(dtype=off.dtype))
    n_rounds = int(getattr(n_rounds, "value", n_rounds))
    bits = 64 if off.dtype.primitive_bitwidth > 32 else 32
    raw = off.data.astype(np.int64).view(np.uint64)
    lo = (raw & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    hi = ((raw >> np.uint64(32)) & np.uint64(0xFFFFFFFF)).astype(np.uint32) if bits == 64 else np.zeros_like(lo)
    zero = np.zeros_like(lo)
    k_lo, k_hi = _seed_parts(seed, 32)
    # Triton: philox(seed, offset_lo, offset_hi, 0, 0) with 32-bit counters whatever the offset width
    shape_pad = (1,) * (lo.ndim - 1)
    k0 = k_lo.reshape((-1, *shape_pad))
    k1 = k_hi.reshape((-1, *shape_pad))
    outs = _philox_rows(lo, hi, zero, zero, k0, k1, n_rounds)
    return tuple(tensor(o, T.uint32, off._shape) for o in outs)


def _philox_rows(c0, c1, c2, c3, k0, k1, n_rounds):
    """Philox with per-program keys: ``k0``/``k1`` broadcast over each program's row of counters."""
    rows = max(c0.shape[0], k0.shape[0])
    c0, c1, c2, c3 = (np.broadcast_to(c, (rows, *c.shape[1:])).copy() for c in (c0, c1, c2, c3))
    k0 = np.broadcast_to(k0, (rows, *k0.shape[1:]))
    k1 = np.broadcast_to(k1, (rows, *k1.shape[1:]))
    key_a, key_b, round_a, round_b = _KEYS[32]
    u = np.uint32
    with np.errstate(over="ignore"):
        for _ in range(n_rounds):
            _c0, _c2 = c0, c2
            c0 = _umulhi(round_b, _c2) ^ c1 ^ k0
            c2 = _umulhi(round_a, _c0) ^ c3 ^ k1
            c1 = (u(round_b) * _c2).astype(u)
            c3 = (u(round_a) * _c0).astype(u)
            k0 = (k0 + u(key_a)).astype(u)
            k1 = (k1 + u(key_b)).astype(u)
    return c0, c1, c2, c3


@kinds.pure
def randint(seed, offset, n_rounds=N_ROUNDS_DEFAULT) -> tensor:
    """A block of random uint32: the first of ``randint4x``."""
    return randint4x(seed, offset, n_rounds)[0]


@kinds.pure
def uint_to_uniform_float(x) -> tensor:
    """Random 32-bit (or 64-bit) integers to floats in ``[0, 1)``, as Triton: ``~x`` for negatives, times a scale."""
    x = _to_tensor(x)
    if x.dtype.primitive_bitwidth == 32:
        i = x.data.view(np.int32)
        scale = np.float32(4.6566127342e-10)
        i = np.where(i < 0, ~i, i)
        return tensor(i.astype(np.float32) * scale, T.float32, x._shape)
    i = x.data.view(np.int64)
    i = np.where(i < 0, ~i, i)
    return tensor(i.astype(np.float32) * np.float32(1.0842020432385337e-19), T.float32, x._shape)


@kinds.pure
def rand(seed, offset, n_rounds=N_ROUNDS_DEFAULT) -> tensor:
    """A block of uniform float32 in ``[0, 1)`` for ``seed`` and an ``offset`` block.

    Examples
    --------
    >>> import kernellab.triton as triton
    >>> import kernellab.triton.language as tl
    >>> @triton.jit
    ... def k(out_ptr):
    ...     offs = tl.arange(0, 4)
    ...     tl.store(out_ptr + offs, tl.rand(42, offs))
    >>> out = np.zeros(4, np.float32); _ = k[(1,)](out)
    >>> bool(((out >= 0) & (out < 1)).all()), len(set(out.tolist()))
    (True, 4)
    """
    return uint_to_uniform_float(randint(seed, offset, n_rounds))


@kinds.pure
def rand4x(seed, offsets, n_rounds=N_ROUNDS_DEFAULT) -> tuple[tensor, tensor, tensor, tensor]:
    """Four blocks of uniform float32 in ``[0, 1)``."""
    return tuple(uint_to_uniform_float(i) for i in randint4x(seed, offsets, n_rounds))


@kinds.pure
def pair_uniform_to_normal(u1, u2) -> tuple[tensor, tensor]:
    """Box–Muller: two uniform blocks to two standard normal blocks."""
    u1 = maximum(1.0e-7, _to_tensor(u1))
    th = 6.283185307179586 * _to_tensor(u2)
    r = sqrt(-2.0 * log(u1))
    return r * cos(th), r * sin(th)


@kinds.pure
def randn(seed, offset, n_rounds=N_ROUNDS_DEFAULT) -> tensor:
    """A block of standard normal float32 (Box–Muller of the first two Philox draws)."""
    i1, i2, _, _ = randint4x(seed, offset, n_rounds)
    return pair_uniform_to_normal(uint_to_uniform_float(i1), uint_to_uniform_float(i2))[0]


@kinds.pure
def randn4x(seed, offset, n_rounds=N_ROUNDS_DEFAULT) -> tuple[tensor, tensor, tensor, tensor]:
    """Four blocks of standard normal float32."""
    u1, u2, u3, u4 = rand4x(seed, offset, n_rounds)
    n1, n2 = pair_uniform_to_normal(u1, u2)
    n3, n4 = pair_uniform_to_normal(u3, u4)
    return n1, n2, n3, n4


@kinds.pure
def philox(seed, c0, c1, c2, c3, n_rounds=N_ROUNDS_DEFAULT):
    """Philox of the counter blocks ``c0…c3`` (32- or 64-bit) keyed by ``seed``, as ``tl.philox``."""
    cs = [_to_tensor(c) for c in (c0, c1, c2, c3)]
    bits = cs[0].dtype.primitive_bitwidth
    ut = T.uint32 if bits == 32 else T.uint64
    data = [c.data.view(ut.np) if c.dtype.primitive_bitwidth == bits else c.data.astype(ut.np) for c in cs]
    k0, k1 = _seed_parts(seed, bits)
    if bits == 32:
        pad = (1,) * (data[0].ndim - 1)
        outs = _philox_rows(*data, k0.reshape((-1, *pad)), k1.reshape((-1, *pad)), int(getattr(n_rounds, "value", n_rounds)))
    else:
        if k0.shape[0] != 1 and (k0 != k0[0]).any():
            raise ValueError(_("kernellab's 64-bit tl.philox needs one seed for every program of a step"))
        outs = philox_np(*data, k0[0], k1[0], int(getattr(n_rounds, "value", n_rounds)))
    return tuple(tensor(o, ut, cs[0]._shape) for o in outs)


@kinds.pure
def philox_impl(c0, c1, c2, c3, k0, k1, n_rounds=N_ROUNDS_DEFAULT):
    """Raw Philox rounds on counter blocks and key scalars (``tl.philox_impl``)."""
    cs = [_to_tensor(c) for c in (c0, c1, c2, c3)]
    ks = [_to_tensor(k) for k in (k0, k1)]
    pad = (1,) * (cs[0].data.ndim - 1)
    if cs[0].dtype.primitive_bitwidth != 32:
        outs = philox_np(*(c.data for c in cs), int(ks[0].data[0]), int(ks[1].data[0]), int(n_rounds))
        return tuple(tensor(o, cs[0].dtype, cs[0]._shape) for o in outs)
    outs = _philox_rows(*(c.data.astype(np.uint32) for c in cs), ks[0].data.astype(np.uint32).reshape((-1, *pad)),
                        ks[1].data.astype(np.uint32).reshape((-1, *pad)), int(getattr(n_rounds, "value", n_rounds)))
    return tuple(tensor(o, T.uint32, cs[0]._shape) for o in outs)


__all__ = ["pair_uniform_to_normal", "philox", "philox_impl", "rand", "rand4x", "randint", "randint4x", "randn",
           "randn4x", "uint_to_uniform_float"]
