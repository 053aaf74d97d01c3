"""GPU specifications and the throughput rates the performance model charges, as frozen dataclasses.

Every field carries its unit and its source (the project's facts sheet, ``reference/facts.md`` §2,
cites each one: CUDA Programming Guide tables [CCtab], spec databases, NVIDIA staff on the forums;
the fidelity audit, ``reference/fidelity.md`` §4–5, the clocks, the MIO rate and the fitted η).

Source keys used below: [SYS-A6000] sysrqmts.com A6000 spec page; [LLMPERF] llmperf.net A6000 page
(citing PNY/NVIDIA); [SB] jax-ml/scaling-book ``gpus.md``; [GK-A100]/[GK-H100] glennklockwood.com; [STH-A6000]
https://servethehome.com/nvidia-rtx-a6000-48gb-gpu-drops-quadro-designation (48 GB GDDR6);
[CCtab]/[CCarch] CUDA Programming Guide, compute-capability tables and architecture sections;
[NVF-203772] https://forums.developer.nvidia.com/t/sm-clock-on-rtx-a6000-never-reaches-max-frequency/203772
(nvidia-smi "Max Clocks SM 2100 MHz"; reached 1935 MHz under load); [CNC-H100]
https://chipsandcheese.com/2023/07/02/nvidias-h100-funny-l2-and-tons-of-bandwidth/ (A100 SXM "went to
1410 MHz under load and stays there"); [NVF-273699] https://forums.developer.nvidia.com/t/how-does-the-lsu-load-store-unit-execute-load-store-instructions-in-the-ampere-architecture/273699/8
(MIO: "1 IPC per SM").

Atomics and launches (``Perf.atomic_same_address_per_cycle``, ``Perf.launch_s``): [GK110] NVIDIA's Kepler
GK110 whitepaper (2012), "atomic operation throughput to a common global memory address is improved by 9x
to one operation per clock"; [NSVSE] NVIDIA Nsight Visual Studio Edition, "Memory Statistics - Atomics"
(https://docs.nvidia.com/gameworks/content/developertools/desktop/analysis/report/cudaexperiments/kernellevel/memorystatisticsatomics.htm):
updates of one location by several threads of a warp "are all serialized", and since CC 3.x "many atomics
can be performed … nearly as quickly as memory loads"; [TB-1017] https://github.com/meta-pytorch/tritonbench/pull/1017
(a raw ``cuLaunchKernel`` of an empty kernel costs 3.0 µs, measured on a GB200 host); [HTA] Meta's
Holistic Trace Analysis, "CUDA kernel launch stats" (``facebookresearch/HolisticTraceAnalysis``): "the
launch time on the CPU side is between 5-20 microseconds" through a framework.

The per-SM model's rates and latencies (``Perf.xu_per_sm_cycle`` and the fields after it): [PG] CUDA C++
Programming Guide, "Arithmetic Instructions" throughput table (CC 8.0, 8.6, 9.0: 16 results per clock per SM
for 32-bit reciprocal, reciprocal square root, log2, exp2, sine and cosine); [RRZE] Dominik Ernst's GPU
microbenchmarks, ``RRZE-HPC/gpu-benches@1038c5d`` (NHR@FAU; the data of "Analytical performance estimation
during code generation on modern GPUs", JPDC 2022): ``gpu-latency`` (one warp chasing pointers, cycles at the
plateau of each level: A100 80GB L2 205, DRAM 552; GH200, the H100 die with HBM3, L2 280, DRAM 688; A40, the
A6000's GA102 with GDDR6, L2 250, DRAM 556), ``gpu-stream`` (the ``scale`` kernel, one load and one store
stream, at full occupancy: A100 80GB 1737 GB/s of 2039, GH200 3174 of 4000, A40 654 of 696),
``gpu-l2-cache`` (L2-resident reads: A100 80GB 5.4 TB/s, H200 9.9 TB/s), ``gpu-l2-stream`` (its ``write`` kernel, one
coalesced 8-byte store a thread, full occupancy, at the plateau of 2–12 MB working sets: A100 80GB 2.42 TB/s, GH200
4.5 TB/s; its ``scale`` kernel, a load and a store, 3.9 and 6.8 TB/s) and ``gpu-small-kernels`` (10 000
back-to-back launches of a 4096-element ``scale`` kernel, 64 KiB each: A100 80GB 25 GB/s = 2.6 µs a launch,
1.34 µs as a CUDA graph; H200 27 GB/s = 2.4 µs, 1.26 µs as a graph; A40 32 GB/s = 2.0 µs, 1.09 µs);
[CCCL-2086] ``NVIDIA/cccl`` pull request 2086, BabelStream ``mul`` on an H200 with nvbench (2^28 int8
elements in 134.8 µs: 3.98 TB/s, 0.83 of 4.8; 2^16 elements cold in 4.28 µs); [CCCL-7019] ``NVIDIA/cccl``
pull request 7019, nvbench on an A100-SXM4-80GB: BabelStream ``add`` of 2^16 int8 elements cold in 8.09 µs
(the pull request whose ``mul`` table validation rows EW-03 and EW-04 quote; the ``add`` row at 2^16 is
none of them); [ACCEL-SIM] ``accel-sim/accel-sim-framework`` tested-cfgs
``SM80_A100`` (correlated against an A100: shared-memory latency 28 cycles, special-function initiation
interval 8 cycles a warp); [CUDNN-650]/[CUDNN-715] ``NVIDIA/cudnn-frontend`` pull requests 650 and 715
(dense Tensor Core FLOPs per clock per SM: 4096 on sm_90 at 1.83 GHz, FP8 twice that; 2048 on the A100 at
1.41 GHz); [FA3] Shah et al., FlashAttention-3 (arXiv 2407.08608) §2.2: on Hopper the older ``mma.sync``
reaches about 2/3 of the Tensor Cores' peak, ``wgmma`` the whole.
"""

