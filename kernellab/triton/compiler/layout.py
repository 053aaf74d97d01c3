"""The blocked layout Triton's coalescing pass gives a load or store, its vector width, and the lanes of
each warp instruction under it.

Triton does not cut a block into warps row-major, one element a lane. Its ``coalesce`` pass reads the
pointer block's axis facts (:mod:`kernellab.triton.compiler.axis`) and gives the access a *blocked layout*:

* ``order``: the dimensions, most contiguous first (ties: the last dimension first);
* ``size_per_thread``: along ``order[0]``, as many elements as are known contiguous and aligned
  (``min(contiguity, divisibility in bytes / element bytes)``), at most 128 bits' worth, and at most
  the block's elements over its threads (``num_warps × 32``); a load takes the largest such width among
  the kernel's memory accesses of the same shape and order, a store keeps its own;
* ``threads_per_warp`` and ``warps_per_cta``: the 32 lanes, then the warps, laid along ``order[0]``
  first, each dimension taking at most what its size leaves (``BlockedEncodingAttr::get``).

Each thread then issues one instruction per ``vec`` of its elements, ``vec = min(size_per_thread,
alignment, mask constancy)``: a mask that may change every element (``offs < n`` with ``n`` not
known divisible by 16) keeps an aligned block to one element an instruction.

:func:`lanes` is the one function that says which element each lane of each warp instruction
starts at; the memory layer counts requests, sectors and lines from those lanes' addresses through
:mod:`kernellab.access`, and its fast paths are closed forms of it (:attr:`Plan.chunked`).

Examples
--------
>>> from kernellab.triton.compiler import axis
>>> ptr = axis.add(axis.splat(axis.argument(16), (1024,)), axis.arange(0, 1024), (1024,), elem_bytes=4)
>>> p = plan(ptr, None, (1024,), 4, 4)                    # an aligned fp32 block of 1024, 4 warps
>>> p.size_per_thread, p.threads_per_warp, p.warps_per_cta, p.vec, p.instructions
((4,), (32,), (4,), 4, 8)
>>> first, owner = lanes(p); first.shape, first[0, :3].tolist()   # 2 ld.v4 per thread × 4 warps
((8, 32), [0, 4, 8])
>>> mask = axis.compare("<", axis.add(axis.arange(0, 1024), axis.splat(axis.UNKNOWN_SCALAR, (1024,)), (1024,)),
...                     axis.splat(axis.argument(1), (1024,)), (1024,))
>>> plan(ptr, mask, (1024,), 4, 4).vec, plan(ptr, mask, (1024,), 4, 4).instructions   # n unknown
(1, 32)
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from .axis import AxisInfo

WARP = 32


class Plan(NamedTuple):
    """How one access of a block runs: its blocked layout, vector width and warp instructions."""

    shape: tuple  # the block's shape (``(1,)`` for a scalar)
    size_per_thread: tuple
    threads_per_warp: tuple
    warps_per_cta: tuple
    order: tuple
    vec: int  # elements one lane moves per instruction
    instructions: int  # warp instructions per program (each thread's instructions × num_warps)
    scalar: bool = False  # a scalar access: every thread issues it, one element

    @property
    def chunked(self) -> bool:
        """Whether the instructions cut the block, flattened row-major, into runs of ``32 × vec``
        consecutive elements, one lane ``vec`` of them, no element twice: the fast paths' case."""
        return _chunked(self)


def order_of(contiguity: tuple) -> tuple:
    """Dimensions by decreasing contiguity, ties broken toward the last dimension (Triton's
    ``getOrderFromContiguity``)."""
    dims = list(range(len(contiguity)))[::-1]
    dims.sort(key=lambda d: -contiguity[d])  # stable: the reversed order breaks ties
    return tuple(dims)


