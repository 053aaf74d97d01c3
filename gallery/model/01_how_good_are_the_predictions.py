"""
How good are the predictions?
=============================

Every ``triton.testing.do_bench`` and every ``predict`` in kernellab prints a time for a GPU that is not
there. This page holds those times against 57 measurements that other people made on real GPUs and
published: Triton's tutorials on the A100 and the H100, cuBLAS, FlashAttention-2 and -3, CUB, and
microbenchmarks of copies, special functions and memory latency.

Each published kernel was rebuilt as a kernel of this project, at its published size and launch, and
predicted on its GPU as a user would predict it; ``python3 -m nox -s validate`` does it and writes the
file this page reads. You will see which kinds of kernels the model predicts well, which it does not,
how it has changed, and how far apart the measurements themselves are.
"""

# %%
# The file of results
# -------------------
# ``kernellab/validation.json`` ships with kernellab. For each row of the published measurements it
# holds the kernel that stands in for the published one, the prediction, the measurement and their
# ratio, and the same for the model as it was at commit ``75152b7``, before its per-SM timing model.
#
# The ratio is a **time ratio**: predicted time ÷ measured time. A rate (GB/s, TFLOP/s) becomes a time
# by its source's own formula (2·M·N·K FLOPs for a matrix product, 4·B·H·N²·d for attention, the
# bytes each Triton tutorial counts), so a ratio above 1 says the model expects the kernel to be
# slower than it ran, below 1 faster. A row is a hit when its ratio lies in [0.8, 1.25], and close
# when it lies in [0.5, 2].

import json
from importlib.resources import files

import matplotlib.pyplot as plt
import numpy as np

from kernellab import A100, H100, Claims, Table, print_table, show
from kernellab.figures import use_cjk_font
from kernellab.i18n import _ as tr
from kernellab.model import estimate_label
from kernellab.model.timer import FLUSH_BYTES_2024, flush_seconds
from kernellab.specs import PERF_H100

results = json.loads((files("kernellab") / "validation.json").read_text(encoding="utf-8"))
rows = results["rows"]
by_id = {r["id"]: r for r in rows}
before = {r["id"]: r for r in results["before"]["rows"]}
scored = [r for r in rows if r["role"] in ("scored", "ratio")]
ROLES = {"scored": tr("scored"), "ratio": tr("scored on its ratio to {row}"), "reference": tr("reference row"),
         "not scored": tr("not scored"), "in-sample": tr("in-sample (fitted a constant)")}

print_table([tr("What"), tr("Value")], [
    [tr("Published measurements"), len(rows)],
    [tr("Scored rows"), len(scored)],
    [tr("Scored on their ratio to a reference row"), sum(r["role"] == "ratio" for r in rows)],
    [tr("Reported, not scored"), sum(r["role"] in ("reference", "not scored", "in-sample") for r in rows)],
    [tr("Model now (commit)"), results["commit"]],
    [tr("Model before (commit)"), results["before"]["commit"]],
])

# %%
Claims().add(tr("Published measurements"), len(rows), 57) \
    .add(tr("Reference rows, an envelope and a second machine"),
         sum(r["role"] in ("reference", "not scored") for r in rows), 8) \
    .add(tr("The model before"), results["before"]["commit"], "75152b7") \
    .add(tr("The envelope AF-18 ÷ the A100's Tensor Core peak"), by_id["AF-18"]["measured"] * 1e12
         / A100.fp16_tensor_peak, 0.73, sig=2).show()

# %%
# Of the 57 rows, 8 are reported without a score: the reference rows of one source whose absolute
# numbers disagree with other reports (only its ratios count), an envelope (FlashAttention-2 "up to
# 73 % of the peak" of an A100) and a second run of the same cuBLAS call on another machine. A row
# that cannot be predicted at all (no spec for its GPU, no form here for its kernel) stays among the
# scored rows as a miss; the last column of the table of rows names any. A row that an efficiency of
# the model was fitted on is in-sample: it too is reported without a score, and the first table counts
# it among those.
#
# Before and now, category by category
# ------------------------------------
# The shares of the scored rows within each window, and the geometric mean of their ratios (1 is
# right on average; 0.5, twice too fast). The goal row gives what issue 32 asks of the model.

