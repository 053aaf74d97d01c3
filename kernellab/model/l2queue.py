"""The L2 as a closed queue: the load rounds of an SM's resident programs wait for that SM's share of the L2.

``t_l2`` (:func:`kernellab.model.estimate.l2_seconds`) assumes the L2 is kept busy. It is only as busy as the
programs keep it: a program that loads a round (a K step's tiles), waits for it and then works on it has at most
its rounds in flight, and an SM holds ``resident`` such programs. The L2 then serves a **closed queueing
network** (a fixed population of customers, each coming back after its think time), solved by exact **mean-value
analysis** (MVA; Reiser and Lavenberg, "Mean-value analysis of closed multichain queuing networks", JACM 27(2),
1980; Lazowska et al., *Quantitative System Performance*, 1984, chapter 6):

* **customers**, per SM: each resident program's rounds in flight, ``min(per_sm, resident) × in_flight``. A K loop
  that Triton's software pipeliner pipelines keeps ``num_stages − 1`` trips' loads in flight: it issues the
  first ``num_stages − 1`` in a prologue, and each trip issues the load ``num_stages − 1`` trips ahead into the
  buffer the previous trip released (``LoopPipeliner`` in ``lib/Dialect/TritonGPU/Transforms/Pipeline.cpp`` of
  triton-lang/triton at 0ef79a5: "[0, numStages-1) are in the prologue, numStages-1 is appended after the loop
  body"). A warp-specialised producer (FlashAttention-3's Algorithm 1, Shah et al. 2024;
  ``tl.range(warp_specialize=True)``) fills a ring of the same ``num_stages`` buffers, each when the consumers
  release it: while they work on one the other ``num_stages − 1`` are in flight, the same count; it changes which
  warps issue the loads, not how many wait. Never more than the loop has rounds: a loop of one stage, a single
  round at a ``tl.dot`` (no later trip to load ahead), and a launch without a ``tl.dot`` loop have one round in
  flight a program;
* **the L2 station** (queueing): one round's bytes ÷ the SM's share of the L2 bandwidth, ``Perf.l2_bw`` ÷ the
  SMs in use (every SM with work sends it rounds alike);
* **the think time** (a delay station): the round trip, and in a loop that is not pipelined (one stage, or one
  round at a dot: :func:`pipelined`) the program's own work
  on the round too (``t_alone`` ÷ rounds: its pipes on the sub-partitions its warps occupy, as the latency path
  charges it), as it loads, waits, then works. A pipelined loop works on one round while the next ones are in
  flight: a customer thinks its round trip only, and the work is charged by the pipes' own term. A sector
  another program already brought into the L2 is an L2 hit (``Perf.l2_latency_cycles``); the first touch of each
  byte pays the DRAM round trip. The launch's compulsory DRAM bytes over its L2 load bytes is the share of first
  touches: ``1 − dram ÷ loaded`` of the round trips are hits.

The work is a delay, not a second queueing station, although the resident programs share the SM's pipes: MVA is
exact for product-form networks, whose queueing stations serve first come first served with exponential times,
while a delay station's result does not depend on how its times are distributed (Baskett, Chandy, Muntz and
Palacios, JACM 22(2), 1975). A K step's work is nearly constant, far from exponential: taken as a second queue it
waits as if it were random, which put fast.cu's kernel 2 and the tutorial GEMMs 9–41 % slower than measured
(validation of 2026-12-07, the variant "two stations"). That the residents share the pipes is charged where it
is exact, by the pipes' own term, which the estimate takes beside this one (the larger wins). Charging a
pipelined loop's work in its think time too (the variant "work in turn") put the cuBLAS GEMMs that fit
``Perf.eta_wgmma`` 22–31 % slow, beyond what any efficiency could fit: the work would wait for loads the
pipeliner issued long before.

The busiest SM finishes its ``per_sm × rounds`` rounds at the network's throughput ``X(N)``, so the launch
takes at least ``per_sm × rounds ÷ X(N)`` (``t_l2_queue``). With many customers ``X`` tends to the L2 station's
rate and the term to ``t_l2``; with few it adds the waits the bandwidth bound leaves out. One customer of a loop
that is not pipelined pays a round's service, its round trip and its work, in turn: the latency path's program
plus the service.

An example worked by hand: fast.cu's kernel 2 (8192³ bf16, 128×128×64 tiles, one warpgroup, one stage; three
programs an SM on 132 SMs) loads 32 KiB a round; at 9.9 TB/s ÷ 132 an SM's share serves it in
32768 ÷ 75.0 GB/s = 0.437 µs; a program's Tensor Core work on it takes about 0.32 µs; nearly every byte is an L2
hit (280 cycles ÷ 1.98 GHz = 0.141 µs). With three programs resident, three customers thinking 0.461 µs:
:func:`throughput` gives 2.13 rounds a µs, where the L2 alone would serve 2.29.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["L2Queue", "hit_round_trip", "in_flight", "pipelined", "sm_queue", "throughput"]


def throughput(customers: int, demands: tuple[float, ...], delay: float) -> float:
    """Rounds a second that ``customers`` customers complete in a closed network of single-server queueing
    stations with service demands ``demands`` (seconds a round at each) and a delay station of ``delay`` seconds
    (the think time): exact mean-value analysis. For n = 1 … N customers, a station's residence time is its
    demand × (1 + the customers it held at n − 1), the throughput is n ÷ (the residence times + the delay), and
    each station then holds throughput × its residence time (Little's law).

    One station of 1 s and no delay: each added customer only queues (1, then 1, then 1 a second). A delay of
    2 s beside a station of 1 s: one customer, 1 ÷ (1 + 2) = 1/3; two, the station holds 1/3 at n = 1, so
    R = 1 × 4/3 and X = 2 ÷ (4/3 + 2) = 0.6; three, it holds 0.6 × 4/3 = 0.8, R = 1.8, X = 3 ÷ 3.8 = 0.78947:

    >>> throughput(3, (1.0,), 0.0)
    1.0
    >>> [round(throughput(n, (1.0,), 2.0), 5) for n in (1, 2, 3)]
    [0.33333, 0.6, 0.78947]
    """
    if customers < 1:
        raise ValueError(f"a closed network needs at least one customer, not {customers}")
    queue = [0.0] * len(demands)
    x = 0.0
    for n in range(1, customers + 1):
        residence = [d * (1.0 + q) for d, q in zip(demands, queue)]
        x = n / (sum(residence) + delay)
        queue = [x * r for r in residence]
    return x


@dataclass(frozen=True)
class L2Queue:
    """One SM's closed queue at the L2 (see the module): its customers, its stations' demands a round and its
    delay, seconds. ``time(rounds)`` is the seconds it takes to complete ``rounds`` rounds.

    fast.cu's kernel 2 by hand (the module's example): ``N`` = 3, L2 0.437 µs, think 0.141 + 0.32 = 0.461 µs.
    n = 1: R = 0.437, X = 1 ÷ (0.437 + 0.461) = 1.1136 a µs, the L2 holds 0.4866. n = 2: R = 0.437 × 1.4866 =
    0.6496, X = 2 ÷ 1.1106 = 1.8008, it holds 1.1698. n = 3: R = 0.437 × 2.1698 = 0.9482, X = 3 ÷ 1.4093 = 2.1288
    a µs; its 3972 rounds an SM (4096 programs × 128 K steps ÷ 132 SMs) take 1866 µs, against 2251 measured
    (the L2's bandwidth alone: 3972 × 0.437 = 1736 µs):

    >>> q = L2Queue(3, 0.437e-6, 0.461e-6)
    >>> round(q.throughput() * 1e-6, 4), round(q.time(3972) * 1e6)
    (2.1288, 1866)
    """

    customers: int  # rounds in flight on the SM: its resident programs × each one's rounds in flight
    l2: float  # s, one round's L2 bytes at the SM's share of the L2 bandwidth
    think: float  # s, a round's round trip plus the program's own work on it

    def throughput(self) -> float:
        """Rounds a second the SM completes (:func:`throughput`)."""
        return throughput(self.customers, (self.l2,), self.think)

    def time(self, rounds: float) -> float:
        """Seconds for ``rounds`` rounds of the SM's programs."""
        return rounds / self.throughput() if rounds else 0.0


def in_flight(stages: int, dot_rounds: float) -> int:
    """Rounds one program keeps in flight: ``num_stages − 1`` for a pipelined ``tl.dot`` loop, but never more than
    its ``dot_rounds`` (the pipeliner's prologue issues ``min(num_stages − 1, trips)`` trips' loads, and each trip one
    more ahead while any is left); one for a loop of one stage, a single round at a dot, or no dot loop (see the
    module).

    >>> in_flight(4, 128.0), in_flight(1, 128.0), in_flight(3, 0.0), in_flight(4, 2.0), in_flight(3, 1.0)
    (3, 1, 1, 2, 1)
    """
    return max(1, min(stages - 1, int(dot_rounds))) if dot_rounds > 1 else 1


def pipelined(stages: int, dot_rounds: float) -> bool:
    """Whether a program's own work on a round overlaps later rounds' loads: a ``tl.dot`` loop of two stages or more
    with a later round to load (more than one round at a dot). Otherwise it loads, waits, then works, in turn.

    >>> pipelined(3, 128.0), pipelined(1, 128.0), pipelined(3, 1.0), pipelined(2, 0.0)
    (True, False, False, False)
    """
    return stages > 1 and dot_rounds > 1


def hit_round_trip(loaded: float, dram_bytes: float, l2_trip: float, dram_trip: float) -> float:
    """The mean round trip of a launch's loads: the share ``dram_bytes ÷ loaded`` (at most 1) that first touches
    a byte pays ``dram_trip``, the rest hit the L2 and pay ``l2_trip``.

    A GEMM that loads 17.2 GB through the L2 and 0.27 GB from DRAM (8192³ bf16: A and B once): 1.6 % of its
    round trips from DRAM. A copy loads each byte once, all from DRAM:

    >>> round(hit_round_trip(17.2e9, 0.27e9, 141e-9, 750e-9) * 1e9, 1), hit_round_trip(1e6, 1e6, 1.0, 5.0)
    (150.6, 5.0)
    """
    first = min(1.0, dram_bytes / loaded) if loaded else 1.0
    return (1.0 - first) * l2_trip + first * dram_trip


def sm_queue(dist, rounds: float, dot_rounds: float, stages: int, loaded: float, l2_bw: float, t_alone: float,
             round_trip: float) -> L2Queue:
    """The :class:`L2Queue` of the busiest SM of ``dist`` (:class:`~kernellab.model.persm.Distribution`): a
    program's ``rounds`` (``dot_rounds`` of them a ``tl.dot`` loop's, of ``stages`` stages), the launch's
    ``loaded`` L2 bytes at ``l2_bw``, one program's own work ``t_alone`` and the mean ``round_trip``
    (:func:`hit_round_trip`)."""
    per_round = loaded / dist.programs / rounds
    ahead = in_flight(stages, dot_rounds)
    customers = min(dist.per_sm, dist.resident) * ahead
    own = 0.0 if pipelined(stages, dot_rounds) else t_alone / rounds
    return L2Queue(customers, per_round / (l2_bw / dist.sms_used), round_trip + own)
