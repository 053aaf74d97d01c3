"""Loads and stores of blocks of element offsets into flat arrays: bounds, masks, counting and moving.

Both front ends come here: the lecture form's ``tl.load(array, offsets, mask)`` and the real syntax's
``tl.load(ptr + offsets, mask)``. An access is a :class:`~kernellab.triton.executor.view.View` (the
offsets of a block for every program of the step, and the lanes its mask keeps) and takes one route:
:func:`load` and :func:`store` check its bounds (an unmasked lane outside its array raises
:class:`~kernellab.OutOfBoundsError` naming the first program and lane; masked-off lanes read nothing, write
nothing and count nothing), record it for counting (:mod:`kernellab.triton.executor.counts`), record the
DRAM sectors it touches, and move the data. Each of these steps asks the view for its cheapest exact form
and falls back on its lanes (:meth:`~kernellab.triton.executor.view.View.lanes`), the reference: rows of
consecutive offsets move as slices or strided views, a two-dimensional tile of lines of consecutive elements
through a window of its array, anything else as a gather or a scatter. Stores go through
:meth:`Program.write <kernellab.triton.executor.program.Program.write>`, which applies them at once or, in a
vectorised step, when the step ends. Every array is taken to start 256-byte aligned, as ``cudaMalloc`` and
PyTorch's allocator give.
"""

from __future__ import annotations

import numpy as np

from ... import cvt
from ...access import sorted_distinct
from ...errors import LaunchError, OutOfBoundsError, fmt_dim3
from ...i18n import _
from . import locks
from .numerics import Grouped, _widen
from .program import Program
from .view import View, spread


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
    flat = _dense_flat(array)
    if flat is not None:
        return flat
    raise LaunchError(_("{what} is not contiguous in memory: pass np.ascontiguousarray({what})").format(what=what),
                      argument=what)


def _dense_flat(array: np.ndarray):
    """:func:`flat_view` of an array that is one dense block of memory, else None."""
    if array.flags.c_contiguous:
        return array.reshape(-1)
    if array.flags.f_contiguous:
        return array.T.reshape(-1)
    if array.ndim and all(st > 0 or n == 1 for st, n in zip(array.strides, array.shape)):  # a dense block with its
        # axes permuted (x.permute(…)); an axis of size 1 (x[:, None]) may have any stride
        in_memory_order = array.transpose(np.argsort(array.strides, kind="stable")[::-1])
        if in_memory_order.flags.c_contiguous:
            return in_memory_order.reshape(-1)
    return None


def dense(array: np.ndarray) -> bool:
    """Whether ``array`` is one dense block of memory, in any order of its axes (:func:`flat_view` takes it).

    Examples
    --------
    >>> a = np.arange(12.0).reshape(3, 4)
    >>> dense(a), dense(a.T), dense(a[:, :2]), dense(np.broadcast_to(a[:1], (3, 4)))
    (True, True, False, False)
    """
    return _dense_flat(array) is not None


def address(array: np.ndarray) -> int:
    """The address of an array's first element: the key that names an array whatever view reaches it."""
    return array.__array_interface__["data"][0]


def check(prog: Program, op: str, flat: np.ndarray, offs: np.ndarray, mask):
    """Raise OutOfBoundsError for the first program and lane with an unmasked offset outside ``flat`` (``offs``
    int64 ``(rows, *block)``, ``mask`` bool of the same shape or None): the reference bounds check."""
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



def lanes_view(offs: np.ndarray, mask=None) -> View:
    """The view of built offsets and mask (the lecture form's ``tl.load(array, offsets, mask)``): broadcast to
    one shape, a mask that keeps every lane dropped; no structure looked for."""
    offs = np.asarray(offs, np.int64)
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != offs.shape:
            shape = np.broadcast_shapes(offs.shape, mask.shape)
            offs = spread(offs, shape)
            mask = spread(mask, shape)
        if mask.all():
            mask = None
    return View.of(offs, mask)


