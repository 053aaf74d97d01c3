"""The seed's front end: the lecture script's kernels, copied as written, and the numbers it prints."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from kernellab import OutOfBoundsError, cdiv, triton_launch

_spec = importlib.util.spec_from_file_location("kl_seed_kernels", Path(__file__).with_name("seed_kernels.py"))
seed = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(seed)
matmul, matmul_kernel, softmax_eager, softmax_fused_kernel = seed.matmul, seed.matmul_kernel, seed.softmax_eager, seed.softmax_fused_kernel
_rowwise, _elementwise = seed._rowwise, seed._elementwise


# -----------------------------------------------------------------------------
def _softmax_ref(x):
    z = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    return z / z.sum(1, keepdims=True)


@pytest.mark.parametrize(("bm", "bn"), [(16, 16), (32, 32), (64, 64), (128, 128), (128, 256)])
def test_demo1_bytes_formula_at_512(bm, bn):
    M = N = K = 512
    rng = np.random.default_rng(0)
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    c, cnt = matmul(a, b, BLOCK_M=bm, BLOCK_N=bn)
    # every program reads a BM×K strip of A and a K×BN strip of B: (M/BM)(N/BN)(BM·K + K·BN)·4 B
    assert cnt["load_bytes"] == (M * K * (N // bn) + K * N * (M // bm)) * 4
    assert cnt["programs"] == (M // bm) * (N // bn)
    assert cnt["dot_flops"] == 2 * M * N * K  # full tiles: 2·BM·BN·BK per dot, summed
    assert cnt["store_bytes"] == M * N * 4
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, atol=1e-5 * np.sqrt(K) * 40)


@pytest.mark.parametrize(("M", "N", "K"), [(1, 1, 1), (17, 33, 65), (100, 70, 50), (64, 64, 40), (1, 1000, 64),
                                           (31, 33, 32), (129, 65, 33), (2, 3, 97)])
def test_matmul_edge_shapes_and_the_mask_k_bug(M, N, K):
    rng = np.random.default_rng(M * N + K)
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    ref = a.astype(np.float64) @ b
    tol = 1e-5 * np.sqrt(K) * np.abs(a).max() * np.abs(b).max() * 4  # grows with K, as the seed's demo 4
    c, cnt = matmul(a, b, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
    assert np.abs(c - ref).max() <= tol
    # masked-off lanes count nothing: each program reads its valid rows/cols of A and B, K-tile by K-tile
    pm, pn = cdiv(M, 32), cdiv(N, 32)
    assert cnt["load_bytes"] == (M * K * pn + K * N * pm) * 4
    bad, _ = matmul(a, b, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32, mask_k=False)
    # without the K mask, the last K tile reads past the row: wrong exactly when K is not a multiple of 32
    assert (np.abs(bad - ref).max() > tol) == (K % 32 != 0)


def test_demo3_eager_softmax_counts():
    M, N = 64, 100  # N not a power of two: BLOCK 128, 28 lanes masked off per row
    x = np.random.default_rng(2).standard_normal((M, N)).astype(np.float32)
    y, total = softmax_eager(x)
    np.testing.assert_allclose(y, _softmax_ref(x), rtol=1e-5, atol=1e-7)
    # max reads MN writes M; sub reads MN+M writes MN; exp MN/MN; sum MN/M; div MN+M/MN  (4 B each)
    assert total["load_bytes"] == (5 * M * N + 2 * M) * 4
    assert total["store_bytes"] == (3 * M * N + 2 * M) * 4


def test_demo3_fused_softmax_counts_at_lecture_size():
    M, N = 4096, 1024
    x = np.random.default_rng(2).standard_normal((M, N)).astype(np.float32)
    y = np.zeros_like(x)
    c = triton_launch(softmax_fused_kernel, M, x, y, M, N, BLOCK=1 << (N - 1).bit_length())
    np.testing.assert_allclose(y, _softmax_ref(x), rtol=1e-5, atol=1e-7)
    assert (c["load_bytes"], c["store_bytes"]) == (M * N * 4, M * N * 4)
    # 1024 floats per row = 32 warps of 32 lanes, each 128 B = 4 sectors
    assert c["load_requests"] == M * 32 and c["load_sectors"] == M * 32 * 4
    assert c.requests == 2 * M * 32 and c.sectors == 2 * M * 128


def test_per_program_counts_sum_to_the_launch():
    M, N = 5, 40  # BLOCK 64: 40 lanes active = 2 warps (32 + 8 lanes), 160 B = 5 sectors per row
    x = np.random.default_rng(1).standard_normal((M, N)).astype(np.float32)
    y = np.zeros_like(x)
    c = triton_launch(softmax_fused_kernel, M, x, y, M, N, BLOCK=64, per_program=True)
    assert set(c.per_program) == {(r, 0, 0) for r in range(M)}
    one = c.per_program[(3, 0, 0)]
    assert (one.programs, one.load_bytes, one.load_requests, one.load_sectors) == (1, 160, 2, 5)
    assert sum(p.load_sectors for p in c.per_program.values()) == c.load_sectors == 5 * M


def test_scalar_loads_count_one_lane_each():
    M, N = 3, 32
    x = np.ones((M, N), np.float32)
    s = np.arange(M, dtype=np.float32)
    out = np.zeros_like(x)
    c = triton_launch(_elementwise, M, x, s, out, M, N, op="div", BLOCK=32)
    # per row: a 32-float load (1 request, 4 sectors) and a 1-float load (1 request, 1 sector)
    assert (c.load_requests, c.load_sectors, c.load_bytes) == (2 * M, 5 * M, (N + 1) * 4 * M)
    assert c.loads == 2 * M and c.stores == M


def test_fp16_loads_stay_fp16_and_dot_accumulates_fp32():
    seen = {}

    def k(tl, a, b, c):
        A = tl.load(a, tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
        B = tl.load(b, tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
        seen["dtype"] = A.dtype
        acc = tl.dot(A, B, tl.zeros((16, 16)))
        seen["acc"] = acc.dtype
        tl.store(c, tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :], acc)

    a = np.full((16, 16), 0.1, np.float16)
    c = np.zeros((16, 16), np.float32)
    cnt = triton_launch(k, 1, a, a, c)
    assert seen == {"dtype": np.float16, "acc": np.float32}
    # 16 products of fp16(0.1)², each exact in fp32, summed in fp32
    assert c[0, 0] == np.float32(16 * np.float32(np.float16(0.1)) ** 2)
    assert cnt["dot_flops"] == 2 * 16 * 16 * 16 and cnt["load_bytes"] == 2 * 256 * 2


def test_unmasked_out_of_bounds_names_kernel_program_array_offset_and_size():
    def k(tl, x, out, n, BLOCK):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out, offs, tl.load(x, offs))  # no mask

    x = np.zeros(100, np.float32)
    with pytest.raises(OutOfBoundsError, match=r"kernel k, program \(3,0,0\): load x\[100\] out of bounds \(size 100\); lane 4"):
        triton_launch(k, 4, x, np.zeros(100, np.float32), 100, BLOCK=32)  # program 3 covers 96..127
    with pytest.raises(IndexError):  # OutOfBoundsError is an IndexError
        triton_launch(k, 4, x, np.zeros(100, np.float32), 100, BLOCK=32)


def test_store_out_of_bounds_and_masked_lanes_touch_nothing():
    def k(tl, x, out, n, BLOCK):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out, offs, tl.load(x, offs, mask=offs < n, other=7.0))

    x = np.arange(10, dtype=np.float32)
    out = np.zeros(16, np.float32)
    triton_launch(k, 2, x, out, 10, BLOCK=8)
    assert out.tolist() == list(range(10)) + [7.0] * 6
    with pytest.raises(OutOfBoundsError, match=r"program \(1,0,0\): store out\[12\] out of bounds \(size 12\)"):
        triton_launch(k, 2, x, np.zeros(12, np.float32), 10, BLOCK=8)


def test_none_array_and_bad_arange_are_errors():
    def k(tl, x):
        tl.load(x, tl.arange(0, 4))

    with pytest.raises(TypeError, match="got None"):
        triton_launch(k, 1, None)

    def k2(tl, x):
        tl.load(x, tl.arange(0, 12))

    with pytest.raises(ValueError, match="power of 2"):
        triton_launch(k2, 1, np.zeros(12, np.float32))
