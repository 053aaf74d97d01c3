"""
Vectorized access, bank conflicts and Tensor Cores
==================================================

Kernel 5 is bound by shared memory, and 8 of its 20 shared-load wavefronts per dot step are bank
conflicts. Kernels 6, 7 and 8 change how data moves, not what is computed: 128-bit global loads and stores with A stored
transposed (kernel 6), then two new layouts of the B tile in shared memory (kernels 7 and 8).

You will learn what a 128-bit access saves and what it does not, how to count shared-memory
wavefronts and bank conflicts for one warp by hand and check them against the simulator, why the
two layouts did not make Boehm's kernels faster (each of kernels 5, 7 and 8 pays a different extra
cost), and why GEMMs with FP16 inputs on Tensor Cores accumulate in FP32.
"""

# %%
# Four kernels, one result
# ------------------------
# All four compute a 128×128 tile of C per block of 256 threads, an 8×8 tile per thread, with K steps
# of 8 (Boehm's kernels 5 to 8). We run each on the simulator for one block tile, a 128×32 by 32×128
# product (four K steps: every K step of a block does the same work, so the counts scale exactly).

import numpy as np

from kernellab import KERNELS, Claims, print_table, run_kernel
from kernellab.i18n import _ as tr

M_SIM, K_SIM = 128, 32
N_BIG = 4096
SPECS = {k: KERNELS[k - 1] for k in (5, 6, 7, 8)}

rng = np.random.default_rng(0)
A = rng.standard_normal((M_SIM, K_SIM)).astype(np.float32)
B = rng.standard_normal((K_SIM, M_SIM)).astype(np.float32)
ref = A.astype(np.float64) @ B.astype(np.float64)
counts, errors = {}, {}
for k, spec in SPECS.items():
    C, counts[k] = run_kernel(spec, A, B)
    errors[k] = float(np.abs(C - ref).max())
print_table([tr("Kernel"), tr("Shared memory per block"), tr("Max |C − A·B|")],
            [[spec.name, f"{spec.smem_bytes} B", f"{errors[k]:.1e}"] for k, spec in SPECS.items()])

# %%
Claims().add(tr("Max |C − A·B| below 10⁻⁵, all four"), max(errors.values()) < 1e-5, True) \
    .add(tr("Kernel 8's extra shared memory (bytes)"), SPECS[8].smem_bytes - SPECS[5].smem_bytes, 160).show()

# %%
# All four agree with numpy's float64 product to the rounding of FP32 (below 10⁻⁵). Kernel 8's B
# tile has 5 extra floats per row: 8 rows × 5 × 4 bytes = 160 bytes more shared memory.

# %%
# 128-bit global accesses
# -----------------------
# Kernel 6 reads A and B, and writes C, through ``float4`` pointers: one instruction moves 16 bytes
# per lane, 512 bytes per warp. Counted per 1000 FMAs:

rows = []
glob = {}
for k in (5, 6):
    c = counts[k]
    glob[k] = {"ld": 1000 * c.load_requests / c.fma, "ld_bytes": c.load_bytes / c.load_requests,
               "sectors": 1000 * c.load_sectors / c.fma, "st": 1000 * c.store_requests / c.fma,
               "st_bytes": c.store_bytes / c.store_requests}
    g = glob[k]
    rows.append([SPECS[k].name, f"{g['ld']:.3g}", f"{g['ld_bytes']:.0f}", f"{g['sectors']:.3g}", f"{g['st']:.3g}",
                 f"{g['st_bytes']:.0f}"])
print_table([tr("Kernel"), tr("Global load instructions"), tr("Bytes per load instruction"), tr("Sectors loaded"),
             tr("Global store instructions"), tr("Bytes per store instruction")], rows)

# %%
g5, g6 = glob[5], glob[6]
Claims().add(tr("Load / store instructions, kernel 5 ÷ kernel 6"), f"{g5['ld'] / g6['ld']:g} / {g5['st'] / g6['st']:g}",
             "4 / 4") \
    .add(tr("Same sectors loaded"), g5["sectors"] == g6["sectors"], True) \
    .add(tr("Bytes per load instruction, kernel 5 / kernel 6"), f"{g5['ld_bytes']:g} / {g6['ld_bytes']:g}",
         "128 / 512").show()

