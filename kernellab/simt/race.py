"""Shared-memory hazard detection between barriers, as compute-sanitizer's racecheck does.

Since the last ``syncthreads`` each shared element remembers the thread that last wrote it and up
to two threads that read it. A read of an element another thread wrote (read-after-write), a write
of an element another thread read (write-after-read) or wrote (write-after-write) is a hazard: with
no barrier between them, the order of the two accesses is undefined.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..i18n import _

NOBODY = -1  # no thread has accessed the element since the last barrier


def hazard_label(kind: str) -> str:
    """A hazard kind (``Hazard.kind``, the word in a ``RaceError`` message) in the reader's language.

    Examples
    --------
    >>> hazard_label("read-after-write")
    'read-after-write'
    """
    labels = {"read-after-write": _("read-after-write"), "write-after-read": _("write-after-read"),
              "write-after-write": _("write-after-write")}
    if kind not in labels:
        raise ValueError(_("unknown hazard kind {kind!r}; expected one of {labels}").format(
            kind=kind, labels=list(labels)))
    return labels[kind]


@dataclass(frozen=True)
class Hazard:
    """One hazard: its kind, the element (flat index over blocks × elements) and the two threads (lanes)."""

    kind: str  # "read-after-write", "write-after-read" or "write-after-write"
    element: int  # block × size + element index
    thread: int  # lane of the thread whose access completes the hazard
    other: int  # lane of the thread that accessed the element earlier (or in the same instruction)


class HazardTracker:
    """Who wrote and who read each element of one shared array since the last barrier.

    Reads are recorded lazily: a read needs only the writers to find its hazard, and the readers
    matter only to a later write. So reads wait in a queue and are applied, in order, when a write
    comes; a barrier drops them unapplied. The state a write sees is the same as if every read had
    been applied at once (an optimisation: most kernels read tiles and then reach a barrier).

    Examples
    --------
    >>> t = HazardTracker(4)
    >>> t.write(np.array([0, 1]), np.array([10, 11])) is None      # two threads, two elements
    True
    >>> t.read(np.array([1]), np.array([10])).kind                # thread 10 reads what 11 wrote
    'read-after-write'
    >>> t.barrier(); t.read(np.array([1]), np.array([10])) is None
    True
    """

    def __init__(self, n_elements: int):
        self.writer = np.full(n_elements, NOBODY, np.int64)
        self.reader1 = np.full(n_elements, NOBODY, np.int64)
        self.reader2 = np.full(n_elements, NOBODY, np.int64)  # a second reader, different from reader1
        self._pending: list = []  # reads not yet applied: (elements, threads) pairs or functions giving one
        self._written = False  # any write since the last barrier (else no read can find a hazard)
        self._read = False  # any read applied since the last barrier

    def barrier(self) -> None:
        """Forget every access: the barrier orders everything before it before everything after it."""
        if self._written:
            self.writer.fill(NOBODY)
        if self._read:
            self.reader1.fill(NOBODY)
            self.reader2.fill(NOBODY)
        self._pending.clear()
        self._written = self._read = False

    def read(self, elements, threads=None) -> Hazard | None:
        """Record reads (one per pair); return the first read-after-write hazard, if any.

        ``elements`` and ``threads`` are equal-length vectors, or ``elements`` is a function that
        returns the pair (called only when the pair is needed).
        """
        pair = elements if threads is None else (elements, threads)
        hazard = None
        if self._written:
            if callable(pair):
                pair = pair()
            elements, threads = pair
            w = self.writer[elements]
            hazard = _first("read-after-write", (w != NOBODY) & (w != threads), elements, threads, w)
        self._pending.append(pair)
        return hazard

    def _apply_reads(self) -> None:
        for pair in self._pending:
            elements, threads = pair() if callable(pair) else pair
            if not self._read:  # the first read since the barrier: every reader is NOBODY, every element fresh
                self.reader1[elements] = threads
                r1 = self.reader1[elements]
                second = r1 != threads  # an element another lane of this read holds; reader2 is NOBODY
            else:
                r1 = self.reader1[elements]
                fresh = r1 == NOBODY
                if fresh.any():
                    self.reader1[elements[fresh]] = threads[fresh]
                    r1 = self.reader1[elements]
                second = (r1 != threads) & (self.reader2[elements] == NOBODY)
            self.reader2[elements[second]] = threads[second]
            self._read = True
        self._pending.clear()

    def write(self, elements: np.ndarray, threads: np.ndarray) -> Hazard | None:
        """Record writes; return the first write-after-read or write-after-write hazard, if any."""
        self._apply_reads()
        hazard = None
        # no read applied since the barrier: every reader is NOBODY; no write: every writer (the first write after a
        # barrier, the commonest, looks at neither: an optimisation, tests/test_simt_race.py)
        if self._read:
            r1, r2 = self.reader1[elements], self.reader2[elements]
            other_reader = np.where((r1 != NOBODY) & (r1 != threads), r1, np.where(r1 == threads, r2, NOBODY))
            hazard = _first("write-after-read", other_reader != NOBODY, elements, threads, other_reader)
        if hazard is None and self._written:
            w = self.writer[elements]
            hazard = _first("write-after-write", (w != NOBODY) & (w != threads), elements, threads, w)
        self.writer[elements] = threads
        self._written = True
        if hazard is None:  # two threads writing one element in the same instruction
            winner = self.writer[elements]
            hazard = _first("write-after-write", winner != threads, elements, threads, winner)
        return hazard


def _first(kind: str, bad: np.ndarray, elements, threads, others) -> Hazard | None:
    if not bad.any():
        return None
    i = int(np.argmax(bad))
    return Hazard(kind, int(elements[i]), int(threads[i]), int(others[i]))
