"""Kernels in real Triton syntax (tutorials 01, 02, 03, 05 and a few more), shared by the tests.

Only the two import lines below tie this file to kernellab: the conformance tests load the same
source with them replaced by ``import triton`` / ``import triton.language as tl`` and run it under
Triton's interpreter. Keep every kernel valid Triton.
"""

import kernellab.triton as triton
import kernellab.triton.language as tl


# Tutorial 01: vector addition
@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)


# Tutorial 02: fused softmax, one row per program
@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    row_start_ptr = input_ptr + row_idx * input_row_stride
    col_offsets = tl.arange(0, BLOCK_SIZE)
    input_ptrs = row_start_ptr + col_offsets
    row = tl.load(input_ptrs, mask=col_offsets < n_cols, other=-float("inf"))
    row_minus_max = row - tl.max(row, axis=0)
    numerator = tl.exp(row_minus_max)
    denominator = tl.sum(numerator, axis=0)
    softmax_output = numerator / denominator
    output_row_start_ptr = output_ptr + row_idx * output_row_stride
    output_ptrs = output_row_start_ptr + col_offsets
    tl.store(output_ptrs, softmax_output, mask=col_offsets < n_cols)


# Tutorial 02 (newer): persistent programs striding over rows with tl.range and tl.num_programs
@triton.jit
def softmax_persistent_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                              BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float("inf"))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        output_ptrs = output_row_start_ptr + col_offsets
        tl.store(output_ptrs, softmax_output, mask=mask)


# Tutorial 03: matrix multiplication with grouped ordering and a fused leaky_relu
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr, ACTIVATION: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    if ACTIVATION == "leaky_relu":
        accumulator = leaky_relu(accumulator)
    c = accumulator.to(tl.float16)

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


@triton.jit
def leaky_relu(x):
    return tl.where(x >= 0, x, 0.01 * x)


# Tutorial 05: layer-norm forward, one row per program, looping over BLOCK_SIZE chunks
@triton.jit
def _layer_norm_fwd_fused(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    mean = 0
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)


# Reductions along an axis of a 2-D tile, with keep_dims and argmax
@triton.jit
def reduce_kernel(x_ptr, max_ptr, min_ptr, sum_ptr, arg_ptr, R, C, AXIS: tl.constexpr,
                  BR: tl.constexpr, BC: tl.constexpr):
    rows = tl.arange(0, BR)
    cols = tl.arange(0, BC)
    mask = (rows[:, None] < R) & (cols[None, :] < C)
    x = tl.load(x_ptr + rows[:, None] * C + cols[None, :], mask=mask, other=0.0)
    mx = tl.max(tl.where(mask, x, -float("inf")), axis=AXIS, keep_dims=True)
    mn = tl.min(tl.where(mask, x, float("inf")), axis=AXIS, keep_dims=True)
    sm = tl.sum(x, axis=AXIS, keep_dims=True)
    am = tl.argmax(tl.where(mask, x, -float("inf")), axis=AXIS, keep_dims=True)
    if AXIS == 0:
        out = cols[None, :]
        omask = cols[None, :] < C
    else:
        out = rows[:, None]
        omask = rows[:, None] < R
    tl.store(max_ptr + out, mx, mask=omask)
    tl.store(min_ptr + out, mn, mask=omask)
    tl.store(sum_ptr + out, sm, mask=omask)
    tl.store(arg_ptr + out, am, mask=omask)


# Elementwise math on fp32
@triton.jit
def math_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    y = tl.exp(x) + tl.log(tl.abs(x) + 1.0) + tl.sqrt(tl.abs(x)) + tl.rsqrt(tl.abs(x) + 1.0)
    y = y + tl.sigmoid(x) + tl.maximum(x, 0.5) - tl.minimum(x, -0.5)
    tl.store(out_ptr + offs, y, mask=mask)


