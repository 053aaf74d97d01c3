"""``triton.testing`` for mini-Triton: ``do_bench``, ``do_bench_cudagraph``, ``perf_report``, ``Benchmark``,
``Mark`` and ``assert_close``, with Triton's signatures.

What a benchmark measures here (by default, the GPU time the performance model predicts for the kernellab
launches the benchmarked function makes) is :mod:`kernellab.triton.timing`'s; ``perf_report``,
``Benchmark`` and ``Mark`` are :mod:`kernellab.triton.benchmark`'s.
"""

from __future__ import annotations

import numpy as np

from .benchmark import Benchmark, Mark, perf_report
from .runtime.driver import gpu as modelled_gpu
from .runtime.jit import _unsupported as _no_gpu
from .timing import (  # noqa: F401  (still importable from here, documented in timing)
    MEASURES,
    NOT_PREDICTED,
    NotPredicted,
    current_measure,
    do_bench,
    do_bench_cudagraph,
    measure_label,
    predict_ms,
    set_measure,
)


def assert_close(x, y, atol=None, rtol=None, err_msg=""):
    """``numpy.testing.assert_allclose`` with Triton's defaults (atol 1e-2, rtol 0)."""
    def host(v):
        if type(v).__module__.startswith("torch"):
            v = v.detach().cpu().float().numpy() if hasattr(v, "detach") else v
        return np.asarray(v)

    np.testing.assert_allclose(host(x), host(y), atol=1e-2 if atol is None else atol,
                               rtol=0 if rtol is None else rtol, err_msg=err_msg)


def get_dram_gbps(device=None) -> float:
    """The modelled GPU's DRAM bandwidth in GB/s (``kernellab.specs``; Triton derives it from the memory clock).

    >>> get_dram_gbps()      # the H100 SXM's 3.35 TB/s
    3350.0
    """
    return modelled_gpu().dram_bw / 1e9


def get_max_tensorcore_tflops(dtype=None, clock_rate=None, device=None) -> float:
    """The modelled GPU's dense FP16 Tensor Core peak in TFLOP/s (``GPU.fp16_tensor_peak``), whatever ``dtype``.

    >>> get_max_tensorcore_tflops()
    989.4
    """
    return modelled_gpu().fp16_tensor_peak / 1e12


def get_max_simd_tflops(dtype=None, clock_rate=None, device=None) -> float:
    """The modelled GPU's FP32 peak on the CUDA cores in TFLOP/s (at ``clock_rate`` kHz, default the rated boost).

    >>> round(get_max_simd_tflops(), 1)      # 2 FLOP × 128 lanes × 132 SMs × 1.98 GHz
    66.9
    """
    return modelled_gpu().peak_flops("fp32", None if clock_rate is None else clock_rate * 1e3) / 1e12


nvsmi = _no_gpu("triton.testing.nvsmi", "it queries nvidia-smi, and kernellab has no GPU")
set_gpu_clock = _no_gpu("triton.testing.set_gpu_clock", "it locks a real GPU's clocks; the model's clock band is "
                                                         "kernellab.specs.GPU.clock_band")
cuda_memcheck = _no_gpu("triton.testing.cuda_memcheck", "kernellab checks every access itself (OutOfBoundsError)")
cublas = _no_gpu("triton.testing.cublas", "it opens a cuBLAS handle on a GPU")
cuda_graph_without_gc = _no_gpu("triton.testing.cuda_graph_without_gc", "it captures a CUDA graph on a GPU")
do_bench_proton = do_bench
do_bench_cudagraph_proton = do_bench_cudagraph

__all__ = ["Benchmark", "Mark", "NotPredicted", "assert_close", "cublas", "cuda_graph_without_gc", "cuda_memcheck", "current_measure",
           "do_bench", "do_bench_cudagraph", "do_bench_cudagraph_proton", "do_bench_proton", "get_dram_gbps",
           "get_max_simd_tflops", "get_max_tensorcore_tflops", "measure_label", "nvsmi", "perf_report", "predict_ms",
           "set_gpu_clock", "set_measure"]
