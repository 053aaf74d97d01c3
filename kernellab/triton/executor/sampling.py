"""Sampled launches, for benchmarks only: run a stratified sample of a launch's programs and scale the counts.

A benchmark sweeping GPU-sized problems (4096³ matmuls, 2^27-element vectors) asks for one number per
launch, the model's predicted time, which depends on the launch's counts alone. Inside
:func:`sampled` a launch of ``P`` programs runs only ``S`` of them (``S`` = ``programs``, default 8),
spread evenly over every axis of the grid (:func:`plan`), and reports estimated counts:

* every count summed over programs (FLOPs, loads and stores, requests, sectors, lines, bytes, atomics)
  is the sample's total × ``P / S``;
* ``programs`` is ``P``;
* the compulsory DRAM sectors of each array are the sample's distinct sectors × ``P / S``, capped at
  the array's size (programs that share data, as a matmul's tiles share rows of A, would otherwise be
  counted once per sample program).

A launch whose sampled program takes a spin lock (:mod:`kernellab.triton.executor.locks`) stops there, its
compare-and-swap undone (:class:`Locked`), and runs again with every program: the model charges each lock's
chain of critical sections, and how many programs share one lock no sample can tell (tutorial 05's backward
pass has 128 locks; the 8 programs a sample of its 4096 takes all take lock 0).

A sampled launch's *outputs are not computed*, and say so: the first store of a sampled launch to a
floating-point array fills the whole array with NaN, so every element no simulated program stored
stays NaN, and ``tl.dot`` skips its arithmetic (its FLOPs are counted as usual) and returns NaN
(zeros for integers); what is computed from either (an atomic add into a filled array, an
accumulator) is NaN too. A check on what a sampled launch wrote therefore fails loudly instead of
passing by chance. A launch of no more programs than the sample runs every program and computes
everything. So :func:`sampled` is for timing only, never where a result is checked:
``triton.testing.do_bench``, the autotuner's trials and every call of a benchmark function inside
``Mark.run`` (:mod:`kernellab.triton.benchmark`) use it, and the launches outside them run in full.
Integer arrays are not filled (no NaN exists for them), nor are arrays of 8-bit floats and bfloat16,
which numpy holds as integers. The autotuner's trials ask for no filling (``sampled(fill=False)``): as
Triton's trials do, they leave what their programs did not store as it was, and the chosen launch that
follows them writes the results.

**Error bound.** The estimate is exact for programs that do equal work (every full tile of a matmul,
every row of a softmax); programs that differ (masked edge tiles, a persistent kernel's last tiles)
move it by at most their share of the sample. On the tutorials' kernels (vector add, persistent
softmax, grouped matmul, layer norm), ``tests/test_triton_sampling.py`` checks the predicted time of a
sampled launch against the full simulation at sizes where both run, within **5 %**, the bound this
module states for them. It does not hold for every grid: where a few programs do much less work than
the rest and the sample happens to hold one of them, the estimate is off by up to that program's
weight, ``P / S`` programs' worth. A masked 1000×900×600 fp16 matmul in 64×64 tiles (240 programs, the
last column of tiles 4 columns wide) comes out 16 % low on its L1 lines, and so on its predicted time,
which L1 binds; ``tests/test_triton_testing.py`` holds that case as a strict expected failure.

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
>>> cnt.programs, cnt.load_bytes == x.nbytes, cnt.dram_bytes == 2 * x.nbytes
(1024, True, True)
>>> int(np.isfinite(y).sum()), int(np.nansum(y))    # 8 programs of 1024 stored their ones; the rest is NaN
(8192, 8192)
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import fields, replace

import numpy as np

from ...i18n import _

#: Programs a sampled launch runs, unless :func:`sampled` is given another number.
DEFAULT_PROGRAMS = 8
#: The largest relative error of a sampled launch's predicted time that the tests allow.
ERROR_BOUND = 0.05

_SAMPLE: ContextVar[int | None] = ContextVar("kernellab_triton_sample", default=None)
# The launch running now, when it is sampled: the addresses of the arrays it has filled with NaN.
_LAUNCH: ContextVar[set | None] = ContextVar("kernellab_triton_sampled_launch", default=None)
# Whether the sampled launches of a block fill an array with NaN before they first store to it (see sampled()).
_FILL: ContextVar[bool] = ContextVar("kernellab_triton_fill", default=True)


@contextmanager
def sampled(programs: int = DEFAULT_PROGRAMS, enabled: bool = True, fill: bool = True):
    """Launches in the block run ``programs`` of their programs and scale their counts (see the module);
    ``enabled=False`` runs them in full (for code that wants one switch).

    ``fill=False``: a sampled launch does not fill the arrays it stores to with NaN first, so every
    element no sampled program stores keeps its value (the autotuner's trials, as Triton's leave them).

    >>> import kernellab.triton as triton
    >>> import kernellab.triton.language as tl
    >>> @triton.jit
    ... def twice(x_ptr, y_ptr, BLOCK: tl.constexpr):
    ...     offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ...     tl.store(y_ptr + offs, tl.load(x_ptr + offs) * 2)
    >>> x = np.ones(64 * 16, np.float32); y = np.zeros_like(x)
    >>> with sampled(programs=2):
    ...     _ = twice[(64,)](x, y, BLOCK=16)
    >>> int(np.isnan(y).sum()), float(np.nansum(y))   # 62 programs of 16 not simulated: NaN
    (992, 64.0)
    >>> y = np.zeros_like(x)
    >>> with sampled(programs=2, fill=False):
    ...     _ = twice[(64,)](x, y, BLOCK=16)
    >>> int(np.isnan(y).sum()), float(y.sum())         # 2 programs of 16 stored 2s; the rest kept its 0s
    (0, 64.0)
    """
    if enabled and (not isinstance(programs, (int, np.integer)) or programs < 1):
        raise ValueError(_("sampled(programs=...) needs a positive number of programs, not {programs!r}").format(
            programs=programs))
    token = _SAMPLE.set(int(programs) if enabled else None)
    filling = _FILL.set(bool(fill))
    try:
        yield
    finally:
        _FILL.reset(filling)
        _SAMPLE.reset(token)
        _LAUNCH.set(None)  # the last launch planned in the block has ended


@contextmanager
def full():
    """Launches in the block run every program, even inside :func:`sampled`."""
    token = _SAMPLE.set(None)
    try:
        yield
    finally:
        _SAMPLE.reset(token)
        _LAUNCH.set(None)


class Locked(Exception):
    """Raised when a program of a sampled launch takes a spin lock: the launch runs again, in full (see the module)."""


def active() -> bool:
    """Whether the launch running now is sampled: it runs part of its programs (``tl.dot`` then skips its
    arithmetic, and its stores fill their arrays with NaN first). A launch that runs every program is not,
    even inside :func:`sampled`."""
    return _LAUNCH.get() is not None


def before_store(flat: np.ndarray, address: int):
    """Called before a program of a launch first changes ``flat`` (whose data is at ``address``): in a sampled
    launch, the first time, a floating-point array is filled with NaN (see the module), unless the block
    asked for no filling (``sampled(fill=False)``).

    >>> y = np.zeros(4, np.float32)
    >>> before_store(y, 1); y                      # no sampled launch is running: nothing changes
    array([0., 0., 0., 0.], dtype=float32)
    """
    filled = _LAUNCH.get()
    if filled is None or address in filled:
        return
    filled.add(address)
    if flat.dtype.kind == "f" and _FILL.get():
        flat[...] = np.nan


def plan(grid, enabled: bool = True) -> tuple[np.ndarray, float] | None:
    """``(rows of the launch order to run, scale)`` for a launch on ``grid`` (x, y, z), or None to run them all.

    Called once as each launch starts (``enabled=False``: a launch that must run every program, such as one
    asked for its per-program counts); it also says whether the launch is :func:`active`.

    The sample is a Latin hypercube over the grid's axes: sample ``i`` takes the middle of stratum ``i``
    along x, of stratum ``3i mod S`` along y and ``5i mod S`` along z, so that every axis is spread
    evenly (a causal attention kernel's work grows with its x program id; a sample taken every ``P/S``
    programs of the launch order would see one x only). A stratum of an even number of ids has two
    middles: even strata take the lower, odd strata the upper, so that work growing linearly with the
    id is estimated without bias (always the upper would overestimate it by half an id, 6 % on a
    causal attention of 16 blocks). Repeated picks on small axes are dropped.

    >>> with sampled(programs=4):
    ...     rows, scale = plan((100, 1, 1))
    >>> rows.tolist(), scale
    ([12, 37, 62, 87], 25.0)
    >>> with sampled(programs=4):
    ...     rows, scale = plan((8, 4, 1))          # x = 0, 3, 4, 7 on rows y = 0, 3, 2, 1: x + 8·y
    >>> rows.tolist(), scale
    ([0, 15, 20, 27], 8.0)
    """
    s = _SAMPLE.get() if enabled else None
    if s is None:  # not sampling (the usual launch): run them all
        _LAUNCH.set(None)
        return None
    gx, gy, gz = (tuple(int(v) for v in grid) + (1, 1))[:3]
    n_programs = gx * gy * gz
    if n_programs <= s:
        _LAUNCH.set(None)
        return None
    _LAUNCH.set(set())
    i = np.arange(s)
    x, y, z = _middle(i, gx, s), _middle(3 * i % s, gy, s), _middle(5 * i % s, gz, s)
    rows = np.unique(x + gx * (y + gy * z))
    return rows, n_programs / len(rows)


def _middle(j: np.ndarray, n: int, s: int) -> np.ndarray:
    """The id nearest the middle of stratum ``j`` of ``s`` over ``0 .. n-1``; of two, the lower for even ``j``."""
    k = (j + 0.5) * n / s - 0.5  # the middle, in ids (id k spans [k, k + 1))
    return np.clip(np.where(j % 2 == 0, np.ceil(k - 0.5), np.floor(k + 0.5)), 0, n - 1).astype(np.int64)


_NOT_SCALED = {"programs", "per_program", "dram_sectors"}


def scale(counts, factor: float, n_programs: int, sizes: dict):
    """The counts of a whole launch, estimated from its sample's ``counts`` (see the module).

    ``sizes`` maps an array's name to its size in sectors, the cap of its compulsory sectors.
    """
    changes = {f.name: int(round(getattr(counts, f.name) * factor)) for f in fields(counts)
               if f.name not in _NOT_SCALED and isinstance(getattr(counts, f.name), (int, np.integer))}
    dram = {name: min(int(round(n * factor)), int(sizes.get(name, n * factor)))
            for name, n in counts.dram_sectors.items()}
    out = replace(counts, programs=n_programs, dram_sectors=dram, **changes)
    if counts.by_line is not None:  # lines=True: the rows scaled so that they still add up to the totals
        out = replace(out, by_line=_scaled_rows(counts.by_line, factor, changes, dram))
    return out


def _shares(values: list, factor: float, total: int) -> list:
    """``values`` scaled by ``factor`` and rounded so that they sum to ``total`` (largest remainders first).

    >>> _shares([1, 1, 1], 2.5, 8)   # 2.5 each: the 0.5 remainders go to the first two, 3 + 3 + 2 = 8
    [3, 3, 2]
    >>> _shares([0, 4], 3.3, 13)     # a row that recorded nothing stays at 0
    [0, 13]
    """
    exact = [v * factor for v in values]
    out = [int(np.floor(x)) for x in exact]
    order = sorted((i for i, v in enumerate(values) if v), key=lambda i: out[i] - exact[i])
    short = total - sum(out)
    for k in range(abs(short)):  # one sector (count) at a time to the rows nearest the next integer
        out[order[k % len(order)]] += 1 if short > 0 else -1
    return out


def _scaled_rows(by_line, factor: float, changes: dict, dram: dict):
    """A copy of ``by_line`` whose rows sum to the scaled launch: each field's rows scaled by ``factor`` and
    rounded to the launch's scaled total; each array's DRAM sectors likewise to its capped total."""
    keys = list(by_line)
    rows = [by_line[k] for k in keys]
    columns = {name: _shares([getattr(r, name) for r in rows], factor, total) for name, total in changes.items()}
    sectors = {name: _shares([r.dram_sectors.get(name, 0) for r in rows], factor, total)
               for name, total in dram.items()}
    return by_line.replaced({k: replace(r, **{name: col[i] for name, col in columns.items()},
                                        dram_sectors={name: col[i] for name, col in sectors.items() if col[i]})
                             for i, (k, r) in enumerate(zip(keys, rows))})


__all__ = ["DEFAULT_PROGRAMS", "ERROR_BOUND", "active", "before_store", "full", "plan", "sampled", "scale"]
