"""
Block-level programming: Triton, launch order and L2, fusion, testing a kernel
==============================================================================

In CUDA you write what *one thread* does; in Triton you write what *one block* does. How the block is
split over threads, whether data goes through shared memory, whether Tensor Cores are used and how
deep the pipeline is are left to the compiler. The tiled matmul of the previous pages fits in a
short function.

This page runs four demos on kernellab's mini-Triton: a Triton-style matmul that is right for any
shape and reads fewer bytes the larger its blocks; the order in which programs start and what it
does to L2 traffic; fusion, with softmax; and how to test a kernel so that bugs at the edges are
caught.
"""

# %%
# Demo 1: a Triton-style matmul
# -----------------------------
# The kernel has the structure of Triton's tutorial 03: program ``pid`` computes one
# ``BLOCK_M × BLOCK_N`` block of C, walking along K in steps of ``BLOCK_K``. It is written in real
# Triton syntax: with ``import triton`` and ``import triton.language as tl`` instead of the two
# kernellab imports below, the same code runs on a GPU. Masks make it correct for any shape: positions
# outside the matrices are not read (they count as 0) and not written.

import numpy as np

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import Claims, cdiv, fmt_bytes, fmt_time, print_table
from kernellab.i18n import _ as tr
from kernellab.triton.executor.numerics import tf32_truncate


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, MASK_K: tl.constexpr):
    # grouped launch order (demo 2): program id -> (pid_m, pid_n)
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + offs_k
        if MASK_K:
            a_mask = (offs_m[:, None] < M) & (kk[None, :] < K)
            b_mask = (kk[:, None] < K) & (offs_n[None, :] < N)
        else:  # the bug of demo 4: no mask along K
            a_mask = offs_m[:, None] < M
            b_mask = offs_n[None, :] < N
        a = tl.load(a_ptr + offs_m[:, None] * K + kk[None, :], mask=a_mask, other=0.0)
        b = tl.load(b_ptr + kk[:, None] * N + offs_n[None, :], mask=b_mask, other=0.0)
        acc = tl.dot(a, b, acc)
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc, mask=c_mask)


def matmul(a, b, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, GROUP_M=8, MASK_K=True):
    """Launch ``matmul_kernel`` on a 1-D grid of cdiv(M, BLOCK_M)·cdiv(N, BLOCK_N) programs: (C, counts)."""
    M, K = a.shape
    N = b.shape[1]
    c = np.zeros((M, N), dtype=np.float32)
    grid = (cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N),)
    counts = matmul_kernel[grid](a, b, c, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                                 GROUP_M=GROUP_M, MASK_K=MASK_K)
    return c, counts


rng = np.random.default_rng(0)
rows = []
within_tolerance, beyond_it_exactly = [], []
for m, n, k in ((256, 256, 256), (300, 200, 150), (1, 1000, 64), (129, 65, 33)):
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c, cnt = matmul(a, b)
    tol = 1e-5 * np.sqrt(k) * 10
    err = np.abs(c - a.astype(np.float64) @ b).max()
    err_tf32 = np.abs(c - tf32_truncate(a).astype(np.float64) @ tf32_truncate(b).astype(np.float64)).max()
    within_tolerance.append(bool(err_tf32 < tol))
    beyond_it_exactly.append(bool(err > tol))
    rows.append([f"{m}×{n}×{k}", cnt["programs"], f"{err:.1e}", f"{err_tf32:.1e}", fmt_bytes(cnt["load_bytes"]),
                 f"{cnt['load_bytes'] / ((m * k + k * n) * 4):.1f}"])
print_table([tr("M×N×K"), tr("Programs"), tr("Max error"), tr("Max error against the TF32 inputs"),
             tr("Bytes read (masked lanes excluded)"), tr("Relative to reading each number once")], rows)

# %%
Claims().add(tr("Every shape within 10⁻⁴·√K of float64 on the TF32 inputs"), all(within_tolerance), True) \
    .add(tr("Every shape beyond it against the exact product"), all(beyond_it_exactly), True).show()

# %%
# The ``tl.dot`` above names no ``input_precision``, so on its fp32 inputs it does what Triton 3.9
# compiles for the GPUs kernellab models (sm_80 and later): the tensor cores read each input as TF32,
# its low mantissa bits dropped. Against the exact product the error is that of the inputs; against
# the float64 product of the TF32 inputs (``tf32_truncate``) only fp32 accumulation is left, and it is
# within the tolerance. ``tl.dot(a, b, acc, input_precision="ieee")`` computes in fp32 on the CUDA cores
# instead, and ``"tf32x3"`` comes close to fp32 with three TF32 products.

# %%
# Each program reads BLOCK_M rows of A and BLOCK_N columns of B, so in total the programs read
# M·K·(N/BLOCK_N) + K·N·(M/BLOCK_M) numbers. The larger the blocks, the more arithmetic per byte
# read. At 512³ the counted bytes match the formula exactly for every block size (the table is
# simulated at 256³ and scaled, since for a fixed block size the programs grow as n² and the bytes
# as n³; the largest block is also run at 512³ to check):

