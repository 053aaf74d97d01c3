"""A block of element offsets kept by its structure: what one ``tl.load`` or ``tl.store`` reaches.

A :class:`View` gives, for every program of a step, the element offsets of a block and the lanes it
keeps: ``offsets = base + shift``, where the :class:`Base` is shared by every view moved from it
(``x_ptr + offs``, ``y_ptr + offs``, ``a_ptrs += BLOCK_K``) and ``shift`` is one int or one int per
program, and ``keep`` is every lane, a prefix of each program's lanes (row-major), or a bool block.

:meth:`View.lanes` builds every offset and mask: the reference. The structure answers the same questions
without building them, and the memory layer (:mod:`kernellab.triton.executor.memory`) takes the first
that applies:

* :meth:`View.starts`: each program's first offset when its offsets are consecutive (row-major), as
  ``pid * BLOCK + tl.arange(0, BLOCK)`` makes them; with :meth:`View.prefix`, how many lanes each keeps
  (``offs < n``), and :meth:`View.run`, whether the kept lanes of all programs are one run of elements;
* :meth:`View.lines`: a 2-D block whose offsets run consecutively along one axis
  (``a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]``, or ``Kᵀ`` down its columns) as lines of
  consecutive elements, found once per base;
* :meth:`View.memo`: where counts of an unmasked access are kept, found again when the same base is
  moved by whole 128-byte lines.

Examples
--------
>>> v = View(Base.consecutive(0, (4,)), np.array([0, 4, 8]), np.array([4, 4, 1]))   # offs < 9, BLOCK 4
>>> v.rows, v.starts().tolist(), v.prefix().tolist(), v.run()
(3, [0, 4, 8], [4, 4, 1], True)
>>> offs, mask = v.lanes(); offs[2].tolist(), mask[2].tolist()
([8, 9, 10, 11], [True, False, False, False])
>>> tile = View(Base.of(np.array([[[0, 1, 2], [10, 11, 12]]])), 5)    # one program's 2×3 tile, moved by 5
>>> tile.starts(), tile.lines()
(None, (1, array([[ 5, 15]]), 3))
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

_UNKNOWN = False  # a form not yet looked for (None: looked for, and there is none)


class Lines(NamedTuple):
    """A 2-D block's offsets as lines: element ``(i, j)`` of row ``r`` is ``starts[r, i] + j`` (``axis`` 1) or
    ``starts[r, j] + i`` (``axis`` 0); ``n`` elements a line; ``lo``, ``hi`` the extreme starts."""

    axis: int
    starts: np.ndarray  # int64 (rows, lines)
    n: int
    lo: int
    hi: int


def lines_of(data: np.ndarray) -> Lines | None:
    """The lines of a ``(rows, d0, d1)`` block of offsets consecutive along one of its two axes, else None
    (the last axis is tried first; a 1-element axis is consecutive only as a last resort).

    >>> data = np.array([[[0, 1, 2], [10, 11, 12]]])        # one program's 2×3 tile: two lines of three
    >>> lines_of(data).axis, lines_of(data).starts.tolist(), lines_of(data.transpose(0, 2, 1)).axis
    (1, [[0, 10]], 0)
    """
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
    for axis, run, other in ((1, row[:, 0, :], col[:, :, 0]), (0, col[:, :, 0], row[:, 0, :])):
        r = run.astype(np.int64)
        if not (r[:, 1:] - r[:, :-1] == 1).all():
            continue
        starts = other.astype(np.int64) + r[:, :1]  # (rows, …): one side has them, the other has 1 or them
        lo, hi, n = int(starts.min()), int(starts.max()), r.shape[1]
        if dtype is not None:
            info = np.iinfo(dtype.np)
            if lo < info.min or hi + n - 1 > info.max:
                return False, None
        return True, Lines(axis, np.ascontiguousarray(starts), n, lo, hi)
    return True, None


def spread(a, shape: tuple) -> np.ndarray:
    """``np.broadcast_to(a, shape)``: the same read-only view (the same values, strides and data), made without
    numpy's iterator when ``a`` is a C-contiguous array (a block, a row of programs) that broadcasts to
    ``shape``, the usual case (an optimisation: 2 µs, not 4–5); anything else goes to ``np.broadcast_to`` itself,
    errors included.

    >>> a = np.arange(3)
    >>> v = spread(a, (2, 3)); v.tolist(), v.strides, v.flags.writeable
    ([[0, 1, 2], [0, 1, 2]], (0, 8), False)
    >>> spread(np.array([[1], [2]]), (2, 2)).tolist()
    [[1, 1], [2, 2]]
    """
    if a.__class__ is not np.ndarray or shape.__class__ is not tuple or not a.flags.c_contiguous or not a.size:
        return np.broadcast_to(a, shape)
    lead = len(shape) - a.ndim
    if lead < 0 or lead and min(shape[:lead]) < 0:
        return np.broadcast_to(a, shape)
    strides = [0] * lead
    for n, m, st in zip(shape[lead:], a.shape, a.strides):
        if m == 1 and n >= 0:  # (numpy gives every dimension of one element stride 0 as well)
            strides.append(0)
        elif n == m:
            strides.append(st)
        else:  # numpy's own error
            return np.broadcast_to(a, shape)
    out = np.ndarray(shape, a.dtype, a, 0, tuple(strides))
    out.flags.writeable = False
    return out


@functools.lru_cache(maxsize=256)
def every_lane(rows: int, n: int) -> np.ndarray:
    """``rows`` programs each keeping its first ``n`` lanes, int64 ``(rows,)``: read-only, so one array serves
    every view that keeps all of its lanes as a prefix.

    >>> every_lane(3, 16).tolist(), every_lane(3, 16) is every_lane(3, 16), every_lane(3, 16).flags.writeable
    ([16, 16, 16], True, False)
    """
    keep = np.full(rows, n, np.int64)
    keep.flags.writeable = False
    return keep


def row_starts(lanes: np.ndarray) -> np.ndarray | None:
    """Each row's first offset, int64 ``(rows,)``, when every row of ``lanes`` (``(rows, *shape)``) is
    ``s, s+1, s+2, …`` in row-major order; else None. Checked a cache-sized piece at a time (no large
    temporaries).

    >>> row_starts(np.array([[5, 6, 7], [0, 1, 2]])).tolist(), row_starts(np.array([[0, 2]]))
    ([5, 0], None)
    """
    rows = lanes.shape[0]
    d = lanes.reshape(rows, -1)
    n = d.shape[1]
    if n > 1 and not (d[:, -1] - d[:, 0] == n - 1).all():
        return None
    step = max(1, (1 << 15) // max(n, 1))
    for lo in range(0, rows if n > 1 else 0, step):
        piece = d[lo:lo + step]
        if not (piece[:, 1:] - piece[:, :-1] == 1).all():
            return None
    return np.ascontiguousarray(d[:, 0], dtype=np.int64) if n else np.zeros(rows, np.int64)


def _line_row_starts(lines: Lines | None, shape: tuple) -> np.ndarray | None:
    """Each row's first offset when every row of a 2-D block of these lines is consecutive (row-major), else None."""
    if lines is None:
        return None
    s = lines.starts
    if lines.axis == 1 and (s.shape[1] == 1 or (s[:, 1:] - s[:, :-1] == lines.n).all()):
        return np.ascontiguousarray(s[:, 0])
    if lines.axis == 0 and shape[1] == 1:  # one column: its line is the row
        return np.ascontiguousarray(s[:, 0])
    if lines.axis == 0 and shape[0] == 1 and (s.shape[1] == 1 or (s[:, 1:] - s[:, :-1] == 1).all()):
        return np.ascontiguousarray(s[:, 0])  # one row of one-element lines
    return None


