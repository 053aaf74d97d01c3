"""A vectorised step whose programs diverge in Python control flow, rerun in groups of programs that agree.

Programs of a step that take different Python paths — a loop bound each program computes (causal attention's
``for start_n in range(0, start_m * BLOCK_M, BLOCK_N)``), a branch (``if pid % 2:``) — stop the step where they
first disagree: :class:`~kernellab.triton.executor.program.Divergence` carries each program's value there (its
``keys``: the bound's value, the branch's truth value). :func:`run` reruns the step as vectorised steps of the
programs whose keys are equal, each group in launch order, the groups in the order of their first programs;
a group that diverges again splits by its own keys. A step whose programs all disagree (a benchmark's sample
of 8 programs, one per query block) runs as groups of one program each: in launch order.

**Why the results are those of launch order.** The groups run one after another, so programs of a group run
before programs of later groups that come earlier in launch order (one group per query block holds every
head), and the programs of a group run together, as any vectorised step's do. Programs none of which stores to
a byte another one loads or stores give the same values in any order, together or apart: each reads what was
there before the step, and each byte stored has one writer. So every group records, for each of its programs,
what the program may touch (:class:`Claims`): each load's and each store's span of bytes, from its lowest
offset to its highest (masked lanes included, so the span holds every byte the access reads or writes), and
for an atomic the whole array. When, over all the groups, a span one program stores to meets a span another
program loads or stores, every group is undone — its journal restores what it stored, its deferred stores
included, which it journals before applying them (:meth:`~kernellab.triton.executor.program.Program.flush`) —
and the step reruns program by program, as a step that cannot run vectorised always did: a program that reads
what an earlier one stored gets it, as in launch order. So does a step one of whose groups fails in any other
way (an error, a spin lock, a tail to split): the program-by-program run reports the error where launch order
meets it.

**Counts.** Every count is a sum over programs, or a largest value, so the groups' tallies add up to the
step's. The layout a load is counted under depends on the widths the launch's accesses of its shape and order
asked for (``wanted``, see :meth:`~kernellab.triton.executor.counts.Tally.planned`) when it is counted, which
the order of the accesses could change where one shape and order is asked for two widths: the groups watch
what they ask for (:class:`~kernellab.triton.executor.counts.Wanted`), and such a step too is undone (the
widths asked for with it) and rerun program by program. Groups of one program each run in launch order, as the
program-by-program run does, and need no check when their tallies are adopted uncounted
(:meth:`~kernellab.triton.executor.counts.Tally.adopt`), as a step of fewer programs than the one-by-one run
counts at a time leaves them.

**When groups are not tried.** Undoing costs the groups' run on top of the one-by-one run, so a kernel whose
groups were undone for what they touched (programs of one step meeting in memory, or a load shape asked for two
widths) runs its later diverging steps one by one without trying groups (``hints["groups"]``: its later launches
too), as the same kernel's programs most likely meet again. A group that fails in another way (an error) says
nothing of its kernel's later steps. The spans of whole programs are only a first look: the tiles of a
row-major matrix that programs store side by side span each other's rows without sharing a byte, so where the
spans meet, the accesses whose offsets are lines of consecutive elements are looked at line by line.

The engine does not group a launch that counts per source line (a sector is charged
to the line of the first program in launch order that touches it) or that a hook records (a replay records
its steps in order).

Examples
--------
>>> split(np.arange(6), np.array([2, 0, 2, 1, 0, 2]))     # groups by value, in the order of their first
[array([0, 2, 5]), array([1, 4]), array([3])]
"""

from __future__ import annotations

import numpy as np

from .program import Divergence, Program


