"""The round trip of a DRAM load under load: the unloaded latency plus the queueing delay that the launch's own
DRAM traffic adds, read off a published measurement of the same memory system.

A pointer chase measures a round trip with nothing else in flight ([RRZE] ``gpu-latency``: 688 cycles on the
GH200's HBM3, 552 on the A100 80GB). Under load the requests queue in the memory controllers, and the round
trip grows with the share of the bandwidth in use. [RRZE]'s ``gpu-stream`` measured that on the same GPUs
(RRZE-HPC/gpu-benches@1038c5d, ``gpu-stream/{gh200,a100_80,a40}.txt``, the ``scale`` kernel: each thread
loads one 8-byte double and stores one, at occupancies from one block of 16 threads per SM to full): with
``threads`` resident, ``threads × 8`` bytes of loads are in flight, so by Little's law the mean round trip
at the measured bandwidth ``B`` (bytes read and written) is ``threads × 8 ÷ (B ÷ 2)``. At the lowest
occupancy that is 554 ns on the GH200 (the chase's 347 ns, plus each one-load thread's block start and
exit); the **queueing delay** at utilisation ``ρ = B ÷ max B`` is the growth over that first row, e.g. on
the GH200 65 ns at ρ = 0.21, 251 ns at ρ = 0.48, 809 ns at ρ = 1. Rows where the bandwidth did not grow
(the A40's, past its saturation) add no point. No constant is fitted: the curve is the measurement, and
``max B`` is the same kernel's maximum that ``Perf.dram_efficiency`` already takes.

A launch's utilisation is its own: its DRAM bytes ÷ (its time × the sustained bandwidth). The time depends
on the round trip where latency sets it, so :func:`loaded_time` finds the time at which the two agree.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable

__all__ = ["STREAM_SCALE", "MEASURED_ON", "queueing_curve", "queueing_delay", "loaded_time"]

#: [RRZE] ``gpu-stream``'s ``scale`` kernel (one 8-byte load and one 8-byte store a thread), per measured GPU:
#: (threads resident on the whole GPU, GB/s read and written), each row of its file in order.
STREAM_SCALE = {
    "gh200": ((2112, 61), (4224, 120), (6336, 174), (8448, 237), (10560, 281), (12672, 342), (14784, 384),
              (16896, 464), (21120, 539), (25344, 655), (33792, 854), (42240, 980), (50688, 1122), (59136, 1252),
              (67584, 1397), (76032, 1511), (84480, 1635), (92928, 1751), (101376, 1868), (109824, 1969),
              (118272, 2070), (126720, 2164), (135168, 2269), (143616, 2341), (152064, 2425), (160512, 2508),
              (168960, 2587), (177408, 2657), (185856, 2727), (194304, 2791), (202752, 2854), (211200, 2909),
              (219648, 2960), (228096, 3008), (236544, 3052), (244992, 3090), (253440, 3126), (261888, 3155),
              (270336, 3174)),
    "a100_80": ((1728, 40), (3456, 80), (5184, 115), (6912, 159), (8640, 183), (10368, 223), (12096, 250),
                (13824, 303), (17280, 351), (20736, 424), (27648, 579), (34560, 662), (41472, 791), (48384, 885),
                (55296, 1025), (62208, 1088), (69120, 1195), (76032, 1276), (82944, 1379), (89856, 1429),
                (96768, 1498), (103680, 1520), (110592, 1577), (117504, 1574), (124416, 1609), (131328, 1613),
                (138240, 1646), (145152, 1639), (152064, 1660), (158976, 1660), (165888, 1682), (172800, 1674),
                (179712, 1689), (186624, 1689), (193536, 1706), (200448, 1700), (207360, 1711), (214272, 1712),
                (221184, 1737)),
    "a40": ((1344, 39), (2688, 78), (4032, 112), (5376, 150), (6720, 181), (8064, 217), (9408, 246), (10752, 291),
            (13440, 339), (16128, 408), (21504, 515), (26880, 576), (32256, 614), (37632, 631), (43008, 644),
            (48384, 652), (53760, 659), (59136, 657), (64512, 658), (69888, 658), (75264, 658), (80640, 658),
            (86016, 657), (91392, 657), (96768, 657), (102144, 656), (107520, 655), (112896, 655), (118272, 655),
            (123648, 654), (129024, 653)),
}
#: The measurement each modelled GPU takes, as ``kernellab.specs.MEASURED`` does: the H100 and H200 the GH200's
#: (their die, with HBM3), the A100s the A100 80GB's, the A6000 the A40's (the same GA102 with GDDR6).
MEASURED_ON = {"H100 SXM": "gh200", "H200 SXM": "gh200", "A100 SXM 80GB": "a100_80",
               "A100 PCIe 80GB": "a100_80", "RTX A6000": "a40"}
ELEMENT_BYTES = 8  # bytes each thread of the scale kernel loads (and stores): one double


def queueing_curve(measured: str) -> tuple[tuple[float, float], ...]:
    """``(ρ, seconds)`` points of the queueing delay measured on ``measured`` (a key of :data:`STREAM_SCALE`; see the
    module): the mean round trip ``threads × 8 ÷ (B ÷ 2)`` at each row less the first row's, against ``B ÷ max B``,
    keeping the rows where the bandwidth grew. A row whose delay is below an earlier row's takes that row's (the
    measured dips are a few ns: a queue does not shorten as the load grows, and :func:`loaded_time` needs a
    curve that does not fall).

    The GH200's first two rows: 2112 × 8 B ÷ 30.5 GB/s = 554.0 ns and 4224 × 8 B ÷ 60 GB/s = 563.2 ns, so 9.2 ns
    at ρ = 120 ÷ 3174:

    >>> first, second = queueing_curve("gh200")[:2]
    >>> round(first[0], 4), first[1], round(second[0], 4), round(second[1] * 1e9, 1)
    (0.0192, 0.0, 0.0378, 9.2)
    """
    rows = STREAM_SCALE[measured]
    top = max(b for _, b in rows)
    base = rows[0][0] * ELEMENT_BYTES / (rows[0][1] / 2 * 1e9)
    points: list[tuple[float, float]] = []
    for threads, gbs in rows:
        rho = gbs / top
        if points and rho <= points[-1][0]:
            continue
        delay = threads * ELEMENT_BYTES / (gbs / 2 * 1e9) - base
        points.append((rho, max(delay, points[-1][1] if points else 0.0)))
    return tuple(points)


_CURVES = {k: queueing_curve(k) for k in STREAM_SCALE}


def queueing_delay(gpu_name: str, rho: float) -> float:
    """Seconds a DRAM round trip waits in the queues at utilisation ``rho`` on the GPU named ``gpu_name``:
    :func:`queueing_curve` of its measurement (:data:`MEASURED_ON`), linear between points, 0 below the first,
    the last point's at ρ ≥ 1. A GPU without a measurement: 0.

    At ρ = 0.5 the GH200's curve lies between its rows at ρ = 1511 ÷ 3174 = 0.4761 (76032 × 8 B ÷ 755.5 GB/s
    − 554.0 ns = 251.1 ns) and 1635 ÷ 3174 = 0.5151 (84480 × 8 B ÷ 817.5 GB/s − 554.0 ns = 272.7 ns):
    251.1 + (0.5 − 0.4761) ÷ 0.0391 × 21.6 = 264.4 ns.

    >>> round(queueing_delay("H100 SXM", 0.5) * 1e9, 1), queueing_delay("H100 SXM", 0.01), queueing_delay("B200", 0.5)
    (264.4, 0.0, 0.0)
    """
    curve = _CURVES.get(MEASURED_ON.get(gpu_name, ""))
    if not curve or rho <= curve[0][0]:
        return 0.0
    i = bisect_right(curve, (rho, float("inf")))
    if i >= len(curve):
        return curve[-1][1]
    (r0, d0), (r1, d1) = curve[i - 1], curve[i]
    return d0 + (rho - r0) / (r1 - r0) * (d1 - d0)


def loaded_time(path: Callable[[float], float], t_other: float, dram_bytes: float, sustained_bw: float,
                latency: float, gpu_name: str, floor: float | None = None) -> tuple[float, float]:
    """``(time, round trip)`` of a launch whose latency path takes ``path(round trip)`` seconds and whose other
    terms take ``t_other``, when its round trip is ``latency`` (unloaded) plus :func:`queueing_delay` at its own
    utilisation ``dram_bytes ÷ (time × sustained_bw)``.

    The round trip shrinks as the time grows (the same bytes over longer), so the path falls with the time: the
    time is ``t_other`` when the path at ``t_other``'s utilisation fits in it, else the one time whose path is
    itself (found by bisection; ``path`` must not fall as its round trip grows).

    A launch of 12 round trips moving 2.66 GB on a GPU that sustains 2.66 TB/s, with nothing else to do: at 0.6 ms
    its utilisation would be 1 ms ÷ 0.6 ms > 1 (the last point, 809 ns), the path 12 × (347 + 809) ns = 13.9 µs,
    far short of 0.6 ms; so DRAM's own 1 ms (``t_other``) sets the time, at ρ = 1:

    >>> t, rt = loaded_time(lambda L: 12 * L, 1e-3, 2.66e9, 2.66e12, 347e-9, "H100 SXM")
    >>> t, round(rt * 1e9)
    (0.001, 1156)

    4096 round trips and no other work: the path at ρ = 1 (4.7 ms) is longer than 1 ms, so the time is where
    4096 × (347 ns + delay(1 ms ÷ t)) = t:

    >>> t, rt = loaded_time(lambda L: 4096 * L, 1e-3, 2.66e9, 2.66e12, 347e-9, "H100 SXM")
    >>> abs(4096 * (347e-9 + queueing_delay("H100 SXM", 1e-3 / t)) - t) < 1e-12
    True

    ``floor``, when given, is a time the path never falls below (a path that is the longer of a latency path and
    the pipes, ``max(…, floor)``). Where the path at ``t_other``'s round trip is that floor, every shorter time
    ``T`` has a path of at least ``floor`` > ``T``, so the bisection could only raise its lower end and would
    return ``floor`` itself: it is returned at once, the same floats. Pipes of 5 ms above 12 round trips:

    >>> pipes = lambda L: max(12 * L, 5e-3)
    >>> fast = loaded_time(pipes, 1e-3, 2.66e9, 2.66e12, 347e-9, "H100 SXM", floor=5e-3)
    >>> fast == loaded_time(pipes, 1e-3, 2.66e9, 2.66e12, 347e-9, "H100 SXM"), fast[0]
    (True, 0.005)
    """
    def round_trip(t: float) -> float:
        rho = min(1.0, dram_bytes / (t * sustained_bw)) if t > 0 else 1.0
        return latency + queueing_delay(gpu_name, rho)

    t_path = path(round_trip(t_other))
    if t_path <= t_other:
        return t_other, round_trip(t_other)
    if t_path == floor:  # every time below it has a path of at least floor, above that time: the bisection
        return t_path, round_trip(t_path)  # below would move only lo and end at hi = t_path, 60 steps later
    lo, hi = t_other, t_path  # path(round_trip(T)) − T is positive at lo and ≤ 0 at hi, and falls in between
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if path(round_trip(mid)) > mid:
            lo = mid
        else:
            hi = mid
    return hi, round_trip(hi)