def load(prog: Program, flat: np.ndarray, view: View, other=None, how=None, lend: bool = False):
    """``flat[offsets]`` of the view's kept lanes, ``other`` (0 when None, in ``flat``'s dtype) elsewhere: checked,
    counted, and its sectors recorded.

    Returns ``(rows, *shape)`` values in ``flat``'s dtype, or, for an unmasked float16 tile whose programs share
    lines, ``(values, widen)``: functions giving the values and their float32 widening, each made only if read
    (a ``tl.dot`` reads the float32 ones). ``how``: ``(pointer facts, mask facts, block shape)`` of an access
    counted under its layout (:meth:`~kernellab.triton.executor.counts.Tally.planned`), None for the simpler
    rule. ``lend``: the values may be a view of ``flat`` where no lane is masked off, when the step defers its
    stores (:meth:`~kernellab.triton.executor.program.Program.lend`).
    """
    if not prog.policy.structured:
        view = _plain(view)
    prog.before_load(flat)
    _place(prog, "load", flat, view, how)
    if prog.claims is not None:  # one group of a diverging step: the elements each of its programs may read
        prog.claims.access(prog.address(flat), flat.itemsize, view, False)
    starts = view.starts()
    if starts is not None:
        k = view.prefix()
        if k is not None:
            got = _read_rows(prog, flat, view, starts, k, other, lend)
            if got is not None:
                return got
    lines = view.lines()
    if lines is not None:
        got = _read_lines(flat, view, lines, other)
        if got is not None:
            return got
    offs, mask = view.lanes()
    return _gather(flat, offs, mask, other, _block_start(view, starts))


def store(prog: Program, flat: np.ndarray, view: View, value, how=None):
    """Write ``value`` to ``flat[offsets]`` where the view keeps a lane: checked, counted, its sectors recorded,
    and applied through :meth:`~kernellab.triton.executor.program.Program.write` (at once or when the step ends).

    ``value``: ``(rows or 1, *shape)`` in ``flat``'s dtype, or a block not yet computed whose ``_into`` writes it
    (:mod:`kernellab.triton.executor.tensor`), computed straight into ``flat`` where the view is a slice.
    """
    if not prog.policy.structured:
        view = _plain(view)
    lazy = value.__class__ is not np.ndarray
    if lazy:
        operands = value._into[1]
        rows_v = max((o.shape[0] for o in operands if o.ndim), default=1)
    else:
        value = cvt.astype(value, flat.dtype)
        if value.shape[1:] != view.shape and np.broadcast_shapes(value.shape[1:], view.shape) != view.shape:
            raise ValueError(_("cannot store a block of shape {shape} through pointers of shape {shape2}").format(
                shape=list(value.shape[1:]), shape2=list(view.shape)))
        rows_v = value.shape[0]
    if rows_v > view.rows:  # one address, a value per program: each program stores, in program order
        s = view.shift
        view = View(view.base, np.full(rows_v, s, np.int64) if s.__class__ is not np.ndarray else
                    spread(s, (rows_v,)), view.keep)
    _place(prog, "store", flat, view, how)
    if prog.claims is not None:  # one group of a diverging step: the elements each of its programs may write
        prog.claims.access(prog.address(flat), flat.itemsize, view, True)
    rows, shape = view.rows, view.shape
    starts = view.starts()
    k = None if starts is None else view.prefix()
    if k is not None:
        value = _write_rows(prog, flat, view, starts, k, value)
        if value is None:
            return
    elif lazy:
        value = value.data
    if view.keep is None:
        lines = view.lines()
        if lines is not None and _write_lines(prog, flat, lines, value, rows, shape):
            return
    if value.shape != (rows, *shape):
        value = spread(value, (rows, *shape))
    offs, mask = view.lanes()
    prog.write(flat, *_scatter(flat, offs, value, mask, _block_start(view, starts)), span=lambda: _span(view))


def _span(view: View) -> tuple[int, int]:
    """``(lo, hi)``: a store through ``view`` writes no element outside ``lo .. hi - 1`` (its offsets' bounds)."""
    lo, hi = view.extremes()
    return lo, hi + 1


