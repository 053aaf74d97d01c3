"""Spin locks a program takes: who acquired each lock, and what each critical section did.

Tutorial 05's backward pass guards each group's partial sums with a lock word::

    while tl.atomic_cas(Lock, 0, 1) == 1:   # acquire: spin until the word goes 0 → 1
        pass
    ...                                      # the critical section: loads and stores of the partial sums
    tl.atomic_xchg(Lock, 0)                  # release: the same address back to 0

The engine sees a **lock** where a program's scalar ``tl.atomic_cas`` swaps (the program acquires the word at
that address) and the same program later writes that address with a scalar ``tl.atomic_xchg`` (it releases it).
What the program does in between is its **critical section**; for each one the engine records

* its **round trips**: the times the program waited for data it loaded inside the section (the rounds of
  :mod:`kernellab.triton.executor.rounds`), plus one when the section stored anything, because the release is
  ordered after the section's stores (Triton's atomics default to ``sem="acq_rel"``; a release makes the
  program's earlier writes visible before the atomic, so its fence waits until L2 has acknowledged them);
* its **bytes**: the active lanes × element size of each ``tl.load`` and ``tl.store`` inside it.

``counts.launch["locks"]`` then maps each lock, ``(array name, element index)``, to ``(acquisitions, round
trips, bytes)`` summed over its sections; :mod:`kernellab.model.locks` prices the chain of each lock.

A vectorised step of several programs records a section for each of its programs: their lock words differ
(programs of a step that take the same word run in steps whose words differ,
:class:`~kernellab.triton.executor.program.SplitLocks`), they wait as often (they follow one path), and each
moves its own bytes. A compare-and-swap whose answer the program does not read, one never released by the
program that took it, or a block of them (one per lane) is not a lock and is not recorded.

Examples
--------
>>> import numpy as np
>>> import kernellab.triton as triton
>>> import kernellab.triton.language as tl
>>> @triton.jit
... def locked_add(Lock, Buf, BLOCK: tl.constexpr):
...     offs = tl.arange(0, BLOCK)
...     while tl.atomic_cas(Lock, 0, 1) == 1:
...         pass
...     tl.store(Buf + offs, tl.load(Buf + offs) + 1.0)      # one round trip, then a store: 2 round trips
...     tl.atomic_xchg(Lock, 0)
>>> lock, buf = np.zeros(1, np.int32), np.zeros(64, np.float32)
>>> c = locked_add[(3,)](lock, buf, BLOCK=64)
>>> c.launch["locks"], buf[:2].tolist()        # 3 sections × (2 round trips, 64 × 4 B loaded + stored)
({('Lock', 0): (3, 6, 1536)}, [3.0, 3.0])
"""

from __future__ import annotations

import numpy as np

from .program import Divergence


class Section:
    """The critical sections the programs of a step are in: the lock each holds and what they did so far."""

    __slots__ = ("keys", "rounds", "bytes", "stored")

    def __init__(self, keys: list, rounds: int):
        self.keys = keys  # per program of the step: (array name, element index) of its lock word
        self.rounds = rounds  # the step's rounds when its programs acquired their locks
        self.bytes = np.zeros(len(keys), np.int64)  # bytes each program's loads and stores moved so far
        self.stored = False  # whether the sections stored anything


def lock_keys(prog, flat: np.ndarray, offs) -> list:
    """``(array name, element index)`` of a scalar atomic's address, for each program of the running step."""
    name = prog.name_of(flat)
    return [(name, int(i)) for i in np.broadcast_to(np.asarray(offs).reshape(-1), (prog.P,))]


def acquired(prog, flat: np.ndarray, offs) -> None:
    """The step's programs' scalar ``tl.atomic_cas`` swapped: each holds the lock at its ``flat[offs]`` (a second
    lock taken while holding one starts sections of their own; the first are then not recorded)."""
    prog.lock = Section(lock_keys(prog, flat, offs), prog.rounds)


def moved(prog, kind: str, nbytes: np.ndarray) -> None:
    """A ``tl.load`` or ``tl.store`` (``kind``) inside the critical sections, ``nbytes`` bytes for each program."""
    section = prog.lock
    section.bytes += nbytes
    if kind == "store":
        section.stored = True


def released(prog, flat: np.ndarray, offs) -> None:
    """A scalar ``tl.atomic_xchg`` of the step's programs: where it writes the locks they hold, their sections end
    and are recorded on the tally (:meth:`~kernellab.triton.executor.counts.Tally.lock_section`); where only some
    programs of the step release, the step reruns program by program. Called only while the step holds locks
    (``prog.lock`` set: ``tl.atomic_xchg`` checks it)."""
    section = prog.lock
    keys = lock_keys(prog, flat, offs)
    if keys != section.keys:
        if any(k == held for k, held in zip(keys, section.keys)):
            raise Divergence
        return
    trips = prog.rounds - section.rounds + (1 if section.stored else 0)
    for key, nbytes in zip(keys, section.bytes.tolist()):
        prog.tally.lock_section(key, trips, nbytes)
    prog.lock = None


def active_bytes(view, itemsize: int, programs: int) -> np.ndarray:
    """Bytes of the lanes a load or store keeps (``view``: its :class:`~kernellab.triton.executor.view.View`), for
    each of the step's ``programs`` programs: its kept lanes counted from the view's ``keep`` (every lane, a prefix
    per program, or a bool block), its offsets never built; :func:`active_bytes_of_lanes` is the reference.

    >>> from kernellab.triton.executor.view import Base, View
    >>> v = View(Base.consecutive(0, (8,)), np.array([0, 8, 16]), np.array([8, 5, 0]))  # offs < 21, BLOCK 8
    >>> active_bytes(v, 4, 3).tolist()        # 8, 5 and 0 lanes × 4 B
    [32, 20, 0]
    """
    rows, n, k = view.rows, view.numel, view.keep
    if k is None:
        kept = np.full(rows, n, np.int64)
    elif k.dtype == bool:
        if k.ndim != len(view.shape) + 1 or k.shape[0] not in (1, rows):
            return active_bytes_of_lanes(view, itemsize, programs)
        # broadcasting repeats each of a row's lanes alike: its kept lanes × the repeats
        kept = np.count_nonzero(k.reshape(k.shape[0], -1), axis=1).astype(np.int64) * (n // max(k[0].size, 1))
    else:  # each program keeps its first keep[p] lanes (the reference's lane < keep[p])
        kept = np.clip(np.asarray(k, np.int64).reshape(-1), 0, n)
    if kept.shape[0] != rows:
        kept = np.broadcast_to(kept, (rows,))
    return np.broadcast_to(kept * itemsize, (programs,)) if rows == 1 else kept * itemsize


def active_bytes_of_lanes(view, itemsize: int, programs: int) -> np.ndarray:
    """:func:`active_bytes` from the view's every offset and mask (:meth:`~kernellab.triton.executor.view.View.lanes`):
    the reference."""
    offs, mask = view.lanes()
    rows = offs.shape[0]
    if mask is None:
        n = np.full(rows, offs[0].size if rows else 0, np.int64)
    else:
        n = np.count_nonzero(np.broadcast_to(mask, offs.shape).reshape(rows, -1), axis=1)
    return np.broadcast_to(n * itemsize, (programs,)) if rows == 1 else n * itemsize
