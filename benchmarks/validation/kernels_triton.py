"""The validation rows' Triton kernels, written for this project in real Triton syntax.

Each kernel follows the algorithm of the Triton tutorial (or library) a row of ``validation.csv``
measured; none is copied. The two import lines are the only thing that changes between kernellab's
mini-Triton and a GPU: ``benchmarks/gpu/gpu_check.py`` executes this file with ``import triton`` and
``import triton.language as tl`` in their place. The kernels use only what Triton has had since
2023 (pointer arithmetic, ``tl.dot``, ``tl.exp2``, atomics), so an older Triton on a lent GPU
compiles them too.

* :func:`add_kernel`: tutorial 01, ``z = x + y``.
* :func:`zero_kernel`: ``torch.zeros``' fill of an int32 buffer (the layer-norm backward's lock words).
* :func:`softmax_kernel`: tutorial 02 as of early 2024, one program per row.
* :func:`layer_norm_fwd`, :func:`layer_norm_bwd_dx`, :func:`layer_norm_bwd_dwdb`: tutorial 05, the
  backward with a spin lock per group of rows.
* :func:`matmul_kernel`: tutorial 03, grouped launch order, any strides (a column-major B or C is a
  stride), operands loaded as their bits and bitcast where numpy has no such type (bfloat16, fp8).
* :func:`attn_fwd`, :func:`attn_bwd_preprocess`, :func:`attn_bwd`: tutorial 06's FlashAttention-2
  forward and backward (K and V walked block by block, ``exp2`` with log2(e) folded into the scale).
"""

import kernellab.triton as triton
import kernellab.triton.language as tl

LOG2E = 1.4426950408889634  # log2(e): exp(x) = exp2(x · log2 e)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def zero_kernel(out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    tl.store(out_ptr + offs, tl.zeros([BLOCK_SIZE], dtype=tl.int32), mask=offs < n_elements)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=cols < n_cols, other=-float("inf"))
    z = x - tl.max(x, axis=0)
    num = tl.exp(z)
    tl.store(out_ptr + row * out_row_stride + cols, num / tl.sum(num, axis=0), mask=cols < n_cols)


