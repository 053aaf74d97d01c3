"""Kernels whose compiled code moves data through shared memory or pipelines its loops: the second set of
launches ``kernellab/compiled_counts.json`` holds (tests/compiled_cases.py). Written here, in real Triton
syntax, for the features the tutorials use (pipelined K loops, chained dots, scans, sort, atomics, fp8);
none is copied from Triton's tutorials."""

import kernellab.triton as triton
import kernellab.triton.language as tl


# A K loop of tl.dot over fp16 tiles, row-major A and B (num_stages pipelines its loads)
@triton.jit
def kloop_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
        a_ptrs += BK
        b_ptrs += BK * N
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


# The same K loop with B given transposed (N × K, row-major) and read through tl.trans
@triton.jit
def kloop_trans_kernel(a_ptr, bt_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    bt_ptrs = bt_ptr + rn[:, None] * K + rk[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        acc += tl.dot(tl.load(a_ptrs), tl.trans(tl.load(bt_ptrs)))
        a_ptrs += BK
        bt_ptrs += BK
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


# A row sum scaled, block by block, by a scalar loaded in the loop (tl.range(num_stages=...): no dot)
@triton.jit
def scaled_row_sum_kernel(x_ptr, s_ptr, out_ptr, N, BM: tl.constexpr, BN: tl.constexpr, STAGES: tl.constexpr):
    rows = tl.arange(0, BM)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for j in tl.range(0, N, BN, num_stages=STAGES):
        acc += tl.load(s_ptr + j // BN) * tl.load(x_ptr + rows[:, None] * N + j + tl.arange(0, BN)[None, :])
    tl.store(out_ptr + rows, tl.sum(acc, axis=1))


# The same K loop with A given transposed (K × M, row-major) and read through tl.trans
@triton.jit
def kloop_trans_a_kernel(at_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    at_ptrs = at_ptr + rk[:, None] * M + rm[None, :]
    b_ptrs = b_ptr + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        acc += tl.dot(tl.trans(tl.load(at_ptrs)), tl.load(b_ptrs))
        at_ptrs += BK * M
        b_ptrs += BK * N
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


# Attention forward, one query block per program and head: q·kᵀ, an online softmax, p·v; a causal
# launch stops at the diagonal block and masks it
@triton.jit
def attention_kernel(Q, K, V, Out, N_CTX, qk_scale, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                     CAUSAL: tl.constexpr):
    start_m, head = tl.program_id(0), tl.program_id(1)
    base = head * N_CTX * D
    offs_m = start_m * BM + tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    offs_d = tl.arange(0, D)
    q = tl.load(Q + base + offs_m[:, None] * D + offs_d[None, :])
    m_i = tl.zeros([BM], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BM], dtype=tl.float32) + 1.0
    acc = tl.zeros([BM, D], dtype=tl.float32)
    hi = (start_m + 1) * BM if CAUSAL else N_CTX
    for start_n in range(0, hi, BN):
        kt = tl.load(K + base + (start_n + offs_n)[None, :] * D + offs_d[:, None])
        qk = tl.dot(q, kt) * qk_scale
        if CAUSAL:
            qk = tl.where(offs_m[:, None] >= (start_n + offs_n)[None, :], qk, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(V + base + (start_n + offs_n)[:, None] * D + offs_d[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(Out + base + offs_m[:, None] * D + offs_d[None, :], acc.to(tl.float16))


# Prefix sums: along a 1-D block, and along either axis of a 2-D one
@triton.jit
def cumsum_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.cumsum(tl.load(x_ptr + offs), axis=0))


@triton.jit
def cumsum2d_kernel(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr, AXIS: tl.constexpr):
    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]
    tl.store(out_ptr + offs, tl.cumsum(tl.load(x_ptr + offs), axis=AXIS))


# A sort of a 1-D block and of the rows of a 2-D one
@triton.jit
def sort_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.sort(tl.load(x_ptr + offs)))


@triton.jit
def sort_rows_kernel(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr):
    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]
    tl.store(out_ptr + offs, tl.sort(tl.load(x_ptr + offs), dim=1))


# A histogram by atomics: each element adds 1 to its bin
@triton.jit
def bins_kernel(x_ptr, bins_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(bins_ptr + x, 1, mask=mask)


# tl.histogram of a block, added into global bins
@triton.jit
def block_histogram_kernel(x_ptr, bins_ptr, NUM_BINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    h = tl.histogram(tl.load(x_ptr + offs), NUM_BINS)
    tl.atomic_add(bins_ptr + tl.arange(0, NUM_BINS), h)


# A reduction into one buffer under a spin lock: one thread takes the lock (atomic_cas), all add
@triton.jit
def spin_lock_kernel(x_ptr, acc_ptr, lock_ptr, N, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + tl.program_id(0) * N + cols, mask=mask, other=0.0)
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    tl.store(acc_ptr + cols, tl.load(acc_ptr + cols, mask=mask) + x, mask=mask)
    tl.atomic_xchg(lock_ptr, 0)


# Layer norm backward's partial sums: a block of rows summed down its columns (cross-warp) and stored
@triton.jit
def column_sums_kernel(dw_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    cols = tl.program_id(0) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for i in range(0, M, BM):
        rows = i + tl.arange(0, BM)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        acc += tl.load(dw_ptr + rows[:, None] * N + cols[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + cols, tl.sum(acc, axis=0), mask=cols < N)


# A batched product: a 3-D tl.dot of B (M×K) by (K×N) blocks
@triton.jit
def batched_dot_kernel(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rb, rm, rn, rk = tl.arange(0, B), tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rb[:, None, None] * M * K + rm[None, :, None] * K + rk[None, None, :])
    b = tl.load(b_ptr + rb[:, None, None] * K * N + rk[None, :, None] * N + rn[None, None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + rb[:, None, None] * M * N + rm[None, :, None] * N + rn[None, None, :], c)


# An fp8 (e4m3) product: the operands arrive as bytes and are read as fp8
@triton.jit
def fp8_dot_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :]).to(tl.float8e4nv, bitcast=True)
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :]).to(tl.float8e4nv, bitcast=True)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b))


# Dequantise int8 weights by a scale per column (fewer scales than threads: Triton reloads them in the
# weights' layout)
@triton.jit
def dequant_kernel(w_ptr, s_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    w = tl.load(w_ptr + rm[:, None] * N + rn[None, :])
    s = tl.load(s_ptr + rn)
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], (w.to(tl.float32) * s[None, :]).to(tl.float16))