# %%
# Four times fewer load and store instructions, and *exactly the same sectors*: the bytes that cross
# L1 do not change, since kernel 5's loads were already coalesced. A 128-bit access saves
# instructions (and the address arithmetic for each), not bandwidth. In CUDA the compiler emits
# ``LDG.E.128`` only when it can prove 16-byte alignment, which is why Boehm casts the pointers to
# ``float4`` himself.
#
# The other change of kernel 6 is in shared memory: A is stored *transposed*, so the 8 values of A a
# thread needs per dot step are 8 consecutive floats, two 128-bit shared loads. In kernel 5 they are 8
# floats of a column, 8 rows apart; only the compiler can merge them, along the unrolled dot loop
# (4 consecutive values of k in one row). It does in our CUDA twin of kernel 5, whose counts the
# simulator follows, and only in part when nvcc 13 compiles Boehm's source (page 5 lists 5 shared
# loads per dot step for it).

# %%
# Shared-memory wavefronts and bank conflicts
# -------------------------------------------
# Shared memory has 32 banks of 4-byte words and serves one word per bank per cycle, a *wavefront*.
# Lanes reading the same word share it; distinct words in one bank take one wavefront each. A 128-bit
# access is served a quarter-warp (8 lanes, 128 bytes) at a time, so its ideal is 4 wavefronts, with one
# exception: when lanes pair up on one address (lanes n and n+1, or n and n+2, read the same
# 16 bytes), a half-warp is served at a time and the ideal is 2. NVIDIA's engineers stated that rule
# for compute capability 7.x (forum thread 77228); one Nsight Compute measurement on an A10 and an
# H100 (CC 8.6 and 9.0, thread 373160, lanes 0–15 on one address and 16–31 on another) agrees with
# it. The simulator applies it to the other patterns as well, an extrapolation that no measurement
# here confirms. It counts per warp, with the load widths nvcc emits; below,
# loads per dot step (64 FMAs per thread) and stores per K step (8 dot steps).

rows = []
shared = {}
for k, spec in SPECS.items():
    c = counts[k]
    per_dot = 2048 / c.fma  # a warp does 32 × 64 = 2048 FMAs per dot step
    s = {"ld": c.shld_instr * per_dot, "ld_wf": c.shld_wavefronts * per_dot, "ld_ideal": c.shld_ideal * per_dot,
         "st": c.shst_instr * per_dot * 8, "st_wf": c.shst_wavefronts * per_dot * 8,
         "st_ideal": c.shst_ideal * per_dot * 8}
    shared[k] = s
    rows.append([spec.name, f"{s['ld']:.0f}", f"{s['ld_wf']:.0f}", f"{s['ld_ideal']:.0f}",
                 f"{s['ld_wf'] - s['ld_ideal']:.0f}", f"{s['st']:.0f}", f"{s['st_wf']:.0f}", f"{s['st_ideal']:.0f}"])
print_table([tr("Kernel"), tr("Load instructions"), tr("Load wavefronts"), tr("Ideal"), tr("Conflicts"),
             tr("Store instructions"), tr("Store wavefronts"), tr("Ideal")], rows)

# %%
claims = Claims()
for k, (ld_wf, ld_ideal) in {5: (20, 12), 6: (20, 12), 7: (12, 12), 8: (24, 12)}.items():
    claims.add(tr("k{k}: load wavefronts / ideal").format(k=k),
               f"{shared[k]['ld_wf']:.0f} / {shared[k]['ld_ideal']:.0f}", f"{ld_wf} / {ld_ideal}")
claims.add(tr("Load instructions per dot step, k5 / k6 / k7 / k8"),
           " / ".join(f"{shared[k]['ld']:g}" for k in SPECS), "4 / 4 / 10 / 4.75").show()

