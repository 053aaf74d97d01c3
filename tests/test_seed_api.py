"""The seed lecture scripts' API, called the way the scripts call it, with the numbers their observations state.

The scripts (CS349E lecture 10, ``01_naive_and_coalescing.py`` and ``06_triton_style.py``) import
``kernel_lab``, ``simt_lab`` and ``console``; with their import lines changed to ``from kernellab
import …`` they run on kernellab. This test keeps their calls and claims in the repository.
"""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from kernellab import (
    A6000,
    KERNELS,
    PERF_A6000,
    PERF_H100,
    OutOfBoundsError,
    cdiv,
    dram_bytes_tiled,
    fmt_bytes,
    fmt_num,
    fmt_time,
    launch,
    per_fma,
    predict,
    print_header,
    print_observations,
    print_table,
    run_kernel,
    scale_counts,
    tile_order,
    triton_launch,
)
from kernellab.model import gemm_flops, gemm_intensity, gemm_min_bytes

_spec = importlib.util.spec_from_file_location("kl_seed_kernels", Path(__file__).with_name("seed_kernels.py"))
seed = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(seed)


@pytest.fixture(autouse=True)
def _terminal(monkeypatch):
    monkeypatch.setenv("KERNELLAB_DISPLAY", "text")


def test_console_api_as_the_scripts_call_it(capsys):
    print_header("演示 1：目标")
    print_table(["GPU", "显存带宽"], [[PERF_A6000.name, f"{PERF_A6000.dram_bw / 1e9:.0f} GB/s"]])
    print_observations(["第一条", "第二条"])
    out = capsys.readouterr().out
    assert "演示 1：目标" in out and "768 GB/s" in out and "  1. 第一条" in out and "  2. 第二条" in out
    assert (fmt_num(2 * 4096**3), fmt_bytes(3 * 4096 * 4096 * 4), fmt_time(2 * 4096**3 / PERF_A6000.peak_flops())) == (
        "137.4 G", "201.3 MB", "3.55 ms")


def test_observations_heading_takes_the_languages_colon(capsys, monkeypatch):
    # the newcomer's review: "Observations:" became 要点: with an ASCII colon
    monkeypatch.setenv("KERNELLAB_LANG", "zh_CN")
    print_observations(["第一条"])
    assert capsys.readouterr().out.splitlines()[1:] == ["要点：", "  1. 第一条"]
    monkeypatch.setenv("KERNELLAB_LANG", "en")
    print_observations(["one"])
    assert capsys.readouterr().out.splitlines()[1:] == ["Observations:", "  1. one"]


def test_lecture_01_demo1_roofline():
    n = 4096
    # "强度上限 683 FLOP/字节远高于临界强度（A6000 约 50）"; cuBLAS "只跑到峰值的六成左右"
    # by hand: 2n³ / (3n² · 4 B) = 2 · 4096 / 12 = 682.67 → 683, from the library's own formulas
    assert round(gemm_flops(n) / gemm_min_bytes(n)) == round(gemm_intensity(n)) == 683
    assert round(PERF_A6000.peak_flops() / PERF_A6000.dram_bw) == 50
    assert round(PERF_H100.peak_flops() / PERF_H100.dram_bw) == 20
    assert round(23249.6e9 / PERF_A6000.peak_flops(), 1) == 0.6


@pytest.fixture(scope="module")
def demo2_stats():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((128, 128)).astype(np.float32)
    B = rng.standard_normal((128, 128)).astype(np.float32)
    ref = A.astype(np.float64) @ B.astype(np.float64)
    stats = {}
    for spec in KERNELS[:2]:
        C, st = run_kernel(spec, A, B)
        assert np.abs(C - ref).max() < 1e-4
        stats[spec.name] = st
    return stats


