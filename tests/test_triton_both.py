"""The same test bodies through both front ends: the seed's ``kernel(tl, …)`` and ``@triton.jit``."""

import importlib.util
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernellab import cdiv, triton_launch

_spec = importlib.util.spec_from_file_location("kl_triton_kernels_b", Path(__file__).with_name("triton_kernels.py"))
K = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(K)


# --- the seed's form of tutorials 01, 02, 03 ------------------------------------------------------
def seed_add_kernel(tl, x, y, out, n, BLOCK_SIZE):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    safe = np.minimum(offsets, n - 1)
    tl.store(out, safe, tl.load(x, safe, mask=mask) + tl.load(y, safe, mask=mask), mask=mask)


def seed_softmax_kernel(tl, out, x, n_cols, BLOCK_SIZE):
    r = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    offs = r * n_cols + np.minimum(cols, n_cols - 1)
    row = tl.load(x, offs, mask=cols < n_cols, other=-np.inf)
    num = np.exp(row - np.max(row))
    tl.store(out, offs, num / np.sum(num), mask=cols < n_cols)


def seed_matmul_kernel(tl, a, b, c, M, N, K, BM, BN, BK):
    pid = tl.program_id(0)
    pid_m, pid_n = pid // cdiv(N, BN), pid % cdiv(N, BN)
    rm = (pid_m * BM + tl.arange(0, BM)) % M
    rn = (pid_n * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN))
    for k in range(cdiv(K, BK)):
        kk = k * BK + rk
        A = tl.load(a, rm[:, None] * K + np.minimum(kk, K - 1)[None, :], mask=(kk < K)[None, :], other=0.0)
        B = tl.load(b, np.minimum(kk, K - 1)[:, None] * N + rn[None, :], mask=(kk < K)[:, None], other=0.0)
        acc = tl.dot(A, B, acc)
    cm, cn = pid_m * BM + tl.arange(0, BM), pid_n * BN + tl.arange(0, BN)
    mask = (cm[:, None] < M) & (cn[None, :] < N)
    tl.store(c, np.minimum(cm, M - 1)[:, None] * N + np.minimum(cn, N - 1)[None, :], acc.astype(c.dtype), mask=mask)


def add(front, x, y, block):
    n = x.size
    out = np.zeros_like(x)
    grid = cdiv(n, block)
    if front == "seed":
        return out, triton_launch(seed_add_kernel, grid, x, y, out, n, BLOCK_SIZE=block)
    return out, K.add_kernel[(grid,)](x, y, out, n, BLOCK_SIZE=block)


def softmax(front, x, block):
    M, N = x.shape
    out = np.zeros_like(x)
    if front == "seed":
        return out, triton_launch(seed_softmax_kernel, M, out, x, N, BLOCK_SIZE=block)
    return out, K.softmax_kernel[(M,)](out, x, N, N, N, BLOCK_SIZE=block)


def matmul(front, a, b, bm=32, bn=32, bk=32):
    M, Kd = a.shape
    N = b.shape[1]
    c = np.zeros((M, N), np.float16)
    grid = cdiv(M, bm) * cdiv(N, bn)
    if front == "seed":
        return c, triton_launch(seed_matmul_kernel, grid, a, b, c, M, N, Kd, BM=bm, BN=bn, BK=bk)
    return c, K.matmul_kernel[(grid,)](a, b, c, M, N, Kd, Kd, 1, N, 1, N, 1, BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn,
                                       BLOCK_SIZE_K=bk, GROUP_SIZE_M=1, ACTIVATION="")


FRONTS = ["seed", "jit"]


@pytest.mark.parametrize("front", FRONTS)
def test_vector_add_counts_by_hand(front):
    x = np.arange(100, dtype=np.float32)
    out, c = add(front, x, x, 64)
    np.testing.assert_array_equal(out, 2 * x)
    # 2 programs of 64 lanes; 100 active lanes per access = 400 B.
    # program 0: 2 warps × 4 sectors; program 1: lanes 64..99 → warp 0 full (4 sectors), warp 1 has 4 lanes (1 sector)
    assert (c["programs"], c["load_bytes"], c["store_bytes"]) == (2, 800, 400)
    assert (c.load_requests, c.load_sectors) == (2 * 4, 2 * (8 + 4 + 1))
    assert (c.store_requests, c.store_sectors) == (4, 13)


@pytest.mark.parametrize("front", FRONTS)
@pytest.mark.parametrize(("M", "N"), [(1, 1), (3, 31), (4, 32), (2, 33), (5, 127)])
def test_softmax_edge_shapes(front, M, N):
    x = np.random.default_rng(M * N).standard_normal((M, N)).astype(np.float32)
    block = 1 << (N - 1).bit_length()
    out, c = softmax(front, x, block)
    ref = np.exp(x - x.max(1, keepdims=True).astype(np.float64))
    np.testing.assert_allclose(out, ref / ref.sum(1, keepdims=True), rtol=1e-5, atol=1e-8)
    assert (c["load_bytes"], c["store_bytes"]) == (4 * M * N, 4 * M * N)
    # a row of N floats at byte 4·N·r: ceil(N/32) requests; its sectors sum per warp
    assert c.load_requests == M * cdiv(N, 32)


