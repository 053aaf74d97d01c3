"""
The first matmul kernels: naive and coalesced
=============================================

cuBLAS runs a 4096³ FP32 matrix multiplication on an RTX A6000 at about 23 TFLOP/s; Boehm's naive
CUDA kernel manages about 0.3. Where does a factor of 75 come from? The first step changes a single
line, the mapping from threads to output elements, and is six times faster. Why?

This page answers in four steps: what the hardware allows (the roofline), what one warp of each
kernel touches in memory (run on the simulator and counted), what those counts predict at 4096³
beside Boehm's measurements, and why a kernel needs a bounds check when the matrix is not a multiple
of the block.
"""
# %%
# Demo 1: the target — a 4096³ FP32 matmul should be compute-bound
# -----------------------------------------------------------------
#
# The work and the least traffic
# ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
# A product of two n×n matrices takes n³ fused multiply-adds, 2·n³ FLOPs. Each of the three
# matrices must cross the DRAM bus at least once, 3·n²·4 bytes in FP32. Their ratio is the highest
# arithmetic intensity the problem allows.

from kernellab import PERF_A6000, PERF_H100, Claims, fmt_bytes, fmt_num, fmt_time, print_table
from kernellab.i18n import _ as tr
from kernellab.model import gemm_flops, gemm_intensity, gemm_min_bytes

N = 4096
flops = gemm_flops(N)  # 2·n³
min_bytes = gemm_min_bytes(N)  # 3·n²·4
intensity = gemm_intensity(N)  # their ratio

print_table(
    [tr("Quantity"), tr("Formula"), tr("Value")],
    [
        [tr("FLOPs"), "2·n³", fmt_num(flops)],
        [tr("Least bytes moved"), "3·n²·4", fmt_bytes(min_bytes)],
        [tr("Intensity ceiling (FLOP/byte)"), "2·n³ / (3·n²·4)", f"{intensity:.0f}"],
    ],
)

# %%
# Two GPUs on the roofline
# ^^^^^^^^^^^^^^^^^^^^^^^^
# A kernel's speed is bounded by the FP32 peak and by the DRAM bandwidth times its intensity. The
# *ridge point*, peak over bandwidth, is the intensity where the two bounds meet: below it a kernel
# waits for memory, above it for arithmetic.

rows = []
for perf in (PERF_A6000, PERF_H100):
    peak = perf.peak_flops()
    rows.append([
        perf.name,
        f"{peak / 1e12:.1f} TFLOP/s",
        f"{perf.dram_bw / 1e9:.0f} GB/s",
        f"{perf.ridge():.0f}",
        fmt_time(flops / peak),
        fmt_time(min_bytes / perf.dram_bw),
    ])
print_table(
    [tr("GPU"), tr("FP32 peak (CUDA cores)"), tr("DRAM bandwidth"), tr("Ridge point (FLOP/byte)"),
     tr("Time at peak"), tr("Time to move the data once")],
    rows,
)

# %%
# The prose below states these numbers; the script checks them, so a change that breaks a claim
# breaks the build.

claims = Claims()
claims.add(tr("Intensity ceiling (FLOP/byte)"), round(intensity), 683)
claims.add(tr("Ridge point, RTX A6000 (FLOP/byte)"), round(PERF_A6000.ridge()), 50)
claims.add(tr("Ridge point, H100 (FLOP/byte)"), round(PERF_H100.ridge()), 20)
claims.add(tr("FP32 peak, RTX A6000 (TFLOP/s)"), PERF_A6000.peak_flops() / 1e12, 38.7, sig=3)
claims.add(tr("FP32 peak, H100 (TFLOP/s)"), PERF_H100.peak_flops() / 1e12, 66.9, sig=3)
claims.add(tr("Compute-bound: ceiling above the A6000's ridge"), bool(intensity > 10 * PERF_A6000.ridge()), True)
claims.add(tr("Time at peak, RTX A6000 (ms)"), round(flops / PERF_A6000.peak_flops() * 1e3, 2), 3.55)
claims.add(tr("Time to move the data once, RTX A6000 (ms)"), round(min_bytes / PERF_A6000.dram_bw * 1e3, 2), 0.26)
claims.show()