from __future__ import annotations

from dataclasses import dataclass

from kernellab.errors import UnknownGPUError
from kernellab.i18n import _


@dataclass(frozen=True)
class GPU:
    """What a GPU is: the hardware limits a launch and an occupancy calculation need.

    Examples
    --------
    >>> A6000.sms, A6000.max_threads_per_sm
    (84, 1536)
    >>> A6000.base_clock_hz, A6000.clock_hz, A6000.max_clock_hz
    (1410000000.0, 1800000000.0, 1935000000.0)
    """

    name: str
    sms: int  # streaming multiprocessors [SYS-A6000, GK-A100, GK-H100, SB]
    fp32_cores_per_sm: int  # FP32 lanes per SM, one FMA each per cycle [CCarch]
    clock_hz: float  # rated boost clock, Hz [SYS-A6000, SB]: the clock the model's single numbers use
    base_clock_hz: float  # base clock, Hz [SYS-A6000, LLMPERF, SB]: the bottom of the clock band
    max_clock_hz: float  # the highest SM clock the card is reported to reach under load, Hz: top of the band
    sm_type: str  # the SM's chip, "GA102", "GA100" or "GH100": the fitted η belongs to it
    dram_bw: float  # DRAM bandwidth, bytes/s [SYS-A6000, GK-A100, CS336-26, SB]
    fp16_tensor_peak: float  # dense FP16/BF16 Tensor Core peak, FLOP/s [LLMPERF, GK-A100, GK-H100, SB]
    l2_bytes: int  # L2 cache, bytes [SYS-A6000, SB]
    dram_capacity: int  # DRAM as the card is sold, bytes (GiB) [STH-A6000, GK-A100, GK-H100, SB]
    max_smem_per_sm: int  # largest shared-memory carve-out per SM, bytes [CCtab]
    max_smem_per_block: int  # shared memory one block may use (1 KB below the SM's), bytes [CCtab]
    regs_per_sm: int = 65536  # 32-bit registers per SM [CCtab]
    max_regs_per_thread: int = 255  # registers [CCtab]
    max_threads_per_sm: int = 2048  # resident threads per SM [CCtab]
    max_blocks_per_sm: int = 32  # resident blocks per SM [CCtab]
    max_threads_per_block: int = 1024  # threads per block, every CC [CCtab]
    warp_schedulers_per_sm: int = 4  # each issues one warp instruction per cycle [CCarch]
    warp_size: int = 32  # lanes per warp [CCtab]
    reg_alloc_unit: int = 256  # registers per warp are allocated in units of 256 [Best Practices §11.1.1]
    smem_reserved_per_block: int = 1024  # shared memory the CUDA runtime reserves per block, bytes [CCtab]
    fp8_tensor_peak: float | None = None  # dense FP8 Tensor Core peak, FLOP/s (2× FP16 on sm_90 [CUDNN-650]);
    #                                       None: no FP8 Tensor Cores (Triton converts fp8 operands to fp16 there)

    @property
    def arch(self) -> str:
        """The SM's compile target, ``"sm_90"`` for GH100, ``"sm_86"`` for GA102, ``"sm_80"`` for GA100."""
        return {"GH100": "sm_90", "GA102": "sm_86"}.get(self.sm_type, "sm_80")

    @property
    def max_warps_per_sm(self) -> int:
        """Resident warps per SM, threads per SM / 32 (48 on CC 8.6, 64 on 8.0 and 9.0)."""
        return self.max_threads_per_sm // self.warp_size

    @property
    def clock_band(self) -> tuple[float, float]:
        """The clock band the model predicts over, in Hz, as ``(base_clock_hz, max_clock_hz)``."""
        return (self.base_clock_hz, self.max_clock_hz)

    @property
    def perf(self) -> Perf:
        """The rates the performance model charges on this GPU (``H100.perf is PERF_H100``)."""
        return as_perf(self)

    def peak_flops(self, peak: str = "fp32", clock_hz: float | None = None) -> float:
        """Peak FLOP/s, as :meth:`Perf.peak_flops` (``H100.peak_flops() == PERF_H100.peak_flops()``)."""
        return as_perf(self).peak_flops(peak, clock_hz)

    def ridge(self, peak: str = "fp32") -> float:
        """Ridge point of the roofline, FLOP/byte, as :meth:`Perf.ridge`."""
        return as_perf(self).ridge(peak)


