"""The launches a piece of host code makes: what ``do_bench``, the autotuner and proton's scopes time.

``triton.testing.do_bench``, the autotuner and proton's scopes all ask which kernellab launches ran while
some code ran (:mod:`kernellab.triton.timing` then prices them with the model). Every launch (both front
ends) reports itself to the recorders that are open in its thread or task (:func:`recording`, a
:class:`contextvars.ContextVar`, so nested and concurrent recordings each see their own launches).
The profiler's recording of launches, per source line, is :mod:`kernellab.record`.

Examples
--------
>>> import numpy as np
>>> import kernellab.triton as triton
>>> import kernellab.triton.language as tl
>>> @triton.jit
... def fill(out_ptr, BLOCK: tl.constexpr):
...     tl.store(out_ptr + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK), 1.0)
>>> out = np.zeros(4096, np.float32)
>>> with recording() as launches:
...     _ = fill[(4,)](out, BLOCK=1024)
>>> [(l.kernel, l.grid, l.counts.store_bytes, l.sampled) for l in launches]
[('fill', (4, 1, 1), 16384, False)]
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

_RECORDERS: ContextVar[tuple] = ContextVar("kernellab_triton_recorders", default=())
# While a launch of a kernel with ``@triton.jit(launch_metadata=...)`` runs: a callable giving that dict.
_METADATA: ContextVar = ContextVar("kernellab_triton_launch_metadata", default=None)


@dataclass(frozen=True)
class Launch:
    """One launch: the kernel's name, its grid, its counts, and whether they were estimated from a sample
    of its programs (:mod:`kernellab.triton.executor.sampling`)."""

    kernel: str
    grid: tuple
    counts: object
    sampled: bool = False
    #: the launch's name in a profile, ``launch_metadata``'s ``"name"`` or else the kernel's
    name: str = ""
    #: the other entries of ``launch_metadata`` (``flops16``, ``bytes``, ...), as Triton passes them to proton
    metrics: dict = field(default_factory=dict)


@contextmanager
def recording():
    """Collect, in a list, every launch made in this thread or task while the block runs."""
    launches: list[Launch] = []
    token = _RECORDERS.set(_RECORDERS.get() + (launches,))
    try:
        yield launches
    finally:
        _RECORDERS.reset(token)


@contextmanager
def hidden():
    """Launches in the block are reported to no recorder (the autotuner's trials: Triton's ``do_bench``
    times the tuned launch, not the tuning)."""
    token = _RECORDERS.set(())
    try:
        yield
    finally:
        _RECORDERS.reset(token)


def note(kernel: str, grid, counts, sampled: bool = False) -> None:
    """Tell every open recorder about a launch (called by the engine at the end of each launch)."""
    recorders = _RECORDERS.get()
    if recorders:
        make = _METADATA.get()
        meta = dict(make() or {}) if make is not None else {}
        launch = Launch(kernel, tuple(grid), counts, sampled, str(meta.pop("name", kernel)), meta)
        for r in recorders:
            r.append(launch)


@contextmanager
def metadata(make):
    """While the block (one launch) runs, ``make()`` gives the launch's ``launch_metadata`` dict; it is asked
    for only when a recorder listens, as Triton calls the hook only while proton profiles.

    >>> import numpy as np
    >>> import kernellab.triton as triton
    >>> import kernellab.triton.language as tl
    >>> out = np.zeros(1, np.float32)
    >>> @triton.jit(launch_metadata=lambda grid, kernel, args: {"name": f"{kernel.name} n={args['n']}", "flops32": 1})
    ... def one(out_ptr, n):
    ...     tl.store(out_ptr, 1.0)
    >>> with recording() as launches:
    ...     _ = one[(1,)](out, 7)
    >>> launches[0].name, launches[0].metrics, launches[0].kernel
    ('one n=7', {'flops32': 1}, 'one')
    """
    token = _METADATA.set(make)
    try:
        yield
    finally:
        _METADATA.reset(token)


__all__ = ["Launch", "hidden", "metadata", "note", "recording"]