def test_lecture_01_demo2_per_warp_step(demo2_stats):
    st1, st2 = (demo2_stats[s.name] for s in KERNELS[:2])
    w1, w2 = st1.fma / 32, st2.fma / 32
    # naive: 2 loads per warp step, A on 32 lines + B on 1 = 33 lines and 33 sectors; coalesced: 2 lines, 1 + 4 sectors
    assert (st1.gld_instr / w1, st1.gld_lines / w1, st1.gld_sectors / w1) == (2, 33, 33)
    assert (st2.gld_instr / w2, st2.gld_lines / w2, st2.gld_sectors / w2) == (2, 2, 5)
    assert st1.gld_lines / st2.gld_lines == 16.5
    # bytes through L1 per FMA: 33 → 5
    assert (st1.gld_sectors * 32 / st1.fma, st2.gld_sectors * 32 / st2.fma) == (33, 5)
    # the same loads, FMAs and stores ("两个内核做的乘加、读的数完全一样"); only the address arithmetic differs
    assert st1.warp_instr - st1.overhead_instr == st2.warp_instr - st2.overhead_instr > 0
    assert per_fma(st1)["warp_instr"] > per_fma(st2)["warp_instr"] > 0


def test_lecture_01_demo3_model(demo2_stats):
    p = {s.name: predict(s, scale_counts(demo2_stats[s.name], 4096), 4096, PERF_A6000, A6000) for s in KERNELS[:2]}
    naive, coalesced = (p[s.name] for s in KERNELS[:2])
    assert naive["bound"] == coalesced["bound"] == "L1"
    assert 280 < naive["gflops"] < 300 and KERNELS[0].boehm == 309  # "约 290 GFLOP/s，和实测的 309 很接近"
    assert round(coalesced["gflops"] / 1e3, 1) == 4.8  # "模型的上限跳到约 4.8 TFLOPS"
    assert round(KERNELS[1].boehm / coalesced["gflops"], 1) == 0.4  # "实测只有 2.0 TFLOPS（模型的四成）"
    assert all(k in naive for k in ("t_fma", "t_issue", "t_l1", "t_dram"))


def test_lecture_01_demo4_bounds():
    rng = np.random.default_rng(1)
    M, N, K = 100, 70, 50
    A = rng.standard_normal((M, K)).astype(np.float32)
    B = rng.standard_normal((K, N)).astype(np.float32)
    for spec in KERNELS[:2]:
        C, st = run_kernel(spec, A, B)
        assert np.abs(C - A @ B).max() < 1e-4 and 0 < st.simt_efficiency() < 1
    assert (cdiv(M, 32), cdiv(N, 32)) == (4, 3)
    with pytest.raises(IndexError) as e:
        launch(seed._naive_no_check, (cdiv(M, 32), cdiv(N, 32)), (32, 32), args=(A, B, np.zeros((M, N), np.float32), M, N, K))
    assert isinstance(e.value, OutOfBoundsError)
    # K step 0 reads A fine (rows < 100 … up to block x = 3: x = 96..127 → x·50 ≥ 5000 from x = 100) and
    # B[y] for y < 70; the first out-of-bounds load is A in block (3,0,0), thread (4,0,0): A[100·50] = A[5000]
    assert str(e.value) == "kernel _naive_no_check, block (3,0,0), thread (4,0,0): load A[5000] out of bounds (size 5000)"


def test_lecture_01_demo4_message_split_on_the_chinese_colon(monkeypatch):
    monkeypatch.setenv("KERNELLAB_LANG", "zh_CN")
    # the seed prints str(e).split("：")[0]: the place of the first out-of-bounds access, in Chinese
    M, N, K = 100, 70, 50
    rng = np.random.default_rng(1)
    A, B = rng.standard_normal((M, K)).astype(np.float32), rng.standard_normal((K, N)).astype(np.float32)
    with pytest.raises(IndexError) as e:
        launch(seed._naive_no_check, (cdiv(M, 32), cdiv(N, 32)), (32, 32), args=(A, B, np.zeros((M, N), np.float32), M, N, K))
    assert isinstance(e.value, OutOfBoundsError)
    assert str(e.value) == "内核 _naive_no_check，线程块 (3,0,0)，线程 (4,0,0)：load A[5000] 越界（大小 5000）"
    assert str(e.value).split("：")[0] == "内核 _naive_no_check，线程块 (3,0,0)，线程 (4,0,0)"