#: NVIDIA RTX A6000 (Ampere, GA102), the GPU of Boehm's SGEMM measurements.
A6000 = GPU(
    name="RTX A6000", sms=84, fp32_cores_per_sm=128, clock_hz=1.80e9, sm_type="GA102", dram_bw=768e9,
    base_clock_hz=1.41e9,  # [SYS-A6000, LLMPERF]; Boehm's 30 TFLOP/s = 84·256·1.41 GHz (fidelity.md §4.2)
    max_clock_hz=1.935e9,  # reached under load, nvidia-smi max 2100 MHz [NVF-203772]
    fp16_tensor_peak=154.8e12, l2_bytes=6 * 2**20, dram_capacity=48 * 2**30, max_smem_per_sm=100 * 1024,
    max_smem_per_block=99 * 1024, max_threads_per_sm=1536, max_blocks_per_sm=16,
)
#: NVIDIA A100 SXM 80 GB (Ampere, GA100).
A100 = GPU(
    name="A100 SXM 80GB", sms=108, fp32_cores_per_sm=64, clock_hz=1.41e9, sm_type="GA100", dram_bw=2039e9,
    base_clock_hz=1.10e9,  # [SB "1.10GHz/1.41GHz"]
    max_clock_hz=1.41e9,  # "went to 1410 MHz under load and stays there" [CNC-H100]
    fp16_tensor_peak=312e12, l2_bytes=40 * 2**20, dram_capacity=80 * 2**30, max_smem_per_sm=164 * 1024,
    max_smem_per_block=163 * 1024,
)
#: NVIDIA A100 PCIe 80 GB (Ampere, GA100), the SXM part's SMs, clocks and L2 at 300 W with 1935 GB/s of HBM2e
#: [THUNDER-A100] (thundercompute.com "NVIDIA A100 Specifications", quoting NVIDIA's A100 datasheet).
A100_PCIE = GPU(
    name="A100 PCIe 80GB", sms=108, fp32_cores_per_sm=64, clock_hz=1.41e9, sm_type="GA100", dram_bw=1935e9,
    base_clock_hz=1.10e9, max_clock_hz=1.41e9,  # the SXM part's clocks: the same GA100 and boost [THUNDER-A100]
    fp16_tensor_peak=312e12, l2_bytes=40 * 2**20, dram_capacity=80 * 2**30, max_smem_per_sm=164 * 1024,
    max_smem_per_block=163 * 1024,
)
#: NVIDIA H100 SXM (Hopper, GH100).
H100 = GPU(
    name="H100 SXM", sms=132, fp32_cores_per_sm=128, clock_hz=1.98e9, sm_type="GH100", dram_bw=3.35e12,
    base_clock_hz=1.59e9,  # [SB "1.59GHz/1.98GHz"]
    max_clock_hz=1.98e9,  # the maximum boost [SB, GK-H100]
    fp16_tensor_peak=989.4e12, l2_bytes=50 * 2**20, dram_capacity=80 * 2**30, max_smem_per_sm=228 * 1024,
    max_smem_per_block=227 * 1024, fp8_tensor_peak=1978.9e12,
)
#: NVIDIA H200 SXM (Hopper, GH100 with HBM3e), H100's compute with more DRAM bandwidth.
H200 = GPU(
    name="H200 SXM", sms=132, fp32_cores_per_sm=128, clock_hz=1.98e9, sm_type="GH100", dram_bw=4.8e12,
    base_clock_hz=1.59e9, max_clock_hz=1.98e9,  # the H100's clocks, same die [SB]
    fp16_tensor_peak=989.4e12, l2_bytes=50 * 2**20, dram_capacity=141 * 2**30, max_smem_per_sm=228 * 1024,
    max_smem_per_block=227 * 1024, fp8_tensor_peak=1978.9e12,
)
#: Every GPU above, in the order tables list them.
GPUS = (A6000, A100, H100, H200, A100_PCIE)


