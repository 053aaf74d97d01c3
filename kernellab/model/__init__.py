"""The performance model: what a kernel's counts say about its speed on a given GPU.

Layout, in the order a prediction is made:

* ``roofline`` — peaks, bandwidth, ridge point, attainable FLOP/s at an intensity;
* ``kernel`` — ``roofline(counts, gpu)`` (``kernellab.roofline``): a kernel's point on it, from its counts;
* ``residency`` — ``occupancy``: resident blocks per SM and its limiter; ``waves`` of a grid;
* ``persm`` — ``distribute``: a launch's programs over the SMs, the busiest SM's share, its sub-partitions;
* ``bounds`` — ``predict``: each resource's time on the busiest SM, the binding one, GFLOP/s;
* ``estimate`` — the estimate's terms: fitted efficiencies, sustained DRAM, L2, latency, what sets it;
* ``loaded`` — a DRAM round trip under the launch's own load: the measured queueing delay, the fixed point;
* ``locks`` — the chain of a spin lock's critical sections, one after another;
* ``timer`` — what a timer reads besides the run (``do_bench``, CUDA graphs, ...) and whether L2 is cold;
* ``l2waves`` — launch order (``tile_order``) and the DRAM bytes of a tiled GEMM under the wave model;
* ``latency`` — ``LoopShape``: a launch's tiles and K loop; wave-model DRAM bytes; exposed latency.

The comparison with Boehm's measurements is ``kernellab.sgemm.study``: it joins simulator and model,
which do not import each other.
"""

from .bounds import (
    RESOURCES,
    SCHEDULER_FED,
    estimate_eta,
    estimate_label,
    predict,
    resource_events,
    resource_label,
)
from .kernel import RooflinePoint  # roofline(counts, gpu) is kernellab.roofline: here the name is the module
from .l2waves import dram_bytes_lru, dram_bytes_tiled, tile_order, wave_footprints
from .latency import LoopShape, dram_bytes_waves, exposed_latency, latency_units
from .persm import Distribution, distribute
from .residency import Occupancy, Waves, occupancy, waves
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
from .timer import TIMERS, launch_overhead

__all__ = [
    "PEAKS", "RESOURCES", "RooflinePoint", "SCHEDULER_FED", "TIMERS", "Distribution", "LoopShape", "Occupancy", "Waves",
    "attainable_flops", "distribute", "dram_bytes_tiled", "dram_bytes_lru",
    "dram_bytes_waves", "estimate_eta", "estimate_label", "exposed_latency", "launch_overhead", "fraction_of_peak", "gemm_flops", "gemm_intensity",
    "gemm_min_bytes", "latency_units", "occupancy", "peak_flops", "predict", "resource_events", "resource_label",
    "ridge", "tile_order", "wave_footprints", "waves",
]
