"""What a timer around a launch reads besides the kernel's own run, and what the L2 holds when it starts.

A kernel's time on the GPU starts when its first block starts and ends when its last block ends. A timer
reads more: the GPU's own work to start the launch and finish it, and, when the GPU had to wait for the
host, the host's launch. Which of these a number includes depends on how it was measured:

* ``"kernel"``: the run alone (what Nsight Compute's ``gpu__time_duration`` reports).
* ``"do_bench"``: Triton's ``triton.testing.do_bench``, and nvbench's cold measurements. Before each
  timed call it zeroes a buffer larger than the L2 (256 MB), so the kernel starts with a **cold L2**
  (every byte it reads comes from DRAM), and the host enqueues the launch while the GPU is still busy
  zeroing, so the host's launch cost is hidden; CUDA events around the launch read the GPU's cost of a
  launch that follows other work, measured as the cold time of a tiny kernel (``Perf.launch_cold_s``),
  plus the run.
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
>>> cold_l2("do_bench"), cold_l2("cudagraph")
(True, False)
"""

from __future__ import annotations

from kernellab.i18n import _

from ..specs import Perf

__all__ = ["TIMERS", "cold_l2", "launch_overhead"]

#: The timers a prediction can stand for, in the order of the module's list.
TIMERS = ("kernel", "do_bench", "stream", "cudagraph", "host")
_COLD = {"kernel": True, "do_bench": True, "stream": False, "cudagraph": False, "host": False}


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


def cold_l2(timer: str) -> bool:
    """Whether a launch under ``timer`` starts with nothing of its data in L2 (``"kernel"``: cold, as Nsight
    Compute's default cache control flushes it)."""
    return _COLD[_check(timer)]
