"""``tl.dot_scaled``: the matrix product of two blocks in microscaling formats (MXFP4, MXFP8, NVFP4).

Each operand is decoded to its exact values, multiplied by its block scales (every element of a group
of ``K // scale.shape[-1]`` consecutive elements along K shares one scale: 32 for the MX formats), and
the two are multiplied with :func:`~kernellab.triton.language.core.dot` (fp32 accumulation, IEEE
inputs). The scaled values are exact in fp32 (an e2m1 or e4m3 value times a power of two, or times an
e4m3 scale), so the result is the fp32 sum of exact products, as a GPU's block-scaled MMA computes
it. FLOPs count as ``tl.dot``'s: ``2·M·N·K`` per program.

Formats: ``"e2m1"`` (fp4, two codes a uint8 byte, first in the low nibble, packed along K, or along
M (lhs) / N (rhs) when ``*_k_pack=False``), ``"e4m3"`` and ``"e5m2"`` (fp8, as uint8 bits or the fp8
types), ``"bf16"`` and ``"fp16"``. Scales: uint8 e8m0 codes (``2^(code − 127)``, 255 NaN), fp8 e4m3
values (NVFP4's), or None (1). ``lhs_scale`` is ``[M, K // group]`` and ``rhs_scale`` ``[N, K // group]``
(not transposed), as Triton 3.9 documents.
"""

from __future__ import annotations

import numpy as np

from kernellab.i18n import _

from ..executor import dtypes as T
from ..executor import kinds
from ..executor import microscaling as mx
from ..executor.tensor import tensor
from .core import _to_tensor, dot

FORMATS = ("e2m1", "e4m3", "e5m2", "bf16", "fp16")


def _values(x: tensor, fmt: str, side: str, k_pack: bool) -> np.ndarray:
    """float32 values of a (P, …, rows, cols) block in format ``fmt``, fp4 unpacked."""
    d = x.data
    if fmt == "e2m1":
        if x.dtype.name not in ("uint8", "int8"):
            raise TypeError(_("tl.dot_scaled: {side} in e2m1 must be uint8 bytes of two packed fp4 codes, "
                              "got {dtype}").format(side=side, dtype=x.dtype.name))
        axis = (-1 if side == "lhs" else -2) if k_pack else (-2 if side == "lhs" else -1)
        return mx.e2m1_decode(mx.unpack_fp4(d.view(np.uint8), axis))
    if fmt in ("e4m3", "e5m2"):
        if x.dtype.name in ("uint8", "int8"):
            return (T.float8e4nv if fmt == "e4m3" else T.float8e5).decode(d.view(np.uint8)).astype(np.float32)
        want = "fp8e4nv" if fmt == "e4m3" else "fp8e5"
        if x.dtype.name != want:
            raise TypeError(_("tl.dot_scaled: {side} in {fmt} must be uint8 bits or {want}, got {dtype}").format(
                side=side, fmt=fmt, want=want, dtype=x.dtype.name))
        return d.astype(np.float32)
    return d.astype(np.float32)


def _scales(s, fmt: str, rows: int, k: int, side: str) -> np.ndarray | None:
    """float32 scale values per element, (P, …, rows, K), or None without a scale."""
    if s is None:
        return None
    s = _to_tensor(s)
    if s._shape[-2] != rows or s._shape[-1] == 0 or k % s._shape[-1]:
        raise ValueError(_("tl.dot_scaled: {side}_scale has shape {shape}; it must be [{rows}, K // group] "
                           "with K = {k} a multiple of its last dimension").format(
            side=side, shape=list(s._shape), rows=rows, k=k))
    if s.dtype.name in ("uint8", "int8"):
        v = mx.e8m0_decode(s.data.view(np.uint8))
    elif s.dtype.name == "fp8e4nv":
        v = s.data.astype(np.float32)
    else:
        raise TypeError(_("tl.dot_scaled: {side}_scale must be uint8 e8m0 codes or fp8e4nv values, got {dtype}").format(
            side=side, dtype=s.dtype.name))
    return np.repeat(v, k // s._shape[-1], axis=-1)


@kinds.pure
def dot_scaled(lhs, lhs_scale, lhs_format, rhs, rhs_scale, rhs_format, acc=None, fast_math=False,
               lhs_k_pack=True, rhs_k_pack=True, out_dtype=T.float32, _semantic=None) -> tensor:
    """``acc + (lhs · lhs_scale) @ (rhs · rhs_scale)`` for blocks in microscaling formats (see the module).

    Examples
    --------
    >>> import kernellab.triton as triton
    >>> import kernellab.triton.language as tl
    >>> @triton.jit
    ... def k(a_ptr, s_ptr, b_ptr, c_ptr):
    ...     r = tl.arange(0, 16)
    ...     a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])   # [16, 16] bytes: 16 × 32 fp4 codes
    ...     b = tl.load(b_ptr + r[:, None] * 16 + r[None, :])   # [16, 16] bytes packed along K: 32 × 16
    ...     s = tl.load(s_ptr + r[:, None])                     # one e8m0 scale per row of 32
    ...     tl.store(c_ptr + r[:, None] * 16 + r[None, :], tl.dot_scaled(a, s, "e2m1", b, None, "e2m1"))
    >>> a = np.full((16, 16), 0x72, np.uint8)     # codes 0b0010 = 1.0 (low nibble), 0b0111 = 6.0
    >>> b = np.full((16, 16), 0x22, np.uint8)     # 1.0 and 1.0
    >>> c = np.zeros((16, 16), np.float32)
    >>> cnt = k[(1,)](a, np.full(16, 128, np.uint8), b, c)   # e8m0 128 = 2.0
    >>> float(c[0, 0]), cnt.flops                # 2 · 16 · (1·1 + 6·1); 2·M·N·K = 2·16·16·32
    (224.0, 16384)
    """
    fl, fr = (getattr(f, "value", f) for f in (lhs_format, rhs_format))
    for side, f in (("lhs", fl), ("rhs", fr)):
        if f not in FORMATS:
            raise ValueError(_("tl.dot_scaled: {side}_format {fmt!r} is not one of {formats}").format(
                side=side, fmt=f, formats=list(FORMATS)))
    if getattr(out_dtype, "value", out_dtype) is not T.float32:
        raise ValueError(_("tl.dot_scaled: only float32 is supported for out_dtype, as in Triton 3.9"))
    lk, rk = (bool(getattr(p, "value", p)) for p in (lhs_k_pack, rhs_k_pack))
    a_t, b_t = _to_tensor(lhs), _to_tensor(rhs)
    a, b = _values(a_t, fl, "lhs", lk), _values(b_t, fr, "rhs", rk)
    m, k = a.shape[-2:]
    if b.shape[-2] != k:
        raise ValueError(_("tl.dot_scaled: lhs has K = {k} (unpacked) but rhs has {k2} rows").format(k=k, k2=b.shape[-2]))
    n = b.shape[-1]
    sa = _scales(lhs_scale, fl, m, k, "lhs")
    sb = _scales(rhs_scale, fr, n, k, "rhs")
    with np.errstate(all="ignore"):
        if sa is not None:
            a = a * sa
        if sb is not None:
            b = b * np.swapaxes(sb, -1, -2)
    shape_a, shape_b = (*a_t._shape[:-2], m, k), (*b_t._shape[:-2], k, n)
    return dot(tensor(a.astype(np.float32), T.float32, shape_a), tensor(b.astype(np.float32), T.float32, shape_b),
               acc, input_precision="ieee", out_dtype=T.float32)


__all__ = ["dot_scaled"]
