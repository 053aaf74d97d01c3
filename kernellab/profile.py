"""The profiler's report of one launch: Nsight Compute's sections, and findings that name a line and a metric.

``report(counts, gpu)`` (or ``counts.report(gpu)``) returns a :class:`Report`: aligned text in a terminal,
HTML in the gallery or Jupyter. Its sections are named as Nsight Compute names them — GPU Speed Of
Light, Memory Workload Analysis, Shared Memory, Instruction Statistics, Launch Statistics and
Occupancy — and its findings (:func:`findings`) are written in the style of Nsight's rules, each
naming the line (when the launch counted lines) and the metric behind it.

Nsight Compute measures; this report predicts. Its Speed Of Light is the performance model's
(:func:`~kernellab.predict`, as Nsight Compute times a kernel: ``timer="kernel"``, a cold L2, no launch
overhead): each resource's predicted utilisation over the predicted duration, and its Launch Statistics and
Occupancy are the per-SM model's (:mod:`kernellab.model.persm`): blocks per SM and their limiter, waves and
the SMs that get work.

Examples
--------
>>> import numpy as np
>>> from kernellab import launch
>>> def strided(blk, x, y):
...     v = blk.load(x, blk.tx * 8)          # each lane its own sector
...     blk.store(y, blk.tx, v)
>>> c = launch(strided, 1, 32, args=(np.ones(256, np.float32), np.empty(32, np.float32)), lines=True)
>>> for f in findings(c): print(f)       # 32 + 4 sectors, ideally 4 + 4: 28 excess, all on line 2
uncoalesced global accesses: line 2 causes 100 % of the excess sectors (28 of 36 sectors; 32.0 sectors per request, ideally 4.0)
"""

from __future__ import annotations

import html
import warnings
from dataclasses import dataclass

from . import metrics
from .access import WARP_SIZE
from .counters import member
from .errors import ModelWarning
from .i18n import _
from .model import estimate_label, predict, resource_events, resource_label
from .model.estimate import sm_times
from .model.persm import DEFAULT_REGS, Distribution, distribute, launch_of, triton_resources
from .specs import A6000, as_gpu, as_perf
from .tables import Table, display_width, fmt_bytes, fmt_time

