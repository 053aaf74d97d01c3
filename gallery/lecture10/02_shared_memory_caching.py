"""
Shared-memory caching: kernel 3 and its two barriers
====================================================

Kernel 2 reads every operand of every multiply-add from global memory, through L1. Kernel 3 copies
a 32×32 tile of A and of B into shared memory once per step and lets the 1024 threads of a block
reuse it 32 times. This page runs the kernel on the simulator, counts what moved from global to
shared memory, and asks the performance model what that should buy on an RTX A6000.

You will learn why each step of the tiled loop needs *two* barriers, how a race detector finds a
missing one even when the result happens to be right, what one 1024-thread block per SM means for
occupancy, and why both kernels fall far short of what the model's throughput bound allows.
"""

# %%
# The kernel, checked against numpy
# ---------------------------------
# Block (bx, by) computes the 32×32 tile of C at rows 32·bx and columns 32·by. Each step of the K loop
# loads one element of A and one of B per thread into the shared tiles ``As`` and ``Bs``, waits until
# the whole block has stored its elements, then takes 32 multiply-adds from shared memory, and waits
# again before the next step overwrites the tiles. ``KERNELS[2]`` is a line-by-line translation of
# Boehm's ``sgemm_shared_mem_block``; we run it on 64×64 matrices (four blocks, two K steps).

import numpy as np

from kernellab import KERNELS, Claims, cdiv, fmt_time, print_table, run_kernel
from kernellab.access import WARP_SIZE
from kernellab.i18n import _ as tr

N_SIM = 64
N_BIG = 4096
K2, K3 = KERNELS[1], KERNELS[2]

rng = np.random.default_rng(0)
A = rng.standard_normal((N_SIM, N_SIM)).astype(np.float32)
B = rng.standard_normal((N_SIM, N_SIM)).astype(np.float32)
ref = A.astype(np.float64) @ B.astype(np.float64)

C3, counts3 = run_kernel(K3, A, B)
C2, counts2 = run_kernel(K2, A, B)
err3 = float(np.abs(C3 - ref).max())
print_table(
    [tr("Kernel"), tr("Grid"), tr("Threads per block"), tr("Shared memory per block"), tr("Max |C − A·B|")],
    [[spec.name, "×".join(map(str, spec.grid(N_SIM, N_SIM, N_SIM)[:2])), spec.threads, f"{spec.smem_bytes} B",
      f"{float(np.abs(C - ref).max()):.1e}"] for spec, C in ((K2, C2), (K3, C3))],
)

# %%
Claims().add(tr("Kernel 3: error below 2·10⁻⁵"), err3 < 2e-5, True) \
    .add(tr("Kernel 3: threads per block, shared bytes per block"), f"{K3.threads}, {K3.smem_bytes}", "1024, 8192") \
    .add(tr("Kernel 3: grid at 64³"), "×".join(map(str, K3.grid(N_SIM, N_SIM, N_SIM)[:2])), "2×2").show()

# %%
# Both kernels agree with numpy's float64 product to better than 2·10⁻⁵, the rounding of 64 FP32
# multiply-adds. Kernel 3 declares 8192 bytes of shared memory per block: two tiles of 32×32 floats.
#
# A missing barrier
# -----------------
# The two ``syncthreads`` guard two different orders. The first one makes every thread wait until the
# whole tile is stored before anyone reads it: thread (t_row, t_col) reads the elements its 31
# neighbours in the row (for ``As``) and in the column (for ``Bs``) stored. The second one keeps a fast
# thread from storing the *next* tile while slower threads still read this one. Here is the kernel
# with a switch for each barrier; everything else is kernel 3.

from functools import partial

from kernellab import RaceError, launch
from kernellab.simt.race import hazard_label