GOALS = (0.80, 0.95)  # issue 32: 80 % of the scored rows within [0.8, 1.25], 95 % within [0.5, 2]
CATEGORY = {"memory-bound elementwise": tr("memory-bound elementwise"), "softmax": tr("softmax"),
            "layer norm": tr("layer norm"), "GEMM large": tr("GEMM, large"),
            "GEMM small-or-tail": tr("GEMM, small or tail"), "launch overhead": tr("launch overhead"),
            "attention fwd": tr("attention, forward"), "attention bwd": tr("attention, backward"),
            "microbenchmark throughput": tr("microbenchmark throughput"), "latency": tr("latency")}


def pct(x):
    return "—" if x is None else f"{x:.0%}"


def gm(x):
    return "—" if x is None else f"{x:.2f}"


now_s, before_s = results["summary"], results["before"]["summary"]
lines = [[tr("all"), now_s["all"]["rows"]]]
for key in ("within_1.25", "within_2"):
    lines[0] += [pct(now_s["all"][key]), pct(before_s["all"][key])]
lines[0] += [gm(now_s["all"]["geomean"]), gm(before_s["all"]["geomean"])]
for cat, s in now_s["categories"].items():
    b = before_s["categories"][cat]
    lines.append([CATEGORY[cat], s["rows"], pct(s["within_1.25"]), pct(b["within_1.25"]), pct(s["within_2"]),
                  pct(b["within_2"]), gm(s["geomean"]), gm(b["geomean"])])
lines.append([tr("goal"), "", pct(GOALS[0]), "", pct(GOALS[1]), "", "1.00", ""])
show(Table([tr("Category"), tr("Scored rows"), tr("Within [0.8, 1.25], now"), tr("before"),
            tr("Within [0.5, 2], now"), tr("before"), tr("Geometric mean, now"), tr("before")], lines))

# %%
# Predicted against measured
# --------------------------
# One panel per category, both axes logarithmic and in seconds: a point on the diagonal is a perfect
# prediction, the dark band is [0.8, 1.25] and the light one [0.5, 2]. Filled markers are the model
# now, grey rings the model before, joined by a line where it moved. Diamonds are rows scored on
# their ratio to a reference row; crosses are rows reported without a score.

use_cjk_font()
cats = list(CATEGORY)
STYLE = {"scored": ("o", "C0"), "ratio": ("D", "C1")}  # any other role: ("x", grey)
fig, axes = plt.subplots(4, 3, figsize=(8.5, 10.5), layout="constrained")
for ax in axes.flat[len(cats):]:
    ax.remove()
for ax, cat in zip(axes.flat, cats):
    members = [r for r in rows if r["category"] == cat and r["ratio"] is not None]
    t = [r["measured_seconds"] * f for r in members for f in (1, r["ratio"], before[r["id"]]["ratio"] or 1)]
    mid, half = np.sqrt(min(t) * max(t)), max(np.sqrt(max(t) / min(t)) * 3, 30)  # at least three decades
    lo, hi = mid / half, mid * half
    grid = np.geomspace(lo, hi, 50)
    ax.fill_between(grid, grid * 0.5, grid * 2, color="C2", alpha=0.12, lw=0)
    ax.fill_between(grid, grid * 0.8, grid * 1.25, color="C2", alpha=0.25, lw=0)
    ax.plot(grid, grid, color="C2", lw=0.8)
    for r in members:
        x = r["measured_seconds"]
        old = before[r["id"]]["ratio"]
        if old is not None:
            ax.plot([x, x], [old * x, r["ratio"] * x], color="0.6", lw=0.7, zorder=1)
            ax.plot(x, old * x, "o", mfc="none", mec="0.55", ms=8, zorder=2)
        marker, color = STYLE.get(r["role"], ("x", "0.3"))
        ax.plot(x, r["ratio"] * x, marker, color=color, ms=5, zorder=3)
        ax.annotate(r["id"], (x, r["ratio"] * x), xytext=(3, 3), textcoords="offset points", fontsize=6.5)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.xaxis.set_minor_formatter(plt.NullFormatter())
    ax.yaxis.set_minor_formatter(plt.NullFormatter())
    ax.set_title(CATEGORY[cat], fontsize=10)