# %%
# The matmul's ceiling of 683 FLOP/byte is far above both ridge points, about 50 FLOP/byte on the
# RTX A6000 and 20 on the H100. A 4096³ matmul should therefore be **compute-bound**: an ideal kernel
# reads every number from DRAM once and reuses it on chip many times. On the A6000, the arithmetic
# at the 38.7 TFLOP/s peak takes 3.55 ms, while moving the data once takes only 0.26 ms.
#
# Every optimisation in this lecture does the same thing: it makes data get reused closer to the
# arithmetic units, in L1, then shared memory, then registers.

# %%
# What cuBLAS reaches
# ^^^^^^^^^^^^^^^^^^^
# Boehm measured cuBLAS at 23249.6 GFLOP/s on the A6000.

cublas = 23249.6e9
print_table(
    [tr("Kernel"), tr("GFLOP/s"), tr("Time"), tr("Fraction of FP32 peak")],
    [["cuBLAS", f"{cublas / 1e9:.1f}", fmt_time(flops / cublas), f"{cublas / PERF_A6000.peak_flops():.0%}"]],
)

# %%
Claims().add(tr("cuBLAS, fraction of FP32 peak (%)"), round(100 * cublas / PERF_A6000.peak_flops()), 60) \
    .add(tr("cuBLAS (TFLOP/s)"), round(cublas / 1e12), 23).show()

# %%
# cuBLAS reaches only about 60 % of the FP32 peak: the CUDA-core peak is hard to approach (clocks
# drop under full load, and address arithmetic costs instructions too). From here on, every
# "percent" of this lecture is a percentage of cuBLAS.

# %%
# The roofline
# ^^^^^^^^^^^^
# Attainable FLOP/s against arithmetic intensity, on logarithmic axes, for both GPUs. The dots mark
# the ridge points; the dashed line is the matmul's intensity ceiling; the star is cuBLAS.

import matplotlib.pyplot as plt
import numpy as np

from kernellab.figures import use_cjk_font

use_cjk_font()
x = np.logspace(-1, 4, 400)
fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
for perf, color, dy in ((PERF_A6000, "C0", -16), (PERF_H100, "C1", 8)):
    peak = perf.peak_flops()
    ax.loglog(x, np.minimum(peak, x * perf.dram_bw) / 1e12, color=color, label=perf.name)
    ax.plot(perf.ridge(), peak / 1e12, "o", color=color)
    ax.annotate(tr("ridge {ridge:.0f} FLOP/byte").format(ridge=perf.ridge()), (perf.ridge(), peak / 1e12),
                textcoords="offset points", xytext=(0, dy), ha="center", color=color, fontsize=9)
ax.axvline(intensity, color="0.4", ls="--", lw=1)
ax.annotate(tr("4096³ matmul ceiling"), (intensity, 200), textcoords="offset points", xytext=(-5, 0),
            ha="right", color="0.3", fontsize=9)
ax.plot(intensity, cublas / 1e12, "*", color="C0", ms=11, label=tr("cuBLAS on the RTX A6000"))
ax.set_xlabel(tr("Arithmetic intensity (FLOP/byte)"))
ax.set_ylabel(tr("Attainable TFLOP/s (FP32)"))
ax.set_title(tr("FP32 roofline"))
ax.set_ylim(0.05, 400)
ax.legend(loc="lower right")
plt.show()

# %%
# Demo 2: naive against coalesced, simulated and counted
# ------------------------------------------------------
# Both kernels compute one element of C per thread with the same loop over K. They differ only in
# which thread computes which element. In Boehm's naive kernel ``threadIdx.x`` indexes the *row*, so
# the 32 threads of a warp work on 32 different rows; the coalesced kernel gives a warp 32
# consecutive *columns* of one row. Here are the two kernels as kernellab runs them:

import inspect

from kernellab import KERNELS, per_fma, run_kernel
from kernellab.access import SECTOR_BYTES, WARP_SIZE

naive, coalesced = KERNELS[0], KERNELS[1]
print(inspect.getsource(naive.kernel))
print(inspect.getsource(coalesced.kernel))

# %%
# The simulator runs both at 128³ against a float64 reference and counts, for every warp
# instruction, the requests, the 128-byte lines and the 32-byte sectors it touches. A "warp step"
# is one iteration of the K loop for one warp: 32 FMAs.