# %%
# Per warp and dot step, kernels 5 and 6 issue 4 shared loads, all 128-bit, and need 20 load
# wavefronts where 12 would do: 8 conflicts, all in the loads of B. Kernel 7's layout removes every
# load conflict, 12 wavefronts, at the price of 10 load instructions (its B values are 16 floats apart,
# so 32-bit loads nvcc cannot merge) and store wavefronts twice the ideal. Kernel 8's padding makes the
# loads *worse*, 24 wavefronts, though nvcc merges most of its loads of B (4.75 per dot step). Kernel 6's
# shared stores (5 per K step, one of them 128-bit) take 12 wavefronts, more than kernel 5's 8. The
# next section derives the load counts for one warp, by hand.

# %%
# One warp, by hand
# -----------------
# Thread ``t`` of a block has ``t_col = t % 16`` and ``t_row = t // 16``, so warp 0 holds ``t_col``
# 0–15 twice (two values of ``t_row``). At dot step ``d`` each thread reads 8 values of B:
#
# * kernels 5 and 6: ``Bs[d·128 + 8·t_col + i]``, as two 128-bit loads (i = 0–3, 4–7);
# * kernel 7: ``Bs[(8·d + i)·16 + t_col]``, eight 32-bit loads;
# * kernel 8: ``Bs[d·133 + 8·t_col + i]``: a row of 133 floats starts on a 16-byte boundary only
#   when ``d`` is a multiple of 4, so nvcc uses 128-bit loads there and 32- or 64-bit loads elsewhere;
#   at dot step 1, eight 32-bit loads.
#
# The picture shows, for the first load of warp 0 at dot step 1, which bank each lane's words fall in,
# coloured by the wavefront that serves them: a phase needs as many wavefronts as the most distinct
# words any one bank holds.

import matplotlib.pyplot as plt

from kernellab import Access
from kernellab.access import shared_wavefronts
from kernellab.figures import use_cjk_font

lane = np.arange(32)
t_col = lane % 16
DOT = 1
PATTERNS = {  # first Bs load of warp 0 at dot step DOT: word index of each lane, and words per lane
    6: (DOT * 128 + 8 * t_col, 4),
    7: ((DOT * 8 + 0) * 16 + t_col, 1),
    8: (DOT * 133 + 8 * t_col + 0, 1),
}


def serve(first_word, words_per_lane):
    """Wavefront index of each (lane, word): phases of 128 bytes; in a phase, a bank's k-th distinct word waits k."""
    lanes_per_phase = 32 // words_per_lane
    words = first_word[:, None] + np.arange(words_per_lane)
    wave = np.zeros(words.shape, int)
    start = 0
    for p in range(0, 32, lanes_per_phase):
        w = words[p:p + lanes_per_phase]
        rank = np.zeros(w.shape, int)
        for bank in range(32):
            distinct = np.unique(w[w % 32 == bank])
            for r, word in enumerate(distinct):
                rank[w == word] = r
        wave[p:p + lanes_per_phase] = start + rank
        start += rank.max() + 1
    return words, wave, start


from matplotlib.colors import BoundaryNorm, ListedColormap

use_cjk_font()
cmap = ListedColormap([f"C{i}" for i in range(8)])
norm = BoundaryNorm(np.arange(-0.5, 8), cmap.N)
fig, axes = plt.subplots(1, 3, figsize=(10, 4.2), sharey=True, layout="constrained")
hand = {}
for ax, (k, (first, wpl)) in zip(axes, PATTERNS.items()):
    words, wave, n_waves = serve(first, wpl)
    acc = Access.from_lanes(first * 4, width=4 * wpl)
    hand[k] = (n_waves, shared_wavefronts(acc))
    sc = ax.scatter(words % 32, np.repeat(lane[:, None], wpl, axis=1), c=wave, cmap=cmap, norm=norm, s=16)
    ax.set_title(tr("k{k}: wavefronts = {n}").format(k=k, n=n_waves), fontsize=10)
    ax.set_xlabel(tr("Bank"))
    ax.set_xlim(-1, 32)
    ax.set_xticks(range(0, 32, 8))
axes[0].set_ylabel(tr("Lane of warp 0"))
axes[0].invert_yaxis()
fig.colorbar(sc, ax=axes, label=tr("Wavefront"), ticks=range(8))
fig.suptitle(tr("First load of B at dot step 1: which bank each lane reads"))
plt.show()

