"""The roofline: peak FLOP/s, DRAM bandwidth, the ridge point, and the FLOP/s attainable at an intensity.

A kernel that does ``I`` FLOP per byte it moves to or from DRAM can run no faster than
``min(peak, I × bandwidth)``; the ridge ``peak / bandwidth`` is the intensity where the two meet.
"""

from __future__ import annotations

from kernellab.i18n import _

from ..specs import GPU, PEAKS, Perf, as_perf

__all__ = ["PEAKS", "attainable_flops", "fraction_of_peak", "gemm_flops", "gemm_intensity", "gemm_min_bytes",
           "peak_flops", "ridge"]


def peak_flops(perf: Perf | GPU, peak: str = "fp32") -> float:
    """Peak FLOP/s of one GPU.

    ``"fp32"``: 2 FLOP per FMA × FMAs per SM per cycle × SMs × clock (Hz) — ``Perf.peak_flops``.
    ``"fp16_tensor"``: the dense FP16/BF16 Tensor Core peak of the spec sheet (``GPU.fp16_tensor_peak``).

    Examples
    --------
    >>> from kernellab.specs import PERF_A6000
    >>> f"{peak_flops(PERF_A6000) / 1e12:.1f}", f"{peak_flops(PERF_A6000, 'fp16_tensor') / 1e12:.1f}"
    ('38.7', '154.8')
    """
    return as_perf(perf).peak_flops(peak)


def ridge(perf: Perf | GPU, peak: str = "fp32") -> float:
    """Ridge point, FLOP/byte: peak FLOP/s ÷ DRAM bandwidth (bytes/s).

    A6000, FP32: 84 SMs × 128 FMA × 2 FLOP × 1.8e9 Hz = 38.7e12 FLOP/s; ÷ 768e9 B/s = 50.4 FLOP/B.

    Examples
    --------
    >>> from kernellab.specs import PERF_A6000
    >>> round(ridge(PERF_A6000), 1), round(ridge(PERF_A6000, "fp16_tensor"), 1)
    (50.4, 201.6)
    """
    return as_perf(perf).ridge(peak)


def attainable_flops(intensity: float, perf: Perf | GPU, peak: str = "fp32") -> float:
    """FLOP/s attainable at an arithmetic intensity (FLOP/byte): ``min(peak, intensity × bandwidth)``.

    Below the ridge the kernel is bound by DRAM bandwidth, above it by the peak.

    Examples
    --------
    >>> from kernellab.specs import PERF_A6000
    >>> attainable_flops(10, PERF_A6000) / 1e9      # 10 FLOP/B × 768 GB/s
    7680.0
    >>> attainable_flops(1000, PERF_A6000) == PERF_A6000.peak_flops()
    True
    """
    if intensity < 0:
        raise ValueError(_("intensity must be ≥ 0 FLOP/byte, got {intensity}").format(intensity=intensity))
    perf = as_perf(perf)
    return min(peak_flops(perf, peak), intensity * perf.dram_bw)


def gemm_flops(m: int, n: int | None = None, k: int | None = None) -> int:
    """FLOPs of an M×N×K matrix product, counting an FMA as 2: ``2·M·N·K`` (square if only ``m`` given).

    Examples
    --------
    >>> gemm_flops(4096) == 2 * 4096**3, gemm_flops(2, 3, 4)
    (True, 48)
    """
    n = m if n is None else n
    k = m if k is None else k
    return 2 * m * n * k


def gemm_min_bytes(m: int, n: int | None = None, k: int | None = None, elem: int = 4) -> int:
    """The fewest DRAM bytes an M×N×K product can move: read A (M·K) and B (K·N), write C (M·N), × ``elem`` B.

    Square 4096, FP32: 3 × 4096² × 4 B = 201,326,592 B.

    Examples
    --------
    >>> gemm_min_bytes(4096)
    201326592
    """
    n = m if n is None else n
    k = m if k is None else k
    return (m * k + k * n + m * n) * elem


def gemm_intensity(m: int, n: int | None = None, k: int | None = None, elem: int = 4) -> float:
    """The highest arithmetic intensity an M×N×K product can have, FLOP/byte: FLOPs ÷ fewest bytes.

    Square n: 2n³ / (3n² · elem) = 2n / (3 · elem); 4096, FP32: 8192 / 12 ≈ 683 FLOP/B.

    Examples
    --------
    >>> round(gemm_intensity(4096))
    683
    """
    return gemm_flops(m, n, k) / gemm_min_bytes(m, n, k, elem)


def fraction_of_peak(flops_per_s: float, perf: Perf | GPU, peak: str = "fp32") -> float:
    """A measured or predicted FLOP/s as a fraction of the peak (0–1).

    Boehm's cuBLAS on the A6000: 23249.6 GFLOP/s ÷ 38.7 TFLOP/s ≈ 0.60.

    Examples
    --------
    >>> from kernellab.specs import PERF_A6000
    >>> f"{fraction_of_peak(23249.6e9, PERF_A6000):.0%}"
    '60%'
    """
    return flops_per_s / peak_flops(perf, peak)