def k3_barriers(blk, A, B, C, M, N, K, first=True, second=True):
    """Kernel 3 with either barrier removable (``first``: after the stores, ``second``: after the FMAs)."""
    S = 32
    As = blk.shared(S * S, np.float32, name="As")
    Bs = blk.shared(S * S, np.float32, name="Bs")
    t_row, t_col = blk.tx // S, blk.tx % S
    a0, b0 = blk.bx * S * K, blk.by * S
    acc = np.zeros(blk.n_threads, np.float32)
    for bk in range(0, K, S):
        blk.store(As, t_row * S + t_col, blk.load(A, a0 + bk + t_row * K + t_col))
        blk.store(Bs, t_row * S + t_col, blk.load(B, b0 + bk * N + t_row * N + t_col))
        if first:
            blk.syncthreads()
        for dot in range(S):
            acc = blk.fma(blk.load(As, t_row * S + dot), blk.load(Bs, dot * S + t_col), acc)
        if second:
            blk.syncthreads()
    blk.store(C, blk.bx * S * N + blk.by * S + t_row * N + t_col, acc)


def run_variant(name, **switches):
    """Launch a variant twice: with the race detector raising, and with it off to see the output."""
    kernel = partial(k3_barriers, **switches)
    grid = K3.grid(N_SIM, N_SIM, N_SIM)
    C = np.zeros((N_SIM, N_SIM), np.float32)
    try:
        launch(kernel, grid, 1024, args=(A, B, C, N_SIM, N_SIM, N_SIM), name=name)
        report = None
    except RaceError as exc:
        report = exc.details  # the error's fields, the same in every language
    C = np.zeros((N_SIM, N_SIM), np.float32)
    launch(kernel, grid, 1024, args=(A, B, C, N_SIM, N_SIM, N_SIM), name=name, racecheck=False)
    return report, C


# %%
# The race detector
# -----------------
# The simulator tracks, between two barriers, which thread last wrote and which threads read each
# shared element, as ``compute-sanitizer --tool racecheck`` does, and raises a ``RaceError`` at the
# first access that another thread's access conflicts with. We catch it and read its ``details``, the
# fields of its message (kernel, block, threads, kind, element), which are the same in every language.

def take_apart(name, details):
    """The columns of the table from a ``RaceError``'s ``details``."""
    return {"kernel": name, "kind": details["kind"], "block": details["block"], "t1": details["thread"],
            "t2": details["other"], "element": f"{details['array']}[{details['index']}]", "byte": details["byte"]}


variants = {
    "k3_no_first_sync": run_variant("k3_no_first_sync", first=False),
    "k3_no_second_sync": run_variant("k3_no_second_sync", second=False),
    "sgemm_shared_mem_block": run_variant("sgemm_shared_mem_block"),
}
reports = {}
rows = []
for name, (report, C) in variants.items():
    same = bool(np.array_equal(C, C3))
    if report is None:
        rows.append([name, tr("none"), "—", "—", "—", "—", "—", f"{float(np.abs(C - ref).max()):.1e}", tr("yes")])
        continue
    m = take_apart(name, report)
    reports[name] = m
    rows.append([m["kernel"], tr("RaceError"), hazard_label(m["kind"]), m["block"], f"{m['t1']} / {m['t2']}",
                 m["element"], m["byte"], f"{float(np.abs(C - ref).max()):.1e}", tr("yes") if same else tr("no")])
print_table(
    [tr("Kernel"), tr("Report"), tr("Hazard"), tr("Block"), tr("Threads (this / other)"), tr("Shared element"),
     tr("Byte address"), tr("Max |C − A·B|"), tr("Same C as kernel 3")],
    rows,
)

# %%
Claims().add(tr("Kernel 3 with both barriers: no report"), variants["sgemm_shared_mem_block"][0] is None, True) \
    .add(tr("Without the first barrier"), hazard_label(reports["k3_no_first_sync"]["kind"]),
         hazard_label("read-after-write")) \
    .add(tr("Without the second barrier"), hazard_label(reports["k3_no_second_sync"]["kind"]),
         hazard_label("write-after-read")) \
    .add(tr("Same C as kernel 3, all three"), all(np.array_equal(C, C3) for _, C in variants.values()), True).show()

