"""The counts a launch returns, named as Nsight Compute names them; per-FMA views and scaling of them.

Every field counts active lanes only. The memory fields are sums of the pure functions in
:mod:`kernellab.access` over the launch's access records.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from operator import attrgetter

from kernellab.i18n import _

from .access import SECTOR_BYTES, WARP_SIZE

#: Instruction kinds for what a compiled kernel issues besides FMAs, memory and barriers:
#: ``int`` integer and address arithmetic, moves and comparisons (SASS ``IMAD``, ``IADD3``, ``LEA``,
#: ``LOP3``, ``SHF``, ``ISETP``, ``MOV``, uniform-datapath ``U*``); ``ctrl`` branches (``BRA``, ``EXIT``);
#: ``other`` anything else (``S2R``, floating-point operations other than FFMA, …).
OVERHEAD_KINDS = ("int", "ctrl", "other")
_VECTOR_SUFFIX = {8: ".v2", 16: ".v4"}  # bytes per lane → PTX vector suffix
_SASS_BASE = {"ld.global": "LDG", "st.global": "STG", "ld.shared": "LDS", "st.shared": "STS"}
_SASS_WIDTH = {"": "32", ".v2": "64", ".v4": "128"}
_SASS_OTHER = {"fma": "FFMA", "fadd": "FADD", "fmul": "FMUL", "bar.sync": "BAR", "int": "INT", "ctrl": "CTRL",
               "other": "OTHER"}
#: Floating-point instruction kinds and the FLOPs one active lane's instruction counts, as Nsight Compute's
#: ``flop_count_sp`` does (an FFMA is a multiply and an add: 2).
FLOPS_PER_KIND = {"fma": 2, "fadd": 1, "fmul": 1}


def memory_kind(op: str, space: str, width: int) -> str:
    """The instruction kind of a ``load``/``store`` of ``width`` bytes per lane in ``global``/``shared`` memory.

    >>> memory_kind("load", "shared", 16), memory_kind("store", "global", 4), memory_kind("load", "global", 8)
    ('ld.shared.v4', 'st.global', 'ld.global.v2')
    """
    return ("ld." if op == "load" else "st.") + space + _VECTOR_SUFFIX.get(width, "")


def sass_class(kind: str) -> str:
    """The SASS opcode class of an instruction kind: ``LDS.128`` for ``ld.shared.v4``, ``FFMA`` for ``fma``, ….

    Kinds a kernel invents itself (``blk.count_instr("iadd")``) are ``OTHER``, as are unknown ones.

    >>> [sass_class(k) for k in ("fma", "ld.shared", "ld.shared.v4", "st.global.v2", "bar.sync", "int", "mufu.ex2")]
    ['FFMA', 'LDS.32', 'LDS.128', 'STG.64', 'BAR', 'INT', 'MUFU.EX2']
    """
    for ptx, sass in _SASS_BASE.items():
        if kind.startswith(ptx) and kind[len(ptx):] in _SASS_WIDTH:
            return f"{sass}.{_SASS_WIDTH[kind[len(ptx):]]}"
    if kind.startswith("mufu.") and kind[5:].isalnum():  # the special-function unit, kernellab.simt.special
        return "MUFU." + kind[5:].upper()
    return _SASS_OTHER.get(kind, "OTHER")


def instr_mix(counts: Counts) -> dict[str, int]:
    """Warp instructions by SASS class (see :func:`sass_class`), the classes as ``nox -s sass`` counts them.

    >>> instr_mix(Counts(instr_by_kind={"fma": 64, "ld.shared.v4": 16, "ld.shared": 8, "int": 5}))
    {'FFMA': 64, 'INT': 5, 'LDS.128': 16, 'LDS.32': 8}
    """
    out: dict[str, int] = {}
    for kind, n in counts.instr_by_kind.items():
        c = sass_class(kind)
        out[c] = out.get(c, 0) + n
    return dict(sorted(out.items()))


def _alias(name: str, doc: str) -> property:
    """A read-only property that returns the field ``name``, with docstring ``doc`` and "Same as ``name``."

    For the names both engines share (``load_requests`` is ``gld_instr``, …).
    """
    return property(attrgetter(name), doc=f"{doc} Same as ``{name}``.")


def _loads_and_stores(name: str, what: str) -> property:
    """The property ``load_<name> + store_<name>``: ``what`` of global loads and stores together."""

    def total(self) -> int:
        return getattr(self, f"load_{name}") + getattr(self, f"store_{name}")

    return property(total, doc=f"{what} of global loads and stores together (``load_{name} + store_{name}``).")


def member(fn, name: str | None = None):
    """Make ``fn(counts, ...)`` a method of every count record as well (:class:`LoadStoreTotals`, so of
    ``Counts`` and ``TritonCounts``), under ``name`` (default its own). The modules above the records that
    present them attach their methods so, as Triton's language attaches its tensor's member functions:
    the records import none of them.

    Examples
    --------
    >>> def twice_the_sectors(counts):
    ...     return 2 * counts.sectors
    >>> _ = member(twice_the_sectors)
    >>> Counts(gld_sectors=8).twice_the_sectors()
    16
    >>> del LoadStoreTotals.twice_the_sectors
    """
    setattr(LoadStoreTotals, name or fn.__name__, fn)
    return fn


class LoadStoreTotals:
    """The totals :class:`~kernellab.Counts` and :class:`~kernellab.TritonCounts` share (both inherit
    them), from their ``load_*`` and ``store_*`` names and ``dram_sectors``. The modules that present
    counts attach their methods here (:func:`member`): ``counts.source()`` (:mod:`kernellab.source`) and
    ``counts.report()`` (:mod:`kernellab.profile`).

    Examples
    --------
    >>> c = Counts(gld_instr=2, gld_sectors=8, gst_instr=1, gst_sectors=4, dram_sectors={"x": 5})
    >>> c.requests, c.sectors, c.dram_bytes                  # 2 + 1; 8 + 4; 5 sectors × 32 B
    (3, 12, 160)
    """

    @property
    def dram_bytes(self) -> int:
        """The compulsory DRAM traffic in bytes, every distinct sector touched (``dram_sectors``) once × 32 B."""
        return SECTOR_BYTES * sum(self.dram_sectors.values())

    requests = _loads_and_stores("requests", "Requests (warp-level)")
    sectors = _loads_and_stores("sectors", "32-byte sectors, per request,")
    lines = _loads_and_stores("lines", "128-byte lines, per request,")
    bytes = _loads_and_stores("bytes", "Bytes requested (every re-read counted again)")


@dataclass(frozen=True)
class Counts(LoadStoreTotals):
    """What a profiler would report for one SIMT launch.

    Global-memory fields follow ``l1tex__t_{requests,sectors}_pipe_lsu_mem_global_op_{ld,st}.sum``;
    shared-memory fields follow ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum``; SIMT
    efficiency is ``smsp__thread_inst_executed_per_inst_executed`` / 32.

    ``instr_by_kind`` counts warp instructions (``smsp__inst_executed.sum`` split by kind) under
    PTX-like names: ``fma``; ``ld.global``, ``st.global``, ``ld.shared``, ``st.shared`` for 32-bit
    (and narrower) accesses, with ``.v2`` / ``.v4`` appended for 64- and 128-bit ones
    (``ld.shared.v4`` is an ``LDS.128``); ``bar.sync``; ``atom.global``; and the overhead a compiled kernel
    issues besides (kinds in ``OVERHEAD_KINDS``), counted automatically by the simulator
    (:mod:`kernellab.simt.lanes`) or declared by the kernel with :meth:`~kernellab.Block.count_instr`. :func:`~kernellab.counters.instr_mix` groups the kinds as SASS opcodes.

    The names both engines share (:class:`~kernellab.TritonCounts` has the same ones) are the canonical
    ones, which the documentation uses; here they are properties over the fields, which keep the lecture
    scripts' names (in which ``_instr`` counts requests): ``load_requests`` is ``gld_instr``,
    ``load_sectors`` is ``gld_sectors``, and so on
    for ``*_lines`` and ``*_bytes`` and for stores; ``requests``, ``sectors``, ``lines`` and ``bytes``
    add loads and stores; ``flops`` is 2 × ``fma`` + ``fadd`` + ``fmul``; ``dram_bytes`` is the
    compulsory DRAM traffic (the totals and ``dram_bytes`` from
    :class:`~kernellab.counters.LoadStoreTotals`). The table of every field, with its unit and Nsight Compute metric, is
    the documentation's "What each count means" page.

    Examples
    --------
    >>> c = Counts(fma=10, fadd=3, gld_instr=2, gld_sectors=8, gst_instr=1, gst_sectors=4, dram_sectors={"x": 5})
    >>> c.load_requests, c.requests, c.sectors, c.flops, c.dram_bytes      # flops = 2·10 + 3; 5 × 32 B
    (2, 3, 12, 23, 160)
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
    instr_by_kind: dict = field(default_factory=dict)  # kind (see below) → warp instructions
    shape: tuple = ()  # the problem size simulated, e.g. (M, N, K) for an SGEMM; () if unknown
    fadd: int = 0  # FP32 adds (and subtracts) executed by active lanes: blk.fadd, or count_instr("fadd")
    fmul: int = 0  # FP32 multiplies executed by active lanes: blk.fmul, or count_instr("fmul")
    gld_ideal_sectors: int = 0  # sectors the load requests would touch fully coalesced (access.ideal_sectors)
    gst_ideal_sectors: int = 0  # sectors the store requests would touch fully coalesced
    by_line: object = field(default=None, compare=False, repr=False)  # launch(lines=True): ByLine rows
    atomic_requests: int = 0  # global atomic requests, warp-level (l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum)
    atomic_sectors: int = 0  # 32-byte sectors those requests touch
    atomic_lines: int = 0  # 128-byte lines those requests touch
    atomic_bytes: int = 0  # bytes the active lanes' atomics send (the old values come back alike)
    atomic_same_address: int = 0  # the most atomic updates any one address receives (the L2 serialises them);
    #                               counts of several launches add theirs
    launch: dict = field(default_factory=dict, compare=False, repr=False)  # grid, block, smem_per_block (B)
    xu_instr: int = 0  # warp instructions on the special-function pipe, MUFU.* (sm__inst_executed_pipe_xu.sum):
    #                    blk.expf, blk.rsqrtf, … (kernellab.simt.special), one per element and active warp
    # the longest chain of dependent loads one thread executes, global and shared: a load whose address comes
    # from an earlier load's value waits for that load (a pointer chase); no Nsight Compute metric counts it,
    # a pointer-chasing microbenchmark measures its latency. Counts of several launches add theirs.
    load_chain_global: int = 0
    load_chain_shared: int = 0

    # --- the names both engines share (TritonCounts has the same) ------------------------------
    load_requests = _alias("gld_instr", "Global load requests, warp-level; ``l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum``.")
    store_requests = _alias("gst_instr", "Global store requests, warp-level; ``l1tex__t_requests_pipe_lsu_mem_global_op_st.sum``.")
    load_sectors = _alias("gld_sectors", "32-byte sectors global loads touch, per request; ``l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum``.")
    store_sectors = _alias("gst_sectors", "32-byte sectors global stores touch, per request; ``l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum``.")
    load_lines = _alias("gld_lines", "128-byte lines (tags) global loads touch, per request.")
    store_lines = _alias("gst_lines", "128-byte lines global stores touch, per request.")
    load_bytes = _alias("gld_bytes", "Bytes the active lanes load from global memory.")
    store_bytes = _alias("gst_bytes", "Bytes the active lanes store to global memory.")
    load_ideal_sectors = _alias("gld_ideal_sectors", "Sectors global loads would touch fully coalesced; Nsight's "
                                "Source-page \"L2 Theoretical Sectors Global\" (see ``access.ideal_sectors``).")
    store_ideal_sectors = _alias("gst_ideal_sectors", "Sectors global stores would touch fully coalesced.")

    @property
    def flops(self) -> int:
        """The floating-point operations, 2 per FFMA and 1 per FADD or FMUL, per active lane.

        Nsight Compute's ``flop_count_sp``: ``smsp__sass_thread_inst_executed_op_fadd_pred_on.sum`` +
        ``…_op_fmul_pred_on.sum`` + 2 × ``…_op_ffma_pred_on.sum``. Only arithmetic done through ``blk``
        counts (``blk.fma``, ``blk.fadd``, ``blk.fmul``); numpy arithmetic on lane values is not seen.
        """
        return sum(flops * getattr(self, kind) for kind, flops in FLOPS_PER_KIND.items())

    @property
    def shld_conflicts(self) -> int:
        """Shared-load bank conflicts, wavefronts beyond the ideal (wavefronts − ideal wavefronts)."""
        return self.shld_wavefronts - self.shld_ideal

    @property
    def shst_conflicts(self) -> int:
        """Shared-store bank conflicts, wavefronts beyond the ideal (wavefronts − ideal wavefronts)."""
        return self.shst_wavefronts - self.shst_ideal

    @property
    def lsu_instr(self) -> int:
        """Memory instructions through the LSU pipe (global and shared loads and stores, warp-level).

        Nsight Compute: ``smsp__inst_executed_pipe_lsu.sum`` restricted to memory instructions; the
        MIO queue issues them to L1TEX at most one per SM per cycle.
        """
        return self.gld_instr + self.gst_instr + self.shld_instr + self.shst_instr

    @property
    def overhead_instr(self) -> int:
        """Integer/address, control and other warp instructions (kinds ``OVERHEAD_KINDS``)."""
        return sum(self.instr_by_kind.get(k, 0) for k in OVERHEAD_KINDS)

    def simt_efficiency(self) -> float:
        """Average fraction of the 32 lanes active per issued warp instruction (0–1).

        Nsight Compute's ``smsp__thread_inst_executed_per_inst_executed.ratio`` / 32.

        Examples
        --------
        >>> Counts(warp_instr=4, thread_instr=96).simt_efficiency()
        0.75
        """
        return self.thread_instr / (WARP_SIZE * self.warp_instr) if self.warp_instr else 0.0

    def __add__(self, other: Counts) -> Counts:
        """Counts of two launches together (dicts merge by key and add)."""
        merged = {}
        for f in fields(self):
            a, b = getattr(self, f.name), getattr(other, f.name)
            if f.name == "by_line":
                merged[f.name] = None
            elif f.name == "launch":
                merged[f.name] = {}
            elif isinstance(a, dict):
                merged[f.name] = {k: a.get(k, 0) + b.get(k, 0) for k in a.keys() | b.keys()}
            elif f.name == "shape":
                merged[f.name] = a or b
            else:
                merged[f.name] = a + b
        return replace(self, **merged)

