"""The timer the benchmark scripts share (``bench_speed.py``, ``bench_triton.py``)."""

from __future__ import annotations

import time


def best(fn, repeat: int = 3, warmup: int = 1) -> float:
    """Best wall time of ``repeat`` calls after ``warmup`` untimed ones, seconds.

    >>> best(lambda: None, repeat=2, warmup=0) >= 0
    True
    """
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)
