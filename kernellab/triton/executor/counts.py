"""What a mini-Triton launch counts, and the tally that gathers it while programs run.

Every memory count goes through :mod:`kernellab.access`. A ``tl.load``/``tl.store`` of a
``@triton.jit`` kernel runs under the blocked layout and vector width Triton's compiler gives it
(:mod:`kernellab.triton.compiler.layout`, from the pointer's and mask's axis facts, :mod:`kernellab.triton.compiler.axis`):
its warp instructions are those of the compiled code, and its requests, sectors and lines come from the
addresses of the lanes of those instructions (:func:`count_planned`). Accesses with no layout (the
lecture form's ``tl.load(array, offsets)``, block pointers, tensor descriptors) keep the simpler rule:
the block flattened row-major, cut into warps of 32 lanes, one element a lane; atomics keep it for their
requests and sectors, and count their instructions under Triton's layout for them, by target
(``atomic_instructions_sm80``/``_sm90``). The shared-memory traffic Triton adds (layout conversions,
cross-warp reductions, ``tl.dot``'s operands) is in ``shared_stores_*``/``shared_loads_*``
(:mod:`kernellab.triton.compiler.convert`). Bytes are
the same under either rule. Counting is deferred and done in bulk, since the counters are pure
functions of the access records.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import lru_cache

import numpy as np

from ...access import (
    LINE_BYTES,
    SECTOR_BYTES,
    WARP_SIZE,
    affine_counts,
    affine_ideal,
    aligned_counts,
    merged_updates,
    prefix_counts,
    prefix_ideal,
)
from ...counters import LoadStoreTotals
from ..compiler import banks, convert, layout
from ..compiler.convert import prefetch_loads
from ..compiler.mma import Plan, mma_instructions, tensor_flops
from ..compiler.mma import kind as mma_kind
from .view import Base, View, spread


@dataclass(frozen=True)
class TritonCounts(LoadStoreTotals):
    """Counts of one launch (or a sum of launches), named as :class:`~kernellab.Counts` names them.

    Read them as attributes (``cnt.load_bytes``); ``cnt["load_bytes"]`` works too, for the lecture
    scripts that index counts like a dict. The names both engines share are ``load_requests``,
    ``load_sectors``, ``load_lines``, ``load_bytes`` (and ``store_*``), ``requests``, ``sectors``,
    ``lines``, ``bytes`` (loads and stores together), ``flops``, ``dram_sectors`` and ``dram_bytes`` (the
    totals and ``dram_bytes`` from :class:`~kernellab.counters.LoadStoreTotals`).
    A program's block is split into warps of 32 lanes, row-major, for the requests, sectors and lines.

    ``flops`` counts every floating-point operation of a ``@triton.jit`` kernel, once per element of
    the result block and per program (masks do not reduce it: every lane of a block computes, as on
    the GPU): ``+``, ``-``, ``*``, ``/`` 1; ``tl.fma`` 2; ``tl.sum`` over ``n`` elements ``n − 1``;
    ``tl.dot`` of ``M×K`` by ``K×N`` blocks ``2·M·N·K`` (also in ``dot_flops``). Comparisons,
    ``tl.maximum``/``tl.minimum``/``tl.where``, negation, integer arithmetic and special functions
    (``tl.exp``, ``tl.sqrt``, ``tl.rsqrt``, …, which run on the SFU) count none, as in Nsight
    Compute's ``flop_count_sp``. Kernels in the lecture form (``triton_launch``) compute on numpy
    arrays: only their ``tl.dot`` FLOPs are counted.

    Examples
    --------
    >>> c = TritonCounts(programs=2, load_bytes=256, store_bytes=128, dram_sectors={"x": 8})
    >>> c.programs, c.bytes, c.dram_bytes, (c + c).programs, c["load_bytes"]
    (2, 384, 256, 4, 256)
    """

    programs: int = 0  # program instances run
    loads: int = 0  # tl.load calls, summed over programs
    stores: int = 0  # tl.store calls, summed over programs
    load_bytes: int = 0  # bytes the active (masked-in) lanes load
    store_bytes: int = 0  # bytes the active lanes store
    load_requests: int = 0  # warp-level load requests: 32 lanes of a program's flattened block each
    load_sectors: int = 0  # 32-byte sectors those requests touch
    store_requests: int = 0  # warp-level store requests
    store_sectors: int = 0  # 32-byte sectors stores touch
    dot_flops: int = 0  # 2·M·N·K per tl.dot of an M×K by K×N block, per program
    atomics: int = 0  # tl.atomic_* calls, summed over programs
    atomic_bytes: int = 0  # active lanes × element size: the operands atomics send (old values come back alike)
    atomic_requests: int = 0  # warp-level atomic requests (Nsight: l1tex__t_requests_pipe_lsu_mem_global_op_atom)
    atomic_sectors: int = 0  # 32-byte sectors atomics touch
    per_program: dict | None = field(default=None, compare=False, repr=False)  # (x,y,z) → TritonCounts
    flops: int = 0  # floating-point operations, every kind above, dot_flops included
    load_lines: int = 0  # 128-byte lines (tags) load requests touch
    store_lines: int = 0  # 128-byte lines store requests touch
    atomic_lines: int = 0  # 128-byte lines atomic requests touch
    atomic_same_address: int = 0  # the most atomic updates any one address receives (they serialise at L2);
    #                               a sum of launches adds theirs
    dram_sectors: dict = field(default_factory=dict)  # array name → distinct 32-byte sectors loaded or stored
    by_line: object = field(default=None, compare=False, repr=False)  # lines=True: ByLine rows (kernellab.lines)
    launch: dict = field(default_factory=dict, compare=False, repr=False)  # the launch's grid
    # warp-level global load / store instructions executed, masked-off lanes or not (Nsight Compute's
    # smsp__inst_executed_op_global_ld.sum / _st.sum): a @triton.jit access's instructions per thread
    # under its layout × num_warps, per program; one per warp of 32 lanes for accesses with no layout
    load_instructions: int = 0
    store_instructions: int = 0
    # the same on sm_90, where a tensor descriptor's load or store is a TMA copy (cp.async.bulk.tensor,
    # counted in tma_instructions_sm90) and no ld/st.global: load_instructions less the descriptor loads'
    # pointer rewrite that sm_80 compiles (so equal to load_instructions in a kernel with no descriptor)
    load_instructions_sm90: int = 0
    store_instructions_sm90: int = 0
    # warp-level TMA copy instructions executed on sm_90 (the PTX's cp.async.bulk.tensor, SASS UTMALDG and
    # UTMASTG), loads and stores: Triton 3.9 cuts a descriptor's tile into boxes of at most 128 bytes along
    # its last dimension and 256 elements along the others, spreads them over the warps, one elected lane a
    # warp issuing each (kernellab.triton.compiler.convert.tma_copies), every warp running the instruction, per program
    tma_instructions_sm90: int = 0
    # warp-level tensor-core instructions of tl.dot as Triton 3.9 compiles it (kernellab.triton.compiler.mma):
    # mma.sync on sm_80; wgmma (4 warps each, counted per warp) or mma.sync on sm_90
    mma_sm80: int = 0
    mma_sm90: int = 0
    # the Tensor Core work of the sm_90 MMA instructions in FLOPs at the FP16 rate (kernellab.triton.compiler.mma.
    # tensor_flops: each wgmma or mma.sync of a warp × its tile's FLOPs, K counted as 16, 32 for fp8), the
    # time they hold the pipe (sm__pipe_tensor_op_gmma_cycles_active); sm_80's is mma_sm80 × 4096
    tensor_flops_sm90: int = 0
    # warp-level global atomic instructions executed (Nsight Compute's smsp__inst_executed_op_global_atom.sum),
    # by target: a tl.atomic_*'s instructions per thread under Triton 3.9's layout and vector width for it
    # (kernellab.triton.compiler.convert.atomic_instructions) × num_warps, per program
    atomic_instructions_sm80: int = 0
    atomic_instructions_sm90: int = 0
    # warp-level shared-memory store / load instructions executed, by target as for mma_* (Nsight
    # Compute's smsp__inst_executed_op_shared_st.sum / smsp__inst_executed_op_shared_ld.sum; ldmatrix is
    # a load): those Triton 3.9 adds for layout conversions, cross-warp reductions and tl.dot's operands
    # (kernellab.triton.compiler.convert), each thread's instructions × num_warps, per program
    shared_stores_sm80: int = 0
    shared_loads_sm80: int = 0
    shared_stores_sm90: int = 0
    shared_loads_sm90: int = 0
    # how the launch specialised its arguments, as triton.jit does: name → "D" (divisible by 16: ints,
    # and pointers whose data is 16-byte aligned) or 1 (an int equal to 1, made a constant)
    specialization: dict = field(default_factory=dict, compare=False)
    # sectors the load / store requests would touch were each request's distinct bytes packed contiguously
    # (kernellab.access.ideal_sectors; Nsight's Source-page "L2 Theoretical Sectors Global"): the same
    # definition as the SIMT engine's gld_ideal_sectors / gst_ideal_sectors, over the same requests
    load_ideal_sectors: int = 0
    store_ideal_sectors: int = 0
    # warp-level special-function (MUFU) instructions executed (Nsight Compute's sm__inst_executed_pipe_xu.sum):
    # one per element a thread holds, per program, of tl.exp, exp2, log, log2, sin, cos, sqrt, rsqrt and fp32
    # division, as Triton 3.9 compiles them (ex2.approx, lg2.approx, sin/cos.approx, sqrt.approx,
    # rsqrt.approx, div.full: one MUFU each); a block of n elements over num_warps warps: num_warps ×
    # ⌈n ÷ (32 × num_warps)⌉ warp instructions (a small block's elements repeat over the warps)
    xu_instructions: int = 0
    # of mma_sm90, the wgmma.mma_async instructions (SASS HGMMA, QGMMA, IGMMA: the GMMA part of Nsight
    # Compute's sm__inst_executed_pipe_tensor.sum; the rest of mma_sm90 is mma.sync, HMMA/IMMA)
    wgmma_sm90: int = 0
    # dot_flops by the operands' type, as the tensor cores run them (Nsight Compute's
    # sm__ops_path_tensor_src_<type>_dst_<type>.sum family): fp16 and bf16, tf32 (fp32 operands,
    # input_precision "tf32" or "tf32x3", its three passes counted once), fp8 (e4m3, e5m2), int8; fma: dots on
    # the CUDA cores (fp32 operands with input_precision="ieee", fp64), 2 FLOPs an FFMA
    dot_flops_f16: int = 0
    dot_flops_tf32: int = 0
    dot_flops_fp8: int = 0
    dot_flops_int8: int = 0
    dot_flops_fma: int = 0
    # bytes tensor descriptors' TMA copies move between global and shared memory on sm_90 (SASS UTMALDG,
    # UTMASTG): the tile's elements inside the tensor (out-of-bounds ones are filled, not read), loads and
    # stores; no global load request counts them
    tma_bytes_sm90: int = 0
    # shared-memory wavefronts (Nsight Compute's l1tex__data_pipe_lsu_wavefronts_mem_shared.sum) and bank
    # conflicts (l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum: wavefronts − ideal wavefronts) of the
    # instructions Triton 3.9 adds for layout conversions, cross-warp reductions and tl.dot's operands,
    # per target: each lane's address through the buffer's swizzle (kernellab.triton.compiler.swizzle for
    # a conversion, compiler.banks.operand_banks for an operand's store), ldmatrix and read-backs conflict-free;
    # scans, sorts, histograms and descriptors' tiles are not included
    shared_wavefronts_sm80: int = 0
    shared_wavefronts_sm90: int = 0
    shared_bank_conflicts_sm80: int = 0
    shared_bank_conflicts_sm90: int = 0

    def __getitem__(self, key: str):
        if key in self.keys():
            return getattr(self, key)
        raise KeyError(key)

    def keys(self) -> tuple[str, ...]:
        """The names ``cnt[name]`` accepts (every field and shared name)."""
        return (*_NAMES, "dram_sectors", "specialization", *_SHARED)

    def __add__(self, other: TritonCounts) -> TritonCounts:
        """Counts of two launches together (per-program breakdowns are dropped; DRAM sectors add per array)."""
        a, b = self.dram_sectors, other.dram_sectors
        dram = {k: a.get(k, 0) + b.get(k, 0) for k in a.keys() | b.keys()}
        spec = self.specialization if self.specialization == other.specialization else {}
        return TritonCounts(**{n: getattr(self, n) + getattr(other, n) for n in _NAMES}, dram_sectors=dram,
                            specialization=spec)


def count_access(addresses: np.ndarray, active: np.ndarray | None, width: int, ideal: bool = False) -> tuple:
    """Requests, sectors, bytes and lines of ``(programs, lanes)`` byte addresses, each program's lanes in their own warps.

    Every address is a multiple of ``width`` (arrays start aligned; offsets are whole elements).
    ``ideal=True`` adds a fifth number, the ideal sectors (:func:`kernellab.access.ideal_sectors`).

    Examples
    --------
    >>> count_access(np.arange(64)[None] * 4, None, 4)         # 64 floats: 2 warps × 4 sectors, × 1 line
    (2, 8, 256, 2)
    >>> count_access(np.zeros((3, 1), np.int64), None, 4)      # 3 programs read one float each
    (3, 3, 12, 3)
    >>> count_access(np.arange(32)[None] * 8, None, 4, ideal=True)   # every other float: 8 sectors, ideally 4
    (1, 8, 128, 2, 4)
    """
    rows, lanes = addresses.shape
    pad = -lanes % WARP_SIZE
    if pad:  # each program's lanes start a new warp
        active = np.ones(addresses.shape, bool) if active is None else active
        addresses = np.concatenate([addresses, np.zeros((rows, pad), np.int64)], axis=1)
        active = np.concatenate([active, np.zeros((rows, pad), bool)], axis=1)
    out = aligned_counts(addresses.reshape(-1, WARP_SIZE), None if active is None else active.reshape(-1, WARP_SIZE), width)
    return out if ideal else out[:4]


def count_planned(view: View, width: int, copies: int, p: layout.Plan, store: bool, closed: bool = True,
                  runs: bool = True) -> tuple[int, int, int, int, int]:
    """Warp instructions, requests, sectors, lines and ideal sectors of an access of ``view``'s offsets, elements of
    ``width`` bytes, each row run by ``copies`` programs alike, under its layout ``p``.

    The reference: each warp instruction's lanes start at the elements :func:`kernellab.triton.compiler.layout.lanes`
    gives; a lane moves ``vec`` consecutive elements, one ``vec × width``-byte access at the address of
    the first; a lane is active where the view keeps it (and, for a store, where it owns its elements).
    Those addresses (:meth:`View.lanes <kernellab.triton.executor.view.View.lanes>`) go to :func:`kernellab.access`
    (``count_access``). ``closed``: the same numbers from the view's structure where it has one — rows of
    consecutive offsets from each row's start (``prefix_counts``, ``affine_counts``, each lane's ``vec`` elements
    counted as one element ``vec`` times wider, when the layout cuts the block row-major into runs of
    ``32 × vec`` elements, ``p.chunked``), a tile of lines from the lines' starts (``_tile_counts``), and an
    unmasked view counted before at the same place within a 128-byte line (:meth:`View.memo
    <kernellab.triton.executor.view.View.memo>`). Instructions count whether or not their lanes are masked off;
    requests, as Nsight Compute counts them, only those with an active lane. Ideal sectors are
    :func:`kernellab.access.ideal_sectors` of those requests: a request of ``n`` active lanes at distinct
    addresses (every layout with a non-zero step) ideally takes ``⌈n × vec × width / 32⌉`` sectors
    (``prefix_ideal``, ``affine_ideal``).

    Examples
    --------
    >>> from kernellab.triton.compiler import axis
    >>> from kernellab.triton.executor.view import Base, View
    >>> ptr = axis.add(axis.splat(axis.argument(16), (1024,)), axis.arange(0, 1024), (1024,), elem_bytes=4)
    >>> p = layout.plan(ptr, None, (1024,), 4, 4)                 # 2 × ld.global.v4 per thread, 4 warps
    >>> count_planned(View(Base.consecutive(0, (1024,))), 4, 1, p, False)   # 8 × 512 bytes: 16 sectors each
    (8, 8, 128, 32, 128)
    >>> count_planned(View(Base.consecutive(0, (1024,))), 4, 1, p, False, closed=False)   # every lane's address
    (8, 8, 128, 32, 128)
    """
    v, w = p.vec, width
    rows, lanes = view.rows, view.numel
    instructions = p.instructions * rows * copies
    if closed:
        got = _closed(view, w, p, store, rows, lanes, runs)
        if got is not None:
            req, sec, lin, ideal = got
            return instructions, req * copies, sec * copies, lin * copies, ideal * copies
    first, owner = layout.lanes(p)
    offs, mask = view.lanes()
    idx = first.reshape(-1)
    addr = offs.reshape(rows, lanes).take(idx, axis=1)  # (take: the gather ``[:, idx]`` does, faster)
    addr *= w
    active = None if mask is None else mask.reshape(rows, lanes).take(idx, axis=1)
    if store and owner is not None:
        own = owner.reshape(-1)
        active = spread(own, addr.shape) if active is None else active & own
    req, sec, _, lin, ideal = count_access(addr, active, v * w, ideal=True)
    if closed and (memo := view.memo(w)) is not None:
        memo[0][memo[1], p, store] = req, sec, lin, ideal
    return instructions, req * copies, sec * copies, lin * copies, ideal * copies


def _closed(view: View, w: int, p: layout.Plan, store: bool, rows: int, lanes: int, runs: bool):
    """:func:`count_planned`'s requests, sectors, lines and ideal sectors (one copy) from the view's structure, or
    None where it has none that applies (``runs``: a run of rows counted from its first row, :func:`_run_row`).

    An unmasked view's counts are kept by its base (:meth:`View.memo`) and found again when it is moved by whole
    128-byte lines (FlashAttention's ``v_ptrs += BLOCK_N * HEAD_DIM``, every trip of its loop alike)."""
    memo = view.memo(w)
    if memo is not None:
        got = memo[0].get((memo[1], p, store))
        if got is not None:
            return got
    got = _closed_counts(view, w, p, store, rows, lanes, runs)
    if got is not None and memo is not None:
        memo[0][memo[1], p, store] = got
    return got


def _closed_counts(view: View, w: int, p: layout.Plan, store: bool, rows: int, lanes: int, runs: bool):
    """:func:`_closed` from the view's structure, not kept."""
    v = p.vec
    starts = view.starts()
    if starts is not None:
        k = view.prefix()
        if runs and k is not None and view.run() and LINE_BYTES % w == 0 and (rows == 1 or lanes * w % LINE_BYTES == 0):
            # one run of whole rows, each starting at the same byte of a 128-byte line (the first's), then a
            # prefix: (rows − 1) full rows alike and the last (k[-1] lanes); a row's counts are those of the
            # same row moved by whole lines (requests, sectors and lines are all cut at multiples of 128
            # bytes; ideal sectors do not depend on where the row starts)
            at = int(starts[0]) * w % LINE_BYTES // w
            req, sec, lin, ideal = _run_row(p, at, lanes, int(k[-1]), w, store)
            if rows > 1:
                f_req, f_sec, f_lin, f_ideal = _run_row(p, at, lanes, lanes, w, store)
                r = rows - 1
                req, sec, lin, ideal = req + f_req * r, sec + f_sec * r, lin + f_lin * r, ideal + f_ideal * r
            return req, sec, lin, ideal
        active = None if k is None or view.keep is None or (k == lanes).all() else k
        starts = np.asarray(starts, np.int64)
        mask = None if k is not None else view.mask()
        if p.chunked and not (starts % v).any():
            lanes_v = lanes // v
            if mask is None:
                kv = np.full(starts.size, lanes_v, np.int64) if active is None else -(-np.asarray(active, np.int64) // v)
                req, sec, lin, _ = prefix_counts(starts * w, kv, v * w)
                ideal = prefix_ideal(spread(kv, starts.shape), v * w)
            else:
                m = np.asarray(mask).reshape(rows, lanes_v, v)[:, :, 0].reshape(-1, WARP_SIZE)
                first = np.add.outer(starts, np.arange(lanes_v // WARP_SIZE, dtype=np.int64) * (WARP_SIZE * v)).ravel() * w
                stride = np.full(first.size, v * w, np.int64)
                req, sec, lin, _ = affine_counts(first, stride, m, v * w)
                ideal = affine_ideal(stride, m, v * w)
            return req, sec, lin, ideal
        if (aff := layout.affine(p)) is not None:
            bases, step = aff  # lane l of instruction i: element starts[r] + bases[i] + l·step of row r
            if mask is not None:
                return _affine_rows(bases, step, starts, np.asarray(mask).reshape(rows, lanes), w, v)
            # rows alike up to whole 128-byte lines count alike: one row per (start mod 128 B, active)
            k = spread(np.asarray(lanes if active is None else active, np.int64).reshape(-1), (starts.size,))
            key = starts * w % LINE_BYTES * (lanes + 1) + k
            if key.size == 1 or (key[1:] == key[0]).all():
                groups = [(0, key.size)]
            elif (key[1:-1] == key[0]).all():  # every row alike but the last (a masked tail)
                groups = [(0, key.size - 1), (key.size - 1, 1)]
            else:
                _, first_row, n = np.unique(key, return_index=True, return_counts=True)
                groups = zip(first_row.tolist(), n.tolist())
            req = sec = lin = ideal = 0
            for row, count in groups:
                kr = int(k[row])
                r, s_, li, i_ = _affine_row(p, int(starts[row]) * w % LINE_BYTES // w, None if kr == lanes else kr, w)
                req, sec, lin, ideal = req + r * count, sec + s_ * count, lin + li * count, ideal + i_ * count
            return req, sec, lin, ideal
    tile = view.lines()
    if tile is not None and (runs := layout.line_runs(p, tile[0])) is not None:
        return _tile_counts_seen(runs, tile, view, w, p, store)
    return None


_TILES_SEEN: dict = {}  # (plan, store, width, line starts up to whole 128-byte lines) → _tile_counts
_TILES_SEEN_MAX, _TILES_SEEN_STARTS = 64, 1 << 14  # entries kept, and the most line starts one may hold
_TILES_SEEN_LANES = 1 << 17  # the most mask lanes (over the step's programs) a tile looked up may have


def _tile_counts_seen(runs: layout.LineRuns, tile: tuple, view: View, w: int, p: layout.Plan, store: bool):
    """:func:`_tile_counts` of a tile, found again when a tile of the same plan has the same line starts up to a
    shift by whole 128-byte lines and the same mask (a loop's tile at its next step; a kernel launched again)."""
    mask = view.mask()
    if tile[1].size > _TILES_SEEN_STARTS or mask is not None and mask.size > _TILES_SEEN_LANES:
        return _tile_counts(runs, tile, mask, view.rows, w, p.vec)  # a large step: counted, not looked up
    if mask is not None and mask.all():  # every lane active (a descriptor's tile inside its tensor):
        mask = None  # the counts of the unmasked tile (each run whole: k0 = 0, k1 = K − 1, every request live)
    s = spread(tile[1], (view.rows, tile[1].shape[1]))
    per_line = LINE_BYTES // w
    active = None if mask is None else (np.shape(mask), np.packbits(np.asarray(mask, bool)).tobytes())
    key = (p, store, w, s.shape, (s - int(s.min()) // per_line * per_line).tobytes(), active)
    got = _TILES_SEEN.get(key)
    if got is None:
        got = _tile_counts(runs, tile, mask, view.rows, w, p.vec)
        if len(_TILES_SEEN) >= _TILES_SEEN_MAX:
            _TILES_SEEN.clear()
        _TILES_SEEN[key] = got
    return got


def _tile_counts(runs: layout.LineRuns, tile: tuple, mask, rows: int, w: int, v: int) -> tuple[int, int, int, int] | None:
    """Requests, sectors, lines and ideal sectors of a tile stored as lines (``tile``: ``(axis, line starts, n)``,
    :meth:`View.lines <kernellab.triton.executor.view.View.lines>`; ``mask``: bool ``(rows, lanes)`` or None),
    from the lines' starts.

    Instruction ``i`` of row ``r`` moves, on each of its lines ``g``, the lanes ``k`` of a run
    (:func:`~kernellab.triton.compiler.layout.line_runs`): their addresses are ``(S + first + k·vec)·w`` with ``S``
    the line's start. A run's active lanes must be consecutive (a run cut at both ends); then, lanes
    being at most 16 bytes and ``vec·w`` apart, the 32-byte sectors (128-byte lines) those addresses
    fall in are every one from the first active lane's to the last's — an interval per run — and, the
    starts being multiples of ``vec``, so are the ``vec·w``-byte units they are (distinct addresses).
    An instruction's sectors, lines and distinct addresses are the sizes of the unions of its runs'
    intervals; its ideal sectors ``⌈distinct · vec · w / 32⌉`` (:func:`kernellab.access.packed_sectors`).
    None when a run's active lanes have a gap or a line does not start at a multiple of ``vec`` (the
    caller then counts the lanes' addresses).
    """
    _axis, line_starts, _n = tile
    S = spread(line_starts, (rows, line_starts.shape[1]))[:, runs.line] + runs.first  # (rows, I, G)
    if v > 1 and (S % v).any():
        return None
    K = runs.K
    if mask is None:
        lo, hi = S, S + (K - 1) * v
        live = None
        req = rows * runs.line.shape[0]
    else:
        act = np.asarray(mask).reshape(rows, -1)[:, runs.members]  # (rows, I, G, K)
        n = act.sum(axis=3)
        k0 = np.argmax(act, axis=3)
        k1 = K - 1 - np.argmax(act[..., ::-1], axis=3)
        live = n > 0
        if ((k1 - k0 + 1 != n) & live).any():
            return None
        lo, hi = S + k0 * v, S + k1 * v
        req = int(np.count_nonzero(live.any(axis=2)))
    lo, hi = lo * w, hi * w
    distinct = _union_sizes(lo, hi, live, v * w)
    ideal = int((-(-distinct * (v * w) // SECTOR_BYTES)).sum())
    return (req, int(_union_sizes(lo, hi, live, SECTOR_BYTES).sum()), int(_union_sizes(lo, hi, live, LINE_BYTES).sum()),
            ideal)


def _union_sizes(lo: np.ndarray, hi: np.ndarray, live, unit: int) -> np.ndarray:
    """Per leading index, the number of ``unit``-byte chunks in the union of the intervals
    ``[chunk(lo), chunk(hi)]`` along the last axis (``unit`` a power of two; ``live`` False: an empty interval).

    >>> _union_sizes(np.array([[0, 64, 40]]), np.array([[31, 100, 40]]), None, 32)   # chunks 0, 2–3 and 1
    array([4])
    """
    shift = unit.bit_length() - 1
    a, b = lo >> shift, hi >> shift
    if live is not None:
        a, b = np.where(live, a, np.iinfo(np.int64).max), np.where(live, b, -1)
    if a.shape[-1] > 1 and (a[..., 1:] < a[..., :-1]).any():
        order = np.argsort(a, axis=-1, kind="stable")
        a, b = np.take_along_axis(a, order, axis=-1), np.take_along_axis(b, order, axis=-1)
    reach = np.maximum.accumulate(b, axis=-1)
    begin = a.copy()
    begin[..., 1:] = np.maximum(a[..., 1:], reach[..., :-1] + 1)
    return np.maximum(b - begin + 1, 0).sum(axis=-1)


@lru_cache(maxsize=4096)
def _run_row(p: layout.Plan, at: int, lanes: int, k: int, w: int, store: bool) -> tuple[int, int, int, int]:
    """Requests, sectors, lines and ideal sectors of one row of ``lanes`` consecutive elements from element ``at``
    (within one 128-byte line), its first ``k`` lanes active, under plan ``p``: :func:`count_planned`
    of that row, once per (plan, start within a line, active lanes) over every launch."""
    view = View(Base.consecutive(at, (lanes,)), 0, None if k == lanes else np.array([k], np.int64))
    return count_planned(view, w, 1, p, store, runs=False)[1:]


@lru_cache(maxsize=4096)
def _affine_row(p: layout.Plan, start: int, k: int | None, w: int) -> tuple[int, int, int, int]:
    """:func:`_affine_rows` of one row from element ``start`` (< one line) with its first ``k`` lanes active."""
    bases, step = layout.affine(p)
    return _affine_rows(bases, step, np.array([start], np.int64), k, w, p.vec)


def _affine_rows(bases, step: int, starts, mask, w: int, v: int) -> tuple[int, int, int, int]:
    """Requests, sectors, lines and ideal sectors of rows whose instruction ``i`` has lane ``l`` at element
    ``starts[r] + bases[i] + l·step`` (``affine_counts``, ``affine_ideal``); ``mask``: bool ``(rows, lanes)``,
    an int (every row's first that many elements active), or None."""
    first = (starts[:, None] + bases[None, :]).ravel() * w
    active = None
    if mask is not None:
        idx = (bases[:, None] + np.arange(WARP_SIZE) * step).ravel()
        active = (idx[None, :] < mask) if isinstance(mask, int) else mask[:, idx]
        active = spread(active, (starts.size, idx.size)).reshape(-1, WARP_SIZE)
    stride = np.full(first.size, step * w, np.int64)
    req, sec, lin, _ = affine_counts(first, stride, active, v * w)
    return req, sec, lin, affine_ideal(stride, active, v * w)


_FIELDS = tuple(f.name for f in fields(TritonCounts))


def _counts(n: dict, **rest) -> TritonCounts:
    """``TritonCounts(**n, **rest)`` given every field, made without the frozen dataclass's ``__init__``
    (one ``object.__setattr__`` per field: 20 times the cost, once per launch).

    >>> from dataclasses import fields
    >>> c = _counts({f.name: f.default if f.name != "programs" else 3 for f in fields(TritonCounts)
    ...              if f.name not in ("per_program", "dram_sectors", "by_line", "launch", "specialization")},
    ...             per_program=None, dram_sectors={}, by_line=None, launch={}, specialization={})
    >>> c == TritonCounts(programs=3), c.programs
    (True, 3)
    """
    out = object.__new__(TritonCounts)
    d = out.__dict__
    d.update(_FIELD_ORDER)  # the fields in their order; updating a key keeps its place
    d.update(n)
    d.update(rest)
    if len(d) != len(_FIELDS) or len(n) + len(rest) != len(_FIELDS):  # a field missing or one too many
        values = {**n, **rest}
        d.clear()
        d.update({k: values[k] for k in _FIELDS})
    return out


_FIELD_ORDER = dict.fromkeys(_FIELDS)


def _moved(convert, kind: str, src, dst, bits: int, num_warps: int, target: str):
    """``(stores, loads)`` per thread of one recorded conversion, reduction or ``tl.dot`` on ``target``, then
    ``(wavefronts, ideal wavefronts)`` of a program's warps (zeros for scans and sorts; None when a
    layout is not known)."""
    a = convert.resolve(src, target)
    if a is None:
        return None
    if kind == "reduce":
        return (*convert.reduction(a, dst[0], bits, dst[1], dst[2], target),
                *banks.reduction_banks(a, dst[0], bits, dst[1], dst[2], target))
    if kind == "scan":
        return (*convert.scan(a, dst[0], bits, dst[1]), 0, 0)
    if kind == "sort":
        return (*convert.sort(a, bits, target), 0, 0)
    b = convert.resolve(dst[0] if kind == "dot" else dst, target)
    if b is None:
        return None
    if kind == "dot":
        what, tma, ref, copied, loaded = dst[1:]
        acc = src if src.__class__ is tuple and src[0] == "dot" and len(src) > 5 else None
        return banks.staged(a, b, what, bits, num_warps, target, tma, _plan(ref, what, num_warps),
                              tuple(copied or (False, False)), None if acc is None else _plan(acc[5], acc[3], acc[4]),
                              loaded)
    if a.shape != b.shape:
        return None
    return (*convert.conversion(a, b, bits, target), *banks.conversion_banks(a, b, bits, target))


def _moves_on_targets(kind: str, src, dst, bits: int, num_warps: int) -> tuple:
    """``(sm80, sm90)``: :func:`_moved` of one recorded move on each target (a conversion's instructions
    differ by target even between the same layouts: ``stmatrix`` exists from sm_90 on)."""
    return (_moved(convert, kind, src, dst, bits, num_warps, "sm80"),
            _moved(convert, kind, src, dst, bits, num_warps, "sm90"))


_WANT = "frozen"  # marks a memory access's tag whose ``wanted`` dict is replaced by the one width it gives


def _frozen(tag):
    """A layout tag as a key (:func:`kernellab.triton.compiler.convert.resolve`): a load's ``wanted`` (the launch's
    widths, a dict that grows) replaced by the width it gives this load's shape and order."""
    if tag.__class__ is not tuple:
        return tag
    kind = tag[0]
    if kind in ("load", "store"):
        how, width, num_warps, wanted = tag[1:]
        if wanted is None:
            return tag
        order, _own = layout.own_width(how[0], how[2], width)
        return kind, how, width, num_warps, (_WANT, (how[2], order), wanted.get((how[2], order)))
    if kind in ("slice", "expand", "trans", "sm80"):
        return (kind, _frozen(tag[1]), *tag[2:])
    if kind == "dot" and len(tag) > 5:
        return (*tag[:5], _plan(tag[5], tag[3], tag[4]))
    return tag


@lru_cache(maxsize=256)
def dot_kind(operands: str, precision=None) -> str:
    """The ``dot_flops_*`` a dot of ``operands`` (a dtype name) under ``precision`` counts in: ``"f16"``
    (fp16, bf16), ``"tf32"``, ``"fp8"``, ``"int8"``, or ``"fma"`` (no tensor core)."""
    what = mma_kind(operands, precision)[0]
    return {"fp16": "f16", "bf16": "f16"}.get(what, what or "fma")


@lru_cache(maxsize=256)
def _what(operands: str, precision) -> str:
    return mma_kind(operands, precision)[0] or "fma"


@lru_cache(maxsize=1024)
def _mma_counts(dims: tuple, plan, num_warps: int) -> tuple:
    """``(mma_sm80, mma_sm90, tensor_flops_sm90)`` of one program's dot under its plan."""
    m, n, k, operands, precision, batch = dims
    sm80, sm90 = mma_instructions(m, n, k, operands, precision, num_warps, batch, plan)
    return sm80, sm90, tensor_flops(m, n, k, operands, precision, num_warps, batch, plan)[1]


def _plan(ref, what: str, num_warps: int, batch: int = 1):
    """The frozen :class:`~kernellab.triton.compiler.mma.Plan` of a dot's ``(chain, place)`` (a plan already)."""
    if ref is None or ref.__class__ is Plan:
        return ref
    chain, i = ref
    return chain.plan(i, what, num_warps, batch)


def _thawed(tag):
    """The tag :func:`_frozen` made a key of, with a ``wanted`` dict that gives the same width."""
    if tag.__class__ is not tuple:
        return tag
    kind = tag[0]
    if kind in ("load", "store"):
        last = tag[4]
        if last.__class__ is tuple and last and last[0] == _WANT:
            return (*tag[:4], {} if last[2] is None else {last[1]: last[2]})
        return tag
    if kind in ("slice", "expand", "trans", "sm80"):
        return (kind, _thawed(tag[1]), *tag[2:])
    return tag


def _move_key(kind: str, src, dst, num_warps: int = 4) -> tuple:
    """``(src, dst)`` of a recorded move with their tags frozen (:func:`_frozen`): a reduction's ``dst`` is
    ``(axis, operands, used)``, a dot's ``(b's tag, what)`` (and which operands are TMA tiles), a
    conversion's a tag."""
    if kind == "dot":
        b, what, tma, ref, copied, loaded = dst
        return _frozen(src), (_frozen(b), what, tma, _plan(ref, what, num_warps), tuple(copied or (False, False)),
                              loaded)
    return _frozen(src), (_frozen(dst) if kind == "convert" else dst)


@lru_cache(maxsize=4096)
def _moves_by_target(kind: str, src, dst, bits: int, num_warps: int) -> tuple:
    """:func:`_moves_on_targets` of a move keyed by :func:`_move_key`, once per key over every launch."""
    if kind == "dot":
        dst = (_thawed(dst[0]), *dst[1:])
    elif kind == "convert":
        dst = _thawed(dst)
    return _moves_on_targets(kind, _thawed(src), dst, bits, num_warps)


_NAMES = tuple(f.name for f in fields(TritonCounts)
               if f.name not in ("per_program", "dram_sectors", "by_line", "launch", "specialization"))
_ZEROS = dict.fromkeys(_NAMES, 0)  # a new tally's counts (copied)
_SHARED = ("requests", "sectors", "lines", "bytes", "dram_bytes")
_FLUSH_LANES = 1 << 20  # count pending small accesses once this many lanes have gathered


class Wanted(dict):
    """A launch's ``(shape, order) → the most elements per thread an access of that shape and order asks for``
    (see :meth:`Tally.planned`), which can watch the widths asked for from :meth:`watch` on: ``mixed`` says
    whether, since, a key was asked for two widths, or for more than it had before. If not, every read of a
    key finds the same width whatever order the accesses came in (a load reads its own key, after asking).

    >>> w = Wanted(); w[("s", 0)] = 4; w.watch(); w.ask(("s", 0), 2, 4); w.ask(("t", 1), 8, 0); w.mixed
    False
    >>> w.ask(("t", 1), 4, 8); w.mixed     # the same key, another width: the order would matter
    True
    """

    __slots__ = ("asked", "mixed")

    def __init__(self):
        super().__init__()
        self.asked: dict | None = None  # key → the width first asked for since watch(); None: not watching
        self.mixed = False

    def watch(self, on: bool = True):
        """Start (or, ``on=False``, stop) watching the widths asked for."""
        self.asked, self.mixed = ({} if on else None), False

    def ask(self, key: tuple, own: int, have: int):
        """An access asked for ``own`` elements per thread under ``key``, which held ``have`` (0: none)."""
        first = self.asked.setdefault(key, own)
        if first != own or own > have > 0:
            self.mixed = True


class Tally:
    """Mutable accumulator for one launch (or one batch of its programs); :meth:`result` freezes it.

    Record through its public methods: with ``lines=True`` each call is charged to the kernel's line
    that made it (:mod:`kernellab.lines` wraps every public method but ``result``, ``merge`` and
    ``flush``); what is added to ``n`` directly is launch-level (``programs``).
    """

    __slots__ = ("n", "_pending", "_pending_lanes", "_updates", "_planned", "_moves", "dram", "rounds", "flags", "dep",
                 "locks")

    def __init__(self):
        self.n = _ZEROS.copy()
        # programs' waits: sum, most of one program, programs, tl.dot ones (summed); bytes loaded before the first
        # wait and stored after the last (summed over the programs)
        self.rounds = [0, 0, 0, 0, 0, 0]
        self.flags: dict = {}  # tl.range's loop_stages and warp_specialize (kernellab.triton.executor.rounds.note_loop)
        # FP32 operations and MUFU warp instructions on tl.dot results (rounds.dependent), and the FLOPs of the
        # dots fed by a dot's result (rounds.accumulated)
        self.dep = [0, 0, 0, 0]
        # lock → [acquisitions, round trips, bytes] of its critical sections (kernellab.triton.executor.locks)
        self.locks: dict[tuple, list] = {}
        self.dram: dict[str, int] = {}  # array name → sectors first touched by what this tally recorded (lines=True)
        self._pending: dict[tuple, list] = {}
        self._pending_lanes = 0
        self._updates: dict[int, np.ndarray] = {}  # array data address → atomic updates per element
        self._planned: list = []  # loads whose layout waits for the kernel's other accesses (see planned)
        self._moves: list = []  # conversions and reductions whose layouts wait alike (see converted, reduced)

    def atomic_targets(self, flat: np.ndarray, offs: np.ndarray, copies: int = 1, warp_of=None):
        """Record which elements of ``flat`` atomics update (``offs``: the active lanes' element offsets;
        ``warp_of``: each lane's warp, whose lanes that update one element the L1 merges 16 at a time,
        :func:`kernellab.access.merged_updates`).

        ``atomic_same_address`` of the result is the largest number of L2 updates one element receives.

        >>> t = Tally(); h = np.zeros(4, np.int32)
        >>> t.atomic_targets(h, np.array([0, 1, 1, 3])); t.atomic_targets(h, np.array([1]))
        >>> t.result().atomic_same_address          # element 1: 2 + 1 updates
        3
        """
        key = flat.__array_interface__["data"][0]
        counts = self._updates.get(key)
        if counts is None:
            counts = self._updates[key] = np.zeros(max(flat.size, 1), np.int64)
        offs = np.asarray(offs, np.int64).reshape(-1)
        if warp_of is None:
            np.add.at(counts, offs, copies)
        else:
            element, updates = merged_updates(offs, np.asarray(warp_of, np.int64).reshape(-1))
            np.add.at(counts, element, updates * copies)

    def planned(self, kind: str, view: View, width: int, copies: int, how: tuple, num_warps: int, wanted: dict,
                closed: bool = True):
        """Record one ``tl.load``/``tl.store`` of a ``@triton.jit`` kernel: the offsets and kept lanes of ``view``,
        elements of ``width`` bytes, each row run by ``copies`` programs alike, counted under the layout Triton's
        coalescing pass gives it (:func:`kernellab.triton.compiler.layout.plan`; ``closed``: see
        :func:`count_planned`).

        ``how`` is ``(pointer facts, mask facts or None, block shape)``, the axis facts of the pointer block and
        the mask. ``wanted`` is the launch's ``(shape, order) → the most elements per thread an access of that
        shape and order asks for`` (shared by every tally of the launch, line rows included). A store is
        counted now; a load takes the largest width in ``wanted`` for its shape and order, so it is
        counted when its tally is merged or read (``_settle``), once the kernel's accesses have run.
        """
        ptr, mask, shape = how
        order, own = layout.own_width(ptr, shape, width)
        key = (shape, order)
        have = wanted.get(key, 0)
        if own > have:
            wanted[key] = own
        if wanted.__class__ is Wanted and wanted.asked is not None:
            wanted.ask(key, own, have)
        n = self.n
        n[kind + "s"] += view.rows * copies
        n[kind + "_bytes"] += view.kept() * width * copies
        if kind == "store" or not shape:
            self._count_planned(kind, view, width, copies, closed, layout.plan(ptr, mask, shape, width, num_warps))
        else:
            self._planned.append((view, width, copies, closed, how, num_warps, wanted, key))

    def _count_planned(self, kind: str, view: View, width: int, copies: int, closed: bool, p):
        ins, req, sec, lin, ideal = count_planned(view, width, copies, p, kind == "store", closed)
        n = self.n
        n[kind + "_ideal_sectors"] += ideal
        n[kind + "_instructions"] += ins
        n[kind + "_instructions_sm90"] += ins
        n[kind + "_requests"] += req
        n[kind + "_sectors"] += sec
        n[kind + "_lines"] += lin

    def converted(self, src, dst, bits: int, num_warps: int, programs: int):
        """Record a value of layout tag ``src`` reaching an op that needs layout tag ``dst`` (a store's),
        in ``programs`` programs: a layout conversion through shared memory when the two differ
        (:func:`kernellab.triton.compiler.convert.conversion`), counted once the layouts are known (``_settle``)."""
        self._moves.append(("convert", src, dst, bits, num_warps, programs))

    def reduced(self, src, axis, bits: int, operands: int, used, num_warps: int, programs: int):
        """Record a reduction of a block of layout tag ``src`` along ``axis`` in ``programs`` programs
        (:func:`kernellab.triton.compiler.convert.reduction`), counted once the layouts are known (``_settle``)."""
        self._moves.append(("reduce", src, (axis, operands, used), bits, num_warps, programs))

    def scanned(self, src, axis: int, bits: int, operands: int, num_warps: int, programs: int):
        """Record a scan (``tl.cumsum``, ``tl.associative_scan``) of a block of layout tag ``src`` along
        ``axis`` in ``programs`` programs (:func:`kernellab.triton.compiler.convert.scan`)."""
        self._moves.append(("scan", src, (axis, operands), bits, num_warps, programs))

    def sorted(self, src, bits: int, num_warps: int, programs: int):
        """Record a ``tl.sort`` of a block of layout tag ``src`` along its last dimension in ``programs``
        programs (:func:`kernellab.triton.compiler.convert.sort`)."""
        self._moves.append(("sort", src, (), bits, num_warps, programs))

    def atomic_layout(self, how, elem_bytes: int, num_warps: int, op: str, is_float: bool, programs: int):
        """Record a ``tl.atomic_*`` through pointers of axis facts ``how`` in ``programs`` programs: its warp
        instructions by target (:func:`kernellab.triton.compiler.convert.atomic_instructions`)."""
        n = self.n
        for target in ("sm80", "sm90"):
            n["atomic_instructions_" + target] += programs * convert.atomic_instructions(
                how, elem_bytes, num_warps, op, is_float, target)

    def dotted(self, m: int, n: int, k: int, operands: str, precision, num_warps: int, batch: int, programs: int,
               ref):
        """Record a ``tl.dot`` of an ``M×K`` by a ``K×N`` block (``batch`` of them) in ``programs`` programs:
        its MMA instructions by target (:func:`kernellab.triton.compiler.mma.mma_instructions`), counted
        once the program has run and the dots after it are known (``ref``: its chain and place,
        :class:`kernellab.triton.compiler.mma.DotChain`)."""
        self._moves.append(("mma", ref, (m, n, k, operands, precision, batch), 0, num_warps, programs))

    def staged(self, a, b, what: str, bits: int, num_warps: int, programs: int, tma: tuple = (False, False),
               ref=None, copied: list | None = None, loaded: tuple = (True, True)):
        """Record a ``tl.dot`` of operands of layout tags ``a`` and ``b`` (``what``: ``"fp16"``, ``"tf32"``, …)
        in ``programs`` programs: their way through shared memory to the tensor cores
        (:func:`kernellab.triton.compiler.banks.staging`; ``tma``: which are tensor descriptors' tiles;
        ``loaded``: whether each is a load's result, computed from one by casts, or else computed), counted
        once the layouts are known (``_settle``)."""
        self._moves.append(("dot", a, (b, what, tuple(tma), ref, copied, tuple(loaded)), bits, num_warps, programs))

    def pipelined(self, tag, operand: bool, extra: int, iterations: int, num_warps: int, programs: int,
                  feeds: tuple | None = None):
        """Record a load of layout tag ``tag`` that a loop of ``iterations`` iterations pipelines ``extra``
        (num_stages − 1) iterations ahead (:mod:`kernellab.triton.executor.loops`): its copies run
        ``extra`` more times (the prologue's, predicated off past the loop's end); a load that feeds no dot
        (``operand`` False) is read back from shared memory every iteration (``ld.shared``). ``feeds``:
        ``(slot, kind, chain reference, loaded)`` of the dot an operand feeds: ``wgmma`` wants B K-major for all
        but 16-bit floats, so a B loaded along N that is the dot's operand itself (``loaded`` True) is copied
        one element (4 bytes) at a time on sm_90 (a computed one is copied as loaded, then read back)."""
        self._moves.append(("pipe", tag, (operand, extra, iterations, feeds), 0, num_warps, programs))

    def remat(self, load, consumer, axis: int, num_warps: int, programs: int):
        """Record a small 1-D load (layout tag ``load``) broadcast along ``axis`` into a block of layout tag
        ``consumer``: Triton loads it again in that layout, sliced (every lane along ``axis`` a copy), instead
        of converting it; its warp instructions are counted under that layout
        (:func:`kernellab.triton.compiler.layout.sliced_instructions`), its requests and sectors stay its own
        layout's."""
        self._moves.append(("remat", load, (consumer, axis), 0, num_warps, programs))

    def prefetched(self, ref, dims: tuple, num_warps: int, programs: int):
        """Record sm_80's ``Prefetch`` of a pipelined loop's one dot (``dims``: ``(M, N, K, kind, bits)``):
        the first K slice of its operands loaded once more (``ldmatrix``), before the loop."""
        self._moves.append(("prefetch", ref, dims, 0, num_warps, programs))

    def tma(self, kind: str, how, elem_bytes: int, num_warps: int, programs: int, wanted: dict | None,
            nbytes: int = 0):
        """Record a tensor descriptor's ``desc.load`` (``kind`` ``"load"``) or ``desc.store`` in ``programs``
        programs, already recorded as the pointer access sm_80 compiles it to (``how``: its pointer's and
        mask's axis facts and block shape; ``wanted``: the launch's, for a load's layout, see
        :meth:`planned`): on sm_90 it is TMA copies (:func:`kernellab.triton.compiler.convert.tma_copies`) and
        none of that access's global instructions, taken off ``*_instructions_sm90`` once the layouts
        are known (``_settle``); ``nbytes``: the bytes of its elements inside the tensor, over the programs
        (``tma_bytes_sm90``)."""
        shape = how[2]
        self.n["tma_instructions_sm90"] += convert.tma_copies(shape, elem_bytes, num_warps) * num_warps * programs
        self.n["tma_bytes_sm90"] += nbytes
        self._moves.append(("tma", kind, (how, wanted), elem_bytes, num_warps, programs))

    def histogrammed(self, bins: int, num_warps: int, programs: int):
        """Record a ``tl.histogram`` of ``bins`` bins in ``programs`` programs: its shared-memory bins zeroed
        and read back (:func:`kernellab.triton.compiler.convert.histogram`), the same on both targets."""
        st, ld = convert.histogram(bins, num_warps)
        for target in ("sm80", "sm90"):
            self.n["shared_stores_" + target] += st * num_warps * programs
            self.n["shared_loads_" + target] += ld * num_warps * programs

    def broadcast(self, num_warps: int, programs: int):
        """Record a scalar atomic whose old value is used: one thread's result stored to shared memory and
        read back by every thread (``st.shared`` and ``ld.shared`` once a thread, on both targets)."""
        for target in ("sm80", "sm90"):
            self.n["shared_stores_" + target] += num_warps * programs
            self.n["shared_loads_" + target] += num_warps * programs

    def shared_sm90(self, stores: int, loads: int):
        """Record warp-level shared-memory stores and loads only sm_90 runs (a TMA tile's way between
        shared memory and registers, a device-side descriptor written to shared memory)."""
        self.n["shared_stores_sm90"] += stores
        self.n["shared_loads_sm90"] += loads

    def _untma(self, kind: str, how, wanted, elem_bytes: int, num_warps: int, programs: int):
        """Take a descriptor access's pointer instructions (what :meth:`planned` or :meth:`access` counted
        for it) off the sm_90 counts."""
        ptr, mask, shape = how
        want = None
        if kind == "load" and wanted is not None and shape:
            want = wanted.get((shape, layout.own_width(ptr, shape, elem_bytes)[0]))
        ins = layout.plan(ptr, mask, shape, elem_bytes, num_warps, want).instructions
        self.n[kind + "_instructions_sm90"] -= ins * programs

    def _settle(self):
        """Count the loads recorded by :meth:`planned`, each under its final layout, and the shared-memory
        traffic of the conversions and reductions recorded by :meth:`converted` and :meth:`reduced`."""
        for view, width, copies, closed, (ptr, mask, shape), num_warps, wanted, key in self._planned:
            self._count_planned("load", view, width, copies, closed,
                                layout.plan(ptr, mask, shape, width, num_warps, wanted[key]))
        self._planned.clear()
        if self._moves:
            n = self.n
            for kind, src, dst, bits, num_warps, programs in self._moves:
                if kind == "tma":
                    self._untma(src, *dst, bits, num_warps, programs)
                    continue
                if kind == "mma":
                    self._mma_settled(src, dst, num_warps, programs)
                    continue
                if kind == "pipe":
                    self._pipe_settled(src, dst, num_warps, programs)
                    continue
                if kind == "prefetch":
                    self._prefetch_settled(src, dst, num_warps, programs)
                    continue
                if kind == "remat":
                    self._remat_settled(src, dst, num_warps, programs)
                    continue
                try:  # the same layouts, the same counts: looked up once over every launch
                    both = _moves_by_target(kind, *_move_key(kind, src, dst, num_warps), bits, num_warps)
                except TypeError:  # a tag that cannot be a key
                    both = _moves_on_targets(kind, src, dst, bits, num_warps)
                for target, done in zip(("sm80", "sm90"), both):
                    if done is not None:
                        n["shared_stores_" + target] += done[0] * num_warps * programs
                        n["shared_loads_" + target] += done[1] * num_warps * programs
                        n["shared_wavefronts_" + target] += done[2] * programs
                        n["shared_bank_conflicts_" + target] += (done[2] - done[3]) * programs
            self._moves.clear()

    def _pipe_settled(self, tag, info, num_warps: int, programs: int):
        """Count a pipelined load's prologue copies (:meth:`pipelined`) under its final layout."""
        operand, extra, iterations, feeds = info
        (ptr, mask, shape), width, _nw, wanted = tag[1:]
        want = None if wanted is None else wanted.get((shape, layout.own_width(ptr, shape, width)[0]))
        p = layout.plan(ptr, mask, shape, width, num_warps, want)
        ins = p.instructions * programs
        n = self.n
        n["load_instructions"] += extra * ins
        cp90 = ins
        if feeds is not None and feeds[0] == 1 and feeds[1] not in ("fp16", "bf16") and p.order[0] != 0 \
                and feeds[3] is True and _plan(feeds[2], feeds[1], num_warps).sm90[0] == "wgmma":
            elements = 1
            for d in shape:
                elements *= d
            cp90 = elements // (32 * num_warps) * num_warps * programs  # one element a copy
        n["load_instructions_sm90"] += (extra + iterations) * cp90 - iterations * ins
        if not operand:  # read back from its plain buffer into the load's layout every iteration
            for target in ("sm80", "sm90"):
                lay = convert.resolve(tag, target)
                back = p.instructions // num_warps if lay is None else convert.read_back(lay, 8 * width)
                n["shared_loads_" + target] += iterations * back * num_warps * programs

    def _remat_settled(self, tag, dst, num_warps: int, programs: int):
        """Count a rematerialised load's instructions under its consumer's layout (:meth:`remat`)."""
        consumer, axis = dst
        (ptr, mask, shape), width, _nw, wanted = tag[1:]
        want = None if wanted is None else wanted.get((shape, layout.own_width(ptr, shape, width)[0]))
        own = layout.plan(ptr, mask, shape, width, num_warps, want).instructions
        for suffix, target in (("", "sm80"), ("_sm90", "sm90")):
            lay = convert.resolve(consumer, target)
            if lay is None or len(lay.shape) != 2:
                continue
            ins = layout.sliced_instructions(convert.sliced(lay, axis), ptr, mask, width)
            self.n["load_instructions" + suffix] += (ins * num_warps - own) * programs

    def _prefetch_settled(self, ref, dims, num_warps: int, programs: int):
        """Count sm_80's prefetch of a pipelined dot's first K slice (:meth:`prefetched`)."""
        m, n, k, what, bits = dims
        plan = _plan(ref, what, num_warps)
        self.n["shared_loads_sm80"] += prefetch_loads(m, n, k, what, bits, plan.sm80) * num_warps * programs

    def _mma_settled(self, ref, dims, num_warps: int, programs: int):
        """Count a recorded dot's MMA instructions under its plan (:meth:`dotted`)."""
        chain, i = ref
        plan = chain.plan(i, _what(dims[3], dims[4]), num_warps, dims[5])
        sm80, sm90, work90 = _mma_counts(dims, plan, num_warps)
        self.n["mma_sm80"] += sm80 * programs
        self.n["mma_sm90"] += sm90 * programs
        self.n["tensor_flops_sm90"] += work90 * programs
        if plan.sm90[0] == "wgmma":
            self.n["wgmma_sm90"] += sm90 * programs

    def access(self, kind: str, addresses: np.ndarray, active: np.ndarray | None, width: int, copies: int = 1):
        """Record one ``tl.load`` / ``tl.store`` executed by ``copies`` programs alike per row of ``addresses``.

        ``addresses`` is ``(rows, lanes)`` int64 byte addresses, one row per program; ``active`` the
        same shape (``None``: all lanes). ``kind`` is ``"load"``, ``"store"`` or ``"atomic"``.
        """
        rows, lanes = addresses.shape
        self.n[kind + "s"] += rows * copies
        if kind != "atomic":
            ins = rows * copies * -(-lanes // WARP_SIZE)
            self.n[kind + "_instructions"] += ins
            self.n[kind + "_instructions_sm90"] += ins
        self._pending.setdefault((kind, width, copies, lanes), []).append((addresses, active))
        self._pending_lanes += addresses.size
        if self._pending_lanes >= _FLUSH_LANES:
            self.flush()

    def first_touch(self, name: str, sectors: int):
        """Record ``sectors`` sectors of array ``name`` touched for the first time in the launch (per line only,
        as in the SIMT engine: the launch's ``dram_sectors`` is the union :class:`Touched` keeps)."""
        self.dram[name] = self.dram.get(name, 0) + sectors

    def flops(self, n: int, operands: str = "", precision=None):
        """Record ``n`` FLOPs of ``tl.dot`` (counted in ``flops`` and ``dot_flops``) of ``operands`` (a dtype
        name) under ``precision``: also in the ``dot_flops_*`` of that kind (:func:`dot_kind`)."""
        self.n["dot_flops"] += n
        self.n["flops"] += n
        self.n["dot_flops_" + dot_kind(operands, precision)] += n

    def arith(self, n: int):
        """Record ``n`` FLOPs of elementwise arithmetic or reductions."""
        self.n["flops"] += n

    def special(self, n: int):
        """Record ``n`` warp-level MUFU instructions of special functions (``xu_instructions``)."""
        self.n["xu_instructions"] += n

    def flush(self):
        """Count every pending access through :mod:`kernellab.access`."""
        for (kind, width, copies, _), parts in self._pending.items():
            addr = parts[0][0] if len(parts) == 1 else np.concatenate([a for a, _ in parts])
            if all(m is None for _, m in parts):
                active = None
            else:
                active = np.concatenate([np.ones(a.shape, bool) if m is None else m for a, m in parts])
            if kind == "atomic":  # atomics have no ideal-sector counter (as in the SIMT engine)
                req, sec, nbytes, lin = count_access(addr, active, width)
            else:
                req, sec, nbytes, lin, ideal = count_access(addr, active, width, ideal=True)
                self.n[kind + "_ideal_sectors"] += ideal * copies
            self.n[kind + "_bytes"] += nbytes * copies
            self.n[kind + "_lines"] += lin * copies
            self.n[kind + "_requests"] += req * copies
            self.n[kind + "_sectors"] += sec * copies
        self._pending.clear()
        self._pending_lanes = 0

    def add_rounds(self, rounds: int, dot_rounds: int, programs: int, head: int = 0, tail: int = 0) -> None:
        """``programs`` programs each waited ``rounds`` times for their loads, ``dot_rounds`` of them at a
        ``tl.dot``; together they loaded ``head`` bytes before their first wait and stored ``tail`` bytes after
        their last (:mod:`kernellab.triton.executor.rounds`)."""
        r = self.rounds
        r[0] += rounds * programs
        r[1] = max(r[1], rounds)
        r[2] += programs
        r[3] += dot_rounds * programs
        r[4] += head
        r[5] += tail

    def note(self, key: str, value) -> None:
        """Keep a fact of the launch for the performance model (``counts.launch``): the largest number, a
        flag, or the union of dicts (:mod:`kernellab.triton.executor.rounds`)."""
        flags = self.flags
        if isinstance(value, dict):
            flags[key] = {**flags.get(key, {}), **value}
        else:
            flags[key] = max(flags.get(key, value), value)

    def dependent(self, flops: int, xu: int, accumulated: int = 0, trips: int = 0) -> None:
        """Record FP32 operations and MUFU warp instructions on ``tl.dot`` results (:func:`kernellab.triton.executor.rounds.dependent`),
        FLOPs of dots fed by a dot's result (:func:`kernellab.triton.executor.rounds.accumulated`) and the trips of
        loops holding a ``tl.dot`` (:func:`kernellab.triton.executor.rounds.dot_loop`), all programs together."""
        self.dep[0] += flops
        self.dep[1] += xu
        self.dep[2] += accumulated
        self.dep[3] += trips

    def lock_section(self, key: tuple, trips: int, nbytes: int) -> None:
        """A program acquired lock ``key`` and released it after a critical section of ``trips`` round trips
        that moved ``nbytes`` bytes (:mod:`kernellab.triton.executor.locks`).

        >>> t = Tally(); t.lock_section(("Lock", 0), 2, 512); t.lock_section(("Lock", 0), 1, 4)
        >>> t.rounds_info()["locks"]
        {('Lock', 0): (2, 3, 516)}
        """
        entry = self.locks.setdefault(key, [0, 0, 0])
        entry[0] += 1
        entry[1] += trips
        entry[2] += nbytes

    def rounds_info(self) -> dict:
        """Rounds per program, for ``TritonCounts.launch``: ``rounds`` and ``dot_rounds`` (means over the programs
        that ran), ``rounds_max`` (the program that waited most), and ``first_round_bytes`` and
        ``last_store_bytes`` (means: the bytes a program loads before its first wait and stores or updates
        atomically after its last, :mod:`kernellab.triton.executor.rounds`)."""
        total, most, programs, dot, head, tail = self.rounds
        locks = {"locks": {k: tuple(v) for k, v in self.locks.items()}} if self.locks else {}
        if not programs:
            return {**self.flags, **locks}
        return {"rounds": total / programs, "dot_rounds": dot / programs, "rounds_max": float(most),
                "first_round_bytes": head / programs, "last_store_bytes": tail / programs,
                "dot_dependent_flops": self.dep[0] / programs, "dot_dependent_xu": self.dep[1] / programs,
                "dot_accumulated_flops": self.dep[2] / programs, "dot_trips": self.dep[3] / programs,
                **self.flags, **locks}

    def merge(self, other: Tally):
        """Add another tally's counts into this one."""
        other._settle()
        other.flush()
        r, o = self.rounds, other.rounds
        self.dependent(*other.dep)
        for k, v in other.flags.items():
            self.note(k, v)
        r[0] += o[0]
        r[1] = max(r[1], o[1])
        r[2] += o[2]
        r[3] += o[3]
        r[4] += o[4]
        r[5] += o[5]
        for k, v in other.n.items():
            self.n[k] += v
        for k, v in other.dram.items():
            self.dram[k] = self.dram.get(k, 0) + v
        for key, counts in other._updates.items():
            mine = self._updates.get(key)
            self._updates[key] = counts.copy() if mine is None else mine + counts
        for key, (n, trips, nbytes) in other.locks.items():
            entry = self.locks.setdefault(key, [0, 0, 0])
            entry[0] += n
            entry[1] += trips
            entry[2] += nbytes

    def adopt(self, other: Tally):
        """Add another tally's counts into this one, as :meth:`merge` does, but leave its loads, conversions and
        reductions to be counted when this tally's are (``_settle``), under the layouts then known."""
        planned, moves = other._planned, other._moves
        other._planned, other._moves = [], []
        self.merge(other)
        self._planned += planned
        self._moves += moves

    def result(self, per_program: dict | None = None, dram_sectors: dict | None = None,
               specialization: dict | None = None, launch: dict | None = None) -> TritonCounts:
        """The frozen counts (``launch``: the launch's grid, shown on them)."""
        self._settle()
        self.flush()
        n = dict(self.n)
        if self._updates:
            n["atomic_same_address"] += max(int(c.max()) for c in self._updates.values())
        return _counts(n, per_program=per_program, dram_sectors=dict(dram_sectors or {}),
                       specialization=dict(specialization or {}), launch=dict(launch or {}), by_line=None)

    def _row_counts(self, per_program: dict | None = None, dram_sectors: dict | None = None,
                    specialization: dict | None = None, launch: dict | None = None) -> TritonCounts:
        """A line's counts (:mod:`kernellab.lines`): no per-program breakdown; its DRAM sectors are those it
        touched first in the launch (:meth:`first_touch`)."""
        return self.result(dram_sectors=self.dram)


class Touched:
    """The distinct 32-byte sectors of each array a launch loads or stores: its compulsory DRAM traffic.

    One per launch, shared by every step, so a sector read by many programs counts once. Sectors are
    kept as a bitmap per array, and runs of consecutive elements (:meth:`mark_rows`) as intervals of
    sectors, merged with the bitmap once, when :meth:`sectors` is asked.

    ``first_touch=True`` (a launch with ``lines=True``): every mark sets the bitmap at once and returns how
    many of its sectors no earlier mark touched, which the caller charges to the access's line — the SIMT
    engine's rule, a sector to the line that touches it first in the launch. The sectors each mark set
    are kept, so that a step undone (:meth:`rollback` to a :meth:`checkpoint`) unmarks them, and the
    rerun charges them again.

    Examples
    --------
    >>> t, x = Touched(), np.zeros(100, np.float32)
    >>> t.mark("x", x, np.arange(16)[None], None)                   # floats 0–15: bytes 0–63, 2 sectors
    >>> t.mark("x", x, np.arange(8, 24)[None], None, starts=[8])    # floats 8–23 again: one new sector
    >>> t.sectors()
    {'x': 3}
    >>> rows = np.array([[32, 33], [48, 49]]); keep = np.array([[False, False], [True, False]])
    >>> t.mark("x", x, rows, keep, starts=[32, 48]); t.sectors()    # float 48: bytes 192–195, sector 6
    {'x': 4}
    >>> t.mark_rows("x", x, [40, 90], [8, 2]); t.sectors()          # floats 40–47 (sector 5), 90–91 (11)
    {'x': 6}
    >>> f = Touched(first_touch=True)
    >>> f.mark_run("x", x, 0, 16), f.mark_rows("x", x, [8, 40], [16, 8])   # 2 sectors; then sectors 1–2, 5: 2 new
    (2, 2)
    >>> mark = f.checkpoint(); n = f.mark("x", x, np.arange(96, 100)[None], None); n, f.sectors()   # sector 12
    (1, {'x': 5})
    >>> f.rollback(mark); f.sectors()
    {'x': 4}
    """

    __slots__ = ("_maps", "_runs", "_log")

    def __init__(self, first_touch: bool = False):
        self._maps: dict[int, tuple[str, np.ndarray | None, int]] = {}  # address → (name, bitmap, sectors)
        self._runs: dict[int, list] = {}  # address → [(first sectors, ends), …] of mark_rows
        # first_touch: what each mark changed, (bitmap, sector ids or a slice of them, their values before)
        self._log: list | None = [] if first_touch else None

    def checkpoint(self) -> int:
        """Where :meth:`rollback` returns to (``first_touch`` only; 0 otherwise)."""
        return 0 if self._log is None else len(self._log)

    def rollback(self, mark: int):
        """Unmark the sectors marked first since ``checkpoint()`` returned ``mark`` (``first_touch`` only: an
        ordinary record is a union, and a step that is rerun marks the same sectors again)."""
        if self._log is None:
            return
        for bitmap, where, before in reversed(self._log[mark:]):  # latest first: each entry restores its before
            bitmap[where] = before
        del self._log[mark:]

    def _first(self, bitmap: np.ndarray, ids: np.ndarray) -> int:
        """Mark sector ids (repeats allowed) in ``bitmap`` (``first_touch``): how many were not marked before.

        Counted as the marks the ids' span gains, so that repeated ids need no sort.
        """
        fresh = ~bitmap[ids]
        if not fresh.any():
            return 0
        new = ids[fresh]
        lo, hi = int(new.min()), int(new.max()) + 1
        before = np.count_nonzero(bitmap[lo:hi])
        bitmap[new] = True
        self._log.append((bitmap, new, False))
        return int(np.count_nonzero(bitmap[lo:hi])) - int(before)

    def _first_range(self, bitmap: np.ndarray, lo: int, hi: int) -> int:
        """Mark sectors ``lo … hi − 1`` in ``bitmap`` (``first_touch``): how many were not marked before."""
        part = bitmap[lo:hi]
        n = part.size - int(np.count_nonzero(part))
        if n:  # what to restore on rollback: nothing was marked (the commonest case), or the part as it was
            self._log.append((bitmap, slice(lo, hi), False if n == part.size else part.copy()))
            part[:] = True
        return n

    @staticmethod
    def _run_ids(first: np.ndarray, end: np.ndarray) -> np.ndarray:
        """The ids ``first[i] … end[i] − 1`` of every run, one after another."""
        count = end - first
        return np.repeat(first - (np.cumsum(count) - count), count) + np.arange(int(count.sum()), dtype=np.int64)

    def snapshot(self):
        """What :meth:`restore` returns to: every array's marks as they are now (copies of the bitmaps; a record
        without ``first_touch``, whose steps undone use :meth:`checkpoint`)."""
        maps = {k: (name, None if bitmap is None else bitmap.copy(), n) for k, (name, bitmap, n) in self._maps.items()}
        return maps, {k: len(runs) for k, runs in self._runs.items()}

    def restore(self, snap):
        """Unmark every sector marked since :meth:`snapshot` gave ``snap``."""
        maps, runs = snap
        self._maps = maps
        self._runs = {k: v[:runs[k]] for k, v in self._runs.items() if k in runs}

    def _bitmap(self, name: str, flat: np.ndarray, key: int | None = None) -> np.ndarray:
        """``flat``'s bitmap of sectors (``key``: the address of its data, when the caller has it)."""
        key = flat.__array_interface__["data"][0] if key is None else key
        entry = self._maps.get(key)
        if entry is None or entry[1] is None:
            n = -(-max(flat.nbytes, 1) // SECTOR_BYTES)
            entry = self._maps[key] = (name, np.zeros(n, bool), n)
        return entry[1]

    def mark(self, name: str, flat: np.ndarray, offs: np.ndarray, mask, starts: np.ndarray | None = None,
             key: int | None = None):
        """Mark the sectors element offsets ``offs`` of ``flat`` touch where ``mask`` holds.

        ``starts`` (optional) says the offsets are consecutive: row ``p`` of the ``len(starts)`` rows
        holds ``starts[p], starts[p]+1, …``; the sectors then follow from the starts and the mask alone.
        ``key``: the address of ``flat``'s data (as :meth:`mark_run` takes it).
        """
        bitmap, w = self._bitmap(name, flat, key), flat.itemsize
        first = self._log is not None  # first_touch: return how many sectors are new
        if starts is not None and offs.size:
            starts = np.asarray(starts, np.int64).reshape(-1)
            rows, lanes = starts.size, offs.size // starts.size
            if rows == 1 and mask is None:  # one consecutive run: a slice of sectors
                s0 = int(starts[0])
                lo, hi = s0 * w // SECTOR_BYTES, ((s0 + lanes) * w - 1) // SECTOR_BYTES + 1
                if first:
                    return self._first_range(bitmap, lo, hi)
                bitmap[lo:hi] = True
                return None
            g = SECTOR_BYTES // w if SECTOR_BYTES % w == 0 else 0  # elements per sector
            if g and lanes % g == 0 and not (starts * w % SECTOR_BYTES).any():  # rows of whole sectors
                ids = (starts * w // SECTOR_BYTES)[:, None] + np.arange(lanes // g)
                if mask is not None:  # a sector is touched when one of its lanes is kept
                    ids = ids[np.asarray(mask).reshape(rows, lanes // g, g).any(axis=2)]
                if first:
                    return self._first(bitmap, ids.reshape(-1))
                bitmap[ids.reshape(-1)] = True
                return None
        o = np.asarray(offs if mask is None else offs[mask], np.int64).reshape(-1)
        # w is 1, 2, 4 or 8 (every Triton type's; a launch refuses an array of any other dtype), so
        # o · w // 32 = o // (32 / w), a power of two: a shift (floors as // does), no product
        ids = o >> ((SECTOR_BYTES // w).bit_length() - 1)
        if first:
            return self._first(bitmap, ids)
        bitmap[ids] = True
        return None

    def mark_lines(self, name: str, flat: np.ndarray, starts: np.ndarray, n: int, key: int | None = None):
        """Mark the sectors of lines of ``n`` consecutive elements: ``flat[s:s + n]`` for every ``s`` in ``starts``
        (``key``: the address of ``flat``'s data, as :meth:`mark_run` takes it).

        ``first_touch``: returns how many of the sectors no earlier mark touched.

        >>> t, x = Touched(), np.zeros(64, np.float32)
        >>> t.mark_lines("x", x, np.array([[0, 20]]), 3); t.sectors()   # bytes 0–11 and 80–91: sectors 0, 2
        {'x': 2}
        """
        bitmap, w = self._bitmap(name, flat, key), flat.itemsize
        s = np.asarray(starts, np.int64).reshape(-1)
        ids = s * w // SECTOR_BYTES
        at = s * w % SECTOR_BYTES
        if at.size and (at == at[0]).all():  # every line from the same byte of a sector: as many sectors each
            span = (int(at[0]) + n * w - 1) // SECTOR_BYTES + 1
            if span > 1:
                ids = (ids[:, None] + np.arange(span)).reshape(-1)
        elif (span := (n * w + SECTOR_BYTES - 2) // SECTOR_BYTES + 1) > 1:  # the most sectors a line can cover
            hi = ((s + n) * w - 1) // SECTOR_BYTES
            ids = np.minimum(ids[:, None] + np.arange(span), hi[:, None]).reshape(-1)
        if self._log is not None:  # first_touch: how many sectors are new
            return self._first(bitmap, ids)
        bitmap[ids] = True
        return None

    def mark_rows(self, name: str, flat: np.ndarray, starts, active, key: int | None = None):
        """Mark the sectors of rows of consecutive elements: row ``r`` is ``flat[starts[r]:starts[r] + active[r]]``
        (``key``: the address of ``flat``'s data, as :meth:`mark_run` takes it); one ``active`` a row, as a view's
        ``starts()`` and ``prefix()`` give them (:mod:`kernellab.triton.executor.memory`)."""
        s, k = np.asarray(starts, np.int64).reshape(-1), np.asarray(active, np.int64).reshape(-1)
        keep = k > 0
        if not keep.all():
            s, k = s[keep], k[keep]
        if self._log is not None:
            w = flat.itemsize
            lo, hi = s * w // SECTOR_BYTES, ((s + k) * w - 1) // SECTOR_BYTES + 1
            return self._first(self._bitmap(name, flat, key), self._run_ids(lo, hi))
        self._add_run(name, flat, s, s + k, key)

    def mark_run(self, name: str, flat: np.ndarray, start: int, n: int, key: int | None = None):
        """Mark the sectors of ``flat[start:start + n]`` (``n`` > 0; ``key``: the address of ``flat``'s data)."""
        if self._log is not None:
            w = flat.itemsize
            return self._first_range(self._bitmap(name, flat, key), start * w // SECTOR_BYTES,
                                     ((start + n) * w - 1) // SECTOR_BYTES + 1)
        self._add_run(name, flat, start, start + n, key)

    def _add_run(self, name: str, flat: np.ndarray, start, end, key: int | None = None):
        """Keep the sectors of elements ``start … end−1`` (ints, or arrays of as many runs) as an interval."""
        key = flat.__array_interface__["data"][0] if key is None else key
        if key not in self._maps:
            self._maps[key] = (name, None, -(-max(flat.nbytes, 1) // SECTOR_BYTES))
        w = flat.itemsize
        self._runs.setdefault(key, []).append((start * w // SECTOR_BYTES, (end * w - 1) // SECTOR_BYTES + 1))

    def sectors(self) -> dict[str, int]:
        """Distinct sectors touched per array name (arrays never touched left out)."""
        out: dict[str, int] = {}
        for key, (name, bitmap, size) in self._maps.items():
            runs = self._runs.get(key)
            if not runs:
                n = int(np.count_nonzero(bitmap))
            elif bitmap is None and len(runs) == 1 and type(runs[0][0]) is int:  # one run of sectors
                n = max(runs[0][1] - runs[0][0], 0)
            elif bitmap is None:  # intervals only: the length of their union
                n = _union_length(runs)
            else:  # paint the intervals into the bitmap (+1 where one opens, −1 where it closes)
                lo, hi = _intervals(runs)
                edges = np.zeros(size + 1, np.int64)
                np.add.at(edges, lo, 1)
                np.add.at(edges, hi, -1)
                n = int(np.count_nonzero(bitmap | (np.cumsum(edges[:-1]) > 0)))
            if n:
                out[name] = out.get(name, 0) + n
        return out

    def sizes(self) -> dict[str, int]:
        """The size in sectors of each array touched, by name (the most its ``sectors()`` entry can be)."""
        out: dict[str, int] = {}
        for name, _bitmap, size in self._maps.values():
            out[name] = out.get(name, 0) + size
        return out


def _intervals(runs: list) -> tuple[np.ndarray, np.ndarray]:
    """The ``(lo, hi)`` arrays of all the runs (each a pair of ints or of arrays)."""
    return (np.concatenate([r[0] if r[0].__class__ is np.ndarray and r[0].ndim else (r[0],) for r in runs]),
            np.concatenate([r[1] if r[1].__class__ is np.ndarray and r[1].ndim else (r[1],) for r in runs]))


def _union_length(runs: list) -> int:
    """The number of integers in the union of the half-open intervals ``[lo, hi)`` of ``runs``.

    A few single runs (ints) are merged in Python, more through numpy.

    >>> _union_length([(0, 4), (5, 8), (2, 6), (20, 21)])                        # [0, 8) and [20, 21)
    9
    >>> _union_length([(np.array([0, 5]), np.array([4, 8])), (2, 6), (20, 21)])  # the same, as arrays
    9
    >>> _union_length([(np.array([8, 0, 2]), np.array([12, 4, 6]))])   # all 4 long: [0, 6) and [8, 12)
    10
    """
    if all(type(r[0]) is int for r in runs):
        n, reach = 0, None
        for lo, hi in sorted(runs):
            n += max(hi - (lo if reach is None else max(lo, reach)), 0)
            reach = hi if reach is None else max(reach, hi)
        return n
    lo, hi = _intervals(runs)
    if lo.size == 0:
        return 0
    width = hi - lo
    n = int(width[0])
    if n > 0 and (width == n).all():  # every interval n long (a tile's rows): each start up to the next, n at most
        s = np.sort(lo, kind="stable")  # (timsort: fast on the runs of sorted starts programs give)
        return int(np.minimum(s[1:] - s[:-1], n).sum()) + n
    if lo.size > 1 and (lo[1:] < lo[:-1]).any():
        order = np.argsort(lo, kind="stable")
        lo, hi = lo[order], hi[order]
    reach = np.maximum.accumulate(hi)  # the furthest end of the intervals so far
    begin = lo.copy()
    begin[1:] = np.maximum(lo[1:], reach[:-1])
    return int(np.maximum(hi - begin, 0).sum())