# An fp16 transpose: a tile read along rows, written along columns
@triton.jit
def transpose16_kernel(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    tl.store(y_ptr + rn[None, :] * M + rm[:, None], x)


# RMSNorm of rows of any width: one row per program
@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, y_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = 1 / tl.sqrt(tl.sum(x * x, axis=0) / N + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    tl.store(y_ptr + row * N + cols, (x * rstd * w).to(tl.float16), mask=mask)


# A masked fp16 product of any shape (one K step): the epilogue converts the accumulator to the store
@triton.jit
def masked_dot_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
    c = tl.dot(a, b).to(tl.float16)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c, mask=(rm[:, None] < M) & (rn[None, :] < N))


# A row sum over column chunks, its loop given stages (tl.range(num_stages=...)) or not
@triton.jit
def row_sum_kernel(x_ptr, out_ptr, N, BM: tl.constexpr, BN: tl.constexpr, STAGES: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for j in tl.range(0, N, BN, num_stages=STAGES):
        acc += tl.load(x_ptr + rows[:, None] * N + j + tl.arange(0, BN)[None, :])
    tl.store(out_ptr + rows, tl.sum(acc, axis=1))


@triton.jit
def row_sum_plain_kernel(x_ptr, out_ptr, N, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for j in range(0, N, BN):
        acc += tl.load(x_ptr + rows[:, None] * N + j + tl.arange(0, BN)[None, :])
    tl.store(out_ptr + rows, tl.sum(acc, axis=1))


# A K loop in fp32 (tf32 tensor cores)
@triton.jit
def kloop32_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BK
        b_ptrs += BK * N
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


# Block pointers (Triton up to 3.4; 3.9 rejects tl.make_block_ptr). kernellab runs each *_bp kernel and
# real Triton compiles its *_top twin: the tensor of pointers that Triton 3.4's RewriteTensorPointer made of
# it (base + Σ (offset_d + arange(B_d)) · stride_d, masked by 0 <= offset_d + arange(B_d) < shape_d in the
# boundary_check dimensions, the offsets carried through the loop and advanced)
@triton.jit
def tile_copy_bp(x_ptr, y_ptr, M, N, SM, SN, BM: tl.constexpr, BN: tl.constexpr, COLS: tl.constexpr):
    om, on = tl.program_id(0) * BM, tl.program_id(1) * BN
    if COLS:
        x = tl.make_block_ptr(x_ptr, (M, N), (SM, SN), (om, on), (BM, BN), (0, 1))
        y = tl.make_block_ptr(y_ptr, (M, N), (SM, SN), (om, on), (BM, BN), (0, 1))
    else:
        x = tl.make_block_ptr(x_ptr, (M, N), (SM, SN), (om, on), (BM, BN), (1, 0))
        y = tl.make_block_ptr(y_ptr, (M, N), (SM, SN), (om, on), (BM, BN), (1, 0))
    tl.store(y, tl.load(x, boundary_check=(0, 1), padding_option="zero"), boundary_check=(0, 1))


@triton.jit
def tile_copy_top(x_ptr, y_ptr, M, N, SM, SN, BM: tl.constexpr, BN: tl.constexpr, COLS: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    inside = (rm[:, None] >= 0) & (rm[:, None] < M) & (rn[None, :] >= 0) & (rn[None, :] < N)
    offs = rm[:, None] * SM + rn[None, :] * SN
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=inside, other=0.0), mask=inside)


# A K loop of dots over block pointers advanced by BK: A row-major, B row-major or (B_COLS) column-major;
# FP8: the bytes are fp8 e5m2 (a dot of fp8 needs its B K-major on sm_90)
@triton.jit
def matmul_bp(a_ptr, b_ptr, c_ptr, M, N, K, SAM, SAK, SBK, SBN, BM: tl.constexpr, BN: tl.constexpr,
              BK: tl.constexpr, B_COLS: tl.constexpr, FP8: tl.constexpr):
    om, on = tl.program_id(0) * BM, tl.program_id(1) * BN
    a_blk = tl.make_block_ptr(a_ptr, (M, K), (SAM, SAK), (om, 0), (BM, BK), (1, 0))
    if B_COLS:
        b_blk = tl.make_block_ptr(b_ptr, (K, N), (SBK, SBN), (0, on), (BK, BN), (0, 1))
    else:
        b_blk = tl.make_block_ptr(b_ptr, (K, N), (SBK, SBN), (0, on), (BK, BN), (1, 0))
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        a = tl.load(a_blk, boundary_check=(0, 1))
        b = tl.load(b_blk, boundary_check=(0, 1))
        if FP8:
            a = a.to(tl.float8e5, bitcast=True)
            b = b.to(tl.float8e5, bitcast=True)
        acc += tl.dot(a, b)
        a_blk = tl.advance(a_blk, (0, BK))
        b_blk = tl.advance(b_blk, (BK, 0))
    c_blk = tl.make_block_ptr(c_ptr, (M, N), (N, 1), (om, on), (BM, BN), (1, 0))
    tl.store(c_blk, acc, boundary_check=(0, 1))


@triton.jit
def matmul_top(a_ptr, b_ptr, c_ptr, M, N, K, SAM, SAK, SBK, SBN, BM: tl.constexpr, BN: tl.constexpr,
               BK: tl.constexpr, B_COLS: tl.constexpr, FP8: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    ok = 0
    for _ in range(0, K, BK):
        ak = ok + rk
        a_in = (rm[:, None] >= 0) & (rm[:, None] < M) & (ak[None, :] >= 0) & (ak[None, :] < K)
        b_in = (ak[:, None] >= 0) & (ak[:, None] < K) & (rn[None, :] >= 0) & (rn[None, :] < N)
        a = tl.load(a_ptr + rm[:, None] * SAM + ak[None, :] * SAK, mask=a_in)
        b = tl.load(b_ptr + ak[:, None] * SBK + rn[None, :] * SBN, mask=b_in)
        if FP8:
            a = a.to(tl.float8e5, bitcast=True)
            b = b.to(tl.float8e5, bitcast=True)
        acc += tl.dot(a, b)
        ok += BK
    inside = (rm[:, None] >= 0) & (rm[:, None] < M) & (rn[None, :] >= 0) & (rn[None, :] < N)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=inside)


# Attention forward in fp8 e5m2 with block pointers, as the fp8 path of an attention tutorial lays it
# out: Kᵀ read with order (0, 1), V stored transposed (order (0, 1)), so that both dots read K-major fp8
@triton.jit
def attention_fp8_bp(Q, K, V, Out, N_CTX, qk_scale, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    start_m, head = tl.program_id(0), tl.program_id(1)
    base = head * N_CTX * D
    q_blk = tl.make_block_ptr(Q + base, (N_CTX, D), (D, 1), (start_m * BM, 0), (BM, D), (1, 0))
    k_blk = tl.make_block_ptr(K + base, (D, N_CTX), (1, D), (0, 0), (D, BN), (0, 1))
    v_blk = tl.make_block_ptr(V + base, (N_CTX, D), (1, N_CTX), (0, 0), (BN, D), (0, 1))
    q = tl.load(q_blk).to(tl.float8e5, bitcast=True)
    m_i = tl.zeros([BM], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BM], dtype=tl.float32) + 1.0
    acc = tl.zeros([BM, D], dtype=tl.float32)
    for _ in range(0, N_CTX, BN):
        kt = tl.load(k_blk).to(tl.float8e5, bitcast=True)
        qk = tl.dot(q, kt) * qk_scale
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_blk).to(tl.float8e5, bitcast=True)
        acc = tl.dot(p.to(tl.float8e5), v, acc * alpha[:, None])
        m_i = m_ij
        k_blk = tl.advance(k_blk, (0, BN))
        v_blk = tl.advance(v_blk, (BN, 0))
    o_blk = tl.make_block_ptr(Out + base, (N_CTX, D), (D, 1), (start_m * BM, 0), (BM, D), (1, 0))
    tl.store(o_blk, (acc / l_i[:, None]).to(tl.float16))


@triton.jit
def attention_fp8_top(Q, K, V, Out, N_CTX, qk_scale, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    start_m, head = tl.program_id(0), tl.program_id(1)
    base = head * N_CTX * D
    offs_m = start_m * BM + tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    offs_d = tl.arange(0, D)
    q = tl.load(Q + base + offs_m[:, None] * D + offs_d[None, :]).to(tl.float8e5, bitcast=True)
    m_i = tl.zeros([BM], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BM], dtype=tl.float32) + 1.0
    acc = tl.zeros([BM, D], dtype=tl.float32)
    on = 0
    for _ in range(0, N_CTX, BN):
        kt = tl.load(K + base + offs_d[:, None] + (on + offs_n)[None, :] * D).to(tl.float8e5, bitcast=True)
        qk = tl.dot(q, kt) * qk_scale
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(V + base + (on + offs_n)[:, None] + offs_d[None, :] * N_CTX).to(tl.float8e5, bitcast=True)
        acc = tl.dot(p.to(tl.float8e5), v, acc * alpha[:, None])
        m_i = m_ij
        on += BN
    tl.store(Out + base + offs_m[:, None] * D + offs_d[None, :], (acc / l_i[:, None]).to(tl.float16))


# A loop's dot whose A is loaded once, before the loop: Triton stores it to shared memory once, and
# reads it back every iteration
@triton.jit
def invariant_a_kernel(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    b_ptrs = b_ptr + rk[:, None] * BN + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        acc += tl.dot(a, tl.load(b_ptrs))
        b_ptrs += BK * BN
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)