#: The peaks a roofline can be drawn against — FP32 on the CUDA cores, dense FP16 on the Tensor Cores.
PEAKS = ("fp32", "fp16_tensor")


@dataclass(frozen=True)
class Perf:
    """The rates the performance model charges on one GPU: per SM per cycle, plus two model constants.

    Each rate is a resource; a kernel's time on it is its count divided by the rate × SMs × clock.
    ``eta`` is **fitted**, not a hardware rate (see ``kernellab.sgemm.study.fit_eta``); ``latency_s`` is
    **calibrated**: chosen within the range kernel 3's three measurements allow (the performance model
    page, "The calibrated estimate"; ``kernellab.sgemm.sensitivity.latency_window`` computes the range). This class is the one home of the FP32 peak and the ridge point
    (``GPU.peak_flops`` and ``GPU.ridge`` ask it); :func:`as_perf` gives the ``Perf`` of a ``GPU``.

    Examples
    --------
    >>> PERF_A6000.name, f"{PERF_A6000.peak_flops() / 1e12:.1f} TFLOP/s", f"{PERF_A6000.ridge():.0f} FLOP/B"
    ('RTX A6000', '38.7 TFLOP/s', '50 FLOP/B')
    >>> PERF_A6000.fp32_is_issue_peak, PERF_A100.fp32_is_issue_peak
    (True, False)
    """

    gpu: GPU
    fma_per_sm_cycle: int  # FP32 FMAs per SM per cycle: one per FP32 core [CCarch]
    eta: float  # FITTED scheduling efficiency of the SM type: share of its pipe rates a tiled kernel reaches
    issue_per_sm_cycle: int = 4  # warp instructions per SM per cycle: 4 schedulers × 1 [CCarch]
    mio_per_sm_cycle: int = 1  # load/store (LSU) warp instructions the MIO queue issues per SM per cycle [NVF-273699]
    l1_lines_per_sm_cycle: int = 1  # 128-byte lines (tag lookups) L1 processes per SM per cycle: MEASURED, not
    #                                 published: k1 runs at 0.98–1.05 of it on three GPUs (fidelity.md §3); NVIDIA's
    #                                 128 B/cycle [NVIDIA forum 77228] is L1's data bandwidth, which does not bind k1
    smem_wavefronts_per_sm_cycle: int = 1  # shared-memory wavefronts per SM per cycle: 32 banks × 4 B [CCtab]
    latency_s: float = 175e-9  # CALIBRATED round trip of a K step's global loads, s: between L2 hit (>100 ns) and
    #                            DRAM latency [Chips and Cheese, fidelity.md §5], and inside the 130–205 ns that keep
    #                            k3 in band on all three GPUs (sgemm.sensitivity.latency_window); only loops that
    #                            cannot hide it pay it
    atomic_same_address_per_cycle: float = 1.0  # atomic updates of ONE address the L2 completes per cycle: they
    #   serialise there, one per clock [GK110, NVIDIA, Kepler; ASSUMED unchanged since, and at the SM clock].
    #   Updates of distinct addresses are charged as their lines at L1, "nearly as quickly as memory loads" [NSVSE]
    launch_s: float = 3.0e-6  # seconds one kernel launch costs the HOST: the driver's cuLaunchKernel, 3.0 µs
    #   measured for an empty kernel [TB-1017]; a framework adds more (5–20 µs [HTA]). A GPU timer sees it only
    #   when the GPU waits for the launch (timer="host"); see kernellab.model.timer
    xu_per_sm_cycle: int = 16  # special-function (MUFU) results per SM per cycle [PG], 4 per sub-partition: a warp's
    #                            MUFU holds its sub-partition's XU for 8 cycles [ACCEL-SIM initiation interval]
    mma_sync_share: float = 1.0  # share of the dense Tensor Core peak mma.sync reaches: 2/3 on sm_90 [FA3], 1 before
    dram_efficiency: float = 1.0  # MEASURED share of the spec sheet's DRAM bandwidth a streaming kernel sustains [RRZE]
    l2_bw: float | None = None  # L2 bandwidth for L2-resident reads, bytes/s [RRZE]; None: not measured, no L2 term
    l2_write_bw: float | None = None  # MEASURED L2 bandwidth for stores to L2-resident data, bytes/s: the plateau of
    #   a kernel that only stores [RRZE gpu-l2-stream]; None: stores at l2_bw
    dram_latency_cycles: float = 0.0  # MEASURED: one warp's dependent load from DRAM, cycles [RRZE gpu-latency]
    l2_latency_cycles: float = 0.0  # MEASURED: the same hitting L2 [RRZE gpu-latency]
    shared_latency_cycles: float = 28.0  # a dependent shared-memory load, cycles [ACCEL-SIM]
    launch_stream_s: float = 0.0  # MEASURED GPU time of a launch of a tiny kernel back to back in a stream [RRZE]
    launch_graph_s: float = 0.0  # MEASURED the same, its launches replayed as a CUDA graph [RRZE]
    launch_cold_s: float = 0.0  # MEASURED GPU time of one launch of a tiny kernel timed with CUDA events after an L2
    #                             flush (nvbench's cold measurement of a 2^16-element transform [CCCL-2086, CCCL-7019])
    eta_mma: float = 1.0  # efficiency of mma.sync Tensor Core kernels: 1, not fitted (no row measures a large mma.sync GEMM)
    eta_wgmma: float = 1.0  # FITTED efficiency of wgmma Tensor Core kernels (ETA_WGMMA; 1: not fitted)

    @property
    def name(self) -> str:
        """The GPU's name."""
        return self.gpu.name

    @property
    def dram_bw(self) -> float:
        """DRAM bandwidth, bytes/s."""
        return self.gpu.dram_bw

    @property
    def tensor_flops(self) -> float:
        """Dense FP16/BF16 Tensor Core FLOP/s, the whole device (``GPU.fp16_tensor_peak``)."""
        return self.gpu.fp16_tensor_peak

    @property
    def sms(self) -> int:
        """Streaming multiprocessors."""
        return self.gpu.sms

    @property
    def clock_hz(self) -> float:
        """Rated boost clock, Hz."""
        return self.gpu.clock_hz

    @property
    def fp32_is_issue_peak(self) -> bool:
        """True when the FP32 peak needs an FFMA issued by every scheduler on every cycle.

        128 FP32 lanes per SM are 4 warp FFMAs per cycle, the SM's whole issue rate (GA102, GH100): any
        other instruction then costs an FFMA slot. The A100's 64 lanes leave issue half free.
        """
        return self.fma_per_sm_cycle >= self.issue_per_sm_cycle * self.gpu.warp_size

    def peak_flops(self, peak: str = "fp32", clock_hz: float | None = None) -> float:
        """Peak FLOP/s: FP32 = 2 FLOP × FMAs per SM per cycle × SMs × clock; or the dense FP16 Tensor Core peak.

        ``clock_hz`` (FP32 only) defaults to the rated boost clock.
        """
        if peak == "fp16_tensor":
            return self.gpu.fp16_tensor_peak
        if peak != "fp32":
            raise ValueError(_("unknown peak {peak!r}; choose one of {PEAKS}").format(peak=peak, PEAKS=PEAKS))
        return 2 * self.fma_per_sm_cycle * self.gpu.sms * (self.gpu.clock_hz if clock_hz is None else clock_hz)

    def ridge(self, peak: str = "fp32") -> float:
        """Ridge point of the roofline, FLOP/byte: peak FLOP/s over DRAM bytes/s."""
        return self.peak_flops(peak) / self.gpu.dram_bw


