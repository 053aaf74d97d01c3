"""Loads and stores of blocks of element offsets into flat arrays: bounds, masks, and counting.

Both front ends come here: the lecture form's ``tl.load(array, offsets, mask)`` and the real syntax's
``tl.load(ptr + offsets, mask)``. Offsets carry a leading axis over the programs of the step (length 1
when every program uses the same offsets). Masked-off lanes read nothing, write nothing and count
nothing; an unmasked lane outside its array raises :class:`~kernellab.OutOfBoundsError`.
Every array is taken to start 256-byte aligned, as ``cudaMalloc`` and PyTorch's allocator give.
"""

from __future__ import annotations

import numpy as np

from ..errors import LaunchError, OutOfBoundsError
from ..i18n import _
from .counts import count_access
from .program import Program


def flat_view(array: np.ndarray, what: str = "array") -> np.ndarray:
    """A 1-D view of a contiguous array in memory order: element offset ``i`` is the ``i``-th element in memory.

    Examples
    --------
    >>> a = np.arange(6.0).reshape(2, 3)
    >>> flat_view(a)[4], flat_view(a.T)[4]        # a.T is a view of the same memory
    (np.float64(4.0), np.float64(4.0))
    """
    if not isinstance(array, np.ndarray):
        raise LaunchError(_("{what} must be a numpy array, not {type}").format(what=what, type=type(array).__name__))
    if array.flags.c_contiguous:
        return array.reshape(-1)
    if array.flags.f_contiguous:
        return array.T.reshape(-1)
    raise LaunchError(_("{what} is not contiguous in memory: pass np.ascontiguousarray({what})").format(what=what))


def address(array: np.ndarray) -> int:
    """The address of an array's first element: the key that names an array whatever view reaches it."""
    return array.__array_interface__["data"][0]


def _check(prog: Program, op: str, flat: np.ndarray, offs: np.ndarray, mask):
    """Raise OutOfBoundsError for the first program and lane with an unmasked offset outside ``flat``."""
    size = flat.size
    if mask is None:
        if offs.size == 0 or (offs.min() >= 0 and offs.max() < size):
            return
        bad = (offs < 0) | (offs >= size)
    else:
        bad = ((offs < 0) | (offs >= size)) & mask
        if not bad.any():
            return
    bad = bad.reshape(bad.shape[0], -1)
    row = int(np.argmax(bad.any(axis=1)))
    lane = int(np.argmax(bad[row]))
    first = int(offs.reshape(offs.shape[0], -1)[row, lane])
    raise OutOfBoundsError(
        _("{place}: {op} {array}[{index}] out of bounds (size {size}); lane {lane} of the block is not masked "
          "off").format(place=prog.where(row), op=op, array=prog.name_of(flat), index=first, size=size, lane=lane)
    )


def _prepare(offs: np.ndarray, mask):
    """Broadcast offsets and mask to one shape; drop a mask that is all true."""
    if mask is None:
        return offs, None
    mask = np.asarray(mask, dtype=bool)
    if mask.shape != offs.shape:
        shape = np.broadcast_shapes(offs.shape, mask.shape)
        offs = np.broadcast_to(offs, shape)
        mask = np.broadcast_to(mask, shape)
    if mask.all():
        return offs, None
    return offs, mask


def _count(prog: Program, kind: str, flat: np.ndarray, offs: np.ndarray, mask):
    rows = offs.shape[0]
    addr = offs.reshape(rows, -1) * flat.itemsize
    active = None if mask is None else mask.reshape(rows, -1)
    copies = prog.P if rows == 1 else 1  # one row shared by every program of the step
    prog.tally.access(kind, addr, active, flat.itemsize, copies)