for ax in axes[:, 0]:
    ax.set_ylabel(tr("Predicted time (s)"))
for ax in axes.flat[len(cats) - 3:len(cats)]:
    ax.set_xlabel(tr("Measured time (s)"))
legend = [plt.Line2D([], [], ls="", marker="o", color="C0", label=tr("scored, now")),
          plt.Line2D([], [], ls="", marker="D", color="C1", label=tr("scored on a ratio, now")),
          plt.Line2D([], [], ls="", marker="x", color="0.3", label=tr("not scored, now")),
          plt.Line2D([], [], ls="", marker="o", mfc="none", mec="0.55", ms=8,
                     label=tr("before (commit {commit})").format(commit=results["before"]["commit"])),
          plt.Rectangle((0, 0), 1, 1, color="C2", alpha=0.25, lw=0, label=tr("within [0.8, 1.25]")),
          plt.Rectangle((0, 0), 1, 1, color="C2", alpha=0.12, lw=0, label=tr("within [0.5, 2]"))]
fig.legend(handles=legend, loc="lower right", bbox_to_anchor=(0.97, 0.06), fontsize=9)
fig.suptitle(tr("kernellab's predictions against published measurements"))
plt.show()

# %%
# Row by row
# ----------
# Each row's GPU (a row whose variant was not published is predicted on the SXM part), what stands in
# for its kernel, the measurement and the prediction in the row's own unit, the time ratio, the score
# (the ratio, or for a low-confidence row its ratio divided by its reference row's) and the term that
# sets the model's estimate.

KINDS = {"own": tr("our kernel, the row's algorithm"), "cublas": tr("tutorial matmul, autotuned, for cuBLAS"),
         "fastcu": tr("tutorial matmul, the row's tile, for fast.cu"),
         "fa": tr("tutorial attention for FlashAttention"), "k10": tr("Boehm's kernel 10 for cuBLAS SGEMM"),
         "cub": tr("SIMT transform for CUB")}
UNITS = {"cycles per warp-instruction": tr("cycles per warp instruction"), "cycles": tr("cycles"),
         "cycles (288.1 ns)": tr("cycles")}


def value(x):
    return "—" if x is None else f"{x:.3g}"


def binding(r):
    try:
        return estimate_label(r["bound"])
    except ValueError:  # a term this kernellab does not name
        return r["bound"] or "—"


def counts_as(r):
    return tr("miss: no prediction") if r["error"] else ROLES[r["role"]].format(row=r.get("ratio_to"))


show(Table([tr("Row"), tr("Category"), tr("GPU"), tr("Stands in"), tr("Unit"), tr("Measured"), tr("Predicted"),
            tr("Time ratio"), tr("Score"), tr("Binding term"), tr("Counts as")],
           [[r["id"], CATEGORY[r["category"]], r["gpu"] or tr("no spec"), KINDS[r["kind"]],
             UNITS.get(r["unit"], r["unit"]), value(r["measured"]), value(r["predicted"]), value(r["ratio"]),
             value(r["score"]), binding(r) if r["bound"] else "—", counts_as(r)] for r in rows]))

# %%
# How far apart are the measurements themselves?
# ----------------------------------------------
# A prediction cannot be closer to a row than the row is to the truth, and published numbers disagree.
# The same cuBLAS call measured 798 TFLOP/s on one H100 and 519 on another (rows GL-01 and GL-10): a
# factor of 1.54, far outside the hit window. One README of microbenchmarks reports a whole-GPU copy at
# 1992 GB/s, 59 % of the H100's 3.35 TB/s, well below other H100 reports; its rows are scored only on
# their ratios to each other (a few SMs against all of them, ``__expf`` against FADD, shared memory
# against HBM). Triton's softmax tutorial was reported at 676 GB/s on an A100, 33 % of its 2039 GB/s,
# on an unstated variant of the card; the same run measured torch's own softmax at 351 GB/s at that size,
# where Triton's documentation, built on an A100, gives it 1395 GB/s, four times as much. Rows read off a
# figure's bar labels (the FlashAttention-3
# paper's) are second-hand. And one launch can stand in for rows that disagree: on the H100 at 1024³,
# cuBLAS measured 121 TFLOP/s and Triton's tutorial kernel 26 (GS-01 and GS-02), both predicted by
# the same autotuned tutorial kernel.

