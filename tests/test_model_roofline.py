"""Roofline: peaks, ridge points and attainable FLOP/s (seed 002, demo 1)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kernellab.model import (
    attainable_flops,
    fraction_of_peak,
    gemm_flops,
    gemm_intensity,
    gemm_min_bytes,
    peak_flops,
    ridge,
)
from kernellab.specs import PERF_A100, PERF_A6000, PERF_H100, PERF_H200

CUBLAS_A6000 = 23249.6e9  # Boehm's cuBLAS, FLOP/s (facts.md §1.1)


def test_a6000_fp32_peak_by_hand():
    # 84 SMs × 128 FMA/cycle × 2 FLOP × 1.8e9 Hz = 38,707.2 GFLOP/s
    assert peak_flops(PERF_A6000) == pytest.approx(84 * 128 * 2 * 1.8e9, rel=1e-15)


def test_seed002_a6000_ridge_is_about_50():
    # 38.7072e12 FLOP/s ÷ 768e9 B/s = 50.4 FLOP/B; the seed prints it with :.0f
    assert ridge(PERF_A6000) == pytest.approx(38.7072e12 / 768e9)
    assert f"{ridge(PERF_A6000):.0f}" == "50"


def test_seed002_cublas_is_60_percent_of_fp32_peak():
    # 23249.6 / 38707.2 = 0.6006
    assert fraction_of_peak(CUBLAS_A6000, PERF_A6000) == pytest.approx(0.6006, abs=1e-4)
    assert f"{CUBLAS_A6000 / PERF_A6000.peak_flops():.0%}" == "60%"


def test_h100_and_tensor_ridges_by_hand():
    # H100: 132 × 128 × 2 × 1.98e9 = 66.9e12 FLOP/s ÷ 3.35e12 B/s = 19.97 FLOP/B
    assert ridge(PERF_H100) == pytest.approx(132 * 128 * 2 * 1.98e9 / 3.35e12)
    # A100: 108 × 64 × 2 × 1.41e9 = 19.49e12 FLOP/s ÷ 2039e9 B/s = 9.56 FLOP/B
    assert ridge(PERF_A100) == pytest.approx(19.49184e12 / 2039e9)
    # A6000 tensor: 154.8e12 ÷ 768e9 = 201.5625 FLOP/B
    assert ridge(PERF_A6000, "fp16_tensor") == pytest.approx(201.5625)
    # H200: same FLOP/s as H100, more bandwidth, lower ridge
    assert ridge(PERF_H200) < ridge(PERF_H100)


def test_seed002_gemm_4096_is_compute_bound():
    n = 4096
    assert gemm_flops(n) == 137_438_953_472  # 2 × 4096³
    assert gemm_min_bytes(n) == 201_326_592  # 3 × 4096² × 4 B
    # 2·4096 / (3·4) = 682.7 FLOP/B, far above the ridge of 50
    assert gemm_intensity(n) == pytest.approx(8192 / 12)
    assert gemm_intensity(n) > 10 * ridge(PERF_A6000)
    # time at peak 137.4e9 / 38.7e12 = 3.55 ms; moving the data once 201.3e6 / 768e9 = 0.262 ms
    assert gemm_flops(n) / peak_flops(PERF_A6000) == pytest.approx(3.5507e-3, rel=1e-4)
    assert gemm_min_bytes(n) / PERF_A6000.dram_bw == pytest.approx(2.6215e-4, rel=1e-4)


def test_non_square_gemm_by_hand():
    # M=2, N=3, K=4: 2·2·3·4 = 48 FLOP; (2·4 + 4·3 + 2·3) × 2 B = 52 B
    assert gemm_flops(2, 3, 4) == 48
    assert gemm_min_bytes(2, 3, 4, elem=2) == 52
    assert gemm_intensity(2, 3, 4, elem=2) == pytest.approx(48 / 52)


def test_attainable_below_at_and_above_the_ridge():
    # 10 FLOP/B × 768 GB/s = 7.68 TFLOP/s (memory-bound)
    assert attainable_flops(10, PERF_A6000) == pytest.approx(7.68e12)
    assert attainable_flops(ridge(PERF_A6000), PERF_A6000) == pytest.approx(PERF_A6000.peak_flops())
    assert attainable_flops(683, PERF_A6000) == PERF_A6000.peak_flops()
    assert attainable_flops(683, PERF_A6000, "fp16_tensor") == 154.8e12


def test_bad_peak_and_negative_intensity_raise():
    with pytest.raises(ValueError, match="unknown peak"):
        peak_flops(PERF_A6000, "fp64")
    with pytest.raises(ValueError, match="intensity"):
        attainable_flops(-1, PERF_A6000)


@given(st.floats(0, 1e4), st.floats(0, 1e4))
def test_attainable_is_monotone_and_capped(i, j):
    lo, hi = sorted((i, j))
    assert attainable_flops(lo, PERF_H100) <= attainable_flops(hi, PERF_H100) <= PERF_H100.peak_flops()


def test_a_kernel_exactly_at_the_ridge_is_compute_bound():
    # A6000: 38.7072e12 FLOP/s ÷ 768e9 B/s = 50.4 FLOP/B. 8064 FMAs = 16128 FLOPs over 10 sectors = 320 B:
    # 16128 ÷ 320 = 50.4, the ridge itself (the same quotient, rounded once). Both times are equal there;
    # RooflinePoint.bound is "DRAM" below the ridge and "compute" at or above it. One FMA less is below.
    from kernellab import roofline
    from kernellab.counters import Counts
    from kernellab.specs import A6000

    at = roofline(Counts(fma=8064, dram_sectors={"x": 10}), A6000)
    assert (at.flops, at.bytes) == (16128, 320) and at.intensity == at.ridge
    assert at.bound == "compute"
    assert roofline(Counts(fma=8063, dram_sectors={"x": 10}), A6000).bound == "DRAM"