def _check_and_count(prog: Program, kind: str, flat: np.ndarray, offs: np.ndarray, mask, lineage, shift: int):
    """Bounds-check and count an access; for an unmasked pointer with a lineage, once per lineage.

    ``offs == lineage.data + shift`` (see :class:`~kernellab.triton.tensor.Lineage`): its extremes
    shift with it, and its requests and sectors stay put while ``shift`` bytes is a multiple of 32.
    """
    if lineage is None or mask is not None:
        _check(prog, kind, flat, offs, mask)
        _count(prog, kind, flat, offs, mask)
        return
    w = flat.itemsize
    key = (w, shift * w % 128, offs.shape)  # lines stay put under shifts by whole 128-byte lines
    st = lineage.stats.get(key)
    if st is None:
        rows = offs.shape[0]
        c0 = _lineage_start(lineage) if offs.shape == lineage.data.shape else None
        if c0 is not None and offs.size // rows % 32 == 0 and (c0 + shift) * w % 32 == 0:
            # consecutive elements from a sector boundary, whole warps per program: every warp is the
            # first one moved by a multiple of 32 bytes, so it has the same requests and sectors
            req, sec, nbytes, _lin = count_access((c0 + shift + np.arange(32, dtype=np.int64))[None] * w, None, w)
            warps = offs.size // 32
            first = (c0 + shift) * w + np.arange(warps, dtype=np.int64) * (32 * w)  # each warp's first byte
            lin = int(((first + 32 * w - 1) // 128 - first // 128 + 1).sum())
            req, sec, nbytes = req * warps, sec * warps, nbytes * warps
        else:
            req, sec, nbytes, lin = count_access(offs.reshape(rows, -1) * w, None, w)
        if c0 is not None:
            lo, hi = c0, c0 + lineage.data.size - 1
        else:
            lo, hi = int(lineage.data.min()), int(lineage.data.max())
        st = lineage.stats[key] = (lo, hi, req, sec, nbytes, lin)
    lo, hi, req, sec, nbytes, lin = st
    if lo + shift < 0 or hi + shift >= flat.size:
        _check(prog, kind, flat, offs, None)
    copies = prog.P if offs.shape[0] == 1 else 1
    prog.tally.counted(kind, offs.shape[0] * copies, req * copies, sec * copies, nbytes * copies, lin * copies)


def _lineage_start(lineage) -> int | None:
    """The first offset of a lineage whose offsets are consecutive in row-major order (checked once), else None."""
    c = lineage.stats.get("contiguous", False)
    if c is False:
        d = lineage.data.reshape(-1)
        c = lineage.stats["contiguous"] = int(d[0]) if d.size < 2 or bool((np.diff(d) == 1).all()) else None
    return c


def _contiguous_start(offs: np.ndarray, mask, lineage, shift: int):
    """``s`` when ``offs`` is exactly ``s, s+1, …`` in row-major order, else None."""
    if lineage is None or mask is not None or offs.shape != lineage.data.shape:
        return None
    c = _lineage_start(lineage)
    return None if c is None else c + shift


def load(prog: Program, flat: np.ndarray, offs: np.ndarray, mask=None, other=None, lineage=None,
         shift: int = 0) -> np.ndarray:
    """Gather ``flat[offs]`` where ``mask`` holds, ``other`` (0 when None) elsewhere, and count it.

    ``offs`` is int64 ``(rows, *block)`` with ``rows`` 1 or the step's ``P``; the result has the same
    shape and ``flat``'s dtype.
    """
    offs, mask = _prepare(offs, mask)
    _check_and_count(prog, "load", flat, offs, mask, lineage, shift)
    start = _contiguous_start(offs, mask, lineage, shift)
    prog.touch(flat, offs, mask, start)
    if start is not None:  # a contiguous block: a slice, not a gather
        return flat[start:start + offs.size].reshape(offs.shape).copy()
    if mask is None:
        return flat[offs]
    vals = flat.take(offs, mode="clip")
    fill = 0 if other is None else other
    return np.where(mask, vals, np.asarray(fill).astype(flat.dtype))


def store(prog: Program, flat: np.ndarray, offs: np.ndarray, value: np.ndarray, mask=None, lineage=None,
          shift: int = 0):
    """Scatter ``value`` (cast to ``flat``'s dtype) to ``flat[offs]`` where ``mask`` holds, and count it."""
    offs, mask = _prepare(offs, mask)
    value = np.asarray(value).astype(flat.dtype, copy=False)
    if value.shape != offs.shape:
        shape = np.broadcast_shapes(offs.shape, value.shape)
        if shape[1:] != offs.shape[1:]:
            raise ValueError(f"cannot store a block of shape {list(value.shape[1:])} "
                             f"through pointers of shape {list(offs.shape[1:])}")
        offs = np.broadcast_to(offs, shape)
        mask = None if mask is None else np.broadcast_to(mask, shape)
        value = np.broadcast_to(value, shape)
        lineage = None
    _check_and_count(prog, "store", flat, offs, mask, lineage, shift)
    prog.before_store(flat)
    start = _contiguous_start(offs, mask, lineage, shift)
    prog.touch(flat, offs, mask, start)
    if start is not None:
        flat[start:start + offs.size] = value.reshape(-1)
    elif mask is None:
        flat[offs] = value
    else:
        flat[offs[mask]] = value[mask]