@triton.jit
def layer_norm_fwd(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / N
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.0)
        acc += x * x
    rstd = 1 / tl.sqrt(tl.sum(acc, axis=0) / N + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(Y + cols, y.to(Y.dtype.element_ty), mask=mask)


@triton.jit
def layer_norm_bwd_dx(DX, DY, DW, DB, X, W, Mean, Rstd, Lock, stride, N, GROUP_SIZE_M: tl.constexpr,
                      BLOCK_SIZE_N: tl.constexpr):
    # dx of each row, and this row's share of dW and dB added into its group's partial sums under a lock
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < N
    X += row * stride
    DY += row * stride
    DX += row * stride
    group = row % GROUP_SIZE_M
    Lock += group
    Count = Lock + GROUP_SIZE_M
    DW = DW + group * N + cols
    DB = DB + group * N + cols
    x = tl.load(X + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(DY + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.0)
    wdy = tl.where(mask, w * dy, 0.0)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(DX + cols, dx, mask=mask)
    partial_dw = (dy * xhat).to(w.dtype)
    partial_db = dy.to(w.dtype)
    while tl.atomic_cas(Lock, 0, 1) == 1:
        pass
    count = tl.load(Count)
    if count == 0:
        tl.atomic_xchg(Count, 1)
    else:
        partial_dw += tl.load(DW, mask=mask)
        partial_db += tl.load(DB, mask=mask)
    tl.store(DW, partial_dw, mask=mask)
    tl.store(DB, partial_db, mask=mask)
    tl.atomic_xchg(Lock, 0)


@triton.jit
def layer_norm_bwd_dwdb(DW, DB, FINAL_DW, FINAL_DB, M, N, BLOCK_SIZE_M: tl.constexpr,
                        BLOCK_SIZE_N: tl.constexpr):
    # the groups' partial sums, reduced column block by column block
    pid = tl.program_id(0)
    cols = pid * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    dw = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for i in range(0, M, BLOCK_SIZE_M):
        rows = i + tl.arange(0, BLOCK_SIZE_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        offs = rows[:, None] * N + cols[None, :]
        dw += tl.load(DW + offs, mask=mask, other=0.0).to(tl.float32)
        db += tl.load(DB + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(FINAL_DW + cols, tl.sum(dw, axis=0), mask=cols < N)
    tl.store(FINAL_DB + cols, tl.sum(db, axis=0), mask=cols < N)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr, BITCAST: tl.constexpr, PRECISION: tl.constexpr):
    # program pid -> (pid_m, pid_n) in groups of GROUP_SIZE_M rows of tiles (GROUP_SIZE_M = 1: row-major)
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0)
        if BITCAST is not None:  # bfloat16 or fp8 held as their bits
            a = a.to(BITCAST, bitcast=True)
            b = b.to(BITCAST, bitcast=True)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptr + offs_cm[:, None] * stride_cm + offs_cn[None, :] * stride_cn, acc.to(c_ptr.dtype.element_ty),
             mask=c_mask)


@triton.jit
def _attn_block(q, K, V, base, cols, offs_d, m_i, l_i, acc, qk_scale, HEAD_DIM: tl.constexpr,
                QK_BITCAST: tl.constexpr = None):
    # one key block of the online softmax (no mask): scores, running max and sum, the rescaled P·V
    k = tl.load(K + base + cols[:, None] * HEAD_DIM + offs_d[None, :])
    if QK_BITCAST is not None:
        k = k.to(QK_BITCAST, bitcast=True)
    qk = tl.dot(q, tl.trans(k))
    m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
    p = tl.exp2(qk * qk_scale - m_ij[:, None])
    alpha = tl.exp2(m_i - m_ij)
    l_i = l_i * alpha + tl.sum(p, 1)
    v = tl.load(V + base + cols[:, None] * HEAD_DIM + offs_d[None, :])
    acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
    return m_ij, l_i, acc


@triton.jit
def attn_fwd(Q, K, V, M, Out, sm_scale, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
             BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr, WARP_SPECIALIZE: tl.constexpr = False,
             QK_BITCAST: tl.constexpr = None):
    # program (m, z·H + h): BLOCK_M query rows of one head; Q, K, V, Out contiguous (Z, H, N_CTX, HEAD_DIM).
    # WARP_SPECIALIZE: the key loop as tl.range(warp_specialize=True), as tutorial 06 runs its non-causal
    # forward on Hopper (producer and consumer warps; an older Triton never compiles that branch when False)
    # QK_BITCAST: Q, K and Out hold that dtype as their bits (env.bitcast: fp8 travels as uint8), V its own
    # dtype: q·kᵀ is a dot of that dtype, P is cast to V's dtype for P·V (the 2023-10 tutorial's fp8 q and k)
    start_m = tl.program_id(0)
    base = tl.program_id(1).to(tl.int64) * N_CTX * HEAD_DIM
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
    if QK_BITCAST is not None:
        q = q.to(QK_BITCAST, bitcast=True)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.4426950408889634  # log2(e)
    # causal: the key blocks wholly below the diagonal, then the diagonal block with its mask
    hi = start_m * BLOCK_M if CAUSAL else N_CTX
    if WARP_SPECIALIZE:
        for start_n in tl.range(0, hi, BLOCK_N, warp_specialize=True):
            m_i, l_i, acc = _attn_block(q, K, V, base, start_n + offs_n, offs_d, m_i, l_i, acc, qk_scale, HEAD_DIM,
                                        QK_BITCAST)
    else:
        for start_n in range(0, hi, BLOCK_N):
            m_i, l_i, acc = _attn_block(q, K, V, base, start_n + offs_n, offs_d, m_i, l_i, acc, qk_scale, HEAD_DIM,
                                        QK_BITCAST)
    if CAUSAL:
        for start_n in range(start_m * BLOCK_M, (start_m + 1) * BLOCK_M, BLOCK_N):
            cols = start_n + offs_n
            k = tl.load(K + base + cols[:, None] * HEAD_DIM + offs_d[None, :])
            if QK_BITCAST is not None:
                k = k.to(QK_BITCAST, bitcast=True)
            qk = tl.dot(q, tl.trans(k)) * qk_scale
            qk = tl.where(offs_m[:, None] >= cols[None, :], qk, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            p = tl.exp2(qk - m_ij[:, None])
            alpha = tl.exp2(m_i - m_ij)
            l_i = l_i * alpha + tl.sum(p, 1)
            v = tl.load(V + base + cols[:, None] * HEAD_DIM + offs_d[None, :])
            acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
            m_i = m_ij
    m_i += tl.log2(l_i)  # the row's log-sum-exp (base 2), which the backward pass reads
    acc = acc / l_i[:, None]
    tl.store(M + tl.program_id(1) * N_CTX + offs_m, m_i)
    if QK_BITCAST is not None:
        out = acc.to(QK_BITCAST).to(Out.dtype.element_ty, bitcast=True)
    else:
        out = acc.to(Out.dtype.element_ty)
    tl.store(Out + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], out)


@triton.jit
def attn_bwd_preprocess(Out, DO, Delta, DQ_ACC, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                        CLEAR_DQ: tl.constexpr = False):
    # Delta = rowsum(O ∘ dO), one block of rows of one head per program. CLEAR_DQ: also zero these rows of the
    # float32 dQ accumulator that attn_bwd's DQ_ATOMIC adds to, as FlashAttention-2's preprocess does on its
    # non-deterministic path (flash_bwd_dot_do_o_kernel<Clear_dQaccum=true>) and FlashAttention-3's always
    # (hopper/flash_bwd_launch_template.h: FlashAttnBwdPreprocess<..., Clear_dQaccum=true, ...>)
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    head = tl.program_id(1)
    offs_d = tl.arange(0, HEAD_DIM)
    offs = head.to(tl.int64) * N_CTX * HEAD_DIM + offs_m[:, None] * HEAD_DIM + offs_d[None, :]
    o = tl.load(Out + offs).to(tl.float32)
    do = tl.load(DO + offs).to(tl.float32)
    tl.store(Delta + head * N_CTX + offs_m, tl.sum(o * do, axis=1))
    if CLEAR_DQ:
        tl.store(DQ_ACC + offs, tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32))


