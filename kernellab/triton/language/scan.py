"""Reductions and scans with a combine function: ``reduce``, ``associative_scan``, ``cumsum``,
``cumprod``, ``xor_sum``, ``reduce_or``.

``combine_fn`` is a ``@triton.jit`` function of two values (or two tuples of values) returning their
combination; it must be associative, as Triton requires. It runs on whole blocks at once: a reduction
combines neighbouring pairs along the axis in ``log2(n)`` rounds, a scan is Hillis–Steele's inclusive
scan in ``log2(n)`` rounds. Both keep the left operand before the right one, so a non-commutative
(but associative) combine gives Triton's result; floating-point sums may differ from a sequential
order in the last bits. They work on registers and count no memory.
"""

from __future__ import annotations

import builtins

import numpy as np

from kernellab.i18n import _

from ..compiler import limits
from ..executor import dtypes as T
from ..executor import kinds
from ..executor.tensor import _tensor_member_fn, tensor
from .core import _axes, _reduce, _reduced, _scanned, _to_tensor, broadcast_to


def _as_list(input) -> tuple[list[tensor], bool]:
    if isinstance(input, tuple):
        return [_to_tensor(x) for x in input], False
    return [_to_tensor(input)], True


def _take(x: tensor, ax: int, sl: slice) -> tensor:
    idx = [slice(None)] * x.data.ndim
    idx[ax + 1] = sl
    d = x.data[tuple(idx)]
    shape = list(x._shape)
    shape[ax] = d.shape[ax + 1]
    with limits.internal_shapes():  # a slice of the scan's own, not a value of the program
        return tensor(d, x.dtype, tuple(shape))


def _combine(fn, left: list[tensor], right: list[tensor]) -> list[tensor]:
    with limits.internal_shapes():  # the combine function runs on kernellab's slices (Triton's on elements)
        return _combined(fn, left, right)


def _combined(fn, left: list[tensor], right: list[tensor]) -> list[tensor]:
    out = fn(*left, *right)
    out = list(out) if isinstance(out, tuple) else [out]
    if len(out) != len(left):
        raise ValueError(_("the combine function returned {n_out} values for {n_left} inputs").format(
            n_out=len(out), n_left=len(left)))
    res = []
    for o, ref in zip(out, left):
        o = _to_tensor(o)
        if o.dtype is not ref.dtype:
            o = o.to(ref.dtype)
        if o._shape != ref._shape:
            o = broadcast_to(o, ref._shape)
        res.append(o)
    return res


def _rows(xs: list[tensor]) -> list[tensor]:
    rows = max(x.data.shape[0] for x in xs)
    return [x if x.data.shape[0] == rows else tensor(np.broadcast_to(x.data, (rows, *x.data.shape[1:])), x.dtype,
                                                     x._shape) for x in xs]


@kinds.pure
@_tensor_member_fn
def reduce(input, axis, combine_fn, keep_dims=False, _semantic=None, _generator=None):
    """Reduce ``input`` (a block or a tuple of blocks) along ``axis`` (all axes when None) with ``combine_fn``.

    Examples
    --------
    >>> import kernellab.triton as triton
    >>> import kernellab.triton.language as tl
    >>> @triton.jit
    ... def _mul(a, b):
    ...     return a * b
    >>> @triton.jit
    ... def k(x_ptr, out_ptr):
    ...     tl.store(out_ptr, tl.reduce(tl.load(x_ptr + tl.arange(0, 8)), 0, _mul))
    >>> x = np.arange(1, 9, dtype=np.int32); out = np.zeros(1, np.int32)
    >>> _ = k[(1,)](x, out); int(out[0])           # 8!
    40320
    """
    xs, single = _as_list(input)
    xs = _rows(xs)
    first = xs[0]
    bits = builtins.max(x.dtype.primitive_bitwidth for x in xs)
    if axis is None:
        xs = [tensor(x.data.reshape(x.data.shape[0], -1), x.dtype, (x.numel,)) for x in xs]
        ax = 0
    else:
        ax = _axes(xs[0], axis)
    nd_in = len(input[0]._shape if isinstance(input, tuple) else _to_tensor(input)._shape)
    n = xs[0]._shape[ax]
    if n & (n - 1):
        raise ValueError(_("tl.reduce needs a power-of-two length along the axis, got {n}").format(n=n))
    while n > 1:
        xs = _combine(combine_fn, [_take(x, ax, slice(0, n, 2)) for x in xs], [_take(x, ax, slice(1, n, 2)) for x in xs])
        n //= 2
    out = []
    for x in xs:
        if axis is None:
            shape = (1,) * nd_in if keep_dims else ()
            out.append(tensor(x.data.reshape((x.data.shape[0], *shape)), x.dtype, shape))
        elif keep_dims:
            out.append(x)
        else:
            out.append(tensor(np.squeeze(x.data, axis=ax + 1), x.dtype, x._shape[:ax] + x._shape[ax + 1:]))
    # its shared-memory traffic: one reduction of len(xs) operands (kernellab.triton.compiler.convert.reduction)
    result = out[0] if single else tuple(out)
    return _reduced(first, None if axis is None else ax, keep_dims, result, bits, operands=len(xs))


