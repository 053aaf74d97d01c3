"""The same test bodies through both front ends: the seed's ``kernel(tl, …)`` and ``@triton.jit``."""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernellab import cdiv, triton_launch
from tests.reference import fresh_module

K = fresh_module(Path(__file__).with_name("triton_kernels.py"), "kl_triton_kernels_b")


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
    if front == "seed":  # the lecture form: the block row-major in warps of 32 lanes, one element a lane
        assert (c.load_requests, c.load_sectors) == (2 * 4, 2 * (8 + 4 + 1))
    else:  # as compiled (compiled_counts.json, copy_small): 64 elements, 4 warps of 32 threads, one element
        # a thread: warps 2 and 3 hold copies of warps 0 and 1's elements and load them again, so every
        # count of a load doubles; a store masks the copies off
        assert (c.load_requests, c.load_sectors, c.load_instructions) == (2 * 8, 2 * 2 * (8 + 4 + 1), 2 * 8)
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
    if front == "seed":  # a row of N floats at byte 4·N·r: ceil(N/32) requests; its sectors sum per warp
        assert c.load_requests == M * cdiv(N, 32)
    else:  # blocks of at most 128 elements over 4 warps: one element a thread, one instruction a warp, and
        # every warp has an active lane (warps past the block's end hold copies of its first elements)
        assert c.load_requests == c.load_instructions == M * 4


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
    assert c.load_sectors >= c.load_requests
    copies = max(1, 128 // (1 << log_block)) if front == "jit" else 1  # warps holding copies of a small block
    assert c.load_requests >= 2 * cdiv(n, 32 * (4 if front == "jit" else 1))  # a jit lane moves ≤ 4 floats
    assert c.load_sectors <= copies * c.load_bytes // 4  # at most one sector per active lane (and copy)
    assert c.load_instructions >= c.load_requests and c.store_instructions >= c.store_requests
    assert c.programs == cdiv(n, 1 << log_block)


@settings(max_examples=20, deadline=None)
@given(M=st.integers(1, 40), N=st.integers(1, 300))
def test_seed_and_jit_count_the_same_softmax(M, N):
    """The two forms move the same bytes and DRAM sectors; the jit form's closed-form counts equal its
    lanes' addresses counted one by one (``Policy.reference()``)."""
    x = np.random.default_rng(M).standard_normal((M, N)).astype(np.float32)
    block = 1 << (N - 1).bit_length()
    o1, c1 = softmax("seed", x, block)
    o2, c2 = softmax("jit", x, block)
    np.testing.assert_allclose(o1, o2, rtol=1e-6, atol=1e-9)
    assert _bytes(c1) == _bytes(c2)
    assert c2 == _by_lanes(lambda: softmax("jit", x, block)[1])


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
    assert _bytes(c1) == _bytes(c2)
    assert c2 == _by_lanes(lambda: K.shifted_copy_kernel[(cdiv(n, block),)](x, out2, n, shift, BLOCK=block))


def _memory(c):
    """What both front ends count alike: the lecture form computes on numpy arrays, so only its tl.dot
    FLOPs are counted, and its kernels name their arrays differently (DRAM sectors compared by value)."""
    return replace(c, flops=c.dot_flops, dram_sectors=sorted(c.dram_sectors.values()))


def _bytes(c):
    """What the two forms count alike whatever their rule for warps: bytes, DRAM sectors, accesses."""
    return (c.programs, c.loads, c.stores, c.load_bytes, c.store_bytes, sorted(c.dram_sectors.values()), c.dot_flops)


def _by_lanes(launch):
    """The counts of ``launch()`` under the reference policy: every lane's address under its layout built
    and counted through kernellab.access."""
    from kernellab.triton.executor.policy import Policy, using

    with using(Policy.reference()):
        return launch()


@pytest.mark.parametrize(("n", "block", "shift"), [(4096, 1024, 0), (4096, 1024, 1), (4096, 1024, 8),
                                                   (2048, 32, 3), (64, 64, 16)])
def test_unmasked_lineage_counts_match_lane_by_lane(n, block, shift):
    # n a multiple of the block: the mask is all true, so the jit path takes the per-lineage shortcut
    x = np.arange(n + shift, dtype=np.float32)
    out = np.zeros(n, np.float32)
    c = K.shifted_copy_kernel[(n // block,)](x, out, n, shift, BLOCK=block)
    np.testing.assert_array_equal(out, x[shift:])
    # as compiled (compiled_counts.json: shifted_copy, stride2, copy_small), 4 warps:
    expected = {
        # shift 0 (divisible by 16): 4 floats a lane, one ld.v4 reads 512 B (16 sectors); n/128 of them
        (4096, 1024, 0): (32, 512, 32, 512),
        # shift 1 (the constant 1) or 8: x_ptr + shift is 4-byte aligned, one float an instruction, but the
        # layout the contiguous store asks for gives each thread 4 consecutive floats: instruction k reads
        # float 4l + k + shift in lane l, 16 B apart, 32 lanes over 512 B. shift 1: bytes 16l + 4k + 4, sectors
        # l // 2 (k < 3: 16) or (l + 1) // 2 (k = 3: 17), 65 per 4 instructions; shift 8: 16 each, 64
        (4096, 1024, 1): (128, 4096 // 128 * 65, 32, 512),
        (4096, 1024, 8): (128, 4096 // 128 * 64, 32, 512),
        # blocks of 32 over 4 warps: every warp loads the block (5 sectors from byte 12), warp 0 alone stores
        (2048, 32, 3): (64 * 4, 64 * 4 * 5, 64, 64 * 4),
        # a block of 64 from byte 64: warps 0, 1 and their copies 2, 3 each read 128 B in 4 sectors
        (64, 64, 16): (4, 16, 2, 8),
    }[n, block, shift]
    assert (c.load_requests, c.load_sectors, c.store_requests, c.store_sectors) == expected
    assert c == _by_lanes(lambda: K.shifted_copy_kernel[(n // block,)](x, out, n, shift, BLOCK=block))