#: Fitted η of each SM type, the geometric mean of measured ÷ bound over Boehm's k4–k10 at the rated boost
#: clock, on the A6000 for the 128-lane SMs (GA102, and GH100 out of sample) and on the A100 for GA100.
#: ``tests/test_model_fidelity.py`` recomputes the fit and checks these two numbers.
ETA = {"GA102": 0.66, "GH100": 0.66, "GA100": 0.81}

#: FITTED share of the dense Tensor Core peak a ``wgmma`` pipeline sustains on GH100 (the clock a power-limited
#: H100 holds under Tensor Core load, and the issue gaps between K steps): the geometric mean of the values that
#: make the model meet validation.csv's rows GL-01 and GL-07 (cuBLAS, 8192³ and 6144³ bf16, one source and one
#: binary), which are then in-sample; leave-one-out 0.937 and 1.068 (``python -m benchmarks.validation.fit``,
#: checked by ``tests/test_validation_fit.py``).
ETA_WGMMA = 0.81

#: What each GPU was measured to do, for the per-SM model ([RRZE], [CCCL-2086]; see the module's sources). The
#: A6000 takes the A40's numbers (the same GA102 with GDDR6), the H100 the GH200's (its die, with HBM3) and the
#: H200's L2 reads and launches (its die and clocks), both the GH200's L2 stores (the same die, measured at the same
#: 1.98 GHz); the cycles are read at the GPU's rated clock.
MEASURED = {
    "RTX A6000": dict(dram_efficiency=654 / 696, dram_latency_cycles=556, l2_latency_cycles=250,
                      launch_stream_s=2.05e-6, launch_graph_s=1.09e-6, launch_cold_s=2.05e-6),
    "A100 SXM 80GB": dict(dram_efficiency=1737 / 2039, dram_latency_cycles=552, l2_latency_cycles=205, l2_bw=5.4e12,
                          l2_write_bw=2.42e12, launch_stream_s=2.62e-6, launch_graph_s=1.34e-6,
                          launch_cold_s=8.09e-6),
    "A100 PCIe 80GB": dict(dram_efficiency=1737 / 2039, dram_latency_cycles=552, l2_latency_cycles=205, l2_bw=5.4e12,
                           l2_write_bw=2.42e12, launch_stream_s=2.62e-6, launch_graph_s=1.34e-6,
                           launch_cold_s=8.09e-6),  # the SXM part's
    "H100 SXM": dict(dram_efficiency=3174 / 4000, dram_latency_cycles=688, l2_latency_cycles=280, l2_bw=9.9e12,
                     l2_write_bw=4.5e12, launch_stream_s=2.43e-6, launch_graph_s=1.26e-6, launch_cold_s=4.28e-6,
                     mma_sync_share=2 / 3, eta_wgmma=ETA_WGMMA),
    "H200 SXM": dict(dram_efficiency=0.83, dram_latency_cycles=688, l2_latency_cycles=280, l2_bw=9.9e12,
                     l2_write_bw=4.5e12, launch_stream_s=2.43e-6, launch_graph_s=1.26e-6, launch_cold_s=4.28e-6,
                     mma_sync_share=2 / 3, eta_wgmma=ETA_WGMMA),
}


