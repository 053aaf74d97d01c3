"""Two-dimensional tiles stored as lines of consecutive elements: loaded, stored and counted a line at a time.

``a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]`` gives each program ``BLOCK_M`` *lines* of
``BLOCK_K`` consecutive elements, one per row of the tile; ``k_ptr + dims[:, None] + keys[None, :] * stride``
(``Kᵀ``, a column-major operand) gives lines down the columns. A pointer lineage
(:class:`~kernellab.triton.executor.tensor.Lineage`) finds its lines once (:func:`lines_of`); its later shifts
(``a_ptrs += BLOCK_K``) move every line alike. :func:`load` and :func:`store` then

* check bounds from the lines' first elements (every lane is inside the array when the lines are);
* count the access under its layout from the lines' starts (``count_planned``'s tile form, a closed
  form of :func:`kernellab.triton.compiler.layout.lanes` checked by :func:`kernellab.triton.compiler.layout.line_runs`);
* record the DRAM sectors each line covers (:meth:`~kernellab.triton.executor.counts.Touched.mark_lines`), a
  lineage's distinct lines once each;
* move whole lines through a window view of the array (``n`` elements copied per line, not ``n``
  element lookups).

They give the same values, counts and errors as the reference path of :mod:`kernellab.triton.executor.memory`,
and decline (return None or False, having done nothing) where that path must run instead: lines
reaching outside the array, a store whose mask drops a lane or whose lines overlap.

Examples
--------
>>> data = np.array([[[0, 1, 2], [10, 11, 12]]])        # one program's 2×3 tile: two lines of three
>>> lines_of(data).axis, lines_of(data).starts.tolist(), lines_of(data.transpose(0, 2, 1)).axis
(1, [[0, 10]], 0)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ... import cvt
from .counts import Geometry
from .program import Program


class Lines(NamedTuple):
    """A tile's offsets as lines: element ``(i, j)`` of row ``r`` is ``starts[r, i] + j`` (``axis`` 1) or
    ``starts[r, j] + i`` (``axis`` 0); ``n`` elements a line; ``lo``, ``hi`` the extreme starts."""

    axis: int
    starts: np.ndarray  # int64 (rows, lines)
    n: int
    lo: int
    hi: int


def lines_of(data: np.ndarray) -> Lines | None:
    """The lines of a ``(rows, d0, d1)`` block of offsets consecutive along one of its two axes, else None
    (the last axis is tried first; a 1-element axis is consecutive only as a last resort)."""
    if data.ndim != 3 or data.size == 0:
        return None
    for axis in ((1, 0) if data.shape[2] > 1 or data.shape[1] == 1 else (0, 1)):
        d = data.shape[axis + 1]
        if d > 1 and not (np.diff(data, axis=axis + 1) == 1).all():
            continue
        starts = np.ascontiguousarray(data[:, :, 0] if axis == 1 else data[:, 0, :], dtype=np.int64)
        return Lines(axis, starts, d, int(starts.min()), int(starts.max()))
    return None


def lines_of_outer(x: np.ndarray, y: np.ndarray, dtype=None) -> tuple[bool, Lines | None]:
    """``(known, lines)`` of the block ``x + y`` of a column ``(rows, d0, 1)`` and a row ``(rows, 1, d1)``
    (either order) without building it: its lines are along the side that steps by one (the row first,
    as :func:`lines_of`), or there are none. ``dtype``: the integer type the sum is computed in; when a
    sum might wrap around in it, ``known`` is False (the caller builds the block and looks).

    >>> col, row = np.array([[[0], [100]]]), np.array([[[5, 6, 7]]])   # (0, 100) + (5, 6, 7)
    >>> known, lines = lines_of_outer(col, row); known, lines.axis, lines.starts.tolist(), lines.n
    (True, 1, [[5, 105]], 3)
    """
    col, row = (x, y) if x.shape[2] == 1 else (y, x)
    rows = max(col.shape[0], row.shape[0])
    for axis, run, other in ((1, row[:, 0, :], col[:, :, 0]), (0, col[:, :, 0], row[:, 0, :])):
        r = run.astype(np.int64)
        if not (r[:, 1:] - r[:, :-1] == 1).all():
            continue
        starts = other.astype(np.int64) + r[:, :1]
        if starts.shape[0] != rows:
            starts = np.broadcast_to(starts, (rows, starts.shape[1]))
        lo, hi, n = int(starts.min()), int(starts.max()), r.shape[1]
        if dtype is not None:
            info = np.iinfo(dtype.np)
            if lo < info.min or hi + n - 1 > info.max:
                return False, None
        return True, Lines(axis, np.ascontiguousarray(starts), n, lo, hi)
    return True, None


def _placed(lines: Lines, shift, size: int):
    """The lines' starts moved by ``shift`` (an int, or one per program ``(P, 1, 1)``), or None when a line
    may reach outside an array of ``size`` elements."""
    if isinstance(shift, np.ndarray):
        sh = shift.reshape(-1, 1).astype(np.int64, copy=False)
        lo, hi = lines.lo + int(sh.min()), lines.hi + int(sh.max())
        s = lines.starts + sh
    else:
        lo, hi = lines.lo + shift, lines.hi + shift
        s = lines.starts + shift if shift else lines.starts
    if lo < 0 or hi + lines.n > size:
        lo, hi = int(s.min()), int(s.max())
        if lo < 0 or hi + lines.n > size:
            return None
    return s


def _window(flat: np.ndarray, n: int, writeable: bool = False) -> np.ndarray:
    """Every run of ``n`` consecutive elements of ``flat``: row ``s`` is ``flat[s:s + n]`` (a view)."""
    w = flat.itemsize
    return np.lib.stride_tricks.as_strided(flat, (flat.size - n + 1, n), (w, w), writeable=writeable)


def _record(prog: Program, kind: str, flat: np.ndarray, ptr, s: np.ndarray, lines: Lines, mask, how, rows: int):
    """Count the access under its layout and record its DRAM sectors (``mask``: None or the full bool block)."""
    shape = ptr._shape
    lanes = shape[0] * shape[1]
    w = flat.itemsize
    if s.shape[0] != rows:
        s = np.broadcast_to(s, (rows, s.shape[1]))
    cache = key = None
    if mask is None and not isinstance(ptr.shift, np.ndarray):
        cache, key = ptr.lineage.counted, ("tile", ptr.shift * w % 128, shape)
    g = Geometry(rows, prog.P if rows == 1 else 1, lanes, w, mask=None if mask is None else mask.reshape(rows, lanes),
                 cache=cache, key=key, tile=(lines.axis, s, shape), closed=prog.policy.closed_forms)
    prog.tally.planned(kind, g, how[0], how[1], shape, prog.num_warps, prog.wanted)
    if prog.touched is not None:
        if mask is None and not isinstance(ptr.shift, np.ndarray):  # the lineage's distinct lines, shifted
            _distinct(ptr.lineage, lines)
            prog.touch_lines(flat, ptr.lineage.counted["distinct lines"] + ptr.shift, lines.n)
        elif mask is None:
            prog.touch_lines(flat, s, lines.n)
        else:
            offs, m = g.offsets()
            prog.touch(flat, offs, m)


def load(prog: Program, ptr, mask, other, how):
    """``tl.load(ptr, mask, other)`` of a tile stored as lines (see the module): ``(values, widen)``, or None to
    decline; with ``widen``, ``values`` is a function giving the float16 values, called only if they are read
    (a ``tl.dot`` reads only the float32 ones).

    ``mask``: a bool block that broadcasts to ``(rows, *shape)``, or None; ``other``: the fill of masked-off
    lanes (0 when None), already in the array's storage type; ``how``: the pointer's and mask's axis facts
    and the block shape. ``widen``: None, or for an unmasked float16 tile whose programs share lines (the
    grouped matmul's operands, FlashAttention's keys), a function giving the values as float32 — each
    distinct line converted once, then copied to the programs that read it (``_distinct``).
    """
    flat, lines = ptr.flat, ptr.lineage.lines
    s = _placed(lines, ptr.shift, flat.size)
    if s is None:
        return None
    shape = ptr._shape
    if mask is not None and mask.all():
        mask = None
    rows = s.shape[0] if mask is None else max(s.shape[0], mask.shape[0])
    full = None if mask is None else np.broadcast_to(mask, (rows, *shape))
    prog.before_load(flat)
    _record(prog, "load", flat, ptr, s, lines, full, how, rows)
    shared = None if isinstance(ptr.shift, np.ndarray) else _distinct(ptr.lineage, lines)
    if shared is None:
        vals = _window(flat, lines.n)[s]  # (rows of s, lines, n)
    else:  # the distinct lines once, then each program's
        distinct, which = shared
        part = _window(flat, lines.n)[distinct + ptr.shift]
    widen = None
    if full is None and shared is not None and flat.dtype == np.float16:
        from .numerics import _widen

        def widen(part=part, which=which, axis=lines.axis):  # a column tile: its lines' transpose, a view
            wide = _widen(part)[which]  # (np.matmul reads each matrix in either order, the same sums)
            return wide.transpose(0, 2, 1) if axis == 0 else wide

        def values(part=part, which=which, axis=lines.axis):  # ``part`` is a copy: later stores do not reach it
            vals = part[which]
            return np.ascontiguousarray(vals.transpose(0, 2, 1)) if axis == 0 else vals

        return values, widen
    if shared is not None:
        vals = part[which]
    if lines.axis == 0:
        vals = np.ascontiguousarray(vals.transpose(0, 2, 1))
    if full is None:
        return vals, widen
    fill = cvt.astype(0 if other is None else other, flat.dtype)
    return np.where(full, vals, fill), None


def _distinct(lineage, lines: Lines):
    """``(distinct starts, which)`` of a lineage whose programs share lines: ``starts == distinct[which]``,
    kept once per lineage; None when fewer than half the lines repeat (a copy through them gains nothing)."""
    got = lineage.counted.get("shared lines", False)
    if got is False:
        u = np.sort(lines.starts, axis=None)
        u = u[np.r_[True, u[1:] != u[:-1]]]
        got = None
        if 2 * u.size <= lines.starts.size:
            got = (u, np.searchsorted(u, lines.starts))
        lineage.counted["shared lines"] = got
        lineage.counted["distinct lines"] = u
    return got


def store(prog: Program, ptr, vals: np.ndarray, mask, how) -> bool:
    """``tl.store(ptr, vals, mask)`` of a tile stored as lines (``vals`` in the array's dtype, broadcasting
    to the block); False (nothing done) when the reference path must run: a mask that drops a lane,
    lines outside the array or overlapping one another (whose writes that path orders)."""
    if mask is not None and not mask.all():
        return False
    flat, lines = ptr.flat, ptr.lineage.lines
    s = _placed(lines, ptr.shift, flat.size)
    if s is None:
        return False
    rows = max(s.shape[0], vals.shape[0])
    if s.shape[0] != rows:
        s = np.broadcast_to(s, (rows, s.shape[1]))
    order = np.sort(s, axis=None)
    if order.size > 1 and not (order[1:] - order[:-1] >= lines.n).all():
        return False
    _record(prog, "store", flat, ptr, s, lines, None, how, rows)
    shape = ptr._shape
    if vals.shape != (rows, *shape):
        vals = np.broadcast_to(vals, (rows, *shape))
    src = vals if lines.axis == 1 else vals.transpose(0, 2, 1)
    dst = _window(flat, lines.n, writeable=True)
    prog.write(flat, lambda: dst.__setitem__(s, src), vals)
    return True
