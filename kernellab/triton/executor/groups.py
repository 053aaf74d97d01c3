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
counts at a time leaves them. The engine does not group a launch that counts per source line (a sector is charged
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
    the step (``SHARED`` when every program of the group reads the same offsets)."""

    __slots__ = ("positions", "record", "lo", "hi", "owner", "stored")

    def __init__(self, positions: np.ndarray, record: bool = True):
        self.positions = positions
        self.record = record  # False: groups of one program in launch order, which need no check
        self.lo: list = []
        self.hi: list = []
        self.owner: list = []
        self.stored: list = []

    def access(self, address: int, itemsize: int, view, store: bool):
        """A load or a store through ``view`` (a :class:`~kernellab.triton.executor.view.View`) of the array at
        ``address`` of ``itemsize``-byte elements."""
        if not self.record:
            return
        lo, hi = row_extremes(view)
        self._add(address + lo * itemsize, address + (hi + 1) * itemsize, view.rows, store)

    def atomic(self, address: int, nbytes: int):
        """The group's atomics read and write the array at ``address`` (``nbytes`` long): all of it, each program."""
        if self.record:
            self._add(np.array([address], np.int64), np.array([address + nbytes], np.int64), 1, True)

    def _add(self, lo: np.ndarray, hi: np.ndarray, rows: int, store: bool):
        owner = self.positions
        if rows != owner.size:  # one row for every program: each program's span, the same
            lo, hi = np.broadcast_to(lo, owner.shape), np.broadcast_to(hi, owner.shape)
            if not store:  # a read every program shares (a store's would be one span each, overlapping)
                lo, hi, owner = lo[:1], hi[:1], np.full(1, SHARED if owner.size > 1 else owner[0])
        self.lo.append(lo)
        self.hi.append(hi)
        self.owner.append(owner)
        self.stored.append(np.full(lo.size, store))


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

    >>> overlap([0, 8], [8, 16], [0, 1], [True, True]), overlap([0, 7], [8, 16], [0, 1], [True, False])
    (False, True)
    >>> overlap([0, 4], [8, 16], [0, 1], [False, False]), overlap([0, 4], [8, 16], [0, 0], [True, True])
    (False, False)
    """
    # the furthest end of the spans so far and its program, and the furthest end of the other programs' spans,
    # for the stores and for the loads
    ends = {True: [-1, None, -1], False: [-1, None, -1]}
    for i in np.argsort(np.asarray(lo), kind="stable").tolist():
        start, end, p, kind = int(lo[i]), int(hi[i]), int(owner[i]), bool(stored[i])
        for seen in (True, False) if kind else (True,):  # a store meets any span; a load, the stores
            best, who, other = ends[seen]
            if (best if p != who or p == SHARED else other) > start:
                return True
        e = ends[kind]
        if p == e[1] and p != SHARED:
            e[0] = max(e[0], end)
        elif end > e[0]:
            e[:] = [end, p, e[0]]
        else:
            e[2] = max(e[2], end)
    return False


def conflict(done: list) -> bool:
    """Whether a program of the groups ``done`` (``(positions, step)``) stored to a byte another one loaded or
    stored: then an order other than launch order may give other values."""
    claims = [step.claims for _pos, step in done]
    parts = [(c.lo, c.hi, c.owner, c.stored) for c in claims]
    if not any(np.any(a) for c in claims for a in c.stored):
        return False  # nothing stored: any order reads the same
    lo, hi, owner, stored = (np.concatenate([a for p in parts for a in p[k]]) for k in range(4))
    return overlap(lo, hi, owner, stored)


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