def _perf(gpu: GPU) -> Perf:
    return Perf(gpu, fma_per_sm_cycle=gpu.fp32_cores_per_sm, eta=ETA[gpu.sm_type], **MEASURED.get(gpu.name, {}))


#: The rates of the RTX A6000 (one FP32 FMA per core and cycle).
PERF_A6000 = _perf(A6000)
#: The rates of the A100.
PERF_A100 = _perf(A100)
#: The rates of the A100 PCIe 80 GB, with the A100 SXM's measured efficiencies and latencies (the same GA100).
PERF_A100_PCIE = _perf(A100_PCIE)
#: The rates of the H100.
PERF_H100 = _perf(H100)
#: The rates of the H200.
PERF_H200 = _perf(H200)
#: The rates of every GPU, in the order of ``GPUS``.
PERFS = (PERF_A6000, PERF_A100, PERF_H100, PERF_H200, PERF_A100_PCIE)


def as_perf(gpu_or_perf) -> Perf:
    """The :class:`Perf` of a GPU given either way: a ``Perf`` as is, a :class:`GPU` as its rates.

    Every model function accepts either (``predict(c, H100)`` is ``predict(c, PERF_H100)``), or a GPU's
    name (``gpu_named``: an unknown one is an error that names it); anything else is a TypeError that
    says what to pass.

    Examples
    --------
    >>> as_perf(H100) is PERF_H100, as_perf(PERF_A6000) is PERF_A6000, as_perf("H100") is PERF_H100
    (True, True, True)
    >>> as_perf(100)
    Traceback (most recent call last):
    ...
    TypeError: expected a GPU (kernellab.H100, A6000, …) or its rates (kernellab.PERF_H100, …), got a int
    """
    if isinstance(gpu_or_perf, str):
        gpu_or_perf = gpu_named(gpu_or_perf)
    if isinstance(gpu_or_perf, Perf):
        return gpu_or_perf
    if isinstance(gpu_or_perf, GPU):
        for p in PERFS:
            if p.gpu == gpu_or_perf:
                return p
        if gpu_or_perf.sm_type not in ETA:
            raise ValueError(_("unknown SM type {sm!r} of the GPU {gpu}; kernellab models {known}").format(
                sm=gpu_or_perf.sm_type, gpu=gpu_or_perf.name, known=", ".join(sorted(ETA))))
        return _perf(gpu_or_perf)
    raise TypeError(_("expected a GPU (kernellab.H100, A6000, …) or its rates "
                      "(kernellab.PERF_H100, …), got a {type}").format(
        type=type(gpu_or_perf).__name__))


