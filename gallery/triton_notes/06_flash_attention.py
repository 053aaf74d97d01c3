"""
FlashAttention-2 forward in Triton, and low-memory dropout
==========================================================

Attention computes softmax(QKᵀ/√d)·V. Written as three kernels, it writes the N×N score matrix to
HBM, reads it back to normalise it, writes the probabilities, and reads them again to multiply by V:
its traffic grows as N². FlashAttention never writes the scores. Each program keeps one block of
queries on chip, walks over the keys and values block by block, and keeps a running maximum and a
running sum (the online softmax of the softmax page), so it reads Q, K and V and writes O, nothing else.

You will run the FlashAttention-2 forward kernel in Triton syntax on kernellab, check it against
numpy, and count the HBM bytes of both versions as N grows. Then you will add dropout the way Triton's
tutorial does: the mask is not stored but regenerated from a seed with ``tl.rand``.
"""

# %%
# The kernel
# ----------
# Program ``(i, h)`` owns query rows ``i·BLOCK_M … i·BLOCK_M + BLOCK_M − 1`` of head ``h``. For each
# block of ``BLOCK_N`` keys it computes the scores ``q·kᵀ`` with ``tl.dot``, updates the running
# maximum ``m_i``, rescales what it has accumulated by ``exp(m_old − m_new)``, and adds ``p·v``.
# Only at the end does it divide by the running sum ``l_i``. Exponentials use ``exp2`` with
# ``log2(e)`` folded into the scale, as the Triton tutorial does. With ``P_DROP > 0`` each
# probability is kept with probability ``1 − P_DROP`` (and scaled by ``1/(1 − P_DROP)``), decided by
# ``tl.rand(seed, offset)`` where ``offset`` is the element's index in the N×N matrix of its head.

import matplotlib.pyplot as plt
import numpy as np

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import Claims, fmt_bytes, print_table
from kernellab.figures import use_cjk_font
from kernellab.i18n import _ as tr
from kernellab.triton.language.random import philox_np


@triton.jit
def flash_attention_fwd(Q, K, V, Out, N, sm_scale, seed, P_DROP: tl.constexpr, HEAD_DIM: tl.constexpr,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0)
    head = tl.program_id(1)
    base = head * N * HEAD_DIM
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], mask=offs_m[:, None] < N, other=0.0)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # 1/ln(2): exp(x) = exp2(x·log2(e))
    for start_n in range(0, N, BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(K + base + cols[:, None] * HEAD_DIM + offs_d[None, :], mask=cols[:, None] < N, other=0.0)
        v = tl.load(V + base + cols[:, None] * HEAD_DIM + offs_d[None, :], mask=cols[:, None] < N, other=0.0)
        qk = tl.dot(q, tl.trans(k), input_precision="ieee") * qk_scale
        qk = tl.where(cols[None, :] < N, qk, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp2(qk - m_new[:, None])
        alpha = tl.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        if P_DROP > 0:
            keep = tl.rand(seed, head * N * N + offs_m[:, None] * N + cols[None, :]) > P_DROP
            p = tl.where(keep, p / (1 - P_DROP), 0.0)
        acc = acc * alpha[:, None] + tl.dot(p, v, input_precision="ieee")
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(Out + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], acc, mask=offs_m[:, None] < N)


def flash_attention(q, k, v, p_drop=0.0, seed=0, block=64):
    """Launch the kernel over (query blocks, heads); returns the output and the launch's counts."""
    heads, n, d = q.shape
    o = np.zeros_like(q)
    counts = flash_attention_fwd[(triton.cdiv(n, block), heads)](
        q, k, v, o, n, 1 / np.sqrt(d), seed, P_DROP=p_drop, HEAD_DIM=d, BLOCK_M=block, BLOCK_N=block)
    return o, counts


def attention_reference(q, k, v, keep=None, p_drop=0.0):
    """softmax(QKᵀ/√d)·V in float64; ``keep`` (a boolean N×N mask per head) applies dropout."""
    q, k, v = (a.astype(np.float64) for a in (q, k, v))
    s = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    if keep is not None:
        p = np.where(keep, p / (1 - p_drop), 0.0)
    return p @ v


# %%
# Checked against numpy
# ---------------------
# Two heads, sequence lengths that are and are not multiples of the block, head dimension 64.

rng = np.random.default_rng(0)
HEADS, D = 2, 64
errors = []
for n_check in (64, 200, 256):
    q, k, v = rng.standard_normal((3, HEADS, n_check, D)).astype(np.float32)
    out = flash_attention(q, k, v)[0]
    errors.append([n_check, float(np.abs(out - attention_reference(q, k, v)).max())])
print_table([tr("Sequence length N"), tr("Largest error vs float64")], [[n, f"{e:.1e}"] for n, e in errors])

# %%
Claims().add(tr("Largest error below 10⁻⁵, every N"), max(e for _, e in errors) < 1e-5, True).show()

# %%
# Every value agrees with float64 numpy to within 10⁻⁵: the online softmax is exact algebra, not an
# approximation; only the fp32 rounding differs.
#
# Naive attention, three kernels
# ------------------------------
# The textbook version: one kernel writes the scores S = QKᵀ/√d, one turns each row into
# probabilities P (the fused softmax of the softmax page), one computes O = P·V.


@triton.jit
def scores_kernel(Q, K, S, N, sm_scale, HEAD_DIM: tl.constexpr, BLOCK: tl.constexpr):
    i = tl.program_id(0)
    j = tl.program_id(1)
    head = tl.program_id(2)
    rows = i * BLOCK + tl.arange(0, BLOCK)
    cols = j * BLOCK + tl.arange(0, BLOCK)
    d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + head * N * HEAD_DIM + rows[:, None] * HEAD_DIM + d[None, :], mask=rows[:, None] < N, other=0.0)
    k = tl.load(K + head * N * HEAD_DIM + cols[:, None] * HEAD_DIM + d[None, :], mask=cols[:, None] < N, other=0.0)
    s = tl.dot(q, tl.trans(k), input_precision="ieee") * sm_scale
    tl.store(S + head * N * N + rows[:, None] * N + cols[None, :], s, mask=(rows[:, None] < N) & (cols[None, :] < N))


