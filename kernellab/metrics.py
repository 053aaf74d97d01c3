"""The metrics a profile shows, per kernel and per line, each under its Nsight Compute name where it has one.

A :class:`Metric` reads one number from a launch's counts (``Counts`` or ``TritonCounts``); the source
view (:mod:`kernellab.source`), the report (:mod:`kernellab.profile`) and the command line's exports
all read the same table, :data:`METRICS`. ``docs/counts.md`` maps every name.

Examples
--------
>>> from kernellab import Counts
>>> c = Counts(warp_instr=4, thread_instr=96, gld_instr=2, gld_sectors=64, gld_ideal_sectors=8)
>>> values(c)["l1tex__average_t_sectors_per_request_pipe_lsu_mem_global.ratio"]    # 64 sectors / 2 requests
32.0
>>> values(c)["memory_l2_theoretical_sectors_global_excessive"]                      # 64 − 8
56
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .access import WARP_SIZE
from .i18n import _


@dataclass(frozen=True)
class Metric:
    """One metric: its Nsight Compute (or kernellab) name, its column header, how to read it, its unit."""

    name: str  # Nsight Compute's metric name (a kernellab name where Nsight has none)
    header: str  # the column header, in English (shown through kernellab.i18n)
    read: Callable  # counts → number, or None where the engine does not count it
    unit: str = ""  # "", "%", "B" or "ratio"
    simt_only: bool = False  # mini-Triton does not count it

    def value(self, counts):
        """The metric of ``counts``, or None where its engine does not count it."""
        if self.simt_only and not hasattr(counts, "warp_instr"):
            return None
        return self.read(counts)


def _ratio(a: int, b: int) -> float:
    return a / b if b else 0.0


def _ideal(c) -> int:
    return c.load_ideal_sectors + c.store_ideal_sectors


def _wavefronts(c) -> int:
    return c.shld_wavefronts + c.shst_wavefronts


def _ideal_wavefronts(c) -> int:
    return c.shld_ideal + c.shst_ideal


def _flop_count_sp(c) -> int:
    """Nsight Compute's ``flop_count_sp``: FADD + FMUL + 2·FFMA thread instructions of the SASS, which leaves out
    the Tensor Cores' work (``HMMA``/``HGMMA`` run on the tensor pipe, counted by ``sm__inst_executed_pipe_tensor``).

    SIMT counts: ``flops``. Mini-Triton counts: ``flops`` less ``dot_flops`` when the launch's dots compiled to
    Tensor Core instructions (``mma_sm80`` > 0); a launch whose dots all have ``input_precision="ieee"`` (no MMA)
    computes them with FFMAs, which ``flop_count_sp`` counts, so they stay in.

    >>> from kernellab.triton import TritonCounts
    >>> mm = TritonCounts(flops=262_144 + 4096, dot_flops=262_144, mma_sm80=64)    # a 64×64×32 dot + 4096 adds
    >>> _flop_count_sp(mm), _flop_count_sp(TritonCounts(flops=262_144, dot_flops=262_144))
    (4096, 262144)
    """
    if getattr(c, "mma_sm80", 0):
        return c.flops - c.dot_flops
    return c.flops


def _efficiency(c) -> float:
    return 100.0 * c.thread_instr / (WARP_SIZE * c.warp_instr) if c.warp_instr else 0.0


#: Every metric, in the order the source view and the exports show them.
METRICS: tuple[Metric, ...] = (
    Metric("smsp__inst_executed.sum", "Warp instructions", lambda c: c.warp_instr, simt_only=True),
    Metric("smsp__thread_inst_executed.sum", "Thread instructions", lambda c: c.thread_instr, simt_only=True),
    Metric("warp_execution_efficiency", "SIMT efficiency", _efficiency, "%", simt_only=True),
    Metric("l1tex__t_requests_pipe_lsu_mem_global.sum", "Requests", lambda c: c.requests),
    Metric("l1tex__t_sectors_pipe_lsu_mem_global.sum", "Sectors", lambda c: c.sectors),
    Metric("l1tex__average_t_sectors_per_request_pipe_lsu_mem_global.ratio", "Sectors/request",
           lambda c: _ratio(c.sectors, c.requests), "ratio"),
    Metric("memory_l2_theoretical_sectors_global", "Ideal sectors", _ideal),
    Metric("memory_l2_theoretical_sectors_global_excessive", "Excess sectors", lambda c: c.sectors - _ideal(c)),
    Metric("lines", "Lines", lambda c: c.lines),
    Metric("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "Shared wavefronts", _wavefronts, simt_only=True),
    Metric("memory_l1_wavefronts_shared_ideal", "Ideal wavefronts", _ideal_wavefronts, simt_only=True),
    Metric("l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", "Bank conflicts",
           lambda c: _wavefronts(c) - _ideal_wavefronts(c), simt_only=True),
    Metric("flop_count_sp", "FLOPs", _flop_count_sp),
    Metric("l1tex__t_bytes_pipe_lsu_mem_global.sum", "Bytes", lambda c: c.bytes, "B"),
    Metric("l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", "Atomics", lambda c: getattr(c, "atomic_requests", 0)),
    Metric("dram__bytes.sum", "DRAM bytes", lambda c: c.dram_bytes, "B"),
)

BY_NAME = {m.name: m for m in METRICS}


def header(m: Metric) -> str:
    """The metric's column header in the reader's language."""
    return _(m.header)


def values(counts, row: bool = False) -> dict[str, float]:
    """Every metric its engine counts, ``name → value``, for ``counts`` (a launch's, or a line's when ``row``:
    a line's DRAM bytes are the sectors it touched first in the launch, in both engines)."""
    out = {}
    for m in METRICS:
        v = m.value(counts)
        if v is not None:
            out[m.name] = v
    return out


def fmt(m: Metric, v) -> str:
    """A metric's value as a cell: a percentage, a ratio with 2 decimals, or an integer."""
    if v is None:
        return ""
    if m.unit == "%":
        return f"{v:.1f} %"
    if m.unit == "ratio":
        return f"{v:.2f}"
    if isinstance(v, float) and not v.is_integer():
        return f"{v:.4g}"
    return f"{int(v):,}"
