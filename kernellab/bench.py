"""Benchmarking done right, on the CPU: warm up, repeat, synchronise, report the median and the spread.

``do_bench`` follows ``triton.testing.do_bench`` for Python and numpy code: untimed warm-up calls
first (a first call pays for compilation, caches and allocation), then many timed calls, each read on
``time.perf_counter`` after an optional ``sync`` (the analogue of ``torch.cuda.synchronize()``: work
that runs asynchronously must have finished before the clock is read). The result is a frozen
:class:`Timing` of the median, the 20th and 80th percentiles, the extremes and every sample.

Two differences from Triton's: ``warmup`` and ``repeat`` count calls rather than milliseconds, and
times are in seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kernellab.i18n import _


@dataclass(frozen=True)
class Timing:
    """Timed calls of one function: the median and the spread, all in seconds.

    Examples
    --------
    >>> t = Timing.from_samples([0.3, 0.1, 0.2], warmup=1)
    >>> t.median, t.min, t.max, t.n, t.warmup
    (0.2, 0.1, 0.3, 3, 1)
    """

    median: float  # s, median of the timed calls
    p20: float  # s, 20th percentile (linear interpolation, as torch.quantile)
    p80: float  # s, 80th percentile
    min: float  # s, fastest timed call
    max: float  # s, slowest timed call
    n: int  # timed calls
    warmup: int  # untimed calls made before them
    samples: tuple[float, ...] = field(default=(), repr=False)  # s, every timed call, in order

    @classmethod
    def from_samples(cls, samples: Sequence[float], warmup: int = 0) -> Timing:
        """Summarise per-call durations (seconds)."""
        a = np.asarray(samples, dtype=float)
        if a.size == 0:
            raise ValueError(_("a Timing needs at least one sample"))
        p20, median, p80 = (float(v) for v in np.quantile(a, [0.2, 0.5, 0.8]))
        return cls(median=median, p20=p20, p80=p80, min=float(a.min()), max=float(a.max()), n=int(a.size),
                   warmup=int(warmup), samples=tuple(float(v) for v in a))

    def quantiles(self, qs: Sequence[float]) -> list[float]:
        """The ``qs`` quantiles of the samples (seconds), in the order given, as Triton's ``quantiles=``.

        Examples
        --------
        >>> Timing.from_samples([1.0, 2.0, 3.0, 4.0, 5.0]).quantiles([0.5, 0.2, 0.8])  # 1 + q·(5 − 1)
        [3.0, 1.8, 4.2]
        """
        for q in qs:
            if not 0 <= q <= 1:
                raise ValueError(_("quantiles must lie in [0, 1], got {q}").format(q=q))
        return [float(v) for v in np.quantile(np.asarray(self.samples), list(qs))]


def do_bench(fn: Callable[[], Any], *, warmup: int = 3, repeat: int = 25, quantiles: Sequence[float] | None = None,
             sync: Callable[[Any], Any] | None = None,
             timer: Callable[[], float] = time.perf_counter) -> Timing | list[float]:
    """Time ``fn()``: ``warmup`` untimed calls, then ``repeat`` timed ones; a :class:`Timing` in seconds.

    Each timed call reads ``timer`` before ``fn()`` and again after ``sync(result)`` (when ``sync`` is
    given: the call's work must be finished when the clock is read, as ``torch.cuda.synchronize()``
    ensures on a GPU). Warm-up calls are synchronised too. With ``quantiles``, return those quantiles
    of the timed calls (seconds) instead, as ``triton.testing.do_bench(..., quantiles=[0.5, 0.2, 0.8])``.

    Examples
    --------
    >>> calls = []
    >>> t = do_bench(lambda: calls.append(1), warmup=2, repeat=5)
    >>> len(calls), t.n, t.warmup, t.min <= t.median <= t.max
    (7, 5, 2, True)
    >>> ticks = iter([0.0, 1.0, 1.0, 4.0])   # a fake clock: calls of 1 s and 3 s
    >>> do_bench(lambda: None, warmup=0, repeat=2, quantiles=[0.5], timer=lambda: next(ticks))
    [2.0]
    """
    if warmup < 0:
        raise ValueError(_("warmup must be ≥ 0 calls, got {warmup}").format(warmup=warmup))
    if repeat < 1:
        raise ValueError(_("repeat must be ≥ 1 call, got {repeat}").format(repeat=repeat))
    for _i in range(warmup):
        result = fn()
        if sync is not None:
            sync(result)
    samples = []
    for _i in range(repeat):
        start = timer()
        result = fn()
        if sync is not None:
            sync(result)
        samples.append(timer() - start)
    timing = Timing.from_samples(samples, warmup=warmup)
    return timing if quantiles is None else timing.quantiles(quantiles)


__all__ = ["Timing", "do_bench"]
