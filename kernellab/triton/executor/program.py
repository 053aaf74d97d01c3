"""The running program instance(s): ids, grid, kernel name, tally and undo journal of one launch step.

``tl.program_id(0)`` is a module-level function in real Triton syntax, so it must find the program it
runs in without being passed it. The launcher sets a :class:`contextvars.ContextVar` for the duration
of each step and resets it afterwards; nothing else in kernellab keeps launch state at module level,
and nested or concurrent launches (threads, asyncio tasks) each see their own program.

A step runs either one program or, when the kernel allows, a batch of programs at once: every value
then carries a leading axis over the batch (see :mod:`kernellab.triton.executor.tensor`).
"""

from __future__ import annotations

from contextvars import ContextVar
from functools import lru_cache

import numpy as np

from ...errors import KernelValueError, fmt_dim3
from ...i18n import _
from . import sampling
from .counts import Tally, Touched
from .liveness import Live
from .policy import DEFAULT, Policy


class Divergence(Exception):
    """Raised when programs of a batch would take different Python paths. ``keys``: when known, what each program
    of the step decides by, ``(P,)`` (a loop bound, a branch's truth value): the step then reruns in groups of
    programs with equal keys (:mod:`kernellab.triton.executor.groups`), else program by program."""

    def __init__(self, keys: np.ndarray | None = None):
        super().__init__()
        self.keys = keys


class SplitTail(Exception):
    """Raised when only the last program of a vectorised step masks off part of a block of consecutive
    offsets (the grid's tail): the step reruns as two, the others (whose blocks then move as views and
    slices) and the last one alone."""


class SplitLocks(Exception):
    """Raised when programs of a vectorised step take the same spin lock (:mod:`kernellab.triton.executor.locks`): the
    first ``k`` programs, whose lock words differ, run as one step, and the rest in steps of ``k``."""

    def __init__(self, k: int):
        super().__init__(k)
        self.k = k


class Reorder(Exception):
    """Raised when a batch that defers its stores reads what a deferred store would change (or changes
    what it lent as a view); the batch reruns storing at once (see :meth:`Program.write`)."""


#: An array of at most this many elements is journaled whole the first time a step stores to it at once.
JOURNAL_WHOLE = 1 << 16


