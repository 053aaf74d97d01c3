"""The counts a SIMT launch returns, named as Nsight Compute names them, and per-FMA views of them.

Every field counts active lanes only. The memory fields are sums of the pure functions in
:mod:`kernellab.access` over the launch's access records.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace


@dataclass(frozen=True)
class Counts:
    """What a profiler would report for one SIMT launch.

    Global-memory fields follow ``l1tex__t_{requests,sectors}_pipe_lsu_mem_global_op_{ld,st}.sum``;
    shared-memory fields follow ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum``; SIMT
    efficiency is ``smsp__thread_inst_executed_per_inst_executed`` / 32.
    """

    fma: int = 0  # FP32 fused multiply-adds executed, summed over active lanes (thread-level)
    warp_instr: int = 0  # warp instructions issued, every kind (a warp with no active lane issues none)
    thread_instr: int = 0  # active lanes summed over issued warp instructions
    gld_instr: int = 0  # global load requests (warp-level load instructions)
    gld_sectors: int = 0  # 32-byte sectors those requests touch
    gld_lines: int = 0  # 128-byte lines (tags) those requests touch
    gld_bytes: int = 0  # bytes the active lanes load
    gst_instr: int = 0  # global store requests
    gst_sectors: int = 0  # 32-byte sectors stores touch
    gst_lines: int = 0  # 128-byte lines stores touch
    gst_bytes: int = 0  # bytes the active lanes store
    shld_instr: int = 0  # shared-memory load requests
    shld_wavefronts: int = 0  # wavefronts shared loads take
    shld_ideal: int = 0  # wavefronts they would take with no bank conflict
    shst_instr: int = 0  # shared-memory store requests
    shst_wavefronts: int = 0  # wavefronts shared stores take
    shst_ideal: int = 0  # wavefronts they would take with no bank conflict
    barriers: int = 0  # block-wide barriers (syncthreads) executed, counted once per block
    dram_sectors: dict = field(default_factory=dict)  # array name → distinct 32-byte sectors touched
    instr_by_kind: dict = field(default_factory=dict)  # "fma", "ld.global", "st.shared", … → warp instructions
    shape: tuple = ()  # the problem size simulated, e.g. (M, N, K) for an SGEMM; () if unknown

    @property
    def shld_conflicts(self) -> int:
        """Shared-load bank conflicts, wavefronts beyond the ideal (wavefronts − ideal wavefronts)."""
        return self.shld_wavefronts - self.shld_ideal

    @property
    def shst_conflicts(self) -> int:
        """Shared-store bank conflicts, wavefronts beyond the ideal (wavefronts − ideal wavefronts)."""
        return self.shst_wavefronts - self.shst_ideal

    @property
    def dram_bytes(self) -> int:
        """Compulsory DRAM traffic in bytes, every distinct sector touched counted once × 32 B."""
        return 32 * sum(self.dram_sectors.values())

    def simt_efficiency(self) -> float:
        """Average fraction of the 32 lanes active per issued warp instruction (0–1).

        Nsight Compute's ``smsp__thread_inst_executed_per_inst_executed.ratio`` / 32.

        Examples
        --------
        >>> Counts(warp_instr=4, thread_instr=96).simt_efficiency()
        0.75
        """
        return self.thread_instr / (32 * self.warp_instr) if self.warp_instr else 0.0

    def __add__(self, other: Counts) -> Counts:
        """Counts of two launches together (dicts merge by key and add)."""
        merged = {}
        for f in fields(self):
            a, b = getattr(self, f.name), getattr(other, f.name)
            if isinstance(a, dict):
                merged[f.name] = {k: a.get(k, 0) + b.get(k, 0) for k in a.keys() | b.keys()}
            elif f.name == "shape":
                merged[f.name] = a or b
            else:
                merged[f.name] = a + b
        return replace(self, **merged)