@triton.jit
def softmax_rows_kernel(S, P, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    s = tl.load(S + row * N + cols, mask=cols < N, other=-float("inf"))
    p = tl.exp(s - tl.max(s, axis=0))
    tl.store(P + row * N + cols, p / tl.sum(p, axis=0), mask=cols < N)


@triton.jit
def pv_kernel(P, V, Out, N, HEAD_DIM: tl.constexpr, BLOCK: tl.constexpr):
    i = tl.program_id(0)
    head = tl.program_id(1)
    rows = i * BLOCK + tl.arange(0, BLOCK)
    d = tl.arange(0, HEAD_DIM)
    acc = tl.zeros([BLOCK, HEAD_DIM], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        p = tl.load(P + head * N * N + rows[:, None] * N + cols[None, :],
                    mask=(rows[:, None] < N) & (cols[None, :] < N), other=0.0)
        v = tl.load(V + head * N * HEAD_DIM + cols[:, None] * HEAD_DIM + d[None, :], mask=cols[:, None] < N, other=0.0)
        acc += tl.dot(p, v, input_precision="ieee")
    tl.store(Out + head * N * HEAD_DIM + rows[:, None] * HEAD_DIM + d[None, :], acc, mask=rows[:, None] < N)


def naive_attention(q, k, v, block=64):
    """Three launches; returns the output and the counts of all three."""
    heads, n, d = q.shape
    s, p, o = np.zeros((heads, n, n), np.float32), np.zeros((heads, n, n), np.float32), np.zeros_like(q)
    c1 = scores_kernel[(triton.cdiv(n, block), triton.cdiv(n, block), heads)](q, k, s, n, 1 / np.sqrt(d),
                                                                               HEAD_DIM=d, BLOCK=block)
    c2 = softmax_rows_kernel[(heads * n,)](s, p, n, BLOCK_N=triton.next_power_of_2(n))
    c3 = pv_kernel[(triton.cdiv(n, block), heads)](p, v, o, n, HEAD_DIM=d, BLOCK=block)
    return o, c1 + c2 + c3


q, k, v = rng.standard_normal((3, HEADS, 200, D)).astype(np.float32)
naive_out = naive_attention(q, k, v)[0]
Claims().add(tr("Naive attention: largest error below 10⁻⁵"),
             bool(np.abs(naive_out - attention_reference(q, k, v)).max() < 1e-5), True).show()

# %%
# Bytes as N grows
# ----------------
# Both versions, counted by kernellab, for one head of dimension 64 in fp32. Two measures:
#
# - **requested**: the bytes the loads and stores of all programs ask global memory for, as
#   kernellab counts them. FlashAttention reads Q once and K and V once per block of queries:
#   4·N·d·(2 + 2·N/BLOCK_M) bytes.
# - **compulsory**: each array crossing HBM once, what remains when the L2 cache catches every
#   re-read. For FlashAttention that is Q, K, V and O; the naive version adds the scores and
#   probabilities, each written once and read once: four N×N matrices of 4-byte values.

SIZES = [128, 256, 512, 1024, 2048]
traffic = []
formula_holds, naive_holds = [], []
for n in SIZES:
    q, k, v = rng.standard_normal((3, 1, n, D)).astype(np.float32)
    flash_counts = flash_attention(q, k, v)[1]
    naive_counts = naive_attention(q, k, v)[1]
    flash_req = flash_counts.load_bytes + flash_counts.store_bytes
    naive_req = naive_counts.load_bytes + naive_counts.store_bytes
    formula_holds.append(flash_req == 4 * n * D * (2 + 2 * n // 64))  # the formula above, exactly
    # naive, blocks of 64: scores load a Q and a K block per (i, j), 8·N²·d/64, and store S, 4·N²; the
    # softmax loads S and stores P, 8·N²; P·V loads P, 4·N², and V once per block-row, 4·N²·d/64, and
    # stores O, 4·N·d
    naive_holds.append(naive_req == 16 * n * n + 12 * n * n * D // 64 + 4 * n * D)
    flash_min = 4 * q.nbytes  # Q, K, V read and O written, once each
    naive_min = flash_min + 4 * (n * n * 4)  # … and S, P written and read back
    traffic.append((n, naive_req, flash_req, naive_min, flash_min))

print_table([tr("Sequence length N"), tr("Naive, requested"), tr("Flash, requested"), tr("Ratio"),
             tr("Naive, compulsory"), tr("Flash, compulsory"), tr("Ratio")],
            [[n, fmt_bytes(a), fmt_bytes(b), f"{a / b:.1f}×", fmt_bytes(c), fmt_bytes(d), f"{c / d:.0f}×"]
             for n, a, b, c, d in traffic])

# %%
from kernellab import A100, H100

requested = [a / b for _, a, b, _, _ in traffic]
compulsory = [c / d for _, _, _, c, d in traffic]
n_last = SIZES[-1]
claims = Claims()
claims.add(tr("Flash, requested = 4·N·d·(2 + 2·N/64), every N"), all(formula_holds), True)
claims.add(tr("Requested ratio grows with N"), all(r2 > r1 for r1, r2 in zip(requested, requested[1:])), True)
claims.add(tr("Requested ratio at N = {n}").format(n=n_last), round(requested[-1], 1), 3.4)
claims.add(tr("One N×N fp32 matrix at N = {n} (MiB)").format(n=n_last),
           (traffic[-1][3] - traffic[-1][4]) / 4 / 2**20, 16)
claims.add(tr("Compulsory ratio at N = {n}").format(n=n_last), compulsory[-1], 33)
claims.add(tr("Compulsory ratio = 1 + N/d"), compulsory[-1], 1 + n_last / D)  # (16·N·d + 16·N²) / (16·N·d)
claims.add(tr("Naive, requested = 16·N² + 12·N²·d/64 + 4·N·d, every N"), all(naive_holds), True)
# as N grows, (16 + 12·d/64)·N² over 8·N²·d/64: the requested ratio tends to a constant
claims.add(tr("Requested ratio as N → ∞"), (16 + 12 * D / 64) / (8 * D / 64), 3.5)
claims.add(tr("K and V of one head at N = {n} (MiB)").format(n=n_last), 2 * n_last * D * 4 / 2**20, 1)
claims.add(tr("One N×N matrix fits the L2 of an A100 and an H100"),
           all(n_last * n_last * 4 < g.l2_bytes for g in (A100, H100)), True)
claims.show()

# %%
# Counted request by request, FlashAttention moves about 3.4 times fewer bytes at N = 2048: with
# 64-query blocks it re-reads K and V once per block, 2·N/64 times over, which is also quadratic in N.
# Both counts grow as N², so their ratio does not grow without bound: it tends to 3.5. That is the
# FlashAttention paper's own IO analysis (its Theorem 2): with an on-chip memory of M bytes, standard
# attention makes Θ(N·d + N²) HBM accesses and FlashAttention Θ(N²·d²/M), a saving that tends to a
# constant of about M/d².
#
# The compulsory columns assume more: that L2 catches every re-read. Then the ratio is 1 + N/d, 33 at
# N = 2048, and it keeps growing with N. Whether a GPU is in that regime depends on what is in flight.
# For this page's single head it may well be: K and V are 1 MiB at N = 2048, and even one 16 MiB
# matrix of scores fits the 40–50 MB L2 of an A100 or an H100. With many heads and batches in flight,
# the long-sequence case FlashAttention is built for, neither fits, and the requested bytes are the
# better guide. Only a profile (Nsight Compute's ``dram__bytes_read.sum``) tells which applies.

use_cjk_font()
fig, ax = plt.subplots(figsize=(6.5, 3.8), layout="constrained")
ns = [t[0] for t in traffic]
ax.loglog(ns, [t[1] for t in traffic], "o-", color="C0", label=tr("Naive, requested"))
ax.loglog(ns, [t[3] for t in traffic], "o--", color="C0", label=tr("Naive, compulsory"))
ax.loglog(ns, [t[2] for t in traffic], "s-", color="C1", label=tr("Flash, requested"))
ax.loglog(ns, [t[4] for t in traffic], "s--", color="C1", label=tr("Flash, compulsory"))
ax.xaxis.set_minor_locator(plt.NullLocator())  # only the five sizes are labelled
ax.set_xticks(ns, [str(n) for n in ns])
ax.set_xlabel(tr("Sequence length N"))
ax.set_ylabel(tr("Bytes (one head, d = 64, fp32)"))
ax.set_title(tr("Attention traffic: naive vs FlashAttention-2"))
ax.legend()
plt.show()

# %%
# Low-memory dropout
# ------------------
# Dropout on the attention probabilities needs a keep/drop decision for each of the N² entries, and
# the backward pass needs the same decisions again. Stored as bytes, that mask is N² bytes per head,
# as large as the score matrix FlashAttention avoided. Triton's tutorial 04 stores nothing: the mask is
# a function of ``(seed, offset)`` through the Philox generator, so the backward pass regenerates it.
# We check the kernel's output against numpy with the mask rebuilt on the host from the same Philox
# stream (``uint_to_uniform_float`` of the first Philox word, as ``tl.rand`` computes it).

P_DROP, SEED, N_DROP = 0.1, 1234, 256
q, k, v = rng.standard_normal((3, HEADS, N_DROP, D)).astype(np.float32)
out_drop, drop_counts = flash_attention(q, k, v, p_drop=P_DROP, seed=SEED)
plain_counts = flash_attention(q, k, v)[1]

offsets = np.arange(HEADS * N_DROP * N_DROP, dtype=np.uint32)
zero = np.zeros_like(offsets)
bits = philox_np(offsets, zero, zero, zero, SEED, 0)[0].view(np.int32)
uniform = np.where(bits < 0, ~bits, bits).astype(np.float32) * np.float32(4.6566127342e-10)
keep = (uniform > P_DROP).reshape(HEADS, N_DROP, N_DROP)
drop_error = float(np.abs(out_drop - attention_reference(q, k, v, keep, P_DROP)).max())
mask_bytes = HEADS * N_DROP * N_DROP  # one byte per decision
print_table([tr("What"), tr("Value")],
            [[tr("Largest error vs float64 with the same mask"), f"{drop_error:.1e}"],
             [tr("Fraction of probabilities kept"), f"{keep.mean():.3f}"],
             [tr("HBM bytes with dropout"), fmt_bytes(drop_counts.load_bytes + drop_counts.store_bytes)],
             [tr("HBM bytes without dropout"), fmt_bytes(plain_counts.load_bytes + plain_counts.store_bytes)],
             [tr("A stored mask would add (1 byte per entry)"), fmt_bytes(mask_bytes)]])

# %%
mask_2048 = SIZES[-1] ** 2  # one head at N = 2048, one byte per decision
claims = Claims()
claims.add(tr("Dropout: largest error below 10⁻⁵"), drop_error < 1e-5, True)
claims.add(tr("Fraction kept"), float(keep.mean()), 1 - P_DROP, atol=0.01)
claims.add(tr("Same HBM bytes with and without dropout"),
           drop_counts.load_bytes + drop_counts.store_bytes == plain_counts.load_bytes + plain_counts.store_bytes, True)
claims.add(tr("Stored mask, two heads of 256 tokens (kB / KiB)"), f"{mask_bytes / 1e3:.0f} / {mask_bytes / 1024:g}",
           "131 / 128")
claims.add(tr("Stored mask, one head at N = 2048 (MB / MiB)"), f"{mask_2048 / 1e6:.1f} / {mask_2048 / 2**20:g}",
           "4.2 / 4")
claims.show()

# %%
# Dropout costs no memory traffic at all: the counts with and without it are identical, since the
# random numbers are computed in registers. A stored mask for these two heads of 256 tokens would be
# 131 kB (128 KiB), written in the forward pass and read again in the backward pass; for one head at
# N = 2048, 4.2 MB (4 MiB). Regenerating it costs ten rounds of Philox per four random numbers instead.