def _rows_span(s: np.ndarray, n: int) -> tuple[int, int]:
    """``(lo, hi)``: rows of ``n`` elements from the starts ``s`` lie inside ``lo .. hi - 1``."""
    return int(np.minimum.reduce(s, axis=None)), int(np.maximum.reduce(s, axis=None)) + n


def _block_start(view: View, starts) -> int | None:
    """The first offset when the view's offsets are one consecutive block over all its programs, else None."""
    if starts is None:
        return None
    if view.rows > 1 and not (starts[1:] - starts[:-1] == view.numel).all():
        return None
    return int(starts[0])


def _plain(view: View) -> View:
    """The view with its offsets and mask built and no structure: the reference policy's."""
    return View.of(*view.lanes())


# --- check, count, touch --------------------------------------------------------------------------------------
def _place(prog: Program, kind: str, flat: np.ndarray, view: View, how):
    """Check the bounds of an access, record it for counting and record the DRAM sectors it touches."""
    _check_view(prog, kind, flat, view)
    copies = prog.P if view.rows == 1 else 1  # one row shared by every program of the step
    if how is None:  # the lecture form: the block flattened row-major, warps of 32 lanes
        offs, mask = view.lanes()
        rows = offs.shape[0]
        prog.tally.access(kind, offs.reshape(rows, -1) * flat.itemsize,
                          None if mask is None else mask.reshape(rows, -1), flat.itemsize, copies)
    else:
        prog.tally.planned(kind, view, flat.itemsize, copies, how, prog.num_warps, prog.wanted,
                           prog.policy.closed_forms)
    if prog.touched is not None:
        _touch(prog, flat, view)
    if kind == "store":  # the program's edges, their bytes summed when it ends (kernellab.triton.executor.rounds)
        prog.tail.append((view, flat.itemsize))
    elif not prog.rounds:
        prog.head.append((view, flat.itemsize))
    if prog.lock is not None:  # inside a critical section (kernellab.triton.executor.locks)
        locks.moved(prog, kind, locks.active_bytes(view, flat.itemsize, prog.P))


def _check_view(prog: Program, kind: str, flat: np.ndarray, view: View):
    """Raise OutOfBoundsError, as :func:`check` does, when a kept lane is outside ``flat``; looks lane by lane
    only where the view's extremes (or its rows, when consecutive) reach outside the array."""
    lo, hi = view.extremes()
    size = flat.size
    if lo >= 0 and hi < size:
        return
    starts = view.starts()
    if starts is not None and view.keep is not None:
        k = view.prefix()
        if k is not None:  # row r keeps lanes 0 … k[r] − 1, elements s[r] … s[r] + k[r] − 1
            if not ((k > 0) & ((starts < 0) | (starts + k > size))).any():
                return
        else:
            n = view.numel
            outside = (starts < 0) | (starts + n > size)  # rows reaching past an end of the array
            rows = np.flatnonzero(outside)
            lane = np.arange(n)
            bad = (lane < -starts[rows, None]) | (lane >= size - starts[rows, None])
            if not (bad & view.mask()[rows]).any():
                return
    check(prog, kind, flat, *view.lanes())  # raises, naming the first offending program and lane


def _touch(prog: Program, flat: np.ndarray, view: View):
    """Record the sectors an access touches (the launch's compulsory DRAM traffic) from its cheapest form."""
    starts = view.starts()
    if starts is not None:
        k = view.prefix()
        if k is not None and view.run():
            prog.touch_run(flat, int(starts[0]), (view.rows - 1) * view.numel + int(k[-1]))
        elif k is not None:
            prog.touch_rows(flat, starts, k)
        else:
            prog.touch(flat, *view.lanes(), starts)
        return
    if view.keep is None:
        lines = view.lines()
        if lines is not None:
            if view.shift.__class__ is np.ndarray:
                prog.touch_lines(flat, lines[1], lines[2])
            else:  # the base's distinct lines, merged into runs of elements, shifted
                starts, lengths = _runs_of_lines(view.base)
                prog.touch_rows(flat, starts + view.shift, lengths)
            return
    prog.touch(flat, *view.lanes())


