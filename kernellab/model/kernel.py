"""A kernel's point on a GPU's roofline, from the counts of either engine: ``kernellab.roofline(counts, gpu)``."""

from __future__ import annotations

from dataclasses import dataclass

from kernellab.i18n import _

from ..specs import GPU, Perf, as_perf
from .roofline import attainable_flops, peak_flops, ridge

__all__ = ["RooflinePoint", "roofline"]


@dataclass(frozen=True)
class RooflinePoint:
    """Where a kernel's counts sit on a GPU's roofline (see :func:`~kernellab.roofline`); every field in SI units."""

    gpu: str  # the GPU's name
    flops: int  # the kernel's FLOPs (``counts.flops``)
    bytes: int  # the bytes charged to DRAM: compulsory (``counts.dram_bytes``) or requested (``counts.bytes``)
    intensity: float  # FLOP per byte, flops ÷ bytes (inf with no bytes)
    ridge: float  # the GPU's ridge point, FLOP per byte
    attainable_flops: float  # min(peak, intensity × bandwidth), FLOP/s
    time: float  # flops ÷ attainable FLOP/s = max(flops ÷ peak, bytes ÷ bandwidth), seconds
    bound: str  # "DRAM" below the ridge, "compute" at or above it


def roofline(counts, gpu: Perf | GPU, peak: str = "fp32", traffic: str = "dram") -> RooflinePoint:
    """A kernel's roofline point on one GPU, from the counts of either engine.

    ``traffic="dram"`` charges the compulsory DRAM bytes (each distinct sector once: a perfect cache);
    ``"requested"`` charges every byte the kernel asks for (no cache at all). The truth lies between.
    The time is a lower bound: ``max(flops ÷ peak, bytes ÷ bandwidth)``; :func:`~kernellab.predict`
    charges the SM's other resources too.

    Examples
    --------
    A kernel of 1 MFLOP that touches 4 MB on the H100: 0.25 FLOP/B, far below the ridge (66.9 TFLOP/s ÷
    3.35 TB/s = 20 FLOP/B),
    so DRAM-bound: 4e6 B ÷ 3.35e12 B/s = 1.19 µs.

    >>> from kernellab.counters import Counts
    >>> from kernellab.specs import H100
    >>> r = roofline(Counts(fma=500_000, dram_sectors={"x": 125_000}), H100)
    >>> r.intensity, round(r.ridge), r.bound, f"{r.time * 1e6:.2f} µs"
    (0.25, 20, 'DRAM', '1.19 µs')
    """
    perf = as_perf(gpu)
    if traffic not in ("dram", "requested"):
        raise ValueError(_("traffic must be 'dram' or 'requested', not {traffic!r}").format(traffic=traffic))
    for name in ("flops", "dram_bytes", "bytes"):
        if not hasattr(counts, name):
            raise TypeError(_("roofline needs the counts of a launch (kernellab.Counts or "
                              "TritonCounts), got a {type}").format(
                type=type(counts).__name__))
    flops = int(counts.flops)
    nbytes = int(counts.dram_bytes if traffic == "dram" else counts.bytes)
    intensity = flops / nbytes if nbytes else float("inf")
    top = peak_flops(perf, peak)
    attainable = attainable_flops(intensity, perf, peak) if nbytes else top
    time = max(flops / top, nbytes / perf.dram_bw)
    return RooflinePoint(perf.name, flops, nbytes, intensity, ridge(perf, peak), attainable, time,
                    "DRAM" if intensity < ridge(perf, peak) else "compute")