N_SIM = 128
rng = np.random.default_rng(0)
A = rng.standard_normal((N_SIM, N_SIM)).astype(np.float32)
B = rng.standard_normal((N_SIM, N_SIM)).astype(np.float32)
ref = A.astype(np.float64) @ B.astype(np.float64)

stats = {}
rows = []
for spec in (naive, coalesced):
    C, st = run_kernel(spec, A, B)
    stats[spec.name] = st
    steps = st.fma / WARP_SIZE
    rows.append([spec.name, f"{np.abs(C - ref).max():.1e}", f"{st.load_requests / steps:.2f}",
                 f"{st.load_lines / steps:.2f}", f"{st.load_sectors / steps:.2f}",
                 f"{st.load_sectors * SECTOR_BYTES / st.fma:.1f}", f"{per_fma(st)['warp_instr'] * 1000:.0f}"])
print_table(
    [tr("Kernel"), tr("Max error"), tr("Load instructions per warp step"), tr("128 B lines per warp step"),
     tr("32 B sectors per warp step"), tr("Bytes through L1 per FMA (sectors × 32)"),
     tr("Warp instructions per 1000 FMAs")],
    rows,
)

# %%
st1, st2 = stats[naive.name], stats[coalesced.name]
steps = st1.fma / WARP_SIZE
claims = Claims()
claims.add(tr("Same FMAs and same bytes loaded in both"),
           st1.fma == st2.fma == N_SIM**3 and st1.load_bytes == st2.load_bytes, True)
claims.add(tr("Load instructions per warp step, naive / coalesced"),
           f"{st1.load_requests / steps:g} / {st2.load_requests / steps:g}", "2 / 2")
claims.add(tr("128 B lines per warp step, naive / coalesced"),
           f"{st1.load_lines / steps:g} / {st2.load_lines / steps:g}",
           "33 / 2")
claims.add(tr("Fewer lines in the coalesced kernel"), st1.load_lines / st2.load_lines, 16.5)
claims.add(tr("Bytes through L1 per FMA, naive / coalesced"),
           f"{st1.load_sectors * SECTOR_BYTES / st1.fma:g} / {st2.load_sectors * SECTOR_BYTES / st2.fma:g}", "33 / 5")
# the page's opening claims: cuBLAS / naive ≈ 75, naive ≈ 0.3 TFLOP/s, coalesced ≈ 6× naive
claims.add(tr("cuBLAS / naive, measured"), round(cublas / 1e9 / naive.boehm), 75)
claims.add(tr("Naive, measured (TFLOP/s)"), round(naive.boehm / 1e3, 1), 0.3)
claims.add(tr("Coalesced / naive, measured"), round(coalesced.boehm / naive.boehm), 6)
claims.show()

# %%
# The two kernels execute exactly the same FMAs and load exactly the same bytes; each warp step issues
# 2 load instructions in both. What differs is what those instructions touch. In the naive kernel
# the 32 threads of a warp read A from 32 different rows, K·4 bytes apart: 32 lines. They all read
# the same element of B, which is one line. 33 lines per warp step. In the coalesced kernel the warp
# reads one element of A (a broadcast, one line) and 32 consecutive floats of B, 128 bytes that
# fill exactly one line: 2 lines per warp step, 16.5 times fewer.
#
# Sectors tell the same story in bytes. A naive thread wants 4 bytes of A but the L1 moves a whole
# 32-byte sector for it, so only an eighth is used: 33 bytes go through the L1 per FMA. The coalesced
# kernel needs 5: one sector for the broadcast of A and four for B's 128 bytes, shared by 32 FMAs.
#
# The picture below shows it for the first warp step of the first warp. Each row is one 128-byte
# line the warp touches, each column one of its four 32-byte sectors.

from kernellab import Access
from kernellab.access import lines, sectors