spread = by_id["GL-01"]["measured"] / by_id["GL-10"]["measured"]
Claims().add(tr("Same cuBLAS call, one H100 (GL-01), TFLOP/s"), by_id["GL-01"]["measured"], 798, sig=3) \
    .add(tr("Same cuBLAS call, another H100 (GL-10), TFLOP/s"), by_id["GL-10"]["measured"], 519, sig=3) \
    .add(tr("GL-01 ÷ GL-10"), spread, 1.54, sig=3) \
    .add(tr("Whole-GPU copy (EW-07), GB/s"), by_id["EW-07"]["measured"], 1992) \
    .add(tr("The H100's DRAM bandwidth, TB/s"), H100.dram_bw / 1e12, 3.35) \
    .add(tr("EW-07 ÷ the H100's DRAM bandwidth"), by_id["EW-07"]["measured"] * 1e9 / H100.dram_bw, 0.59, sig=2) \
    .add(tr("Softmax (SM-03), GB/s"), by_id["SM-03"]["measured"], 676, sig=3) \
    .add(tr("SM-03 ÷ the A100's DRAM bandwidth"), by_id["SM-03"]["measured"] * 1e9 / A100.dram_bw, 0.33, sig=2) \
    .add(tr("The A100's DRAM bandwidth, GB/s"), A100.dram_bw / 1e9, 2039) \
    .add(tr("torch.softmax at 4096 × 12672: Triton's documentation (A100) ÷ SM-03's run"), 1394.580523 / 351.085730,
         4, sig=1) \
    .add(tr("cuBLAS and tutorial 03 at 1024³ (GS-01, GS-02), TFLOP/s"),
         f"{by_id['GS-01']['measured']:.0f}, {by_id['GS-02']['measured']:.0f}", "121, 26") \
    .add(tr("GS-01 and GS-02 stand in by one launch"), by_id["GS-01"]["stand_in"] == by_id["GS-02"]["stand_in"]
         and by_id["GS-01"]["seconds"] == by_id["GS-02"]["seconds"], True).show()

# %%
# A published time can also hold more than the kernel. Triton's tutorial matmul took 83 µs on an H100 at
# 1024³ and 88 µs at 2048³ (GS-02 and GS-04): eight times the work in 7 % more time. Its fp8 form took 61
# µs at 2048³ and 60 µs at 3072³ (GS-12 and GS-13), and both sources' tables stay near these times at
# every smaller size too, while cuBLAS's time at 1024³ and 2048³ nearly doubles (GS-01 and GS-03: 1.9
# times). These tables have a floor, and we do not know what sets it. Triton's launch path on the host
# does not explain it. ``do_bench`` records its start event behind the zeroing of its 256 MB buffer, and
# the host launches while the GPU zeroes, so a launch path shorter than the zeroing (96 µs on an H100 at
# the model's DRAM bandwidth) is hidden, and the harness itself adds no floor: the same table's cuBLAS
# column reads 8.2 µs at 256³ (LO-03). A longer path would add its excess to the kernel's own time, which
# grows with the work: from 1024³ to 2048³ cuBLAS's time grows by 15.9 µs, the Triton column's by 5.6 µs,
# so the Triton kernel would have had to grow about a third as much as cuBLAS's. A model of the GPU cannot
# hit these rows.

