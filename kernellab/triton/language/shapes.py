"""Shape functions of ``triton.language`` beyond reshape/trans: ``cat``, ``join``, ``split``,
``interleave``, ``flip``, ``broadcast``, ``squeeze``, ``gather``, ``histogram``, ``sort``, ``topk``,
``swizzle2d``.

They rearrange register values and move no memory: none of them counts anything.
"""

from __future__ import annotations

import builtins

import numpy as np

from kernellab.errors import OutOfBoundsError, fmt_dim3
from kernellab.i18n import _

from ..executor import dtypes as T
from ..executor import kinds
from ..executor.program import current
from ..executor.tensor import _align, _tensor_member_fn, broadcast_shape, tensor
from .core import _layout_tag, _to_tensor, broadcast_to
from .math import minimum


def _c(v):
    return getattr(v, "value", v)


def _check_same_type(a: tensor, b: tensor, what: str):
    if a.dtype is not b.dtype:
        raise TypeError(_("tl.{what} needs two blocks of one type, got {dtype} and {dtype2}").format(
            what=what, dtype=a.dtype, dtype2=b.dtype))


@kinds.pure
def broadcast(input, other, _semantic=None) -> tuple[tensor, tensor]:
    """Both blocks broadcast to their common shape."""
    a, b = _to_tensor(input), _to_tensor(other)
    shape = broadcast_shape(a._shape, b._shape)
    return broadcast_to(a, shape), broadcast_to(b, shape)


@kinds.pure
def cat(input, other, can_reorder=False, dim=0, _semantic=None) -> tensor:
    """Two blocks concatenated along ``dim`` (Triton: 1-D, ``can_reorder=True`` allows any order; kept in order here)."""
    a, b = _to_tensor(input), _to_tensor(other)
    _check_same_type(a, b, "cat")
    dim = _c(dim)
    if len(a._shape) != len(b._shape) or a._shape[:dim] + a._shape[dim + 1:] != b._shape[:dim] + b._shape[dim + 1:]:
        raise ValueError(_("tl.cat needs blocks that differ only along dim {dim}, got {shape} "
                           "and {shape2}").format(
            dim=dim, shape=a.shape, shape2=b.shape))
    rows = builtins.max(a.data.shape[0], b.data.shape[0])
    ad = np.broadcast_to(a.data, (rows, *a.data.shape[1:]))
    bd = np.broadcast_to(b.data, (rows, *b.data.shape[1:]))
    shape = list(a._shape)
    shape[dim] += b._shape[dim]
    return tensor(np.concatenate([ad, bd], axis=dim + 1), a.dtype, tuple(shape))


@kinds.pure
def join(a, b, _semantic=None) -> tensor:
    """Two blocks of one shape stacked along a new last axis of size 2.

    Examples
    --------
    >>> x = tensor(np.int32([[1, 2]]), T.int32, (2,))
    >>> join(x, x * 10).shape, join(x, x * 10).data[0].tolist()
    ([2, 2], [[1, 10], [2, 20]])
    """
    a, b = _to_tensor(a), _to_tensor(b)
    _check_same_type(a, b, "join")
    shape = broadcast_shape(a._shape, b._shape)
    a, b = broadcast_to(a, shape), broadcast_to(b, shape)
    rows = builtins.max(a.data.shape[0], b.data.shape[0])
    ad = np.broadcast_to(a.data, (rows, *a.data.shape[1:]))
    bd = np.broadcast_to(b.data, (rows, *b.data.shape[1:]))
    return tensor(np.stack([ad, bd], axis=-1), a.dtype, (*shape, 2))


@kinds.pure
@_tensor_member_fn
def split(a, _semantic=None, _generator=None) -> tuple[tensor, tensor]:
    """The two halves of a block whose last axis has size 2 (the inverse of ``join``)."""
    a = _to_tensor(a)
    if not a._shape or a._shape[-1] != 2:
        raise ValueError(_("tl.split needs a block whose last dimension is 2, got shape {shape}").format(
            shape=a.shape))
    return (tensor(a.data[..., 0], a.dtype, a._shape[:-1]), tensor(a.data[..., 1], a.dtype, a._shape[:-1]))