# Integer arithmetic: C division and remainder of possibly negative ints
@triton.jit
def intdiv_kernel(a_ptr, b_ptr, q_ptr, r_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0)
    b = tl.load(b_ptr + offs, mask=mask, other=1)
    tl.store(q_ptr + offs, a // b, mask=mask)
    tl.store(r_ptr + offs, a % b, mask=mask)


# A 2-D grid: program (i, j) copies tile (i, j) of a matrix, transposed
@triton.jit
def transpose_kernel(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask)
    tl.store(y_ptr + rn[None, :] * M + rm[:, None], x, mask=mask)


# A 3-D grid writing each program's ids and the grid size
@triton.jit
def grid3_kernel(out_ptr):
    x = tl.program_id(0)
    y = tl.program_id(1)
    z = tl.program_id(2)
    nx = tl.num_programs(0)
    ny = tl.num_programs(1)
    lin = x + nx * (y + ny * z)
    tl.store(out_ptr + lin * 3 + tl.arange(0, 4), tl.where(tl.arange(0, 4) == 0, x, tl.where(tl.arange(0, 4) == 1, y, z)),
             mask=tl.arange(0, 4) < 3)


# A program-dependent branch: odd programs negate (the programs of a batch diverge)
@triton.jit
def branchy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if pid % 2 == 1:
        x = -x
    tl.store(out_ptr + offs, x, mask=mask)


# fp16 in, fp16 out: arithmetic stays fp16, division computes in fp32
@triton.jit
def half_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    y = (x * 0.5 + x) / (x + 3.0)
    tl.store(out_ptr + offs, y, mask=mask)


# A copy from a shifted source: x[i + shift] → out[i]
@triton.jit
def shifted_copy_kernel(x_ptr, out_ptr, n, shift, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    src = x_ptr + shift
    tl.store(out_ptr + offs, tl.load(src + offs, mask=mask), mask=mask)


# Tutorial 04: low-memory dropout, the mask regenerated from (seed, offset) by Philox
@triton.jit
def seeded_dropout_kernel(x_ptr, output_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    random = tl.rand(seed, offsets)
    x_keep = random > p
    output = tl.where(x_keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output, mask=mask)


# Every random stream of tl.random, for one seed and a block of offsets
@triton.jit
def random_streams_kernel(i_ptr, u_ptr, n_ptr, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    i0, i1, i2, i3 = tl.randint4x(seed, offs)
    tl.store(i_ptr + offs * 4 + 0, i0)
    tl.store(i_ptr + offs * 4 + 1, i1)
    tl.store(i_ptr + offs * 4 + 2, i2)
    tl.store(i_ptr + offs * 4 + 3, i3)
    u0, u1, u2, u3 = tl.rand4x(seed, offs)
    tl.store(u_ptr + offs * 5 + 0, u0)
    tl.store(u_ptr + offs * 5 + 1, u3)
    tl.store(u_ptr + offs * 5 + 2, tl.rand(seed, offs))
    tl.store(u_ptr + offs * 5 + 3, tl.randint(seed, offs).to(tl.float32))
    tl.store(u_ptr + offs * 5 + 4, tl.rand(seed + 1, offs))
    n0, n1, n2, n3 = tl.randn4x(seed, offs)
    tl.store(n_ptr + offs * 3 + 0, n0)
    tl.store(n_ptr + offs * 3 + 1, n3)
    tl.store(n_ptr + offs * 3 + 2, tl.randn(seed, offs))


# A histogram built with atomics: every program adds its block's counts into the bins
@triton.jit
def histogram_kernel(x_ptr, bins_ptr, n, NUM_BINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(bins_ptr + x, 1, mask=mask)
    h = tl.histogram(x, NUM_BINS, mask=mask)
    tl.atomic_add(bins_ptr + NUM_BINS + tl.arange(0, NUM_BINS), h)


# Every atomic on distinct addresses per program (old values then do not depend on the order)
@triton.jit
def atomics_kernel(f_ptr, i_ptr, old_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    v = offs.to(tl.float32) - 3.0
    iv = offs * 7 - 5
    o1 = tl.atomic_add(f_ptr + offs, v, mask=mask, sem="relaxed")
    o2 = tl.atomic_max(f_ptr + BLOCK + offs, v, mask=mask, sem="acq_rel", scope="gpu")
    o3 = tl.atomic_min(f_ptr + 2 * BLOCK + offs, v, mask=mask)
    o4 = tl.atomic_xchg(i_ptr + offs, iv, mask=mask)
    o5 = tl.atomic_and(i_ptr + BLOCK + offs, iv, mask=mask)
    o6 = tl.atomic_or(i_ptr + 2 * BLOCK + offs, iv, mask=mask)
    o7 = tl.atomic_xor(i_ptr + 3 * BLOCK + offs, iv, mask=mask)
    o8 = tl.atomic_cas(i_ptr + 4 * BLOCK + offs, offs, iv)
    tl.store(old_ptr + offs, (o1 + o2 + o3).to(tl.int32), mask=mask)
    tl.store(old_ptr + BLOCK + offs, o4 + o5 + o6 + o7 + o8, mask=mask)


# Every program adds into one counter and one float: finals are the sums in any order
@triton.jit
def counter_kernel(cnt_ptr, x_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    tl.atomic_add(cnt_ptr, 1)
    tl.atomic_max(cnt_ptr + 1, pid)
    x = tl.load(x_ptr + pid * BLOCK + tl.arange(0, BLOCK))
    tl.atomic_add(cnt_ptr + 2, tl.sum(x, axis=0))


# Tutorial 05 backward, partial dW/dB: a spin lock (atomic_cas / atomic_xchg) guards each group's buffer
@triton.jit
def locked_accumulate_kernel(X, DW, Lock, Count, M, N, GROUP: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * N + cols, mask=mask, other=0)
    lock_id = row % GROUP
    Lock += lock_id
    Count += lock_id
    DW += lock_id * N + cols
    while tl.atomic_cas(Lock, 0, 1) == 1:
        pass
    count = tl.load(Count)
    if count == 0:
        tl.atomic_xchg(Count, 1)
    else:
        x += tl.load(DW, mask=mask)
    tl.store(DW, x, mask=mask)
    tl.atomic_xchg(Lock, 0)


@triton.jit
def _add_combine(a, b):
    return a + b


@triton.jit
def _first_max_combine(v1, i1, v2, i2):
    take2 = (v2 > v1) | ((v2 == v1) & (i2 < i1))
    return tl.where(take2, v2, v1), tl.where(take2, i2, i1)


@triton.jit
def _affine_combine(a1, b1, a2, b2):
    # composition of x -> a·x + b maps: not commutative, associative
    return a1 * a2, b1 * a2 + b2


# Scans and reductions with @triton.jit combine functions, and the fixed ones
@triton.jit
def scan_kernel(x_ptr, i_ptr, out_ptr, iout_ptr, R: tl.constexpr, C: tl.constexpr, AXIS: tl.constexpr,
                L: tl.constexpr):
    rows = tl.arange(0, R)[:, None]
    cols = tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + rows * C + cols)
    xi = tl.load(i_ptr + rows * C + cols)
    tl.store(out_ptr + rows * C + cols, tl.cumsum(x, axis=AXIS))
    tl.store(out_ptr + R * C + rows * C + cols, tl.cumsum(x, axis=AXIS, reverse=True))
    tl.store(out_ptr + 2 * R * C + rows * C + cols, tl.associative_scan(x, AXIS, _add_combine))
    tl.store(iout_ptr + rows * C + cols, tl.cumprod(xi % 3 + 1, axis=AXIS))
    a, b = tl.associative_scan((xi % 3 + 1, xi), AXIS, _affine_combine)
    tl.store(iout_ptr + R * C + rows * C + cols, b)
    tl.store(iout_ptr + 2 * R * C + rows * C + cols, tl.associative_scan(xi, AXIS, _add_combine, reverse=True))
    v, i = tl.reduce((xi, tl.broadcast_to(rows * C + cols, R, C)), AXIS, _first_max_combine)
    s = tl.reduce(x, AXIS, _add_combine, keep_dims=True)
    outs = tl.arange(0, L)  # L: the length along the other axis, what the reductions leave
    tl.store(iout_ptr + 3 * R * C + outs, v)
    tl.store(iout_ptr + 3 * R * C + L + outs, i)
    tl.store(iout_ptr + 3 * R * C + 2 * L + outs, tl.xor_sum(xi, axis=AXIS))
    tl.store(iout_ptr + 3 * R * C + 3 * L + outs, tl.reduce_or(xi, axis=AXIS))
    tl.store(iout_ptr + 3 * R * C + 4 * L + outs, tl.argmax(xi, axis=AXIS))
    tl.store(iout_ptr + 3 * R * C + 5 * L + outs, tl.argmin(xi, axis=AXIS))
    tl.store(out_ptr + 3 * R * C + outs, tl.ravel(s))


# Shape functions: join, split, interleave, flip, permute, reshape, gather, sort, topk, expand_dims
@triton.jit
def shapes_kernel(x_ptr, out_ptr, idx_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    y = tl.load(x_ptr + N + offs)
    j = tl.join(x, y)
    a, b = tl.split(j)
    tl.store(out_ptr + offs, a - b)
    tl.store(out_ptr + N + tl.arange(0, 2 * N), tl.interleave(x, y))
    tl.store(out_ptr + 3 * N + offs, tl.flip(x, 0))
    m = tl.reshape(tl.join(x, y), N // 2, 4)
    t = tl.permute(m, 1, 0)
    tl.store(out_ptr + 4 * N + tl.arange(0, 4)[:, None] * (N // 2) + tl.arange(0, N // 2)[None, :], t)
    idx = tl.load(idx_ptr + offs)
    tl.store(out_ptr + 6 * N + offs, tl.gather(x, idx, 0))
    tl.store(out_ptr + 7 * N + offs, tl.sort(x))
    tl.store(out_ptr + 8 * N + offs, tl.sort(x, descending=True))
    tl.store(out_ptr + 9 * N + tl.arange(0, 4), tl.topk(x, 4))
    e = tl.expand_dims(x, 0) + tl.expand_dims(y, 1)
    tl.store(out_ptr + 10 * N + tl.arange(0, N)[:, None] * N + tl.arange(0, N)[None, :], tl.trans(e))
    tl.store(out_ptr + 10 * N + N * N + offs, tl.ravel(tl.broadcast_to(x[None, :], 1, N)))


# More elementwise math: erf, exp2, log2, sqrt_rn, div_rn, fdiv, fma, clamp, floor, ceil, and the members
@triton.jit
def math2_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    ax = tl.abs(x) + 0.5
    tl.store(out_ptr + offs * 8 + 0, tl.erf(x), mask=mask)
    tl.store(out_ptr + offs * 8 + 1, tl.exp2(x) + tl.log2(ax), mask=mask)
    tl.store(out_ptr + offs * 8 + 2, tl.sqrt_rn(ax) + tl.div_rn(x, ax), mask=mask)
    tl.store(out_ptr + offs * 8 + 3, tl.fdiv(x, ax) + tl.fma(x, x, ax), mask=mask)
    tl.store(out_ptr + offs * 8 + 4, tl.clamp(x, -0.5, 0.75) + tl.floor(x) + tl.ceil(x), mask=mask)
    tl.store(out_ptr + offs * 8 + 5, x.exp() + ax.log() + ax.sqrt() + x.sigmoid(), mask=mask)
    tl.store(out_ptr + offs * 8 + 6, tl.sin(x) * tl.cos(x) + ax.rsqrt() + x.abs(), mask=mask)
    tl.store(out_ptr + offs * 8 + 7, tl.cdiv(offs, 3).to(tl.float32) + tl.exp2(x).log2(), mask=mask)


# Integer math: umulhi, bit operations, shifts
@triton.jit
def intmath_kernel(a_ptr, b_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    tl.store(out_ptr + offs, tl.umulhi(a, b))
    tl.store(out_ptr + BLOCK + offs, (a ^ b) & (a | 255))
    tl.store(out_ptr + 2 * BLOCK + offs, (a >> 3) + (b << 2))


# bfloat16 and float8 conversions, fp_downcast_rounding and bitcast
@triton.jit
def convert_kernel(x_ptr, out_ptr, bits_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, x.to(tl.bfloat16).to(tl.float32))
    tl.store(out_ptr + BLOCK + offs, x.to(tl.float16, fp_downcast_rounding="rtz").to(tl.float32))
    tl.store(out_ptr + 2 * BLOCK + offs, x.to(tl.float8e5).to(tl.float32))
    tl.store(out_ptr + 3 * BLOCK + offs, x.to(tl.float8e4nv).to(tl.float32))
    tl.store(bits_ptr + offs, x.to(tl.int32, bitcast=True))
    tl.store(bits_ptr + BLOCK + offs, tl.cast(x, tl.int32, bitcast=True) >> 16)


# floats to integers: toward zero and saturated, NaN → 0, as PTX's cvt.rzi (Triton's interpreter: numpy's)
@triton.jit
def float_to_int_kernel(x_ptr, i32_ptr, u32_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(i32_ptr + offs, x.to(tl.int32))
    tl.store(u32_ptr + offs, tl.cast(x, tl.uint32))


# CS336 assignment-2 style: a row-block sum with block pointers, advanced along the columns
@triton.jit
def block_ptr_rowsum_kernel(x_ptr, out_ptr, M, N, stride_m, stride_n, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    x_block_ptr = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(stride_m, stride_n), offsets=(pid * BM, 0),
                                    block_shape=(BM, BN), order=(1, 0))
    out_block_ptr = tl.make_block_ptr(out_ptr, shape=(M,), strides=(1,), offsets=(pid * BM,), block_shape=(BM,),
                                      order=(0,))
    acc = tl.zeros((BM,), dtype=tl.float32)
    for _ in range(tl.cdiv(N, BN)):
        x = tl.load(x_block_ptr, boundary_check=(0, 1), padding_option="zero")
        acc += tl.sum(x, axis=1)
        x_block_ptr = x_block_ptr.advance((0, BN))
    tl.store(out_block_ptr, acc, boundary_check=(0,))


# Tiled matmul with block pointers and tl.advance
@triton.jit
def block_ptr_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_bp = tl.make_block_ptr(a_ptr, (M, K), (K, 1), (pid_m * BM, 0), (BM, BK), (1, 0))
    b_bp = tl.make_block_ptr(b_ptr, (K, N), (N, 1), (0, pid_n * BN), (BK, BN), (1, 0))
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        a = tl.load(a_bp, boundary_check=(0, 1))
        b = tl.load(b_bp, boundary_check=(0, 1))
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_bp = tl.advance(a_bp, (0, BK))
        b_bp = tl.advance(b_bp, (BK, 0))
    c_bp = tl.make_block_ptr(c_ptr, (M, N), (N, 1), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0))
    tl.store(c_bp, acc, boundary_check=(0, 1))


# Tensor descriptors (Triton 3.9): scale a matrix tile by tile
@triton.jit
def descriptor_scale_kernel(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    y_desc = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    t = x_desc.load([pid_m * BM, pid_n * BN])
    y_desc.store([pid_m * BM, pid_n * BN], t * 3.0 + 1.0)
    u = tl.load_tensor_descriptor(x_desc, [pid_m * BM, pid_n * BN])
    tl.store_tensor_descriptor(x_desc, [pid_m * BM, pid_n * BN], u - 1.0)


# Grouped program ordering with tl.swizzle2d
@triton.jit
def swizzle_kernel(out_ptr, GM: tl.constexpr, GN: tl.constexpr, G: tl.constexpr):
    i = tl.program_id(0)
    j = tl.program_id(1)
    ni, nj = tl.swizzle2d(i, j, GM, GN, G)
    tl.store(out_ptr + (i * GN + j) * 2, ni)
    tl.store(out_ptr + (i * GN + j) * 2 + 1, nj)


# Tutorial 06 style: attention forward on host-side tensor descriptors (TensorDescriptor arguments)
@triton.jit
def attention_descriptor_kernel(desc_q, desc_k, desc_v, desc_o, N, sm_scale, HEAD_DIM: tl.constexpr,
                                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0) * BLOCK_M
    q = desc_q.load([start_m, 0])
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    for start_n in tl.range(0, N, BLOCK_N):
        k = desc_k.load([start_n, 0])
        v = desc_v.load([start_n, 0])
        qk = tl.dot(q, k.T, input_precision="ieee") * sm_scale
        cols = start_n + tl.arange(0, BLOCK_N)
        qk = tl.where(cols[None, :] < N, qk, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp(qk - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p, v, input_precision="ieee")
        m_i = m_new
    desc_o.store([start_m, 0], acc / l_i[:, None])


# CS336 assignment 2: weighted sum, forward and backward, on block pointers (as the handout writes them)
@triton.jit
def weighted_sum_fwd(x_ptr, weight_ptr, output_ptr, x_stride_row, x_stride_dim, weight_stride_dim,
                     output_stride_row, ROWS, D, ROWS_TILE_SIZE: tl.constexpr, D_TILE_SIZE: tl.constexpr):
    row_tile_idx = tl.program_id(0)
    x_block_ptr = tl.make_block_ptr(x_ptr, shape=(ROWS, D,), strides=(x_stride_row, x_stride_dim),
                                    offsets=(row_tile_idx * ROWS_TILE_SIZE, 0),
                                    block_shape=(ROWS_TILE_SIZE, D_TILE_SIZE), order=(1, 0),)
    weight_block_ptr = tl.make_block_ptr(weight_ptr, shape=(D,), strides=(weight_stride_dim,), offsets=(0,),
                                         block_shape=(D_TILE_SIZE,), order=(0,),)
    output_block_ptr = tl.make_block_ptr(output_ptr, shape=(ROWS,), strides=(output_stride_row,),
                                         offsets=(row_tile_idx * ROWS_TILE_SIZE,), block_shape=(ROWS_TILE_SIZE,),
                                         order=(0,),)
    output = tl.zeros((ROWS_TILE_SIZE,), dtype=tl.float32)
    for _i in range(tl.cdiv(D, D_TILE_SIZE)):
        row = tl.load(x_block_ptr, boundary_check=(0, 1), padding_option="zero")
        weight = tl.load(weight_block_ptr, boundary_check=(0,), padding_option="zero")
        output += tl.sum(row * weight[None, :], axis=1)
        x_block_ptr = x_block_ptr.advance((0, D_TILE_SIZE))
        weight_block_ptr = weight_block_ptr.advance((D_TILE_SIZE,))
    tl.store(output_block_ptr, output, boundary_check=(0,))


@triton.jit
def weighted_sum_backward(x_ptr, weight_ptr, grad_output_ptr, grad_x_ptr, partial_grad_weight_ptr, stride_xr,
                          stride_xd, stride_wd, stride_gr, stride_gxr, stride_gxd, stride_gwb, stride_gwd, NUM_ROWS,
                          D, ROWS_TILE_SIZE: tl.constexpr, D_TILE_SIZE: tl.constexpr):
    row_tile_idx = tl.program_id(0)
    n_row_tiles = tl.num_programs(0)
    grad_output_block_ptr = tl.make_block_ptr(grad_output_ptr, shape=(NUM_ROWS,), strides=(stride_gr,),
                                              offsets=(row_tile_idx * ROWS_TILE_SIZE,), block_shape=(ROWS_TILE_SIZE,),
                                              order=(0,),)
    x_block_ptr = tl.make_block_ptr(x_ptr, shape=(NUM_ROWS, D,), strides=(stride_xr, stride_xd),
                                    offsets=(row_tile_idx * ROWS_TILE_SIZE, 0),
                                    block_shape=(ROWS_TILE_SIZE, D_TILE_SIZE), order=(1, 0),)
    weight_block_ptr = tl.make_block_ptr(weight_ptr, shape=(D,), strides=(stride_wd,), offsets=(0,),
                                         block_shape=(D_TILE_SIZE,), order=(0,),)
    grad_x_block_ptr = tl.make_block_ptr(grad_x_ptr, shape=(NUM_ROWS, D,), strides=(stride_gxr, stride_gxd),
                                         offsets=(row_tile_idx * ROWS_TILE_SIZE, 0),
                                         block_shape=(ROWS_TILE_SIZE, D_TILE_SIZE), order=(1, 0),)
    partial_grad_weight_block_ptr = tl.make_block_ptr(partial_grad_weight_ptr, shape=(n_row_tiles, D,),
                                                      strides=(stride_gwb, stride_gwd), offsets=(row_tile_idx, 0),
                                                      block_shape=(1, D_TILE_SIZE), order=(1, 0),)
    for _i in range(tl.cdiv(D, D_TILE_SIZE)):
        grad_output = tl.load(grad_output_block_ptr, boundary_check=(0,), padding_option="zero")
        weight = tl.load(weight_block_ptr, boundary_check=(0,), padding_option="zero")
        grad_x_row = grad_output[:, None] * weight[None, :]
        tl.store(grad_x_block_ptr, grad_x_row, boundary_check=(0, 1))
        row = tl.load(x_block_ptr, boundary_check=(0, 1), padding_option="zero")
        grad_weight_row = tl.sum(row * grad_output[:, None], axis=0, keep_dims=True)
        tl.store(partial_grad_weight_block_ptr, grad_weight_row, boundary_check=(1,))
        x_block_ptr = x_block_ptr.advance((0, D_TILE_SIZE))
        weight_block_ptr = weight_block_ptr.advance((D_TILE_SIZE,))
        partial_grad_weight_block_ptr = partial_grad_weight_block_ptr.advance((0, D_TILE_SIZE))
        grad_x_block_ptr = grad_x_block_ptr.advance((0, D_TILE_SIZE))
