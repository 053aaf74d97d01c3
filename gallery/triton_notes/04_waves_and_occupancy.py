"""
Waves and occupancy: how many blocks run at once
================================================

A GPU does not run a whole grid at once. Each SM holds only a few thread blocks at a time, as many
as its threads, registers and shared memory allow, so the grid runs in *waves* of
(blocks per SM × SMs) blocks. When the grid size is not a multiple of the wave, the last wave is
only partly full and the rest of the GPU sits idle.

You will learn to work out how many blocks an SM holds and which resource limits it, to count the
waves of a grid and the size of its last one on the A100 (108 SMs) and the H100 (132 SMs), why
CS336 advises launching at least four times as many thread blocks as there are SMs, and what a
partial last wave costs in the time kernellab's model predicts, which is not always what its idle
slots suggest.
"""

# %%
# Blocks per SM
# -------------
# An SM keeps every resident block's state on chip. Four limits decide how many blocks fit:
#
# * **threads**: the SM holds at most 64 warps (48 on the RTX A6000);
# * **registers**: the 65536 registers per SM are shared by all resident threads, allocated per warp
#   in units of 256;
# * **shared memory**: each block's ``__shared__`` arrays, plus 1 KB the CUDA runtime reserves;
# * **blocks**: a hardware cap on resident blocks (32 on the A100 and H100, 16 on the A6000).
#
# ``kernellab.model.occupancy`` takes the smallest and names the limiter. *Occupancy* is the resident
# warps over the SM's maximum. CS336's example, and one launch for each of the other limits:

from kernellab import A100, A6000, H100, Claims, occupancy, print_table, waves
from kernellab.access import WARP_SIZE
from kernellab.i18n import _ as tr

LIMITER = {"threads": tr("threads"), "registers": tr("registers"), "shared": tr("shared memory"),
           "blocks": tr("block limit")}


def limited_by(o) -> str:
    """The resources that limit ``o`` (an Occupancy), in the reader's language."""
    return " + ".join(LIMITER[k] for k in o.limiters)


launches = [
    (tr("CS336 example"), H100, 128, 160, 0),
    (tr("Boehm's kernel 3"), A6000, 1024, 37, 8192),
    (tr("Boehm's kernel 11"), A6000, 256, None, 49152),
    (tr("Tiny blocks of one warp"), A100, 32, None, 0),
]
occ, columns = {}, []
for label, gpu, threads, regs, smem in launches:
    o = occ[label] = occupancy(gpu, threads, regs_per_thread=regs, smem_per_block=smem)
    columns.append([
        gpu.name, threads, "–" if regs is None else regs, smem,
        o.by_threads, "–" if o.by_registers is None else o.by_registers, o.by_shared, o.by_blocks,
        o.blocks_per_sm, limited_by(o), o.warps_per_sm, f"{o.occupancy:.4g}",
    ])
quantities = [
    tr("GPU"), tr("Threads per block"), tr("Registers per thread"), tr("Shared memory per block (B)"),
    tr("Blocks by threads"), tr("Blocks by registers"), tr("Blocks by shared memory"), tr("Block limit"),
    tr("Blocks per SM"), tr("Limited by"), tr("Resident warps per SM"), tr("Occupancy"),
]
print_table([tr("Quantity")] + [launch[0] for launch in launches],
            [[q] + [col[i] for col in columns] for i, q in enumerate(quantities)])

# %%
# The prose below states these numbers; the script checks them.

cs336 = occ[tr("CS336 example")]
k3 = occ[tr("Boehm's kernel 3")]
k11 = occ[tr("Boehm's kernel 11")]
tiny = occ[tr("Tiny blocks of one warp")]
cs336_regs_per_warp = launches[0][3] * WARP_SIZE
cs336_warps = H100.regs_per_sm // cs336_regs_per_warp
claims = Claims()
claims.add(tr("Warp slots per SM, A100 / H100 / A6000"),
           f"{A100.max_warps_per_sm} / {H100.max_warps_per_sm} / {A6000.max_warps_per_sm}", "64 / 64 / 48")