@kinds.pure
def interleave(a, b) -> tensor:
    """The elements of ``a`` and ``b`` alternating along the last axis (``join`` then merge the last two axes)."""
    j = join(a, b)
    shape = (*j._shape[:-2], j._shape[-2] * 2)
    return tensor(j.data.reshape((j.data.shape[0], *shape)), j.dtype, shape)


@kinds.pure
@_tensor_member_fn
def flip(x, dim=None) -> tensor:
    """The block reversed along ``dim`` (the last axis when None)."""
    x = _to_tensor(x)
    nd = len(x._shape)
    d = nd - 1 if dim is None else _c(dim) % nd
    return tensor(np.flip(x.data, axis=d + 1), x.dtype, x._shape)


@kinds.pure
def squeeze(x, dim) -> tensor:
    """Remove axis ``dim``, of size 1."""
    x = _to_tensor(x)
    d = _c(dim) % len(x._shape)
    if x._shape[d] != 1:
        raise ValueError(_("tl.squeeze: dimension {d} of shape {shape} is not 1").format(d=d, shape=x.shape))
    return tensor(np.squeeze(x.data, axis=d + 1), x.dtype, x._shape[:d] + x._shape[d + 1:])


@kinds.pure
def unsqueeze(x, dim) -> tensor:
    """Insert an axis of size 1 at ``dim``."""
    x = _to_tensor(x)
    d = _c(dim) % (len(x._shape) + 1)
    return tensor(np.expand_dims(x.data, d + 1), x.dtype, x._shape[:d] + (1,) + x._shape[d:])


@kinds.checked
@_tensor_member_fn
def gather(src, index, axis, _semantic=None) -> tensor:
    """``out[i][j] = src[index[i][j]][j]`` along ``axis`` (``numpy.take_along_axis``); ``index`` must be in range."""
    s, idx = _to_tensor(src), _to_tensor(index)
    ax = _c(axis) % len(s._shape)
    if not idx.dtype.is_int() or len(idx._shape) != len(s._shape):
        raise ValueError(_("tl.gather needs an integer index block of the source's rank, got "
                           "{dtype} {shape}").format(
            dtype=idx.dtype, shape=idx.shape))
    n = s._shape[ax]
    if idx.data.size and (idx.data.min() < 0 or idx.data.max() >= n):
        _out_of_range(idx.data, n, ax)
    rows = builtins.max(s.data.shape[0], idx.data.shape[0])
    sd = np.broadcast_to(s.data, (rows, *s.data.shape[1:]))
    idd = np.broadcast_to(idx.data, (rows, *idx.data.shape[1:])).astype(np.int64)
    return tensor(np.take_along_axis(sd, idd, axis=ax + 1), s.dtype, idx._shape)


def _out_of_range(idx: np.ndarray, n: int, ax: int):
    """OutOfBoundsError naming the kernel, the first program and lane whose ``tl.gather`` index is outside
    ``[0, n)``, and the index."""
    bad = ((idx < 0) | (idx >= n)).reshape(idx.shape[0], -1)
    row = int(np.argmax(bad.any(axis=1)))  # (one row shared by every program: the step's first program)
    lane = int(np.argmax(bad[row]))
    value = int(idx.reshape(idx.shape[0], -1)[row, lane])
    prog = current()
    raise OutOfBoundsError(
        _("{place}: tl.gather index {index} out of bounds (size {size} along axis {axis}) at lane {lane} of the "
          "index block").format(place=prog.where(row), index=value, size=n, axis=ax, lane=lane),
        kernel=prog.kernel, program=fmt_dim3(prog.pids[row]), op="tl.gather", index=value, size=n, axis=ax, lane=lane)