@pytest.mark.parametrize("front", FRONTS)
@pytest.mark.parametrize(("M", "N", "Kd"), [(1, 1, 1), (16, 16, 16), (31, 17, 47), (33, 64, 32)])
def test_matmul_edge_shapes(front, M, N, Kd):
    rng = np.random.default_rng(M + N + Kd)
    a = rng.standard_normal((M, Kd)).astype(np.float16)
    b = rng.standard_normal((Kd, N)).astype(np.float16)
    c, cnt = matmul(front, a, b)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    assert np.abs(c - ref).max() <= 1e-3 * max(1, np.abs(ref).max()) + 1e-6 * np.sqrt(Kd)
    tiles = cdiv(M, 32) * cdiv(N, 32)
    # rows wrap (% M), so every program loads a full 32-row A strip and 32-column B strip over the K valid
    assert cnt["load_bytes"] == tiles * (32 * Kd + Kd * 32) * 2
    assert cnt["dot_flops"] == tiles * cdiv(Kd, 32) * 2 * 32 * 32 * 32
    assert cnt["store_bytes"] == M * N * 2


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 3000), log_block=st.integers(0, 10), front=st.sampled_from(FRONTS))
def test_counting_laws_for_any_vector_add(n, log_block, front):
    x = np.ones(n, np.float32)
    _, c = add(front, x, x, 1 << log_block)
    assert c.load_bytes == 2 * 4 * n  # only active lanes move bytes
    assert c.load_sectors >= c.load_requests >= 2 * cdiv(n, 32)
    assert c.load_sectors <= c.load_bytes // 4  # at most one sector per active lane
    assert c.programs == cdiv(n, 1 << log_block)


@settings(max_examples=20, deadline=None)
@given(M=st.integers(1, 40), N=st.integers(1, 300))
def test_seed_and_jit_count_the_same_softmax(M, N):
    x = np.random.default_rng(M).standard_normal((M, N)).astype(np.float32)
    block = 1 << (N - 1).bit_length()
    o1, c1 = softmax("seed", x, block)
    o2, c2 = softmax("jit", x, block)
    np.testing.assert_allclose(o1, o2, rtol=1e-6, atol=1e-9)
    assert _memory(c1) == _memory(c2)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 5000), log_block=st.integers(5, 11), shift=st.integers(0, 9))
def test_seed_and_jit_count_the_same_shifted_copy(n, log_block, shift):
    """The jit path counts each pointer lineage once (and whole aligned warps by translation); the seed
    path counts every access lane by lane. They must agree, aligned (shift 0, 8) or not."""
    block = 1 << log_block
    x = np.arange(n + shift, dtype=np.float32)

    def seed_copy(tl, x, out, n, BLOCK):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        safe = np.minimum(offs, n - 1)
        tl.store(out, safe, tl.load(x, safe + shift, mask=offs < n), mask=offs < n)

    out1, out2 = np.zeros(n, np.float32), np.zeros(n, np.float32)
    c1 = triton_launch(seed_copy, cdiv(n, block), x, out1, n, BLOCK=block)
    c2 = K.shifted_copy_kernel[(cdiv(n, block),)](x, out2, n, shift, BLOCK=block)
    np.testing.assert_array_equal(out1, out2)
    assert _memory(c1) == _memory(c2)


def _memory(c):
    """What both front ends count alike: the lecture form computes on numpy arrays, so only its tl.dot
    FLOPs are counted, and its kernels name their arrays differently (DRAM sectors compared by value)."""
    return replace(c, flops=c.dot_flops, dram_sectors=sorted(c.dram_sectors.values()))


@pytest.mark.parametrize(("n", "block", "shift"), [(4096, 1024, 0), (4096, 1024, 1), (4096, 1024, 8),
                                                   (2048, 32, 3), (64, 64, 16)])
def test_unmasked_lineage_counts_match_lane_by_lane(n, block, shift):
    # n a multiple of the block: the mask is all true, so the jit path takes the per-lineage shortcut
    x = np.arange(n + shift, dtype=np.float32)
    out = np.zeros(n, np.float32)
    c = K.shifted_copy_kernel[(n // block,)](x, out, n, shift, BLOCK=block)
    np.testing.assert_array_equal(out, x[shift:])
    # a warp reads 128 B from byte 4·shift: 4 sectors when 4·shift % 32 == 0, else 5; n/32 warps
    assert c.load_requests == n // 32 and c.load_sectors == n // 32 * (4 if 4 * shift % 32 == 0 else 5)
    assert c.store_requests == n // 32 and c.store_sectors == n // 32 * 4