claims.add(tr("Registers per SM, all three"), " / ".join(str(g.regs_per_sm) for g in (A100, H100, A6000)),
           "65536 / 65536 / 65536")
claims.add(tr("Resident blocks at most, A100"), A100.max_blocks_per_sm, 32)
claims.add(tr("Shared memory per SM, A6000 (KB)"), A6000.max_smem_per_sm / 1024, 100)
claims.add(tr("CS336: registers per warp, warps, blocks"),
           f"{cs336_regs_per_warp}, {cs336_warps}, {cs336_warps // (launches[0][2] // WARP_SIZE)}", "5120, 12, 3")
claims.add(tr("CS336: blocks per SM, limited by, blocks by threads"),
           f"{cs336.blocks_per_sm}, {limited_by(cs336)}, {cs336.by_threads}", f"3, {LIMITER['registers']}, 16")
claims.add(tr("CS336: resident warps, occupancy"), f"{cs336.warps_per_sm}, {cs336.occupancy:g}", "12, 0.1875")
claims.add(tr("Kernel 3: blocks per SM, limited by, blocks by shared memory"),
           f"{k3.blocks_per_sm}, {limited_by(k3)}, {k3.by_shared}",
           f"1, {LIMITER['threads']} + {LIMITER['registers']}, 11")
claims.add(tr("Kernel 3: resident warps, occupancy"), f"{k3.warps_per_sm}, {k3.occupancy:.2f}", "32, 0.67")
claims.add(tr("Kernel 11: shared memory per block (KB)"), launches[2][4] / 1024, 48)
claims.add(tr("Kernel 11: blocks per SM, limited by"), f"{k11.blocks_per_sm}, {limited_by(k11)}",
           f"2, {LIMITER['shared']}")
claims.add(tr("One-warp blocks: blocks per SM, limited by, occupancy"),
           f"{tiny.blocks_per_sm}, {limited_by(tiny)}, {tiny.occupancy:g}", f"32, {LIMITER['blocks']}, 0.5")
claims.show()

# %%
# CS336's example has 128 threads (4 warps) per block and 160 registers per thread. A warp then
# needs 160 × 32 = 5120 registers, the register file holds 65536 // 5120 = 12 such warps, which is
# 3 blocks. Threads alone would allow 16 blocks, so **registers** are the limit: 12 resident warps
# of 64, an occupancy of 0.1875.
#
# Boehm's kernel 3 has 1024 threads per block, 32 warps. The A6000's SM holds 48 warps, so only one
# block fits, and its 37 registers per thread also allow only one. Shared memory would allow 11
# blocks; it is not what limits this kernel. The SM runs 32 warps of 48, an occupancy of 0.67.
#
# The two other launches show the remaining limiters. Boehm's kernel 11 uses 48 KB of shared memory
# per block, so the A6000's 100 KB hold only 2 blocks. Blocks of a single warp hit the hardware cap
# of 32 resident blocks and leave half of the A100's warp slots empty.
#
# Occupancy is not speed by itself: a kernel with few warps can still be fast when each warp has
# enough independent work. What matters for the rest of this page is the number of blocks that run
# at the same time.

# %%
# Waves and the tail
# ------------------
# With ``b`` blocks per SM, one wave runs ``b × SMs`` blocks. A grid of ``B`` blocks needs
# ``⌈B / (b × SMs)⌉`` waves, and its last wave, the *tail*, holds whatever is left over. If every
# block takes the same time, the grid takes as long as its number of waves, whether the last wave is
# full or holds a single block. The *wave efficiency* is the share of the wave slots that do work:
# ``B / (waves × b × SMs)``.
#
# Take a kernel that fits one block per SM (like Boehm's kernel 3), and a few grid sizes around the
# SM counts of the A100 (108) and the H100 (132):

