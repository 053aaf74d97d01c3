"""Recording launches: what ``python -m kernellab profile`` gathers while a script runs.

Inside ``with recording() as launches:`` every kernellab launch (SIMT ``launch``, ``triton_launch``,
``kernel[grid](...)``) appends a :class:`Launch` to ``launches`` once it returns, counted per source
line when ``recording(lines=True)``. The recorder is a :class:`contextvars.ContextVar`, set for the
block only, so nested or concurrent code sees its own; outside a recording a launch runs as always.

Examples
--------
>>> import numpy as np, kernellab as kl
>>> def copy(blk, x, y):
...     blk.store(y, blk.tx, blk.load(x, blk.tx))
>>> x = np.ones(32, np.float32)
>>> with recording(lines=True) as launches:
...     _ = kl.launch(copy, 1, 32, args=(x, np.empty_like(x)))
>>> [(r.name, r.engine, r.counts.gld_instr, len(r.counts.by_line)) for r in launches]
[('copy', 'simt', 1, 1)]
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True)
class Launch:
    """One recorded launch."""

    name: str  # the kernel's name
    engine: str  # "simt" or "triton"
    counts: object  # its Counts or TritonCounts
    grid: tuple = ()  # gridDim (x, y, z)
    block: tuple = ()  # blockDim (x, y, z) of a SIMT launch; () for mini-Triton


class _Recorder:
    __slots__ = ("launches", "lines")

    def __init__(self, lines: bool):
        self.launches: list[Launch] = []
        self.lines = lines


_RECORDER: ContextVar[_Recorder | None] = ContextVar("kernellab_recorder", default=None)


@contextmanager
def recording(lines: bool = False):
    """Record every launch made inside the block into the list it yields (see the module's example)."""
    rec = _Recorder(lines)
    token = _RECORDER.set(rec)
    try:
        yield rec.launches
    finally:
        _RECORDER.reset(token)


@contextmanager
def hidden():
    """Launches in the block are recorded nowhere (a compiled kernel's trial of one program,
    :meth:`kernellab.triton.runtime.jit.JITFunction.warmup`)."""
    token = _RECORDER.set(None)
    try:
        yield
    finally:
        _RECORDER.reset(token)


def wants_lines(lines: bool) -> bool:
    """Whether a launch asked for ``lines`` counts per line: it did, or a recording asks for them."""
    if lines:
        return True
    rec = _RECORDER.get()
    return rec is not None and rec.lines


def active() -> bool:
    """Whether a :func:`recording` is open here (a cache that would skip a launch must not, then).

    >>> active()
    False
    >>> with recording():
    ...     active()
    True
    """
    return _RECORDER.get() is not None


def launched(name: str, engine: str, counts, grid=(), block=()):
    """Tell the recording, if any, that a launch returned ``counts``; returns ``counts``."""
    rec = _RECORDER.get()
    if rec is not None:
        rec.launches.append(Launch(name, engine, counts, tuple(grid), tuple(block)))
    return counts
