"""An access site's reference access, for the accesses that are it moved by a whole number of elements.

An optimisation of :class:`~kernellab.Block`'s loads and stores (``tests/test_fastpath_shifts.py`` checks it
against the reference path). A kernel's loop often moves one index by the same amount every pass
(``A[a_row + i]``, ``B[y + i * N]``, a tile's ``bk * BK``): the pass's access is the first one moved by
``d`` elements, ``D = d · itemsize`` bytes, on the same lanes. Its counts follow from the first's:

* requests and bytes depend on the mask alone, and ideal sectors on each warp's number of distinct
  addresses: all equal;
* sectors and lines count distinct 32- and 128-byte chunks per warp, and a move by a multiple of 128
  bytes maps chunks one to one: they depend on ``D mod 128`` only, computed once per class;
* shared-memory wavefronts depend on which lanes share a 4-byte word and on the banks, which a move by
  a multiple of 4 bytes rotates together: equal when ``D`` is one;
* the bounds of the moved index are the first's smallest and largest active index plus ``d``, and a
  vector access stays aligned when ``d`` is a multiple of its width in elements;
* the DRAM sectors it touches are the first's: those of lanes at byte offset ``r < 32 − (D mod 32)``
  within their sector moved by ``⌊D / 32⌋`` sectors, the others by one more; each of the two sets is
  marked once per move.

Examples
--------
>>> from kernellab.access import Access
>>> idx = np.arange(64) * 3                                  # two warps, a stride of 3 floats (12 B)
>>> act = np.ones(64, bool)
>>> ref = ShiftRef(idx, act, Access.from_lanes(idx * 4, act, 4, aligned=True), itemsize=4, vec=1)
>>> ref.shift(idx + 5, act), ref.shift(idx * 2, act)          # moved by 5 elements; not a move
(5, None)
>>> ref.chunks(5 * 4)                                         # (sectors, lines) of the moved access
(26, 8)
"""

from __future__ import annotations

import numpy as np

from ..access import (
    LINE_BYTES,
    SECTOR_BYTES,
    Access,
    _affine_runs,
    _run_chunks,
    bytes_requested,
    ideal_sectors,
    lines,
    requests,
    sectors,
    shared_ideal_wavefronts,
    shared_wavefronts,
    sorted_distinct,
)
from .memory import _fewer_repeats

_SHIFT = SECTOR_BYTES.bit_length() - 1  # byte address >> 5: its sector
_all = np.logical_and.reduce  # ndarray.all without its Python wrapper (over every axis: see shift)


