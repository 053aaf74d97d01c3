"""The ``blk`` object a SIMT kernel receives: thread and block indices, memory, barriers, divergence.

A kernel runs once for a batch of blocks: every statement acts on all their threads at once, so
``blk.tx`` is a vector over lanes and ``blk.n_threads`` is the number of lanes in the batch. Lane
``32·w + l`` is lane ``l`` of warp ``w``; each block's threads are padded to whole warps (the
padding lanes are never active), so a warp never spans two blocks, as on hardware. Divergence is
a mask: ``with blk.where(cond):`` narrows the active lanes, and only active lanes load, store and
count. Python arithmetic on values runs on every lane; only ``blk`` operations honour the mask. Integer
arithmetic and comparisons on lane values count the instructions nvcc would emit (:mod:`kernellab.simt.lanes`),
as do loops and ``blk.where`` regions (``launch(auto_instr=...)``).
"""

from __future__ import annotations

import math
import mmap
import sys
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from .. import cvt
from ..access import BANK_BYTES, SECTOR_BYTES, WARP_SIZE, Access, warp_any
from ..counters import memory_kind
from ..errors import BarrierError, LaunchError, MisalignedError, OutOfBoundsError, RaceError, fmt_dim3
from ..fused import round_once
from ..grid import cdiv
from ..i18n import _
from ..lane_order import in_lane_order
from .lanes import Lanes
from .lanes import lanes as as_lanes
from .memory import SHARED_ALIGN, GlobalMemory, SharedArray
from .race import HazardTracker
from .shifts import BlockMoves, ShiftRef
from .special import SPECIAL
from .tally import Tally
from .tiled import Tiled, parts_of, plain
from .tiled import held as held_value

#: What nvcc emits for every kernel, per warp (sm_86 SASS of the twins in ``cuda/``): at entry a stack-pointer
#: ``MOV`` and the ``ULDC`` of the global-memory descriptor (int), ``S2R`` of ``threadIdx`` and ``blockIdx``
#: (other); at the end an ``EXIT`` (ctrl). Both are charged, for every warp, with the kernel's first counted
#: instruction (so ``lines=True`` puts them on that line).
ENTRY_COST = (("int", 2), ("other", 2))
EXIT_COST = (("ctrl", 1),)
#: The cost of a loop's back edge for each warp and pass (the induction update and compare, int, and the branch back, ctrl).
LOOP_COST = (("int", 2), ("ctrl", 1))
#: The longest ``blk.where`` body, in warp instructions per warp, that is predicated (if-converted): every
#: warp reaching it issues it, lanes off. ASSUMED from the twins, whose 5–7-instruction bodies nvcc
#: predicates; a longer body is a branch (one ``BRA`` per warp) that warps with no active lane skip.
PREDICATE_MAX = 12
_PACKAGE = str(Path(__file__).resolve().parents[1])  # kernellab's own frames are not the user's
_LANE_TYPES = frozenset({np.ndarray, Lanes})  # lane values whose astype and in-place ufuncs are numpy's own
#: A batch's indices are held once, ``threadIdx`` for every block and ``blockIdx`` for every lane of a block, and so is
#: what is computed from them while it is (:mod:`kernellab.simt.tiled`; an optimisation). False spreads every index
#: over the batch's lanes, the reference (tests/test_fastpath_tiled.py).
TILED = True
#: The fewest lanes a batch holds its indices for, below which each is spread (an operation on a held value costs
#: about 10 µs of Python, numpy about 0.5 ns a lane on a lanes array, so they break even near 20 000 lanes).
TILED_MIN_LANES = 1 << 15


#: The Python numbers :meth:`Block.fma` converts to float32 first, as C converts ``fmaf``'s arguments.
_PY_NUMBERS = (float, int)


def _product64(a, b) -> np.ndarray:
    """``a × b`` in float64, a new plain array: the product :meth:`Block.fma` adds ``c`` to (optimisation; the
    reference is ``np.multiply(a, b, dtype=np.float64)``, tests/test_fastpath_simt.py).

    Where ``a`` is an array of numbers (plain or :class:`~kernellab.simt.lanes.Lanes`) with the product's shape
    and ``b`` holds numbers, ``a`` is widened in one pass, which numpy does faster than a ufunc casts it in
    buffers, and multiplied in place: the same conversions and the same IEEE multiply, ``a`` still the first
    operand (numpy keeps the first operand's payload when both are NaN, so the order shows).
    """
    if (type(a) in _LANE_TYPES and a.ndim and a.dtype.kind in "biuf"
            and (isinstance(b, (bool, int, float)) or getattr(b, "dtype", np.dtype(object)).kind in "biuf")
            and _keeps_shape(a.shape, np.shape(b))):
        r = np.asarray(a.astype(np.float64))
        return np.multiply(r, b, out=r)
    return np.asarray(np.multiply(a, b, dtype=np.float64))


def _keeps_shape(shape: tuple, other: tuple) -> bool:
    """Whether an array of ``shape`` broadcast with one of shape ``other`` keeps its shape (a number, 0-d, always
    does: the common case, answered without numpy's ``broadcast_shapes``)."""
    return not other or other == shape or shape == np.broadcast_shapes(shape, other)


def _fused(a, b, c) -> np.ndarray:
    """``fma.rn(a, b, c)`` to float32 elementwise, as :meth:`Block.fma` computes it (before its lanes and mask)."""
    r = _product64(a, b)  # exact for float32 (and float16) operands: 24 + 24 bits
    r = np.add(r, c, out=r) if _keeps_shape(r.shape, np.shape(c)) else r + c
    return round_once(r, np.float32, a, b, c)  # the float64 sum rounded to float32 as one rounding would