us = {i: by_id[i]["measured_seconds"] * 1e6 for i in ("GS-01", "GS-02", "GS-03", "GS-04", "GS-12", "GS-13")}
Claims().add(tr("Tutorial 03 at 1024³ and 2048³ (GS-02, GS-04), µs"), f"{us['GS-02']:.0f}, {us['GS-04']:.0f}",
             "83, 88") \
    .add(tr("GS-04 ÷ GS-02: time"), us["GS-04"] / us["GS-02"], 1.07, sig=3) \
    .add(tr("GS-04 ÷ GS-02: work"), by_id["GS-04"]["work"] / by_id["GS-02"]["work"], 8) \
    .add(tr("cuBLAS, GS-03 ÷ GS-01: time"), us["GS-03"] / us["GS-01"], 1.9, sig=2) \
    .add(tr("fp8 tutorial 03 at 2048³ and 3072³ (GS-12, GS-13), µs"), f"{us['GS-12']:.0f}, {us['GS-13']:.0f}",
         "61, 60") \
    .add(tr("do_bench's zeroing of 256·10⁶ bytes on an H100 at the model's DRAM bandwidth, µs"),
         flush_seconds(PERF_H100, FLUSH_BYTES_2024) * 1e6, 96, sig=2) \
    .add(tr("cuBLAS at 256³ in the same table (LO-03), µs"), by_id["LO-03"]["measured_seconds"] * 1e6, 8.2, sig=2) \
    .add(tr("From 1024³ to 2048³, time added: cuBLAS (GS-03 − GS-01), µs"), us["GS-03"] - us["GS-01"], 15.9, sig=3) \
    .add(tr("From 1024³ to 2048³, time added: Triton (GS-04 − GS-02), µs"), us["GS-04"] - us["GS-02"], 5.6, sig=2) \
    .add(tr("Triton's time added ÷ cuBLAS's"), (us["GS-04"] - us["GS-02"]) / (us["GS-03"] - us["GS-01"]), 0.35,
         sig=2).show()

# %%
# The layer-norm backward rows sit on a floor of the same kind. OLMo's Triton layer norm, tutorial 05's
# backward pass on an A100, took 326 µs at N = 4096 and 318 µs at N = 8192 (LN-03 and LN-04): the same
# time for twice the bytes. Triton's documentation, built on an A100, times the same call of tutorial 05
# at 168 and 208 µs. As that build's Triton compiles them, an A100 runs these kernels in less time than
# OLMo's rows took at either size, so what set those rows came once a call and was not these kernels. The
# model's page says what else was ruled out, under "Spin locks"; a model of the GPU cannot hit these rows
# either.

ln = {i: by_id[i]["measured_seconds"] * 1e6 for i in ("LN-03", "LN-04")}
t05 = [3 * 4096 * n * 2 / gbs / 1e3 for n, gbs in ((4096, 599.414644), (8192, 968.512300))]  # its GB/s → µs
Claims().add(tr("OLMo's layer-norm backward at N = 4096 and 8192 (LN-03, LN-04), µs"),
             f"{ln['LN-03']:.0f}, {ln['LN-04']:.0f}", "326, 318") \
    .add(tr("LN-04 ÷ LN-03: time"), ln["LN-04"] / ln["LN-03"], 0.98, sig=2) \
    .add(tr("LN-04 ÷ LN-03: bytes"), by_id["LN-04"]["work"] / by_id["LN-03"]["work"], 2) \
    .add(tr("Tutorial 05 in Triton's documentation on an A100 at N = 4096 and 8192, µs"),
         f"{t05[0]:.0f}, {t05[1]:.0f}", "168, 208").show()

# %%
# So a ratio between 0.8 and 1.25 is about as close as two machines running the same binary come:
# even a perfect model would miss some rows.
#
# What stands in for the published kernels
# ----------------------------------------
# Where a row measured a library (cuBLAS, CUB, FlashAttention), the kernel predicted is one of this
# project's that does the same work: Triton's tutorial matmul autotuned over the tutorial's configs
# for cuBLAS, the tutorial's FlashAttention-2 algorithm for FlashAttention-2 and -3, Boehm's
# warptiling SGEMM for cuBLAS's FP32 one. A stand-in is not the library. FlashAttention-3 overlaps its
# softmax with the Tensor Cores by warp specialisation: its forward rows run the tutorial's kernel with
# the key loop warp-specialised (the causal one too, though Triton's own tutorial warp-specialises only
# its non-causal forward on Hopper), but nothing here has FlashAttention-3's ping-pong of two
# warpgroups. FlashAttention-2's CUDA kernels are sm_80 code on every GPU, so its rows run the tutorial's
# kernel with FlashAttention-2's own tiles, priced as sm_80 code on the H100 (``mma.sync``, not ``wgmma``). Both
# libraries' backward passes compute five dots a block pair and add dQ up with atomics into a float32
# accumulator that their preprocess kernel first zeroes, where the tutorial's computes seven (its dQ pass
# computes q·kᵀ and do·vᵀ again): the backward rows run the tutorial's kernel in the five-dot form. The
# rows that measured a Triton kernel run what their source ran: the FlashAttention-3 paper's Triton
# series is ``triton.ops.flash_attention`` with its fixed tiles, tritonbench's is the tutorial autotuned
# as it was by then, and Triton PR 2459's row is the tutorial of that month with its H100 tuning and, as
# that revision's benchmark did where torch has fp8, q and k in fp8 e5m2. FlashAttention-3's rows take
# the tiles the tutorial of early 2024 used on an H100. So a row can miss because the stand-in differs
# from the library as well as because the model is wrong.

