"""What a timer around a launch reads besides the kernel's own run, and what the L2 holds when it starts.

A kernel's time on the GPU starts when its first block starts and ends when its last block ends. A timer
reads more: the GPU's own work to start the launch and finish it, and, when the GPU had to wait for the
host, the host's launch. Which of these a number includes depends on how it was measured:

* ``"kernel"``: the run alone (what Nsight Compute's ``gpu__time_duration`` reports).
* ``"do_bench"``: Triton's ``triton.testing.do_bench``, and nvbench's cold measurements. Before each
  timed call it zeroes a buffer larger than the L2 (:data:`FLUSH_BYTES`), so the kernel starts with a
  **cold L2** (every byte it reads comes from DRAM), and it records its start event after the zeroing, so
  the host enqueues the launch while the GPU is still busy zeroing and the host's launch cost is hidden
  as long as it is shorter than the zeroing (:func:`flush_seconds`: 101 µs on an H100); CUDA events around
  the launch read the GPU's cost of a launch that follows other work, measured as the cold time of a tiny
  kernel (``Perf.launch_cold_s``), plus the run. A timed function that launches several kernels pays that
  cost once: only its first launch follows the zeroing. Each later one follows the previous kernel of the
  same call in the stream, queued while that kernel ran, which is the back-to-back stream's cost
  (``Perf.launch_stream_s``; :func:`later_launch_overhead`). That assumes the host enqueued it before the
  previous kernel ended; a host path longer than that kernel (a Triton launch's Python, 11–62 µs a launch
  in the sources of ``docs/model.md``) would leave the GPU waiting, which the model does not charge.
* ``"stream"``: back-to-back launches in a stream, CUDA events around many: the GPU's per-launch cost and
  a **warm L2** (the previous call left its data there).
* ``"cudagraph"``: ``triton.testing.do_bench_cudagraph``: the launches replayed as a CUDA graph, warm L2,
  the graph's smaller per-launch cost (``Perf.launch_graph_s``), no host cost.
* ``"host"``: a host timer around each launch with a synchronise, so the GPU waits for the host: the
  driver's host cost (``Perf.launch_s``) on top of the stream's.

The per-launch costs are measured, not fitted: 10 000 back-to-back launches of a 4096-element kernel in a
stream and as a CUDA graph, per GPU (``kernellab.specs`` source [RRZE] ``gpu-small-kernels``), and nvbench's
cold time of a 2^16-element transform ([CCCL-2086] on an H200, [CCCL-7019] on an A100); they include that
kernel's own few hundred nanoseconds, so they slightly overcount a launch's overhead.

Examples
--------
>>> from kernellab.specs import PERF_H100
>>> [round(launch_overhead(PERF_H100, t) * 1e6, 2) for t in TIMERS]
[0.0, 4.28, 2.43, 1.26, 5.43]
>>> [round(later_launch_overhead(PERF_H100, t) * 1e6, 2) for t in TIMERS]     # a call's second launch on
[0.0, 2.43, 2.43, 1.26, 5.43]
>>> round(call_overhead(PERF_H100, "do_bench", 3) * 1e6, 2)         # 4.28 + 2 × 2.43: three launches, one call
9.14
>>> cold_l2("do_bench"), cold_l2("cudagraph")
(True, False)
>>> round(flush_seconds(PERF_H100) * 1e6, 1), round(flush_seconds(PERF_H100, FLUSH_BYTES_2024) * 1e6, 1)
(101.0, 96.3)
"""

from __future__ import annotations

from kernellab.i18n import _

from ..specs import Perf

__all__ = ["FLUSH_BYTES", "FLUSH_BYTES_2024", "TIMERS", "call_overhead", "cold_l2", "flush_seconds", "later_launch_overhead",
           "launch_overhead"]

#: The timers a prediction can stand for, in the order of the module's list.
TIMERS = ("kernel", "do_bench", "stream", "cudagraph", "host")
_COLD = {"kernel": True, "do_bench": True, "stream": False, "cudagraph": False, "host": False}

#: The bytes ``do_bench`` zeroes before each timed call, in Triton 3.9 256 MiB of int32 (``triton/backends/nvidia/
#: driver.py``, ``get_empty_cache_for_benchmark``), zeroed by ``clear_cache`` (``cache.zero_()``).
FLUSH_BYTES = 256 * 2**20
#: The bytes ``do_bench`` zeroed in Triton 2.2 and 2.3, of 2024, 256·10⁶ (``torch.empty(int(256e6 // 4),
#: dtype=torch.int)`` in ``triton/testing.py``).
FLUSH_BYTES_2024 = 256 * 10**6


def _check(timer: str) -> str:
    if timer not in TIMERS:
        raise ValueError(_("unknown timer {timer!r}; expected one of {timers}").format(timer=timer, timers=TIMERS))
    return timer


def launch_overhead(perf: Perf, timer: str) -> float:
    """Seconds a ``timer`` reads per launch besides the kernel's run, on the GPU of ``perf`` (see the module)."""
    timer = _check(timer)
    if timer == "kernel":
        return 0.0
    if timer == "cudagraph":
        return perf.launch_graph_s
    if timer == "host":
        return perf.launch_stream_s + perf.launch_s
    if timer == "do_bench":
        return perf.launch_cold_s
    return perf.launch_stream_s


def later_launch_overhead(perf: Perf, timer: str) -> float:
    """Seconds a ``timer`` reads for a launch that follows another launch of the same timed call, on the GPU of
    ``perf``: under ``"do_bench"`` the back-to-back stream's cost (``Perf.launch_stream_s``), as only the call's
    first launch follows the zeroing (see the module); under every other timer its cost per launch
    (:func:`launch_overhead`), which already is a launch's after another."""
    if _check(timer) == "do_bench":
        return perf.launch_stream_s
    return launch_overhead(perf, timer)


def call_overhead(perf: Perf, timer: str, launches: int) -> float:
    """Seconds a ``timer`` reads besides the runs around one timed call that makes ``launches`` launches: the
    first at :func:`launch_overhead`, each later one at :func:`later_launch_overhead`."""
    return launch_overhead(perf, timer) + (launches - 1) * later_launch_overhead(perf, timer)


def cold_l2(timer: str) -> bool:
    """Whether a launch under ``timer`` starts with nothing of its data in L2 (``"kernel"``: cold, as Nsight
    Compute's default cache control flushes it)."""
    return _COLD[_check(timer)]


def flush_seconds(perf: Perf, nbytes: int = FLUSH_BYTES) -> float:
    """Seconds the GPU of ``perf`` takes to zero ``do_bench``'s flush buffer of ``nbytes``, at the DRAM bandwidth a
    streaming kernel sustains (``dram_bw × dram_efficiency``): the longest host launch path ``do_bench`` hides.

    ``do_bench`` enqueues the zeroing, records its start event behind it and then calls the function it times,
    so the host's path to the launch runs while the GPU zeroes; the kernel starts right after the start event
    unless that path takes longer than the zeroing, and then the excess adds to the time read. On an H100
    (3.35 TB/s × 0.79) 256 MiB take 101 µs.
    """
    return nbytes / (perf.dram_bw * perf.dram_efficiency)