def gpu_named(name: str) -> GPU:
    """The GPU ``name`` stands for: a name of ``GPUS`` (``"H100 SXM"``, ``"A100 PCIe 80GB"``) or its first
    word (``"H100"``, ``"A100"`` for the SXM part, ``"A6000"``), in any case. Any other name raises
    :class:`~kernellab.errors.UnknownGPUError` naming it and the GPUs kernellab models.

    Examples
    --------
    >>> gpu_named("h100") is H100, gpu_named("RTX A6000") is A6000, gpu_named("A100 PCIe 80GB") is A100_PCIE
    (True, True, True)
    >>> gpu_named("V100")
    Traceback (most recent call last):
    ...
    kernellab.errors.UnknownGPUError: unknown GPU 'V100': kernellab models RTX A6000, A100 SXM 80GB, H100 SXM, H200 SXM, A100 PCIe 80GB
    """
    key = name.strip().casefold()
    for g in GPUS:
        if key == g.name.casefold():
            return g
    for g in GPUS:  # the first with that first word: "A100" is the SXM part, listed before the PCIe one
        if key and key == g.name.casefold().removeprefix("rtx ").split()[0]:
            return g
    raise UnknownGPUError(_("unknown GPU {name!r}: kernellab models {known}").format(
        name=name, known=", ".join(g.name for g in GPUS)))


def as_gpu(gpu_or_perf) -> GPU:
    """The :class:`GPU` of a GPU given either way: a ``GPU`` as is, a :class:`Perf` as its ``gpu``, a name as
    ``gpu_named`` reads it.

    Examples
    --------
    >>> as_gpu(PERF_H100) is H100, as_gpu(A6000) is A6000, as_gpu("A100") is A100
    (True, True, True)
    """
    if isinstance(gpu_or_perf, str):
        return gpu_named(gpu_or_perf)
    if isinstance(gpu_or_perf, GPU):
        return gpu_or_perf
    if isinstance(gpu_or_perf, Perf):
        return gpu_or_perf.gpu
    raise TypeError(_("expected a GPU (kernellab.H100, A6000, …) or its rates "
                      "(kernellab.PERF_H100, …), got a {type}").format(
        type=type(gpu_or_perf).__name__))