class Program:
    """One step of a launch: the program ids it runs (``P`` of them), and where its effects go.

    Attributes
    ----------
    kernel : str
        the kernel's name, for error messages.
    grid : tuple of int
        the launch grid ``(x, y, z)``.
    pids : numpy.ndarray
        int32 ``(P, 3)``: the ids of the programs this step runs, in launch order.
    tally : kernellab.triton.executor.counts.Tally
        where memory accesses and dot FLOPs are counted.
    names : dict
        ``address of an array's data → parameter name``, for error messages.
    journal : list or None
        when not None, what this step's stores at once change, kept before each changes it (see
        :meth:`before_store`), so that a batch that cannot run vectorised is undone and rerun program by program.
    touched : kernellab.triton.executor.counts.Touched or None
        the launch's record of distinct sectors touched (compulsory DRAM traffic), shared by its steps.
    deferred : list or None
        when not None, the stores of this step, kept to be applied in order by :meth:`flush` once the
        step has run (an optimisation: loads may then lend views of arrays instead of copies).
    num_warps : int
        the launch's warps per program (``num_warps=``, default 4): the layouts of its loads and stores.
    wanted : dict
        the launch's ``(shape, order) → elements per thread`` its accesses ask for (see
        :meth:`~kernellab.triton.executor.counts.Tally.planned`), shared by its steps.
    policy : kernellab.triton.executor.policy.Policy
        the shortcuts the launch may take.
    live : kernellab.triton.executor.liveness.Live
        the step's floating-point values and their last uses: the registers they hold.
    hook : object or None
        what watches the launch (a replay recorder, :class:`kernellab.triton.replay.trace.Recorder`): told
        ``hook.step(prog)`` when a step starts, ``hook.memory(prog, "load" or "store")`` when it touches
        memory, ``hook.undone(prog)`` when it is undone, ``hook.made(prog, x)`` when the executor makes a
        block of the launch's signature outside the language's calls (a loop's variable). The executor
        knows nothing else of it.
    """

    __slots__ = ("kernel", "grid", "pids", "P", "tally", "names", "journal", "_pid_cols", "failed_cas", "touched",
                 "deferred", "_lent", "_stored", "_addresses", "num_warps", "wanted", "policy", "hook", "loops",
                 "epoch", "rounds", "dot_rounds", "head", "tail", "lock", "_whole", "live", "claims")

    def __init__(self, kernel: str, grid, pids: np.ndarray, tally: Tally, names: dict, journal=None,
                 touched: Touched | None = None, defer: bool = False, num_warps: int = 4, wanted: dict | None = None,
                 addresses: dict | None = None, policy: Policy = DEFAULT, hook=None):
        self.kernel = kernel
        self.policy = policy
        self.hook = hook
        self.num_warps = num_warps
        self.wanted = {} if wanted is None else wanted
        self.grid = tuple(grid)
        self.pids = pids
        self.P = len(pids)
        self.tally = tally
        self.names = names
        self.journal = journal
        self._whole: set[int] = set()  # ids of the arrays the journal holds whole
        self.touched = touched
        self.failed_cas = 0  # consecutive tl.atomic_cas calls that changed nothing (a spinning lock)
        self._pid_cols = [None, None, None]  # each axis's ids, made when first asked for
        self.deferred = [] if defer else None
        self._lent: set[int] = set()  # addresses of arrays a load lent a view of (when deferring)
        self._stored: set[int] = set()  # addresses of arrays with a deferred store
        # id(array) → (array, address of its data): the launch arguments' known from the start
        self._addresses: dict[int, tuple] = {} if addresses is None else dict(addresses)
        self.loops: list = []  # the kernel loops running now, innermost last (kernellab.triton.executor.loops)
        self.epoch = 0  # loads issued since the program last waited carry this (kernellab.triton.executor.rounds)
        self.rounds = 0  # times each of the step's programs waited for its loads
        self.dot_rounds = 0  # those whose first use was a tl.dot operand
        # the accesses the step's programs made before their first wait (loads), and since their last wait (stores
        # and atomics): (view, itemsize) pairs or bytes, summed when the step ends (kernellab.triton.executor.rounds)
        self.head = []
        self.tail = []
        self.lock = None  # the critical section the program is in (kernellab.triton.executor.locks.Section)
        self.live = Live(num_warps)  # the step's values and their last uses (kernellab.triton.executor.liveness)
        # what the step reads and writes, when it runs one group of a diverging step (groups.Claims), else None
        self.claims = None

    def address(self, flat: np.ndarray) -> int:
        """The address of ``flat``'s data (looked up once per array object and step)."""
        entry = self._addresses.get(id(flat))
        if entry is None or entry[0] is not flat:
            entry = self._addresses[id(flat)] = (flat, flat.__array_interface__["data"][0])
        return entry[1]

    def program_id(self, axis: int) -> np.ndarray:
        """int32 ``(P,)``: each program's id along ``axis``."""
        if axis not in (0, 1, 2):
            raise ValueError(_("program_id axis must be 0, 1 or 2, not {axis!r}").format(axis=axis))
        col = self._pid_cols[axis]
        if col is None:
            col = self._pid_cols[axis] = np.ascontiguousarray(self.pids[:, axis])
        return col

    def where(self, row: int) -> str:
        """``kernel name, program (x,y,z)`` of the program on ``row`` of the batch."""
        return _("kernel {kernel}, program {program}").format(kernel=self.kernel, program=fmt_dim3(self.pids[row]))

    def name_of(self, flat: np.ndarray) -> str:
        """The parameter name of an array, or ``array`` when it was not a launch argument."""
        return self.names.get(self.address(flat), "array")

    def writable(self, flat: np.ndarray):
        """Raise :class:`~kernellab.KernelValueError`, naming the kernel, the batch's first program
        and the array, when ``flat`` is read-only (numpy's ``flags.writeable`` is False): a kernel may
        load from a read-only array, not store to it."""
        if not flat.flags.writeable:
            name = self.name_of(flat)
            raise KernelValueError(
                _("{place}: a store to {array}, a read-only array (its flags.writeable is False)").format(
                    place=self.where(0), array=name),
                kernel=self.kernel, program=fmt_dim3(self.pids[0]), array=name)

    def _storing(self, flat: np.ndarray):
        """What every store to ``flat`` checks first, at once or deferred: that it may be written, and
        that the launch's hook, if any, hears of it."""
        self.writable(flat)
        if self.hook is not None:
            self.hook.memory(self, "store")

    def before_store(self, flat: np.ndarray, span=None):
        """Keep what a store at once is about to change in ``flat`` (when journaling): the elements ``span``,
        ``(lo, hi)`` or a function that gives it, which the store writes nothing outside of (None: anywhere).
        An atomic calls it (it reads and writes ``flat``: a group of a diverging step claims the whole array).

        A step that defers its stores cannot change at once an array it lent or has a store pending
        for (an atomic): :class:`Reorder`.
        """
        if self.claims is not None:
            self.claims.atomic(self.address(flat), flat.nbytes)
        self._before_store(flat, span)

    def _before_store(self, flat: np.ndarray, span=None):
        """:meth:`before_store` of a plain store (:meth:`write`)."""
        self._storing(flat)
        if self.deferred is not None:
            key = self.address(flat)
            if key in self._stored or key in self._lent:
                raise Reorder
        sampling.before_store(flat, self.address(flat))  # a sampled launch: NaN where no program stores
        if self.journal is not None and id(flat) not in self._whole:
            self._keep(flat, span)

    def _keep(self, flat: np.ndarray, span):
        """Journal ``flat[lo:hi]`` as it is now, or all of ``flat``, once, when it is small (``JOURNAL_WHOLE``
        elements or fewer), the span is unknown or covers half of it or more. :meth:`undo` restores the entries
        last first, so each element ends as it was before the step's first store to it (an earlier entry holds
        its value before any later one; an array journaled whole keeps no later entries: restoring it undoes them).

        A step of tutorial 05's backward kernel stores 96 rows of an array of 4096: a copy of the whole array
        per step copied 43 times the array in a launch."""
        if span is not None and flat.size > JOURNAL_WHOLE:
            lo, hi = span() if callable(span) else span
            lo, hi = max(int(lo), 0), min(int(hi), flat.size)
            if 2 * (hi - lo) < flat.size:
                if hi > lo:
                    self.journal.append((flat, lo, flat[lo:hi].copy()))
                return
        self._whole.add(id(flat))
        self.journal.append((flat, 0, flat.copy()))

    def before_load(self, flat: np.ndarray):
        """A step that defers its stores cannot read an array it has a store pending for: :class:`Reorder`."""
        if self.hook is not None:
            self.hook.memory(self, "load")
        if self.deferred is not None and self.address(flat) in self._stored:
            raise Reorder

    def split_tail(self, rows: int):
        """Raise :class:`SplitTail` when this step defers its stores and ``rows`` is its programs (more than one)."""
        if self.deferred is not None and rows == self.P > 1:
            raise SplitTail

    def lend(self, flat: np.ndarray) -> bool:
        """Whether a load may return a view of ``flat`` (the step defers its stores); remembers it did."""
        if self.deferred is None:
            return False
        self._lent.add(self.address(flat))
        return True

    def write(self, flat: np.ndarray, apply, *sources: np.ndarray, span=None):
        """Store to ``flat``: ``apply()`` writes, reading the arrays ``sources``, nothing outside ``span``
        (see :meth:`before_store`).

        At once (journaled first, when journaling), or deferred to :meth:`flush` when this step defers
        its stores. Deferred stores run in program order after the step, so a store whose ``source``
        may share memory with an array an earlier deferred store changes is a :class:`Reorder`.
        """
        if self.deferred is None:
            self._before_store(flat, span)
            apply()
            return
        self._storing(flat)
        for earlier, _apply, _span in self.deferred:
            if any(np.may_share_memory(source, earlier) for source in sources):
                raise Reorder
        sampling.before_store(flat, self.address(flat))
        self.deferred.append((flat, apply, span))
        self._stored.add(self.address(flat))

    def flush(self):
        """Apply the deferred stores, in program order; journaled first when the step runs one group of a
        diverging step (``claims``), which a later group may still undo (:mod:`kernellab.triton.executor.groups`)."""
        keep = self.claims is not None and self.journal is not None
        for flat, apply, span in self.deferred or ():
            if keep and id(flat) not in self._whole:
                self._keep(flat, span)
            apply()
        self.deferred = [] if self.deferred is not None else None

    def touch_run(self, flat: np.ndarray, start: int, n: int):
        """Record the sectors of the ``n`` elements of ``flat`` from ``start``."""
        if self.touched is not None and n > 0:
            key = self.address(flat)
            name = self.names.get(key, "array")
            self._first_touch(name, self.touched.mark_run(name, flat, start, n, key))

    def touch_rows(self, flat: np.ndarray, starts: np.ndarray, active: np.ndarray):
        """Record the sectors of rows of consecutive elements (see :meth:`~kernellab.triton.executor.counts.Touched.mark_rows`)."""
        if self.touched is not None:
            key = self.address(flat)
            name = self.names.get(key, "array")
            self._first_touch(name, self.touched.mark_rows(name, flat, starts, active, key))

    def touch_lines(self, flat: np.ndarray, starts: np.ndarray, n: int):
        """Record the sectors of lines of ``n`` consecutive elements (see :meth:`~kernellab.triton.executor.counts.Touched.mark_lines`)."""
        if self.touched is not None:
            key = self.address(flat)
            name = self.names.get(key, "array")
            self._first_touch(name, self.touched.mark_lines(name, flat, starts, n, key))

    def touch(self, flat: np.ndarray, offs: np.ndarray, mask=None, starts=None):
        """Record the sectors an access touches, for the launch's ``dram_sectors`` (see
        :class:`~kernellab.triton.executor.counts.Touched`; ``starts``: each row's first offset when consecutive)."""
        if self.touched is not None:
            key = self.address(flat)
            name = self.names.get(key, "array")
            self._first_touch(name, self.touched.mark(name, flat, offs, mask, starts, key))

    def _first_touch(self, name: str, sectors):
        """Charge the sectors a mark touched first (``lines=True``: the Touched record counts them) to the tally."""
        if sectors:
            self.tally.first_touch(name, sectors)

    def undo(self):
        """Restore every array this step stored to (and tell the launch's hook, if any)."""
        if self.hook is not None:
            self.hook.undone(self)
        for flat, lo, saved in reversed(self.journal or ()):
            np.copyto(flat[lo:lo + saved.size], saved)


