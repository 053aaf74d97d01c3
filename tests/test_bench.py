"""kernellab.bench: warm-up and repeat counts, the order of clock reads and syncs, the statistics.

Durations come from a fake clock, so every expected value is exact; no test asserts a speed.
"""

import time

import pytest

import kernellab
from kernellab.bench import Timing, do_bench


class FakeClock:
    """A clock that advances by the given durations, one per timed call, and logs every read."""

    def __init__(self, durations, log):
        self.ticks = []
        now = 0.0
        for d in durations:
            self.ticks += [now, now + d]
            now += d + 100.0  # time passing between calls must not count
        self.log = log

    def __call__(self):
        self.log.append("clock")
        return self.ticks.pop(0)


def test_warmup_calls_happen_before_the_timed_ones_and_are_not_timed():
    log = []
    clock = FakeClock([5.0, 1.0, 3.0], log)
    t = do_bench(lambda: log.append("fn"), warmup=2, repeat=3, timer=clock)
    # 2 untimed calls, then per timed call: clock, fn, clock
    assert log == ["fn", "fn"] + ["clock", "fn", "clock"] * 3
    assert (t.n, t.warmup) == (3, 2)
    assert t.samples == (5.0, 1.0, 3.0)  # the 100 s gaps between calls are excluded


def test_statistics_of_known_durations():
    t = do_bench(lambda: None, warmup=0, repeat=5, timer=FakeClock([5.0, 1.0, 3.0, 2.0, 4.0], []))
    # sorted 1..5: median 3; linear quantiles 1 + 0.2·4 = 1.8 and 1 + 0.8·4 = 4.2
    assert (t.median, t.min, t.max) == (3.0, 1.0, 5.0)
    assert t.p20 == pytest.approx(1.8) and t.p80 == pytest.approx(4.2)


def test_quantiles_option_returns_them_in_the_order_asked_like_triton():
    q = do_bench(lambda: None, warmup=0, repeat=4, quantiles=[0.5, 0.0, 1.0],
                 timer=FakeClock([4.0, 1.0, 2.0, 3.0], []))
    assert q == [2.5, 1.0, 4.0]  # median of 1, 2, 3, 4 is (2 + 3) / 2


def test_sync_is_called_with_the_result_before_the_clock_is_read():
    log = []
    clock = FakeClock([1.0, 1.0], log)
    calls = iter(range(10))

    def fn():
        i = next(calls)
        log.append(f"fn{i}")
        return i

    do_bench(fn, warmup=1, repeat=2, sync=lambda r: log.append(f"sync{r}"), timer=clock)
    assert log == ["fn0", "sync0", "clock", "fn1", "sync1", "clock", "clock", "fn2", "sync2", "clock"]


def test_real_clock_counts_calls_and_orders_statistics():
    n = [0]

    def fn():
        n[0] += 1

    t = do_bench(fn, warmup=4, repeat=11)
    assert n[0] == 15 and t.n == 11 and len(t.samples) == 11
    assert t.min <= t.p20 <= t.median <= t.p80 <= t.max and t.min >= 0


def test_a_sleeping_call_takes_at_least_its_sleep():
    t = do_bench(lambda: time.sleep(0.002), warmup=0, repeat=2)
    assert t.min >= 0.002 * 0.999  # sleep() waits at least as long as asked; an upper bound would flake


def test_timing_is_frozen_and_rejects_bad_arguments():
    t = Timing.from_samples([1.0])
    with pytest.raises(AttributeError):
        t.median = 2.0
    with pytest.raises(ValueError, match="repeat"):
        do_bench(lambda: None, repeat=0)
    with pytest.raises(ValueError, match="warmup"):
        do_bench(lambda: None, warmup=-1)
    with pytest.raises(ValueError, match="quantiles"):
        do_bench(lambda: None, repeat=1, quantiles=[1.5])
    with pytest.raises(ValueError, match="sample"):
        Timing.from_samples([])


def test_exported_from_the_package():
    assert kernellab.do_bench is do_bench and kernellab.Timing is Timing