class ShiftRef:
    """A site's reference access: its index and mask (copies), its record, and what moves of it need.

    ``shift(idx, act)`` says by how many elements ``idx`` is the reference's index moved (None when it
    is not, or the mask differs); :attr:`lo` and :attr:`hi` (with ``vec``) what the moved access checks
    (:class:`~kernellab.Block` checks them inline), :meth:`chunks` and :meth:`sector_ids` what it counts
    and touches.
    """

    __slots__ = ("idx", "first", "flat", "act", "acc", "_bounds", "vec", "itemsize", "misses", "_diff",
                 "_same", "_chunks", "_addresses", "_parts", "_marked", "_fixed")

    def __init__(self, idx: np.ndarray, act: np.ndarray, acc: Access, itemsize: int, vec: int,
                 copy: np.ndarray | None = None):
        # a read-only mask (a Block's, which never changes) is kept as it is, and found again by identity
        self.idx, self.acc = (np.array(idx, copy=True) if copy is None else copy), acc  # copy: equal to idx, never changed
        self.first = self.idx.item(0) if self.idx.size else None
        self.flat = None  # a shared access: its index into every block's copy (kept by the Block)
        self.act = act if not act.flags.writeable else np.array(act, copy=True)
        self.itemsize, self.vec = itemsize, vec
        self._bounds = None  # the smallest and largest active index, on the first access with the same mask
        self._diff = self._same = None  # scratch for shift, on the first move
        self._chunks: dict[int, tuple[int, int]] = {}  # D mod 128 → (sectors, lines)
        self._addresses = None  # the reference's distinct active addresses, their offsets, sectors by part
        self._parts: dict = {}  # D mod 32 → its parts (see _split)
        self._marked: set = set()  # (offsets of a part, its move in sectors) already marked
        self._fixed = None  # the counts no move changes
        self.misses = 0  # accesses at the site running that were not a move of this one

    def shift(self, idx: np.ndarray, act: np.ndarray) -> int | None:
        """``d`` when ``idx == self.idx + d`` on every lane and ``act`` equals the reference's mask, else None.

        ``idx`` has the reference's shape: the Block keys a site by its index shape."""
        if act is not self.act:
            if not np.array_equal(act, self.act):
                return None
            if not act.flags.writeable:
                self.act = act
        if self._bounds is None:
            ref, a = self.idx, self.act
            sel = ref if a.all() else ref[np.broadcast_to(a.reshape(a.shape + (1,) * (ref.ndim - 1)), ref.shape)]
            self._bounds = (int(sel.min()), int(sel.max())) if sel.size else ()
        if not self._bounds:  # no active lane
            return None
        d = idx.item(0) - self.first
        if d == 0:  # a repeat: one comparison
            return 0 if np.array_equal(idx, self.idx) else None
        if self._diff is None:
            self._diff, self._same = np.empty(idx.shape, np.int64), np.empty(idx.shape, bool)
        diff = np.subtract(idx, self.idx, out=self._diff)
        return d if _all(np.equal(diff, d, out=self._same), axis=None) else None

    @property
    def lo(self) -> int:
        """The reference's smallest active index (known once :meth:`shift` has found a move)."""
        return self._bounds[0]

    @property
    def hi(self) -> int:
        """The reference's largest active index (known once :meth:`shift` has found a move)."""
        return self._bounds[1]

    def chunks(self, moved: int) -> tuple[int, int]:
        """Sectors and lines of the access moved by ``moved`` bytes (remembered per ``moved mod 128``)."""
        key = moved % LINE_BYTES
        got = self._chunks.get(key)
        if got is None:
            acc = self.acc
            runs = _affine_runs(acc)
            if key == 0:
                got = sectors(acc), lines(acc)
            elif runs[-1] is None:  # every active warp affine, one run of lanes: moved in closed form
                lo, hi, lanes, step, _rest = runs
                moved_runs = (lo + key, hi + key, lanes, step, None)
                got = _run_chunks(moved_runs, SECTOR_BYTES), _run_chunks(moved_runs, LINE_BYTES)
            else:
                moved_acc = Access(acc.addresses + key, acc.active, acc.width, known_aligned=True)
                got = sectors(moved_acc), lines(moved_acc)
            self._chunks[key] = got
        return got

    def global_counts(self, moved: int) -> tuple[int, int, int, int, int]:
        """Requests, sectors, ideal sectors, lines and bytes of the global access moved by ``moved`` bytes."""
        if self._fixed is None:
            self._fixed = requests(self.acc), ideal_sectors(self.acc), bytes_requested(self.acc)
        req, ideal, nbytes = self._fixed
        sec, lin = self.chunks(moved)
        return req, sec, ideal, lin, nbytes

    def shared_counts(self) -> tuple[int, int, int]:
        """Requests, wavefronts and ideal wavefronts of the shared access moved by a multiple of 4 bytes."""
        if self._fixed is None:
            self._fixed = requests(self.acc), shared_wavefronts(self.acc), shared_ideal_wavefronts(self.acc)
        return self._fixed

    def sector_ids(self, moved: int) -> np.ndarray | None:
        """Sector ids the access moved by ``moved`` bytes touches (some repeated), leaving out the sets an
        earlier move marked already; None when there are none left.

        A lane at byte offset ``r`` within its sector moves ``⌊(r + D) / 32⌋`` sectors: ``s = ⌊D / 32⌋`` when
        ``r < 32 − (D mod 32)``, ``s + 1`` otherwise. So the moved sectors are two sets of the reference's,
        found per ``D mod 32`` and moved by ``s`` and ``s + 1``.
        """
        c, s = moved & (SECTOR_BYTES - 1), moved >> _SHIFT
        parts = self._parts.get(c)
        if parts is None:
            parts = self._parts[c] = self._split(c)
        out = None
        for sig, ids, j in parts:  # a part is known by the offsets it holds: moves with equal parts share marks
            key = (sig, s + j)
            if key not in self._marked:
                self._marked.add(key)
                out = ids + (s + j) if out is None else np.concatenate([out, ids + (s + j)])
        return out

    def _split(self, c: int) -> tuple:
        """The parts of the reference's sectors for ``D mod 32 = c``: (offsets held as a bit mask, sector ids, 0 or 1)."""
        if self._addresses is None:  # the reference's distinct active addresses, and their offsets in a sector
            acc = self.acc
            a = acc.addresses.ravel() if acc.active.all() else acc.addresses[acc.active]
            a = sorted_distinct(_fewer_repeats(a))
            self._addresses = a, a & (SECTOR_BYTES - 1), {}
        a, r, by_sig = self._addresses
        parts = []
        for j, sel in ((0, r < SECTOR_BYTES - c), (1, r >= SECTOR_BYTES - c)):
            sig = int(np.bitwise_or.reduce(np.left_shift(1, r[sel]), initial=0))
            if sig:
                if sig not in by_sig:
                    by_sig[sig] = sorted_distinct(a[sel] >> _SHIFT)
                parts.append((sig, by_sig[sig], j))
        return tuple(parts)