class Claims:
    """What one group's programs touch, in bytes of memory: for each load and store, the span ``[lo, hi)`` of
    each program (from its lowest offset to its highest, masked lanes included) and the program's position in
    the step (``SHARED`` when every program of the group reads the same offsets); and, for an access whose
    offsets are lines of consecutive elements (a 2-D tile of a row-major matrix: one span per program covers
    the rows between, which other programs' tiles share), those lines, looked at only when the spans meet."""

    __slots__ = ("positions", "record", "lo", "hi", "owner", "stored", "lines")

    def __init__(self, positions: np.ndarray, record: bool = True):
        self.positions = positions
        self.record = record  # False: groups of one program in launch order, which need no check
        self.lo: list = []
        self.hi: list = []
        self.owner: list = []
        self.stored: list = []
        self.lines: list = []  # per access: None (its rows are spans), or (address, itemsize, view)

    def access(self, address: int, itemsize: int, view, store: bool):
        """A load or a store through ``view`` (a :class:`~kernellab.triton.executor.view.View`) of the array at
        ``address`` of ``itemsize``-byte elements."""
        if not self.record:
            return
        lo, hi = row_extremes(view)
        self._add(address + lo * itemsize, address + (hi + 1) * itemsize, view.rows, store,
                  None if view.starts() is not None else (address, itemsize, view))

    def atomic(self, address: int, nbytes: int):
        """The group's atomics read and write the array at ``address`` (``nbytes`` long): all of it, each program."""
        if self.record:
            self._add(np.array([address], np.int64), np.array([address + nbytes], np.int64), 1, True)

    def _add(self, lo: np.ndarray, hi: np.ndarray, rows: int, store: bool, lines=None):
        owner = self.positions
        if rows != owner.size:  # one row for every program: each program's span, the same
            lo, hi = np.broadcast_to(lo, owner.shape), np.broadcast_to(hi, owner.shape)
            if not store:  # a read every program shares (a store's would be one span each, overlapping)
                lo, hi, owner = lo[:1], hi[:1], np.full(1, SHARED if owner.size > 1 else owner[0])
        self.lo.append(lo)
        self.hi.append(hi)
        self.owner.append(owner)
        self.stored.append(np.full(lo.size, store))
        self.lines.append(lines)

    def spans(self, fine: bool) -> tuple:
        """``(lo, hi, owner, stored)`` over every access, one span a program (``fine``: one a line, for an
        access whose offsets are lines), as :func:`overlap` takes them."""
        if not fine:
            return self.lo, self.hi, self.owner, self.stored
        parts: tuple = ([], [], [], [])
        for lo, hi, owner, stored, lines in zip(self.lo, self.hi, self.owner, self.stored, self.lines):
            if lines is not None and lines[2].lines() is not None:  # looked for only now: rarely needed
                address, itemsize, view = lines
                _axis, starts, n = view.lines()
                starts = starts[:owner.size] if starts.shape[0] >= owner.size else np.broadcast_to(
                    starts, (owner.size, starts.shape[1]))
                lo = address + starts.reshape(-1) * itemsize
                hi = lo + n * itemsize
                owner = np.repeat(owner, starts.shape[1])
                stored = np.full(lo.size, stored[0])
            for part, a in zip(parts, (lo, hi, owner, stored)):
                part.append(a)
        return parts


#: The owner of a span that every program of a group reads, which is another program's than any one program's.
SHARED = -1


def row_extremes(view) -> tuple[np.ndarray, np.ndarray]:
    """Each program's lowest and highest offset through ``view`` (masked lanes included), int64 ``(rows,)``.

    >>> from kernellab.triton.executor.view import View
    >>> v = View.of(np.array([[3, 9, 4], [20, 21, 22]]), np.array([[True, False, True], [True] * 3]))
    >>> [a.tolist() for a in row_extremes(v)]     # lane 9 masked off still bounds program 0
    [[3, 20], [9, 22]]
    """
    starts = view.starts()
    if starts is not None:
        return starts, starts + (view.numel - 1)
    lines = view.lines()
    if lines is not None:
        _axis, s, n = lines
        return np.minimum.reduce(s, axis=1), np.maximum.reduce(s, axis=1) + (n - 1)
    offs = view.lanes()[0]
    offs = offs.reshape(offs.shape[0], -1)
    return np.minimum.reduce(offs, axis=1), np.maximum.reduce(offs, axis=1)


