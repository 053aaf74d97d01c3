"""The time a launch's spin locks hold it: each lock's critical sections one after another, the locks in parallel.

A lock (:mod:`kernellab.triton.executor.locks`) admits one program at a time, so the sections of the programs
that take one lock run one after another, whatever else the GPU does meanwhile, and the launch cannot end
before the longest such chain has. ``counts.launch["locks"]`` gives each lock's acquisitions ``n``, the round
trips ``R`` of its sections (summed) and the bytes ``B`` they moved (summed). A lock's chain is

    ``t_chain = (n + R) × L + B ÷ (l2_bw ÷ SMs)``

* ``n × L``: each hand-over. The holder's release (``tl.atomic_xchg``) reaches the lock word at the L2 slice
  that owns it, where atomics are performed, and the next program's compare-and-swap must get there after it
  and bring its answer back: at least one round trip to L2, ``L = Perf.l2_latency_cycles`` ÷ clock (RRZE's
  ``gpu-latency``, a dependent load that hits L2: 205 cycles on an A100, 280 on an H100; an atomic makes the
  same trip, its operation at the L2 slice besides, so this is a lower bound). The first acquisition pays
  its own round trip, a hand-over from nobody.
* ``R × L``: the sections' own round trips, each to L2 (the lock word and the data a section reads were
  written by the previous holder a moment before): the loads a section waits for, and the wait of its
  release for its stores.
* ``B ÷ (l2_bw ÷ SMs)``: its bytes, at one SM's share of the L2 bandwidth (``Perf.l2_bw``, RRZE's
  ``gpu-l2-cache`` with every SM reading: 5.4 TB/s ÷ 108 = 50 GB/s an SM on an A100); a GPU without a
  measured L2 bandwidth charges none (as :mod:`kernellab.model.estimate` has no L2 term for it).

``t_lock`` is the longest chain of the launch (0 without locks). It is a latency term, not a resource's
throughput: :mod:`kernellab.model.estimate` takes it beside the other terms (``estimate_time`` is the
longest of them). What it does not charge: the spinning programs' compare-and-swaps queueing at the lock
word ahead of a release, a waiting program holding SM resources that another program could use, and latency
that grows under load. The first is bounded and small: a waiting program has one compare-and-swap in flight
at a time, and the L2 completes the updates of one address at ``Perf.atomic_same_address_per_cycle`` (one a
cycle: Kepler's published rate, assumed unchanged since), so a release waits at most one cycle for each
program waiting in the launch; on tutorial 05's backward pass at 4096 × 4096 on an A100 (324 resident
programs on 128 locks, 196 waiting, 32 hand-overs a chain) that is at most 4.4 µs on a 43.6 µs chain
(docs/model.md, "Spin locks").

Examples
--------
Three programs take one lock on an A100; each section loads 256 B, uses them and stores 256 B (2 round
trips, :mod:`kernellab.triton.executor.locks`): ``(3 + 6) × 205 cycles ÷ 1.41 GHz + 1536 B ÷ 50 GB/s``.

>>> from kernellab.specs import PERF_A100
>>> f"{lock_chain({('Lock', 0): (3, 6, 1536)}, PERF_A100, 1.41e9) * 1e9:.1f} ns"
'1339.2 ns'
"""

from __future__ import annotations

from ..specs import Perf

__all__ = ["lock_chain", "t_lock"]


def lock_chain(locks: dict, perf: Perf, clock_hz: float) -> float:
    """Seconds of the longest chain among ``locks`` (``(acquisitions, round trips, bytes)`` by lock) on
    ``perf``'s GPU at ``clock_hz`` (see the module); 0 without locks."""
    if not locks:
        return 0.0
    trip = perf.l2_latency_cycles / clock_hz
    per_sm = perf.l2_bw / perf.sms if perf.l2_bw else None
    return max((n + trips) * trip + (nbytes / per_sm if per_sm else 0.0) for n, trips, nbytes in locks.values())


def t_lock(counts, perf: Perf, clock_hz: float) -> float:
    """The longest lock chain of the launch ``counts`` (``counts.launch["locks"]``), seconds; 0 without locks."""
    return lock_chain((getattr(counts, "launch", None) or {}).get("locks") or {}, perf, clock_hz)