_CURRENT: ContextVar[Program | None] = ContextVar("kernellab_triton_program", default=None)


def current() -> Program:
    """The program running now in this thread or task; RuntimeError outside a launch."""
    prog = _CURRENT.get()
    if prog is None:
        raise RuntimeError(
            _("no Triton program is running: call triton.language functions inside a @triton.jit kernel launched as kernel[grid](...)")
        )
    return prog


TABLE_PROGRAMS = 1 << 22  #: grids of up to this many programs keep a table of their ids (48 MB at most)


def _ids(grid, lin: np.ndarray) -> np.ndarray:
    """int32 ``(n, 3)``: the ids of the programs at launch positions ``lin`` (x fastest)."""
    gx, gy, _gz = grid
    return np.stack([lin % gx, (lin // gx) % gy, lin // (gx * gy)], axis=1).astype(np.int32)


class Pids:
    """The program ids of a grid too large for a table, made a slice at a time: indexed as the table would
    be (``len``, a position, a slice, an array of positions)."""

    __slots__ = ("grid", "n")

    def __init__(self, grid):
        self.grid, self.n = tuple(grid), grid[0] * grid[1] * grid[2]

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, k):
        if isinstance(k, slice):
            return _ids(self.grid, np.arange(*k.indices(self.n), dtype=np.int64))
        if isinstance(k, (int, np.integer)):
            return _ids(self.grid, np.array([k % self.n], np.int64))[0]
        return _ids(self.grid, np.asarray(k, np.int64))


@lru_cache(maxsize=32)
def pid_table(grid) -> np.ndarray | Pids:
    """int32 ``(X·Y·Z, 3)``: every program id of a grid, x fastest (the launch order); read-only, made
    once per grid. A grid of more than :data:`TABLE_PROGRAMS` programs gets :class:`Pids`, which makes
    the rows a launch step asks for when it asks.

    Examples
    --------
    >>> pid_table((2, 2, 1)).tolist()
    [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]
    >>> big = pid_table((1 << 16, 1 << 15, 1)); len(big), big[(1 << 16) + 3].tolist(), big[-1].tolist()
    (2147483648, [3, 1, 0], [65535, 32767, 0])
    """
    gx, gy, gz = grid
    if gx * gy * gz > TABLE_PROGRAMS:
        return Pids(grid)
    table = _ids(grid, np.arange(gx * gy * gz, dtype=np.int64))
    table.flags.writeable = False
    return table