#: Counts that grow with M·N only — the epilogue's global stores (C is written once).
N2_FIELDS = ("gst_instr", "gst_sectors", "gst_lines", "gst_bytes", "gst_ideal_sectors")
#: Instruction kinds that grow with M·N only (a kind is one of these or one of them with a vector suffix).
N2_KINDS = ("st.global", "st.global.v2", "st.global.v4")
#: The operand each DRAM array name stands for, for :func:`~kernellab.scale_counts` (A is M×K, B is K×N, C is M×N).
OPERAND_DIMS = {"A": (0, 2), "B": (2, 1), "C": (0, 1)}


def per_fma(counts: Counts) -> dict[str, float]:
    """Every integer count divided by the FMAs, and ``dram_bytes`` per FMA.

    Examples
    --------
    >>> pf = per_fma(Counts(fma=64, warp_instr=6, gld_lines=66))
    >>> pf["warp_instr"], pf["gld_lines"]
    (0.09375, 1.03125)
    """
    if not counts.fma:
        raise ValueError(_("per_fma needs counts with at least one FMA"))
    out = {f.name: getattr(counts, f.name) / counts.fma for f in fields(counts)
           if isinstance(getattr(counts, f.name), int)}
    out["dram_bytes"] = counts.dram_bytes / counts.fma
    return out


