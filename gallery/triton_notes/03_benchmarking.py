"""
Benchmarking done right: warm up, repeat, synchronise, profile
==============================================================

Before changing a kernel, measure it. The notes give three rules: warm up first, because the first
call pays for compilation and caching; wait for the GPU with ``torch.cuda.synchronize()`` before
reading the clock, because the GPU runs asynchronously; and profile to see where the time goes.

A GPU is not needed to see why. This page measures real CPU time of Python and numpy code with
``kernellab.bench.do_bench``, a small cousin of ``triton.testing.do_bench``, and shows each mistake
in its CPU form: timing a cold first call, trusting a single run, and reading the clock before the
work has finished. Then it profiles one kernellab launch. Timings differ from run to run, so the
page states no times; it checks only relations that hold by a wide margin.

Everything timed here is measured on this machine's CPU. kernellab's ``triton.testing.do_bench`` is
different: it times nothing, and returns the time kernellab's performance model predicts for the
modelled GPU (:doc:`/model`), as Triton's ``do_bench`` would read it: each launch's run on its busiest
SM, DRAM at the share of its bandwidth such a GPU sustains, the latency a program cannot hide, a cold
L2 and the GPU's cost of each launch. It leaves out the host's side of a launch and anything the
counts do not see, and no GPU has checked it for the kernels on these pages.
"""

# %%
# The GPU rule
# ------------
# On a GPU, a benchmark in PyTorch looks like this (the CS336 lecture's ``benchmark`` does the same
# with host timers; ``triton.testing.do_bench`` does it with CUDA events, zeroes a 256 MB buffer before
# each timed call so that every call starts with a cold L2, and returns the mean, or quantiles on
# request):
#
# .. code-block:: python
#
#     for _ in range(num_warmups):   # compile, fill caches, allocate: not what we want to time
#         run()
#     torch.cuda.synchronize()
#     times = []
#     for _ in range(num_trials):
#         start = time.perf_counter()
#         run()                      # only *queues* the kernels and returns at once
#         torch.cuda.synchronize()   # wait until they have finished
#         times.append(time.perf_counter() - start)
#
# ``kernellab.bench.do_bench(fn, warmup=..., repeat=..., sync=...)`` is the same loop for the CPU:
# ``sync`` plays the part of ``torch.cuda.synchronize()``, and the result holds the median, the
# 20th and 80th percentiles and the extremes of the timed calls.

import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from kernellab import Claims, do_bench, fmt_time, print_table
from kernellab.i18n import _ as tr

rng = np.random.default_rng(0)
a = rng.standard_normal(250_000)


def work():
    """The work being measured: sort 250,000 doubles."""
    return np.sort(a)


timing = do_bench(work, warmup=3, repeat=30)
print_table(
    [tr("Statistic"), tr("Time")],
    [[tr("fastest"), fmt_time(timing.min)], [tr("20th percentile"), fmt_time(timing.p20)],
     [tr("median"), fmt_time(timing.median)], [tr("80th percentile"), fmt_time(timing.p80)],
     [tr("slowest"), fmt_time(timing.max)], [tr("timed calls (after {n} warm-up calls)").format(n=timing.warmup),
                                            timing.n]],
)

# %%
# A single run is one draw
# ------------------------
# Every timed call of the same work, in order. The band is the 20th to 80th percentile, the line
# the median.

import matplotlib.pyplot as plt

from kernellab.figures import use_cjk_font

use_cjk_font()
fig, ax = plt.subplots(figsize=(7, 3.4), layout="constrained")
ms = np.array(timing.samples) * 1e3
ax.axhspan(timing.p20 * 1e3, timing.p80 * 1e3, color="C0", alpha=0.15, label=tr("20th–80th percentile"))
ax.axhline(timing.median * 1e3, color="C0", lw=1.5, label=tr("median"))
ax.plot(np.arange(1, timing.n + 1), ms, "o", color="C1", ms=4, label=tr("one timed call"))
ax.set_xlabel(tr("Timed call"))
ax.set_ylabel(tr("Time (ms)"))
ax.set_title(tr("The same sort, {n} times").format(n=timing.n))
ax.set_ylim(0, ms.max() * 1.25)
ax.legend(loc="lower right", fontsize=9)
plt.show()

# %%
Claims().add(tr("min ≤ p20 ≤ median ≤ p80 ≤ max"),
             timing.min <= timing.p20 <= timing.median <= timing.p80 <= timing.max, True) \
    .add(tr("Timed calls / warm-up calls"), f"{timing.n} / {timing.warmup}", "30 / 3") \
    .add(tr("The times spread (max > min)"), timing.max > timing.min, True).show()

# %%
# Identical calls do not take identical times: other processes, the operating system, caches and
# the clock frequency all move them around. One run is a single sample of this spread, and a
# comparison of two single runs can come out either way when the kernels are close. Report the
# median of many runs, which one slow outlier cannot move, together with the spread; that is what
# ``triton.testing.do_bench(..., quantiles=[0.5, 0.2, 0.8])`` returns.

# %%
# The first call is cold
# ----------------------
# Triton compiles a kernel the first time it is called with new argument types, and caches the
# result; later calls skip straight to the launch. The function below does the same on the CPU: its
# first call generates and compiles Python source, the others find it in the cache.

_compiled = {}