class Base:
    """The offsets a family of views shares, up to a shift: int64 ``(rows, *shape)``, ``rows`` 1 when every
    program shares them.

    Made with what is known of its form (:meth:`consecutive`, :meth:`outer`, :meth:`strided`) or from its
    offsets (:meth:`of`, its form looked for once, when asked); ``memo`` keeps what the memory layer
    counted of accesses through it (it depends on the offsets alone, so it holds for every view of it).
    """

    __slots__ = ("_lanes", "_make", "rows", "shape", "_starts", "_lines", "memo")

    def __init__(self, lanes: np.ndarray | None = None, *, make=None, rows: int = 1, shape: tuple = (),
                 starts=_UNKNOWN, lines=_UNKNOWN):
        self._lanes = lanes
        self._make = make  # builds the offsets when ``lanes`` is None
        self.rows, self.shape = (lanes.shape[0], lanes.shape[1:]) if lanes is not None else (rows, tuple(shape))
        self._starts = starts
        self._lines = lines
        self.memo: dict = {}

    @classmethod
    def of(cls, lanes: np.ndarray, search: bool = True) -> Base:
        """The base of the offsets ``lanes`` (int64 ``(rows, *shape)``); ``search=False``: its form is not
        looked for (the reference, and the lecture form's accesses)."""
        return cls(lanes) if search else cls(lanes, starts=None, lines=None)

    @classmethod
    def consecutive(cls, start: int, shape: tuple, lanes: np.ndarray | None = None) -> Base:
        """``start, start + 1, …`` over a block of ``shape`` every program shares (``tl.arange``)."""
        starts = np.array([start], np.int64)
        if lanes is None:
            n = math.prod(shape)
            return cls(make=lambda: np.arange(start, start + n, dtype=np.int64).reshape((1, *shape)), shape=shape,
                       starts=starts)
        return cls(lanes, starts=starts)

    @classmethod
    def outer(cls, x: np.ndarray, y: np.ndarray, lines: Lines | None) -> Base:
        """The 2-D block ``x + y`` of a column and a row (int arrays ``(rows, d0, 1)`` and ``(rows, 1, d1)``,
        either order) whose lines are known (:func:`lines_of_outer`): built only if asked for."""
        rows = max(x.shape[0], y.shape[0])
        shape = (max(x.shape[1], y.shape[1]), max(x.shape[2], y.shape[2]))
        return cls(make=lambda: np.add(x, y, dtype=np.int64), rows=rows, shape=shape, lines=lines,
                   starts=_line_row_starts(lines, shape))

    @classmethod
    def strided(cls, starts: np.ndarray, shape: tuple, strides: tuple) -> Base:
        """``starts[r] + Σ i_d · strides[d]`` (``starts`` int64 ``(rows,)``, ``strides`` ints every program
        shares): a block pointer's or a tensor descriptor's tile, its lines known when it has two axes and
        one of them steps by one element.

        >>> b = Base.strided(np.array([100]), (2, 3), (10, 1))
        >>> b.lanes.tolist(), b.lines.starts.tolist(), b.starts
        ([[[100, 101, 102], [110, 111, 112]]], [[100, 110]], None)
        """
        nd = len(shape)

        def make():
            offs = starts.reshape(-1, *(1,) * nd)
            for d, (n, s) in enumerate(zip(shape, strides)):
                offs = offs + (np.arange(n, dtype=np.int64) * s).reshape((1,) + (1,) * d + (n,) + (1,) * (nd - d - 1))
            return spread(offs, (starts.size, *shape))

        lines, first = _UNKNOWN, _UNKNOWN
        if nd == 1:
            first = np.ascontiguousarray(starts, np.int64) if shape[0] <= 1 or strides[0] == 1 else None
        elif nd == 2:
            lines = first = None
            for axis in ((1, 0) if shape[1] > 1 or shape[0] == 1 else (0, 1)):
                if shape[axis] > 1 and strides[axis] != 1:
                    continue
                other = 1 - axis
                ls = starts[:, None] + np.arange(shape[other], dtype=np.int64) * strides[other]
                # the extreme starts from the programs' extremes and the last line's step, not from every line
                step = (shape[other] - 1) * strides[other]
                lo, hi = (int(starts[0]),) * 2 if starts.size == 1 else (int(starts.min()), int(starts.max()))
                lines = Lines(axis, ls, shape[axis], lo + min(step, 0), hi + max(step, 0))
                # rows consecutive (as _line_row_starts finds from the lines): a row's lines one after another
                rows_run = (shape[0] == 1 or strides[0] == shape[1]) if axis == 1 else (
                    shape[1] == 1 or shape[0] == 1 and strides[1] == 1)
                first = np.ascontiguousarray(starts, np.int64) if rows_run else None
                break
        return cls(make=make, rows=starts.size, shape=shape, lines=lines, starts=first)

    @property
    def lanes(self) -> np.ndarray:
        """Every offset, int64 ``(rows, *shape)``: built on first use for a base made without them."""
        d = self._lanes
        if d is None:
            d = self._lanes = self._make()
            self._make = None
        return d

    @property
    def starts(self) -> np.ndarray | None:
        """Each row's first offset, int64 ``(rows,)``, when every row's offsets are consecutive in row-major
        order, else None (looked for once)."""
        if self._starts is _UNKNOWN:
            lines = self._lines
            if lines is not _UNKNOWN and len(self.shape) == 2:
                self._starts = _line_row_starts(lines, self.shape)
            else:
                self._starts = row_starts(self.lanes)
        return self._starts

    @property
    def lines(self) -> Lines | None:
        """A 2-D block's offsets as lines of consecutive elements (:func:`lines_of`), or None (looked for once)."""
        if self._lines is _UNKNOWN:
            self._lines = lines_of(self.lanes) if len(self.shape) == 2 else None
        return self._lines

    def extremes(self) -> tuple[int, int]:
        """The smallest and largest offset (kept once found)."""
        ext = self.memo.get("extremes")
        if ext is None:
            starts, lines = self._starts, self._lines
            n = math.prod(self.shape)  # at least 1: a block has at least one lane
            if starts is not _UNKNOWN and starts is not None:
                ext = (int(starts.min()), int(starts.max()) + n - 1)
            elif lines is not _UNKNOWN and lines is not None:
                ext = (lines.lo, lines.hi + lines.n - 1)
            else:
                d = self.lanes
                ext = (int(d.min()), int(d.max()))
            self.memo["extremes"] = ext
        return ext


