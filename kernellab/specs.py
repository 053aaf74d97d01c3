"""GPU specifications and the throughput rates the performance model charges, as frozen dataclasses.

Every field carries its unit and its source (the project's facts sheet, ``reference/facts.md`` §2,
cites each one: CUDA Programming Guide tables [CCtab], spec databases, NVIDIA staff on the forums).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GPU:
    """What a GPU is: the hardware limits a launch and an occupancy calculation need.

    Examples
    --------
    >>> A6000.sms, A6000.max_threads_per_sm
    (84, 1536)
    >>> f"{A6000.fp32_peak() / 1e12:.1f} TFLOP/s"
    '38.7 TFLOP/s'
    """

    name: str
    sms: int  # streaming multiprocessors [SYS-A6000, GK-A100, GK-H100, SB]
    fp32_cores_per_sm: int  # FP32 lanes per SM, one FMA each per cycle [CCarch]
    clock_hz: float  # boost clock, Hz [SYS-A6000, SB]
    dram_bw: float  # DRAM bandwidth, bytes/s [SYS-A6000, GK-A100, CS336-26, SB]
    fp16_tensor_peak: float  # dense FP16/BF16 Tensor Core peak, FLOP/s [LLMPERF, GK-A100, GK-H100, SB]
    l2_bytes: int  # L2 cache, bytes [SYS-A6000, SB]
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

    @property
    def max_warps_per_sm(self) -> int:
        """Resident warps per SM, threads per SM / 32 (48 on CC 8.6, 64 on 8.0 and 9.0)."""
        return self.max_threads_per_sm // self.warp_size

    def fp32_peak(self) -> float:
        """FP32 CUDA-core peak, FLOP/s: SMs × cores per SM × 2 FLOP per FMA × clock."""
        return self.sms * self.fp32_cores_per_sm * 2 * self.clock_hz


#: NVIDIA RTX A6000 (Ampere, GA102), the GPU of Boehm's SGEMM measurements.
A6000 = GPU(
    name="RTX A6000", sms=84, fp32_cores_per_sm=128, clock_hz=1.80e9, dram_bw=768e9,
    fp16_tensor_peak=154.8e12, l2_bytes=6 * 2**20, max_smem_per_sm=100 * 1024,
    max_smem_per_block=99 * 1024, max_threads_per_sm=1536, max_blocks_per_sm=16,
)
#: NVIDIA A100 SXM 80 GB (Ampere, GA100).
A100 = GPU(
    name="A100 SXM 80GB", sms=108, fp32_cores_per_sm=64, clock_hz=1.41e9, dram_bw=2039e9,
    fp16_tensor_peak=312e12, l2_bytes=40 * 2**20, max_smem_per_sm=164 * 1024,
    max_smem_per_block=163 * 1024,
)
#: NVIDIA H100 SXM (Hopper, GH100).
H100 = GPU(
    name="H100 SXM", sms=132, fp32_cores_per_sm=128, clock_hz=1.98e9, dram_bw=3.35e12,
    fp16_tensor_peak=989.4e12, l2_bytes=50 * 2**20, max_smem_per_sm=228 * 1024,
    max_smem_per_block=227 * 1024,
)
#: NVIDIA H200 SXM (Hopper, GH100 with HBM3e), H100's compute with more DRAM bandwidth.
H200 = GPU(
    name="H200 SXM", sms=132, fp32_cores_per_sm=128, clock_hz=1.98e9, dram_bw=4.8e12,
    fp16_tensor_peak=989.4e12, l2_bytes=50 * 2**20, max_smem_per_sm=228 * 1024,
    max_smem_per_block=227 * 1024,
)
#: Every GPU above, in the order tables list them.
GPUS = (A6000, A100, H100, H200)


@dataclass(frozen=True)
class Perf:
    """The throughput rates the performance model charges on one GPU, per SM per cycle.

    Each rate is a resource; a kernel's time on it is its count divided by the rate × SMs × clock.

    Examples
    --------
    >>> PERF_A6000.name, f"{PERF_A6000.peak_flops() / PERF_A6000.dram_bw:.0f} FLOP/B"
    ('RTX A6000', '50 FLOP/B')
    """

    gpu: GPU
    fma_per_sm_cycle: int  # FP32 FMAs per SM per cycle: one per FP32 core [CCarch]
    issue_per_sm_cycle: int = 4  # warp instructions per SM per cycle: 4 schedulers × 1 [CCarch]
    l1_lines_per_sm_cycle: int = 1  # 128-byte lines (tags) L1 processes per SM per cycle [NVIDIA forum: 128 B/cycle]
    smem_wavefronts_per_sm_cycle: int = 1  # shared-memory wavefronts per SM per cycle: 32 banks × 4 B [CCtab]

    @property
    def name(self) -> str:
        """The GPU's name."""
        return self.gpu.name

    @property
    def dram_bw(self) -> float:
        """DRAM bandwidth, bytes/s."""
        return self.gpu.dram_bw

    @property
    def sms(self) -> int:
        """Streaming multiprocessors."""
        return self.gpu.sms

    @property
    def clock_hz(self) -> float:
        """Boost clock, Hz."""
        return self.gpu.clock_hz

    def peak_flops(self) -> float:
        """FP32 CUDA-core peak, FLOP/s: 2 FLOP × FMAs per SM per cycle × SMs × clock."""
        return 2 * self.fma_per_sm_cycle * self.gpu.sms * self.gpu.clock_hz

    def ridge(self) -> float:
        """Ridge point of the FP32 roofline, FLOP/byte: peak FLOP/s over DRAM bytes/s."""
        return self.peak_flops() / self.gpu.dram_bw


#: The throughput rates of the RTX A6000 (one FP32 FMA per core and cycle).
PERF_A6000 = Perf(A6000, fma_per_sm_cycle=A6000.fp32_cores_per_sm)
#: The throughput rates of the A100.
PERF_A100 = Perf(A100, fma_per_sm_cycle=A100.fp32_cores_per_sm)
#: The throughput rates of the H100.
PERF_H100 = Perf(H100, fma_per_sm_cycle=H100.fp32_cores_per_sm)
#: The throughput rates of the H200.
PERF_H200 = Perf(H200, fma_per_sm_cycle=H200.fp32_cores_per_sm)