# %%
# Both broken kernels compute exactly the same C as kernel 3, bit for bit, and both are still wrong.
# Without the first barrier, a thread *reads* an element of ``As`` that another thread *wrote* in the
# same step (read-after-write): nothing says the write came first. Without the second barrier, a
# thread *writes* the next tile over an element another thread *read* in this step (write-after-read).
#
# The simulator runs all threads of a block in lockstep, so every store of a step happens before every
# load and the output comes out right. A GPU gives no such guarantee: its 32 warps run at their own
# pace, and whether a slow warp reads the stale or the new value depends on scheduling. Errors from a
# race do not show every run, which is why a test that only compares outputs cannot prove a kernel
# race-free, and why a race detector checks the *order* of accesses instead.

# %%
# What the tiles save
# -------------------
# Counted per warp FMA instruction (32 multiply-adds, one per lane), kernel 2 issues two global loads
# that touch two 128-byte lines. Kernel 3 loads its operands from shared memory instead, and brings
# each element of A and B from global memory once per block instead of once per use.

rows = []
per_warp_fma = {}
for spec, c in ((K2, counts2), (K3, counts3)):
    w = c.instr_by_kind["fma"]
    per_warp_fma[spec.number] = {
        "gld": c.load_requests / w, "lines": c.load_lines / w, "shld": c.shld_instr / w,
        "wavefronts": c.shld_wavefronts / w, "shst": c.shst_instr / w, "bar": c.instr_by_kind.get("bar.sync", 0) / w,
    }
    p = per_warp_fma[spec.number]
    rows.append([spec.name, f"{p['gld']:.4g}", f"{p['lines']:.4g}", f"{p['shld']:.4g}", f"{p['wavefronts']:.4g}",
                 f"{p['shst']:.4g}", f"{p['bar']:.4g}"])
print_table(
    [tr("Kernel"), tr("Global loads"), tr("128-byte lines"), tr("Shared loads"), tr("Shared load wavefronts"),
     tr("Shared stores"), tr("Barriers (per warp)")],
    rows,
)

# %%
p2, p3 = per_warp_fma[2], per_warp_fma[3]
claims = Claims()
claims.add(tr("Kernel 2: global loads, 128-byte lines"), f"{p2['gld']:g}, {p2['lines']:g}", "2, 2")
claims.add(tr("Kernel 3: shared loads, shared load wavefronts"), f"{p3['shld']:g}, {p3['wavefronts']:g}", "1.25, 1.5")
claims.add(tr("Kernel 3: global loads, lines, shared stores, barriers (× 32)"),
           ", ".join(f"{p3[key] * 32:g}" for key in ("gld", "lines", "shst", "bar")), "2, 2, 2, 2")
claims.add(tr("Global loads, kernel 2 / kernel 3"), p2["gld"] / p3["gld"], 32)
claims.show()

# %%
import matplotlib.pyplot as plt

from kernellab.figures import use_cjk_font

use_cjk_font()
events = (("gld", tr("global loads")), ("lines", tr("128-byte lines")), ("shld", tr("shared loads")),
          ("wavefronts", tr("shared wavefronts")))
fig, ax = plt.subplots(figsize=(6.8, 3.6), layout="constrained")
for i, (number, spec) in enumerate(((2, K2), (3, K3))):
    values = [per_warp_fma[number][key] for key, _ in events]
    xs = np.arange(len(events)) + (i - 0.5) * 0.38
    ax.bar(xs, values, 0.38, label=spec.name, color=f"C{i}")
    for x, v in zip(xs, values):
        ax.annotate(f"{v:g}", (x, v), textcoords="offset points", xytext=(0, 2), ha="center", fontsize=8)
ax.set_xticks(range(len(events)), [label for _, label in events])
ax.set_yscale("log")
ax.set_ylim(0.03, 40)
ax.set_ylabel(tr("per warp FMA instruction"))
ax.set_title(tr("Where the operands come from: kernel 2 against kernel 3"))
ax.legend(loc="upper center", ncols=2, fontsize=9)
plt.show()

