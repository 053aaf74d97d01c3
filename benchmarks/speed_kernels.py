"""Kernels the speed table times (issues 14 and 23), in real Triton syntax, beside tests/triton_kernels.py.

As there, only the two import lines below tie this file to kernellab: ``bench_speed.py`` loads it
again with ``import triton`` / ``import triton.language as tl`` to time Triton's own interpreter.
"""

import kernellab.triton as triton
import kernellab.triton.language as tl


@triton.jit
def add_relu_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x + y, 0.0), mask=mask)


@triton.jit
def gelu_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    # GeLU with tanh written as 1 − 2 / (e^2a + 1) (Triton has no tl.tanh): gallery/triton_notes/01_gelu.py
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    a = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    tanh = 1 - 2 / (tl.exp(2 * a) + 1)
    tl.store(y_ptr + offs, 0.5 * x * (1 + tanh), mask=mask)


@triton.jit
def row_softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    # one row per program, the whole row in one block: shift by its maximum, exponentiate, normalise
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    keep = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=keep, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * out_stride + cols, e / tl.sum(e, axis=0), mask=keep)


@triton.jit
def layer_norm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, row_stride, n_cols, eps,
                      BLOCK: tl.constexpr):
    # one row per program, in three passes of BLOCK columns: the mean, the variance, then y = x̂·w + b
    row = tl.program_id(0)
    x_row = x_ptr + row * row_stride
    y_row = y_ptr + row * row_stride
    total = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        total += tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    mean = tl.sum(total, axis=0) / n_cols
    squares = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        centred = tl.where(cols < n_cols, x - mean, 0.0)
        squares += centred * centred
    rstd = 1 / tl.sqrt(tl.sum(squares, axis=0) / n_cols + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        keep = cols < n_cols
        w = tl.load(w_ptr + cols, mask=keep)
        b = tl.load(b_ptr + cols, mask=keep)
        x = tl.load(x_row + cols, mask=keep, other=0.0).to(tl.float32)
        tl.store(y_row + cols, (x - mean) * rstd * w + b, mask=keep)


@triton.jit
def attention_fwd_kernel(q_ptr, k_ptr, v_ptr, o_ptr, n_ctx, sm_scale, HEAD_DIM: tl.constexpr,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # FlashAttention-2 forward: program (i, h) keeps query rows i·BLOCK_M … of head h and walks the keys
    # BLOCK_N at a time with a running maximum and sum; each head is n_ctx rows of HEAD_DIM, fp16
    i = tl.program_id(0)
    head = tl.program_id(1)
    base = head * n_ctx * HEAD_DIM
    rows = i * BLOCK_M + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, HEAD_DIM)
    keys = tl.arange(0, BLOCK_N)
    q = tl.load(q_ptr + base + rows[:, None] * HEAD_DIM + dims[None, :], mask=rows[:, None] < n_ctx, other=0.0)
    scale = sm_scale * 1.4426950408889634  # exp(x) = exp2(x · log2 e)
    m_run = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_run = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    kt_ptrs = k_ptr + base + dims[:, None] + keys[None, :] * HEAD_DIM  # Kᵀ, (HEAD_DIM, BLOCK_N)
    v_ptrs = v_ptr + base + keys[:, None] * HEAD_DIM + dims[None, :]
    for start in range(0, n_ctx, BLOCK_N):
        inside = start + keys < n_ctx
        kt = tl.load(kt_ptrs, mask=inside[None, :], other=0.0)
        v = tl.load(v_ptrs, mask=inside[:, None], other=0.0)
        s = tl.dot(q, kt) * scale
        s = tl.where(inside[None, :], s, -float("inf"))
        m_new = tl.maximum(m_run, tl.max(s, 1))
        p = tl.exp2(s - m_new[:, None])
        alpha = tl.exp2(m_run - m_new)
        l_run = l_run * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_run = m_new
        kt_ptrs += BLOCK_N * HEAD_DIM
        v_ptrs += BLOCK_N * HEAD_DIM
    out = acc / l_run[:, None]
    tl.store(o_ptr + base + rows[:, None] * HEAD_DIM + dims[None, :], out.to(tl.float16), mask=rows[:, None] < n_ctx)