@kinds.pure
@_tensor_member_fn
def associative_scan(input, axis, combine_fn, reverse=False, _semantic=None, _generator=None):
    """Inclusive scan of ``input`` (a block or a tuple) along ``axis`` with ``combine_fn``
    (``reverse=True`` scans from the end)."""
    xs, single = _as_list(input)
    xs = _rows(xs)
    ax = _axes(xs[0], axis)
    first = xs[0]
    if reverse:
        xs = [tensor(np.flip(x.data, axis=ax + 1), x.dtype, x._shape) for x in xs]
    n = xs[0]._shape[ax]
    d = 1
    while d < n:
        new = _combine(combine_fn, [_take(x, ax, slice(0, n - d)) for x in xs], [_take(x, ax, slice(d, n)) for x in xs])
        xs = [tensor(np.concatenate([_take(x, ax, slice(0, d)).data, c.data], axis=ax + 1), x.dtype, x._shape)
              for x, c in zip(xs, new)]
        d *= 2
    if reverse:
        xs = [tensor(np.ascontiguousarray(np.flip(x.data, axis=ax + 1)), x.dtype, x._shape) for x in xs]
    out = xs[0] if single else tuple(xs)
    return _scanned(first, ax, out, first.dtype.primitive_bitwidth, operands=len(xs))


def _promoted(x: tensor, dtype) -> T.dtype:
    """Triton's reduction input promotion: narrow ints to int32, bf16 and fp8 to fp32 (or ``dtype``)."""
    if dtype is not None:
        return T.from_numpy(getattr(dtype, "value", dtype))
    if x.dtype.is_int() and x.dtype.primitive_bitwidth < 32:
        return T.int32
    if x.dtype.__class__ is T.float_format:
        return T.float32
    return x.dtype


def _scan_np(input, axis, reverse, dtype, fn) -> tensor:
    x = _to_tensor(input)
    t = _promoted(x, dtype)
    ax = _axes(x, axis)
    d = x.data.astype(t.np, copy=False)
    if reverse:
        d = np.flip(d, axis=ax + 1)
    out = fn(d, axis=ax + 1, dtype=t.np)
    if reverse:
        out = np.flip(out, axis=ax + 1)
    return _scanned(x, ax, tensor(np.ascontiguousarray(out), t, x._shape), t.primitive_bitwidth)


@kinds.pure
@_tensor_member_fn
def cumsum(input, axis=0, reverse=False, dtype=None) -> tensor:
    """Inclusive prefix sum along ``axis`` (sequential order, narrow ints in int32).

    Examples
    --------
    >>> x = tensor(np.int8([[1, 2, 3, 4]]), T.int8, (4,))
    >>> r = cumsum(x); r.dtype, r.data[0].tolist(), cumsum(x, reverse=True).data[0].tolist()
    (triton.language.int32, [1, 3, 6, 10], [10, 9, 7, 4])
    """
    return _scan_np(input, axis, reverse, dtype, np.cumsum)


@kinds.pure
@_tensor_member_fn
def cumprod(input, axis=0, reverse=False) -> tensor:
    """Inclusive prefix product along ``axis``."""
    return _scan_np(input, axis, reverse, None, np.cumprod)


def _int_reduce(name, input, axis, keep_dims, ufunc) -> tensor:
    x = _to_tensor(input)
    if not x.dtype.is_int():
        raise ValueError(_("tl.{name} needs an integer block, got {dtype}").format(name=name, dtype=x.dtype))
    return _reduce(x, axis, keep_dims, lambda d, axis, keepdims=False: ufunc.reduce(d, axis=axis, keepdims=keepdims),
                   x.dtype)


@kinds.pure
@_tensor_member_fn
def xor_sum(input, axis=None, keep_dims=False) -> tensor:
    """Bitwise xor of the elements along ``axis`` (integers)."""
    return _int_reduce("xor_sum", input, axis, keep_dims, np.bitwise_xor)


@kinds.pure
@_tensor_member_fn
def reduce_or(input, axis, keep_dims=False) -> tensor:
    """Bitwise or of the elements along ``axis`` (integers)."""
    return _int_reduce("reduce_or", input, axis, keep_dims, np.bitwise_or)


__all__ = ["associative_scan", "cumprod", "cumsum", "reduce", "reduce_or", "xor_sum"]