class View:
    """The offsets ``base + shift`` of one access, for each program of a step, and the lanes ``keep`` keeps.

    ``shift``: an int, or int64 ``(rows,)``, one per program. ``keep``: None (every lane), int64 ``(rows,)``
    (each program's first ``keep[p]`` lanes, row-major), or a bool block broadcasting to ``(rows, *shape)``.
    A field with one row holds for every program; ``rows`` is the most any field has.
    """

    __slots__ = ("base", "shift", "keep", "rows", "_got")

    def __init__(self, base: Base, shift=0, keep=None):
        self.base, self.shift, self.keep = base, shift, keep
        rows = base.rows
        for a in (shift, keep):
            if a.__class__ is np.ndarray and a.shape[0] > rows:
                rows = a.shape[0]
        self.rows = rows
        self._got: dict = {}  # what was found of this view, by question

    @classmethod
    def of(cls, offs: np.ndarray, mask: np.ndarray | None = None, search: bool = False) -> View:
        """The view of built offsets ``offs`` (int64 ``(rows, *shape)``) and ``mask`` (bool, broadcasting, or
        None); ``search``: its structure is looked for in the offsets (otherwise it has none)."""
        return cls(Base.of(offs, search), 0, mask)

    @property
    def shape(self) -> tuple:
        """The block shape."""
        return self.base.shape

    @property
    def numel(self) -> int:
        """Lanes per program."""
        n = 1
        for d in self.base.shape:
            n *= d
        return n

    def kept(self) -> int:
        """Lanes kept, over every program of the step."""
        k, n = self.keep, self.numel
        if k is None:
            return self.rows * n
        if k.size > 1:
            return self._seen("view kept", self._kept)
        return self._kept()

    def _kept(self) -> int:
        k, n = self.keep, self.numel
        if k.dtype == bool:  # broadcasting repeats every lane of ``k`` alike
            return int(np.count_nonzero(k)) * (self.rows * n // k.size) if k.size else 0
        if k.size == 1:  # one prefix every program keeps
            return int(k.reshape(-1)[0]) * self.rows
        return int(np.add.reduce(k)) if k.shape == (self.rows,) else int(spread(k, (self.rows,)).sum())

    def moved(self, shift) -> View:
        """This view's offsets moved by ``shift`` more (an int, or one per program)."""
        return View(self.base, self.shift + shift, self.keep)

    def masked(self, keep) -> View:
        """This view keeping the lanes ``keep`` (see the class; a bool block, or a prefix, that keeps every lane
        is None)."""
        if keep is not None and (keep.all() if keep.dtype == bool else int(
                keep.item() if keep.size == 1 else keep.min()) >= self.numel):
            keep = None
        return View(self.base, self.shift, keep)

    def lanes(self) -> tuple[np.ndarray, np.ndarray | None]:
        """``(offsets, mask)``: every offset, int64 ``(rows, *shape)``, and the bool mask of the same shape (None:
        every lane) — the reference every other form equals."""
        got = self._got.get("lanes")
        if got is None:
            shape, nd = self.shape, len(self.shape)
            offs = self.base.lanes
            s = self.shift
            if s.__class__ is np.ndarray:
                offs = offs + s.reshape(-1, *(1,) * nd)
            elif s:
                offs = offs + s
            if offs.shape[0] != self.rows:
                offs = spread(offs, (self.rows, *shape))
            k, mask = self.keep, None
            if k is not None and k.dtype == bool:
                mask = spread(k, (self.rows, *shape))
            elif k is not None:
                lane = np.arange(self.numel, dtype=np.int64)
                mask = (lane < spread(k, (self.rows,))[:, None]).reshape((self.rows, *shape))
            got = self._got["lanes"] = (offs, mask)
        return got

    def mask(self) -> np.ndarray | None:
        """The kept lanes as bool ``(rows, numel)``, None when every lane is kept."""
        k = self.keep
        if k is None:
            return None
        if k.dtype == bool:
            return spread(k, (self.rows, *self.shape)).reshape(self.rows, self.numel)
        return self.lanes()[1].reshape(self.rows, self.numel)

    def starts(self) -> np.ndarray | None:
        """Each program's first offset, int64 ``(rows,)``, when each program's offsets are consecutive in
        row-major order; else None."""
        got = self._got.get("starts", _UNKNOWN)
        if got is _UNKNOWN:
            got = self.base.starts
            if got is not None:
                s = self.shift
                if s.__class__ is np.ndarray or s:
                    got = got + s
                if got.shape[0] != self.rows:
                    got = spread(got, (self.rows,))
            self._got["starts"] = got
        return got

    def prefix(self) -> np.ndarray | None:
        """How many lanes each program keeps, int64 ``(rows,)``, when it keeps a prefix of them (every lane
        included); None for a mask of another shape."""
        k = self.keep
        if k is None:  # every lane: kept once, read-only
            return every_lane(self.rows, self.numel)
        if k.dtype == bool:
            return None
        return k if k.shape[0] == self.rows else spread(k, (self.rows,))

    def run(self) -> bool:
        """Whether the kept lanes of all programs are one run of elements: consecutive rows, each ``numel``
        after the last, all kept but a prefix of the last."""
        got = self._got.get("run")
        if got is None:
            got = self._got["run"] = self._seen("view run", self._run)
        return got

    def _run(self) -> bool:
        s, k = self.starts(), self.prefix()
        n = self.numel
        return s is not None and k is not None and (self.rows == 1 or bool(
            (s[1:] - s[:-1] == n).all() and (k[:-1] == n).all()))

    def _seen(self, question: str, answer):
        """``answer()``, asked once for every view of this base with this one's shift array (or an int shift)
        and kept lanes: the views of one offsets block (``x_ptr + offs``, ``y_ptr + offs`` and ``out_ptr +
        offs`` under one mask) share them. For questions whose answer depends on nothing else: the lanes kept,
        whether they are one run (an int shift moves every start alike), a shift array's extremes."""
        sh = self.shift if self.shift.__class__ is np.ndarray else None
        seen = self.base.memo.get(question)
        if seen is not None and seen[0] is sh and seen[1] is self.keep:
            return seen[2]
        got = answer()
        self.base.memo[question] = (sh, self.keep, got)
        return got

    def lines(self) -> tuple[int, np.ndarray, int] | None:
        """``(axis, starts, n)`` of a 2-D view whose base has lines (:attr:`Base.lines`): ``starts`` int64
        ``(rows, lines)``, moved by the shift; else None."""
        got = self._got.get("lines", _UNKNOWN)
        if got is _UNKNOWN:
            got = None
            if len(self.shape) == 2:
                lines = self.base.lines
                if lines is not None:
                    s = self.shift
                    st = lines.starts + (s.reshape(-1, 1) if s.__class__ is np.ndarray else s) if (
                        s.__class__ is np.ndarray or s) else lines.starts
                    if st.shape[0] != self.rows:
                        st = spread(st, (self.rows, st.shape[1]))
                    got = (lines.axis, st, lines.n)
            self._got["lines"] = got
        return got

    def extremes(self) -> tuple[int, int]:
        """Bounds on every offset (kept lanes or not): no offset is below the first or above the second."""
        lo, hi = self.base.extremes()
        s = self.shift
        if s.__class__ is np.ndarray:
            got = self._got.get("extremes")
            if got is None:
                got = self._got["extremes"] = self._seen("view extremes", self._extremes)
            return got
        return lo + s, hi + s

    def _extremes(self) -> tuple[int, int]:
        lo, hi = self.base.extremes()
        s = self.shift  # (np.minimum.reduce: ndarray.min without its Python wrapper)
        return lo + int(np.minimum.reduce(s, axis=None)), hi + int(np.maximum.reduce(s, axis=None))

    def memo(self, width: int) -> tuple[dict, tuple] | None:
        """``(memo, key)`` where the counts of this access may be kept and found again: its base's, keyed by
        where the shift puts it within a 128-byte line (offsets that differ by whole lines count alike), for
        an unmasked view whose programs share one shift; else None."""
        s = self.shift
        if self.keep is not None or s.__class__ is np.ndarray:
            return None
        return self.base.memo, (width, s * width % 128, self.rows, self.shape)