# %%
# Kernel 3 issues 32 times fewer global loads: one element per thread per step, used by 32 threads.
# The simulator counts its shared loads as nvcc compiles them: a warp is one row of the tile, and the
# 32 values of ``As`` it reads along the dot loop are consecutive, so nvcc merges them into 8 128-bit
# loads, one per 4 FMA instructions; ``Bs`` is read with one 32-bit load per FMA instruction. That is
# 1.25 shared loads per FMA instruction. The tiles have no bank conflict: the ``As`` load is a
# broadcast of 16 bytes (served a half-warp at a time, 2 wavefronts), the ``Bs`` load reads 32
# consecutive words from 32 banks (1 wavefront), 1.5 wavefronts per FMA instruction. The price is two
# shared stores and two barriers per 32 FMA instructions.
#
# Note what did *not* change: every value a thread loads, now from shared memory instead of L1, still
# feeds a single FMA. Merging four loads of ``As`` into one 128-bit load saves instructions, not bytes:
# the traffic into the registers is the same, two floats per FMA. The next page reuses values held in
# registers.

# %%
# A bank-conflict line, and its padding
# -------------------------------------
# Kernel 3's tiles are conflict-free because a warp writes and reads them along a row. Store the A
# tile *transposed* instead (``AsT[t_col][t_row]``, so that a thread's row of A becomes a column), and
# the 32 lanes of a warp, which share ``t_row`` and differ in ``t_col``, write words 32 apart: all in
# one bank. A profiler's source view shows which line pays (``lines=True``, see :doc:`/profiling`);
# one float of padding per row of the tile (33 instead of 32) fixes it.

from kernellab import show


def k3_transposed(blk, A, B, C, M, N, K, PAD=0):
    """Kernel 3 with the A tile stored transposed in shared memory, each of its rows ``32 + PAD`` floats."""
    S, R = 32, 32 + PAD
    AsT = blk.shared(S * R, np.float32, name="AsT")
    Bs = blk.shared(S * S, np.float32, name="Bs")
    t_row, t_col = blk.tx // S, blk.tx % S
    a0, b0 = blk.bx * S * K, blk.by * S
    acc = np.zeros(blk.n_threads, np.float32)
    for bk in range(0, K, S):
        blk.store(AsT, t_col * R + t_row, blk.load(A, a0 + bk + t_row * K + t_col))  # lanes R words apart
        blk.store(Bs, t_row * S + t_col, blk.load(B, b0 + bk * N + t_row * N + t_col))
        blk.syncthreads()
        for dot in range(S):
            a = blk.load(AsT, dot * R + t_row)  # the same word for the whole warp: a broadcast
            acc = blk.fma(a, blk.load(Bs, dot * S + t_col), acc)
        blk.syncthreads()
    blk.store(C, blk.bx * S * N + blk.by * S + t_row * N + t_col, acc)


transposed = {}
for pad in (0, 1):
    Ct = np.zeros((N_SIM, N_SIM), np.float32)
    transposed[pad] = launch(k3_transposed, (2, 2), 1024, args=(A, B, Ct, N_SIM, N_SIM, N_SIM, pad), lines=True)
    assert np.abs(Ct - ref).max() < 2e-5  # the same product, padded or not
wave_columns = ["Shared wavefronts", "Ideal wavefronts", "Bank conflicts"]
show(transposed[0].source(columns=wave_columns))

# %%
show(transposed[1].source(columns=wave_columns))

# %%
(conflict,) = [f for f in transposed[0].report().findings if f.rule == "bank conflicts"]
print(conflict)
store_line = next(k for k in transposed[0].by_line if transposed[0].by_line.line(k).startswith("blk.store(AsT"))
stores = transposed[0].by_line[store_line]
Claims() \
    .add(tr("Transposed tile: the finding's line is the AsT store"), conflict.line, store_line[1]) \
    .add(tr("Transposed tile: ways of the conflict"), conflict.value, 32) \
    .add(tr("Transposed tile: AsT store requests (4 blocks × 32 warps × 2 K steps)"), stores.shst_instr, 256) \
    .add(tr("Transposed tile: conflicts on the AsT store (256 × 31)"), stores.shst_conflicts, 7936) \
    .add(tr("Transposed tile: conflicts in the whole kernel"),
         transposed[0].shld_conflicts + transposed[0].shst_conflicts, 7936) \
    .add(tr("Padded to 33 floats per row: bank conflicts"),
         transposed[1].shld_conflicts + transposed[1].shst_conflicts, 0) \
    .show()