def _distinct(base):
    """``(distinct starts, which)`` of a base whose programs share lines: ``starts == distinct[which]``, kept once
    per base; None when fewer than half the lines repeat (a copy through them gains nothing)."""
    memo = base.memo
    got = memo.get("shared lines", False)
    if got is False:
        starts = base.lines.starts
        u = sorted_distinct(starts)
        got = (u, np.searchsorted(u, starts)) if 2 * u.size <= starts.size else None
        memo["shared lines"] = got
    return got


def _runs_of_lines(base) -> tuple[np.ndarray, np.ndarray]:
    """``(starts, lengths)`` of the runs of elements a base's lines cover, each run once (the lines sorted, those
    that overlap or touch merged), kept once per base: a tile's sectors, marked as the runs' sectors.

    >>> from kernellab.triton.executor.view import Base
    >>> base = Base(np.array([[[8, 9], [0, 1], [2, 3], [20, 21]]]))   # lines from 8, 0, 2, 20, two elements each
    >>> [a.tolist() for a in _runs_of_lines(base)]                    # elements 0–3, 8–9 and 20–21
    [[0, 8, 20], [4, 2, 2]]
    """
    got = base.memo.get("runs of lines")
    if got is None:
        lines = base.lines
        u = sorted_distinct(lines.starts)
        reach = np.maximum.accumulate(u + lines.n)  # where the runs so far end
        first = np.empty(u.size, bool)  # a line that starts past every earlier one's end: a new run
        first[0] = True
        np.greater(u[1:], reach[:-1], out=first[1:])
        last = np.empty_like(first)
        last[:-1], last[-1] = first[1:], True
        got = base.memo["runs of lines"] = (u[first], reach[last] - u[first])
    return got


def _per_group(base, which: np.ndarray) -> int:
    """How many consecutive programs share each tile of shared lines (``which``: each program's lines), all alike
    (FlashAttention's programs of one head); 1 when they do not fall into such groups. Kept once per base."""
    per = base.memo.get("programs per tile")
    if per is None:
        rows = which.shape[0]
        starts = np.empty(rows, bool)
        starts[0] = True
        np.any(which[1:] != which[:-1], axis=1, out=starts[1:])
        new = np.flatnonzero(starts)  # where a group starts: groups of ``per`` programs start at 0, per, 2·per, …
        per = rows // new.size if rows % new.size == 0 and (new == np.arange(new.size) * (rows // new.size)).all() \
            else 1
        base.memo["programs per tile"] = per
    return per


# --- moving: rows of consecutive elements ---------------------------------------------------------------------
def _read_rows(prog: Program, flat: np.ndarray, view: View, s: np.ndarray, k: np.ndarray, other, lend: bool):
    """Row ``r`` reads ``flat[s[r] + l]`` for its kept lanes ``l < k[r]``: one slice when they are one run, a
    strided view when every row keeps the same prefix and the rows are evenly spaced; else None."""
    rows, lanes, shape = view.rows, view.numel, view.shape
    s0 = int(s[0])
    if view.run():  # one run of elements, then masked-off lanes
        run = (rows - 1) * lanes + int(k[-1])
        if run == rows * lanes:
            block = flat[s0:s0 + run].reshape((rows, *shape))
            return block if lend and prog.lend(flat) else block.copy()
        if lend:
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
                return part.reshape((rows, *shape)) if lend and prog.lend(flat) else part.copy().reshape((rows, *shape))
            out, fill = _filled(rows, lanes, flat, other)
            out = out.reshape(rows, lanes)
            out[:, :k0] = part
            out[:, k0:] = fill
            return out.reshape((rows, *shape))
    return None