# sphinx_gallery_thumbnail_number = 1

# %%
# Per dot step a warp also loads its 8 values of A, with two 128-bit loads (on average, for kernel 5)
# in which lanes 0–15 (one ``t_row``) read the same 16 bytes and lanes 16–31 another row's: every lane
# pair shares an address, so two half-warp phases of one word per bank, 2 wavefronts each. Adding up,
# by hand, against the simulator's count of the whole launch, for the kernels whose loads are the same
# at every dot step (kernel 8's change width with ``d``; its 24 are the simulator's alone):

a_wave = {5: 2 * 2, 6: 2 * 2, 7: 2 * 2}  # As loads per warp and dot step × wavefronts, derived above
b_instr = {5: 2, 6: 2, 7: 8}
b_first = {5: hand[6][0], 6: hand[6][0], 7: hand[7][0]}  # k5 reads Bs like k6
rows = []
for k in a_wave:
    total = a_wave[k] + b_instr[k] * b_first[k]
    rows.append([SPECS[k].name, a_wave[k], f"{b_instr[k]} × {b_first[k]}", total, f"{shared[k]['ld_wf']:.0f}"])
print_table([tr("Kernel"), tr("A wavefronts"), tr("B loads × wavefronts"), tr("By hand"), tr("Simulator")], rows)

# %%
claims = Claims()
claims.add(tr("By hand = simulator, k5 / k6 / k7"),
           all(row[3] == shared[row_k]["ld_wf"] for row_k, row in zip(a_wave, rows)), True)
claims.add(tr("Wavefronts of the first B load, k6 / k7 / k8"), " / ".join(str(hand[k][0]) for k in (6, 7, 8)),
           "8 / 1 / 4")
claims.add(tr("The picture's count = the access record's"), all(mine == lib for mine, lib in hand.values()), True)
claims.show()

# %%
# The hand count and the simulator agree (the other loads of a dot step have the same pattern shifted
# by a constant, so the same wavefronts). In kernel 6, lanes ``t_col`` and
# ``t_col + 4`` of a quarter-warp are 32 floats apart, the same bank: 2 wavefronts per phase, 8 per
# load. In kernel 7, 16 lanes read 16 consecutive words and the other 16 read the same words
# (broadcast): 1 wavefront. In kernel 8, lanes 8 floats apart cover only 4 banks per load instruction,
# ``t_col``, ``t_col + 4``, ``t_col + 8``, ``t_col + 12`` in the same bank: 4 wavefronts. Padding rows by
# 5 floats fixes *column* walks through a tile; these loads walk along a row, and the padding does not
# touch them.

# %%
# The model against the measurement
# ---------------------------------
# An audit compiled Boehm's sources with nvcc 13.0 for ``sm_86`` and counted their SASS: per 512 warp
# FFMAs (8 dot steps of a warp), the instructions (integer, address and loop control included), the
# shared loads and the shared wavefronts; ``kernellab.sgemm.study.compiled_counts`` puts those into
# the counts. This is a recompilation, not the binary Boehm measured (built with CUDA 12), although
# the one excerpt of his SASS agrees with it. Its shared loads match the simulator's for kernels 6–8
# and differ for kernel 5, whose loads of ``As`` nvcc merged in our twin but not all in Boehm's
# source. The model then gives a *bound*
# (no latency, no scheduling loss, here at the rated 1.8 GHz) and an *estimate* calibrated with the
# fitted scheduling efficiency η (page 5).

from kernellab import PERF_A6000
from kernellab.model import resource_label
from kernellab.sgemm.study import SASS_SM86, study

rows = {r["number"]: r for r in study(PERF_A6000) if r["number"] in SPECS}
PER_512 = PERF_A6000.clock_hz / (N_BIG**3 / 32) * 512  # cycles per s ÷ warp FFMAs × 512


def compiled(k, key, rate):
    """Events per 512 warp FFMAs behind one time of the prediction: the busiest SM's time × rate × its cycles
    per second gives its events, × blocks ÷ its blocks the launch's, ÷ FFMAs × 512."""
    p = rows[k]["prediction"]
    return p[key] * rate * p["programs"] / p["per_sm"] * PER_512