def scale_counts(counts: Counts, n) -> Counts:
    """Scale counts simulated at ``counts.shape = (M, N, K)`` to an ``n × n × n`` (or ``(M', N', K')``) problem.

    Which counts grow how, with r_d = new size / simulated size along each dimension:

    * n³ (× r_M·r_N·r_K): ``fma``, global loads (``gld_*``), shared loads and stores (``shld_*``,
      ``shst_*``), ``barriers`` (per block per K tile), and every instruction kind but global stores;
    * n² (× r_M·r_N): global stores (``gst_*``) and ``st.global*`` instructions (C is written once);
    * ``dram_sectors``: A × r_M·r_K, B × r_K·r_N, C × r_M·r_N (any other array × r_M·r_N);
    * ``warp_instr`` is the sum of its kinds, scaled kind by kind; ``thread_instr`` keeps the
      simulated SIMT efficiency (thread_instr / warp_instr).

    Exact when both sizes are multiples of the kernel's tiles (every block does the same work);
    results are rounded to integers. The scaled counts carry no ``launch``: the simulated grid is not the
    scaled problem's, so ``predict`` spreads them over the whole GPU unless given a ``LoopShape``.

    Examples
    --------
    >>> c = Counts(fma=8, warp_instr=3, thread_instr=96, gld_instr=2, gst_instr=1,
    ...            instr_by_kind={"fma": 1, "ld.global": 1, "st.global": 1}, dram_sectors={"C": 4}, shape=(2, 2, 2))
    >>> big = scale_counts(c, 4)
    >>> big.fma, big.gld_instr, big.gst_instr, big.warp_instr, big.dram_sectors
    (64, 16, 4, 20, {'C': 16})
    """
    if len(counts.shape) != 3:
        raise ValueError(_("scale_counts needs counts.shape = (M, N, K), got {shape!r}").format(
            shape=counts.shape))
    new = tuple(int(v) for v in n) if isinstance(n, (tuple, list)) else (int(n),) * 3
    r = [b / a for a, b in zip(counts.shape, new)]
    r3, r2 = r[0] * r[1] * r[2], r[0] * r[1]
    out = {}
    for f in fields(counts):
        v = getattr(counts, f.name)
        if isinstance(v, int) and f.name not in ("warp_instr", "thread_instr", "load_chain_global", "load_chain_shared"):
            out[f.name] = round(v * (r2 if f.name in N2_FIELDS else r3))
    kinds = {k: round(v * (r2 if k in N2_KINDS else r3)) for k, v in counts.instr_by_kind.items()}
    warp = sum(kinds.values()) if kinds else round(counts.warp_instr * r3)
    out["warp_instr"] = warp
    out["thread_instr"] = round(counts.thread_instr * warp / counts.warp_instr) if counts.warp_instr else 0
    dram = {}
    for name, s in counts.dram_sectors.items():
        i, j = OPERAND_DIMS.get(name, (0, 1))
        dram[name] = round(s * r[i] * r[j])
    return replace(counts, **out, instr_by_kind=kinds, dram_sectors=dram, shape=new, by_line=None, launch={})