def _write_rows(prog: Program, flat: np.ndarray, view: View, s: np.ndarray, k: np.ndarray, value):
    """Row ``r`` writes its kept lanes ``l < k[r]`` to ``flat[s[r] + l]``: as one slice or a strided view (``value``
    computed straight into it when it is a block not yet computed). Returns None when written, else the values
    (computed), nothing written."""
    rows, lanes, shape = view.rows, view.numel, view.shape
    lazy = value.__class__ is not np.ndarray
    run = (rows - 1) * lanes + int(k[-1]) if view.run() else None
    if lazy and run == rows * lanes:  # computed straight into the array: one slice
        write, s0 = value._into[0], int(s[0])
        dst = flat[s0:s0 + run].reshape((rows, *shape))
        prog.write(flat, lambda: write(dst), *value._into[1], span=(s0, s0 + run))
        return None
    k0 = int(k.min())
    if lazy:  # computed straight into the array where that is a slice
        dst = _strided_rows(flat, s, k0) if run is None and len(shape) == 1 and _disjoint(s, k) else None
        if dst is not None:  # the same first k0 lanes of each row (a 1-D block), rows apart
            write = value._into[0]
            prog.write(flat, lambda: write(dst, k0), *value._into[1], span=lambda: _rows_span(s, k0))
            return None
        value = value.data
    if value.shape != (rows, *shape):
        value = spread(value, (rows, *shape))
    src = value.reshape(rows, lanes)
    if run is not None:  # one run: full rows, then a prefix
        if run < rows * lanes:
            prog.split_tail(rows)  # only the last program is short: run the others on their own
        s0 = int(s[0])
        prog.write(flat, _assign(flat[s0:s0 + run], src.reshape(-1)[:run]), value, span=(s0, s0 + run))
        return None
    if _disjoint(s, k):  # the same prefix of each row, evenly spaced rows that do not overlap
        dst = _strided_rows(flat, s, k0)
        if dst is not None:
            prog.write(flat, _assign(dst, src[:, :k0]), value, span=lambda: _rows_span(s, k0))
            return None
    return value


def _strided_rows(flat: np.ndarray, s: np.ndarray, width: int):
    """The first ``width`` elements of every row as one (possibly strided) view, or None when the rows'
    starts are not evenly spaced (``s`` non-decreasing; every row's first ``width`` elements in bounds)."""
    rows = s.size
    step = int(s[1] - s[0]) if rows > 1 else 0
    if step < 0 or rows > 2 and (int(s[-1] - s[0]) != step * (rows - 1) or (np.diff(s) != step).any()):
        return None  # (the last start first: FlashAttention's keys, a tile per head, fail there without a pass)
    w = flat.itemsize
    return np.ndarray((rows, width), flat.dtype, flat, int(s[0]) * w, (step * w, w))  # as _window makes it


def _disjoint(s: np.ndarray, k: np.ndarray) -> bool:
    """Whether every row keeps the same first ``k0 > 0`` lanes and the rows start at least ``k0`` apart
    (increasing): writing them through a strided view changes each element once, as the programs would."""
    k0 = int(k[0])
    return s.size > 1 and k0 > 0 and int(k.min()) == k0 == int(k.max()) and int(s[1] - s[0]) >= k0


def _filled(rows: int, lanes: int, flat: np.ndarray, other) -> tuple[np.ndarray, np.ndarray]:
    """A new flat buffer for ``rows × lanes`` values of ``flat``'s dtype, and the fill of masked-off lanes."""
    out = np.empty(rows * lanes, flat.dtype)
    return out, cvt.astype(0 if other is None else other, flat.dtype)


# --- moving: two-dimensional tiles as lines of consecutive elements -----------------------------------------
def _window(flat: np.ndarray, n: int, writeable: bool = False) -> np.ndarray:
    """Every run of ``n`` consecutive elements of ``flat``: row ``s`` is ``flat[s:s + n]`` (a view)."""
    w = flat.itemsize  # ``flat`` is contiguous (flat_view): an ndarray over its buffer is as_strided, without its call
    out = np.ndarray((flat.size - n + 1, n), flat.dtype, flat, 0, (w, w))
    if not writeable:
        out.flags.writeable = False
    return out


def _inside(s: np.ndarray, n: int, size: int, view: View) -> bool:
    """Whether every line of ``n`` elements from the starts ``s`` lies inside an array of ``size`` elements."""
    lo, hi = view.extremes()
    if lo >= 0 and hi < size:
        return True
    return int(s.min()) >= 0 and int(s.max()) + n <= size