def split(positions: np.ndarray, keys: np.ndarray) -> list[np.ndarray]:
    """``positions`` (ascending) in groups of equal ``keys`` (bit for bit: 0.0 and -0.0, two NaNs of other bits,
    apart), each ascending, the groups in the order of their first positions."""
    k = np.ascontiguousarray(keys)
    if k.dtype.itemsize in (1, 2, 4, 8):
        k = k.view(f"u{k.dtype.itemsize}")
    else:  # no unsigned integer that wide: by the bytes of each key
        k = np.array([row.tobytes() for row in k])
    _values, first, inverse = np.unique(k, return_index=True, return_inverse=True)
    rank = np.empty(first.size, np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    label = rank[inverse.reshape(-1)]
    order = np.argsort(label, kind="stable")
    return np.split(positions[order], np.cumsum(np.bincount(label))[:-1])


def overlap(lo, hi, owner, stored) -> bool:
    """Whether a span ``[lo, hi)`` one program stores to shares a byte with a span another program loads or stores
    (``owner``: each span's program, ``SHARED`` another than every program; ``stored``: whether it is a store).

    Each program's stores are merged into runs first (``_runs``), so the store runs of all programs, sorted
    by their starts, meet exactly where one starts before a run before it ends (its own program's runs end
    sooner). If none meets, the store runs are apart and sorted by their ends too; each load then meets the
    runs between the first that ends after it starts and the last that starts before it ends, and those must
    all be its own program's.

    >>> overlap([0, 8], [8, 16], [0, 1], [True, True]), overlap([0, 7], [8, 16], [0, 1], [True, False])
    (False, True)
    >>> overlap([0, 4], [8, 16], [0, 1], [False, False]), overlap([0, 4], [8, 16], [0, 0], [True, True])
    (False, False)
    """
    lo, hi, owner = (np.asarray(a, np.int64).reshape(-1) for a in (lo, hi, owner))
    stored = np.asarray(stored, bool).reshape(-1)
    shared = owner == SHARED
    if shared.any():  # each span every program of a group reads: an owner of its own, below every program
        owner = owner.copy()
        owner[shared] = SHARED - np.arange(int(np.count_nonzero(shared)))
    slo, shi, sown = _runs(lo[stored], hi[stored], owner[stored])
    if slo.size == 0:
        return False
    order = np.argsort(slo, kind="stable")
    slo, shi, sown = slo[order], shi[order], sown[order]
    if slo.size > 1 and bool((slo[1:] < np.maximum.accumulate(shi)[:-1]).any()):
        return True
    load = ~stored
    llo, lhi, lown = lo[load], hi[load], owner[load]
    first = np.searchsorted(shi, llo, "right")  # the first store run that ends after the load starts
    stop = np.searchsorted(slo, lhi, "left")  # past the last store run that starts before the load ends
    hit = stop > first
    if not hit.any():
        return False
    first, stop, lown = first[hit], stop[hit], lown[hit]
    owners = np.concatenate([[0], np.cumsum(sown[1:] != sown[:-1])])  # how many owner changes up to each run
    return bool(((sown[first] != lown) | (owners[stop - 1] != owners[first])).any())


def _runs(lo: np.ndarray, hi: np.ndarray, owner: np.ndarray) -> tuple:
    """Each owner's spans ``[lo, hi)`` merged where they meet: ``(lo, hi, owner)`` of the runs, apart within an
    owner.

    >>> [a.tolist() for a in _runs(np.array([0, 4, 10, 2]), np.array([5, 8, 12, 3]), np.array([0, 0, 0, 1]))]
    [[0, 10, 2], [8, 12, 3], [0, 0, 1]]
    """
    if lo.size == 0:
        return lo, hi, owner
    order = np.lexsort((lo, owner))
    lo, hi, owner = lo[order], hi[order], owner[order]
    first = np.ones(lo.size, bool)
    first[1:] = owner[1:] != owner[:-1]
    # each owner's furthest end so far, as a rank among the ends plus the owner's place × their number: one
    # running maximum over all owners that never carries an end from one owner into the next
    ends = np.unique(hi)
    place = (np.cumsum(first) - 1) * ends.size
    reach = ends[np.maximum.accumulate(np.searchsorted(ends, hi) + place) - place]
    start = first
    start[1:] |= lo[1:] >= reach[:-1]
    at = np.flatnonzero(start)
    return lo[at], np.maximum.reduceat(hi, at), owner[at]


def conflict(done: list) -> bool:
    """Whether a program of the groups ``done`` (``(positions, step)``) stored to a byte another one loaded or
    stored: then an order other than launch order may give other values. The spans of whole programs are
    looked at first; where they meet, the lines of the accesses that have them."""
    claims = [step.claims for _pos, step in done]
    if not any(np.any(a) for c in claims for a in c.stored):
        return False  # nothing stored: any order reads the same
    for fine in (False, True):
        parts = [c.spans(fine) for c in claims]
        lo, hi, owner, stored = (np.concatenate([a for p in parts for a in p[k]]) for k in range(4))
        if not overlap(lo, hi, owner, stored):
            return False
    return True


def run(launch, chunk: np.ndarray, keys: np.ndarray, step, settles: bool) -> list[Program] | None:
    """Run the programs ``chunk`` of ``launch``, which diverged on ``keys``, in groups (see the module): the
    groups' steps in the order they ran, or None when the chunk must rerun program by program (every group
    undone, and what the launch recorded of them: the sectors it touched, the widths its accesses asked for).
    ``step(launch, pids, claims=make)`` runs one group as the engine's vectorised step does, recording what it
    touches in ``make()`` (a :class:`Claims`). ``settles``:
    whether the program-by-program run would count loads under their layouts before the chunk ends (then the
    groups' tallies are merged, counted at once; else the engine adopts them, counted when the launch's are)."""
    queue = split(np.arange(len(chunk)), keys)
    alone = len(queue) == len(chunk)  # one program a group, in launch order: launch order itself
    done: list = []
    wanted = launch.wanted
    before = dict(wanted), (None if alone else launch.touched.snapshot())
    wanted.watch()
    try:
        while queue:
            pos = queue.pop(0)
            got = step(launch, chunk[pos], claims=lambda pos=pos: Claims(pos, not alone))
            if got.__class__ is Divergence and got.keys is not None and pos.size > 1:
                queue[:0] = split(pos, got.keys)
                continue
            if not isinstance(got, Program):
                break
            done.append((pos, got))
        else:
            # one program a group, in launch order: what the one-by-one run does, in its order; where it counts
            # loads only when the launch does, the widths asked for do not matter either
            if not (wanted.mixed and (settles or not alone) or not alone and conflict(done)):
                return [got for _pos, got in done]
            # what its programs touch orders them: the kernel's later diverging steps run one by one at once
            launch.hints["groups"] = False
    finally:
        wanted.watch(False)
    undo(done)
    wanted.clear()
    wanted.update(before[0])
    if before[1] is not None:
        launch.touched.restore(before[1])
    return None


def undo(done: list):
    """Restore what the groups ``done`` stored, the last first."""
    for _pos, got in reversed(done):
        got.undo()
