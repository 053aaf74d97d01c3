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

Programs that take a lock run one by one (a step of several programs whose scalar compare-and-swap takes a
lock reruns program by program, :class:`~kernellab.triton.executor.program.Divergence`), so every section
belongs to one program. A compare-and-swap never released by the program that took it (or a block of them,
one per lane) is not a lock and is not recorded.

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


class Section:
    """The critical section a program is in: the lock it holds and what the section has done so far."""

    __slots__ = ("key", "rounds", "bytes", "stored")

    def __init__(self, key: tuple, rounds: int):
        self.key = key  # (array name, element index) of the lock word
        self.rounds = rounds  # the program's rounds when it acquired the lock
        self.bytes = 0  # bytes its loads and stores moved so far
        self.stored = False  # whether it stored anything


def lock_key(prog, flat: np.ndarray, offs: np.ndarray) -> tuple:
    """``(array name, element index)`` of a scalar atomic's address in the running program."""
    return prog.name_of(flat), int(np.asarray(offs).reshape(-1)[0])


def acquired(prog, flat: np.ndarray, offs: np.ndarray) -> None:
    """The program's scalar ``tl.atomic_cas`` swapped: it holds the lock at ``flat[offs]`` (a second lock taken
    while holding one starts a section of its own; the first is then not recorded)."""
    prog.lock = Section(lock_key(prog, flat, offs), prog.rounds)


def moved(prog, kind: str, nbytes: int) -> None:
    """A ``tl.load`` or ``tl.store`` (``kind``) of ``nbytes`` bytes inside the program's critical section."""
    section = prog.lock
    section.bytes += nbytes
    if kind == "store":
        section.stored = True


def released(prog, flat: np.ndarray, offs: np.ndarray) -> None:
    """A scalar ``tl.atomic_xchg`` of the program: when it writes the lock the program holds, the section ends
    and is recorded on the tally (:meth:`~kernellab.triton.executor.counts.Tally.lock_section`)."""
    section = prog.lock
    if section is None or lock_key(prog, flat, offs) != section.key:
        return
    trips = prog.rounds - section.rounds + (1 if section.stored else 0)
    prog.tally.lock_section(section.key, trips, section.bytes)
    prog.lock = None


def active_bytes(view, itemsize: int) -> int:
    """Bytes of the lanes a load or store keeps (``view``: its :class:`~kernellab.triton.executor.view.View`)."""
    offs, mask = view.lanes()
    return int(offs.size if mask is None else np.count_nonzero(mask)) * itemsize