# %%
# The ``AsT`` store is the line that pays: each of its 256 requests takes 32 wavefronts instead of 1,
# 7936 conflicts in all, every conflict of the kernel; the reads of ``AsT`` are broadcasts and cost
# nothing extra. With 33 floats per row, lane ``t_col`` writes word ``33·t_col + t_row``, bank
# ``(t_col + t_row) mod 32``: 32 different banks, and the same line takes its ideal wavefronts.

# %%
# Occupancy: one block per SM
# ---------------------------
# A 1024-thread block is 32 warps. Boehm reports 37 registers per thread for this kernel; with its
# 8192 bytes of shared memory, how many blocks fit on one SM of the A6000 at once?

from kernellab import A6000, occupancy, waves

REGS = 37  # registers per thread, from Boehm's compile of kernel 3
occ = occupancy(A6000, K3.threads, regs_per_thread=REGS, smem_per_block=K3.smem_bytes)
regs_per_warp = cdiv(REGS * WARP_SIZE, A6000.reg_alloc_unit) * A6000.reg_alloc_unit  # allocated in units of 256
regs_per_block = regs_per_warp * K3.threads // WARP_SIZE
print_table(
    [tr("Resource"), tr("Per SM"), tr("Needed per block"), tr("Blocks that fit")],
    [
        [tr("Warp slots"), A6000.max_warps_per_sm, K3.threads // WARP_SIZE, occ.by_threads],
        [tr("Registers"), A6000.regs_per_sm, regs_per_block, occ.by_registers],
        [tr("Shared memory (bytes)"), A6000.max_smem_per_sm, K3.smem_bytes + A6000.smem_reserved_per_block,
         occ.by_shared],
        [tr("Resident blocks"), A6000.max_blocks_per_sm, 1, occ.by_blocks],
    ],
)

# %%
wv = waves(K3.grid(N_BIG, N_BIG, N_BIG), occ.blocks_per_sm, A6000.sms)
claims = Claims()
LIMITER = {"threads": tr("threads"), "registers": tr("registers"), "shared": tr("shared memory"),
           "blocks": tr("block limit")}
claims.add(tr("Blocks per SM, and what limits them"),
           f"{occ.blocks_per_sm}: {' + '.join(LIMITER[k] for k in occ.limiters)}",
           f"1: {LIMITER['threads']} + {LIMITER['registers']}")
claims.add(tr("Blocks shared memory would allow"), occ.by_shared, 11)
claims.add(tr("Warp slots of the SM"), A6000.max_warps_per_sm, 48)
claims.add(tr("Registers per warp, per block, per SM"), f"{regs_per_warp}, {regs_per_block}, {A6000.regs_per_sm}",
           "1280, 40960, 65536")
claims.add(tr("Resident warps, occupancy (%)"), f"{occ.warps_per_sm}, {round(100 * occ.occupancy)}", "32, 67")
claims.add(tr("Blocks and waves at 4096²"), f"{wv.blocks}, {wv.waves}", "16384, 196")
claims.show()

# %%
# Only one block fits, and two resources say so at once: the SM holds 48 warps, so a second block of 32
# would not fit, and 37 registers per thread round up to 1280 registers per warp, 40960 per block, of
# the 65536 the SM has. Shared memory would allow 11 blocks. One block of 32 warps is 67 % of the 48
# warp slots; at 4096² the 16384 blocks run in 196 waves of 84.
#
# One block per SM has a cost the occupancy number does not show: when the block reaches a barrier,
# *all* warps of the SM wait for the slowest one, and nothing else can run while the tile is loaded.

# %%
# The model against the measurement
# ---------------------------------
# The model charges each resource of the SM at 4096³. It takes the counts as the compiled kernels
# execute them (``kernellab.sgemm.study``, from the ``sm_86`` SASS): nvcc merges kernel 3's 32 loads of
# ``As`` per step into 8 ``LDS.128``, and adds the address arithmetic and loop control the code as
# written leaves implicit. Beside the bound (no latency, no scheduling loss) stands the calibrated
# estimate: the fitted scheduling efficiency η of page 5 and, for a loop like kernel 3's, the latency
# it leaves exposed.

from kernellab import PERF_A6000
from kernellab.model import resource_label
from kernellab.sgemm.study import study

K2, K3 = KERNELS[1], KERNELS[2]
preds = {r["number"]: r for r in study(PERF_A6000) if r["number"] in (2, 3)}
rows = []
for r in preds.values():
    p = r["prediction"]
    rows.append([r["name"], fmt_time(p["t_fma"]), fmt_time(p["t_issue"]), fmt_time(p["t_mio"]), fmt_time(p["t_l1"]),
                 fmt_time(p["t_smem"]), fmt_time(p["t_dram"]), resource_label(p["bound"]), f"{p['gflops']:.0f}",
                 fmt_time(p["t_latency"]), f"{p['estimate_gflops']:.0f}", f"{r['measured']:.1f}",
                 f"{r['ratio_boost']:.2f}", f"{r['estimate_ratio']:.2f}"])
print_table(
    [tr("Kernel"), tr("FP32 FMAs"), tr("Instruction issue"), tr("Load/store issue (1 per cycle)"),
     tr("L1 (1 line per cycle)"), tr("Shared memory (1 wavefront per cycle)"), tr("DRAM (wave model)"), tr("Bound"),
     tr("Bound GFLOP/s"), tr("Exposed latency"), tr("Estimate GFLOP/s (fitted η)"), tr("Boehm's GFLOP/s"),
     tr("Measured / bound"), tr("Measured / estimate")],
    rows,
)

# %%
m2, m3 = preds[2]["prediction"], preds[3]["prediction"]
trips = wv.waves * N_BIG // 32  # K steps one SM runs, one block after another
Claims().add(tr("Bound of k2: L1 and load/store issue tie"), m2["t_l1"] == m2["t_mio"], True) \
    .add(tr("Bound GFLOP/s, k2 / k3"), f"{m2['gflops']:.0f} / {m3['gflops']:.0f}", "4814 / 6163") \
    .add(tr("Measured / bound, k2 / k3"), f"{preds[2]['ratio_boost']:.2f} / {preds[3]['ratio_boost']:.2f}",
         "0.41 / 0.48") \
    .add(tr("K steps per SM for k3 (196 waves × 128)"), trips, 25088) \
    .add(tr("k3 exposed latency: K steps × 175 ns + DRAM time (ms)"),
         round(m3["t_latency"] * 1e3, 2), round((trips * 175e-9 + m3["t_dram"]) * 1e3, 2)) \
    .add(tr("Measured / estimate, k2 / k3"),
         f"{preds[2]['estimate_ratio']:.2f} / {preds[3]['estimate_ratio']:.2f}", "0.63 / 0.83") \
    .add(tr("Measured k3 / k2"), round(K3.boehm / K2.boehm, 1), 1.5).show()

# %%
# As compiled, the model moves kernel 3's bottleneck from L1 to shared memory and predicts it faster
# than kernel 2: 6163 against 4814 GFLOP/s at the rated 1.8 GHz. Boehm measured kernel 3 1.5 times
# faster than kernel 2, but both far below their bounds, 0.48 and 0.41. Each loses to latency, in a
# different way:
#
# * **Kernel 3 exposes it.** One block fills the SM, and its K loop loads a tile, waits at a barrier,
#   computes, waits again: while the tiles of the next step travel from memory, no warp on the SM has
#   anything to do. Every one of the 25088 K steps an SM runs pays a round trip, which the model sets
#   to 175 ns, plus the time DRAM needs to deliver the step's tiles for all 84 SMs (with a 6 MB L2,
#   nothing survives from one wave of blocks to the next). With that added to the work, the
#   measurement lands at 0.83 of the estimate. The 175 ns is a *calibrated* constant: page 5 shows
#   that only a narrow range of round trips keeps kernel 3 in agreement on all three GPUs.
# * **Kernel 2 waits too, but alone.** Its 32 warps have no barrier: each issues 32 loads and then 16
#   multiply-adds that depend on them, so every warp waits for memory once per 16 steps, and the other
#   warps can only partly fill that time. Its bound is L1 and the load/store queue at once (two
#   instructions and two lines per FFMA). The measurement reaches 0.63 of the calibrated estimate; the rest, most likely
#   loads that miss the A6000's small L2 and wait for DRAM, needs miss rates the model does not have.
#   Kernel 2 is the kernel the model explains worst.
#
# Boehm's profile of kernel 3 (known here only through notes on his post) shows its warps stalled
# mostly on *MIO throttle*: the queue that feeds shared-memory instructions to the memory pipeline is
# full, as 32 warps leave each barrier together and burst their shared loads. That is a second cost of
# the single block per SM, beside the exposed round trips, and the model charges only the round trips.
# The cure is the same as before, one level further in: keep values in registers and reuse them, which
# is what blocktiling does, and let several blocks share an SM so that one computes while another waits.

# %%
# What one block per SM means over time
# -------------------------------------
# A schematic of two K steps on one SM, drawn to the model's scale for kernel 3 on the A6000: per K
# step, the SM's work on the tiles takes ``C`` (its throughput time per step) and the loads of the
# next tiles take ``L`` to arrive (the assumed round trip plus the step's share of the DRAM
# transfer). Top: kernel 3, one block per SM; at each barrier every warp waits, and while the tiles
# travel nothing runs. Bottom: the same work split over two blocks per SM (as kernels 4–10 have): while
# one block waits for its tiles, the other computes.

import matplotlib.pyplot as plt
from matplotlib.patches import Patch

from kernellab.figures import use_cjk_font

r3 = preds[3]
trips = wv.waves * N_BIG // 32
C_us = r3["prediction"]["t_smem"] / trips * 1e6  # work of one K step on the SM
L_us = r3["prediction"]["t_latency"] / trips * 1e6  # one K step's loads in flight
colors = {"load": "C0", "wait": "0.85", "work": "C2"}

use_cjk_font()
fig, (top, bottom) = plt.subplots(2, 1, figsize=(8.5, 4.2), sharex=True, layout="constrained")
for t in (0.0, L_us + C_us):  # one block: loads in flight → barrier → work on the tiles → barrier
    top.broken_barh([(t, L_us)], (0.6, 0.8), color=colors["wait"])
    top.broken_barh([(t + L_us, C_us)], (0.6, 0.8), color=colors["work"])
    top.axvline(t + L_us, color="k", lw=1, ls=":")
    top.axvline(t + L_us + C_us, color="k", lw=1, ls=":")
top.set_yticks([1], [tr("block 0 (32 warps)")])
top.set_title(tr("One block per SM (kernel 3): the SM idles while the tiles travel"), fontsize=10)
period = max(L_us + C_us / 2, C_us)  # two blocks, half the work each, offset so that one hides the other
for t in (0.0, period):
    for blk, y in ((0, 1.6), (1, 0.6)):
        start = t + blk * C_us / 2
        bottom.broken_barh([(start, L_us)], (y, 0.8), color=colors["wait"])
        bottom.broken_barh([(start + L_us, C_us / 2)], (y, 0.8), color=colors["work"])
bottom.set_yticks([1, 2], [tr("block 1"), tr("block 0")])
bottom.set_title(tr("Two blocks per SM: one computes while the other waits"), fontsize=10)
bottom.set_xlabel(tr("Time (µs), two K steps"))
fig.legend(handles=[Patch(color=colors["wait"], label=tr("loads in flight (wait)")),
                    Patch(color=colors["work"], label=tr("work on the tiles"))], loc="outside lower center", ncols=2,
           fontsize=8)
plt.show()

# %%
from kernellab.claims import check

check(tr("Kernel 3 per K step: loads in flight / work (µs)"), f"{L_us:.2f} / {C_us:.2f}", "0.63 / 0.89").show()

# %%
# Per K step, kernel 3's SM works on the tiles for 0.89 µs and then waits 0.63 µs for the next ones:
# with nothing else to run, the wait adds to the work. The model's estimate for kernel 3 is exactly
# that sum, step after step.
