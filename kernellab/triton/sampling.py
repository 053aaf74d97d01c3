"""Sampled launches, for benchmarks only: run a stratified sample of a launch's programs and scale the counts.

A benchmark sweeping GPU-sized problems (4096³ matmuls, 2^27-element vectors) asks for one number per
launch, the model's predicted time, which depends on the launch's counts alone. Inside
:func:`sampled` a launch of ``P`` programs runs only ``S`` of them (``S`` = ``programs``, default 8),
one in the middle of each of ``S`` equal strata of the launch order, and reports estimated counts:

* every count summed over programs (FLOPs, loads and stores, requests, sectors, lines, bytes, atomics)
  is the sample's total × ``P / S``;
* ``programs`` is ``P``;
* the compulsory DRAM sectors of each array are the sample's distinct sectors × ``P / S``, capped at
  the array's size (programs that share data, as a matmul's tiles share rows of A, would otherwise be
  counted once per sample program).

``tl.dot`` skips its arithmetic (the result is the accumulator, or zeros) while its FLOPs are counted
as usual: a sampled launch's *outputs are not computed*. So :func:`sampled` is for timing only, never
where a result is checked; ``triton.testing.do_bench`` and the autotuner's trials use it, and the
launches outside them run in full.

**Error bound.** The estimate is exact for programs that do equal work (every full tile of a matmul,
every row of a softmax); programs that differ (masked edge tiles, a persistent kernel's last tiles)
move it by at most their share of the sample. On the tutorials' kernels (vector add, persistent
softmax, grouped matmul, layer norm), ``tests/test_triton_sampling.py`` checks the predicted time of a
sampled launch against the full simulation at sizes where both run, within **5 %**, the bound this
module states.

Examples
--------
>>> import numpy as np
>>> import kernellab.triton as triton
>>> import kernellab.triton.language as tl
>>> @triton.jit
... def copy(x_ptr, y_ptr, BLOCK: tl.constexpr):
...     offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
...     tl.store(y_ptr + offs, tl.load(x_ptr + offs))
>>> x = np.ones(1 << 20, np.float32); y = np.zeros_like(x)
>>> with sampled(programs=8):
...     cnt = copy[(1024,)](x, y, BLOCK=1024)
>>> cnt.programs, cnt.load_bytes == x.nbytes, cnt.dram_bytes == 2 * x.nbytes, int(y.sum())  # 8 programs ran
(1024, True, True, 8192)
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import fields, replace

import numpy as np

from ..i18n import _

#: Programs a sampled launch runs, unless :func:`sampled` is given another number.
DEFAULT_PROGRAMS = 8
#: The largest relative error of a sampled launch's predicted time that the tests allow.
ERROR_BOUND = 0.05

_SAMPLE: ContextVar[int | None] = ContextVar("kernellab_triton_sample", default=None)


@contextmanager
def sampled(programs: int = DEFAULT_PROGRAMS, enabled: bool = True):
    """Launches in the block run ``programs`` of their programs and scale their counts (see the module);
    ``enabled=False`` runs them in full (for code that wants one switch)."""
    if enabled and (not isinstance(programs, (int, np.integer)) or programs < 1):
        raise ValueError(_("sampled(programs=...) needs a positive number of programs, not {programs!r}").format(
            programs=programs))
    token = _SAMPLE.set(int(programs) if enabled else None)
    try:
        yield
    finally:
        _SAMPLE.reset(token)


@contextmanager
def full():
    """Launches in the block run every program, even inside :func:`sampled`."""
    token = _SAMPLE.set(None)
    try:
        yield
    finally:
        _SAMPLE.reset(token)


def active() -> bool:
    """Whether launches now are sampled (``tl.dot`` then skips its arithmetic)."""
    return _SAMPLE.get() is not None


def plan(n_programs: int) -> tuple[np.ndarray, float] | None:
    """``(rows of the launch order to run, scale)`` for a launch of ``n_programs``, or None to run them all.

    >>> with sampled(programs=4):
    ...     rows, scale = plan(100)
    >>> rows.tolist(), scale
    ([12, 37, 62, 87], 25.0)
    """
    s = _SAMPLE.get()
    if s is None or n_programs <= s:
        return None
    rows = ((np.arange(s) + 0.5) * n_programs / s).astype(np.int64)
    return rows, n_programs / s


_NOT_SCALED = {"programs", "per_program", "dram_sectors"}


def scale(counts, factor: float, n_programs: int, sizes: dict):
    """The counts of a whole launch, estimated from its sample's ``counts`` (see the module).

    ``sizes`` maps an array's name to its size in sectors, the cap of its compulsory sectors.
    """
    changes = {f.name: int(round(getattr(counts, f.name) * factor)) for f in fields(counts)
               if f.name not in _NOT_SCALED and isinstance(getattr(counts, f.name), (int, np.integer))}
    dram = {name: min(int(round(n * factor)), int(sizes.get(name, n * factor)))
            for name, n in counts.dram_sectors.items()}
    return replace(counts, programs=n_programs, dram_sectors=dram, **changes)


__all__ = ["DEFAULT_PROGRAMS", "ERROR_BOUND", "active", "full", "plan", "sampled", "scale"]