EXCESS_SECTORS = 0.10  # a finding when excess sectors are at least this share of all sectors
CONFLICT_SHARE = 0.10  # a finding for each line with at least this share of the launch's bank conflicts
DIVERGENCE = 0.80  # a finding for a line below this SIMT efficiency …
DIVERGENCE_SHARE = 0.05  # … that issues at least this share of the warp instructions
OCCUPANCY_LOW = 0.80  # an occupancy finding below this theoretical occupancy (Nsight's TheoreticalOccupancy rule)
TAIL_SHARE = 0.20  # a tail finding when the partial wave may take at least this share of the run (its TailEffect rule)
_RESOURCES = (  # the model's times (kernellab.model.bounds.predict) and the Nsight Compute metric each stands for:
    # the device's average over every SM and the elapsed time, as Nsight Compute's GPU Speed Of Light reads them
    ("t_fma", "FMA pipe", "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed"),
    ("t_tensor", "Tensor Core pipe", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"),
    ("t_xu", "XU pipe (special functions)", "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed"),
    ("t_issue", "Instruction issue", "sm__inst_issued.avg.pct_of_peak_sustained_elapsed"),
    ("t_mio", "MIO (load/store issue)", "sm__mio_inst_issued.avg.pct_of_peak_sustained_elapsed"),
    ("t_l1", "L1/TEX lines", "l1tex__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("t_smem", "Shared memory", "l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed"),
    ("t_l2", "L2 (sectors sent)", "lts__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("t_dram", "DRAM", "dram__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("t_atomic", "Atomics at L2 (one address)", ""),  # the model's serial chain at one address: no Nsight metric
)
#: The model's occupancy limits (:data:`kernellab.model.residency.LIMITS`) under Nsight Compute's names: each
#: ``launch__occupancy_limit_*`` is the blocks per SM that one resource allows (``blocks``: the hardware's limit).
LIMIT_METRICS = {"registers": "launch__occupancy_limit_registers", "shared": "launch__occupancy_limit_shared_mem",
                 "threads": "launch__occupancy_limit_warps", "blocks": "launch__occupancy_limit_blocks"}


@dataclass(frozen=True)
class Finding:
    """One of the report's conclusions: what it found, on which line (None: the whole kernel), by which metric."""

    rule: str  # "uncoalesced", "bank conflicts" or "divergence"
    line: int | None  # the line in the kernel's file, or None
    metric: str  # the Nsight Compute metric it reads
    value: float  # the metric's value behind the finding (share, ways or efficiency)
    message: str  # the sentence, in the reader's language

    def __str__(self) -> str:
        return self.message


def _excess(c) -> int:
    return c.sectors - c.load_ideal_sectors - c.store_ideal_sectors


def _uncoalesced(counts) -> list[Finding]:
    if not counts.sectors:
        return []
    excess = _excess(counts)
    if excess < EXCESS_SECTORS * counts.sectors:
        return []
    ideal = counts.sectors - excess
    metric = "memory_l2_theoretical_sectors_global_excessive"
    if counts.by_line is None:
        return [Finding("uncoalesced", None, metric, excess / counts.sectors, _(
            "uncoalesced global accesses: {pct:.0f} % of the {sectors} sectors are excess, ideally {ideal} "
            "(launch with lines=True to see the line)").format(pct=100 * excess / counts.sectors,
                                                                sectors=counts.sectors, ideal=ideal))]
    most = max(_excess(row) for row in counts.by_line.values())
    out = []  # every line with the most excess sectors: fixing one of several that tie changes little
    for key, row in sorted((kv for kv in counts.by_line.items() if _excess(kv[1]) == most), key=lambda kv: kv[0][1]):
        share = _excess(row) / excess
        ideal_row = row.load_ideal_sectors + row.store_ideal_sectors
        out.append(Finding("uncoalesced", key[1], metric, share, _(
            "uncoalesced global accesses: line {line} causes {pct:.0f} % of the excess sectors ({excess} of "
            "{sectors} sectors; {per:.1f} sectors per request, ideally {ideal:.1f})").format(
            line=key[1], pct=100 * share, excess=excess, sectors=counts.sectors,
            per=row.sectors / row.requests, ideal=ideal_row / row.requests)))
    return out


def _conflicts(counts) -> list[Finding]:
    if not hasattr(counts, "warp_instr"):
        return []
    wave = counts.shld_wavefronts + counts.shst_wavefronts
    total = wave - counts.shld_ideal - counts.shst_ideal
    if total <= 0:
        return []
    metric = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"
    if counts.by_line is None:
        return [Finding("bank conflicts", None, metric, total / wave, _(
            "bank conflicts: {conflicts} of the {wavefronts} shared wavefronts are extra ({pct:.0f} %; launch "
            "with lines=True to see the line)").format(conflicts=total, wavefronts=wave, pct=100 * total / wave))]
    out = []
    for key, row in sorted(counts.by_line.items(), key=lambda kv: -(kv[1].shld_conflicts + kv[1].shst_conflicts)):
        conflicts = row.shld_conflicts + row.shst_conflicts
        if conflicts < CONFLICT_SHARE * total or len(out) == 3:  # (total > 0: a line of none is below)
            continue
        # the worse of the line's shared loads and stores, not their average: a kernel whose lines cannot be
        # read (made by exec) is one line, and a 32-way load beside a conflict-free store is 32-way
        ways = max(waves / ideal for waves, ideal, extra in ((row.shld_wavefronts, row.shld_ideal, row.shld_conflicts),
                                                             (row.shst_wavefronts, row.shst_ideal, row.shst_conflicts))
                   if ideal and extra > 0)
        out.append(Finding("bank conflicts", key[1], metric, ways, _(
            "{ways:.0f}-way bank conflicts on line {line}: {conflicts} extra wavefronts, {pct:.0f} % of the "
            "kernel's bank conflicts").format(ways=ways, line=key[1], conflicts=conflicts, pct=100 * conflicts / total)))
    return out


def _divergence(counts) -> list[Finding]:
    if not hasattr(counts, "warp_instr") or not counts.warp_instr:
        return []
    metric = "warp_execution_efficiency"
    if counts.by_line is None:
        eff = counts.simt_efficiency()
        if eff >= DIVERGENCE:
            return []
        return [Finding("divergence", None, metric, eff, _(
            "divergent branches: {pct:.0f} % SIMT efficiency over the kernel (launch with lines=True to see "
            "the line)").format(pct=100 * eff))]
    worst = None
    for key, row in counts.by_line.items():
        if not row.warp_instr or row.warp_instr < DIVERGENCE_SHARE * counts.warp_instr:
            continue
        eff = row.simt_efficiency()
        lost = row.warp_instr * WARP_SIZE - row.thread_instr
        if eff < DIVERGENCE and (worst is None or lost > worst[0]):
            worst = (lost, key, eff)
    if worst is None:
        return []
    _lost, key, eff = worst
    return [Finding("divergence", key[1], metric, eff, _(
        "divergent branch at line {line}: {pct:.0f} % SIMT efficiency ({threads:.1f} of 32 threads active "
        "per warp instruction)").format(line=key[1], pct=100 * eff, threads=32 * eff))]


def _unit(counts) -> str:
    return _("blocks") if hasattr(counts, "warp_instr") else _("programs")



def _small_grid(counts, gpu, d: Distribution) -> list[Finding]:
    if d.programs is None or d.programs >= gpu.sms:
        return []
    return [Finding("small grid", None, "launch__grid_size", d.programs, _(
        "small grid: launch__grid_size is {programs}, fewer than the {gpu}'s {sms} SMs: {idle} SMs get no work, and "
        "the predicted time is the busiest SM's").format(
        programs=d.programs, gpu=gpu.name, sms=gpu.sms, idle=gpu.sms - d.programs))]


def _tail(counts, gpu, d: Distribution) -> list[Finding]:
    if d.programs is None:
        return []
    per_wave = d.blocks_per_sm * gpu.sms
    full = d.programs // per_wave
    if full < 1 or d.programs % per_wave == 0 or 1 / (1 + full) < TAIL_SHARE:
        return []
    waves = d.programs / per_wave
    return [Finding("tail", None, "launch__waves_per_multiprocessor", waves, _(
        "partial last wave: {waves:.2f} waves of {per_wave} {unit} ({per_sm} per SM × {sms} SMs), {full} full and "
        "a last one of {tail}; with {unit} of equal work it may take up to {pct:.0f} % of the run").format(
        waves=waves, per_wave=per_wave, unit=_unit(counts), per_sm=d.blocks_per_sm, sms=gpu.sms, full=full,
        tail=d.programs - full * per_wave, pct=100 / (1 + full)))]


def _limiters(occ) -> str:
    names = {"registers": _("the registers each thread needs"), "shared": _("the shared memory each block needs"),
             "threads": _("the warps each block has"), "blocks": _("the SM's limit of resident blocks")}
    return _(", ").join(f"{names[k]} ({LIMIT_METRICS[k]} = {_limit(occ, k)})" for k in occ.limiters)


def _limit(occ, key: str) -> int:
    return {"registers": occ.by_registers, "shared": occ.by_shared, "threads": occ.by_threads,
            "blocks": occ.by_blocks}[key]


def _low_occupancy(counts, gpu, d: Distribution) -> list[Finding]:
    occ = d.occupancy
    if occ is None or occ.occupancy >= OCCUPANCY_LOW:
        return []
    return [Finding("occupancy", None, "sm__maximum_warps_per_active_cycle_pct", 100 * occ.occupancy, _(
        "low theoretical occupancy: {pct:.1f} % ({warps} of {max_warps} warps per SM, {blocks} {unit} per SM), "
        "limited by {limiters}").format(
        pct=100 * occ.occupancy, warps=occ.warps_per_sm, max_warps=gpu.max_warps_per_sm, blocks=occ.blocks_per_sm,
        unit=_unit(counts), limiters=_limiters(occ)))]


def launch_findings(counts, gpu) -> list[Finding]:
    """Nsight Compute's launch findings for ``counts`` on ``gpu``, from the per-SM model
    (:func:`kernellab.model.persm.launch_of`), each under the metric its rule reads:

    * **small grid** (``launch__grid_size``; Nsight's "Small Grid"): fewer blocks (programs) than SMs;
    * **tail** (``launch__waves_per_multiprocessor``; its "Tail Effect"): at least one full wave and a partial one,
      when the partial wave may take at least 20 % of the run, 1 ÷ (1 + full waves), blocks being equal;
    * **occupancy** (``sm__maximum_warps_per_active_cycle_pct``; its "Theoretical Occupancy"): below 80 %,
      with every limiter whose ``launch__occupancy_limit_*`` is the least.

    Counts with no launch (hand-made, scaled, or summed) have none.

    >>> from kernellab import Counts, H100
    >>> one = Counts(warp_instr=1, launch={"grid": (64, 1, 1), "block": (1024, 1, 1), "smem_per_block": 0})
    >>> for f in launch_findings(one, H100): print(f)     # 64 blocks on 132 SMs; 2 of 1024 threads fill 64 warps
    small grid: launch__grid_size is 64, fewer than the H100 SXM's 132 SMs: 68 SMs get no work, and the predicted time is the busiest SM's
    """
    d = launch_of(counts, gpu)
    return _small_grid(counts, gpu, d) + _tail(counts, gpu, d) + _low_occupancy(counts, gpu, d)


def findings(counts, gpu=None) -> list[Finding]:
    """The report's findings: uncoalesced global accesses (both engines), bank conflicts and divergence
    (SIMT launches), and with a ``gpu`` the launch findings of :func:`launch_findings`.

    * **uncoalesced**: excess sectors (sectors − ideal sectors) are at least 10 % of the sectors; the
      line with the most excess sectors is named with its share of them;
    * **bank conflicts**: each line (up to 3) with at least 10 % of the bank conflicts, with its ways
      (wavefronts ÷ ideal wavefronts; a line's conflicts are n-way when its requests take n times the
      wavefronts they would take without conflict);
    * **divergence**: the line that idles the most lanes among those below 80 % SIMT efficiency and
      issuing at least 5 % of the warp instructions.
    """
    out = _uncoalesced(counts) + _conflicts(counts) + _divergence(counts)
    return out + launch_findings(counts, as_gpu(gpu)) if gpu is not None else out


#: ``TritonCounts.dot_flops_<kind>``: the report's label, Nsight Compute's metric
_DOT_KINDS = (("f16", "Dot FLOPs, fp16/bf16", "sm__ops_path_tensor_src_fp16_dst_fp32.sum (bf16: …_src_bf16_…)"),
              ("tf32", "Dot FLOPs, tf32", "sm__ops_path_tensor_src_tf32_dst_fp32.sum"),
              ("fp8", "Dot FLOPs, fp8", "sm__ops_path_tensor_src_fp8_….sum"),
              ("int8", "Dot FLOPs, int8", "sm__ops_path_tensor_src_int8.sum"),
              ("fma", "Dot FLOPs on FMA", "2 × smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"))


@dataclass
class Section:
    """One section of the report: a title (Nsight Compute's) and a table of metrics."""

    title: str
    table: Table


def _rows(counts, names) -> list[list[str]]:
    out = []
    for name in names:
        m = metrics.BY_NAME[name]
        v = m.value(counts)
        if v is not None:
            out.append([metrics.header(m), m.name, fmt_bytes(v) if m.unit == "B" else metrics.fmt(m, v)])
    return out


def _table(rows) -> Table:
    return Table([_("Metric"), _("Profiler metric"), _("Value")], rows)


class Report:
    """The profiler's report of one launch (see the module's docstring)."""

    def __init__(self, counts, gpu=None, name: str | None = None):
        gpu = as_gpu(gpu or A6000)
        self.counts, self.gpu = counts, gpu
        self.name = name or (counts.by_line.kernel if counts.by_line is not None else None)
        self.simt = hasattr(counts, "warp_instr")
        self.launch = launch_of(counts, gpu)  # the per-SM model's view of the launch (kernellab.model.persm)
        self.duration = None  # _sol sets it: the predicted duration and what sets it
        sol = self._sol()
        self.sections = [s for s in (sol, self.duration, self._compute(), self._memory(), self._shared(), self._instructions(),
                                     self._launch(), self._occupancy()) if s is not None]
        self.findings = findings(counts, gpu)

    def _sol(self) -> Section | None:
        """Each resource's predicted utilisation: the launch's events spread over every SM (as Nsight Compute's
        ``.avg`` over SM instances), at the resource's peak rate, over the predicted duration (the estimate,
        as Nsight Compute times a kernel: ``timer="kernel"``)."""
        perf = as_perf(self.gpu)
        try:
            with warnings.catch_warnings():  # a tiny launch: the report shows the launch overhead beside
                warnings.simplefilter("ignore", ModelWarning)
                p = predict(self.counts, perf, timer="kernel")
        except ValueError:
            return None
        duration = p["estimate_time"]
        target = "sm_90" if self.gpu.arch == "sm_90" else "sm_80"
        even = sm_times(resource_events(self.counts, target), perf, self.gpu.clock_hz, p["dram_bytes"],
                        distribute(self.gpu, None), p["tensor_kind"])
        even["t_l2"] = p["t_l2"]  # the estimate's L2 term: the device's, at the L2's bandwidth
        rows = [[_(label), metric, fmt_time(p[key]), f"{100 * even[key] / duration:.1f} %"]
                for key, label, metric in _RESOURCES if p.get(key)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ModelWarning)
            bench = predict(self.counts, perf)["estimate_total_time"]
        self.duration = Section(_("Predicted duration"), _table([
            [_("Duration, set by: {term}").format(term=estimate_label(p["estimate_bound"])), "gpu__time_duration.sum",
             fmt_time(duration)],
            [_("Throughput bound: {resource}").format(resource=resource_label(p["bound"])), "", fmt_time(p["time"])],
            [_("do_bench would read (launch included)"), "", fmt_time(bench)]]))
        return Section(_("GPU Speed Of Light (predicted)"),
                       Table([_("Resource"), _("Profiler metric"), _("Busiest SM"),
                              _("Predicted % of peak")], rows))

    def _compute(self) -> Section | None:
        """A mini-Triton launch's Tensor Core and special-function work as Triton 3.9 compiles it, for each
        target (the rows that are not zero); a SIMT launch or none of that work: no section."""
        if self.simt:
            return None
        c = self.counts

        def n(field):
            return getattr(c, field, 0)

        rows = []
        for target in ("sm80", "sm90"):
            if n("mma_" + target):
                rows.append([_("Tensor Core instructions ({target})").format(target="sm_" + target[2:]),
                             "sm__inst_executed_pipe_tensor.sum", f"{n('mma_' + target):,}"])
        if n("wgmma_sm90"):
            rows.append([_("of which wgmma (sm_90)"), "", f"{n('wgmma_sm90'):,}"])
        for kind, label, metric in _DOT_KINDS:
            if n("dot_flops_" + kind):
                rows.append([_(label), metric, f"{n('dot_flops_' + kind):,}"])
        if n("xu_instructions"):
            rows.append([_("Special-function instructions"), "sm__inst_executed_pipe_xu.sum", f"{n('xu_instructions'):,}"])
        return Section(_("Compute Workload Analysis"), _table(rows)) if rows else None

    def _memory(self) -> Section:
        names = ["l1tex__t_requests_pipe_lsu_mem_global.sum", "l1tex__t_sectors_pipe_lsu_mem_global.sum",
                 "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global.ratio",
                 "memory_l2_theoretical_sectors_global", "memory_l2_theoretical_sectors_global_excessive",
                 "lines", "l1tex__t_bytes_pipe_lsu_mem_global.sum", "dram__bytes.sum"]
        if not self.simt:
            names.insert(6, "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum")
        rows = _rows(self.counts, names)
        if self.counts.sectors:
            excess = self.counts.sectors - self.counts.load_ideal_sectors - self.counts.store_ideal_sectors
            rows.insert(5, [_("Excess sectors %"), "", f"{100 * excess / self.counts.sectors:.1f} %"])
        tma = getattr(self.counts, "tma_instructions_sm90", 0)
        if tma and self.gpu.arch == "sm_90":  # a tensor descriptor's tiles: TMA copies, not LSU instructions
            rows += [[_("Global load instructions (LSU)"), "smsp__inst_executed_op_global_ld.sum",
                      f"{self.counts.load_instructions_sm90:,}"],
                     [_("Global store instructions (LSU)"), "smsp__inst_executed_op_global_st.sum",
                      f"{self.counts.store_instructions_sm90:,}"],
                     [_("TMA copies (UTMALDG, UTMASTG)"), "tma_instructions_sm90", f"{tma:,}"],
                     [_("TMA bytes (sm_90)"), "tma_bytes_sm90", fmt_bytes(self.counts.tma_bytes_sm90)]]
        return Section(_("Memory Workload Analysis"), _table(rows))

    def _shared(self) -> Section | None:
        if not self.simt:
            return self._triton_shared()
        if not (self.counts.shld_instr + self.counts.shst_instr):
            return None
        c = self.counts
        rows = [[_("Shared requests"), "smsp__inst_executed_op_shared_{ld,st}.sum", f"{c.shld_instr + c.shst_instr:,}"]]
        rows += _rows(c, ["l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "memory_l1_wavefronts_shared_ideal",
                          "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"])
        return Section(_("Shared Memory"), _table(rows))

    def _triton_shared(self) -> Section | None:
        """A mini-Triton launch's shared-memory instructions (layout conversions, cross-warp reductions,
        ``tl.dot``'s operands) as Triton 3.9 compiles them, their wavefronts and bank conflicts, for each
        target; none: no section."""
        c = self.counts
        rows = []
        for target in ("sm80", "sm90"):
            st, ld = getattr(c, "shared_stores_" + target, 0), getattr(c, "shared_loads_" + target, 0)
            if st or ld:
                name = "sm_" + target[2:]
                rows.append([_("Shared stores ({target})").format(target=name),
                             "smsp__inst_executed_op_shared_st.sum", f"{st:,}"])
                rows.append([_("Shared loads ({target})").format(target=name),
                             "smsp__inst_executed_op_shared_ld.sum", f"{ld:,}"])
                wf, bc = getattr(c, "shared_wavefronts_" + target, 0), getattr(c, "shared_bank_conflicts_" + target, 0)
                rows.append([_("Shared wavefronts ({target})").format(target=name),
                             "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", f"{wf:,}"])
                rows.append([_("Bank conflicts ({target})").format(target=name),
                             "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", f"{bc:,}"])
        return Section(_("Shared Memory"), _table(rows)) if rows else None

    def _instructions(self) -> Section | None:
        """Warp and thread instructions and SIMT efficiency: Nsight Compute's Instruction Statistics and Source
        Counters show them (its Warp State Statistics section is about stall reasons, which no count here gives)."""
        if not self.simt:
            return None
        c = self.counts
        rows = _rows(c, ["smsp__inst_executed.sum", "smsp__thread_inst_executed.sum",
                         "warp_execution_efficiency"])
        rows.append([_("Active threads per warp instruction"), "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio",
                     f"{WARP_SIZE * c.simt_efficiency():.1f}"])
        return Section(_("Instruction Statistics (SIMT efficiency)"), _table(rows))

    def _launch(self) -> Section:
        c, info, d = self.counts, self.counts.launch, self.launch
        rows = []
        if "grid" in info:
            rows.append([_("Grid size"), "launch__grid_size", "×".join(map(str, info["grid"]))])
        if self.simt and "block" in info:
            b = info["block"]
            threads = b[0] * b[1] * b[2]
            rows += [[_("Block size"), "launch__block_size", "×".join(map(str, b))],
                     [_("Threads"), "launch__thread_count", f"{threads * _prod(info['grid']):,}"],
                     [_("Shared memory per block"), "launch__shared_mem_per_block_static",
                      fmt_bytes(info["smem_per_block"])]]
        elif not self.simt:
            rows.append([_("Programs"), "", f"{c.programs:,}"])
            if d.programs is not None:
                rows += [[_("Warps per program"), "", str(d.warps)],
                         [_("Shared memory per program"), "launch__shared_mem_per_block_dynamic",
                          fmt_bytes(self._smem())]]
        if d.occupancy is not None:
            regs = self._regs()
            if d.resources != "launch":  # no register count given: DEFAULT_REGS
                cell = _("{regs} (assumed)").format(regs=regs)
            elif not self.simt:  # kernellab.model.persm.triton_resources: a documented rule, not a compile
                cell = _("{regs} (Triton's rule)").format(regs=regs)
            else:
                cell = str(regs)
            rows.append([_("Registers per thread"), "launch__registers_per_thread", cell])
            per_wave = d.blocks_per_sm * self.gpu.sms
            rows += [[_("Waves per SM"), "launch__waves_per_multiprocessor", f"{d.programs / per_wave:.3g}"],
                     [_("SMs with work"), "", f"{d.sms_used} / {self.gpu.sms}"]]
        if self.simt:
            rows.append([_("Barriers"), "", f"{c.barriers:,}"])
        return Section(_("Launch Statistics"), _table(rows))

    def _smem(self) -> int:
        return triton_resources(self.counts.launch, self.launch.warps, self.gpu)[0]

    def _regs(self) -> int:
        info = self.counts.launch
        if self.simt:
            regs = info.get("regs")
        else:
            regs = triton_resources(info, self.launch.warps, self.gpu)[1]
        return DEFAULT_REGS if regs is None else int(regs)

    def _occupancy(self) -> Section | None:
        """Nsight Compute's Occupancy section: the blocks per SM each resource allows, under its
        ``launch__occupancy_limit_*`` names, and the least of them, from the model's residency."""
        occ = self.launch.occupancy
        if occ is None:
            return None
        rows = [[_("Block limit registers"), LIMIT_METRICS["registers"], str(occ.by_registers)],
                [_("Block limit shared memory"), LIMIT_METRICS["shared"], str(occ.by_shared)],
                [_("Block limit warps"), LIMIT_METRICS["threads"], str(occ.by_threads)],
                [_("Block limit SM"), LIMIT_METRICS["blocks"], str(occ.by_blocks)],
                [_("Blocks per SM (the least limit)"), "", str(occ.blocks_per_sm)],
                [_("Theoretical active warps per SM"), "sm__maximum_warps_avg_per_active_cycle", str(occ.warps_per_sm)],
                [_("Theoretical occupancy"), "sm__maximum_warps_per_active_cycle_pct", f"{100 * occ.occupancy:.1f} %"]]
        return Section(_("Occupancy"), _table(rows))

    def to_text(self) -> str:
        """The sections as aligned text, then the findings."""
        title = _("kernel {name} on the {gpu}").format(name=self.name or "?", gpu=self.gpu.name)
        parts = [title, "=" * display_width(title)]  # underlines as wide as their titles: a CJK character is two
        for s in self.sections:
            parts += ["", f"{s.title}", "-" * display_width(s.title), s.table.to_text()]
        parts += ["", _("Findings"), "-" * display_width(_("Findings"))]
        parts += [f"  * {f}" for f in self.findings] or ["  " + _("none: no rule fired")]
        return "\n".join(parts)

    def __str__(self) -> str:
        return self.to_text()

    __repr__ = __str__

    def _repr_html_(self) -> str:
        title = _("kernel {name} on the {gpu}").format(name=self.name or "?", gpu=self.gpu.name)
        out = [f'<div class="kernellab-report"><p><strong>{html.escape(title)}</strong></p>']
        for s in self.sections:
            out.append(f"<p><em>{html.escape(s.title)}</em></p>{s.table._repr_html_()}")
        items = "".join(f"<li>{html.escape(str(f))}</li>" for f in self.findings) or \
            f"<li>{html.escape(_('none: no rule fired'))}</li>"
        out.append(f"<p><em>{html.escape(_('Findings'))}</em></p><ul>{items}</ul></div>")
        return "".join(out)


def _prod(dims) -> int:
    out = 1
    for d in dims:
        out *= d
    return out


def report(counts, gpu=None, name: str | None = None) -> Report:
    """The profiler's report of ``counts`` on ``gpu`` (a ``GPU`` or its ``Perf``; default the RTX A6000):
    ``kernellab.report(counts, gpu)``, or ``counts.report(gpu)``."""
    return Report(counts, gpu, name)


member(report)