def _read_lines(flat: np.ndarray, view: View, lines, other):
    """A tile read a line at a time through a window of ``flat`` (``n`` elements copied a line, not ``n`` lookups);
    None when a line reaches outside the array (the gather then reads its kept lanes).

    Programs that share lines (the grouped matmul's operands, FlashAttention's keys) read each distinct line once;
    an unmasked float16 tile of them is ``(values, widen)``, as :func:`load` says.
    """
    axis, s, n = lines
    if not _inside(s, n, flat.size, view):
        return None
    shape, rows, keep = view.shape, view.rows, view.keep
    full = None if keep is None else spread(keep, (rows, *shape)) if keep.dtype == bool else view.lanes()[1]
    shared = None if view.shift.__class__ is np.ndarray else _distinct(view.base)
    if shared is None:
        vals = _window(flat, n)[s]  # (rows of s, lines, n)
    else:  # the distinct lines once, then each program's
        distinct, which = shared
        part = _window(flat, n)[distinct + view.shift]
        if full is None and flat.dtype == np.float16:
            per = _per_group(view.base, which)

            def widen(part=part, which=which, axis=axis, per=per):  # a column tile: its lines' transpose,
                wide = _widen(part)[which if per == 1 else which[::per]]  # copied in row order, as the reference's
                wide = np.ascontiguousarray(wide.transpose(0, 2, 1)) if axis == 0 else wide  # gather lays it out
                return wide if per == 1 else Grouped(wide, per)

            def values(part=part, which=which, axis=axis):  # ``part`` is a copy: later stores do not reach it
                vals = part[which]
                return np.ascontiguousarray(vals.transpose(0, 2, 1)) if axis == 0 else vals

            return values, widen
        vals = part[which]
    if axis == 0:
        vals = np.ascontiguousarray(vals.transpose(0, 2, 1))
    if full is None:
        return vals
    fill = cvt.astype(0 if other is None else other, flat.dtype)
    return np.where(full, vals, fill)


def _write_lines(prog: Program, flat: np.ndarray, lines, vals: np.ndarray, rows: int, shape: tuple) -> bool:
    """An unmasked tile written a line at a time through a window of ``flat``; False, having written nothing, when
    lines overlap one another (whose writes the scatter orders, lane by lane)."""
    axis, s, n = lines  # s: (rows, lines), inside the array (every lane is kept and was checked)
    order = np.sort(s, axis=None)
    if order.size > 1 and not (order[1:] - order[:-1] >= n).all():
        return False
    if vals.shape != (rows, *shape):
        vals = spread(vals, (rows, *shape))
    src = vals if axis == 1 else vals.transpose(0, 2, 1)
    dst = _window(flat, n, writeable=True)
    prog.write(flat, lambda: dst.__setitem__(s, src), vals, span=lambda: _rows_span(s, n))
    return True


# --- moving: any offsets -------------------------------------------------------------------------------------
def _exactly_inside(mask: np.ndarray, start: int, lo: int, hi: int) -> bool:
    """Whether ``mask`` keeps every lane of a consecutive block at offsets ``lo … hi-1`` (inside the array).

    The lanes outside the array are masked off (the bounds check has passed), so the lanes kept are
    then exactly those.
    """
    return bool(mask.reshape(-1)[lo - start:hi - start].all())


def _gather(flat: np.ndarray, offs: np.ndarray, mask, other, start):
    """The values of an access already checked: ``flat[offs]`` where ``mask`` holds, ``other`` elsewhere
    (``start``: the first offset when ``offs`` is consecutive, else None; an unmasked consecutive block is
    read as rows, never here)."""
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


def _scatter(flat: np.ndarray, offs: np.ndarray, value: np.ndarray, mask, start):
    """``(apply, source)``: ``apply()`` writes ``value`` to ``flat[offs]`` where ``mask`` holds, reading
    ``source`` (``start``: the first offset when ``offs`` is consecutive, else None; an unmasked consecutive
    block is written as rows, never here)."""
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