class BlockMoves:
    """A global access whose every block is the first block's moved (an optimisation of :class:`~kernellab.Block`'s
    loads and stores; tests/test_fastpath_tiled.py runs kernels with and without it).

    An index held as a block's part plus a lane's part (``bx * bdx + tx``, :mod:`kernellab.simt.tiled`), under a
    mask that is the same in every block (the block's own), reads in block ``b`` the first block's addresses moved
    by ``D_b`` bytes. Warps never span blocks, and every count is a sum over warps: requests, ideal sectors and
    bytes are the first block's times the blocks; sectors and lines the first block's moved by ``D_b`` (per
    ``D_b mod 128``, :meth:`ShiftRef.chunks`) summed. With every ``D_b`` a whole number of sectors, the DRAM
    sectors are the first block's moved by ``D_b / 32``.

    >>> from kernellab.access import Access
    >>> idx, act = np.arange(64), np.ones(64, bool)                 # a block of two warps, floats
    >>> first = ShiftRef(idx, act, Access.from_lanes(idx * 4, act, 4, aligned=True), itemsize=4, vec=1)
    >>> moves = BlockMoves(first, np.array([0, 256, 260]))      # three blocks, the last 4 B past a sector
    >>> moves.global_counts(0)                                   # 6 requests; 4 + 4 + 4 + 4 + 5 + 5 sectors
    (6, 26, 24, 8, 768)
    """

    __slots__ = ("first", "moves")

    def __init__(self, first: ShiftRef, moves: np.ndarray):
        self.first, self.moves = first, moves  # moves: D_b of every block, bytes (the first's 0)

    def global_counts(self, _moved: int = 0) -> tuple[int, int, int, int, int]:
        """Requests, sectors, ideal sectors, lines and bytes of the whole access (as :meth:`ShiftRef.global_counts`)."""
        req, _sec, ideal, _lin, nbytes = self.first.global_counts(0)
        sec = lin = 0
        classes, n = np.unique(self.moves % LINE_BYTES, return_counts=True)
        for moved, k in zip(classes.tolist(), n.tolist()):
            s, l_ = self.first.chunks(moved)
            sec, lin = sec + k * s, lin + k * l_
        blocks = self.moves.size
        return blocks * req, sec, blocks * ideal, lin, blocks * nbytes

    def sector_ids(self, _moved: int = 0) -> np.ndarray:
        """The sector ids of the whole access (some repeated), when every move is a whole number of sectors.

        Never None: ``first`` is made for this access alone (nothing marked yet), under the block's own mask,
        which holds thread 0, so its one part of ``D mod 32 = 0`` holds at least that lane's sector."""
        first = self.first.sector_ids(0)
        return (first[None, :] + (self.moves >> _SHIFT)[:, None]).ravel()

