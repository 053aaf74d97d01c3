"""The shared-memory stores and loads Triton 3.9 adds for layout conversions and cross-warp reductions.

A block lives in registers under a *distributed layout*: which warp, lane and register holds each
element. Every layout here is a linear layout (:class:`Linear`): a list of *bases* per hardware bit,
each the coordinates of the element that bit moves to (register bases, lane bases, warp bases), the
element of a (warp, lane, register) being the sum of the bases of its set bits. A basis whose
coordinate falls outside the block is zero: that bit *broadcasts* (holds a copy). A blocked layout
(:func:`blocked`, what :mod:`kernellab.triton.compiler.layout` gives a load or store) has register bases for
its ``size_per_thread``, then lane, then warp bases, then the repetitions when the block is bigger
than the layout's tile; a reduction's result has its operand's layout *sliced* (:func:`sliced`: the
reduced dimension dropped, registers that then coincide merged); ``x[:, None]`` and ``keep_dims``
insert a dimension of size 1 (:func:`expanded`).

Two things move data between threads through shared memory, and this module counts their
instructions per thread (a program runs them in each of its ``num_warps`` warps):

* **A layout conversion** (``ttg.convert_layout``; :func:`conversion`), where a value reaches an op
  under another layout than it has: a block loaded row-contiguous and stored column-contiguous (a
  transpose), a reduction's result stored under the store's own layout. Triton 3.9 lowers it
  through a shared-memory buffer whose layout it chooses so that each thread writes and reads
  vectors of up to 128 bits: a vector is a set of registers whose bases are the buffer's lowest
  address bits. Both sides share those bits: when both layouts have several registers, only the
  register bases they have in common can be vectorised; when one side holds a single element, the other
  side vectorises all its registers. Stores are the source's distinct registers ÷ its vector, loads
  the destination's ÷ its vector. Equal layouts need no conversion, nor do layouts whose warps hold
  the same elements, none of them copied: the lanes exchange them by warp shuffles. The vector's registers need not
  be consecutive: a thread's ``ld.shared.v4`` may fill its registers 0, 1, 4 and 5.
* **A cross-warp reduction** (``tl.sum``, ``tl.max``, ``tl.argmax``, … along a dimension split
  across warps; :func:`reduction`). Each thread reduces its own registers, the lanes reduce by
  shuffles, and the warps' partial results meet in shared memory: one store of the thread's
  partials (vectorised up to 128 bits), a barrier, and, when the lanes along the reduced dimension
  are at least as many as the warps there, one load of the partials into those lanes, which reduce
  them by shuffles again. Otherwise the older three-phase scheme runs: the partials are stored,
  loaded and combined by groups of lanes and stored again (``max(buffer elements ÷ threads, 1)``
  rounds), then every thread loads its results (a result nobody uses, such as ``tl.argmax``'s
  value, is not loaded). A reduction whose dimension lies within one warp needs no shared memory.
  Each operand (``tl.argmax`` has two: value and index) takes its own stores and loads.

The counts equal the ``st.shared``/``ld.shared`` (and ``ldmatrix``) of the PTX real Triton 3.9 compiles
for the conversions and reductions of ``kernellab/compiled_counts.json`` (``tests/test_compiled_counts.py``).

Examples
--------
>>> row = blocked((32, 32), (1, 4), (4, 8), (4, 1), (1, 0))   # 4 floats a thread along a row
>>> col = blocked((32, 32), (4, 1), (8, 4), (1, 4), (0, 1))   # 4 floats a thread down a column
>>> conversion(row, col, 32)                                  # no common vector: 8 st + 8 ld a thread
(8, 8)
>>> conversion(row, row, 32)
(0, 0)
>>> reduction(blocked((1024,), (4,), (32,), (4,), (0,)), 0, 32)   # tl.max of 1024 floats, 4 warps
(1, 1)
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from . import layout
from .mma import dot_plan
from .swizzle import Flat, Plan, plan

WARP = 32
MAX_VECTOR_BITS = 128


class Linear(NamedTuple):
    """A distributed layout of a block of ``shape``: the coordinates each register, lane and warp bit
    moves to (a zero tuple: that bit holds a copy)."""

    shape: tuple
    registers: tuple
    lanes: tuple
    warps: tuple
    order: tuple = ()  # a blocked layout's dimensions, fastest first (shared memory follows it); () for others


def _bits(n: int) -> int:
    return max(int(n), 1).bit_length() - 1


def _unit(rank: int, d: int, v: int) -> tuple:
    return tuple(v if i == d else 0 for i in range(rank))


def _clip(shape: tuple, basis: tuple) -> tuple:
    """A basis that leaves the block broadcasts: zero."""
    return basis if all(b < s for b, s in zip(basis, shape)) else (0,) * len(shape)


@lru_cache(maxsize=1024)
def blocked(shape: tuple, size_per_thread: tuple, threads_per_warp: tuple, warps_per_cta: tuple,
            order: tuple) -> Linear:
    """The linear layout of a blocked layout (``#ttg.blocked``) on ``shape``.

    >>> blocked((64,), (1,), (32,), (4,), (0,)).warps       # 4 warps over 64 elements: warps 2, 3 copy 0, 1
    ((32,), (0,))
    """
    rank = len(shape)
    regs, lanes, warps = [], [], []
    for d in order:
        regs += [_unit(rank, d, 1 << b) for b in range(_bits(size_per_thread[d]))]
    for d in order:
        lanes += [_unit(rank, d, size_per_thread[d] << b) for b in range(_bits(threads_per_warp[d]))]
    for d in order:
        step = size_per_thread[d] * threads_per_warp[d]
        warps += [_unit(rank, d, step << b) for b in range(_bits(warps_per_cta[d]))]
    for d in order:  # the block is bigger than the layout's tile: more registers
        tile = size_per_thread[d] * threads_per_warp[d] * warps_per_cta[d]
        while tile < shape[d]:
            regs.append(_unit(rank, d, tile))
            tile *= 2
    clip = [tuple(_clip(shape, b) for b in part) for part in (regs, lanes, warps)]
    return Linear(tuple(shape), *clip, tuple(order))


def from_plan(p) -> Linear:
    """The linear layout of a :class:`kernellab.triton.compiler.layout.Plan` (a load's or store's layout)."""
    return blocked(p.shape, p.size_per_thread, p.threads_per_warp, p.warps_per_cta, p.order)


def default(shape: tuple, num_warps: int) -> Linear:
    """The layout Triton gives a block no memory access decided: one element a thread, the last
    dimension fastest (``getDefaultBlockedEncoding``)."""
    counts = layout.blocked
    if not shape:
        return Linear((), (), ((),) * 5, ((),) * _bits(num_warps))
    order = tuple(range(len(shape)))[::-1]
    spt = (1,) * len(shape)
    tpw, wpc = counts(shape, spt, order, num_warps)
    return blocked(tuple(shape), spt, tpw, wpc, order)


def _drop(basis: tuple, axis: int) -> tuple:
    return basis[:axis] + basis[axis + 1:]


@lru_cache(maxsize=1024)
def sliced(lay: Linear, axis: int) -> Linear:
    """The layout of a reduction's result along ``axis`` (``#ttg.slice``): registers that differed only
    along ``axis`` are one register now."""
    regs = tuple(r for r in (_drop(b, axis) for b in lay.registers) if any(r))
    return Linear(_drop(lay.shape, axis), regs, tuple(_drop(b, axis) for b in lay.lanes),
                  tuple(_drop(b, axis) for b in lay.warps))


@lru_cache(maxsize=1024)
def expanded(lay: Linear, axis: int) -> Linear:
    """``x[:, None]`` / ``tl.expand_dims`` / ``keep_dims``: a dimension of size 1 inserted at ``axis``."""
    def ins(b):
        return b[:axis] + (0,) + b[axis:]

    return Linear(lay.shape[:axis] + (1,) + lay.shape[axis:], tuple(ins(b) for b in lay.registers),
                  tuple(ins(b) for b in lay.lanes), tuple(ins(b) for b in lay.warps))


@lru_cache(maxsize=1024)
def transposed(lay: Linear) -> Linear:
    """``tl.trans`` of a 2-D block: the same registers, lanes and warps, each basis's coordinates swapped
    (``tt.trans`` moves no data).

    >>> transposed(blocked((16, 32), (1, 4), (4, 8), (4, 1), (1, 0))).registers
    ((1, 0), (2, 0))
    """
    def swap(b):
        return b[::-1]

    return Linear(lay.shape[::-1], tuple(swap(b) for b in lay.registers), tuple(swap(b) for b in lay.lanes),
                  tuple(swap(b) for b in lay.warps), tuple(1 - d for d in lay.order))


def flattened(lay: Linear) -> Linear:
    """A block reduced over all its dimensions reduces as one dimension (Triton reshapes it first)."""
    strides = [1] * len(lay.shape)
    for d in range(len(lay.shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * lay.shape[d + 1]

    def flat(b):
        return (sum(x * s for x, s in zip(b, strides)),)

    n = 1
    for s in lay.shape:
        n *= s
    return Linear((n,), tuple(flat(b) for b in lay.registers), tuple(flat(b) for b in lay.lanes),
                  tuple(flat(b) for b in lay.warps))


def _distinct(bases: tuple) -> tuple:
    return tuple(b for b in bases if any(b))


def _cap(bits: int) -> int:
    """log2 of the elements a 128-bit vector holds."""
    return _bits(max(MAX_VECTOR_BITS // max(bits, 1), 1))


def flat(lay: Linear) -> Flat:
    """``lay`` flattened to one dimension as Triton's ``LinearLayout::flattenOuts`` flattens it (dimension 0
    fastest): each basis the element number it moves to (0: a copy).

    >>> flat(blocked((4, 8), (1, 2), (4, 8), (1, 1), (1, 0)))    # 2 along a row (dim 1 counts ×4), then
    Flat(regs=(4,), lanes=(8, 16, 0, 1, 2), warps=())
    >>> # lanes: columns 2 and 4 (column 8 is past the block: a copy), then rows 1 and 2
    """
    strides = [1] * len(lay.shape)
    for d in range(1, len(lay.shape)):
        strides[d] = strides[d - 1] * lay.shape[d - 1]

    def one(b):
        return sum(c * s for c, s in zip(b, strides))

    return Flat(tuple(one(b) for b in lay.registers), tuple(one(b) for b in lay.lanes),
                tuple(one(b) for b in lay.warps))


@lru_cache(maxsize=4096)
def conversion(src: Linear, dst: Linear, bits: int, target: str = "sm80") -> tuple[int, int]:
    """``(stores, loads)`` per thread of converting a block of ``bits``-bit elements from ``src`` to ``dst``
    through shared memory (``ttg.convert_layout``) on ``target``; ``(0, 0)`` for equal layouts and for
    layouts whose warps hold the same elements (the lanes exchange them by shuffles). The buffer and the
    instructions are Triton 3.9's (:func:`kernellab.triton.compiler.swizzle.plan`).

    >>> a = blocked((16, 32), (1, 4), (4, 8), (4, 1), (1, 0))
    >>> conversion(sliced(a, 0), blocked((32,), (1,), (32,), (4,), (0,)), 32)   # 4 partial sums: st.v4, ld
    (1, 1)
    """
    p = shared_plan(src, dst, bits, target)
    return (0, 0) if p is None else (p.stores, p.loads)


def shared_plan(src: Linear, dst: Linear, bits: int, target: str = "sm80") -> Plan | None:
    """The shared-memory plan of a conversion (:func:`kernellab.triton.compiler.swizzle.plan`), None when it
    needs no shared memory."""
    if src[:4] == dst[:4]:  # the same bases: the same layout, whatever its order says
        return None
    if src.warps == dst.warps and _distinct(src.warps) == src.warps \
            and _distinct(src.lanes + dst.lanes) == src.lanes + dst.lanes:
        return None  # every warp keeps its own elements, none copied: the lanes exchange them by shuffles
    return plan(flat(src), flat(dst), bits, target)


def _along(bases: tuple, axes) -> int:
    return sum(1 for b in bases if any(b[a] for a in axes))


def _unit_along(rank: int, axis: int, k: int) -> tuple:
    return tuple((1 << k) if i == axis else 0 for i in range(rank))


def partials(src: Linear, axis: int) -> tuple[Linear, list, list]:
    """The partial results of a reduction of a block under ``src`` along ``axis`` once each thread reduced
    its registers and each warp its lanes: ``(layout, indices of the lanes along the axis, indices of
    the warps along it)``. The layout's axis has one entry per warp along it (its warp bases are 1, 2,
    4, … there); the lanes along the axis now hold copies."""
    rank = len(src.shape)
    zero = (0,) * rank
    regs = tuple(dict.fromkeys(b for b in src.registers if any(b) and not b[axis]))
    lanes_on = [i for i, b in enumerate(src.lanes) if b[axis]]
    warps_on = [i for i, b in enumerate(src.warps) if b[axis]]
    shape = tuple((1 << len(warps_on)) if d == axis else n for d, n in enumerate(src.shape))
    warps = list(src.warps)
    for k, i in enumerate(warps_on):
        warps[i] = _unit_along(rank, axis, k)
    lanes = tuple(zero if b[axis] else b for b in src.lanes)
    return Linear(shape, regs, lanes, tuple(warps)), lanes_on, warps_on


@lru_cache(maxsize=4096)
def reduction(src: Linear, axis: int | None, bits: int, operands: int = 1, used: int | None = None,
              target: str = "sm80") -> tuple[int, int]:
    """``(stores, loads)`` per thread of a reduction of a block under ``src`` along ``axis`` (None: every
    dimension), of ``operands`` operands of ``bits`` bits (``used``: how many of the results are read;
    None: all), as Triton 3.9 lowers ``tt.reduce``: each thread reduces its registers, each warp its lanes
    (shuffles); when warps lie along the axis, their partial results (:func:`partials`) are converted
    through shared memory (:func:`conversion`) to a layout whose lanes hold the axis's warps, reduced by
    shuffles again. When the lanes along the axis (copies now) are at least as many as those warps, the
    warps go there and the result is already in the reduction's own layout (its operand's, sliced): one
    conversion. Otherwise the first lanes take them, the lanes they displace go to the warps, and the
    result is converted once more to the sliced layout; a result nobody reads is not loaded then. Each
    operand (``tl.argmax`` has two) is converted on its own.

    >>> lay = blocked((16, 32), (1, 1), (1, 32), (4, 1), (1, 0))   # 16 rows over 4 warps, 1 lane each
    >>> reduction(lay, 0, 32), reduction(lay, 0, 32, operands=2, used=1)   # 2 conversions a value
    ((2, 2), (4, 3))
    >>> reduction(lay, 1, 32)                                         # along a row: within a warp
    (0, 0)
    >>> reduction(blocked((1024,), (4,), (32,), (4,), (0,)), 0, 32)   # tl.max of 1024 floats: one, v1
    (1, 1)
    """
    stores = loads = 0
    for a, b, n_st, n_ld in _reduction_steps(src, axis, operands, used):
        st, ld = conversion(a, b, bits, target)
        stores, loads = stores + st * n_st, loads + ld * n_ld
    return stores, loads


def _reduction_steps(src: Linear, axis: int | None, operands: int, used: int | None) -> list:
    """The conversions of a cross-warp reduction (:func:`reduction`): ``(from, to, times stored, times
    loaded)`` each."""
    if axis is None:
        src, axis = flattened(src), 0
    used = operands if used is None else used
    part, lanes_on, warps_on = partials(src, axis)
    if not warps_on:
        return []
    rank = len(src.shape)
    zero = (0,) * rank
    lanes, warps = list(part.lanes), list(part.warps)
    if len(lanes_on) >= len(warps_on):
        for li, wi in zip(lanes_on, warps_on):
            lanes[li], warps[wi] = part.warps[wi], zero
        return [(part, part._replace(lanes=tuple(lanes), warps=tuple(warps)), operands, operands)]
    for k, wi in enumerate(warps_on):
        lanes[k], warps[wi] = part.warps[wi], part.lanes[k]
    tmp = part._replace(lanes=tuple(lanes), warps=tuple(warps))
    reduced = Linear(_drop(part.shape, axis), tuple(_drop(b, axis) for b in part.registers),
                     tuple(_drop(zero if b[axis] else b, axis) for b in tmp.lanes),
                     tuple(_drop(b, axis) for b in tmp.warps))
    return [(part, tmp, operands, operands), (reduced, sliced(src, axis), operands, used)]


@lru_cache(maxsize=1024)
def scan(src: Linear, axis: int, bits: int, operands: int = 1) -> tuple[int, int]:
    """``(stores, loads)`` per thread of an inclusive scan (``tl.cumsum``, ``tl.associative_scan``) of a
    block under ``src`` along ``axis``, as Triton 3.9 lowers ``tt.scan`` (``ScanOpToLLVM``): each thread
    scans its runs of consecutive registers along the axis (its *chunks*), each warp its lanes by
    shuffles; when warps lie along the axis, every chunk's last value goes to shared memory (one store a
    chunk and operand, the warp's last lane writing), and each chunk reads back the totals of every warp
    along the axis. Those reads are consecutive words when no lane or warp lies across the axis, which
    LLVM merges into 128-bit loads; otherwise one load each, less one a run of chunks of the same
    columns (the last warp's total, read only to carry into a next chunk there is not).

    >>> scan(blocked((1024,), (4,), (32,), (4,), (0,)), 0, 32)     # 2 chunks of 4: st × 2, ld.v4 × 2
    (2, 2)
    >>> scan(blocked((64, 32), (1, 4), (4, 8), (4, 1), (1, 0)), 0, 32)   # 16 chunks × 4 warps − 4
    (16, 60)
    """
    warps_on = _along(src.warps, (axis,))
    if not warps_on:
        return 0, 0
    regs = _distinct(src.registers)
    chunks = (1 << len(regs)) >> _run(src, axis)
    columns = 1 << sum(1 for b in regs if not b[axis])  # accumulators: the thread's distinct columns
    across = sum(1 for b in (*src.lanes, *src.warps) if any(b) and not b[axis])
    reads = chunks << warps_on
    if not across:
        loads = -(-reads * bits // MAX_VECTOR_BITS)
    else:
        loads = reads - columns
    return chunks * operands, loads * operands


def hypercube(lay: Linear) -> Linear:
    """``lay`` reshaped to ``[2] * log2(elements)`` as ``tl.sort`` reshapes a block (row-major: the last
    dimension of the hypercube is bit 0 of the element's row-major index)."""
    flat_ = flattened(lay)
    n = flat_.shape[0].bit_length() - 1

    def cube(b):
        v = b[0]
        return tuple(1 if v >> (n - 1 - d) & 1 else 0 for d in range(n))

    return Linear((2,) * n, tuple(cube(b) for b in flat_.registers), tuple(cube(b) for b in flat_.lanes),
                  tuple(cube(b) for b in flat_.warps))


@lru_cache(maxsize=256)
def sort(src: Linear, bits: int, target: str = "sm80", k: int | None = None) -> tuple[int, int]:
    """``(stores, loads)`` per thread of ``tl.sort`` of a block under ``src`` along its last dimension:
    Triton's bitonic network on the block reshaped to a hypercube (:func:`hypercube`), every
    compare-and-swap along index bit ``j`` an ``xor_sum`` reduction along that dimension (stage ``i``,
    1 ≤ i ≤ log2 n, swaps along bits ``i − 1 … 0``: bit ``j`` ``log2 n − j`` times); only those along bits
    a warp holds move data through shared memory (:func:`reduction`).

    >>> sort(blocked((128,), (1,), (32,), (4,), (0,)), 32)   # bits 5, 6 on warps: 2 + 1 reductions × (2, 2)
    (6, 6)
    """
    cube = hypercube(src)
    n = len(cube.shape)
    log_n = src.shape[-1].bit_length() - 1
    st = ld = 0
    for j in range(log_n):
        dim = n - 1 - j
        if not any(b[dim] for b in cube.warps):
            continue
        s, t = reduction(cube, dim, bits, 1, None, target)
        st += s * (log_n - j)
        ld += t * (log_n - j)
    return st, ld


def histogram(bins: int, num_warps: int) -> tuple[int, int]:
    """``(stores, loads)`` per thread of ``tl.histogram`` into ``bins`` bins (Triton 3.9's
    ``HistogramOpToLLVM``): each warp counts its values by ballots, the bins (at least 32) are zeroed in
    shared memory (``⌈bins ÷ threads⌉`` stores a thread), each warp adds its counts with shared atomics
    (``atom.shared``, neither a load nor a store), and every thread reads its bins back under the
    result's default layout (one load a register).

    >>> histogram(16, 4), histogram(1024, 4)          # 32 bins over 128 threads; 1024 bins: 8 each
    ((1, 1), (8, 8))
    """
    threads = WARP * num_warps
    stores = -(-max(bins, WARP) // threads)
    return stores, 1 << len(_distinct(default((bins,), num_warps).registers))


TMA_BOX_BYTES = 128  # a box's last dimension: at most the 128-byte swizzle Triton 3.9 gives the tile
TMA_BOX_ELEMS = 256  # a box's other dimensions: at most 256 elements (cuTensorMapEncodeTiled's boxDim)


def tma_copies(block_shape: tuple, elem_bytes: int, num_warps: int) -> int:
    """TMA copy instructions (``cp.async.bulk.tensor``) per thread of one ``desc.load`` or ``desc.store``
    of a ``block_shape`` tile on sm_90, as Triton 3.9 lowers it: the tile is cut into boxes of at most
    128 bytes along its last dimension and 256 elements along each other one; ``min(boxes, num_warps)``
    warps issue them (one elected lane each), ``⌈boxes ÷ those warps⌉`` instructions a warp, which every
    warp runs (predicated off in the others).

    >>> tma_copies((16, 64), 4, 4), tma_copies((16, 256), 4, 4), tma_copies((2048, 32), 2, 4)
    (1, 2, 2)
    """
    if not block_shape:
        return 1
    boxes = -(-block_shape[-1] // max(TMA_BOX_BYTES // elem_bytes, 1))
    for s in block_shape[:-1]:
        boxes *= -(-s // TMA_BOX_ELEMS)
    return -(-boxes // min(boxes, num_warps))


def tma_shared(block_shape: tuple, bits: int, num_warps: int) -> int:
    """Shared-memory loads (or stores) per thread that move a TMA tile between shared memory and the
    registers on sm_90: ``ttg.local_load`` of a ``desc.load``'s tile, ``ttg.local_alloc`` of a
    ``desc.store``'s value; each thread moves its share of the tile in 128-bit vectors, at least one.
    A tile loaded and stored unchanged stays in shared memory: neither.

    >>> tma_shared((16, 64), 32, 4), tma_shared((16, 16), 16, 4)     # 8 floats a thread: 2 × v4; 2 halves: 1
    (2, 1)
    """
    n = 1
    for s in block_shape:
        n *= s
    return max(n * bits // (MAX_VECTOR_BITS * WARP * num_warps), 1)


def resolve(tag, target: str = "sm80") -> Linear | None:
    """The layout a value's tag stands for, once the launch's accesses are known (loads take the widest
    vector of their shape and order, :func:`kernellab.triton.compiler.layout.plan`). Tags: ``("load", how,
    element bytes, num_warps, wanted)`` and ``("store", …)`` for a memory access (``how``: the pointer's
    and mask's axis facts and the block's shape), ``("slice", tag, axis)``, ``("expand", tag, axis)``,
    ``("default", shape, num_warps)``, ``("atomic", how, element bytes, num_warps, op, float)`` (an
    atomic's, by target: :func:`atomic_plan`), ``("dot", M, N, kind, num_warps)`` (a ``tl.dot``'s accumulator,
    whose layout depends on ``target``: :func:`accumulator`), ``("trans", tag)`` (``tl.trans`` of a 2-D block), ``("sm80", tag)`` (a tensor descriptor's
    access: ``tag`` on sm_80, no layout on sm_90, where it is a TMA copy)."""
    kind = tag[0]
    if kind in ("load", "store"):
        (ptr, mask, shape), width, num_warps, wanted = tag[1:]
        want = None
        if wanted is not None:
            order, _own = layout.own_width(ptr, shape, width)
            want = wanted.get((shape, order))
        return from_plan(layout.plan(ptr, mask, shape, width, num_warps, want))
    if kind == "default":
        return default(tag[1], tag[2])
    if kind == "dot":
        plan = tag[5] if len(tag) > 5 else None
        if plan is not None and plan.__class__ is tuple and plan and plan[0].__class__.__name__ == "DotChain":
            plan = plan[0].plan(plan[1], tag[3], tag[4])
        return accumulator(*tag[1:5], target=target, plan=plan)
    if kind == "atomic":
        return from_plan(atomic_plan(*tag[1:], target=target))
    if kind == "sm80":  # a descriptor's access, a pointer access on sm_80 only (TMA on sm_90)
        return resolve(tag[1], target) if target == "sm80" else None
    inner = resolve(tag[1], target)
    if inner is None:
        return None
    if kind == "trans":
        return transposed(inner)
    return sliced(inner, tag[2]) if kind == "slice" else expanded(inner, tag[2])


def _mma(m: int, n: int, warps_m: int, warps_n: int, warp_n: int, group_rows: int) -> Linear:
    """An NVIDIA MMA accumulator: each warp holds ``16 × warp_n`` tiles, a thread 2 adjacent columns
    in rows ``r`` and ``r + 8``; lanes take 4 column pairs and 8 rows. ``group_rows`` rows of warps go
    down M first (4 for a ``wgmma`` warpgroup, 1 for ``mma.sync``), then ``warps_m`` of those, then
    ``warps_n`` along N; the block repeats the tile of all the warps."""
    shape = (m, n)
    regs = [(0, 1), (8, 0)] + [(0, 8 << b) for b in range(_bits(warp_n // 8))]
    lanes = [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)]
    warps = [(16 << b, 0) for b in range(_bits(group_rows * warps_m))]
    warps += [(0, warp_n << b) for b in range(_bits(warps_n))]
    tile_m, tile_n = 16 * group_rows * warps_m, warp_n * warps_n
    while tile_n < n:
        regs.append((0, tile_n))
        tile_n *= 2
    while tile_m < m:
        regs.append((tile_m, 0))
        tile_m *= 2
    clip = [tuple(_clip(shape, b) for b in part) for part in (regs, lanes, warps)]
    return Linear(shape, *clip)


def _mma3(b: int, m: int, n: int, wb: int, wm: int, wn: int) -> Linear:
    """A batched dot's ``mma.sync`` accumulator (``instrShape [1, 16, 8]``): each warp its 16 × 8 tiles of
    one batch entry, warps over M, then N, then the batch; the block repeats the warps' tile."""
    shape = (b, m, n)
    regs = [(0, 0, 1), (0, 8, 0)]
    lanes = [(0, 0, 2), (0, 0, 4), (0, 1, 0), (0, 2, 0), (0, 4, 0)]
    warps = [(0, 16 << i, 0) for i in range(_bits(wm))] + [(0, 0, 8 << i) for i in range(_bits(wn))]
    warps += [(1 << i, 0, 0) for i in range(_bits(wb))]
    tile_n, tile_m, tile_b = 8 * wn, 16 * wm, wb
    while tile_n < n:
        regs.append((0, 0, tile_n))
        tile_n *= 2
    while tile_m < m:
        regs.append((0, tile_m, 0))
        tile_m *= 2
    while tile_b < b:
        regs.append((tile_b, 0, 0))
        tile_b *= 2
    clip = [tuple(_clip(shape, x) for x in part) for part in (regs, lanes, warps)]
    return Linear(shape, *clip)


def fma_layout(m: int, n: int, num_warps: int) -> Linear:
    """The blocked layout Triton 3.9 gives a ``tl.dot`` that runs on FMAs (``input_precision="ieee"``;
    ``TritonDotPattern``): 2 × 2 elements a thread when the ``M×N`` result has at least 4 a thread, 4 × 4
    when at least 16, else 1; lanes and warps as for any block, the last dimension fastest.

    >>> fma_layout(32, 32, 4).lanes[:4], fma_layout(64, 64, 4).registers[:4]
    (((0, 2), (0, 4), (0, 8), (0, 16)), ((0, 1), (0, 2), (1, 0), (2, 0)))
    """
    counts = layout.blocked
    per = m * n // (WARP * num_warps)
    s = 4 if per >= 16 else 2 if per >= 4 else 1
    spt, order = (min(s, m), min(s, n)), (1, 0)
    tpw, wpc = counts((m, n), spt, order, num_warps)
    return blocked((m, n), spt, tpw, wpc, order)


def _stmatrix(x: Linear, d: int, bits: int) -> int | None:
    """``stmatrix.x4`` stores per thread of a block under ``x`` to a buffer contiguous along ``d`` (sm_90),
    None where it does not apply: ``stmatrix`` writes 8 × 8 matrices of 16-bit elements whose 16-byte rows
    lanes address, lane ``l`` holding the 32-bit word ``l mod 4`` of row ``l / 4``, so the first two lane
    bases (and for 16-bit elements the first register) must be the buffer's lowest address bits; an
    ``.x4`` stores 4 words a thread."""
    if bits not in (16, 32) or len(x.lanes) < 2:
        return None
    first = ((x.registers[0],) if bits == 16 and x.registers else ()) + tuple(x.lanes[:2])
    rank = len(x.shape)
    if bits == 16 and not x.registers or list(first) != [_unit(rank, d, 1 << i) for i in range(len(first))]:
        return None
    words = (1 << len(_distinct(x.registers))) * bits // 32
    return max(words // 4, 1)


def fma_staging(a: Linear, b: Linear, bits: int, num_warps: int, target: str) -> tuple[int, int]:
    """``(stores, loads)`` per thread of a ``tl.dot`` on FMAs (``input_precision="ieee"``): each operand
    is stored to shared memory in the layout of its load (``ttg.local_alloc``; the buffer's contiguous
    dimension that layout's fastest, each thread's runs in vectors of up to 128 bits, or with
    ``stmatrix.x4`` on sm_90 where it applies), then every thread loads the rows of A and the columns of
    B its part of the result (:func:`fma_layout`) needs, all of K (``ttg.local_load`` to
    ``#ttg.dot_op`` of a blocked parent): in vectors along the buffer's contiguous dimension, all of K
    at once when that is K, the thread's consecutive rows (columns) when it is M (N); there, for 32-bit
    elements whose first two lanes are the buffer's first two elements, with ``ldmatrix.x4`` (4 words a
    thread an instruction).

    >>> a = blocked((32, 32), (1, 4), (4, 8), (4, 1), (1, 0))    # 8 floats a thread: 2 st.v4 an operand
    >>> fma_staging(a, a, 32, 4, "sm80")   # 4 rows of A × 32 / 4 (v4) + 32 K × 2 columns / 2 (v2)
    (4, 64)
    """
    cap = _cap(bits)
    (m, k), n = a.shape, b.shape[1]
    stores = 0
    for x in (a, b):
        d = x.order[0] if x.order else 1
        plain = (1 << len(_distinct(x.registers))) >> min(_run(x, d), cap)
        st = _stmatrix(x, d, bits) if target == "sm90" else None
        stores += min(plain, st) if st is not None else plain
    p = fma_layout(m, n, num_warps)
    loads = 0
    for x, own in ((a, 0), (b, 1)):  # A: its rows (dim 0) × K (dim 1); B: K (dim 0) × its columns (dim 1)
        kdim = 1 - own
        mine = 1 << _along(_distinct(p.registers), (own,))
        d = x.order[0] if x.order else 1
        if d == kdim:
            loads += mine * (k >> min(_bits(k), cap))
            continue
        plain = k * (mine >> min(_run(p, own), cap))
        if bits == 32 and tuple(p.lanes[:2]) == (_unit(2, own, 1), _unit(2, own, 2)):
            plain = min(plain, max(k * mine // 4, 1))  # ldmatrix.x4: lanes 0-3 read a 16-byte row, 4 words a thread
        loads += plain
    return stores, loads


@lru_cache(maxsize=256)
def accumulator(m: int, n: int, what: str, num_warps: int, target: str = "sm80", plan=None) -> Linear:
    """The layout of a ``tl.dot``'s ``M×N`` accumulator (``#ttg.nvidia_mma``) under its warps (``plan``,
    :func:`kernellab.triton.compiler.mma.dot_plan`; None: the dot's own): version 2 (``mma.sync``) on
    sm_80, and on sm_90 for blocks too small for ``wgmma``; version 3 on sm_90 (warpgroups of 4 warps down
    64 rows, a ``wgmma`` ``N`` wide). Warps beyond the block's tiles hold copies.

    >>> len(accumulator(64, 64, "fp16", 4).registers), len(accumulator(64, 64, "fp16", 4, "sm90").registers)
    (5, 5)
    """
    if m.__class__ is tuple:  # a batched dot's (batch, M): mma.sync, warps over batch, M and N
        (b, m), (wb, wm, wn) = m, (plan or dot_plan(m[1], n, what, num_warps, m[0])).sm80
        return _mma3(b, m, n, wb, wm, wn)
    if what == "fma":
        return fma_layout(m, n, num_warps)
    if plan is None:
        plan = dot_plan(m, n, what, num_warps)
    if target == "sm90" and plan.sm90[0] == "wgmma":
        _v, w0, w1, n_instr = plan.sm90
        return _mma(m, n, max(w0 // 4, 1), w1, n_instr, 4)
    wm, wn = plan.sm80 if target != "sm90" else plan.sm90[1:]
    return _mma(m, n, wm, wn, 8, 1)


def _fastest(lay: Linear) -> int:
    """The dimension a layout orders first (the last for layouts with no order)."""
    return lay.order[0] if lay.order else len(lay.shape) - 1


def register_order(lay: Linear) -> tuple:
    """The dimensions in the order a thread's registers run through them (``LinearEncodingAttr::getOrder``:
    each dimension where a register basis first moves, then the others from the last down), the order
    of the plain (unswizzled) buffer the pipeliner copies a load into that no dot reads directly.

    >>> register_order(blocked((16, 128), (1, 1), (1, 32), (1, 4), (1, 0)))   # 16 rows a thread
    (0, 1)
    """
    order = []
    for basis in lay.registers:
        for i, v in enumerate(basis):
            if v:
                if i not in order:
                    order.append(i)
                break
    return tuple(order) + tuple(i for i in reversed(range(len(lay.shape))) if i not in order)


def read_back(lay: Linear, bits: int) -> int:
    """``ld.shared`` per thread of a ``ttg.local_load`` into ``lay`` from a plain buffer in ``lay``'s
    :func:`register_order`: each thread's runs of consecutive elements in vectors of up to 128 bits."""
    return (1 << len(_distinct(lay.registers))) >> min(_run(lay, register_order(lay)[0]), _cap(bits))


def _run(lay: Linear, d: int | None = None) -> int:
    """log2 of the elements a thread holds consecutively along dimension ``d`` (the shared-memory
    buffer's contiguous one; None: the one its layout orders first)."""
    regs = lay.registers
    if d is None:
        d = lay.order[0] if lay.order else len(lay.shape) - 1
    k = 0
    while k < len(regs) and regs[k] == _unit(len(lay.shape), d, 1 << k):
        k += 1
    return k


def wgmma_a_operand(m: int, k: int, warps_m: int, warps_n: int, bits: int = 16) -> Linear:
    """The register layout of a ``wgmma``'s A operand (``#ttg.dot_op<opIdx = 0>`` of a version-3 parent of
    ``warps_m × warps_n`` warps) for an ``M×K`` block: each warp's 16 rows (4 warps a warpgroup down 64
    rows), a thread one 32-bit word of adjacent columns (2 of 16 bits, 4 of 8) in rows ``r`` and ``r + 8``
    of each slice 4 words wide, as the accumulator lays its columns; the warps along N hold copies."""
    shape = (m, k)
    word = max(32 // bits, 1)
    regs = [(0, 1 << i) for i in range(_bits(word))] + [(8, 0)]
    regs += [(0, 4 * word << b) for b in range(_bits(max(k // (4 * word), 1)))]
    lanes = [(0, word), (0, 2 * word), (1, 0), (2, 0), (4, 0)]
    warps = [(16 << b, 0) for b in range(_bits(warps_m))] + [(0, 0)] * _bits(warps_n)
    tile_m = 16 * warps_m
    while tile_m < m:
        regs.append((tile_m, 0))
        tile_m *= 2
    clip = [tuple(_clip(shape, b) for b in part) for part in (regs, lanes, warps)]
    return Linear(shape, *clip)


PREFETCH_K = {"fp16": 16, "bf16": 16, "tf32": 8, "int8": 32, "fp8": 16}  # 8 × kWidth of the mma.sync operands


def prefetch_loads(m: int, n: int, k: int, what: str, bits: int, warps: tuple) -> int:
    """``ldmatrix`` (and tf32 B's scalar) loads per thread of the first K slice of a pipelined
    ``mma.sync`` dot's operands, which sm_80's ``Prefetch`` pass loads once more before the loop: a slice
    ``8 × kWidth`` wide (16 for 16-bit operands, 8 for tf32, 32 for 8-bit), none when K is narrower.

    >>> prefetch_loads(64, 64, 32, "fp16", 16, (2, 2))   # A: 32 rows × 16 × 2 B = 2; B: 16 × 32 × 2 B = 2
    4
    """
    width = PREFETCH_K.get(what)
    if width is None or k < width or len(warps) != 2:
        return 0
    wm, wn = warps
    nbytes = bits // 8
    rows, cols = 16 * -(-m // (16 * wm)), 8 * -(-n // (8 * wn))
    loads = rows * width * nbytes // 512
    loads += width * cols // WARP if what == "tf32" else width * cols * nbytes // 512
    return loads


def atomic_vector(op: str, elem_bytes: int, is_float: bool, target: str) -> int:
    """The most elements one atomic instruction of a thread updates in Triton 3.9's PTX: an fp32
    ``tl.atomic_add`` is ``atom.add.v4.f32`` on sm_90 (one element on sm_80), an fp16 or bf16 one
    ``atom.add.noftz.v8.f16`` on sm_90 and ``.f16x2`` on sm_80; every other atomic one element.

    >>> atomic_vector("atomic_add", 4, True, "sm90"), atomic_vector("atomic_add", 4, True, "sm80")
    (4, 1)
    """
    if op != "atomic_add" or not is_float:
        return 1
    if elem_bytes == 4:
        return 4 if target == "sm90" else 1
    if elem_bytes == 2:
        return 8 if target == "sm90" else 2
    return 1


def atomic_plan(how, elem_bytes: int, num_warps: int, op: str, is_float: bool, target: str = "sm80"):
    """The layout and instructions of a ``tl.atomic_*`` (:class:`kernellab.triton.compiler.layout.Plan`): the
    coalescing pass gives it the layout of a store through its pointers, its elements per thread at
    most what one atomic instruction updates (:func:`atomic_vector`), so that on sm_80 an fp32
    ``atomic_add`` takes one element a thread, the 32 lanes of a warp 32 consecutive ones."""
    ptr, mask, shape = how
    cap = atomic_vector(op, elem_bytes, is_float, target)
    if shape:
        d = layout.order_of(ptr.contiguity)[0]
        div = list(ptr.divisibility)
        div[d] = min(div[d], cap * elem_bytes)  # no wider than the instruction: as if aligned to it
        ptr = ptr._replace(divisibility=tuple(div))
    return layout.plan(ptr, mask, shape, elem_bytes, num_warps)


def atomic_instructions(how, elem_bytes: int, num_warps: int, op: str, is_float: bool, target: str) -> int:
    """Warp-level atomic instructions per program of a ``tl.atomic_*`` (``atom.global`` of the PTX):
    its layout's instructions (:func:`atomic_plan`); an fp32 ``atomic_max``/``atomic_min`` issues two
    for each element (``atom.max.s32`` for the non-negative values, ``atom.min.u32`` for the others).

    >>> from kernellab.triton.compiler import axis
    >>> ptr = axis.add(axis.splat(axis.argument(16), (1024,)), axis.arange(0, 1024), (1024,), elem_bytes=4)
    >>> [atomic_instructions((ptr, None, (1024,)), 4, 4, "atomic_add", True, t) for t in ("sm80", "sm90")]
    [32, 8]
    """
    n = atomic_plan(how, elem_bytes, num_warps, op, is_float, target).instructions
    return 2 * n if is_float and op in ("atomic_max", "atomic_min") else n