print_table(
    [tr("Kernel"), tr("Shared loads per dot step, simulator"),
     tr("Shared loads per dot step, Boehm's source (nvcc 13, sm_86)"),
     tr("Warp instructions"), tr("Shared wavefronts"), tr("Bound"), tr("Bound GFLOP/s"),
     tr("Estimate GFLOP/s (fitted η)"), tr("Boehm's GFLOP/s"), tr("Measured / bound"), tr("Measured / estimate")],
    [[spec.name, f"{shared[k]['ld']:g}", f"{SASS_SM86[k][1] / 8:g}", f"{compiled(k, 't_issue', 4):.0f}",
      f"{compiled(k, 't_smem', 1):.0f}", resource_label(rows[k]["prediction"]["bound"]),
      f"{rows[k]['prediction']['gflops']:.0f}", f"{rows[k]['prediction']['estimate_gflops']:.0f}",
      f"{spec.boehm:.1f}", f"{rows[k]['ratio_boost']:.2f}", f"{rows[k]['estimate_ratio']:.2f}"]
     for k, spec in SPECS.items()],
)

# %%
slow = [SPECS[k].boehm for k in (5, 7, 8)]
Claims().add(tr("Shared loads per dot step, Boehm's source (nvcc 13, sm_86), k5 / k6 / k7 / k8"),
             " / ".join(f"{SASS_SM86[k][1] / 8:g}" for k in SPECS), "5 / 4 / 10 / 4.75") \
    .add(tr("Binding resource, k5 / k6 / k7 / k8"),
         " / ".join(resource_label(rows[k]["prediction"]["bound"]) for k in SPECS),
         " / ".join(map(resource_label, ["shared", "shared", "issue", "shared"]))) \
    .add(tr("Spread of the measured k5, k7, k8"), round(100 * (max(slow) / min(slow) - 1), 1), 3, sig=1) \
    .add(tr("k6 faster than the best of k5, k7, k8 (%)"), round(100 * (SPECS[6].boehm / max(slow) - 1)), 11) \
    .add(tr("MIO bound of k7, FFMAs per SM-cycle"), round(512 / compiled(7, "t_mio", 1), 1), 5.7) \
    .add(tr("k7 measured, FFMAs per SM-cycle"),
         round(SPECS[7].boehm * 1e9 / 64 / (PERF_A6000.sms * PERF_A6000.clock_hz), 2), 1.68) \
    .add(tr("k7 measured / its issue bound (rated 1.8 GHz)"), round(rows[7]["ratio_boost"], 2), 0.57).show()

# %%
# Kernels 5, 7 and 8 run within 3 % of one another, about 11 % behind kernel 6, and each for its own
# reason; no single count separates them:
#
# * **kernel 5** loads and stores its tiles with 32-bit instructions (8 global loads and 8 shared stores
#   per K step where kernel 6 needs 2 and 5), and its 128-bit loads of B conflict: 180 shared wavefronts
#   per 512 FFMAs against kernel 6's 172;
# * **kernel 7** reads B with eight 32-bit loads per dot step, which nvcc cannot merge: 10 shared loads
#   per dot step and 652 instructions per 512 FFMAs. Conflict-free, its tightest bound in the model is
#   instruction issue, but it reaches only 0.57 of that bound: what holds it back is not a throughput
#   the model counts. Its 64 dependent scalar shared loads per K step are the likely cause, each
#   FFMA waiting on a load (short-scoreboard stalls, in Nsight Compute's terms);
# * **kernel 8** pays for its padding: 216 wavefronts per 512 FFMAs, the most of the four, although
#   nvcc merges most of its loads of B (4.75 shared loads per dot step).
#
# Kernels 5 and 8 *issue fewer* shared-load instructions than kernel 7, so the queue that feeds
# loads and stores to the memory pipeline (MIO, one instruction per SM per cycle) is not what holds
# them back: kernel 7's 90 load/store instructions per 512 FFMAs would allow 5.7 FFMAs per SM-cycle,
# and it runs at 1.68. The model's bounds rank kernel 7 first and kernel 8 last; the measurements do
# not, and the estimate is off by −14 % and +16 % for those two. The lesson: a bank conflict costs only
# when shared memory is the bottleneck, and removing it with more instructions can cost as much as it
# saves.