def warp_lines(addresses):
    """The (line, sector) grid one warp instruction touches: one row per distinct line."""
    acc = Access.from_lanes(addresses, width=4)
    touched = np.unique(acc.addresses // SECTOR_BYTES)
    line_ids = np.unique(touched // 4)
    grid = np.zeros((len(line_ids), 4))
    grid[np.searchsorted(line_ids, touched // 4), touched % 4] = 1
    return grid, lines(acc), sectors(acc)


lane = np.arange(WARP_SIZE)
K = N = N_SIM
patterns = {  # byte addresses of the first warp's loads at k = 0, as the kernels above compute them
    (naive.name, "A"): lane * K * 4,  # x = threadIdx.x: 32 rows, K floats apart
    (naive.name, "B"): np.zeros(WARP_SIZE, int),  # y = threadIdx.y = 0 for the whole warp: one element
    (coalesced.name, "A"): np.zeros(WARP_SIZE, int),  # row = threadIdx.x / 32 = 0: one element
    (coalesced.name, "B"): lane * 4,  # col = threadIdx.x % 32: 32 consecutive floats
}
fig, axes = plt.subplots(1, 4, figsize=(8, 4.2), layout="constrained", sharey=True)
for ax, ((kernel, array), addresses) in zip(axes, patterns.items()):
    grid, n_lines, n_sectors = warp_lines(addresses)
    shown = np.zeros((32, 4))
    shown[: len(grid)] = grid
    ax.imshow(shown, cmap="Blues", vmin=0, vmax=1.3, aspect="auto")
    ax.set_title(tr("{kernel}: {array}\n{lines} lines, {sectors} sectors").format(
        kernel=kernel.removeprefix("sgemm_"), array=array, lines=n_lines, sectors=n_sectors), fontsize=9)
    ax.set_xticks(range(4))
    ax.set_xlabel(tr("sector in the line"))
    ax.set_yticks([0, 31], ["1", "32"])
axes[0].set_ylabel(tr("distinct 128-byte lines touched"))
plt.show()

# %%
# Line by line, as a profiler shows it
# ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
# Nsight Compute's Source page puts these counts beside the kernel's lines. Launched with
# ``lines=True``, the simulator counts every line of the kernel on its own, and ``counts.source()``
# shows the kernel with them (see :doc:`/profiling`). In the naive kernel the marked line is the load
# of A: each request touches 32 sectors where a coalesced one would need 4 (the *ideal* sectors,
# 32 lanes × 4 bytes = 128 bytes), while the load of B touches 1.

from kernellab import show

columns = ["Requests", "Sectors", "Sectors/request", "Ideal sectors", "Excess sectors"]
_, naive_lines = run_kernel(naive, A, B, lines=True)
show(naive_lines.source(columns=columns))

# %%
# The coalesced kernel moves the 32 sectors off the A line: its A load is the broadcast (1 sector a
# request) and its B load reads 32 consecutive floats, 4 sectors, exactly the ideal.

_, coalesced_lines = run_kernel(coalesced, A, B, lines=True)
show(coalesced_lines.source(columns=columns))

# %%
# The report's finding names the line and the metric, as Nsight Compute's rule does (the whole
# report, section by section, is shown on :doc:`/profiling`):


def row_of(counts, text):
    """The counts of the kernel's line that starts with ``text``."""
    (key,) = [k for k in counts.by_line if counts.by_line.line(k).startswith(text)]
    return key[1], counts.by_line[key]


a_line, a_naive = row_of(naive_lines, "a = blk.load(A")
_, b_naive = row_of(naive_lines, "b = blk.load(B")
_, a_coal = row_of(coalesced_lines, "a = blk.load(A")
_, b_coal = row_of(coalesced_lines, "b = blk.load(B")
finding = naive_lines.report().findings[0]
print(finding)
excess = naive_lines.sectors - naive_lines.gld_ideal_sectors - naive_lines.gst_ideal_sectors
share = (a_naive.sectors - a_naive.gld_ideal_sectors) / excess
Claims() \
    .add(tr("Naive: sectors per request on the A line / the B line"),
         f"{a_naive.sectors / a_naive.requests:g} / {b_naive.sectors / b_naive.requests:g}", "32 / 1") \
    .add(tr("Coalesced: sectors per request on the A line / the B line"),
         f"{a_coal.sectors / a_coal.requests:g} / {b_coal.sectors / b_coal.requests:g}", "1 / 4") \
    .add(tr("Naive: share of the excess sectors on the A line (%)"), round(100 * share, 1), 99.2) \
    .add(tr("Coalesced: excess sectors of its loads"), a_coal.sectors + b_coal.sectors
         - a_coal.gld_ideal_sectors - b_coal.gld_ideal_sectors, 0) \
    .add(tr("The finding names the A line"), tr("{rule}, line {line}").format(rule=tr(finding.rule), line=finding.line),
         tr("{rule}, line {line}").format(rule=tr("uncoalesced"), line=a_line)) \
    .show()

# %%
# The A line holds 99.2 % of the naive kernel's excess sectors; the rest is its store of C, which
# also walks down a column. In the coalesced kernel neither load has an excess sector left: what the
# naive kernel paid for on one line is exactly what the fix removed.

# %%
# Where one warp's 32 addresses fall
# ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
# The counts come from where the 32 addresses of one warp instruction land in memory. A and B are
# row-major, and a row of 128 floats is four 128-byte lines: the first 32 floats of a row, the width
# drawn below, are exactly one line. The picture shows the top-left 32×32 corner of each matrix for
# the first warp at k = 0, as in the heat-map above: a blue square is an element a lane reads, and a
# red strip is a line the instruction touches.

from matplotlib.patches import Rectangle


def draw_warp(ax, addresses, n_cols, title):
    """Mark the elements a warp reads in the top-left 32×32 corner of a row-major matrix, and frame
    each 128-byte line it touches. Returns the number of lines framed."""
    element = np.asarray(addresses) // 4
    row, col = element // n_cols, element % n_cols
    assert (row < 32).all() and (col < 32).all()  # the corner holds every element the warp reads
    picture = np.zeros((32, 32))
    picture[row, col] = 1
    ax.imshow(picture, cmap="Blues", vmin=0, vmax=1, aspect="equal")
    framed = np.unique(np.asarray(addresses) // 128)
    for line in framed:  # 32 floats of one row; the corner's rows start on a line boundary
        first = line * 32
        ax.add_patch(Rectangle((first % n_cols - 0.5, first // n_cols - 0.5), 32, 1, fc=(0.84, 0.15, 0.16, 0.2),
                               ec="C3", lw=0.8))
    ax.set_title(title, fontsize=9)
    ax.set_xticks([0, 31])
    ax.set_yticks([0, 31])
    ax.set_xlabel(tr("column"))
    ax.set_ylabel(tr("row"))
    return len(framed)


fig, axes = plt.subplots(1, 4, figsize=(9, 3.2), layout="constrained")
framed = {}
for ax, ((kernel, array), addresses) in zip(axes, patterns.items()):
    acc = Access.from_lanes(addresses, width=4)
    title = tr("{kernel}: {array}\n{lines} lines, {sectors} sectors").format(
        kernel=kernel.removeprefix("sgemm_"), array=array, lines=lines(acc), sectors=sectors(acc))
    framed[kernel, array] = draw_warp(ax, addresses, N_SIM, title)
    assert framed[kernel, array] == lines(acc)  # the frames are the simulator's line count
# the figure's own title, first in its alt text: the heat-map above has the same four panel titles
fig.suptitle(tr("Top-left 32×32 corner of each matrix: what the first warp's lanes read at k = 0 (blue) "
                "and the lines they touch (red)"), fontsize=10)
plt.show()
Claims().add(tr("Bytes between the naive kernel's lanes in A (K·4)"), K * 4, 512) \
    .add(tr("Lines framed: naive A, naive B, coalesced A, coalesced B"), " / ".join(map(str, framed.values())),
         "32 / 1 / 1 / 1") \
    .show()

# %%
# In the naive kernel lane ``l`` reads ``A[l, 0]``: a column, 32 addresses K·4 = 512 bytes apart, so
# every lane needs a line of its own, 32 in all, and uses 4 bytes of it. Every lane reads the same
# ``B[0, 0]``, one line. In the coalesced kernel every lane reads ``A[0, 0]``, one line, and lane ``l``
# reads ``B[0, l]``: 32 adjacent floats, 128 bytes, exactly one line. Same arithmetic, same bytes
# wanted; what changes is whether neighbouring lanes want neighbouring addresses.

# %%
# Demo 3: scale to 4096³, predict, compare with measurement
# ---------------------------------------------------------
# The counts of a 128³ run scale to 4096³: loads and FMAs grow as n³, stores of C and the distinct
# sectors as n². The performance model divides each count by its resource's rate on the A6000 —
# FMAs by the FP32 lanes, warp instructions by the four schedulers per SM, L1 lines by one line per
# SM per cycle, bytes by the DRAM bandwidth — and the slowest resource sets the time.

from kernellab import A6000, predict, scale_counts
from kernellab.model import resource_label

N_BIG = 4096
predictions = {}
rows = []
for spec in (naive, coalesced):
    p = predict(spec, scale_counts(stats[spec.name], N_BIG), N_BIG, PERF_A6000, A6000)
    predictions[spec.name] = p
    rows.append([spec.name, fmt_time(p["t_fma"]), fmt_time(p["t_issue"]), fmt_time(p["t_l1"]),
                 fmt_time(p["t_dram"]), resource_label(p["bound"]), f"{p['gflops']:.0f}", f"{spec.boehm:.0f}",
                 f"{spec.boehm / p['gflops']:.2f}"])
print_table(
    [tr("Kernel"), tr("FP32 arithmetic"), tr("Instruction issue"), tr("L1 (one line per cycle)"), tr("DRAM"),
     tr("Bound"), tr("Model GFLOP/s"), tr("Boehm measured GFLOP/s"), tr("Measured / model")],
    rows,
)

# %%
p1, p2 = predictions[naive.name], predictions[coalesced.name]
claims = Claims()
claims.add(tr("Bound, naive / coalesced"), f"{p1['bound']} / {p2['bound']}", "L1 / L1")
claims.add(tr("Naive: model / measured (GFLOP/s)"), f"{round(p1['gflops'], -1):.0f} / {naive.boehm:.0f}", "290 / 309")
claims.add(tr("Coalesced: model / measured (TFLOP/s)"),
           f"{p2['gflops'] / 1e3:.1f} / {coalesced.boehm / 1e3:.1f}", "4.8 / 2.0")
claims.add(tr("Coalesced: measured / model"), round(coalesced.boehm / p2["gflops"], 1), 0.4)
claims.add(tr("L1 time, naive / coalesced"), round(p1["t_l1"] / p2["t_l1"], 1), 16.5)
claims.show()

# %%
# For the naive kernel the model says the L1 is the bottleneck: 33 lines per 32 FMAs, and the L1
# processes one line per cycle. That gives about 290 GFLOP/s, close to the 309 Boehm measured. It is
# not DRAM that is slow here; the lines queue up in the L1 one after another.
#
# The coalesced kernel takes 16.5 times less L1 time, and the model's bound jumps to about
# 4.8 TFLOP/s, but Boehm measured 2.0: about 40 % of the model. The bound counts throughput only:
# it sees no latency and no address arithmetic. Past this step the bottleneck is no longer the L1
# but the two loads every FMA still needs, which the next page moves into shared memory.
#
# A model is an upper bound. A measurement close to it says the model found the bottleneck; a
# measurement far below it says something the model does not see is in the way. Both are useful.

fig, ax = plt.subplots(figsize=(6.5, 3.4), layout="constrained")
names = [spec.name for spec in (naive, coalesced)]
xs = np.arange(len(names))
model_g = [predictions[n]["gflops"] for n in names]
measured_g = [naive.boehm, coalesced.boehm]
ax.bar(xs - 0.2, model_g, 0.4, label=tr("model (upper bound)"), color="C0")
ax.bar(xs + 0.2, measured_g, 0.4, label=tr("Boehm, measured"), color="C2")
for x, g, n in zip(xs, model_g, names):
    ax.annotate(tr("bound: {resource}").format(resource=resource_label(predictions[n]["bound"])), (x - 0.2, g),
                textcoords="offset points", xytext=(0, 3), ha="center", fontsize=9)
ax.set_xticks(xs, names)
ax.set_ylabel("GFLOP/s")
ax.set_ylim(0, max(model_g) * 1.18)
ax.set_title(tr("Model against measurement at 4096³ on the RTX A6000"))
ax.legend(loc="upper left")
plt.show()

# %%
# Demo 4: bounds checks — M = 100, N = 70, K = 50
# -----------------------------------------------
# None of the three sizes is a multiple of 32. The grid is still launched in whole 32×32 blocks,
# so there are more threads than elements of C, and the extra threads must do nothing. Both kernels
# guard their work with ``x < M and y < N``; below, the naive kernel runs once more without that
# guard.

from kernellab import OutOfBoundsError, cdiv, launch


def naive_no_check(blk, A, B, C, M, N, K):
    """The naive kernel without its bounds check: threads past the matrix read and write too."""
    x = blk.bx * blk.bdx + blk.tx
    y = blk.by * blk.bdy + blk.ty
    acc = np.zeros(blk.n_threads, dtype=np.float32)
    for i in range(K):
        acc += blk.load(A, x * K + i) * blk.load(B, i * N + y)
    blk.store(C, x * N + y, acc)


M4, N4, K4 = 100, 70, 50
rng = np.random.default_rng(1)
A4 = rng.standard_normal((M4, K4)).astype(np.float32)
B4 = rng.standard_normal((K4, N4)).astype(np.float32)
ref4 = A4.astype(np.float64) @ B4
rows = []
efficiency = {}
for spec in (naive, coalesced):
    C4, st = run_kernel(spec, A4, B4)
    efficiency[spec.name] = st.simt_efficiency()
    rows.append([spec.name + tr(" (bounds-checked)"), f"{np.abs(C4 - ref4).max():.1e}",
                 f"{st.simt_efficiency():.1%}", "—"])
C4 = np.zeros((M4, N4), dtype=np.float32)
grid4 = (cdiv(M4, 32), cdiv(N4, 32))
try:
    launch(naive_no_check, grid4, (32, 32), args=(A4, B4, C4, M4, N4, K4))
    report = tr("no error")
except OutOfBoundsError as e:
    report = f"{type(e).__name__}: {e}"
rows.append([tr("naive, no bounds check"), "—", "—", report])
print_table([tr("Kernel"), tr("Max error"), tr("SIMT efficiency (active lanes)"), tr("Simulator report")], rows)

# %%
threads = grid4[0] * grid4[1] * 32 * 32
claims = Claims()
claims.add(tr("Grid (blocks)"), f"{grid4[0]} × {grid4[1]}", "4 × 3")
claims.add(tr("Threads launched"), threads, 12288)
claims.add(tr("Share of threads with work (%)"), round(100 * M4 * N4 / threads), 57)
claims.add(tr("Without the check: out of bounds"), report.startswith("OutOfBoundsError"), True)
claims.add(tr("SIMT efficiency below 100 %, both checked kernels"), all(e < 1 for e in efficiency.values()), True)
claims.show()

# %%
# The grid is ⌈100/32⌉ × ⌈70/32⌉ = 4 × 3 blocks of 1024 threads: 12288 threads for 7000 elements, so
# 57 % of the threads have work. Without the check, the first thread past the edge reads outside A.
# The simulator stops there and names the kernel, block, thread, array, index and size, as
# compute-sanitizer would. A real GPU may instead read another array's data and compute a wrong
# result silently, or crash on an illegal address: the most common kind of bug in generated kernels.
#
# SIMT efficiency, the average share of a warp's 32 lanes that are active per instruction, is below
# 100 % for both checked kernels: in the edge blocks part of each warp is masked off and idles. The
# smaller the matrix and the larger the block, the larger this waste. The map below shows which
# threads of the launch have an element to compute.

x = np.arange(grid4[0] * 32)[:, None]
y = np.arange(grid4[1] * 32)[None, :]
active = (x < M4) & (y < N4)
fig, ax = plt.subplots(figsize=(5.2, 5.6), layout="constrained")
ax.imshow(active, cmap="Greens", vmin=-0.3, vmax=1.2, origin="upper", interpolation="nearest")
for b in range(1, grid4[0]):
    ax.axhline(b * 32 - 0.5, color="0.3", lw=0.8)
for b in range(1, grid4[1]):
    ax.axvline(b * 32 - 0.5, color="0.3", lw=0.8)
ax.set_xlabel(tr("y = blockIdx.y · 32 + threadIdx.y (column of C)"))
ax.set_ylabel(tr("x = blockIdx.x · 32 + threadIdx.x (row of C)"))
ax.set_title(tr("Active threads of the 4 × 3 grid: {active} of {threads}").format(
    active=int(active.sum()), threads=threads))
plt.show()

# %%
# Boehm's later kernels, like the ones on the next pages, assume shapes that are multiples of their
# tiles. Production code either keeps the bounds checks or pads its inputs to whole tiles.