grids = [108, 109, 132, 133, 4 * 132, 4 * 132 + 1]
rows = []
result = {}
for gpu in (A100, H100):
    for blocks in grids:
        w = waves(blocks, 1, gpu.sms)
        result[gpu.sms, blocks] = w
        rows.append([gpu.name, blocks, w.per_wave, w.waves, w.tail, f"{w.efficiency:.1%}"])
print_table([tr("GPU"), tr("Blocks"), tr("Blocks per wave"), tr("Waves"), tr("Blocks in the last wave"),
             tr("Wave efficiency")], rows)

# %%
# The prose below states these numbers; the script checks them.


def wave_summary(sms, blocks):
    """Waves, blocks in the last wave and wave efficiency, as the prose quotes them."""
    w = result[sms, blocks]
    return f"{w.waves}, {w.tail}, {w.efficiency:.1%}"


claims = Claims()
claims.add(tr("A100, 108 blocks: waves, last wave, efficiency"), wave_summary(108, 108), "1, 108, 100.0%")
claims.add(tr("A100, 109 blocks"), wave_summary(108, 109), "2, 1, 50.5%")
claims.add(tr("109 blocks: more work than 108 (%)"), round(100 * (109 / 108 - 1)), 1)
claims.add(tr("H100, 132 blocks"), wave_summary(132, 132), "1, 132, 100.0%")
claims.add(tr("H100, 133 blocks"), wave_summary(132, 133), "2, 1, 50.4%")
claims.add(tr("A100, 132 blocks"), wave_summary(108, 132), "2, 24, 61.1%")
claims.add(tr("H100, 108 blocks"), wave_summary(132, 108), "1, 108, 81.8%")
claims.add(tr("H100, 528 blocks"), wave_summary(132, 528), "4, 132, 100.0%")
claims.add(tr("H100, 529 blocks"), wave_summary(132, 529), "5, 1, 80.2%")
claims.add(tr("A100, 528 blocks"), wave_summary(108, 528), "5, 96, 97.8%")
claims.show()

# %%
# One block too many costs a whole wave. On the A100, 108 blocks fill one wave exactly; 109 blocks
# need 2 waves, the second holding a single block, so the grid takes twice as long for 1 % more work:
# a wave efficiency of 50.5 %. The H100 does the same at 133 blocks (50.4 %).
#
# The best grid size depends on the GPU. A grid of 132 blocks, one full wave on the H100, leaves a
# tail of 24 blocks on the A100 (61.1 %); 108 blocks fill the A100 but only 81.8 % of the H100.
#
# Larger grids suffer less. At 4 × 132 = 528 blocks the H100 runs 4 full waves; one block more makes
# 5 waves with a tail of 1 block, and the efficiency falls only to 80.2 %, because the wasted wave is
# now one of five, not one of two. On the A100, 528 blocks are 5 waves with 96 blocks in the last,
# 97.8 %.

# %%
# The sawtooth, and the worst case for each number of waves
# ---------------------------------------------------------
# Left: the wave efficiency for every grid size from 1 to 1600 blocks, on both GPUs, with one block
# per SM. Each time the grid passes a multiple of the wave, a new, almost empty wave starts and the
# efficiency drops; the teeth get shallower as the waves add up. The dashed lines mark four blocks
# per SM.
#
# Right: the worst grid for a given number of waves ``n`` is one block past ``n − 1`` full waves. It
# wastes all but one slot of the last wave, ``(P − 1) / (n·P)`` of all the slots, where ``P`` is the
# blocks per wave, and that is always less than ``1/n``: the worst-case loss falls as one over the
# number of waves. The script finds the worst loss for each ``n`` by trying every grid size, checks it
# against the formula, and plots it beside ``1/n``.

# sphinx_gallery_thumbnail_number = 1
import matplotlib.pyplot as plt
import numpy as np

from kernellab.figures import use_cjk_font

