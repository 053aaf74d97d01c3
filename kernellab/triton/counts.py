"""What a mini-Triton launch counts, and the tally that gathers it while programs run.

Every memory count goes through :mod:`kernellab.access`: a program's block of pointers, flattened
row-major, is split into warps of 32 lanes (an approximation: real Triton chooses its own layout;
bytes are exact whatever the layout). Counting is deferred and done in bulk, since the counters are
pure functions of the access records.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np

from ..access import SECTOR_BYTES, WARP_SIZE, Access, bytes_requested, lines, requests, sectors
from ..counters import LoadStoreTotals


@dataclass(frozen=True)
class TritonCounts(LoadStoreTotals):
    """Counts of one launch (or a sum of launches), named as :class:`~kernellab.Counts` names them.

    Read them as attributes (``cnt.load_bytes``); ``cnt["load_bytes"]`` works too, for the lecture
    scripts that index counts like a dict. The names both engines share are ``load_requests``,
    ``load_sectors``, ``load_lines``, ``load_bytes`` (and ``store_*``), ``requests``, ``sectors``,
    ``lines``, ``bytes`` (loads and stores together), ``flops``, ``dram_sectors`` and ``dram_bytes`` (the
    totals and ``dram_bytes`` from :class:`~kernellab.counters.LoadStoreTotals`).
    A program's block is split into warps of 32 lanes, row-major, for the requests, sectors and lines.

    ``flops`` counts every floating-point operation of a ``@triton.jit`` kernel, once per element of
    the result block and per program (masks do not reduce it: every lane of a block computes, as on
    the GPU): ``+``, ``-``, ``*``, ``/`` 1; ``tl.fma`` 2; ``tl.sum`` over ``n`` elements ``n − 1``;
    ``tl.dot`` of ``M×K`` by ``K×N`` blocks ``2·M·N·K`` (also in ``dot_flops``). Comparisons,
    ``tl.maximum``/``tl.minimum``/``tl.where``, negation, integer arithmetic and special functions
    (``tl.exp``, ``tl.sqrt``, ``tl.rsqrt``, …, which run on the SFU) count none, as in Nsight
    Compute's ``flop_count_sp``. Kernels in the lecture form (``triton_launch``) compute on numpy
    arrays: only their ``tl.dot`` FLOPs are counted.

    Examples
    --------
    >>> c = TritonCounts(programs=2, load_bytes=256, store_bytes=128, dram_sectors={"x": 8})
    >>> c.programs, c.bytes, c.dram_bytes, (c + c).programs, c["load_bytes"]
    (2, 384, 256, 4, 256)
    """

    programs: int = 0  # program instances run
    loads: int = 0  # tl.load calls, summed over programs
    stores: int = 0  # tl.store calls, summed over programs
    load_bytes: int = 0  # bytes the active (masked-in) lanes load
    store_bytes: int = 0  # bytes the active lanes store
    load_requests: int = 0  # warp-level load requests: 32 lanes of a program's flattened block each
    load_sectors: int = 0  # 32-byte sectors those requests touch
    store_requests: int = 0  # warp-level store requests
    store_sectors: int = 0  # 32-byte sectors stores touch
    dot_flops: int = 0  # 2·M·N·K per tl.dot of an M×K by K×N block, per program
    atomics: int = 0  # tl.atomic_* calls, summed over programs
    atomic_bytes: int = 0  # active lanes × element size: the operands atomics send (old values come back alike)
    atomic_requests: int = 0  # warp-level atomic requests (Nsight: l1tex__t_requests_pipe_lsu_mem_global_op_atom)
    atomic_sectors: int = 0  # 32-byte sectors atomics touch
    per_program: dict | None = field(default=None, compare=False, repr=False)  # (x,y,z) → TritonCounts
    flops: int = 0  # floating-point operations, every kind above, dot_flops included
    load_lines: int = 0  # 128-byte lines (tags) load requests touch
    store_lines: int = 0  # 128-byte lines store requests touch
    atomic_lines: int = 0  # 128-byte lines atomic requests touch
    atomic_same_address: int = 0  # the most atomic updates any one address receives (they serialise at L2);
    #                               a sum of launches adds theirs
    dram_sectors: dict = field(default_factory=dict)  # array name → distinct 32-byte sectors loaded or stored
    by_line: object = field(default=None, compare=False, repr=False)  # lines=True: ByLine rows (kernellab.lines)
    launch: dict = field(default_factory=dict, compare=False, repr=False)  # the launch's grid

    def __getitem__(self, key: str):
        if key in self.keys():
            return getattr(self, key)
        raise KeyError(key)

    def keys(self) -> tuple[str, ...]:
        """The names ``cnt[name]`` accepts (every field and shared name)."""
        return (*_NAMES, "dram_sectors", *_SHARED)

    def __add__(self, other: TritonCounts) -> TritonCounts:
        """Counts of two launches together (per-program breakdowns are dropped; DRAM sectors add per array)."""
        a, b = self.dram_sectors, other.dram_sectors
        dram = {k: a.get(k, 0) + b.get(k, 0) for k in a.keys() | b.keys()}
        return TritonCounts(**{n: getattr(self, n) + getattr(other, n) for n in _NAMES}, dram_sectors=dram)


def count_access(addresses: np.ndarray, active: np.ndarray | None, width: int) -> tuple[int, int, int, int]:
    """Requests, sectors, bytes and lines of ``(programs, lanes)`` byte addresses, each program's lanes in their own warps.

    Every address is a multiple of ``width`` (arrays start aligned; offsets are whole elements).

    Examples
    --------
    >>> count_access(np.arange(64)[None] * 4, None, 4)         # 64 floats: 2 warps × 4 sectors, × 1 line
    (2, 8, 256, 2)
    >>> count_access(np.zeros((3, 1), np.int64), None, 4)      # 3 programs read one float each
    (3, 3, 12, 3)
    """
    rows, lanes = addresses.shape
    pad = -lanes % WARP_SIZE
    if pad:  # each program's lanes start a new warp
        active = np.ones(addresses.shape, bool) if active is None else active
        addresses = np.concatenate([addresses, np.zeros((rows, pad), np.int64)], axis=1)
        active = np.concatenate([active, np.zeros((rows, pad), bool)], axis=1)
    acc = Access.from_lanes(addresses.ravel(), None if active is None else active.ravel(), width, aligned=True)
    return requests(acc), sectors(acc), bytes_requested(acc), lines(acc)


_NAMES = tuple(f.name for f in fields(TritonCounts)
               if f.name not in ("per_program", "dram_sectors", "by_line", "launch"))
_SHARED = ("requests", "sectors", "lines", "bytes", "dram_bytes")
_FLUSH_LANES = 1 << 20  # count pending small accesses once this many lanes have gathered


class Tally:
    """Mutable accumulator for one launch (or one batch of its programs); :meth:`result` freezes it.

    Record through its public methods: with ``lines=True`` each call is charged to the kernel's line
    that made it (:mod:`kernellab.lines` wraps every public method but ``result``, ``merge`` and
    ``flush``); what is added to ``n`` directly is launch-level (``programs``).
    """

    __slots__ = ("n", "_pending", "_pending_lanes", "_updates")

    def __init__(self):
        self.n = dict.fromkeys(_NAMES, 0)
        self._pending: dict[tuple, list] = {}
        self._pending_lanes = 0
        self._updates: dict[int, np.ndarray] = {}  # array data address → atomic updates per element

    def atomic_targets(self, flat: np.ndarray, offs: np.ndarray, copies: int = 1):
        """Record which elements of ``flat`` atomics update (``offs``: the active lanes' element offsets).

        ``atomic_same_address`` of the result is the largest number of updates one element receives.

        >>> t = Tally(); h = np.zeros(4, np.int32)
        >>> t.atomic_targets(h, np.array([0, 1, 1, 3])); t.atomic_targets(h, np.array([1]))
        >>> t.result().atomic_same_address          # element 1: 2 + 1 updates
        3
        """
        key = flat.__array_interface__["data"][0]
        counts = self._updates.get(key)
        if counts is None:
            counts = self._updates[key] = np.zeros(max(flat.size, 1), np.int64)
        np.add.at(counts, np.asarray(offs, np.int64).reshape(-1), copies)

    def access(self, kind: str, addresses: np.ndarray, active: np.ndarray | None, width: int, copies: int = 1):
        """Record one ``tl.load`` / ``tl.store`` executed by ``copies`` programs alike per row of ``addresses``.

        ``addresses`` is ``(rows, lanes)`` int64 byte addresses, one row per program; ``active`` the
        same shape (``None``: all lanes). ``kind`` is ``"load"``, ``"store"`` or ``"atomic"``.
        """
        rows, lanes = addresses.shape
        self.n[kind + "s"] += rows * copies
        self._pending.setdefault((kind, width, copies, lanes), []).append((addresses, active))
        self._pending_lanes += addresses.size
        if self._pending_lanes >= _FLUSH_LANES:
            self.flush()

    def flops(self, n: int):
        """Record ``n`` FLOPs of ``tl.dot`` (counted in ``flops`` and ``dot_flops``)."""
        self.n["dot_flops"] += n
        self.n["flops"] += n

    def arith(self, n: int):
        """Record ``n`` FLOPs of elementwise arithmetic or reductions."""
        self.n["flops"] += n

    def counted(self, kind: str, instructions: int, requests: int, sectors: int, nbytes: int, nlines: int = 0):
        """Add an access already counted by :func:`count_access` (``instructions`` programs ran it)."""
        n = self.n
        n[kind + "s"] += instructions
        n[kind + "_requests"] += requests
        n[kind + "_sectors"] += sectors
        n[kind + "_bytes"] += nbytes
        n[kind + "_lines"] += nlines

    def flush(self):
        """Count every pending access through :mod:`kernellab.access`."""
        for (kind, width, copies, _), parts in self._pending.items():
            addr = parts[0][0] if len(parts) == 1 else np.concatenate([a for a, _ in parts])
            if all(m is None for _, m in parts):
                active = None
            else:
                active = np.concatenate([np.ones(a.shape, bool) if m is None else m for a, m in parts])
            req, sec, nbytes, lin = count_access(addr, active, width)
            self.n[kind + "_bytes"] += nbytes * copies
            self.n[kind + "_lines"] += lin * copies
            self.n[kind + "_requests"] += req * copies
            self.n[kind + "_sectors"] += sec * copies
        self._pending.clear()
        self._pending_lanes = 0

    def merge(self, other: Tally):
        """Add another tally's counts into this one."""
        other.flush()
        for k, v in other.n.items():
            self.n[k] += v
        for key, counts in other._updates.items():
            mine = self._updates.get(key)
            self._updates[key] = counts.copy() if mine is None else mine + counts

    def result(self, per_program: dict | None = None, dram_sectors: dict | None = None) -> TritonCounts:
        """The frozen counts."""
        self.flush()
        n = dict(self.n)
        n["atomic_same_address"] += max((int(c.max()) for c in self._updates.values()), default=0)
        return TritonCounts(**n, per_program=per_program, dram_sectors=dict(dram_sectors or {}))

    def _row_counts(self, per_program: dict | None = None, dram_sectors: dict | None = None) -> TritonCounts:
        """A line's counts (:mod:`kernellab.lines`): no per-program breakdown; DRAM sectors are launch-level."""
        return self.result()


class Touched:
    """The distinct 32-byte sectors of each array a launch loads or stores: its compulsory DRAM traffic.

    One per launch, shared by every step, so a sector read by many programs counts once. Sectors are
    kept as a bitmap per array, and runs of consecutive elements (:meth:`mark_rows`) as intervals of
    sectors, merged with the bitmap once, when :meth:`sectors` is asked.

    Examples
    --------
    >>> t, x = Touched(), np.zeros(100, np.float32)
    >>> t.mark("x", x, np.arange(16)[None], None)                   # floats 0–15: bytes 0–63, 2 sectors
    >>> t.mark("x", x, np.arange(8, 24)[None], None, starts=[8])    # floats 8–23 again: one new sector
    >>> t.sectors()
    {'x': 3}
    >>> rows = np.array([[32, 33], [48, 49]]); keep = np.array([[False, False], [True, False]])
    >>> t.mark("x", x, rows, keep, starts=[32, 48]); t.sectors()    # float 48: bytes 192–195, sector 6
    {'x': 4}
    >>> t.mark_rows("x", x, [40, 90], [8, 2]); t.sectors()          # floats 40–47 (sector 5), 90–91 (11)
    {'x': 6}
    """

    __slots__ = ("_maps", "_runs")

    def __init__(self):
        self._maps: dict[int, tuple[str, np.ndarray | None, int]] = {}  # address → (name, bitmap, sectors)
        self._runs: dict[int, list] = {}  # address → [(first sectors, ends), …] of mark_rows

    def _bitmap(self, name: str, flat: np.ndarray) -> np.ndarray:
        key = flat.__array_interface__["data"][0]
        entry = self._maps.get(key)
        if entry is None or entry[1] is None:
            n = -(-max(flat.nbytes, 1) // SECTOR_BYTES)
            entry = self._maps[key] = (name, np.zeros(n, bool), n)
        return entry[1]

    def mark(self, name: str, flat: np.ndarray, offs: np.ndarray, mask, starts: np.ndarray | None = None):
        """Mark the sectors element offsets ``offs`` of ``flat`` touch where ``mask`` holds.

        ``starts`` (optional) says the offsets are consecutive: row ``p`` of the ``len(starts)`` rows
        holds ``starts[p], starts[p]+1, …``; the sectors then follow from the starts and the mask alone.
        """
        bitmap, w = self._bitmap(name, flat), flat.itemsize
        if starts is not None and offs.size:
            starts = np.asarray(starts, np.int64).reshape(-1)
            rows, lanes = starts.size, offs.size // starts.size
            if rows == 1 and mask is None:  # one consecutive run: a slice of sectors
                s0 = int(starts[0])
                bitmap[s0 * w // SECTOR_BYTES:((s0 + lanes) * w - 1) // SECTOR_BYTES + 1] = True
                return
            g = SECTOR_BYTES // w if SECTOR_BYTES % w == 0 else 0  # elements per sector
            if g and lanes % g == 0 and not (starts * w % SECTOR_BYTES).any():  # rows of whole sectors
                ids = (starts * w // SECTOR_BYTES)[:, None] + np.arange(lanes // g)
                if mask is not None:  # a sector is touched when one of its lanes is kept
                    ids = ids[np.asarray(mask).reshape(rows, lanes // g, g).any(axis=2)]
                bitmap[ids.reshape(-1)] = True
                return
        o = offs if mask is None else offs[mask]
        bitmap[np.asarray(o, np.int64).reshape(-1) * w // SECTOR_BYTES] = True

    def mark_rows(self, name: str, flat: np.ndarray, starts, active):
        """Mark the sectors of rows of consecutive elements: row ``r`` is ``flat[starts[r]:starts[r] + active[r]]``."""
        s, k = np.broadcast_arrays(np.asarray(starts, np.int64).reshape(-1), np.asarray(active, np.int64).reshape(-1))
        keep = k > 0
        if not keep.all():
            s, k = s[keep], k[keep]
        self._add_run(name, flat, s, s + k)

    def mark_run(self, name: str, flat: np.ndarray, start: int, n: int, key: int | None = None):
        """Mark the sectors of ``flat[start:start + n]`` (``n`` > 0; ``key``: the address of ``flat``'s data)."""
        self._add_run(name, flat, start, start + n, key)

    def _add_run(self, name: str, flat: np.ndarray, start, end, key: int | None = None):
        """Keep the sectors of elements ``start … end−1`` (ints, or arrays of as many runs) as an interval."""
        key = flat.__array_interface__["data"][0] if key is None else key
        if key not in self._maps:
            self._maps[key] = (name, None, -(-max(flat.nbytes, 1) // SECTOR_BYTES))
        w = flat.itemsize
        self._runs.setdefault(key, []).append((start * w // SECTOR_BYTES, (end * w - 1) // SECTOR_BYTES + 1))

    def sectors(self) -> dict[str, int]:
        """Distinct sectors touched per array name (arrays never touched left out)."""
        out: dict[str, int] = {}
        for key, (name, bitmap, size) in self._maps.items():
            runs = self._runs.get(key)
            if not runs:
                n = int(np.count_nonzero(bitmap))
            elif bitmap is None:  # intervals only: the length of their union
                n = _union_length(runs)
            else:  # paint the intervals into the bitmap (+1 where one opens, −1 where it closes)
                lo, hi = _intervals(runs)
                edges = np.zeros(size + 1, np.int64)
                np.add.at(edges, lo, 1)
                np.add.at(edges, hi, -1)
                n = int(np.count_nonzero(bitmap | (np.cumsum(edges[:-1]) > 0)))
            if n:
                out[name] = out.get(name, 0) + n
        return out

    def sizes(self) -> dict[str, int]:
        """The size in sectors of each array touched, by name (the most its ``sectors()`` entry can be)."""
        out: dict[str, int] = {}
        for name, _bitmap, size in self._maps.values():
            out[name] = out.get(name, 0) + size
        return out


def _intervals(runs: list) -> tuple[np.ndarray, np.ndarray]:
    """The ``(lo, hi)`` arrays of all the runs (each a pair of ints or of arrays)."""
    return (np.concatenate([np.atleast_1d(r[0]) for r in runs]),
            np.concatenate([np.atleast_1d(r[1]) for r in runs]))


def _union_length(runs: list) -> int:
    """The number of integers in the union of the half-open intervals ``[lo, hi)`` of ``runs``.

    A few single runs (ints) are merged in Python, more through numpy.

    >>> _union_length([(0, 4), (5, 8), (2, 6), (20, 21)])                        # [0, 8) and [20, 21)
    9
    >>> _union_length([(np.array([0, 5]), np.array([4, 8])), (2, 6), (20, 21)])  # the same, as arrays
    9
    """
    if all(type(r[0]) is int for r in runs):
        n, reach = 0, None
        for lo, hi in sorted(runs):
            n += max(hi - (lo if reach is None else max(lo, reach)), 0)
            reach = hi if reach is None else max(reach, hi)
        return n
    lo, hi = _intervals(runs)
    if lo.size == 0:
        return 0
    if lo.size > 1 and (lo[1:] < lo[:-1]).any():
        order = np.argsort(lo, kind="stable")
        lo, hi = lo[order], hi[order]
    reach = np.maximum.accumulate(hi)  # the furthest end of the intervals so far
    begin = lo.copy()
    begin[1:] = np.maximum(lo[1:], reach[:-1])
    return int(np.maximum(hi - begin, 0).sum())