@triton.jit
def attn_bwd(Q, K, V, sm_scale, DO, DQ, DK, DV, M, Delta, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M1: tl.constexpr,
             BLOCK_N1: tl.constexpr, BLOCK_M2: tl.constexpr, BLOCK_N2: tl.constexpr, DQ_ATOMIC: tl.constexpr = False):
    # program (j, 0, z·H + h): dK and dV of key block j (all query blocks), then dQ of query block j (all key
    # blocks); non-causal. K arrives pre-multiplied by sm_scale·log2(e), as the scores need it (see the caller).
    # Tutorial 06's backward: 7 dots a (query block, key block) pair, q·kᵀ and do·vᵀ computed twice. DQ_ATOMIC:
    # FlashAttention-2's and -3's 5 dots instead: each key block adds its dS·K to dQ (float32) with atomics, as
    # their dQ accumulators do, and no dQ pass; the caller then converts dQ (attn_bwd_dq_convert).
    head = tl.program_id(2)
    base = head.to(tl.int64) * N_CTX * HEAD_DIM
    row_base = head * N_CTX
    offs_d = tl.arange(0, HEAD_DIM)
    start_n = tl.program_id(0) * BLOCK_N1
    offs_n = start_n + tl.arange(0, BLOCK_N1)
    k = tl.load(K + base + offs_n[:, None] * HEAD_DIM + offs_d[None, :])
    v = tl.load(V + base + offs_n[:, None] * HEAD_DIM + offs_d[None, :])
    dk = tl.zeros([BLOCK_N1, HEAD_DIM], dtype=tl.float32)
    dv = tl.zeros([BLOCK_N1, HEAD_DIM], dtype=tl.float32)
    for start_m in range(0, N_CTX, BLOCK_M1):
        offs_m = start_m + tl.arange(0, BLOCK_M1)
        q = tl.load(Q + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
        m = tl.load(M + row_base + offs_m)
        p_t = tl.exp2(tl.dot(k, tl.trans(q)) - m[None, :])
        do = tl.load(DO + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
        dv += tl.dot(p_t.to(do.dtype), do)
        delta = tl.load(Delta + row_base + offs_m)
        dp_t = tl.dot(v, tl.trans(do)).to(tl.float32)
        ds_t = p_t * (dp_t - delta[None, :])
        dk += tl.dot(ds_t.to(q.dtype), q)
        if DQ_ATOMIC:
            tl.atomic_add(DQ + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :],
                          tl.dot(tl.trans(ds_t.to(k.dtype)), k) * 0.6931471824645996)
    tl.store(DV + base + offs_n[:, None] * HEAD_DIM + offs_d[None, :], dv.to(DV.dtype.element_ty))
    tl.store(DK + base + offs_n[:, None] * HEAD_DIM + offs_d[None, :], (dk * sm_scale).to(DK.dtype.element_ty))
    if not DQ_ATOMIC:  # tutorial 06's dQ pass
        start_m = tl.program_id(0) * BLOCK_M2
        offs_m = start_m + tl.arange(0, BLOCK_M2)
        q = tl.load(Q + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
        do = tl.load(DO + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
        m = tl.load(M + row_base + offs_m)
        delta = tl.load(Delta + row_base + offs_m)
        dq = tl.zeros([BLOCK_M2, HEAD_DIM], dtype=tl.float32)
        for start in range(0, N_CTX, BLOCK_N2):
            cols = start + tl.arange(0, BLOCK_N2)
            kb = tl.load(K + base + cols[:, None] * HEAD_DIM + offs_d[None, :])
            vb = tl.load(V + base + cols[:, None] * HEAD_DIM + offs_d[None, :])
            p = tl.exp2(tl.dot(q, tl.trans(kb)) - m[:, None])
            dp = tl.dot(do, tl.trans(vb)).to(tl.float32)
            ds = p * (dp - delta[:, None])
            dq += tl.dot(ds.to(kb.dtype), kb)
        tl.store(DQ + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :],
                 (dq * 0.6931471824645996).to(DQ.dtype.element_ty))


@triton.jit
def attn_bwd_dq_convert(DQ_ACC, DQ, BLOCK: tl.constexpr):
    # dQ accumulated in float32 (attn_bwd's DQ_ATOMIC), written as fp16: FlashAttention-2's and -3's last step
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(DQ + offs, tl.load(DQ_ACC + offs).to(DQ.dtype.element_ty))


#: Tutorial 03's autotuning space for CUDA (fp16, as of 2024): (BLOCK_M, BLOCK_N, BLOCK_K, num_stages, num_warps),
#: every one with GROUP_SIZE_M = 8.
MATMUL_CONFIGS_FP16 = [
    (128, 256, 64, 3, 8), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4), (128, 64, 32, 4, 4),
    (64, 128, 32, 4, 4), (128, 32, 32, 4, 4), (64, 32, 32, 5, 2), (32, 64, 32, 5, 2),
]
#: The configs tutorial 03 added for fp8 inputs (Triton PR 3546, 2024-03), tried besides the fp16 ones.
MATMUL_CONFIGS_FP8 = [
    (128, 256, 128, 3, 8), (256, 128, 128, 3, 8), (256, 64, 128, 4, 4), (64, 256, 128, 4, 4),
    (128, 128, 128, 4, 4), (128, 64, 64, 4, 4), (64, 128, 64, 4, 4), (128, 32, 64, 4, 4),
]


def matmul_configs(fp8: bool = False) -> list:
    """The autotuner's ``triton.Config`` list: tutorial 03's CUDA configs (and its fp8 ones with ``fp8``)."""
    table = MATMUL_CONFIGS_FP16 + (MATMUL_CONFIGS_FP8 if fp8 else [])
    return [triton.Config({"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": 8},
                          num_stages=s, num_warps=w) for bm, bn, bk, s, w in table]


def autotuned_matmul(fp8: bool = False):
    """A fresh ``@triton.autotune`` of :func:`matmul_kernel` over :func:`matmul_configs` (keyed on M, N, K).

    Fresh for each row: an autotuner keeps its choice per key, and two rows of the same size on two GPUs
    must each tune on their own.
    """
    return triton.autotune(configs=matmul_configs(fp8), key=["M", "N", "K"])(matmul_kernel)


def attn_configs(head_dim: int) -> list:
    """The autotuner's ``triton.Config`` list of tutorial 06's forward from mid-2024 (Triton PR 3892, "tune flash
    attention block sizes", as tritonbench's copy holds it): BLOCK_M and BLOCK_N in {64, 128}, 3, 4 or 7 stages,
    4 or 8 warps, less its ``keep`` rule's (8 warps on a block under 128 × 128) and the configs its
    ``tl.static_assert(BLOCK_N <= HEAD_DIM)`` fails to compile (which the autotuner skips)."""
    return [triton.Config({"BLOCK_M": bm, "BLOCK_N": bn}, num_stages=s, num_warps=w)
            for bm in (64, 128) for bn in (64, 128) for s in (3, 4, 7) for w in (4, 8)
            if not (bm * bn < 128 * 128 and w == 8) and bn <= head_dim]


def autotuned_attn_fwd(head_dim: int):
    """A fresh ``@triton.autotune`` of :func:`attn_fwd` over :func:`attn_configs` (keyed on N_CTX, as the
    tutorial's), fresh for each row as :func:`autotuned_matmul` is."""
    return triton.autotune(configs=attn_configs(head_dim), key=["N_CTX"])(attn_fwd)