sizes = np.arange(1, 1601)
curves, worst_loss = {}, {}
n = np.arange(1, 17)
checks = {"model": True, "formula": True, "below": True}
for gpu in (A100, H100):
    P = gpu.sms
    by_waves = -(-sizes // P)  # ⌈size / P⌉ for every grid size at once (cdiv takes one int)
    curves[P] = sizes / (by_waves * P)
    checks["model"] &= all(curves[P][b - 1] == waves(int(b), 1, P).efficiency for b in (1, 109, 133, 529, 1600))
    worst = np.array([1 - curves[P][by_waves == k].min() for k in n if (by_waves == k).any()])
    checks["formula"] &= bool(np.allclose(worst, (P - 1) / (n[: len(worst)] * P)))  # against every grid size
    checks["below"] &= bool((worst < 1 / n[: len(worst)]).all())
    worst_loss[P] = worst

use_cjk_font()
fig, (ax, ax2) = plt.subplots(1, 2, figsize=(9, 3.8), layout="constrained", width_ratios=(1.6, 1))
for gpu, color, marker, size in ((A100, "C0", "o", 8), (H100, "C1", "s", 4)):
    ax.plot(sizes, 100 * curves[gpu.sms], color=color, lw=1,
            label=tr("{gpu} ({sms} SMs)").format(gpu=gpu.name, sms=gpu.sms))
    ax.axvline(4 * gpu.sms, color=color, ls="--", lw=1)
    w = worst_loss[gpu.sms]
    ax2.plot(n[: len(w)], 100 * w, marker, color=color, ms=size, mfc="none", label=gpu.name)
ax.annotate(tr("4 × SMs"), (4 * H100.sms, 25), textcoords="offset points", xytext=(4, 0), color="0.3", fontsize=9)
ax.set_xlabel(tr("Blocks in the grid"))
ax.set_ylabel(tr("Wave efficiency (%)"))
ax.set_title(tr("Wave efficiency against grid size, one block per SM"))
ax.set_ylim(0, 105)
ax.legend(loc="lower right")
ax2.plot(n, 100 / n, color="0.4", lw=1, label="1/n")
ax2.set_xticks([1, 2, 4, 8, 12, 16])
ax2.set_xlabel(tr("Waves in the grid"))
ax2.set_ylabel(tr("Worst-case tail loss (%)"))
ax2.set_title(tr("Worst tail loss falls as 1/waves"))
ax2.legend(loc="upper right")
plt.show()
Claims().add(tr("The curve = kernellab's wave model"), checks["model"], True) \
    .add(tr("Worst loss = (P − 1) / (n·P), every n"), checks["formula"], True) \
    .add(tr("Worst loss below 1/n, every n"), checks["below"], True).show()

# %%
# Why four blocks per SM
# ----------------------
# The same numbers as a table: the worst wave efficiency of any grid of at least ``k × P`` blocks,
# and the grid size where it occurs (searched among grids up to 1600 blocks).

rows = []
worst_from = {}
for k in (1, 2, 4, 8):
    cells = [f"≥ {k} × P"]
    for gpu in (A100, H100):
        P = gpu.sms
        e = curves[P][k * P - 1:]
        worst_from[k, P] = (int(sizes[k * P - 1 + e.argmin()]), float(e.min()))
        cells += [worst_from[k, P][0], f"{worst_from[k, P][1]:.1%}"]
    rows.append(cells)
print_table([tr("Grid"), tr("A100: worst grid"), tr("A100: efficiency"), tr("H100: worst grid"),
             tr("H100: efficiency")], rows)

# %%
# The prose below states these numbers; the script checks them.

big = waves(4 * 132, cs336.blocks_per_sm, 132)
claims = Claims()
claims.add(tr("H100, ≥ 1 × P: worst grid = 133 blocks"), worst_from[1, 132] == (133, result[132, 133].efficiency), True)
claims.add(tr("H100, ≥ 4 × P: worst grid = 529 blocks"), worst_from[4, 132] == (529, result[132, 529].efficiency), True)
claims.add(tr("≥ 4 × P: worst grid and efficiency, A100 / H100"),
           f"{worst_from[4, 108][0]}, {worst_from[4, 108][1]:.1%} / "
           f"{worst_from[4, 132][0]}, {worst_from[4, 132][1]:.1%}",
           "433, 80.2% / 529, 80.2%")
claims.add(tr("≥ 4 × P: above 80 %; ≥ 8 × P: above 8/9"),
           all(worst_from[4, P][1] > 0.8 and worst_from[8, P][1] > 8 / 9 for P in (108, 132)), True)
claims.add(tr("CS336's kernel, 528 blocks on the H100: per wave, waves, last wave, efficiency"),
           f"{big.per_wave}, {big.waves}, {big.tail}, {big.efficiency:.1%}", "396, 2, 132, 66.7%")
claims.show()

# %%
# With ``n`` waves a partial last wave can waste at most one wave in ``n``, so the loss is below ``1/n``.
# A grid of at least 4 × SMs blocks either fills exactly 4 waves or needs at least 5, so its worst case
# is one block past 4 full waves: 433 blocks on the A100 and 529 on the H100, both at 80.2 %. Every
# larger grid does better, and from 8 × SMs on the efficiency stays above 8/9. That is CS336's rule of
# thumb: with at least four blocks per SM, wave quantisation costs at most about a fifth of the time,
# and usually much less; with only one or two waves it can cost half.
#
# The rule counts blocks against SMs, but what matters is waves. When an SM holds several blocks at once,
# a wave is larger: CS336's example kernel fits 3 blocks per SM, so an H100 wave holds 396 blocks and
# a grid of 4 × 132 = 528 blocks is only 2 waves, the second holding 132 blocks, 66.7 % efficient.
# Count blocks against ``blocks per SM × SMs``, not against SMs alone.

# %%
# The tail, drawn over time
# -------------------------
# The same counting for a real launch: Triton's matmul tutorial at 4096² with 128×128 output blocks is
# a grid of 32 × 32 = 1024 programs. Real Triton 3.9 compiled its 128×128×32 configuration (4 stages,
# 4 warps) for both GPUs on a machine with no GPU (``nox -s compiled`` writes what it compiled into
# ``kernellab/compiled_metadata.json``; ``compiled_metadata`` reads it). For the A100 (sm_80) a program
# uses 250 registers per thread and 48 KB of shared memory, for the H100 (sm_90) 174 registers and
# 64 KB. Shared memory alone would let an SM of either GPU hold 3 programs; the registers allow 2 on
# both. The 128×128 FP32 accumulator alone, over 4 warps, is 128 registers per thread, and 3 programs
# per SM would leave at most 168. The picture shows every program slot of the H100 over time, one row
# per slot, assuming every program takes the same time.

from kernellab import compiled_metadata
from kernellab.figures import use_cjk_font

GRID = 1024
CONFIG = "tutorial03_128x128x32_s4_w4"  # BLOCK 128×128×32, num_stages 4, num_warps 4
tails, meta, occ = {}, {}, {}
for gpu, target in ((A100, "sm_80"), (H100, "sm_90")):
    meta[gpu.sms] = m = compiled_metadata(CONFIG, target)
    occ[gpu.sms] = o = occupancy(gpu, m["num_warps"] * 32, m["registers"], m["shared_bytes"])
    tails[gpu.sms] = (o.blocks_per_sm, waves(GRID, o.blocks_per_sm, gpu.sms))

per_sm, w = tails[H100.sms]
use_cjk_font()
fig, ax = plt.subplots(figsize=(8, 3.6), layout="constrained")
for wave in range(w.waves):
    busy = w.per_wave if wave < w.waves - 1 else w.tail
    ax.broken_barh([(wave, 0.96)], (0, busy), color=f"C{wave}", alpha=0.85)
    if busy < w.per_wave:
        ax.broken_barh([(wave, 0.96)], (busy, w.per_wave - busy), color="0.85", hatch="//", ec="0.6")
    ax.text(wave + 0.48, busy / 2, tr("wave {n}\n{b} programs").format(n=wave + 1, b=busy), ha="center",
            va="center", fontsize=9, color="white")
ax.set_xlim(0, w.waves)
ax.set_ylim(0, w.per_wave)
ax.set_xlabel(tr("Time, in program durations"))
ax.set_ylabel(tr("Program slots ({sms} SMs × {b})").format(sms=H100.sms, b=per_sm))
ax.set_title(tr("1024 programs on the H100, {b} per SM: the last wave leaves slots idle").format(b=per_sm))
plt.show()
Claims().add(tr("Compiled registers per thread, A100 / H100"),
             f"{meta[A100.sms]['registers']} / {meta[H100.sms]['registers']}", "250 / 174") \
    .add(tr("Compiled shared memory per program, A100 / H100 (KB)"),
         f"{meta[A100.sms]['shared_bytes'] // 1024} / {meta[H100.sms]['shared_bytes'] // 1024}", "48 / 64") \
    .add(tr("Programs per SM by shared memory, A100 / H100"),
         f"{occ[A100.sms].by_shared} / {occ[H100.sms].by_shared}", "3 / 3") \
    .add(tr("Programs per SM by registers (the limit), A100 / H100"),
         f"{occ[A100.sms].by_registers} / {occ[H100.sms].by_registers}", "2 / 2") \
    .add(tr("Programs per SM, A100 / H100"), f"{tails[A100.sms][0]} / {tails[H100.sms][0]}", "2 / 2") \
    .add(tr("H100, 128×128 FP32 accumulator over 4 warps: registers per thread"), 128 * 128 // (4 * 32), 128) \
    .add(tr("H100: most registers per thread that still fit 3 programs per SM"),
         max(r for r in range(128, 256)
             if occupancy(H100, 4 * 32, r, meta[H100.sms]["shared_bytes"]).blocks_per_sm >= 3),
         168) \
    .add(tr("Waves and last wave, A100"), f"{tails[A100.sms][1].waves}, {tails[A100.sms][1].tail}", "5, 160") \
    .add(tr("Waves and last wave, H100"), f"{w.waves}, {w.tail}", "4, 232") \
    .add(tr("Wave efficiency, A100 / H100"),
         f"{tails[A100.sms][1].efficiency:.1%} / {w.efficiency:.1%}", "94.8% / 97.0%") \
    .add(tr("H100 with the 3 per SM shared memory allows: waves of, waves, efficiency"),
         "{0.per_wave}, {0.waves}, {0.efficiency:.1%}".format(waves(GRID, occ[H100.sms].by_shared, H100.sms)),
         "396, 3, 86.2%").show()

# %%
# On the H100 the 1024 programs take 4 waves of 264 slots, the last one with 232 programs: 97.0 % of
# the slots do work (with the 3 programs per SM that shared memory alone allows, it would have been 3
# waves of 396 and 86.2 %). As a fraction of the *time*, that overstates the loss a little: the picture
# assumes that every program takes the same time, but the programs of a partly filled last wave share
# their SMs with fewer others and run faster. On the A100, 2 programs per SM make waves of 216, and 1024
# programs take 5 of them (94.8 %). These are also the waves the L2 *wave model* of lecture 10 (page 6) should use: it
# assumes one program per SM, which for these configurations overstates the number of waves, and it
# assumes that nothing in L2 survives from one wave to the next, which makes its DRAM traffic an upper
# bound. Page 6 sets it beside an LRU estimate of the L2.

# %%
# What the tail costs, predicted
# ------------------------------
# Counting slots assumes that a block takes as long whatever else runs beside it. ``predict`` does not:
# it charges each resource of an SM on the busiest SM, the one that runs the most blocks,
# ``⌈B / SMs⌉`` of them, and the device's DRAM once for all (:doc:`/model`). Here are two kernels of
# 1024-thread blocks, 2 per SM on the H100 (64 warps ÷ 32 a block), so a wave holds 264 blocks: one
# whose blocks do 64 dependent FMAs per thread, which the SM's pipes limit, and a copy of one float per
# thread, which DRAM limits. Each is launched for real at each grid size and its counts predicted, the
# run alone (``timer="kernel"``).

import warnings

from kernellab import fmt_time, launch, predict
from kernellab.errors import ModelWarning


def fma_chain(blk, y):
    v = blk.tx * 1.0
    for _ in range(64):
        v = blk.fma(v, 1.0, 1.0)
    blk.store(y, blk.bx * blk.bdx + blk.tx, v)


def copy(blk, x, y):
    i = blk.bx * blk.bdx + blk.tx
    blk.store(y, i, blk.load(x, i))


predicted = {}
rows = []
for blocks in (132, 133, 264, 265, 528, 529):
    y = np.empty(blocks * 1024, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)  # the smallest launches are shorter than a launch
        sm = predict(launch(fma_chain, blocks, 1024, args=(y,)), H100, timer="kernel")
        mem = predict(launch(copy, blocks, 1024, args=(np.ones_like(y), y)), H100, timer="kernel")
    predicted[blocks] = sm, mem
    rows.append([blocks, sm["blocks_per_sm"], sm["waves"], sm["tail"], sm["per_sm"], fmt_time(sm["time"]),
                 fmt_time(mem["time"])])
print_table([tr("Blocks"), tr("Blocks per SM"), tr("Waves"), tr("Blocks in the last wave"),
             tr("Blocks on the busiest SM"), tr("FMA chain: predicted bound"), tr("Copy: predicted bound")], rows)

# %%
# The prose below states these numbers; the script checks them.


def ratio(a, b, which):
    """How much longer grid ``a`` is predicted to take than grid ``b`` (0: the SM-bound kernel, 1: the copy)."""
    return predicted[a][which]["time"] / predicted[b][which]["time"]


claims = Claims()
claims.add(tr("Blocks per SM, and blocks per wave on the H100"),
           f"{predicted[264][0]['blocks_per_sm']}, {predicted[264][0]['blocks_per_sm'] * H100.sms}", "2, 264")
claims.add(tr("FMA chain: bound by the SM's pipes at every grid size"),
           all(p[0]["bound"] in ("issue", "FMA") for p in predicted.values()), True)
claims.add(tr("FMA chain, 133 against 132 blocks (both one wave)"), f"{ratio(133, 132, 0):.2f}", "2.00")
claims.add(tr("FMA chain, 265 against 264 blocks (2 waves against 1)"), f"{ratio(265, 264, 0):.2f}", "1.50")
claims.add(tr("FMA chain, 529 against 528 blocks (3 waves against 2)"), f"{ratio(529, 528, 0):.2f}", "1.25")
claims.add(tr("Copy: bound by DRAM at every grid size"), all(p[1]["bound"] == "DRAM" for p in predicted.values()), True)
claims.add(tr("Copy, 265 against 264 blocks: below 1 % longer"), ratio(265, 264, 1) < 1.01, True)
claims.show()

# %%
# The SM-bound kernel follows the busiest SM, not the waves. At 133 blocks everything is one wave, yet
# one SM holds two blocks, which share its pipes, and its bound is twice that at 132. At 265 blocks the
# slot picture says 2 waves against 1, twice the time; the predicted bound says 1.50 times: the
# busiest SM runs 3 blocks instead of 2, and the last one runs alone, at the SM's full rate. One block
# past 528 costs a quarter more (5 blocks instead of 4), not half (3 waves instead of 2). The copy does
# not care: DRAM is shared by every SM, so a block more or less changes the bytes by that block's, and
# the idle slots of the last wave cost nothing while DRAM is the limit.
#
# So a partial last wave costs a kernel the SMs limit up to one block's time on the busiest SM, and a
# kernel DRAM limits about nothing. A kernel whose blocks wait on latency
# rather than throughput is the case the slot picture describes: its blocks do not run faster when
# they have the SM to themselves, and the model then charges ⌈blocks on the busiest SM ÷ blocks per
# SM⌉ rounds of each block's critical path. The report (:doc:`/profiling`) names a partial last wave as
# Nsight Compute does, with the share of the run it may take at most.