class Block:
    """The CUDA view of a batch of thread blocks, passed to a kernel as ``blk``.

    Attributes
    ----------
    bx, by, bz : numpy.ndarray
        ``blockIdx.{x,y,z}`` of each lane (int64 vectors, length ``n_threads``).
    tx, ty, tz : numpy.ndarray
        ``threadIdx.{x,y,z}`` of each lane.
    bdx, bdy, bdz : int
        ``blockDim.{x,y,z}``.
    gdx, gdy, gdz : int
        ``gridDim.{x,y,z}``.
    threadIdx, blockIdx, blockDim, gridDim : namespace
        the same values under CUDA's names: ``blk.threadIdx.x is blk.tx``.
    n_threads : int
        lanes in the batch: blocks × threads per block rounded up to whole warps.

    Examples
    --------
    >>> from kernellab.simt import launch
    >>> def copy(blk, src, dst, n):
    ...     i = blk.bx * blk.bdx + blk.tx
    ...     with blk.where(i < n):
    ...         blk.store(dst, i, blk.load(src, i))
    >>> src, dst = np.arange(40, dtype=np.float32), np.zeros(40, np.float32)
    >>> c = launch(copy, 2, 32, args=(src, dst, 40))
    >>> bool((dst == src).all()), c.gld_instr, c.gld_sectors   # warps 0, 1 full; warp 2 has 8 lanes
    (True, 2, 5)
    """

    def __init__(self, name, grid, block, first_block, n_blocks, memory: GlobalMemory, tally: Tally,
                 max_smem: int, racecheck: bool = True, hazards: list | None = None, auto: bool = False,
                 code=None):
        (self.gdx, self.gdy, self.gdz), (self.bdx, self.bdy, self.bdz) = grid, block
        self._name, self._mem, self._tally = name, memory, tally
        self._max_smem, self._racecheck, self._hazards = max_smem, racecheck, hazards
        self._threads_per_block = self.bdx * self.bdy * self.bdz
        self._lanes_per_block = cdiv(self._threads_per_block, WARP_SIZE) * WARP_SIZE
        self._n_blocks = n_blocks
        self.n_threads = n_blocks * self._lanes_per_block
        # lane L is thread t = L mod lanes_per_block of block b = first_block + L div lanes_per_block: each
        # index is computed once per thread of one block (t) or once per block (b), then held so (Tiled) or spread
        # over the batch
        t = np.arange(self._lanes_per_block, dtype=np.int64)
        b = np.arange(first_block, first_block + n_blocks, dtype=np.int64)
        lpb = self._lanes_per_block
        if TILED and n_blocks > 1 and n_blocks * lpb >= TILED_MIN_LANES:
            counter = self if auto else None
            def spread(v, tiles, repeats):
                return Tiled(v.reshape(1, lpb) if tiles > 1 else v.reshape(n_blocks, 1), n_blocks, lpb, counter)
        else:
            spread = self._spread
        self.tx = spread(t % self.bdx, n_blocks, 1)
        self.ty = spread(t // self.bdx % self.bdy, n_blocks, 1)
        self.tz = spread(t // (self.bdx * self.bdy), n_blocks, 1)
        self.bx = spread(b % self.gdx, 1, lpb)
        self.by = spread(b // self.gdx % self.gdy, 1, lpb)
        self.bz = spread(b // (self.gdx * self.gdy), 1, lpb)
        self.threadIdx = SimpleNamespace(x=self.tx, y=self.ty, z=self.tz)
        self.blockIdx = SimpleNamespace(x=self.bx, y=self.by, z=self.bz)
        self.blockDim = SimpleNamespace(x=self.bdx, y=self.bdy, z=self.bdz)
        self.gridDim = SimpleNamespace(x=self.gdx, y=self.gdy, z=self.gdz)
        self._real = self._spread(t < self._threads_per_block, n_blocks, 1)  # padding lanes are never active
        self._masks = [self._stats(self._real)]
        self._auto, self._code = auto, code
        self._frames: dict = {}  # code object → (its last frame, bytecode offset) of the user's frames
        self._regions: list[dict] = []  # per open blk.where: warp instructions counted inside, by kind
        if auto:  # indices count the integer work done on them (kernellab.simt.lanes); held ones count already
            for a in ("tx", "ty", "tz", "bx", "by", "bz"):
                if type(getattr(self, a)) is not Tiled:
                    setattr(self, a, as_lanes(getattr(self, a), self))
            self.threadIdx = SimpleNamespace(x=self.tx, y=self.ty, z=self.tz)
            self.blockIdx = SimpleNamespace(x=self.bx, y=self.by, z=self.bz)
        self._prologue = auto  # ENTRY_COST and EXIT_COST are charged with the first counted instruction
        self._shared: list[tuple[SharedArray, HazardTracker | None]] = []
        self._smem_bytes = 0
        self._sites: dict = {}  # access site → [{fingerprint: (index, mask, its Access)}, misses running]
        self._kept = 0  # bytes of indices the sites keep
        self._shifts: dict = {}  # site of the kernel's code → its ShiftRef (kernellab.simt.shifts)
        self._rounds = 0  # times the batch's warps waited for global loads (see wait_rounds)
        self._loading = False  # global loads issued since the last wait

    @staticmethod
    def _spread(v: np.ndarray, tiles: int, repeats: int) -> np.ndarray:
        """``v`` (a new array) with each element repeated ``repeats`` times, the whole tiled ``tiles`` times: a
        new array over the batch's lanes. A large one of all zeros (a 1-D block's ``ty``, a 1-D grid's ``by``
        and ``bz``) is new anonymous memory, whose pages the OS maps only when they are read or written: not
        ``np.zeros``, which writes the memory the allocator hands it again (the arrays of the launch before),
        mapping its pages (tests/test_fastpath_blocks.py)."""
        if tiles == repeats == 1:
            return v
        size = v.size * tiles * repeats
        if size >= 1 << 16 and not v.any():
            return np.frombuffer(mmap.mmap(-1, size * v.dtype.itemsize), v.dtype)
        out = np.empty((tiles, v.size, repeats), v.dtype)
        out[...] = v[None, :, None]
        return out.reshape(-1)

    @property
    def _lane_block(self) -> np.ndarray:
        """Each lane's block within the batch (0 … blocks − 1): made when a shared access first needs it."""
        got = self.__dict__.get("_lane_blocks")
        if got is None:
            got = self._lane_blocks = self._spread(np.arange(self._n_blocks, dtype=np.int64), 1, self._lanes_per_block)
        return got

    def _block_starts(self, size: int) -> np.ndarray:
        """Each lane's block × ``size``: where its block's copy of a shared array of ``size`` elements starts (made
        once per size, read only)."""
        starts = self.__dict__.setdefault("_starts", {})
        got = starts.get(size)
        if got is None:
            got = starts[size] = self._lane_block * size
            got.flags.writeable = False
        return got

    @property
    def _lane_ids(self) -> np.ndarray:
        """Each lane's number in the batch (0 … n_threads − 1; read only): made when the race check first needs it."""
        got = self.__dict__.get("_lane_numbers")
        if got is None:
            got = self._lane_numbers = np.arange(self.n_threads)
            got.flags.writeable = False
        return got

    # --- where a lane is, for messages -------------------------------------------------------
    def _index_of(self, lane: int, *axes: str) -> str:
        """``blockIdx`` (axes "bx", "by", "bz") or ``threadIdx`` of a lane as ``(x,y,z)`` text."""
        return fmt_dim3(tuple(plain(getattr(self, a))[lane] for a in axes))

    def _place(self, lane: int) -> str:
        return _("kernel {kernel}, block {block}, thread {thread}").format(
            kernel=self._name, block=self._index_of(lane, "bx", "by", "bz"),
            thread=self._index_of(lane, "tx", "ty", "tz"))

    def _where(self, lane: int) -> dict:
        """The place of a lane as an error's ``details``: kernel name, block and thread as ``(x,y,z)`` text."""
        return {"kernel": self._name, "block": self._index_of(lane, "bx", "by", "bz"),
                "thread": self._index_of(lane, "tx", "ty", "tz")}

    def _thread(self, lane: int) -> str:
        return _("thread {thread}").format(thread=self._index_of(lane, "tx", "ty", "tz"))

    # --- divergence ----------------------------------------------------------------------------
    @staticmethod
    def _stats(mask: np.ndarray) -> tuple:
        """A mask with its active lanes, active warps, and whether every lane is active."""
        lanes = int(np.count_nonzero(mask))
        warps = int(np.count_nonzero(warp_any(mask.reshape(-1, WARP_SIZE)))) if lanes else 0
        mask.flags.writeable = False  # a mask, once its counts are taken, never changes (a moved access relies on it)
        return mask, lanes, warps, lanes == mask.size

    def _active(self, mask=None) -> tuple:
        if mask is None:
            return self._masks[-1]
        m = np.broadcast_to(np.asarray(plain(mask), bool), (self.n_threads,))
        return self._stats(self._masks[-1][0] & m)

    @contextmanager
    def where(self, cond):
        """Run a region only on the lanes where ``cond`` holds (nested regions combine with *and*).

        CUDA's ``if (cond) { … }``: inside, loads, stores, FMAs and barriers act on the active lanes
        only, and a warp with no active lane issues nothing.
        """
        entry = self._masks[-1]
        self._masks.append(self._active(cond))
        if self._auto:
            self._regions.append({})
        try:
            yield self
        finally:
            inner = self._masks.pop()
            if self._auto:
                self._close_region(self._regions.pop(), entry, inner)

    # --- automatic counting (launch(auto_instr=True)) ----------------------------------------
    def _note(self, kind: str, warps: int, lanes: int) -> None:
        """Count ``warps`` warp instructions of ``kind`` (``lanes`` active lanes) and remember them."""
        self._tally.instr(kind, warps, lanes)
        self._seen(kind, warps)

    def _seen(self, kind: str, warps: int) -> None:
        """Note an instruction the tally has counted: for the open ``blk.where`` regions, and to find loops.

        Loops are found by :meth:`_position`, as each counting operation starts.
        """
        if not self._auto or not warps:
            return
        if self._prologue:  # every warp's prologue and EXIT, on the kernel's first counting line
            self._prologue = False
            _m, lanes_all, warps_all, _full = self._masks[0]
            for k, n in (*ENTRY_COST, *EXIT_COST):
                self._note(k, n * warps_all, n * lanes_all)
        for region in self._regions:
            region[kind] = region.get(kind, 0) + warps

    def _position(self) -> None:
        """Find loops: called once as each counting operation starts, with the user's frames on the stack.

        A loop has gone round when the user's innermost frame (the kernel's, or a helper's it called)
        comes back to the same or an earlier bytecode position (``f_lasti``) in the same call, or an outer
        frame to an earlier one, or to the same call instruction with a new call below it. Each such back
        edge charges :data:`LOOP_COST` to the warps active there.
        """
        if not self._auto or self._code is None:
            return
        f = sys._getframe(2)
        while f is not None and f.f_code.co_filename.startswith(_PACKAGE):
            f = f.f_back  # up to the user's innermost frame
        jumped, below_new, innermost = False, False, True
        while f is not None:  # the user's frames, innermost first, up to the kernel's
            last = self._frames.get(f.f_code)
            same = last is not None and last[0] is f
            if same and (f.f_lasti < last[1] or (f.f_lasti == last[1] and (innermost or below_new))):
                jumped = True
            below_new, innermost = not same, False
            self._frames[f.f_code] = (f, f.f_lasti)
            if f.f_code is self._code:
                break
            f = f.f_back
        if jumped:
            _m, lanes_, warps_, _full = self._masks[-1]
            for k, n in LOOP_COST:
                self._note(k, n * warps_, n * lanes_)

    def _lane_op(self, cost: tuple, per_lane: int) -> None:
        """A ufunc on lane values (:mod:`kernellab.simt.lanes`): ``cost`` = ((kind, instructions per element),
        …) for ``per_lane`` elements a lane, on the active warps."""
        self._position()
        _m, lanes_, warps_, _full = self._masks[-1]
        for kind, n in cost:
            self._note(kind, n * per_lane * warps_, n * per_lane * lanes_)

    def _close_region(self, body: dict, entry: tuple, inner: tuple) -> None:
        """End of a ``blk.where``: a short body is predicated, a long one is a branch (see PREDICATE_MAX).

        Predicated, the warps that reached the region without an active lane inside issue the body too
        (counted as warp instructions with no active lane); a branch costs each warp that reaches it a ``BRA``.
        """
        e_warps, a_warps = entry[2], inner[2]
        total = sum(body.values())
        if a_warps and total <= PREDICATE_MAX * a_warps:
            extra = e_warps - a_warps
            if extra:
                for kind, n in body.items():
                    k = round(n * extra / a_warps)
                    self._tally.instr(kind, k, 0)
                    for region in self._regions:
                        region[kind] = region.get(kind, 0) + k
        else:
            self._note("ctrl", e_warps, entry[1])


    @property
    def active(self) -> np.ndarray:
        """The lanes active here (bool vector, length ``n_threads``; read-only: narrow it with ``blk.where``)."""
        return self._masks[-1][0]

    # --- indices -------------------------------------------------------------------------------
    def _index(self, idx) -> np.ndarray:
        if type(idx) is np.ndarray and idx.dtype == np.int64 and idx.ndim == 1 and idx.shape[0] == self.n_threads:
            return idx  # the commonest index, as it is
        idx = np.asarray(plain(idx))
        if idx.dtype.kind not in "iub":
            raise TypeError(_("kernel {kernel}: memory indices must be integers, got {dtype}").format(
                kernel=self._name, dtype=idx.dtype))
        idx = idx.astype(np.int64, copy=False)
        if idx.ndim == 0:
            return np.broadcast_to(idx, (self.n_threads,))
        if idx.shape[0] != self.n_threads or idx.ndim > 2:
            raise ValueError(_("kernel {kernel}: an index must be a scalar, a vector over the "
                               "{n_threads} lanes, or lanes × instructions; got shape {shape}").format(
                kernel=self._name, n_threads=self.n_threads, shape=idx.shape))
        return idx

    def _check_bounds(self, op, what, idx, act, all_active, size, vec, name=None):
        if idx.size == 0 or (idx.min() >= 0 and idx.max() + vec <= size):  # every lane in bounds, active or not
            return
        a = act if idx.ndim == 1 else act[:, None]
        bad = a & ((idx < 0) | (idx + vec > size))
        if bad.any():
            lane, i = _first_bad(bad, idx)
            kind = f"{op} float{vec} " if vec > 1 else f"{op} "
            raise OutOfBoundsError(_("{place}: {access}{array}[{index}] out of bounds (size {size})").format(
                place=self._place(lane), access=kind, array=_array_name(what), index=i, size=size),
                **self._where(lane), **(name or {}), op=op, index=i, size=size)

    def _check_aligned(self, op, what, idx, act, offset, itemsize, vec, name=None):
        width = vec * itemsize
        if width not in (1, 2, 4, 8, 16):
            raise ValueError(_("kernel {kernel}: a vector access moves 1–16 bytes per lane; {vec} × "
                               "{itemsize} B is {width}").format(
                kernel=self._name, vec=vec, itemsize=itemsize, width=width))
        if vec == 1:
            return
        a = act if idx.ndim == 1 else act[:, None]
        low = np.multiply(idx, itemsize)
        low += offset
        low &= width - 1  # the byte address mod width, a power of two (negative addresses too, in two's complement)
        bad = a & (low != 0)
        if bad.any():
            lane, i = _first_bad(bad, idx)
            raise MisalignedError(_("{place}: {op} float{vec} {array}[{index}] misaligned (byte address {address} "
                                    "is not a multiple of {width})").format(
                place=self._place(lane), op=op, vec=vec, array=_array_name(what), index=i, address=offset + i * itemsize,
                width=width),
                **self._where(lane), **(name or {}), op=op, index=i, address=offset + i * itemsize, width=width)

    @staticmethod
    def _record(addresses, act, width) -> Access:
        # every address is aligned: bases and offsets are, and vector accesses were checked
        if addresses.ndim == 1:
            return Access.from_lanes(addresses, act, width, aligned=True)
        # one instruction per column, each a whole set of warps; every count is a sum (or a union) over
        # warp instructions, so their order does not matter: warp by warp, then instruction by instruction
        m = addresses.shape[1]
        lanes = addresses.reshape(-1, WARP_SIZE, m).transpose(0, 2, 1).ravel()
        return Access.from_lanes(lanes, np.repeat(act.reshape(-1, WARP_SIZE), m, axis=0).ravel(), width, aligned=True)

    # --- the record of a repeated access (optimisation; tests/test_fastpath_simt.py) -------------
    # A kernel's loop often issues the same accesses pass after pass (its shared-memory tiles are read at the
    # same indices every K step, one index per step of an inner loop). Each site — memory space, base, item
    # size, array size, width and index shape — keeps the indices and masks it has seen, found by a few of
    # their elements and then compared in full; an access equal to one of them in content is the same Access
    # record, so its bounds and alignment checks passed already, its counts are in the record's memo, and it
    # touches no new DRAM sector. A site that misses _MISSES_BEFORE_GIVING_UP times running stops being
    # compared (each miss costs a copy), and a block keeps at most _KEPT_BYTES of indices.
    _MISSES_BEFORE_GIVING_UP = 32
    _KEPT_BYTES = 64 << 20

    @staticmethod
    def _fingerprint(idx, act):
        flat = idx.reshape(-1)
        n = flat.size
        return (int(flat[0]), int(flat[n // 3]), int(flat[n // 2]), int(flat[-1]), int(act[0]), int(act[-1])) if n \
            else ()

    def _seen_access(self, key, idx, act):
        """The Access recorded at site ``key`` for an index and mask equal to ``idx`` and ``act``, else None."""
        site = self._sites.get(key)
        if site is None or site[1] >= self._MISSES_BEFORE_GIVING_UP:
            return None
        entry = site[0].get(self._fingerprint(idx, act))
        if entry is not None and np.array_equal(act, entry[1]) and np.array_equal(idx, entry[0]):
            site[1] = 0
            return entry[2]
        site[1] += 1
        return None

    def _remember_access(self, key, idx, act, acc, immutable: bool = False) -> np.ndarray | None:
        """Keep a copy of ``idx`` (returned, for the site's moved accesses to share) with its mask and record.

        ``idx`` itself where it is ``immutable`` (a held value's lanes, :mod:`kernellab.simt.tiled`), and a
        read-only mask (a block's, which never changes) as it is."""
        site = self._sites.setdefault(key, [{}, 0])
        if site[1] >= self._MISSES_BEFORE_GIVING_UP or self._kept + idx.nbytes > self._KEPT_BYTES:
            return None
        self._kept += idx.nbytes
        kept = idx if immutable else np.array(idx, copy=True)
        site[0][self._fingerprint(idx, act)] = (kept, act if not act.flags.writeable else np.array(act, copy=True), acc)
        return kept

    # The record of a moved access (optimisation; kernellab.simt.shifts): each site of the kernel's code — the
    # same key and the caller's bytecode position — keeps the last access it counted in full; an access that
    # is it moved by d elements on the same lanes, in bounds (and aligned, and by whole 4-byte words in
    # shared memory), is counted from it. A site missing _MISSES_BEFORE_GIVING_UP times running stops trying.
    def _shifted_access(self, key, idx, act, size, shared):
        """(the site's reference, d) when this access is the reference moved by d elements and fits, else None."""
        ref = self._shifts.get(key)
        if ref is None or ref.misses >= self._MISSES_BEFORE_GIVING_UP:
            return None
        d = ref.shift(idx, act)
        if d is None or not (ref.lo + d >= 0 and ref.hi + d + ref.vec <= size and d % ref.vec == 0) or (
                shared and d * ref.itemsize % BANK_BYTES):  # in bounds, aligned, whole words in shared memory
            ref.misses += 1
            return None
        ref.misses = 0
        return ref, d

    def _block_moves(self, sum_of, act, offset, itemsize, size):
        """``(BlockMoves, 0)`` for a global access at an index held as a block's part plus a lane's part (``sum_of``,
        int64) under the block's own mask, in bounds, every block's move a whole number of sectors; else None (the
        lanes' own path then checks it, and names what is wrong)."""
        by_block, by_lane = sum_of[0].reshape(-1), sum_of[1].reshape(-1)
        limit = 1 << 61  # parts this small add up without wrapping round
        b_lo, b_hi, l_lo, l_hi = int(by_block.min()), int(by_block.max()), int(by_lane.min()), int(by_lane.max())
        if not (-limit < min(b_lo, l_lo) and max(b_hi, l_hi) < limit and b_lo + l_lo >= 0 and b_hi + l_hi < size):
            return None
        moves = (by_block - by_block[0]) * itemsize
        if (moves & (SECTOR_BYTES - 1)).any():
            return None
        lanes = self._lanes_per_block
        first = by_lane + by_block[0]
        acc = self._record(first * itemsize + offset, act[:lanes], itemsize)
        return BlockMoves(ShiftRef(first, act[:lanes], acc, itemsize, 1), moves), 0

    def _remember_shift(self, key, idx, act, acc, itemsize, vec, kept=None) -> None:
        """Make this access the site's reference; ``kept``: a copy of ``idx`` already made, which nothing changes."""
        old = self._shifts.get(key)
        if old is not None and old.misses >= self._MISSES_BEFORE_GIVING_UP:
            return
        ref = self._shifts[key] = ShiftRef(idx, act, acc, itemsize, vec, kept)
        ref.misses = 0 if old is None else old.misses

    # --- memory --------------------------------------------------------------------------------
    @property
    def wait_rounds(self) -> int:
        """The round trips each thread of this batch waited for its global loads so far (``counts.launch["rounds"]``).

        A warp issues in order and stalls at the first instruction that needs a register a load has not filled
        (Nsight Compute's ``long_scoreboard`` stall), so loads issued together cost one round trip. The
        simulator sees a kernel's memory operations, not the arithmetic between them, so a round ends where a
        store or an atomic follows global loads (it writes what they loaded, or what was computed from it), and
        loads still unused when the kernel returns are one more. A load used by arithmetic and followed by a
        further independent load before any store is counted in one round with it: a lower bound. A dependent
        load (its address from a loaded value) is the chain of ``Counts.load_chain_global`` instead.

        >>> import numpy as np
        >>> from kernellab.simt import launch
        >>> def copy(blk, src, dst, n):                 # a grid-stride loop: a load, then its store, a pass
        ...     for base in range(0, n, blk.gdx * blk.bdx):
        ...         i = base + blk.bx * blk.bdx + blk.tx
        ...         blk.store(dst, i, blk.load(src, i))
        >>> c = launch(copy, 2, 32, args=(np.ones(320, np.float32), np.zeros(320, np.float32), 320))
        >>> c.launch["rounds"]                           # 320 ÷ (2 × 32) = 5 passes, one round trip each
        5
        """
        return self._rounds + self._loading

    def _wait(self) -> None:
        """A store or atomic: if global loads were issued since the last wait, the warp waits for them here."""
        if self._loading:
            self._rounds += 1
            self._loading = False

    def load(self, arr, idx, mask=None, vec: int = 1) -> np.ndarray:
        """Load ``arr[idx]`` on the active lanes (0 on the others); one warp instruction per index column.

        ``arr`` is a global numpy array (addressed by flat element index, whatever its shape) or a
        :class:`SharedArray`. ``idx`` is a scalar, a vector over lanes, or a (lanes, m) array for m
        instructions. ``vec=2`` or ``4`` loads ``arr[idx : idx+vec]`` per lane as one float2/float4
        instruction (``idx`` must then be aligned to ``vec``); the result gains a last axis of ``vec``.
        """
        return self._access("load", arr, idx, None, mask, vec)

    def store(self, arr, idx, value, mask=None, vec: int = 1) -> None:
        """Store ``value`` to ``arr[idx]`` on the active lanes; shapes as in :meth:`load`."""
        self._access("store", arr, idx, value, mask, vec)

    def _access(self, op, arr, idx, value, mask, vec):
        if self._auto:
            self._position()
        chain = getattr(idx, "_chain", (0, 0))  # the dependent loads behind the address (simt.lanes)
        held_idx = idx if type(idx) is Tiled and idx.held else None  # its lanes never change: kept as they are
        act, lanes, warps, all_active = self._masks[-1] if mask is None else self._active(mask)
        # a held sum (bx · bdx + tx, int64, one per lane) is left unadded while the block moves may count it
        summed = held_idx is not None and held_idx.sum_of is not None and vec == 1 and act is self._masks[0][0]
        if not summed and not (type(idx) is np.ndarray and idx.dtype == np.int64 and idx.ndim == 1 and
                               idx.shape[0] == self.n_threads):
            idx = self._index(idx)  # (the commonest index is taken as it is)
        m = 1 if idx.ndim == 1 else idx.shape[1]
        shared = isinstance(arr, SharedArray)
        if op == "load":
            self._loading = self._loading or not shared
        else:
            self._wait()
        if shared:
            what, size, itemsize, offset = arr, arr.size, arr.itemsize, arr.offset
        else:
            g = self._mem.lookup(arr)
            what, size, itemsize, offset = g, g.size, g.itemsize, g.base
        key = (shared, offset, itemsize, size, vec, idx.shape)
        caller = sys._getframe(2)  # the kernel's line calling blk.load or blk.store: the site of a moved access
        site = (key, caller.f_code, caller.f_lasti)
        moved = None
        if summed and not shared:
            moved = self._block_moves(held_idx.sum_of, act, offset, itemsize, size)
        if moved is None:
            if summed:
                idx, summed = self._index(idx), False
            moved = self._shifted_access(site, idx, act, size, shared)
        acc = None if moved is not None else self._seen_access(key, idx, act)
        repeated = acc is not None
        if moved is not None:  # the site's reference access moved by a whole number of elements
            ref, d = moved
            if shared:
                self._tally.shared_counted(op, vec * itemsize, warps * m, lanes * m, *ref.shared_counts())
            else:
                self._tally.global_counted(op, vec * itemsize, warps * m, lanes * m, *ref.global_counts(d * itemsize))
        elif not repeated:
            name = {"array": arr.name if shared else g.name, "shared": shared}  # for the error's details
            self._check_bounds(op, what, idx, act, all_active, size, vec, name)
            self._check_aligned(op, what, idx, act, offset, itemsize, vec, name)
            addresses = np.multiply(idx, itemsize)
            addresses += offset  # in place: one temporary per access, not two
            acc = self._record(addresses, act, vec * itemsize)
            kept = self._remember_access(key, idx, act, acc, held_idx is not None)
            self._remember_shift(site, idx, act, acc, itemsize, vec, kept)
        # the site's reference when this access is it or a repeat of it: what it derives from the index is kept there
        if moved is not None:
            same = moved[0] if moved[1] == 0 else None
        else:
            same = self._shifts.get(site)
            if same is not None and same.acc is not acc:  # not made from this access
                same = None
        if shared:
            if moved is None:
                self._tally.shared_access(op, acc, warps * m, lanes * m)
            self._seen(memory_kind(op, "shared", vec * itemsize), warps * m)
            if same is not None and same.flat is not None:  # its index into every block's copy, kept
                flat_idx = same.flat
            else:
                starts = self._block_starts(arr.size)
                flat_idx = idx + (starts if idx.ndim == 1 else starts[:, None])
                if same is not None:
                    same.flat = flat_idx  # nothing writes to it
            self._hazard(op, arr, flat_idx, act, vec, all_active)
            storage = arr.data.reshape(-1)
        else:
            if moved is None:
                self._tally.global_access(op, acc, warps * m, lanes * m)
            if self._auto:  # the 64-bit address (IMAD.WIDE), then the access
                self._note("int", warps * m, lanes * m)
                self._seen(memory_kind(op, "global", vec * itemsize), warps * m)
            if moved is not None:  # the sets of sectors not marked by an earlier move
                ids = moved[0].sector_ids(moved[1] * itemsize)
                if ids is not None:
                    self._mem.mark_ids(ids)
            elif not repeated:  # the same record again touches no sector for the first time
                self._mem.mark(acc)
            flat_idx, storage = idx, g.flat
            if summed:  # every block's lanes a row of a strided view of the array, or the sum added
                rows = _strided_rows(storage, held_idx.sum_of) if all_active else None
                if rows is not None:
                    if op == "load":
                        return self._loaded(rows.copy(), chain, shared, held=True)
                    rows[...] = _rows_of(value, storage.dtype, rows.shape)
                    return None
                flat_idx = idx = plain(idx)
        if op == "load" and vec > 1 and _whole_vectors(storage, vec, arr.size if shared else 0, offset, itemsize):
            return self._loaded(self._load_vectors(storage, flat_idx, act, all_active, vec), chain, shared)
        if vec > 1:
            flat_idx = flat_idx[..., None] + np.arange(vec)
        if op == "load" and all_active:
            # in bounds (checked): numpy's take is faster than an index. Its result is C-ordered, lanes × instructions,
            # as every path gives it: numpy's reductions over a load depend on its memory layout (an fp16 sum along the
            # instructions rounds once from rows, at every add from columns), so a kernel's values would otherwise too
            if held_idx is not None and not shared and vec == 1:  # one global memory, the same index: held values
                return self._loaded(storage.take(held_idx._part), chain, shared, held=True)
            return self._loaded(storage.take(flat_idx), chain, shared)
        a = act.reshape(act.shape + (1,) * (flat_idx.ndim - 1))
        if op == "load":
            out = storage.take(np.where(a, flat_idx, 0)) if storage.size else np.zeros(flat_idx.shape, storage.dtype)
            np.copyto(out, 0, where=~a)  # (broadcast over the instructions)
            return self._loaded(out, chain, shared)
        if all_active and type(value) is Tiled and value.held and value.ndim == flat_idx.ndim:
            # held once (kernellab.simt.tiled): converted once, broadcast as it is stored, the index read as
            # (blocks, lanes, …) in the same order (so the same lane's value lands last on an element stored twice)
            part = cvt.astype(value._part, storage.dtype)
            shape = (self._n_blocks, self._lanes_per_block, *flat_idx.shape[1:])
            storage[flat_idx.reshape(shape)] = np.broadcast_to(part, shape)
            return None
        value = np.broadcast_to(cvt.astype(plain(value), storage.dtype), flat_idx.shape)  # float → int: cvt.rzi
        if all_active:
            storage[flat_idx] = value
        elif flat_idx.ndim <= 2:  # the active lanes' rows, lane by lane, as the mask below orders them (a later lane's
            on = np.flatnonzero(act)  # value stays); taken by their numbers (faster than a mask of a broadcast view)
            storage[flat_idx.take(on, axis=0).reshape(-1)] = value.take(on, axis=0).reshape(-1)
        else:
            sel = np.broadcast_to(a, flat_idx.shape)
            storage[flat_idx[sel]] = value[sel]
        return None

    def _loaded(self, out: np.ndarray, chain: tuple, shared: bool, held: bool = False):
        """A load's values: integer ones (addresses to be) as Lanes one dependent load further along ``chain``
        than their address, the launch's longest chain recorded (``Counts.load_chain_global``/``_shared``).
        ``held``: ``out`` is a part of held values (:mod:`kernellab.simt.tiled`), the batch's values as such."""
        if not (self._auto and out.dtype.kind in "iub"):
            return out if not held else held_value(out, self._n_blocks, self._lanes_per_block)
        chain = (chain[0], chain[1] + 1) if shared else (chain[0] + 1, chain[1])
        self._tally.chain(chain)
        if held:
            return held_value(out, self._n_blocks, self._lanes_per_block, self, chain)
        return as_lanes(out, self, chain)

    def _load_vectors(self, storage, flat_idx, act, all_active, vec) -> np.ndarray:
        """A vector load as rows of ``vec`` elements: ``storage[flat_idx[..., None] + arange(vec)]`` with 0 on
        inactive lanes, gathered a row per lane and instruction (an optimisation: numpy's ``take`` along
        rows is about ten times faster than a fancy index with ``vec`` times the entries). Needs every
        active ``flat_idx`` a multiple of ``vec`` (the alignment check made sure; see ``_whole_vectors``)."""
        rows = flat_idx >> (vec.bit_length() - 1)  # vec is a power of two (1–16 bytes of a power-of-two item)
        if not all_active:
            a = act.reshape(act.shape + (1,) * (rows.ndim - 1))
            rows = np.where(a, rows, 0)
        out = np.take(storage.reshape(-1, vec), rows, axis=0)
        if not all_active:
            out[~np.broadcast_to(a[..., None], out.shape)] = 0
        return out

    def atomic_add(self, arr, idx, value, mask=None) -> np.ndarray:
        """``atomicAdd(&arr[idx], value)`` on the active lanes of a global array; returns the old values (0 elsewhere).

        Lanes take effect one after another in lane order (block by block, warp by warp), so lanes that
        share an element each see the sum of the ones before (as one order of the GPU's). Counted as
        ``atomic_requests``, ``atomic_sectors``, ``atomic_lines``, ``atomic_bytes`` (one ``atom.global``
        warp instruction per active warp), and ``atomic_same_address``: the most updates one element gets
        at the L2 in the launch, which serialises them, after the L1 merged each warp's lanes that update one
        element, 16 lanes to an update (:func:`kernellab.access.merged_updates`).

        Examples
        --------
        >>> from kernellab.simt import launch
        >>> def hist(blk, x, bins, n):
        ...     i = blk.bx * blk.bdx + blk.tx
        ...     with blk.where(i < n):
        ...         blk.atomic_add(bins, blk.load(x, i) % 4, 1)
        >>> x, bins = np.arange(40, dtype=np.int32), np.zeros(4, np.int32)
        >>> c = launch(hist, 2, 32, args=(x, bins, 40))
        >>> bins.tolist(), c.atomic_requests, c.atomic_sectors, c.atomic_same_address   # 40 lanes, 10 per bin
        ([10, 10, 10, 10], 2, 2, 2)

        Each bin gets 8 lanes of warp 0 and 2 of warp 1, each warp's merged into one L2 update: 2 updates.
        """
        if isinstance(arr, SharedArray):
            raise TypeError(_("{kernel}: blk.atomic_add works on global arrays; shared-memory atomics "
                              "are not simulated (shared {array})").format(kernel=self._name, array=arr.name))
        self._position()
        self._wait()
        act, lanes, warps, all_active = self._active(mask)
        idx = self._index(idx)
        if idx.ndim != 1:
            raise ValueError(_("{kernel}: blk.atomic_add takes one index per lane, got shape {shape}").format(
                kernel=self._name, shape=idx.shape))
        g = self._mem.lookup(arr)
        name = {"array": g.name, "shared": False}
        self._check_bounds("atomic_add", g, idx, act, all_active, g.size, 1, name)
        addresses = idx * g.itemsize + g.base
        acc = self._record(addresses, act, g.itemsize)
        targets = idx if all_active else idx[act]
        lane_warp = np.arange(idx.shape[0]) // WARP_SIZE  # lanes are block-padded to whole warps
        self._tally.atomic_access(acc, warps, lanes, g.base, g.size, targets,
                                  lane_warp if all_active else lane_warp[act])
        if self._auto:
            self._note("int", warps, lanes)
            self._seen("atom.global", warps)
        self._mem.mark(acc)
        vals = np.broadcast_to(cvt.astype(plain(value), g.flat.dtype), idx.shape)
        vals = vals if all_active else vals[act]
        old = np.zeros(idx.shape, g.flat.dtype)
        old_active = in_lane_order(g.flat, targets, [vals], np.add, g.flat.dtype)
        if all_active:
            old[:] = old_active
        else:
            old[act] = old_active
        return old

    def _hazard(self, op, arr, flat_idx, act, vec, all_active=False):
        trackers = [t for s, t in self._shared if s is arr]
        if not trackers:
            raise ValueError(_("kernel {kernel}: shared array {array} was declared by another launch").format(
                kernel=self._name, array=arr.name))
        tracker = trackers[0]
        if tracker is None:
            return

        def pairs():  # (element, thread) of every active lane's access, for the tracker, lane by lane
            if all_active:  # every lane's: the index as it is, read only (a new sum, or the one a site keeps)
                elements = flat_idx.reshape(-1)
                threads = self._lane_ids if flat_idx.ndim == 1 else np.repeat(self._lane_ids, flat_idx.size // self.n_threads)
            else:  # the active lanes' numbers, then their rows of the index (each lane's columns in order)
                on = np.flatnonzero(act)
                per = flat_idx.size // self.n_threads
                elements = flat_idx.take(on, axis=0).reshape(-1)
                threads = on if per == 1 else np.repeat(on, per)
            if vec > 1:
                elements = (elements[:, None] + np.arange(vec)).ravel()
                threads = np.repeat(threads, vec)
            return elements, threads

        hz = tracker.read(pairs) if op == "load" else tracker.write(*pairs())
        if hz is None:
            return
        i = hz.element % arr.size
        message = {
            "read-after-write": _("{place}: read-after-write hazard on shared {array}[{index}] (byte {byte}): "
                                  "{thread} reads what {other} wrote, with no syncthreads between"),
            "write-after-read": _("{place}: write-after-read hazard on shared {array}[{index}] (byte {byte}): "
                                  "{thread} writes what {other} read, with no syncthreads between"),
            "write-after-write": _("{place}: write-after-write hazard on shared {array}[{index}] (byte {byte}): "
                                   "{thread} writes what {other} wrote, with no syncthreads between"),
        }[hz.kind]
        err = RaceError(message.format(place=self._place(hz.thread), array=arr.name, index=i,
                                       byte=arr.offset + i * arr.itemsize, thread=self._thread(hz.thread),
                                       other=self._thread(hz.other)),
                        **self._where(hz.thread), kind=hz.kind, array=arr.name, index=int(i),
                        byte=int(arr.offset + i * arr.itemsize), other=self._where(hz.other)["thread"])
        if self._hazards is None:
            raise err
        self._hazards.append(err)

    def shared(self, shape, dtype=np.float32, name: str | None = None) -> SharedArray:
        """Declare a ``__shared__`` array of ``shape`` per block (``name`` appears in error messages)."""
        name = name or f"shared{len(self._shared)}"
        offset = cdiv(self._smem_bytes, SHARED_ALIGN) * SHARED_ALIGN
        arr = SharedArray(name, shape, dtype, self._n_blocks, offset)
        if offset + arr.nbytes > self._max_smem:
            raise LaunchError(_("kernel {kernel}: shared memory {bytes} bytes per block (with {array}) exceeds "
                                "the limit of {limit} bytes").format(
                kernel=self._name, bytes=offset + arr.nbytes, array=name, limit=self._max_smem),
                kernel=self._name, bytes=offset + arr.nbytes, array=name, limit=self._max_smem)
        self._smem_bytes = offset + arr.nbytes
        tracker = HazardTracker(self._n_blocks * arr.size) if self._racecheck else None
        self._shared.append((arr, tracker))
        return arr

    @property
    def smem_bytes(self) -> int:
        """Shared memory declared so far, bytes per block."""
        return self._smem_bytes

    # --- synchronisation and arithmetic --------------------------------------------------------
    def syncthreads(self) -> None:
        """``__syncthreads()``: a barrier for every thread of a block; must be reached by all or none."""
        self._position()
        act, lanes, warps, _full = self._masks[-1]
        if act is self._masks[0][0]:  # the blocks' own lanes (no blk.where open): every block reaches it whole
            blocks = self._n_blocks
        else:
            per_block = act.reshape(self._n_blocks, -1).sum(axis=1)
            partial = (per_block > 0) & (per_block < self._threads_per_block)
            if partial.any():
                b = int(np.argmax(partial))
                lane = b * self._lanes_per_block + int(np.argmin(act[b * self._lanes_per_block:][: self._threads_per_block]))
                raise BarrierError(_("{place}: does not reach syncthreads, which {reached} of the block's {threads} "
                                     "threads reach (divergent barrier)").format(
                    place=self._place(lane), reached=int(per_block[b]), threads=self._threads_per_block),
                    **self._where(lane), reached=int(per_block[b]), threads=self._threads_per_block)
            blocks = int(np.count_nonzero(per_block))
        self._tally.barrier(blocks, warps, lanes)
        self._seen("bar.sync", warps)
        for _arr, tracker in self._shared:
            if tracker is not None:
                tracker.barrier()

    def fma(self, a, b, c) -> np.ndarray:
        """``a × b + c`` rounded once to float32 (CUDA's ``fmaf``), counted per active lane and element.

        The product is exact in float64 for float32 operands; the sum is rounded once, ties corrected as
        ``kernellab.fused`` explains. A Python number (``blk.fma(x, 0.1, y)``) is converted to float32 first,
        as C converts ``fmaf``'s arguments (``0.1`` becomes ``13421773·2⁻²⁷``); a float64 array is multiplied
        as it is. Operands broadcast; a result of shape (lanes, …) counts one FMA per element per active lane,
        and one warp instruction per element per active warp. Inactive lanes keep ``c``. Operands that hold the
        same bits in every block of the batch (values made from ``threadIdx`` alone) are computed for one block
        and copied to the others: the same result, faster (:mod:`kernellab.simt.tiled`).
        """
        if type(a) in _PY_NUMBERS:
            a = np.float32(a)
        if type(b) in _PY_NUMBERS:
            b = np.float32(b)
        if type(c) in _PY_NUMBERS:
            c = np.float32(c)
        self._position()
        act, lanes, warps, all_active = self._masks[-1]
        got = parts_of((a, b, c))
        if got is not None:  # computed on held parts (kernellab.simt.tiled)
            parts, blocks, lpb, _counter, _chain = got
            part = _fused(*parts)
            r = held_value(part, blocks, lpb)
            per_lane = math.prod(part.shape[2:])  # elements a lane (numpy's prod costs a microsecond or more)
        else:
            a, b, c = plain(a), plain(b), plain(c)
            r = _fused(a, b, c)
            if r.ndim == 0 or r.shape[0] != self.n_threads:
                r = np.broadcast_to(r, (self.n_threads, *r.shape)).copy()
            per_lane = r.size // self.n_threads
        self._tally.fma(per_lane, warps, lanes)
        self._seen("fma", warps * per_lane)
        if not all_active:
            r = plain(r)
            keep = ~act.reshape(act.shape + (1,) * (r.ndim - 1))
            r = np.where(keep, np.broadcast_to(np.asarray(plain(c), np.float32), r.shape), r)
        return r

    def fadd(self, a, b) -> np.ndarray:
        """``a + b`` in float32 (SASS ``FADD``), one FLOP per active lane and element; subtract with ``fadd(a, -b)``.

        Counted as :meth:`fma` is: one warp instruction per element per active warp. Inactive lanes
        get ``a``. Python float arithmetic on lane values computes the same numbers but is not counted.
        """
        return self._arith("fadd", np.add, a, b)

    def fmul(self, a, b) -> np.ndarray:
        """``a × b`` in float32 (SASS ``FMUL``), one FLOP per active lane and element; counted as :meth:`fadd`.

        Examples
        --------
        >>> from kernellab.simt import launch
        >>> def square_plus_one(blk, x, n):
        ...     i = blk.bx * blk.bdx + blk.tx
        ...     with blk.where(i < n):
        ...         v = blk.load(x, i)
        ...         blk.store(x, i, blk.fadd(blk.fmul(v, v), 1.0))
        >>> x = np.arange(40, dtype=np.float32)
        >>> c = launch(square_plus_one, 2, 32, args=(x, 40))
        >>> float(x[3]), c.fmul, c.fadd, c.flops            # 40 active lanes × (1 FMUL + 1 FADD)
        (10.0, 40, 40, 80)
        """
        return self._arith("fmul", np.multiply, a, b)

    def expf(self, x) -> np.ndarray:
        """``__expf(x)``: ``ex2.approx(x · log2 e)``, an FMUL and a ``MUFU.EX2`` per element (see :mod:`~kernellab.simt.special`)."""
        return self._special("expf", x)

    def exp2f(self, x) -> np.ndarray:
        """``2**x`` by ``ex2.approx``: one ``MUFU.EX2`` per element."""
        return self._special("exp2f", x)

    def logf(self, x) -> np.ndarray:
        """``__logf(x)``: ``lg2.approx(x) · ln 2``, a ``MUFU.LG2`` and an FMUL per element."""
        return self._special("logf", x)

    def log2f(self, x) -> np.ndarray:
        """``__log2f(x)``: one ``MUFU.LG2`` per element."""
        return self._special("log2f", x)

    def sinf(self, x) -> np.ndarray:
        """``__sinf(x)``: one ``MUFU.SIN`` per element."""
        return self._special("sinf", x)

    def cosf(self, x) -> np.ndarray:
        """``__cosf(x)``: one ``MUFU.COS`` per element."""
        return self._special("cosf", x)

    def sqrtf(self, x) -> np.ndarray:
        """``sqrt.approx``: one ``MUFU.SQRT`` per element."""
        return self._special("sqrtf", x)

    def rsqrtf(self, x) -> np.ndarray:
        """``rsqrtf(x)``: one ``MUFU.RSQ`` per element."""
        return self._special("rsqrtf", x)

    def rcpf(self, x) -> np.ndarray:
        """``1/x`` by ``rcp.approx``: one ``MUFU.RCP`` per element."""
        return self._special("rcpf", x)

    def tanhf(self, x) -> np.ndarray:
        """``tanh.approx``: one ``MUFU.TANH`` per element."""
        return self._special("tanhf", x)

    def fdividef(self, a, b) -> np.ndarray:
        """``__fdividef(a, b)``: ``a · rcp.approx(b)``, a ``MUFU.RCP`` and an FMUL per element."""
        return self.fmul(a, self.rcpf(b))

    def _special(self, name: str, x) -> np.ndarray:
        """One special function of :data:`~kernellab.simt.special.SPECIAL` on the active lanes, counted: its
        MUFU warp instruction (the XU pipe) and its FP32 multiplies, per element and active warp."""
        self._position()
        _cuda, fn, kind, fmuls = SPECIAL[name]
        act, lanes, warps, all_active = self._masks[-1]
        with np.errstate(all="ignore"):  # (transcendental: on the lanes, never on held parts; see kernellab.simt.tiled)
            r = np.asarray(fn(np.asarray(plain(x), np.float32)), np.float32)
        if r.ndim == 0 or r.shape[0] != self.n_threads:
            r = np.broadcast_to(r, (self.n_threads, *r.shape)).copy()
        per_lane = r.size // self.n_threads
        self._note(kind, warps * per_lane, lanes * per_lane)
        if fmuls:
            self._note("fmul", fmuls * warps * per_lane, fmuls * lanes * per_lane)
        if not all_active:
            keep = ~act.reshape(act.shape + (1,) * (r.ndim - 1))
            r = np.where(keep, 0, r).astype(np.float32)
        return r

    def _arith(self, kind, fn, a, b) -> np.ndarray:
        self._position()
        _m, lanes, warps, all_active = self._masks[-1]
        got = parts_of((a, b))
        if got is not None:  # computed on held parts (kernellab.simt.tiled)
            (pa, pb), blocks, lpb, _counter, _chain = got
            part = np.asarray(fn(np.asarray(pa, np.float32), np.asarray(pb, np.float32)), np.float32)
            r = held_value(part, blocks, lpb)
            per_lane = math.prod(part.shape[2:])
        else:
            a, b = plain(a), plain(b)
            r = np.asarray(fn(np.asarray(a, np.float32), np.asarray(b, np.float32)), np.float32)
            if r.ndim == 0 or r.shape[0] != self.n_threads:
                r = np.broadcast_to(r, (self.n_threads, *r.shape)).copy()
            per_lane = r.size // self.n_threads
        self._note(kind, warps * per_lane, lanes * per_lane)
        if not all_active:
            r = plain(r)
            keep = ~self.active.reshape(self.active.shape + (1,) * (r.ndim - 1))
            r = np.where(keep, np.broadcast_to(np.asarray(plain(a), np.float32), r.shape), r)
        return r

    def count_instr(self, kind: str, per_thread: int = 1) -> None:
        """Count ``per_thread`` warp instructions of ``kind`` on the active lanes (each active warp issues them).

        For the instructions a compiled kernel issues besides its loads, stores, FMAs and barriers:
        ``"int"`` (integer and address arithmetic, moves, comparisons), ``"ctrl"`` (branches) and
        ``"other"`` (``kernellab.counters.OVERHEAD_KINDS``). These are counted automatically unless the
        kernel is marked :func:`~kernellab.simt.launcher.declares_overhead` (or launched with ``auto_instr=False``);
        a kernel that declares its own takes the numbers from its SASS (``nox -s sass`` counts them for
        kernellab's kernels) and says where they come from in a comment. ``"fadd"`` and ``"fmul"`` count FP32 adds and
        multiplies done in numpy, FLOPs included (``Counts.fadd``, ``Counts.fmul``). Any other name
        is counted under that name.

        Examples
        --------
        >>> from kernellab.simt import launch
        >>> def k(blk):
        ...     blk.count_instr("int", 3)   # e.g. two IADD3 and an ISETP per loop pass
        ...     blk.count_instr("ctrl")     # and the branch back
        >>> c = launch(k, 2, 48, auto_instr=False)   # 2 blocks × 2 warps (the second 16 lanes); declared only
        >>> c.instr_by_kind, c.overhead_instr, c.thread_instr
        ({'int': 12, 'ctrl': 4}, 16, 384)
        """
        self._position()
        _, lanes, warps, _ = self._masks[-1]
        self._note(kind, warps * per_thread, lanes * per_thread)


def _strided_rows(storage: np.ndarray, sum_of: tuple) -> np.ndarray | None:
    """``storage[by_block[b] + by_lane[l]]`` for every block ``b`` and lane ``l`` of a held sum (``sum_of``, in bounds),
    as a (blocks, lanes) view of ``storage``, when both parts step evenly and the view's elements are distinct and
    in order (a lane's step > 0, a block's ≥ lanes × it: ``bx * bdx + tx``); else None (an optimisation: no index
    is made; tests/test_fastpath_tiled.py). A view, so a store writes every element once, as the index would."""
    by_block, by_lane = sum_of[0].reshape(-1), sum_of[1].reshape(-1)
    step_b = int(by_block[1] - by_block[0]) if by_block.size > 1 else 0
    step_l = int(by_lane[1] - by_lane[0]) if by_lane.size > 1 else 0
    if step_l <= 0 or step_b < by_lane.size * step_l:
        return None
    if not ((np.diff(by_block) == step_b).all() and (np.diff(by_lane) == step_l).all()):
        return None
    start, item = int(by_block[0] + by_lane[0]), storage.itemsize
    return np.lib.stride_tricks.as_strided(storage[start:], (by_block.size, by_lane.size), (step_b * item, step_l * item))


def _rows_of(value, dtype, shape: tuple) -> np.ndarray:
    """A store's ``value`` (a number, a lanes array or a held value) converted to ``dtype`` as (blocks, lanes) rows."""
    if type(value) is Tiled and value.held and value.ndim == 1:
        return np.broadcast_to(cvt.astype(value._part, dtype), shape)
    v = cvt.astype(plain(value), dtype)  # float → int: cvt.rzi
    return v if v.ndim == 0 else np.broadcast_to(v, (shape[0] * shape[1],)).reshape(shape)


def _whole_vectors(storage: np.ndarray, vec: int, block_size: int, offset: int, itemsize: int) -> bool:
    """Whether aligned ``vec``-wide accesses to ``storage`` are whole rows of ``storage.reshape(-1, vec)``: the
    array starts on a vector boundary, and so does each block's copy (``block_size`` elements; 0 for global)."""
    return (storage.size > 0 and storage.size % vec == 0 and block_size % vec == 0
            and offset % (vec * itemsize) == 0)


def _array_name(arr) -> str:
    """An array's name in messages: ``shared As`` for a shared array, the parameter name for a global one."""
    return _("shared {array}").format(array=arr.name) if isinstance(arr, SharedArray) else arr.name


def _first_bad(bad: np.ndarray, idx: np.ndarray) -> tuple[int, int]:
    """The lane and index of the first offending access: first instruction (column), then first lane."""
    if bad.ndim == 1:
        lane = int(np.argmax(bad))
        return lane, int(idx[lane])
    col = int(np.argmax(bad.any(axis=0)))
    lane = int(np.argmax(bad[:, col]))
    return lane, int(idx[lane, col])