@kinds.pure
@_tensor_member_fn
def histogram(input, num_bins, mask=None, _semantic=None, _generator=None) -> tensor:
    """int32 counts of the values ``0 … num_bins-1`` in a 1-D integer block (values outside are ignored;
    lanes where ``mask`` is false are not counted). Counts the shared memory Triton 3.9's lowering uses
    (:func:`kernellab.triton.compiler.convert.histogram`); the counts have Triton's default layout."""
    x = _to_tensor(input)
    nb = int(_c(num_bins))
    if len(x._shape) != 1 or not x.dtype.is_int():
        raise ValueError(_("tl.histogram needs a 1-D integer block, got {dtype} of shape {shape}").format(
            dtype=x.dtype, shape=x.shape))
    vals = x.data.astype(np.int64)
    ok = (vals >= 0) & (vals < nb)
    if mask is not None:
        ok = ok & _align(_to_tensor(mask).data.astype(bool), _to_tensor(mask)._shape, 1, False)
    rows = vals.shape[0]
    flat = np.where(ok, vals + np.arange(rows)[:, None] * nb, rows * nb)
    counts = np.bincount(flat.ravel(), minlength=rows * nb + 1)[:rows * nb].reshape(rows, nb)
    out = tensor(counts.astype(np.int32), T.int32, (nb,))
    prog = current()
    prog.tally.histogrammed(nb, prog.num_warps, prog.P)
    out._lay = ("default", (nb,), prog.num_warps)
    return out


def _sort_data(x: tensor, dim, descending: bool) -> tuple[np.ndarray, int]:
    nd = len(x._shape)
    d = nd - 1 if dim is None else _c(dim) % nd
    if d != nd - 1:
        raise ValueError(_("tl.sort and tl.topk sort only along the last dimension, as Triton does"))
    s = np.sort(x.data, axis=-1, kind="stable")
    return (np.flip(s, axis=-1) if descending else s), d


@kinds.pure
def sort(x, dim=None, descending=0) -> tensor:
    """The block sorted along its last axis (ascending unless ``descending``)."""
    x = _to_tensor(x)
    data, _ = _sort_data(x, dim, bool(_c(descending)))
    out = tensor(np.ascontiguousarray(data), x.dtype, x._shape)
    if x._shape:  # Triton's bitonic network: xor_sum reductions along the index bits warps hold
        prog = current()
        lay = _layout_tag(x)
        prog.tally.sorted(lay, x.dtype.primitive_bitwidth, prog.num_warps, prog.P)
        out._lay = lay
    return out


@kinds.pure
def topk(x, k, dim=None, descending=True) -> tensor:
    """The ``k`` largest values along the last axis, in descending order (``k`` a power of two)."""
    x = _to_tensor(x)
    k = int(_c(k))
    if k < 1 or k & (k - 1) or k > x._shape[-1]:
        raise ValueError(_("tl.topk needs k a power of two at most {shape}, got {k}").format(
            shape=x._shape[-1], k=k))
    data, _order = _sort_data(x, dim, bool(_c(descending)))
    return tensor(np.ascontiguousarray(data[..., :k]), x.dtype, (*x._shape[:-1], k))


@kinds.pure
def bitonic_merge(x, dim=None, descending=0) -> tensor:
    """Merge the sorted halves of a block (the step of Triton's bitonic sort): here, sort it."""
    return sort(x, dim, descending)


@kinds.pure
def swizzle2d(i, j, size_i, size_j, size_g):
    """Map row-major ids ``(i, j)`` of a ``size_i × size_j`` grid to column-major within groups of
    ``size_g`` rows, as Triton's standard library does (grouped ordering for L2 reuse).

    Examples
    --------
    >>> swizzle2d(0, 1, 4, 4, 2)            # id 1 of group 0 (2 rows) goes down the column: row 1, column 0
    (1, 0)
    """
    ij = i * size_j + j
    size_gj = size_g * size_j
    group_id = ij // size_gj
    off_i = group_id * size_g
    size_g = _minimum(size_i - off_i, size_g)
    ij = ij % size_gj
    new_i = off_i + ij % size_g
    new_j = ij // size_g
    return new_i, new_j


def _minimum(a, b):
    if isinstance(a, tensor) or isinstance(b, tensor):
        return minimum(a, b)
    return builtins.min(a, b)


__all__ = ["bitonic_merge", "broadcast", "cat", "flip", "gather", "histogram", "interleave", "join", "sort",
           "split", "squeeze", "swizzle2d", "topk", "unsqueeze"]