def test_lecture_06_demo1_bytes_shrink_with_block_size():
    rng = np.random.default_rng(0)
    M = N = K = 256  # the script uses 512³; the formula is the same and this keeps the test fast
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    ratios = []
    for bm, bn in ((16, 16), (32, 32), (64, 64), (128, 128), (128, 256)):
        c, cnt = seed.matmul(a, b, BLOCK_M=bm, BLOCK_N=bn)
        assert cnt["load_bytes"] == (M * K * (N // bn) + K * N * (M // bm)) * 4
        assert cnt["programs"] == (M // bm) * (N // bn) and cnt["dot_flops"] == 2 * M * N * K
        ratios.append(cnt["dot_flops"] / cnt["load_bytes"])
    # at 512³ the script's table runs "从 16×16 的 4 FLOP/字节到 128×256 的约 43". The ratio does not depend on n:
    # 2n³ / ((n³/BN + n³/BM) · 4 B) = 1 / (2 · (1/BN + 1/BM)): 16×16 → 1/(2 · 2/16) = 4; 128×256 → 256/6 = 42.7 → 43,
    # so the counts measured at 256³ give the script's 512³ numbers
    assert (round(ratios[0]), round(ratios[-1])) == (4, 43)
    assert ratios == sorted(ratios)


def test_lecture_06_demo2_launch_order_and_waves():
    blocks = {}
    for group in (None, 3):
        pm, pn = tile_order(9, 9, group)
        blocks[group] = len(np.unique(pm[:9])) * 9 + len(np.unique(pn[:9])) * 9
    assert blocks == {None: 90, 3: 54}
    rel = {(sms, bm, bn, g): dram_bytes_tiled(4096, bm, bn, 1, sms, elem=2, group=g)
           / dram_bytes_tiled(4096, bm, bn, 1, sms, elem=2, group=None)
           for sms in (108, 132) for bm, bn in ((128, 128), (128, 256)) for g in (4, 8, 16)}
    assert (round(100 * rel[108, 128, 128, 8]), round(100 * rel[132, 128, 128, 8])) == (69, 77)
    assert (round(100 * rel[108, 128, 256, 16]), round(100 * rel[132, 128, 256, 16])) == (87, 89)
    assert any(v > 1 for k, v in rel.items() if k[3] == 4)  # "GROUP_M 选得不好（4）反而比行主序还多"


def test_lecture_06_demo3_fusion_counts():
    M, N = 64, 100  # the script uses 4096 × 1024; the counts are the same formulas
    x = np.random.default_rng(2).standard_normal((M, N)).astype(np.float32)
    B = 1 << (N - 1).bit_length()
    y, total = seed.softmax_eager(x)
    read, written = total["load_bytes"] // 4, total["store_bytes"] // 4
    assert total["launches"] == 5
    assert (read, written) == (5 * M * N + 2 * M, 3 * M * N + 2 * M)  # the tutorial's 5MN + 2M and 3MN + 2M
    y2 = np.zeros_like(x)
    fused = triton_launch(seed.softmax_fused_kernel, M, x, y2, M, N, BLOCK=B)
    assert (fused["load_bytes"] // 4, fused["store_bytes"] // 4) == (M * N, M * N)
    ref = np.exp(x - x.max(1, keepdims=True))
    ref /= ref.sum(1, keepdims=True)
    assert np.abs(y - ref).max() < 1e-6 and np.abs(y2 - ref).max() < 1e-6


def test_lecture_06_demo4_mask_bug_shows_only_at_the_edges():
    rng = np.random.default_rng(3)
    for (M, N, K) in ((64, 64, 64), (128, 64, 96), (1, 1, 1), (17, 33, 65), (100, 70, 50), (64, 64, 40)):
        a = rng.standard_normal((M, K)).astype(np.float32)
        b = rng.standard_normal((K, N)).astype(np.float32)
        ref = a.astype(np.float64) @ b
        tol = 1e-5 * np.sqrt(K) * np.abs(a).max() * np.abs(b).max() * 4
        ok = [np.abs(seed.matmul(a, b, 32, 32, 32, mask_k=mk)[0] - ref).max() <= tol for mk in (True, False)]
        assert ok[0], (M, N, K)
        assert ok[1] == (K % 32 == 0), (M, N, K)  # "只有 K 不是 32 的倍数时才出错"