kinds = {}
for r in rows:
    kinds.setdefault(r["kind"], []).append(r["id"])
show(Table([tr("Stands in"), tr("Rows"), tr("Which")], [[KINDS[k], len(v), ", ".join(v)] for k, v in kinds.items()]))

# %%
# Short sequences
# ---------------
# FlashAttention-3's own figures take more time per FLOP at a sequence length of 512 than at 16k: 1.49
# times for the forward pass at head dimension 64 (AF-05 against AF-06) and 1.74 times for the backward
# pass (AB-03 against AB-04). For their stand-ins the model gives 1.29 and 1.61. What it has of that
# difference is work that does not grow with the sequence. One part is each program's start and end,
# which nothing overlaps and which weigh more in a program of few trips: the first softmax and the last
# p·v of a warp-specialised pipeline (FlashAttention-3's Algorithm 2), the bytes of an SM's first loads
# and of its last stores (``kernellab.model.edges``), and, where one program fills an SM, the round trip
# before its first loads arrive. The other, in the backward pass, is the launches
# that pass once over the 16k tokens whatever their length, the same bytes at either length: the
# preprocess (which also zeroes dQ's float32 accumulator) and dQ's conversion. The rest it does not
# explain, so its short rows come out too fast.


def per_flop(short, long, key):
    """Time per unit of work of row ``short`` ÷ that of row ``long`` (``key``: measured or predicted seconds)."""
    return (by_id[short][key] / by_id[short]["work"]) / (by_id[long][key] / by_id[long]["work"])


Claims().add(tr("FlashAttention-3 forward, d 64: time per FLOP at N 512 ÷ at 16k, measured"),
             per_flop("AF-05", "AF-06", "measured_seconds"), 1.49, sig=3) \
    .add(tr("The same, predicted for the stand-ins"), per_flop("AF-05", "AF-06", "seconds"), 1.29, sig=3) \
    .add(tr("FlashAttention-3 backward: time per FLOP at N 512 ÷ at 16k, measured"),
         per_flop("AB-03", "AB-04", "measured_seconds"), 1.74, sig=3) \
    .add(tr("The same, predicted for the stand-ins"), per_flop("AB-03", "AB-04", "seconds"), 1.61, sig=3).show()

# %%
# The rows farthest from their measurement
# ----------------------------------------
# The scored rows whose score is farthest from 1 (in the logarithm), with the term the model finds
# binding: where to look first.

far = sorted((r for r in scored if r["score"] is not None), key=lambda r: -abs(np.log(r["score"])))[:8]
show(Table([tr("Row"), tr("Category"), tr("Score"), tr("Binding term"), tr("Stands in")],
           [[r["id"], CATEGORY[r["category"]], value(r["score"]), binding(r), KINDS[r["kind"]]] for r in far]))

# %%
# Each number in the tables comes from ``kernellab/validation.json``. To make it again with the
# model you have, run ``python3 -m nox -s validate`` in a clone of the repository: it predicts every
# row (with sampled launches), prints the same tables, and rewrites the file. The kernels
# are in ``benchmarks/validation/``; on a machine with a GPU, ``benchmarks/gpu/gpu_check.py`` times the
# same kernels beside the model's prediction for that GPU.