def per_thread(ptr: AxisInfo, shape: tuple, elem_bytes: int, order: tuple) -> int:
    """Elements per thread an access's own pointers allow along ``order[0]`` (Triton's
    ``getNumElementsPerThread``): contiguous, aligned, at most 128 bits."""
    o = order[0]
    max_multiple = max(ptr.divisibility[o] // elem_bytes, 1)
    max_contig = min(ptr.contiguity[o], shape[o])
    return max(min(max_multiple, max_contig, 128 // (8 * elem_bytes)), 1)


def blocked(shape: tuple, spt: tuple, order: tuple, num_warps: int) -> tuple[tuple, tuple]:
    """``(threads_per_warp, warps_per_cta)`` of Triton's ``BlockedEncodingAttr::get``."""
    rank = len(shape)
    tpw, wpc = [1] * rank, [1] * rank
    lanes, threads, warps = WARP, num_warps * WARP, num_warps
    prev_lanes = prev_warps = 1
    for i in order[:-1]:
        per_cta = min(max(threads, 1), max(1, shape[i] // spt[i]))
        tpw[i] = min(max(per_cta, 1), lanes)
        wpc[i] = min(max(per_cta // tpw[i], 1), warps)
        warps //= wpc[i]
        lanes //= tpw[i]
        threads //= per_cta
        prev_lanes *= tpw[i]
        prev_warps *= wpc[i]
    tpw[order[-1]] = WARP // prev_lanes
    wpc[order[-1]] = num_warps // prev_warps
    return tuple(tpw), tuple(wpc)


@lru_cache(maxsize=4096)
def own_width(ptr: AxisInfo, shape: tuple, elem_bytes: int) -> tuple[tuple, int]:
    """``(order, elements per thread)`` an access's pointers alone ask for (before the kernel's other
    accesses of the same shape and order, and the block's size, are taken into account)."""
    if not shape:
        return (0,), 1
    order = order_of(ptr.contiguity)
    return order, per_thread(ptr, shape, elem_bytes, order)


@lru_cache(maxsize=4096)
def plan(ptr: AxisInfo, mask: AxisInfo | None, shape: tuple, elem_bytes: int, num_warps: int,
         wanted: int | None = None) -> Plan:
    """The layout and instructions of a ``tl.load``/``tl.store`` through pointers ``ptr`` of ``shape``.

    ``wanted``: the elements per thread the coalescing pass asks for (for a load, the largest of the
    kernel's accesses of this shape and order; None: this access's own, as for a store).
    """
    if not shape:
        return Plan((1,), (1,), (WARP,), (num_warps,), (0,), 1, num_warps, scalar=True)
    order, own = own_width(ptr, shape, elem_bytes)
    numel = 1
    for d in shape:
        numel *= d
    spt_o = max(min(own if wanted is None else max(wanted, own), max(numel // (num_warps * WARP), 1)), 1)
    spt = tuple(spt_o if d == order[0] else 1 for d in range(len(shape)))
    tpw, wpc = blocked(shape, spt, order, num_warps)
    o = order[0]
    alignment = min(max(ptr.divisibility[o] // elem_bytes, 1), ptr.contiguity[o])
    vec = max(min(spt_o, alignment, 128 // (8 * elem_bytes)), 1)
    if mask is not None:
        vec = max(min(vec, mask.constancy[o]), 1)
    per = 1
    for d in range(len(shape)):
        tile = spt[d] * tpw[d] * wpc[d]
        per *= spt[d] * max(1, -(-shape[d] // tile))
    return Plan(tuple(shape), spt, tpw, wpc, order, vec, per // vec * num_warps)


@lru_cache(maxsize=1024)
def lanes(p: Plan) -> tuple[np.ndarray, np.ndarray | None]:
    """The element each lane of each warp instruction of one program starts at, and whether it owns it.

    Returns ``first``, int64 ``(instructions, 32)``: the row-major index into the block of the first of
    the ``vec`` consecutive elements (along ``order[0]``) the lane moves; and ``owner``, bool of the same
    shape, or None when every lane owns its elements: False where a lane holds a copy of elements
    another lane holds too (the layout covers more than the block), which a store masks off. A scalar
    access: every lane of every warp reads element 0, and only lane 0 of warp 0 owns it. Read-only.

    Examples
    --------
    >>> p = Plan((4, 8), (1, 2), (8, 4), (1, 1), (1, 0), 2, 1)   # (4, 8) block, 2 elements a lane, 1 warp
    >>> first, owner = lanes(p)
    >>> first[0].reshape(8, 4).tolist()                             # lanes 0–3 take row 0, 4–7 row 1, …
    [[0, 2, 4, 6], [8, 10, 12, 14], [16, 18, 20, 22], [24, 26, 28, 30], [0, 2, 4, 6], [8, 10, 12, 14], [16, 18, 20, 22], [24, 26, 28, 30]]
    >>> owner[0].reshape(8, 4)[:, 0].tolist()                       # rows 4–7 of the layout repeat 0–3
    [True, True, True, True, False, False, False, False]
    """
    warps = 1
    for w in p.warps_per_cta:
        warps *= w
    if p.scalar:
        first = np.zeros((p.instructions, WARP), np.int64)
        owner = np.zeros((p.instructions, WARP), bool)
        owner[0, 0] = True
        return _frozen(first), _frozen(owner)
    shape, spt, tpw, wpc, order, vec = p.shape, p.size_per_thread, p.threads_per_warp, p.warps_per_cta, p.order, p.vec
    rank = len(shape)
    threads = warps * WARP
    t = np.arange(threads)
    lane, warp = t % WARP, t // WARP
    lane_d, warp_d = [0] * rank, [0] * rank
    for d in order:  # lanes and warps fill order[0] first
        lane_d[d] = lane % tpw[d]
        lane = lane // tpw[d]
        warp_d[d] = warp % wpc[d]
        warp = warp // wpc[d]
    # per dimension: each thread's raw coordinates of its registers there, (threads, registers along d)
    raw = []
    for d in range(rank):
        tile = spt[d] * tpw[d] * wpc[d]
        reps = max(1, -(-shape[d] // tile))
        base = (warp_d[d] * tpw[d] + lane_d[d]) * spt[d]
        regs = (np.arange(reps)[:, None] * tile + np.arange(spt[d])[None, :]).reshape(-1)
        if d == order[0]:
            regs = regs[::vec]  # one instruction per vec registers along the fastest dimension
        raw.append(base[:, None] + regs[None, :])
    strides = [1] * rank
    for d in range(rank - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    # the registers of a thread: every combination of its coordinates, order[0] fastest
    flat = np.zeros((threads, 1), np.int64)
    own = np.ones((threads, 1), bool)
    for d in reversed(order):
        r = raw[d]
        flat = (flat[:, :, None] + (r % shape[d])[:, None, :] * strides[d]).reshape(threads, -1)
        own = (own[:, :, None] & (r < shape[d])[:, None, :]).reshape(threads, -1)
    per = flat.shape[1]
    first = flat.reshape(warps, WARP, per).transpose(0, 2, 1).reshape(-1, WARP)
    owner = own.reshape(warps, WARP, per).transpose(0, 2, 1).reshape(-1, WARP)
    return _frozen(first), (None if owner.all() else _frozen(owner))


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    a.flags.writeable = False
    return a


@lru_cache(maxsize=1024)
def affine(p: Plan) -> tuple[np.ndarray, int] | None:
    """``(bases, step)`` when lane ``l`` of every instruction ``i`` starts at element ``bases[i] + l·step``
    of the block and no lane holds a copy (the closed forms' case), else None.

    >>> affine(Plan((1024,), (4,), (32,), (4,), (0,), 1, 32))[1]    # 4 floats a thread, one an instruction
    4
    """
    if p.scalar:
        return None
    first, owner = lanes(p)
    if owner is not None:
        return None
    step = int(first[0, 1] - first[0, 0])
    if step <= 0 or not (first == first[:, :1] + np.arange(WARP) * step).all():
        return None
    return _frozen(first[:, 0].copy()), step


@lru_cache(maxsize=1024)
def _chunked(p: Plan) -> bool:
    if p.scalar:
        return False
    first, owner = lanes(p)
    if owner is not None:
        return False
    span = WARP * p.vec
    base = first[:, :1]
    if (base % span).any() or not (first == base + np.arange(WARP) * p.vec).all():
        return False
    return np.unique(base).size == first.shape[0]


class LineRuns(NamedTuple):
    """How each warp instruction of a 2-D access covers a tile stored as lines (see :func:`line_runs`).

    Instruction ``i`` touches, for each ``g < G``, line ``line[i, g]`` (an index along the tile's other
    axis) at positions ``first[i, g] + k·vec`` along its consecutive axis, ``k < K``: one lane each, the
    lane whose first element is block element ``members[i, g, k]`` (row-major). All ``(instructions, G)``,
    ``members`` ``(instructions, G, K)``; read-only.
    """

    line: np.ndarray
    first: np.ndarray
    members: np.ndarray
    K: int


@lru_cache(maxsize=1024)
def line_runs(p: Plan, axis: int) -> LineRuns | None:
    """The lanes of :func:`lanes` grouped into runs along the lines of a 2-D tile whose elements are
    consecutive in memory along block axis ``axis`` (0 or 1), or None when they do not form such runs.

    Runs: within an instruction, the lanes on one line start ``vec`` elements apart, one after another,
    no element twice, every line of the instruction holding as many lanes (``K``); a lane's ``vec``
    elements lie along ``axis`` (``order[0] == axis`` unless ``vec`` is 1). The memory layer's closed
    form for tiles (:func:`kernellab.triton.executor.counts.count_planned`) counts from these runs; this function
    reads them off ``lanes()`` and checks them, so the two cannot disagree.

    >>> p = Plan((64, 32), (1, 8), (8, 4), (4, 1), (1, 0), 8, 8)   # fp16 64×32, 8 a lane, 4 warps
    >>> r = line_runs(p, 1); r.line.shape, r.K, r.line[0].tolist(), r.first[0].tolist()
    ((8, 8), 4, [0, 1, 2, 3, 4, 5, 6, 7], [0, 0, 0, 0, 0, 0, 0, 0])
    """
    if p.scalar or len(p.shape) != 2 or axis not in (0, 1) or (p.vec > 1 and p.order[0] != axis):
        return None
    first, owner = lanes(p)
    if owner is not None:
        return None
    d0, d1 = p.shape
    r, c = first // d1, first % d1
    line, pos = (r, c) if axis == 1 else (c, r)
    span = p.shape[axis] + 1
    key = line * span + pos
    order = np.argsort(key, axis=1, kind="stable")
    key = np.take_along_axis(key, order, axis=1)
    ln, ps = key // span, key % span
    new = np.ones(key.shape, bool)
    new[:, 1:] = ln[:, 1:] != ln[:, :-1]
    groups = int(new[0].sum())
    if (new.sum(axis=1) != groups).any() or WARP % groups:
        return None
    K = WARP // groups
    if not (new.reshape(-1, groups, K)[:, :, 0]).all():  # every line holds K lanes
        return None
    ps = ps.reshape(-1, groups, K)
    if K > 1 and (np.diff(ps, axis=2) != p.vec).any():
        return None
    members = np.take_along_axis(first, order, axis=1).reshape(-1, groups, K)
    return LineRuns(_frozen(ln.reshape(-1, groups, K)[:, :, 0].copy()), _frozen(ps[:, :, 0].copy()),
                    _frozen(members), K)


def sliced_instructions(lay, ptr: AxisInfo, mask: AxisInfo | None, elem_bytes: int) -> int:
    """Load instructions per thread of a 1-D block under a distributed layout ``lay`` (a
    :class:`kernellab.triton.compiler.convert.Linear`, such as a 2-D layout sliced): its distinct registers
    in vectors of the consecutive ones it starts with, at most what the pointers' alignment and the
    mask's constancy allow and 128 bits.

    >>> from kernellab.triton.compiler import axis, convert
    >>> ptr = axis.add(axis.splat(axis.argument(16), (64,)), axis.arange(0, 64), (64,), elem_bytes=4)
    >>> lay = convert.sliced(convert.blocked((16, 64), (1, 8), (4, 8), (4, 1), (1, 0)), 0)
    >>> sliced_instructions(lay, ptr, None, 4)     # 8 consecutive floats a thread: 2 × 16 bytes
    2
    """
    regs = [b for b in lay.registers if any(b)]
    run = 0
    while run < len(regs) and regs[run] == (1 << run,):
        run += 1
    align = min(max(ptr.divisibility[0] // elem_bytes, 1), ptr.contiguity[0])
    vec = min(1 << run, align, max(16 // elem_bytes, 1))
    if mask is not None:
        vec = min(vec, mask.constancy[0])
    return max((1 << len(regs)) // max(vec, 1), 1)