def jit_sum_of_squares(x: np.ndarray) -> float:
    key = (x.dtype.str, x.ndim)  # like Triton, specialise on the argument types
    if key not in _compiled:  # first call: generate the source and compile it
        source = "".join(f"def _helper{i}(x):\n    return x * {i} + 1\n" for i in range(500))
        source += "def kernel(x):\n    return float((x * x).sum())\n"
        namespace = {}
        exec(compile(source, "<jit>", "exec"), namespace)
        _compiled[key] = namespace["kernel"]
    return _compiled[key](x)


v = np.ones(1000, np.float32)
start = time.perf_counter()
jit_sum_of_squares(v)
first_call = time.perf_counter() - start
warm = do_bench(lambda: jit_sum_of_squares(v), warmup=3, repeat=30)
print_table(
    [tr("Call"), tr("Time")],
    [[tr("first call (compiles)"), fmt_time(first_call)], [tr("later calls, median"), fmt_time(warm.median)]],
)

# %%
Claims().add(tr("First call more than 10 times the median"), first_call > 10 * warm.median, True).show()

# %%
# The first call is many times slower than the rest, and none of that is the kernel's own time. A
# benchmark that includes it, or that averages it in, measures the compiler. Warm-up calls before the
# timed ones remove it; on a GPU they also let the caches, the memory allocator and the clocks
# settle.

# %%
# Reading the clock too early
# ---------------------------
# A CUDA kernel launch returns as soon as the kernel is queued; the GPU runs it later, while the CPU
# moves on. A worker thread behaves the same way: ``stream.submit(work)`` queues the sort and
# returns a future at once, and ``future.result()`` waits for it, as ``torch.cuda.synchronize()``
# waits for the GPU. Without the wait, the timer measures only the submission.

stream = ThreadPoolExecutor(max_workers=1)  # plays the GPU's stream
unsynced = do_bench(lambda: stream.submit(work), warmup=1, repeat=10)
stream.submit(lambda: None).result()  # drain the queue the unsynchronised loop left behind
synced = do_bench(lambda: stream.submit(work), warmup=1, repeat=10, sync=lambda future: future.result())
stream.shutdown()
print_table(
    [tr("Timer"), tr("Median")],
    [[tr("unsynchronised: submit only"), fmt_time(unsynced.median)],
     [tr("synchronised: submit, then wait for the result"), fmt_time(synced.median)]],
)

# %%
Claims().add(tr("Unsynchronised median below a fifth of the synchronised one"), unsynced.median < synced.median / 5,
             True).show()

# %%
# The unsynchronised timer reports only the time needed to hand the work over, a small fraction of
# the real cost; only the synchronised one includes the sort. On a GPU
# the same mistake makes any kernel look almost free. Worse, the queued work is not gone: it runs
# during whatever is timed next.

# %%
# Profiling: where does the time go?
# ----------------------------------
# A benchmark gives one number; a profiler splits it by function. On a GPU, ``torch.profiler`` lists
# the kernels and their CUDA time. On the CPU, Python's ``cProfile`` does the same for functions.
# Here it profiles one kernellab launch of the notes' GeLU kernel over 2¹⁶ elements, and ``pstats``
# sorts the functions by their own time.

import cProfile
import pstats
from pathlib import Path

import kernellab.triton as triton
import kernellab.triton.language as tl


@triton.jit
def triton_gelu_kernel(x_ptr, y_ptr, num_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < num_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    a = 0.79788456 * (x + 0.044715 * x * x * x)
    exp = tl.exp(2 * a)
    tanh = (exp - 1) / (exp + 1)
    y = 0.5 * x * (1 + tanh)
    tl.store(y_ptr + offsets, y, mask=mask)


x = rng.standard_normal(2**16).astype(np.float32)
y = np.empty_like(x)
triton_gelu_kernel[(64,)](x, y, x.size, BLOCK_SIZE=1024)  # warm up first, here too

profiler = cProfile.Profile()
profiler.enable()
triton_gelu_kernel[(64,)](x, y, x.size, BLOCK_SIZE=1024)
profiler.disable()
stats = pstats.Stats(profiler).stats  # (file, line, name) → (calls, primitive calls, own time, cumulative time, …)


def where(key) -> str:
    file, line, name = key
    return name if file == "~" else f"{Path(file).name}:{line} {name}"


top = sorted(stats.items(), key=lambda item: item[1][2], reverse=True)[:8]
total = sum(s[2] for s in stats.values())
print_table(
    [tr("Function"), tr("Calls"), tr("Own time"), tr("Share of own time"), tr("Cumulative time")],
    [[where(k), s[0], fmt_time(s[2]), f"{s[2] / total:.0%}", fmt_time(s[3])] for k, s in top],
)

# %%
calls = {name: s[0] for (file, _, name), s in stats.items() if file != "~"}
Claims().add(tr("Calls of the kernel, tl.load, tl.store for 64 programs"),
             f"{calls['triton_gelu_kernel']}, {calls['load']}, {calls['store']}", "1, 1, 1").show()

# %%
# The times in this table change from run to run; the call counts do not. They say something about
# the simulator itself: the kernel function ran **once** for all 64 programs, with one ``tl.load``
# and one ``tl.store``. kernellab runs a launch's programs together, each block value
# carrying a leading axis of programs, so numpy does the work of 64 programs in each call. That is
# what keeps simulating a whole launch cheap.
#
# The method is the same on a GPU: warm up, time many synchronised runs, report the median and the
# spread, then profile to find the one place worth optimising.
