"""The performance model: what a kernel's counts say about its speed on a given GPU.

Layout, in the order a prediction is made:

* ``roofline`` — peaks, bandwidth, ridge point, attainable FLOP/s at an intensity;
* ``occupancy`` — resident blocks per SM and its limiter; the waves of a grid;
* ``bounds`` — ``predict``: each SM resource's time from the counts, the binding one, GFLOP/s;
* ``l2waves`` — launch order (``tile_order``) and the DRAM bytes of a tiled GEMM under the wave model;
* ``compare`` — the model beside Boehm's measurements, kernel by kernel.
"""

from .bounds import RESOURCES, predict, resource_events, resource_label
from .compare import compare_kernels
from .l2waves import dram_bytes_tiled, tile_order, wave_footprints
from .occupancy import Occupancy, Waves, occupancy, waves
from .roofline import (
    PEAKS,
    attainable_flops,
    fraction_of_peak,
    gemm_flops,
    gemm_intensity,
    gemm_min_bytes,
    peak_flops,
    ridge,
)

__all__ = [
    "PEAKS", "RESOURCES", "Occupancy", "Waves", "attainable_flops", "compare_kernels", "dram_bytes_tiled", "fraction_of_peak",
    "gemm_flops", "gemm_intensity", "gemm_min_bytes", "occupancy", "peak_flops", "predict", "resource_events", "resource_label",
    "ridge", "tile_order", "wave_footprints", "waves",
]
