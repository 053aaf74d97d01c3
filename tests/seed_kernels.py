"""The seed lecture scripts' kernels, exactly as written there, shared by the seed tests.

``06_triton_style.py``'s Triton-style kernels (``kernel(tl, ...)``) and ``01_naive_and_coalescing.py``'s
naive SGEMM without its bounds check. Loaded by the tests with importlib, like ``triton_kernels.py``.
"""

import numpy as np

from kernellab import cdiv, triton_launch


# -----------------------------------------------------------------------------
# The seed's kernels (06_triton_style.py), exactly as written there.
# -----------------------------------------------------------------------------
def matmul_kernel(tl, a, b, c, M, N, K, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, mask_k=True):
    pid = tl.program_id(0)
    num_pid_m, num_pid_n = cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N))
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + offs_k
        a_mask = (offs_m[:, None] < M) & ((kk[None, :] < K) if mask_k else True)
        b_mask = ((kk[:, None] < K) if mask_k else True) & (offs_n[None, :] < N)
        a_offs = np.clip(offs_m[:, None] * K + kk[None, :], 0, a.size - 1)    # 越界的下标夹住（只为了 numpy 不报错；mask 决定读不读）
        b_offs = np.clip(kk[:, None] * N + offs_n[None, :], 0, b.size - 1)
        A = tl.load(a, a_offs, mask=a_mask, other=0.0)
        B = tl.load(b, b_offs, mask=b_mask, other=0.0)
        acc = tl.dot(A, B, acc)
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(c, np.clip(offs_m[:, None] * N + offs_n[None, :], 0, c.size - 1), acc.astype(c.dtype), mask=c_mask)


def matmul(a, b, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, GROUP_M=8, mask_k=True):
    M, K = a.shape
    _, N = b.shape
    c = np.zeros((M, N), dtype=np.float32)
    grid = cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)
    cnt = triton_launch(matmul_kernel, grid, a, b, c, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                        GROUP_M=GROUP_M, mask_k=mask_k)
    return c, cnt


def _rowwise(tl, x, out, M, N, op, BLOCK):
    r = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    v = tl.load(x, r * N + np.minimum(cols, N - 1), mask=cols < N, other=-np.inf if op == "max" else 0.0)
    tl.store(out, np.array(r), np.max(v) if op == "max" else np.sum(v))


def _elementwise(tl, x, vec, out, M, N, op, BLOCK):
    r = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    offs = r * N + np.minimum(cols, N - 1)
    v = tl.load(x, offs, mask=cols < N)
    if op == "sub":
        y = v - tl.load(vec, np.array(r))
    elif op == "exp":
        y = np.exp(v)
    else:
        y = v / tl.load(vec, np.array(r))
    tl.store(out, offs, y, mask=cols < N)


def softmax_eager(x):
    M, N = x.shape
    B = 1 << (N - 1).bit_length()
    total = {"load_bytes": 0, "store_bytes": 0, "launches": 0}
    mx = np.zeros(M, np.float32)
    z = np.zeros_like(x)
    e = np.zeros_like(x)
    s = np.zeros(M, np.float32)
    y = np.zeros_like(x)
    for cnt in (triton_launch(_rowwise, M, x, mx, M, N, op="max", BLOCK=B),
                triton_launch(_elementwise, M, x, mx, z, M, N, op="sub", BLOCK=B),
                triton_launch(_elementwise, M, z, None, e, M, N, op="exp", BLOCK=B),
                triton_launch(_rowwise, M, e, s, M, N, op="sum", BLOCK=B),
                triton_launch(_elementwise, M, e, s, y, M, N, op="div", BLOCK=B)):
        total["load_bytes"] += cnt["load_bytes"]
        total["store_bytes"] += cnt["store_bytes"]
        total["launches"] += 1
    return y, total


def softmax_fused_kernel(tl, x, out, M, N, BLOCK):
    r = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    offs = r * N + np.minimum(cols, N - 1)
    v = tl.load(x, offs, mask=cols < N, other=-np.inf)
    v = v - np.max(v)
    num = np.exp(v)
    tl.store(out, offs, num / np.sum(num), mask=cols < N)



# -----------------------------------------------------------------------------
# 01_naive_and_coalescing.py, demo 4: the naive kernel without its bounds check.
# -----------------------------------------------------------------------------
def _naive_no_check(blk, A, B, C, M, N, K):
    """The seed's kernel verbatim: the naive kernel without its bounds check."""
    x = blk.bx * blk.bdx + blk.tx
    y = blk.by * blk.bdy + blk.ty
    acc = np.zeros(blk.n_threads, dtype=np.float32)
    for i in range(K):
        acc += blk.load(A, x * K + i) * blk.load(B, i * N + y)
    blk.store(C, x * N + y, acc)