# %%
# Tensor Cores: FP16 inputs, FP32 accumulation
# --------------------------------------------
# A Tensor Core multiplies small tiles of FP16 (or BF16) inputs and adds the products into an
# accumulator. Should the accumulator be FP16 too? We accumulate the products of FP16 inputs both ways,
# rounding after every addition, and compare the sums of the first K products with a float64
# reference (64×64 outputs).

M = N = 64
K_MAX = 4096
rng = np.random.default_rng(3)
a = rng.standard_normal((M, K_MAX)).astype(np.float16)
b = rng.standard_normal((K_MAX, N)).astype(np.float16)
acc32 = np.zeros((M, N), np.float32)
acc16 = np.zeros((M, N), np.float16)
rows = []
acc_err = {}
for k in range(K_MAX):
    prod = a[:, k:k + 1].astype(np.float32) * b[k:k + 1, :].astype(np.float32)  # exact in FP32
    acc32 += prod
    acc16 = (acc16.astype(np.float32) + prod).astype(np.float16)
    K = k + 1
    if K in (64, 256, 1024, 4096):  # the sums of the first K products, against float64
        ref16 = a[:, :K].astype(np.float64) @ b[:K].astype(np.float64)
        e32, e16 = float(np.abs(acc32 - ref16).max()), float(np.abs(acc16 - ref16).max())
        acc_err[K] = (e32, e16)
        rows.append([K, f"{e32 / np.sqrt(K):.1e}", f"{e16 / np.sqrt(K):.1e}", f"{e16 / e32:.0f}"])
print_table([tr("K (FP16 inputs)"), tr("FP32 accumulation: max error / √K"),
             tr("FP16 accumulation: max error / √K"), tr("FP16 / FP32")], rows)

# %%
eps_ratio = float(np.finfo(np.float16).eps / np.finfo(np.float32).eps)
ratios = [e16 / e32 for e32, e16 in acc_err.values()]
tc_ratio = PERF_A6000.gpu.fp16_tensor_peak / PERF_A6000.peak_flops()
claims = Claims()
claims.add(tr("FP16 / FP32 error between 1000 and 20000, every K"), all(1000 < r < 20000 for r in ratios), True)
claims.add(tr("FP16 eps / FP32 eps"), eps_ratio, 8192)
claims.add(tr("Significant bits of FP16"), np.finfo(np.float16).nmant + 1, 11)
claims.add(tr("At K = 4096: FP16 error above 1, FP32 error below 10⁻³"),
           acc_err[4096][1] > 1 and acc_err[4096][0] < 1e-3, True)
claims.add(tr("A6000: FP16 Tensor Core peak / FP32 peak"), round(tc_ratio), 4)
claims.show()

# %%
# Accumulating in FP16 is thousands of times less accurate than in FP32 (between 1000 and 20000 times
# in every row), close to the ratio of the two formats' machine epsilons, 2¹³ = 8192: FP16 keeps 11
# significant bits, so once the sum has grown to a few tens, every addition rounds away most of the
# next product. At K = 4096 the FP16 sum is off by more than 1, the FP32 sum by less than 10⁻³.
#
# That is why Tensor-Core GEMMs take FP16 or BF16 *inputs* but keep an FP32 *accumulator*: the product
# of two FP16 numbers is exact in FP32, and the long sum, where the error grows with K, stays in FP32.
# PyTorch's FP16 matrix products (``cublasGemmEx`` with FP32 compute) and Triton's ``tl.dot`` accumulate
# in FP32; cuBLAS's own ``cublasHgemm`` accumulates in FP16, which is faster on some GPUs and as
# inaccurate as the table shows. The inputs are cheap to halve; the sum is not. On the A6000 the FP16
# Tensor Cores peak at 4 times the FP32 rate of the CUDA cores our kernels use, which is why production
# GEMMs use them.
