"""Loads and stores of blocks of element offsets into flat arrays: bounds, masks, and counting.

Both front ends come here: the lecture form's ``tl.load(array, offsets, mask)`` and the real syntax's
``tl.load(ptr + offsets, mask)``. Offsets carry a leading axis over the programs of the step (length 1
when every program uses the same offsets). Masked-off lanes read nothing, write nothing and count
nothing; an unmasked lane outside its array raises :class:`~kernellab.OutOfBoundsError`.
Every array is taken to start 256-byte aligned, as ``cudaMalloc`` and PyTorch's allocator give.

Reading order: ``_check`` and ``_count`` are the reference path (every lane's offset and
address); :func:`load` and :func:`store` take it unless one of two optimisations applies, each giving
the same values, counts and errors with less work — a pointer *lineage* (offsets shared up to a shift,
``_check_and_count``), and *rows* of consecutive offsets under a prefix mask (:func:`load_rows`,
:func:`store_rows`, reached from ``tl.load``/``tl.store`` when the offsets kept their structure). Stores
go through :meth:`Program.write <kernellab.triton.executor.program.Program.write>`, which applies them at once
or, in a vectorised step, when the step ends.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ... import cvt
from ...access import (
    LINE_BYTES,
    WARP_SIZE,
    _row_counts,
    affine_counts,
    affine_ideal,
    prefix_counts,
    prefix_ideal,
)
from ...errors import LaunchError, OutOfBoundsError, fmt_dim3
from ...i18n import _
from .counts import Geometry, count_access
from .program import Program


def flat_view(array: np.ndarray, what: str = "array") -> np.ndarray:
    """A 1-D view of a contiguous array in memory order: element offset ``i`` is the ``i``-th element in memory.

    Examples
    --------
    >>> a = np.arange(6.0).reshape(2, 3)
    >>> flat_view(a)[4], flat_view(a.T)[4]        # a.T is a view of the same memory
    (np.float64(4.0), np.float64(4.0))
    >>> b = np.arange(24.0).reshape(2, 3, 4).transpose(0, 2, 1)   # axes permuted: still one dense block
    >>> flat_view(b)[5], b.strides                  # strides in bytes: element (i, j, k) is at 12i + j + 4k
    (np.float64(5.0), (96, 8, 32))
    """
    if not isinstance(array, np.ndarray):
        raise LaunchError(_("{what} must be a numpy array, not {type}").format(what=what, type=type(array).__name__),
                          argument=what)
    if array.flags.c_contiguous:
        return array.reshape(-1)
    if array.flags.f_contiguous:
        return array.T.reshape(-1)
    if array.ndim and all(st > 0 for st in array.strides):  # a dense block with its axes permuted (x.permute(…))
        in_memory_order = array.transpose(np.argsort(array.strides, kind="stable")[::-1])
        if in_memory_order.flags.c_contiguous:
            return in_memory_order.reshape(-1)
    raise LaunchError(_("{what} is not contiguous in memory: pass np.ascontiguousarray({what})").format(what=what),
                      argument=what)


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
          "off").format(place=prog.where(row), op=op, array=prog.name_of(flat), index=first, size=size, lane=lane),
        kernel=prog.kernel, program=fmt_dim3(prog.pids[row]), op=op, array=prog.name_of(flat), index=first, size=size,
        lane=lane,
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
    """Count an access through :mod:`kernellab.access` (the reference path: every lane's address)."""
    rows = offs.shape[0]
    addr = offs.reshape(rows, -1) * flat.itemsize
    active = None if mask is None else mask.reshape(rows, -1)
    copies = prog.P if rows == 1 else 1  # one row shared by every program of the step
    prog.tally.access(kind, addr, active, flat.itemsize, copies)


class LineageCounts(NamedTuple):
    """One unmasked access of a pointer lineage, counted once: its offsets' extremes and its counts."""

    lo: int  # smallest offset of the lineage (shift 0)
    hi: int  # largest offset
    requests: int
    sectors: int
    bytes: int
    lines: int
    ideal: int  # ideal sectors (kernellab.access.ideal_sectors)


def _check_and_count(prog: Program, kind: str, flat: np.ndarray, offs: np.ndarray, mask, lineage, shift: int):
    """Bounds-check and count an access.

    The reference path checks every lane and counts every lane's address (:func:`_check`,
    :func:`_count`). Two optimisations give the same numbers with less work when the pointer's
    lineage says its offsets are ``lineage.data + shift`` (see :class:`~kernellab.triton.executor.tensor.Lineage`):

    * consecutive offsets under a mask: each warp is affine (first element, stride one element), so
      :func:`kernellab.access.affine_counts` counts it from its first address and its mask alone,
      and the bounds need checking lane by lane only when the block reaches outside the array;
    * no mask: the lineage's requests, sectors and lines are counted once per (width, shift mod 128
      bytes, shape) and reused, its extremes shifting with it.
    """
    if not prog.policy.closed_forms:  # the reference: every lane checked, every lane's address counted
        _check(prog, kind, flat, offs, mask)
        _count(prog, kind, flat, offs, mask)
        return
    if isinstance(shift, np.ndarray):  # one shift per program: each program's row may be consecutive
        starts = _row_starts(offs, lineage, shift)
        if starts is None:
            _check(prog, kind, flat, offs, mask)
            _count(prog, kind, flat, offs, mask)
            return
        lanes = offs.size // offs.shape[0]
        outside = (starts < 0) | (starts + lanes > flat.size)  # rows reaching past an end of the array
        if outside.any():
            lane = np.arange(lanes)
            rows = np.flatnonzero(outside)
            bad = (lane < -starts[rows, None]) | (lane >= flat.size - starts[rows, None])
            if mask is None or (bad & mask.reshape(offs.shape[0], lanes)[rows]).any():
                _check(prog, kind, flat, offs, mask)  # raises, naming the first offending program and lane
        _count_consecutive(prog, kind, flat.itemsize, offs.shape, starts, mask)
        return
    start = _contiguous_block(offs, lineage, shift)
    if mask is not None and start is not None:
        # only the lanes before the array's start or past its end can be out of bounds: look at those
        inside = slice(max(-start, 0), max(flat.size - start, 0))
        m = mask.reshape(-1)
        if m[:inside.start].any() or m[inside.stop:].any():
            _check(prog, kind, flat, offs, mask)  # raises, naming the first offending program and lane
        lanes = offs.size // offs.shape[0]
        _count_consecutive(prog, kind, flat.itemsize, offs.shape, start + np.arange(offs.shape[0]) * lanes, mask)
        return
    if lineage is None or mask is not None:
        _check(prog, kind, flat, offs, mask)
        _count(prog, kind, flat, offs, mask)
        return
    w = flat.itemsize
    key = (w, shift * w % 128, offs.shape)  # lines stay put under shifts by whole 128-byte lines
    st = lineage.counted.get(key)
    if st is None:
        rows = offs.shape[0]
        c0 = lineage.start if offs.shape == lineage.shape else None
        if c0 is not None and offs.size // rows % 32 == 0 and (c0 + shift) * w % 32 == 0:
            # consecutive elements from a sector boundary, whole warps per program: every warp is the
            # first one moved by a multiple of 32 bytes, so it has the same requests and sectors
            req, sec, nbytes, _lin, ideal = count_access((c0 + shift + np.arange(32, dtype=np.int64))[None] * w, None,
                                                         w, ideal=True)
            warps = offs.size // 32
            first = (c0 + shift) * w + np.arange(warps, dtype=np.int64) * (32 * w)  # each warp's first byte
            lin = int(((first + 32 * w - 1) // 128 - first // 128 + 1).sum())  # lines per warp vary when w < 4
            req, sec, nbytes, ideal = req * warps, sec * warps, nbytes * warps, ideal * warps
        else:
            req, sec, nbytes, lin, ideal = count_access(offs.reshape(rows, -1) * w, None, w, ideal=True)
        if c0 is not None:
            lo, hi = c0, c0 + lineage.data.size - 1
        else:
            lo, hi = int(lineage.data.min()), int(lineage.data.max())
        st = lineage.counted[key] = LineageCounts(lo, hi, req, sec, nbytes, lin, ideal)
    if st.lo + shift < 0 or st.hi + shift >= flat.size:
        _check(prog, kind, flat, offs, None)
    copies = prog.P if offs.shape[0] == 1 else 1
    prog.tally.counted(kind, offs.shape[0] * copies, st.requests * copies, st.sectors * copies, st.bytes * copies,
                       st.lines * copies, offs.size // offs.shape[0], ideal=st.ideal * copies)


def _check_planned(prog: Program, kind: str, flat: np.ndarray, offs: np.ndarray, mask, lineage, shift, how):
    """Bounds-check an access and record it for counting under its layout (``how``: see :func:`load`).

    The bounds are checked lane by lane (:func:`_check`) unless the pointers' lineage says where the
    block lies: consecutive rows (only rows reaching past an end of the array are looked at), or an
    unmasked lineage whose extremes, kept once per lineage, are inside the array.
    """
    rows = offs.shape[0]
    lanes = offs.size // rows
    copies = prog.P if rows == 1 else 1
    ptr, mfacts, shape = how
    starts = None
    if isinstance(shift, np.ndarray):
        starts = _row_starts(offs, lineage, shift)
    else:
        start = _contiguous_block(offs, lineage, shift)
        if start is not None:
            starts = start + np.arange(rows, dtype=np.int64) * lanes
    if starts is not None:
        outside = (starts < 0) | (starts + lanes > flat.size)  # rows reaching past an end of the array
        if outside.any():
            lane = np.arange(lanes)
            bad_rows = np.flatnonzero(outside)
            bad = (lane < -starts[bad_rows, None]) | (lane >= flat.size - starts[bad_rows, None])
            if mask is None or (bad & np.broadcast_to(mask.reshape(-1, lanes), (rows, lanes))[bad_rows]).any():
                _check(prog, kind, flat, offs, mask)  # raises, naming the first offending program and lane
    elif mask is None and lineage is not None and not isinstance(shift, np.ndarray):
        ext = lineage.counted.get("extremes")
        if ext is None:
            ext = lineage.counted["extremes"] = (int(lineage.data.min()), int(lineage.data.max()))
        if ext[0] + shift < 0 or ext[1] + shift >= flat.size:
            _check(prog, kind, flat, offs, None)
    else:
        _check(prog, kind, flat, offs, mask)
    m = None if mask is None else mask.reshape(rows, lanes)
    closed = prog.policy.closed_forms
    if starts is not None:
        g = Geometry(rows, copies, lanes, flat.itemsize, starts=starts, mask=m, closed=closed)
    elif m is None and lineage is not None and not isinstance(shift, np.ndarray):
        w = flat.itemsize  # an unmasked lineage: counted once per shift within a 128-byte line
        g = Geometry(rows, copies, lanes, w, offs=offs.reshape(rows, lanes), cache=lineage.counted,
                     key=("planned", shift * w % LINE_BYTES, offs.shape), closed=closed)
    else:
        g = Geometry(rows, copies, lanes, flat.itemsize, offs=offs.reshape(rows, lanes), mask=m, closed=closed)
    prog.tally.planned(kind, g, ptr, mfacts, shape, prog.num_warps, prog.wanted)


def _count_consecutive(prog: Program, kind: str, width: int, shape: tuple, starts: np.ndarray, mask):
    """Count an access whose program row ``p`` reads the consecutive offsets ``starts[p], starts[p]+1, …``.

    Each program's lanes fill whole warps (the last one padded with inactive lanes, as
    :func:`~kernellab.triton.executor.counts.count_access` pads them); warp ``w`` of row ``p`` starts at
    offset ``starts[p] + 32·w`` and steps one element per lane. ``mask`` None: every lane is active.
    """
    rows = shape[0]
    lanes = int(np.prod(shape[1:], dtype=np.int64))
    warps = -(-lanes // WARP_SIZE)
    active = None
    if mask is not None:
        active = mask.reshape(rows, lanes)
        if lanes % WARP_SIZE:
            active = np.concatenate([active, np.zeros((rows, warps * WARP_SIZE - lanes), bool)], axis=1)
        active = active.reshape(-1, WARP_SIZE)
    elif lanes % WARP_SIZE:
        active = np.tile(np.arange(warps * WARP_SIZE) < lanes, rows).reshape(-1, WARP_SIZE)
    first = np.add.outer(np.asarray(starts, np.int64), np.arange(warps, dtype=np.int64) * WARP_SIZE).ravel() * width
    stride = np.full(first.size, width, np.int64)
    req, sec, lin, nbytes = affine_counts(first, stride, active, width)
    ideal = affine_ideal(stride, active, width)
    copies = prog.P if rows == 1 else 1
    prog.tally.counted(kind, rows * copies, req * copies, sec * copies, nbytes * copies, lin * copies, lanes,
                       ideal=ideal * copies)


def _row_starts(offs: np.ndarray, lineage, shift: np.ndarray):
    """Each program row's first offset when every row is consecutive (its lineage says so), else None."""
    if (lineage is None or lineage.shape[0] != 1 or offs.shape[1:] != lineage.shape[1:]
            or shift.shape[0] != offs.shape[0] or lineage.start is None):
        return None
    return lineage.start + shift.reshape(-1)


def _exactly_inside(mask: np.ndarray, start: int, lo: int, hi: int) -> bool:
    """Whether ``mask`` keeps every lane of a consecutive block at offsets ``lo … hi-1`` (inside the array).

    The lanes outside the array are masked off (the bounds check has passed), so the lanes kept are
    then exactly those.
    """
    return bool(mask.reshape(-1)[lo - start:hi - start].all())


def _contiguous_block(offs: np.ndarray, lineage, shift: int):
    """``s`` when ``offs`` is exactly ``s, s+1, …`` in row-major order (its lineage says so), else None."""
    if lineage is None or offs.shape != lineage.shape or isinstance(shift, np.ndarray):
        return None
    c = lineage.start
    return None if c is None else c + shift


def _touch(prog: Program, flat: np.ndarray, offs: np.ndarray, mask, lineage, shift, start):
    """Record the sectors an access touches (the launch's compulsory DRAM traffic), from its rows' starts
    when its offsets are consecutive."""
    if start is not None:
        starts = np.array([start], np.int64)
    elif isinstance(shift, np.ndarray):
        starts = _row_starts(offs, lineage, shift)
    else:
        starts = None
    prog.touch(flat, offs, mask, starts)


def load(prog: Program, flat: np.ndarray, offs: np.ndarray, mask=None, other=None, lineage=None,
         shift: int = 0, how=None) -> np.ndarray:
    """Gather ``flat[offs]`` where ``mask`` holds, ``other`` (0 when None) elsewhere, and count it.

    ``offs`` is int64 ``(rows, *block)`` with ``rows`` 1 or the step's ``P``; the result has the same
    shape and ``flat``'s dtype. ``how``: ``(pointer facts, mask facts, block shape)`` for an access
    counted under its layout (:meth:`~kernellab.triton.executor.counts.Tally.planned`), None for the simpler rule.
    """
    offs, mask = _prepare(offs, mask)
    prog.before_load(flat)
    if how is None:
        _check_and_count(prog, "load", flat, offs, mask, lineage, shift)
    else:
        _check_planned(prog, "load", flat, offs, mask, lineage, shift, how)
    start = _contiguous_block(offs, lineage, shift)
    _touch(prog, flat, offs, mask, lineage, shift, start)
    return _gather(flat, offs, mask, other, start)


def _gather(flat: np.ndarray, offs: np.ndarray, mask, other, start):
    """The values of an access already checked: ``flat[offs]`` where ``mask`` holds, ``other`` elsewhere
    (``start``: the first offset when ``offs`` is consecutive, else None)."""
    if start is not None and mask is None:  # a contiguous block: a slice, not a gather
        return flat[start:start + offs.size].reshape(offs.shape).copy()
    if mask is None:
        return flat[offs]
    fill = cvt.astype(0 if other is None else other, flat.dtype)
    if start is not None:  # consecutive and masked: the part inside the array is a slice
        lo = max(start, 0)  # lanes outside the array are masked off (checked)
        hi = max(lo, min(start + offs.size, flat.size))
        vals = np.empty(offs.size, flat.dtype)
        vals[lo - start:hi - start] = flat[lo:hi]
        if _exactly_inside(mask, start, lo, hi):  # `offs < n`: every lane inside the array, none outside
            vals[:lo - start] = fill
            vals[hi - start:] = fill
            return vals.reshape(offs.shape)
        return np.where(mask, vals.reshape(offs.shape), fill)
    vals = flat.take(offs, mode="clip")
    return np.where(mask, vals, fill)


def store(prog: Program, flat: np.ndarray, offs: np.ndarray, value: np.ndarray, mask=None, lineage=None,
          shift: int = 0, how=None):
    """Scatter ``value`` (cast to ``flat``'s dtype) to ``flat[offs]`` where ``mask`` holds, and count it."""
    offs, mask = _prepare(offs, mask)
    value = cvt.astype(value, flat.dtype)
    if value.shape != offs.shape:
        shape = np.broadcast_shapes(offs.shape, value.shape)
        if shape[1:] != offs.shape[1:]:
            raise ValueError(_("cannot store a block of shape {shape} through pointers of shape "
                               "{shape2}").format(
                shape=list(value.shape[1:]), shape2=list(offs.shape[1:])))
        offs = np.broadcast_to(offs, shape)
        mask = None if mask is None else np.broadcast_to(mask, shape)
        value = np.broadcast_to(value, shape)
        lineage = None
    if how is None:
        _check_and_count(prog, "store", flat, offs, mask, lineage, shift)
    else:
        _check_planned(prog, "store", flat, offs, mask, lineage, shift, how)
    start = _contiguous_block(offs, lineage, shift)
    _touch(prog, flat, offs, mask, lineage, shift, start)
    prog.write(flat, *_scatter(flat, offs, value, mask, start))


def _scatter(flat: np.ndarray, offs: np.ndarray, value: np.ndarray, mask, start):
    """``(apply, source)``: ``apply()`` writes ``value`` to ``flat[offs]`` where ``mask`` holds, reading
    ``source`` (``start``: the first offset when ``offs`` is consecutive, else None)."""
    if start is not None and mask is None:
        return _assign(flat[start:start + offs.size], value.reshape(-1)), value
    if mask is None:
        return (lambda: flat.__setitem__(offs, value)), value
    if start is not None:  # consecutive and masked: write the slice inside the array where the mask holds
        lo = max(start, 0)  # lanes outside the array are masked off (checked)
        hi = max(lo, min(start + offs.size, flat.size))
        if hi <= lo:
            return (lambda: None), value
        src = value.reshape(-1)[lo - start:hi - start]
        if _exactly_inside(mask, start, lo, hi):
            return _assign(flat[lo:hi], src), src
        keep = mask.reshape(-1)[lo - start:hi - start]
        return (lambda: np.copyto(flat[lo:hi], src, where=keep)), src
    return (lambda: flat.__setitem__(offs[mask], value[mask])), value


def _assign(dst: np.ndarray, src: np.ndarray):
    """``apply()`` for ``dst[...] = src``."""
    return lambda: np.copyto(dst, src.reshape(dst.shape))


# --- an optimisation: rows of consecutive elements under a prefix mask ------------------------------
# ``tl.load(x_ptr + offs, mask=offs < n)`` with ``offs = pid * BLOCK + tl.arange(0, BLOCK)``: program
# row ``r`` reads ``flat[starts[r] : starts[r] + active[r]]``. Checked, counted (kernellab.access.
# prefix_counts) and touched from the starts and active counts alone, and moved as slices; any other
# shape of rows falls back to the reference path with the same numbers.


_INT64 = np.dtype(np.int64)


def _rows(shape: tuple, starts, active):
    """``(rows, lanes, starts, active)``, int64 and broadcast to one length (``active`` None: every lane)."""
    lanes = 1
    for d in shape:
        lanes *= d
    s = starts if starts.__class__ is np.ndarray and starts.dtype is _INT64 and starts.ndim == 1 else \
        np.asarray(starts, np.int64).reshape(-1)
    if active is None:
        k = np.array([lanes], np.int64)
    else:
        k = active if active.__class__ is np.ndarray and active.dtype is _INT64 and active.ndim == 1 else \
            np.asarray(active, np.int64).reshape(-1)
    if s.size != k.size:
        if s.size == 1:
            s = np.full(k.size, s[0])
        else:
            k = np.full(s.size, k[0])
    return s.size, lanes, s, k


def _row_offsets(shape: tuple, starts: np.ndarray, active: np.ndarray, lanes: int):
    """The offsets and mask of rows, built: for the reference path."""
    lane = np.arange(lanes, dtype=np.int64)
    offs = (starts[:, None] + lane).reshape((-1, *shape))
    mask = None if (active == lanes).all() else (lane < active[:, None]).reshape((-1, *shape))
    return offs, mask


def _owner(a: np.ndarray):
    """The read-only array whose every element ``a`` is, in order (``a`` itself or a view of all of it), else None."""
    b = a if a.base is None else a.base
    if b.__class__ is np.ndarray and not b.flags.writeable and b.size == a.size and b.dtype == a.dtype \
            and a.flags.c_contiguous and b.flags.c_contiguous:
        return b
    return None


def _one_run(prog: Program, s: np.ndarray, k: np.ndarray, lanes: int) -> bool:
    """Whether rows from ``s`` with active lanes ``k`` are one run: each row ``lanes`` after the last, all
    full but the last. Read-only starts and counts (a kernel's row starts and mask, shared by its
    pointers) are looked at once per step."""
    so, ko = _owner(s), _owner(k)
    key = (id(so), id(ko), lanes)
    hit = prog.runs.get(key) if so is not None and ko is not None else None
    if hit is not None and hit[0] is so and hit[1] is ko:
        return hit[2]
    verdict = bool((s[1:] - s[:-1] == lanes).all() and (k[:-1] == lanes).all())
    if so is not None and ko is not None:
        prog.runs[key] = (so, ko, verdict)
    return verdict


def _check_count_touch_rows(prog: Program, kind: str, flat: np.ndarray, shape: tuple, starts, active, how=None):
    """Bounds-check, count and record the sectors of rows of consecutive offsets (see :func:`load_rows`;
    ``how``: the axis facts of the pointers and mask, for an access counted under its layout).

    Returns ``(rows, lanes, starts, active, run)``: ``run`` is the number of elements from ``starts[0]``
    when the active lanes of all rows form one run (full rows one after another, the last a prefix),
    else None.
    """
    rows, lanes, s, k = _rows(shape, starts, active)
    w = flat.itemsize
    copies = prog.P if rows == 1 else 1  # one row shared by every program of the step
    s0 = int(s[0])
    one_run = rows == 1 or _one_run(prog, s, k, lanes)
    if how is not None:
        full = active is None or (int(k[-1]) == lanes if one_run else bool((k == lanes).all()))
        prog.tally.planned(kind, Geometry(rows, copies, lanes, w, starts=s, active=None if full else k, run=one_run,
                                                 closed=prog.policy.closed_forms),
                           how[0], how[1], shape, prog.num_warps, prog.wanted)
    if one_run:  # one run of elements
        run = (rows - 1) * lanes + int(k[-1])
        if run and (s0 < 0 or s0 + run > flat.size):
            _check(prog, kind, flat, *_row_offsets(shape, s, k, lanes))  # raises, naming the program and lane
        if how is not None:
            pass
        elif not prog.policy.closed_forms:
            _count(prog, kind, flat, *_row_offsets(shape, s, k, lanes))
        elif rows > 2 and lanes * w % LINE_BYTES == 0:  # the full rows all count alike
            full, last = _row_counts(s0 * w, lanes, w), _row_counts(int(s[-1]) * w, int(k[-1]), w)
            req, sec, lin, nbytes = (f * (rows - 1) + e for f, e in zip(full, last))
        else:
            req, sec, lin, nbytes = prefix_counts(s * w, k, w)
        if how is None and prog.policy.closed_forms:
            prog.tally.counted(kind, rows * copies, req * copies, sec * copies, nbytes * copies, lin * copies, lanes,
                               ideal=prefix_ideal(k, w) * copies)
        prog.touch_run(flat, s0, run)
        return rows, lanes, s, k, run
    if (int(s.min()) < 0 or int((s + k).max()) > flat.size) and \
            (((s < 0) & (k > 0)).any() or ((s + k > flat.size) & (k > 0)).any()):
        _check(prog, kind, flat, *_row_offsets(shape, s, k, lanes))  # raises, naming the program and lane
    if how is None and not prog.policy.closed_forms:
        _count(prog, kind, flat, *_row_offsets(shape, s, k, lanes))
    elif how is None:
        req, sec, lin, nbytes = prefix_counts(s * w, k, w)
        prog.tally.counted(kind, rows * copies, req * copies, sec * copies, nbytes * copies, lin * copies, lanes,
                           ideal=prefix_ideal(k, w) * copies)
    prog.touch_rows(flat, s, k)
    return rows, lanes, s, k, None


def _strided_rows(flat: np.ndarray, s: np.ndarray, width: int):
    """The first ``width`` elements of every row as one (possibly strided) view, or None when the rows'
    starts are not evenly spaced (``s`` non-decreasing; every row's first ``width`` elements in bounds)."""
    rows = s.size
    step = int(s[1] - s[0]) if rows > 1 else 0
    if step < 0 or (rows > 2 and (np.diff(s) != step).any()):
        return None
    base = flat[int(s[0]):]
    return np.lib.stride_tricks.as_strided(base, (rows, width), (step * flat.itemsize, flat.itemsize),
                                           writeable=True)


def _filled(rows: int, lanes: int, flat: np.ndarray, other) -> tuple[np.ndarray, np.ndarray]:
    """A new flat buffer for ``rows × lanes`` values of ``flat``'s dtype, and the fill of masked-off lanes."""
    out = np.empty(rows * lanes, flat.dtype)
    return out, cvt.astype(0 if other is None else other, flat.dtype)


def load_rows(prog: Program, flat: np.ndarray, shape: tuple, starts, active=None, other=None,
              view: bool = False, how=None) -> np.ndarray:
    """:func:`load` of rows of consecutive offsets: row ``r`` reads ``flat[starts[r] + l]`` for lanes
    ``l < active[r]`` (``active`` None: every lane) and ``other`` (0 when None) elsewhere.

    Returns ``(rows, *shape)``; ``view=True`` allows a view of ``flat`` instead of a copy where no lane is
    masked off (the launcher then defers stores, see :meth:`~kernellab.triton.executor.program.Program.write`).
    """
    prog.before_load(flat)
    rows, lanes, s, k, run = _check_count_touch_rows(prog, "load", flat, shape, starts, active, how)
    s0 = int(s[0])
    if run is not None:  # one run of elements, then masked-off lanes
        if run == rows * lanes:
            block = flat[s0:s0 + run].reshape((rows, *shape))
            return block if view and prog.lend(flat) else block.copy()
        if view:
            prog.split_tail(rows)  # only the last program is short: run the others as views
        out, fill = _filled(rows, lanes, flat, other)
        out[:run] = flat[s0:s0 + run]
        out[run:] = fill
        return out.reshape((rows, *shape))
    k0 = int(k.min())
    if k0 > 0 and int(k.max()) == k0:  # the same prefix of every row: evenly spaced rows are a strided view
        part = _strided_rows(flat, s, k0)
        if part is not None:
            if k0 == lanes:
                return part.reshape((rows, *shape)) if view and prog.lend(flat) else part.copy().reshape((rows, *shape))
            out, fill = _filled(rows, lanes, flat, other)
            out = out.reshape(rows, lanes)
            out[:, :k0] = part
            out[:, k0:] = fill
            return out.reshape((rows, *shape))
    offs, mask = _row_offsets(shape, s, k, lanes)
    return _gather(flat, offs, mask, other, None)


def store_rows(prog: Program, flat: np.ndarray, shape: tuple, starts, value: np.ndarray, active=None, how=None):
    """:func:`store` of rows of consecutive offsets (see :func:`load_rows`); ``value`` is ``(rows or 1,
    *shape)`` in ``flat``'s dtype, or a block not yet computed whose ``_into`` writes it (then computed
    straight into ``flat`` when every lane is stored, else computed here)."""
    operands = value._into[1] if not isinstance(value, np.ndarray) else (value,)
    programs = 1  # rows of the values stored
    for o in operands:
        if o.ndim and o.shape[0] > programs:
            programs = o.shape[0]
    if programs > 1 and np.size(starts) == 1 and (active is None or np.size(active) == 1):
        starts = np.full(programs, np.asarray(starts).reshape(-1)[0])  # one address, a value per program
    rows, lanes, s, k, run = _check_count_touch_rows(prog, "store", flat, shape, starts, active, how)
    if not isinstance(value, np.ndarray) and run is not None and run == rows * lanes:
        # computed straight into the array: one slice
        write, s0 = value._into[0], int(s[0])
        dst = flat[s0:s0 + run].reshape((rows, *shape))
        return prog.write(flat, lambda: write(dst), *operands)
    k0 = int(k.min())
    if not isinstance(value, np.ndarray):  # computed straight into the array where that is a slice
        write = value._into[0]
        dst = _strided_rows(flat, s, k0) if run is None and len(shape) == 1 and _disjoint(s, k) else None
        if dst is not None:  # the same first k0 lanes of each row (a 1-D block), rows apart
            return prog.write(flat, lambda: write(dst, k0), *operands)
        value = value.data
    if value.shape != (rows, *shape):
        value = np.broadcast_to(value, (rows, *shape))
    src = value.reshape(rows, lanes)
    if run is not None:  # one run: full rows, then a prefix
        if run < rows * lanes:
            prog.split_tail(rows)  # only the last program is short: run the others on their own
        s0 = int(s[0])
        return prog.write(flat, _assign(flat[s0:s0 + run], src.reshape(-1)[:run]), value)
    if _disjoint(s, k):  # the same prefix of each row, evenly spaced rows that do not overlap
        dst = _strided_rows(flat, s, k0)
        if dst is not None:
            return prog.write(flat, _assign(dst, src[:, :k0]), value)
    offs, mask = _row_offsets(shape, s, k, lanes)
    prog.write(flat, *_scatter(flat, offs, value, mask, None))


def _disjoint(s: np.ndarray, k: np.ndarray) -> bool:
    """Whether every row keeps the same first ``k0 > 0`` lanes and the rows start at least ``k0`` apart
    (increasing): writing them through a strided view changes each element once, as the programs would."""
    k0 = int(k[0])
    return s.size > 1 and k0 > 0 and int(k.min()) == k0 == int(k.max()) and int(s[1] - s[0]) >= k0