GEMM_M = GEMM_N = GEMM_K = 512
SIM = 256  # for a fixed block size, programs grow as n² and bytes and FLOPs as n³: simulate 256³, scale
scale = GEMM_M // SIM
a = rng.standard_normal((SIM, SIM)).astype(np.float32)
b = rng.standard_normal((SIM, SIM)).astype(np.float32)
tiles = ((16, 16), (32, 32), (64, 64), (128, 128), (128, 256))
intensity = {}
rows = []
matches_formula = []
for bm, bn in tiles:
    sim = matmul(a, b, BLOCK_M=bm, BLOCK_N=bn)[1]
    programs, load_bytes, flops = sim["programs"] * scale**2, sim["load_bytes"] * scale**3, sim["dot_flops"] * scale**3
    formula = (GEMM_M * GEMM_K * (GEMM_N // bn) + GEMM_K * GEMM_N * (GEMM_M // bm)) * 4
    matches_formula.append(load_bytes == formula and flops == 2 * GEMM_M * GEMM_N * GEMM_K)
    intensity[bm, bn] = flops / load_bytes
    rows.append([f"{bm}×{bn}", programs, fmt_bytes(load_bytes), fmt_bytes(formula), f"{intensity[bm, bn]:.0f}"])
full = matmul(rng.standard_normal((GEMM_M, GEMM_K)).astype(np.float32),
              rng.standard_normal((GEMM_K, GEMM_N)).astype(np.float32),
              BLOCK_M=128, BLOCK_N=256)[1]  # the scaling, checked at full size on the largest block
print_table([tr("BLOCK_M×BLOCK_N (512³)"), tr("Programs"), tr("Bytes read (counted)"),
             tr("Formula (M·K·N/BN + K·N·M/BM)·4"), tr("FLOP per byte read")], rows)

# %%
claims = Claims()
claims.add(tr("Bytes read = formula and FLOPs = 2·M·N·K, every block size"), all(matches_formula), True)
claims.add(tr("Scaled 256³ counts = a full 512³ run (128×256 blocks)"),
           (full["programs"], full["load_bytes"]) == (rows[-1][1], (GEMM_M * GEMM_K * (GEMM_N // 256)
                                                                   + GEMM_K * GEMM_N * (GEMM_M // 128)) * 4), True)
claims.add(tr("FLOP per byte read, 16×16 / 128×256"),
           f"{round(intensity[16, 16])} / {round(intensity[128, 256])}", "4 / 43")
claims.show()

# %%
# The same kernel in the lecture script's own form — ``tl`` passed in as an argument, arrays and
# element offsets instead of pointers — runs on the same engine and counts the same bytes. Its
# ``tl.dot`` computes in IEEE fp32, so it is given the inputs as the TF32 dot reads them:

from kernellab import triton_launch


def matmul_kernel_script(tl, a, b, c, M, N, K, BLOCK_M, BLOCK_N, BLOCK_K, MASK_K=True):
    """The lecture script's form of the kernel above (row-major order), with the K mask switchable."""
    pid = tl.program_id(0)
    pid_m, pid_n = pid // cdiv(N, BLOCK_N), pid % cdiv(N, BLOCK_N)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N))
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + tl.arange(0, BLOCK_K)
        a_mask = (offs_m[:, None] < M) & ((kk[None, :] < K) if MASK_K else True)
        b_mask = ((kk[:, None] < K) if MASK_K else True) & (offs_n[None, :] < N)
        A = tl.load(a, np.clip(offs_m[:, None] * K + kk[None, :], 0, a.size - 1), mask=a_mask, other=0.0)
        B = tl.load(b, np.clip(kk[:, None] * N + offs_n[None, :], 0, b.size - 1), mask=b_mask, other=0.0)
        acc = tl.dot(A, B, acc)
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(c, np.clip(offs_m[:, None] * N + offs_n[None, :], 0, c.size - 1), acc, mask=c_mask)


a7 = rng.standard_normal((129, 33)).astype(np.float32)
b7 = rng.standard_normal((33, 65)).astype(np.float32)
c_script = np.zeros((129, 65), np.float32)
cnt_script = triton_launch(matmul_kernel_script, cdiv(129, 64) * cdiv(65, 64), tf32_truncate(a7),
                           tf32_truncate(b7), c_script, 129, 65, 33, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
c_jit, cnt_jit = matmul(a7, b7, GROUP_M=1)
print_table([tr("Form"), tr("Programs"), tr("Bytes read"), tr("Bytes written"), tr("Dot FLOPs")],
            [[form, cnt["programs"], cnt["load_bytes"], cnt["store_bytes"], cnt["dot_flops"]]
             for form, cnt in ((tr("real Triton syntax"), cnt_jit), (tr("lecture script's form"), cnt_script))])

# %%
Claims().add(tr("Both forms: the same C"), bool(np.array_equal(c_script, c_jit)), True) \
    .add(tr("Both forms: the same counts"),
         all(cnt_script[key] == cnt_jit[key] for key in ("programs", "load_bytes", "store_bytes", "dot_flops")), True) \
    .show()

# %%
# The kernel describes one block only: ``offs_m`` and ``offs_n`` are the rows and columns the
# program owns, one ``tl.load`` reads a whole block, one ``tl.dot`` multiplies two blocks. Compared
# with Boehm's k5 and k6 there is no ``threadIdx``, no ``__syncthreads`` and no shared memory: the
# Triton compiler decides all of that.
#
# Masks let one kernel serve every shape. A thin 1×1000×64 product is right too; only one of each
# program's 64 rows is real, the others are masked off and their work is wasted.
#
# Larger blocks do more arithmetic per byte: at 512³ from 4 FLOP per byte with 16×16 blocks to
# about 43 with 128×256 — the same formula as the tiling of the CUDA kernels. These are the bytes
# the programs ask for (as L2 sees them); how many reach DRAM depends on whether programs running at
# the same time share their data in L2, which is demo 2.

import matplotlib.pyplot as plt

from kernellab.figures import use_cjk_font

use_cjk_font()
fig, ax = plt.subplots(figsize=(6.4, 3.6), layout="constrained")
labels = [f"{bm}×{bn}" for bm, bn in tiles]
ax.bar(labels, [1 / intensity[t] for t in tiles], color="C0")
for x, t in enumerate(tiles):
    ax.annotate(f"{1 / intensity[t]:.3f}", (x, 1 / intensity[t]), textcoords="offset points", xytext=(0, 3),
                ha="center", fontsize=9)
ax.set_xlabel(tr("BLOCK_M × BLOCK_N"))
ax.set_ylabel(tr("Bytes read per FLOP"))
ax.set_title(tr("512³ FP32 matmul: bytes read per FLOP against block size"))
plt.show()

# %%
# Demo 2: launch order and L2
# ---------------------------
# Programs start in order of their id. Triton's tutorial asks: to compute the first 9 blocks of C in
# a 9×9-block matmul whose K dimension is also 9 blocks long, how many blocks of A and B must be
# loaded? In row-major order the first 9 programs compute the first block-row of C: one row of A
# (9 blocks) and all of B (81 blocks). In *grouped* order with ``GROUP_M = 3`` they compute a 3×3
# square: three rows of A and three columns of B.

from kernellab import dram_bytes_tiled, tile_order

rows = []
orders = {}
for name, group in ((tr("row-major"), None), (tr("grouped, GROUP_M = 3"), 3)):
    pm, pn = tile_order(9, 9, group)
    orders[group] = (pm, pn)
    a_blocks = len(np.unique(pm[:9])) * 9  # each block-row of A is 9 blocks long in K
    b_blocks = len(np.unique(pn[:9])) * 9
    first = " ".join(f"({m},{n})" for m, n in zip(pm[:9], pn[:9]))
    rows.append([name, first, a_blocks, b_blocks, a_blocks + b_blocks])
print_table([tr("Order (9×9 output blocks, 9 blocks along K)"), tr("Blocks (row, column) of the first 9 programs"),
             tr("A blocks read"), tr("B blocks read"), tr("Total")], rows)

# %%
row_major_total, grouped_total = rows[0][-1], rows[1][-1]
Claims().add(tr("Blocks read, row-major / grouped"), f"{row_major_total} / {grouped_total}", "90 / 54").show()

# %%
# The launch-order maps below number each output block by the program that computes it; the first
# wave of 9 programs is outlined.

fig, axes = plt.subplots(1, 2, figsize=(8, 4), layout="constrained")
for ax, (group, title) in zip(axes, ((None, tr("row-major")), (3, tr("grouped, GROUP_M = 3")))):
    pm, pn = orders[group]
    order = np.zeros((9, 9), int)
    order[pm, pn] = np.arange(81)
    ax.imshow(order, cmap="viridis_r")
    for (m, n), pid in np.ndenumerate(order):
        ax.text(n, m, pid, ha="center", va="center", fontsize=7, color="white" if pid < 40 else "black")
        if pid < 9:
            ax.add_patch(plt.Rectangle((n - 0.5, m - 0.5), 1, 1, fill=False, ec="red", lw=2))
    ax.set_title(title)
    ax.set_xlabel(tr("block column of C (pid_n)"))
    ax.set_ylabel(tr("block row of C (pid_m)"))
plt.show()

# %%
# At full size the *wave model* says what this does to DRAM traffic: programs start in waves of one
# program per SM (the lecture's assumption; the next section revisits it); the programs of a wave
# advance along K together and share through L2 what they read, so a wave reads each distinct
# block-row of A and block-column of B once; nothing is kept from one wave to the next; C is written
# once. For a 4096³ FP16 matmul:

from kernellab import A100, H100

rows = []
ratios = {}
for gpu in (A100, H100):
    for bm, bn in ((128, 128), (128, 256)):
        base = dram_bytes_tiled(4096, bm, bn, 1, gpu.sms, elem=2, group=None)
        for g in (None, 4, 8, 16):
            traffic = dram_bytes_tiled(4096, bm, bn, 1, gpu.sms, elem=2, group=g)
            ratios[gpu.sms, bm, bn, g] = traffic / base
            rows.append([tr("{gpu} ({sms} SMs)").format(gpu=gpu.name, sms=gpu.sms), f"{bm}×{bn}",
                         tr("row-major") if g is None else f"GROUP_M = {g}", fmt_bytes(traffic),
                         f"{traffic / base:.0%}"])
print_table([tr("GPU"), tr("Block"), tr("Order"), tr("DRAM traffic (4096³ FP16, wave model)"),
             tr("Relative to row-major")], rows)

# %%
pct = {key: round(100 * v) for key, v in ratios.items()}
claims = Claims()
claims.add(tr("128×128, GROUP_M = 8, % of row-major: A100 / H100"),
           f"{pct[108, 128, 128, 8]} / {pct[132, 128, 128, 8]}", "69 / 77")
claims.add(tr("128×256, GROUP_M = 16, % of row-major: A100 / H100"),
           f"{pct[108, 128, 256, 16]} / {pct[132, 128, 256, 16]}", "87 / 89")
claims.add(tr("128×256, GROUP_M = 8 does not help"), pct[108, 128, 256, 8] >= 100 and pct[132, 128, 256, 8] > 100, True)
claims.add(tr("Cases where GROUP_M = 4 is worse than row-major"),
           int(sum(ratios[sms, bm, bn, 4] > 1 for sms in (108, 132) for bm, bn in ((128, 128), (128, 256)))), 3)
claims.add(tr("A100, 128×128, GROUP_M = 4, % of row-major"), pct[108, 128, 128, 4], 91)
claims.show()

# %%
fig, ax = plt.subplots(figsize=(7.5, 3.8), layout="constrained")
configs = [(s, bm, bn) for s in (108, 132) for bm, bn in ((128, 128), (128, 256))]
width = 0.2
for i, g in enumerate((4, 8, 16)):
    ax.bar(np.arange(len(configs)) + (i - 1) * width, [100 * ratios[(*c, g)] for c in configs], width,
           label=f"GROUP_M = {g}")
ax.axhline(100, color="0.3", lw=1, ls="--")
ax.text(-0.45, 101, tr("row-major"), ha="left", va="bottom", fontsize=9, color="0.3")
ax.set_xticks(range(len(configs)), [f"{'A100' if s == 108 else 'H100'}\n{bm}×{bn}" for s, bm, bn in configs])
ax.set_ylabel(tr("DRAM traffic, % of row-major"))
ax.set_ylim(0, 130)
ax.set_title(tr("Wave model: grouped launch order, 4096³ FP16"))
ax.legend(loc="upper right", ncols=3, fontsize=9)
plt.show()

# %%
# The 9×9 example gives the tutorial's numbers: 90 blocks in row-major order against 54 when grouped.
# The more *square* the region of C that the running programs cover, the better they share in L2.
#
# At 4096³ the wave model gives, with 128×128 blocks, one program per SM and ``GROUP_M = 8``, 69 % of
# row-major traffic on the A100 and 77 % on the H100. With 128×256 blocks only ``GROUP_M = 16`` helps
# (87 %–89 %); a poor choice such as ``GROUP_M = 4`` is *worse* than row-major in three of the four
# cases (not for the A100's 128×128 blocks, 91 %): a wave that straddles two groups touches more
# block-rows and block-columns. These numbers are an **upper bound** on DRAM traffic: the wave model
# assumes that nothing a wave reads is still in L2 when the next wave starts.

# %%
# What the wave model assumes, and an L2 that remembers
# ------------------------------------------------------
# Two assumptions above do not hold for Triton's own configurations on these GPUs.
#
# * **Programs per SM.** A wave is as many programs as all SMs hold at once. Real Triton 3.9 compiled
#   the tutorial's configurations for both GPUs (``nox -s compiled``; ``compiled_metadata`` reads what it
#   wrote). The 128×128×32 configuration with 4 stages and 4 warps keeps 48 KB of tiles in shared memory
#   on the A100 (sm_80) and 64 KB on the H100 (sm_90): shared memory alone would let an SM of either
#   hold 3 programs. But a thread needs 250 registers on the A100 and 174 on the H100 (the 128×128 FP32
#   accumulator alone, over 4 warps, is 128), more than the 168 that 3 programs per SM would leave, so
#   both get 2 programs per SM. The 128×256×64 configuration with 3 stages and 8 warps needs 96 KB
#   (A100) and 144 KB (H100) and gets 1. The tables below use these compiled counts.
# * **Nothing survives in L2.** The A100 has 40 MB of L2 and the H100 50 MB, against 64 MB of FP16
#   inputs: much of A and B can stay in L2 from one wave to the next.
#
# ``kernellab.model.dram_bytes_lru`` runs the same waves through a toy L2: fully associative, least
# recently used blocks evicted first, waves in lockstep along K. We give it the whole L2, and half of
# it: both GPUs split L2 into two partitions, and a line may be held in both, so the capacity a kernel
# sees lies somewhere in between.

from kernellab import compiled_metadata, occupancy
from kernellab.model import dram_bytes_lru
from kernellab.model.l2waves import wave_footprints

TRITON_CONFIGS = ((128, 128, 32, 4, 4), (128, 256, 64, 3, 8))  # BM, BN, BK, stages, warps (tutorial 03)
TARGET = {A100.sms: "sm_80", H100.sms: "sm_90"}
rows = []
l2 = {}
for gpu in (A100, H100):
    for bm, bn, bk, stages, warps in TRITON_CONFIGS:
        meta = compiled_metadata(f"tutorial03_{bm}x{bn}x{bk}_s{stages}_w{warps}", TARGET[gpu.sms])
        smem = meta["shared_bytes"]  # what real Triton 3.9 compiled (compiled_counts.json)
        ctas = occupancy(gpu, 32 * warps, meta["registers"], smem).blocks_per_sm
        caches = (gpu.l2_bytes // 2, gpu.l2_bytes)
        base = dram_bytes_tiled(4096, bm, bn, ctas, gpu.sms, elem=2)
        lru_base = [dram_bytes_lru(4096, bm, bn, bk, ctas, gpu.sms, c, elem=2) for c in caches]
        for g in (None, 8, 16):
            wave = dram_bytes_tiled(4096, bm, bn, ctas, gpu.sms, elem=2, group=g)
            lru = [dram_bytes_lru(4096, bm, bn, bk, ctas, gpu.sms, c, elem=2, group=g) for c in caches]
            l2[gpu.sms, bn, g] = (ctas, wave / base, *(v / b for v, b in zip(lru, lru_base)), lru[1])
            rows.append([gpu.name, f"{bm}×{bn}×{bk}", f"{smem // 1024} KB", ctas,
                         tr("row-major") if g is None else f"GROUP_M = {g}",
                         f"{fmt_bytes(wave)} ({wave / base:.0%})",
                         f"{fmt_bytes(lru[0])} ({lru[0] / lru_base[0]:.0%})",
                         f"{fmt_bytes(lru[1])} ({lru[1] / lru_base[1]:.0%})"])
print_table([tr("GPU"), tr("Block"), tr("Shared memory per program"), tr("Programs per SM"), tr("Order"),
             tr("Wave model: upper bound (vs row-major)"), tr("LRU, half the L2"), tr("LRU, whole L2")], rows)

# %%
compulsory = 3 * 4096**2 * 2  # read A and B once, write C once
meta128 = {t: compiled_metadata("tutorial03_128x128x32_s4_w4", t) for t in ("sm_80", "sm_90")}
meta256 = {t: compiled_metadata("tutorial03_128x256x64_s3_w8", t) for t in ("sm_80", "sm_90")}
Claims().add(tr("Programs per SM, 128×128×32 on the A100 / H100"), f"{l2[108, 128, None][0]} / {l2[132, 128, None][0]}",
             "2 / 2") \
    .add(tr("Compiled 128×128×32: registers per thread, A100 / H100"),
         f"{meta128['sm_80']['registers']} / {meta128['sm_90']['registers']}", "250 / 174") \
    .add(tr("Compiled 128×128×32: shared memory per program, A100 / H100 (KB)"),
         f"{meta128['sm_80']['shared_bytes'] // 1024} / {meta128['sm_90']['shared_bytes'] // 1024}", "48 / 64") \
    .add(tr("128×128×32 by shared memory alone: programs per SM, A100 / H100"),
         " / ".join(str(occupancy(g, 128, None, meta128[t]["shared_bytes"]).blocks_per_sm)
                    for g, t in ((A100, "sm_80"), (H100, "sm_90"))), "3 / 3") \
    .add(tr("Compiled 128×256×64: shared memory per program, A100 / H100 (KB); programs per SM"),
         f"{meta256['sm_80']['shared_bytes'] // 1024} / {meta256['sm_90']['shared_bytes'] // 1024}; "
         f"{l2[108, 256, None][0]} / {l2[132, 256, None][0]}", "96 / 144; 1 / 1") \
    .add(tr("H100, 128×128 FP32 accumulator over 4 warps: registers per thread"), 128 * 128 // (4 * 32), 128) \
    .add(tr("H100: most registers per thread that still fit 3 programs per SM"),
         max(r for r in range(128, 256)
             if occupancy(H100, 128, r, 4 * (128 * 32 + 32 * 128) * 2).blocks_per_sm >= 3), 168) \
    .add(tr("Wave model, GROUP_M = 8 vs row-major, A100 (2 per SM)"), round(100 * l2[108, 128, 8][1]), 99) \
    .add(tr("Wave model, GROUP_M = 8 vs row-major, H100 (2 per SM)"), round(100 * l2[132, 128, 8][1]), 109) \
    .add(tr("Programs per wave, A100 / H100; programs per group of 8 block-rows"),
         f"{l2[108, 128, None][0] * A100.sms} / {l2[132, 128, None][0] * H100.sms}; {8 * 32}", "216 / 264; 256") \
    .add(tr("H100, full waves of 264: block-rows of A touched, row-major / GROUP_M = 8"),
         " / ".join("–".join(map(str, sorted({r for r, _ in wave_footprints(32, 32, 264, g)[:-1]})))
                    for g in (None, 8)),
         "9 / 16") \
    .add(tr("H100, every wave reads all 32 block-columns of B, both orders"),
         all(c == 32 for g in (None, 8) for _, c in wave_footprints(32, 32, 264, g)[:-1]), True) \
    .add(tr("LRU with the whole L2, row-major: bytes ÷ compulsory"),
         round(l2[108, 128, None][4] / compulsory, 2), 1.0) \
    .add(tr("LRU with the whole L2, GROUP_M = 8 vs row-major, A100"), round(100 * l2[108, 128, 8][3]), 195) \
    .add(tr("A6000, kernel 2: wave-model DRAM bandwidth at its measured speed (GB/s)"),
         round(dram_bytes_tiled(4096, 32, 32, 1, 84, elem=4) / (2 * 4096**3 / 1986.5e9) / 1e9), 128) \
    .add(tr("A100, 4096³ FP16: row-major wave-model traffic at 2039 GB/s (ms)"),
         round(dram_bytes_tiled(4096, 128, 128, 1, A100.sms, elem=2) / A100.dram_bw * 1e3, 2), 0.20) \
    .add(tr("A100, 4096³ FP16: Tensor Core arithmetic at 312 TFLOP/s (ms)"),
         round(2 * 4096**3 / A100.fp16_tensor_peak * 1e3, 2), 0.44).show()

# %%
# With the programs per SM these configurations really get, ``GROUP_M = 8`` no longer saves DRAM
# traffic in the wave model: 99 % of row-major on the A100, 109 % on the H100. Above 100 % means that
# grouping reads *more*. A wave now holds 216 programs (A100) or 264 (H100). On the H100 that is more
# than one group of 8 × 32 = 256: every wave reads all 32 block-columns of B in either order, and a
# grouped wave straddles two groups and touches 16 block-rows of A, against 9 in row-major order
# (table above). Grouping pays only while a wave is smaller than a group. And an L2 that keeps
# what the last wave read changes the picture again: with the whole L2, row-major order reads each
# block of A and B about once (the compulsory traffic), while a grouped order, which sweeps all of B
# for every group, can read *more* (195 % on the A100). With half the L2 the toy cache behaves much
# like the wave model. Neither toy bounds a real, set-associative and partitioned L2; where a GPU
# lies, only a profile says.
#
# So the wave model is a bound, not a prediction, for large-L2 GPUs at this size. It fits where L2 is
# small against the operands: on the RTX A6000 (6 MB of L2), page 1's coalesced kernel 2 needs, by the
# wave model, about 128 GB/s of DRAM bandwidth at its measured speed, and Boehm's profile reported about
# 110 GB/s. At 4096³ FP16 the A100 would need 0.20 ms to move even the row-major wave-model traffic,
# against 0.44 ms of Tensor Core arithmetic, so DRAM is not the limit: what grouping changes is the L2
# hit rate, and through it the latency of each load. A profile would settle it: Nsight Compute's
# ``dram__bytes_read.sum`` and ``lts__t_sector_hit_rate.pct`` for both orders.
#
# This optimisation does not touch the kernel's arithmetic at all, only the mapping from program id
# to block. In CUDA it is called a threadblock swizzle, an optional template parameter in CUTLASS.
# Boehm reports trying it on kernel 10 without gain, which he put down to an L2 hit rate already high
# (a remark these pages could not check against a profile): whether it pays depends on the problem
# size, the L2 and how many programs share an SM.

# %%
# Demo 3: fusion — softmax row by row, op by op or in one kernel
# -----------------------------------------------------------------
# A naive softmax of an M×N matrix runs five kernels — max, subtract, exp, sum, divide — and each
# reads its input from memory and writes its output back. The fused kernel of Triton's tutorial 02
# reads a row once, keeps it on chip, and writes the result once. M = 4096 rows of N = 1024 FP32;
# the kernels run on 512 rows, and since every program handles one row, their byte counts scale
# exactly to 4096.


@triton.jit
def rowwise_kernel(x_ptr, out_ptr, N, OP: tl.constexpr, BLOCK: tl.constexpr):
    """One program per row: out[row] = max or sum of the row."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    if OP == "max":
        v = tl.load(x_ptr + row * N + cols, mask=cols < N, other=-float("inf"))
        tl.store(out_ptr + row, tl.max(v, axis=0))
    else:
        v = tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
        tl.store(out_ptr + row, tl.sum(v, axis=0))


@triton.jit
def elementwise_kernel(x_ptr, vec_ptr, out_ptr, N, OP: tl.constexpr, BLOCK: tl.constexpr):
    """One program per row: out = x - vec[row], exp(x) or x / vec[row]."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + row * N + cols, mask=cols < N)
    if OP == "sub":
        y = v - tl.load(vec_ptr + row)
    elif OP == "exp":
        y = tl.exp(v)
    else:
        y = v / tl.load(vec_ptr + row)
    tl.store(out_ptr + row * N + cols, y, mask=cols < N)


@triton.jit
def softmax_kernel(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    """Triton's tutorial 02: a program reads a whole row, computes softmax on chip, writes it once."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + row * N + cols, mask=cols < N, other=-float("inf"))
    v = v - tl.max(v, axis=0)
    num = tl.exp(v)
    tl.store(y_ptr + row * N + cols, num / tl.sum(num, axis=0), mask=cols < N)


def softmax_eager(x):
    """max, subtract, exp, sum, divide: five kernels, each through DRAM. Returns y and per-kernel counts."""
    M, N = x.shape
    BLOCK = triton.next_power_of_2(N)
    mx, s = np.zeros(M, np.float32), np.zeros(M, np.float32)
    z, e, y = np.zeros_like(x), np.zeros_like(x), np.zeros_like(x)
    counts = {
        "max": rowwise_kernel[(M,)](x, mx, N, OP="max", BLOCK=BLOCK),
        "sub": elementwise_kernel[(M,)](x, mx, z, N, OP="sub", BLOCK=BLOCK),
        "exp": elementwise_kernel[(M,)](z, mx, e, N, OP="exp", BLOCK=BLOCK),
        "sum": rowwise_kernel[(M,)](e, s, N, OP="sum", BLOCK=BLOCK),
        "div": elementwise_kernel[(M,)](e, s, y, N, OP="div", BLOCK=BLOCK),
    }
    return y, counts


from kernellab import PERF_H100

ROWS, COLS = 4096, 1024  # M and N of the softmax
ROWS_SIM = 512  # each program handles one row, so the counts grow exactly with the number of rows
x = np.random.default_rng(2).standard_normal((ROWS_SIM, COLS)).astype(np.float32)
ref = np.exp(x - x.max(1, keepdims=True))
ref /= ref.sum(1, keepdims=True)
y_eager, per_kernel_sim = softmax_eager(x)
y_fused = np.zeros_like(x)
fused_sim = softmax_kernel[(ROWS_SIM,)](x, y_fused, COLS, BLOCK=triton.next_power_of_2(COLS))
# the formulas hold at the simulated size ...
eager_read_sim = sum(c["load_bytes"] for c in per_kernel_sim.values())
eager_written_sim = sum(c["store_bytes"] for c in per_kernel_sim.values())
# ... and the bytes scale with the rows to the lecture's M = 4096
per_kernel = {op: {b: c[b] * ROWS // ROWS_SIM for b in ("load_bytes", "store_bytes")}
              for op, c in per_kernel_sim.items()}
fused = {b: fused_sim[b] * ROWS // ROWS_SIM for b in ("load_bytes", "store_bytes")}
eager_read = sum(c["load_bytes"] for c in per_kernel.values())
eager_written = sum(c["store_bytes"] for c in per_kernel.values())
MN = ROWS * COLS
rows = []
for name, y, launches, read, written, formula in (
        (tr("op by op (5 kernels)"), y_eager, len(per_kernel), eager_read, eager_written,
         tr("read 5MN + 2M, write 3MN + 2M")),
        (tr("fused (1 kernel)"), y_fused, 1, fused["load_bytes"], fused["store_bytes"], tr("read MN, write MN"))):
    rows.append([name, f"{np.abs(y - ref).max():.1e}", launches, f"{read / 4 / MN:.4f} MN",
                 f"{written / 4 / MN:.4f} MN", formula, fmt_time((read + written) / PERF_H100.dram_bw)])
print_table([tr("Version"), tr("Max error"), tr("Kernels"), tr("Read (elements)"), tr("Written (elements)"),
             tr("Tutorial's formula"),
             tr("Time on the H100 at {bandwidth} TB/s").format(bandwidth=PERF_H100.dram_bw / 1e12)],
            rows)

# %%
ratio = (eager_read + eager_written) / (fused["load_bytes"] + fused["store_bytes"])
claims = Claims()
claims.add(tr("Op by op at {rows} rows: read, write (elements) = formula").format(rows=ROWS_SIM),
           (eager_read_sim, eager_written_sim) == ((5 * ROWS_SIM * COLS + 2 * ROWS_SIM) * 4,
                                                   (3 * ROWS_SIM * COLS + 2 * ROWS_SIM) * 4), True)
claims.add(tr("Op by op: read 5MN + 2M, write 3MN + 2M"),
           (eager_read, eager_written) == ((5 * MN + 2 * ROWS) * 4, (3 * MN + 2 * ROWS) * 4), True)
claims.add(tr("Fused: read MN, write MN"), fused["load_bytes"] == fused["store_bytes"] == MN * 4, True)
claims.add(tr("Less traffic when fused"), round(ratio, 1), 4.0)
claims.add(tr("One row of N FP32 numbers (KiB)"), COLS * 4 / 1024, 4)
claims.add(tr("One M×N FP32 intermediate (MiB)"), MN * 4 / 2**20, 16)
claims.add(tr("One M×N FP32 intermediate fits the L2 of an A100 and an H100"),
           all(MN * 4 < g.l2_bytes for g in (A100, H100)), True)
claims.show()

# %%
# Op by op, every operator writes the whole M×N intermediate back and the next one reads it again:
# the counts are exactly 5MN + 2M elements read and 3MN + 2M written (the extra 2M are each row's
# maximum and sum). Fused, x is read once and y written once: 4.0 times less traffic. These are bytes
# *requested*, as Triton's tutorial counts them. Whether they are DRAM bytes depends on the size: at
# 4096 × 1024 an intermediate is 16 MiB, which fits the 40–50 MB L2 of an A100 or an H100, so part of
# it may be read back from L2; the larger the matrix, the closer the traffic comes to DRAM traffic.
#
# Softmax does only a few operations per element, so it is bound by bandwidth and its time is
# almost proportional to its traffic: that is how Triton's tutorial estimates a speed-up of about 4
# from fusion, and it is the motivation for operator fusion in graph compilers.
#
# Fusion needs a row to fit in one program's on-chip storage (registers and shared memory). A row
# of N = 1024 FP32 numbers is 4 KiB, no problem; when N is too large, the row has to be processed in
# blocks with an "online softmax", which is what FlashAttention does.

fig, ax = plt.subplots(figsize=(7, 3.4), layout="constrained")
names = list(per_kernel) + [tr("fused")]
reads = [per_kernel[k]["load_bytes"] / 4 / MN for k in per_kernel] + [fused["load_bytes"] / 4 / MN]
writes = [per_kernel[k]["store_bytes"] / 4 / MN for k in per_kernel] + [fused["store_bytes"] / 4 / MN]
xs = np.arange(len(names))
ax.bar(xs, reads, 0.6, label=tr("read"), color="C0")
ax.bar(xs, writes, 0.6, bottom=reads, label=tr("written"), color="C1")
ax.axvline(len(per_kernel) - 0.5, color="0.5", lw=1, ls=":")
ax.set_xticks(xs, names)
ax.set_ylabel(tr("DRAM traffic (MN elements)"))
ax.set_ylim(0, 2.6)
ax.set_title(tr("Softmax traffic: five kernels ({eager:.1f} MN) against one ({fused:.1f} MN)").format(
    eager=sum(reads[:-1]) + sum(writes[:-1]), fused=reads[-1] + writes[-1]))
ax.legend(loc="upper left", ncols=2)
plt.show()

# %%
# Demo 4: how to test a kernel
# ----------------------------
# The kernel of demo 1 has a switch for a deliberate bug: ``MASK_K=False`` drops the mask along K,
# so the last K block reads past the end of each row — into the next row of A. Tests against a
# float64 reference, with a tolerance that grows with √K, on shapes that are multiples of the
# block size and shapes that are not. The test below uses the lecture script's form of the kernel
# from demo 1, which clips its offsets to the array the way a GPU would happily read neighbouring
# memory.


rng = np.random.default_rng(3)
rows = []
verdicts = {}
TEST_SHAPES = ((64, 64, 64), (128, 64, 96), (1, 1, 1), (17, 33, 65), (100, 70, 50), (64, 64, 40))
for m, n, k in TEST_SHAPES:
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    ref = a.astype(np.float64) @ b
    tol = 1e-5 * np.sqrt(k) * np.abs(a).max() * np.abs(b).max() * 4
    cells = []
    for mask_k in (True, False):
        c = np.zeros((m, n), np.float32)
        triton_launch(matmul_kernel_script, cdiv(m, 32) * cdiv(n, 32), a, b, c, m, n, k, BLOCK_M=32, BLOCK_N=32,
                      BLOCK_K=32, MASK_K=mask_k)
        err = np.abs(c - ref).max()
        verdicts[m, n, k, mask_k] = bool(err <= tol)
        cells.append((tr("pass") if err <= tol else tr("FAIL")) + f" ({err:.1e})")
    multiple = all(v % 32 == 0 for v in (m, n, k))
    rows.append([f"{m}×{n}×{k}", tr("yes") if multiple else tr("no"), f"{tol:.1e}", *cells])
print_table([tr("M×N×K"), tr("All multiples of 32?"), tr("Tolerance"), tr("Correct kernel"),
             tr("Kernel missing the K mask")], rows)

# %%
# kernellab's pointers are stricter than a GPU: the real-syntax kernel of demo 1 with the same bug
# does not read the neighbouring memory silently, it stops at the first read past the end of A.

from kernellab import OutOfBoundsError

a = rng.standard_normal((17, 65)).astype(np.float32)
b = rng.standard_normal((65, 33)).astype(np.float32)
try:
    matmul(a, b, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32, MASK_K=False)
    report = tr("no error")
except OutOfBoundsError as e:
    report = f"{type(e).__name__}: {e}"
print_table([tr("Kernel"), tr("Shape"), tr("kernellab reports")],
            [[tr("real syntax, MASK_K=False"), "17×33×65", report]])

# %%
multiples = [s for s in TEST_SHAPES if all(v % 32 == 0 for v in s)]
claims = Claims()
claims.add(tr("Correct kernel passes every shape"), all(verdicts[s + (True,)] for s in TEST_SHAPES), True)
claims.add(tr("Kernel missing the K mask passes exactly the multiples of 32"),
           [s for s in TEST_SHAPES if verdicts[s + (False,)]] == multiples != [], True)
claims.add(tr("Real syntax, MASK_K=False: out of bounds"), report.startswith("OutOfBoundsError"), True)
claims.show()

# %%
# The kernel that forgot the K mask **passes every test** on shapes that are multiples of the block
# size: there the last K block ends exactly at the edge. It fails only when K is not a multiple of
# 32, where it reads numbers of the next row and treats them as its own. A test set must therefore
# contain edge shapes: 1, primes, a little more or a little less than the block size.
#
# The tolerance must grow with K. Summing K products accumulates rounding error that grows with K
# (see the next table). A fixed 1e-6 fails correct kernels at large K; a loose tolerance lets real
# bugs through.
#
# Accumulating in FP16 or FP32
# ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
# FP16 inputs, products summed in FP32 or in FP16, against a float64 reference; the error is divided
# by √K so that the growth beyond √K shows.

ACC_M = ACC_N = 64
ACC_KS = (64, 256, 1024, 4096)
acc_err = {}
rows = []
for depth in ACC_KS:
    a = rng.standard_normal((ACC_M, depth)).astype(np.float16)
    b = rng.standard_normal((depth, ACC_N)).astype(np.float16)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    acc32 = np.zeros((ACC_M, ACC_N), np.float32)
    acc16 = np.zeros((ACC_M, ACC_N), np.float16)
    for k in range(depth):
        prod = a[:, k:k + 1].astype(np.float32) * b[k:k + 1, :].astype(np.float32)
        acc32 += prod
        acc16 = (acc16.astype(np.float32) + prod).astype(np.float16)
    e32, e16 = np.abs(acc32 - ref).max(), np.abs(acc16.astype(np.float64) - ref).max()
    acc_err[depth] = (e32, e16)
    rows.append([depth, f"{e32 / np.sqrt(depth):.1e}", f"{e16 / np.sqrt(depth):.1e}", f"{e16 / e32:.0f}"])
print_table([tr("K (FP16 inputs)"), tr("FP32 accumulation: max error / √K"), tr("FP16 accumulation: max error / √K"),
             tr("FP16 / FP32")], rows)

# %%
fp16_over_fp32 = [e16 / e32 for e32, e16 in acc_err.values()]
claims = Claims()
claims.add(tr("FP16 / FP32 error: thousands of times, every K"), all(1000 < r < 30000 for r in fp16_over_fp32), True)
claims.add(tr("FP16 eps / FP32 eps"), float(np.finfo(np.float16).eps / np.finfo(np.float32).eps), 8192)
claims.add(tr("Significant bits of FP16"), np.finfo(np.float16).nmant + 1, 11)
claims.show()

# %%
fig, ax = plt.subplots(figsize=(6.4, 3.8), layout="constrained")
ax.loglog(ACC_KS, [acc_err[depth][0] for depth in ACC_KS], "o-", label=tr("FP32 accumulation"))
ax.loglog(ACC_KS, [acc_err[depth][1] for depth in ACC_KS], "s-", label=tr("FP16 accumulation"))
ax.set_xlabel("K")
ax.set_ylabel(tr("max |error| against float64"))
ax.set_title(tr("FP16 inputs: error against K"))
ax.legend()
plt.show()

# %%
# Accumulating in FP16 is thousands of times less accurate than in FP32, close to the ratio of the
# two formats' machine epsilons, 2¹³ = 8192: FP16 keeps 11 significant bits, so once the sum reaches
# a few tens every added product loses most of its bits. This is why Tensor-Core GEMMs accumulate
# in FP32 by default, and why ``tl.dot`` accumulates FP16 inputs in FP32.
#
# A checklist for testing a kernel: compare with a high-precision reference; use random shapes and
# edge shapes; scale the tolerance with K; run it more than once (errors from a race do not show
# every run); and check out-of-bounds accesses and races with a sanitizer — here, kernellab itself.
