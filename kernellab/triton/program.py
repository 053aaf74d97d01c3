"""The running program instance(s): ids, grid, kernel name, tally and undo journal of one launch step.

``tl.program_id(0)`` is a module-level function in real Triton syntax, so it must find the program it
runs in without being passed it. The launcher sets a :class:`contextvars.ContextVar` for the duration
of each step and resets it afterwards; nothing else in kernellab keeps launch state at module level,
and nested or concurrent launches (threads, asyncio tasks) each see their own program.

A step runs either one program or, when the kernel allows, a batch of programs at once: every value
then carries a leading axis over the batch (see :mod:`kernellab.triton.tensor`).
"""

from __future__ import annotations

from contextvars import ContextVar

import numpy as np

from ..errors import fmt_dim3
from ..i18n import _
from .counts import Tally, Touched


class Divergence(Exception):
    """Raised when programs of a batch would take different Python paths; the batch reruns one by one."""


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
    tally : kernellab.triton.counts.Tally
        where memory accesses and dot FLOPs are counted.
    names : dict
        ``address of an array's data → parameter name``, for error messages.
    journal : dict or None
        when not None, a copy of every array before this step first stores to it, so that a batch
        that cannot run vectorised is undone and rerun program by program.
    touched : kernellab.triton.counts.Touched or None
        the launch's record of distinct sectors touched (compulsory DRAM traffic), shared by its steps.
    """

    __slots__ = ("kernel", "grid", "pids", "P", "tally", "names", "journal", "_pid_cols", "failed_cas", "touched")

    def __init__(self, kernel: str, grid, pids: np.ndarray, tally: Tally, names: dict, journal=None,
                 touched: Touched | None = None):
        self.kernel = kernel
        self.grid = tuple(grid)
        self.pids = pids
        self.P = len(pids)
        self.tally = tally
        self.names = names
        self.journal = journal
        self.touched = touched
        self.failed_cas = 0  # consecutive tl.atomic_cas calls that changed nothing (a spinning lock)
        self._pid_cols = [np.ascontiguousarray(pids[:, a]) for a in range(3)]

    def program_id(self, axis: int) -> np.ndarray:
        """int32 ``(P,)``: each program's id along ``axis``."""
        if axis not in (0, 1, 2):
            raise ValueError(_("program_id axis must be 0, 1 or 2, not {axis!r}").format(axis=axis))
        return self._pid_cols[axis]

    def where(self, row: int) -> str:
        """``kernel name, program (x,y,z)`` of the program on ``row`` of the batch."""
        return _("kernel {kernel}, program {program}").format(kernel=self.kernel, program=fmt_dim3(self.pids[row]))

    def name_of(self, flat: np.ndarray) -> str:
        """The parameter name of an array, or ``array`` when it was not a launch argument."""
        return self.names.get(flat.__array_interface__["data"][0], "array")

    def before_store(self, flat: np.ndarray):
        """Keep a copy of ``flat`` the first time this step stores to it (when journaling)."""
        if self.journal is not None and id(flat) not in self.journal:
            self.journal[id(flat)] = (flat, flat.copy())

    def touch(self, flat: np.ndarray, offs: np.ndarray, mask=None, starts=None):
        """Record the sectors an access touches, for the launch's ``dram_sectors`` (see
        :class:`~kernellab.triton.counts.Touched`; ``starts``: each row's first offset when consecutive)."""
        if self.touched is not None:
            self.touched.mark(self.name_of(flat), flat, offs, mask, starts)

    def undo(self):
        """Restore every array this step stored to."""
        for flat, saved in (self.journal or {}).values():
            np.copyto(flat, saved)


_CURRENT: ContextVar[Program | None] = ContextVar("kernellab_triton_program", default=None)


def current() -> Program:
    """The program running now in this thread or task; RuntimeError outside a launch."""
    prog = _CURRENT.get()
    if prog is None:
        raise RuntimeError(
            _("no Triton program is running: call triton.language functions inside a @triton.jit kernel launched as kernel[grid](...)")
        )
    return prog


def pid_table(grid) -> np.ndarray:
    """int32 ``(X·Y·Z, 3)``: every program id of a grid, x fastest (the launch order).

    Examples
    --------
    >>> pid_table((2, 2, 1)).tolist()
    [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]
    """
    gx, gy, gz = grid
    lin = np.arange(gx * gy * gz, dtype=np.int64)
    return np.stack([lin % gx, (lin // gx) % gy, lin // (gx * gy)], axis=1).astype(np.int32)
