"""Block pointers (``make_block_ptr``, ``advance``; Triton ≤ 3.4, still in course assignments) and tensor
descriptors (``make_tensor_descriptor``, ``desc.load``/``desc.store``; Triton 3.9).

Both describe a tile of a strided 2-D (or n-D) array: ``base`` with ``shape`` and ``strides`` in
elements, and a tile of ``block_shape`` at ``offsets``. A load or store of the tile becomes the pointer
block ``base + Σ (offsets[d] + arange(block_shape[d])) · strides[d]`` with a mask for the dimensions
checked against ``shape`` (a descriptor checks every dimension; a block pointer those in
``boundary_check``), so it is counted exactly like the masked ``tl.load`` / ``tl.store`` it stands
for: same requests, sectors and bytes, and the global instructions sm_80 compiles.

On sm_90 Triton 3.9 compiles a descriptor's load and store to TMA copies instead (``cp.async.bulk.tensor``,
:func:`kernellab.triton.compiler.convert.tma_copies`: ``tma_instructions_sm90``), which move the tile between
global and shared memory, and no ld/st.global (``load_instructions_sm90``, ``store_instructions_sm90``
leave them out). The tile then goes between shared memory and the registers
(:func:`kernellab.triton.compiler.convert.tma_shared`, in ``shared_loads_sm90``/``shared_stores_sm90``), unless
a loaded tile is stored unchanged, which stays in shared memory; a descriptor made in the kernel
(``tl.make_tensor_descriptor``, not one passed from the host) is first written to shared memory, one
``st.shared`` a thread, then copied to global memory for the TMA unit.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from kernellab.i18n import _

from ..compiler import axis as A
from ..compiler import convert, limits
from ..executor import dtypes as T
from ..executor import kinds, numerics
from ..executor.program import current
from ..executor.tensor import _structured, _tensor_member_fn, facts, pointer, tensor
from ..executor.view import Base, View, every_lane
from . import tma
from .atomics import atomic_add
from .core import _how, load, store

_PADDINGS = ("", "zero", "nan")


def _ints(values, what: str) -> list[np.ndarray]:
    """Each value (int, constexpr or scalar block) as an int64 array over the programs of the step: ``(rows,)``."""
    out = []
    for v in values:
        v = getattr(v, "value", v)
        if isinstance(v, tensor):
            if v._shape:
                raise ValueError(_("{what} must be scalars, got a block of shape {shape}").format(
                    what=what, shape=v.shape))
            out.append(v.data.astype(np.int64))
        else:
            out.append(np.array([int(v)], np.int64))
    return out


def _tile(base: pointer, shape, strides, offsets, block_shape, checked):
    """The pointer block and mask of the tile at ``offsets``: ``base + Σ (offsets[d] + arange(B_d)) · strides[d]``,
    kept as a strided :class:`~kernellab.triton.executor.view.View` where every program has the same strides."""
    nd = len(block_shape)
    rows = max([1] + [a.shape[0] for a in (*shape, *strides, *offsets)] + [base.data.shape[0]])
    structured = _structured() and all(st.shape[0] == 1 for st in strides)
    # every program's tile inside the tensor in each dimension checked: 0 <= offset and offset + B <= shape
    inside = structured and all(_inside(offsets[d], block_shape[d], shape[d]) for d in checked)
    mask = None
    idxs = []
    for d in range(0 if inside else nd):
        idx = offsets[d].reshape(-1, *(1,) * nd) + np.arange(block_shape[d]).reshape(
            (1,) + (1,) * d + (block_shape[d],) + (1,) * (nd - d - 1))
        idxs.append(idx)
        if d in checked:
            ok = (idx >= 0) & (idx < shape[d].reshape(-1, *(1,) * nd))
            mask = ok if mask is None else mask & ok
    if structured:  # each program's tile: a start and strides
        start = base.data.astype(np.int64).reshape(-1)
        for d in range(nd):
            start = start + offsets[d].reshape(-1) * strides[d][0]
        if start.shape[0] != rows:
            start = np.broadcast_to(start, (rows,))
        view = View(Base.strided(start, tuple(block_shape), tuple(int(st[0]) for st in strides)))
        ptr = pointer(base.flat, None, tuple(block_shape), view, elem=base.dtype.element_ty)
        ptr._lazy = lambda: view.lanes()[0]
    else:
        offs = np.broadcast_to(base.data.astype(np.int64).reshape(-1, *(1,) * nd), (rows, *block_shape)).copy()
        for d in range(nd):
            offs = offs + idxs[d] * strides[d].reshape(-1, *(1,) * nd)
        ptr = pointer(base.flat, offs, tuple(block_shape), elem=base.dtype.element_ty)
    if inside and checked:
        return ptr, _every_lane(rows, tuple(block_shape))
    m = None if mask is None else tensor(np.broadcast_to(mask, (rows, *block_shape)), T.int1, tuple(block_shape))
    return ptr, m


def _inside(offset: np.ndarray, block: int, size: np.ndarray) -> bool:
    """Whether ``0 <= offset`` and ``offset + block <= size`` in every program (``offset``, ``size``: integer
    arrays over the programs, or one element for all of them).

    >>> _inside(np.array([0, 56]), 8, np.array([64])), _inside(np.array([0, 57]), 8, np.array([64]))
    (True, False)
    """
    if offset.size == 1 and size.size == 1:  # one program, or one tile for all: Python's integers, exact
        o = int(offset[0])
        return 0 <= o and o + block <= int(size[0])
    return bool(((offset >= 0) & (offset + block <= size)).all())


def _every_lane(rows: int, block_shape: tuple) -> tensor:
    """The mask of a tile every lane of which is inside the tensor, in ``rows`` programs: kept as the prefix of
    all its lanes (a load through it moves the tile as an unmasked one), its values made only if read."""
    m = tensor(None, T.int1, block_shape)
    m._lazy = lambda: np.ones((rows, *block_shape), bool)
    m._view = View(Base(rows=rows, shape=block_shape, starts=None, lines=None), 0,
                   every_lane(rows, math.prod(block_shape)))
    return m


def _tile_facts(base: pointer, shape_f, strides_f, offsets_f, block_shape: tuple, checked=None):
    """The axis facts (:mod:`kernellab.triton.compiler.axis`) of a descriptor tile's pointers and mask, as Triton
    3.9 rewrites a descriptor access without TMA (sm_80): ``base + Σ (offset_d + arange(B_d)) · stride_d``,
    masked by ``0 <= offset_d + arange(B_d) < shape_d`` in every dimension (a block pointer: in the dimensions
    ``checked``, its ``boundary_check``; the mask is None when there are none).

    A pure function of the facts (immutable :class:`~kernellab.triton.compiler.axis.AxisInfo`), so remembered
    for each combination: a loop's tiles at each step ask again with the same facts."""
    nd = len(block_shape)
    checked = tuple(range(nd) if checked is None else checked)
    width = base.dtype.element_ty.primitive_bitwidth // 8
    return _facts_of_tile(facts(base), tuple(shape_f), tuple(strides_f), tuple(offsets_f), tuple(block_shape),
                          checked, width)


@functools.lru_cache(maxsize=4096)
def _facts_of_tile(base_f: A.AxisInfo, shape_f: tuple, strides_f: tuple, offsets_f: tuple, block_shape: tuple,
                   checked: tuple, width: int):
    """:func:`_tile_facts` from the facts themselves (``width``: the element's bytes)."""
    nd = len(block_shape)
    ptr = A.splat(base_f, block_shape)
    mask = None
    for d in range(nd):
        idx = A.add(A.splat(offsets_f[d], (block_shape[d],)), A.arange(0, block_shape[d]), (block_shape[d],))
        ones = tuple(block_shape[d] if i == d else 1 for i in range(nd))
        for i in range(nd):
            if i != d:
                idx = A.expand_dims(idx, i)
        idx = A.to_shape(idx, ones, block_shape)
        term = A.binary("*", idx, A.splat(strides_f[d], block_shape), block_shape)
        ptr = A.add(ptr, term, block_shape, elem_bytes=width)
        if d not in checked:
            continue
        ok = A.logical("&", A.compare(">=", idx, A.splat(A.constant(0), block_shape), block_shape),
                       A.compare("<", idx, A.splat(shape_f[d], block_shape), block_shape))
        mask = ok if mask is None else A.logical("&", mask, ok)
    return ptr, mask


def _fill(elem: T.dtype, padding: str):
    if padding == "nan":
        if not elem.is_floating():
            raise ValueError(_("padding_option='nan' needs a floating-point tensor"))
        return float("nan")
    return None


class block_ptr:
    """A block pointer from ``tl.make_block_ptr``: load and store it with ``tl.load``/``tl.store``,
    move it with ``tl.advance``.

    Triton up to 3.4 compiled it (RewriteTensorPointer, before the layouts are chosen) to the tensor of
    pointers ``base + Σ (offsets[d] + arange(B_d)) · strides[d]``, masked in the ``boundary_check``
    dimensions, so its loads and stores are laid out as that kernel's are: vectors along the dimension
    whose stride is 1 (``order[0]`` when ``order`` describes the array), one element a lane when no
    stride is known to be 1. ``_facts`` keeps the axis facts of shape, strides and offsets for that."""

    def __init__(self, base, shape, strides, offsets, block_shape, order, facts=None):
        self.base, self.shape, self.strides, self.offsets = base, shape, strides, offsets
        self.block_shape = block_shape
        self.order = order
        self._facts = facts  # (shape's, strides', offsets') axis facts

    @property
    def dtype(self):
        """A pointer type whose ``element_ty`` is the element type (``ptr.type.element_ty`` in A2's kernels)."""
        return T.pointer_type(self.base.dtype.element_ty)

    type = dtype

    def _checked(self, boundary_check):
        checked = tuple(int(getattr(d, "value", d)) for d in (boundary_check or ()))
        for d in checked:
            if not 0 <= d < len(self.block_shape):
                raise ValueError(_("boundary_check dimension {d} out of range for a block of "
                                   "rank {n_block_shape}").format(
                    d=d, n_block_shape=len(self.block_shape)))
        return checked

    def _load(self, boundary_check, padding_option, **kw):
        if padding_option not in _PADDINGS:
            raise ValueError(_("padding_option must be 'zero' or 'nan', not {padding_option!r}").format(
                padding_option=padding_option))
        ptr, m = self._tile(boundary_check)
        return load(ptr, m, _fill(ptr.dtype.element_ty, padding_option), **kw)

    def _store(self, value, boundary_check, **kw):
        ptr, m = self._tile(boundary_check)
        store(ptr, value, m, **kw)

    def _tile(self, boundary_check):
        checked = self._checked(boundary_check)
        ptr, m = _tile(self.base, self.shape, self.strides, self.offsets, self.block_shape, checked)
        if self._facts is not None:
            ptr._ax, mf = _tile_facts(self.base, *self._facts, tuple(self.block_shape), checked)
            if m is not None:
                m._ax = mf
        return ptr, m

    def advance(self, offsets):
        """The block pointer moved by ``offsets`` (a tensor member: ``ptr.advance((0, BK))``)."""
        return advance(self, offsets)


@kinds.pure
def make_block_ptr(base, shape, strides, offsets, block_shape, order, _semantic=None) -> block_ptr:
    """A pointer to the tile ``block_shape`` at ``offsets`` of the array ``base`` of ``shape`` and ``strides``.

    Examples
    --------
    >>> import kernellab.triton as triton
    >>> import kernellab.triton.language as tl
    >>> @triton.jit
    ... def copy_tile(a_ptr, out_ptr, M, N):
    ...     a = tl.make_block_ptr(a_ptr, (M, N), (N, 1), (2, 0), (4, 4), (1, 0))
    ...     o = tl.make_block_ptr(out_ptr, (4, 4), (4, 1), (0, 0), (4, 4), (1, 0))
    ...     tl.store(o, tl.load(a, boundary_check=(0, 1), padding_option="zero"))
    >>> a = np.arange(15, dtype=np.float32).reshape(5, 3); out = np.full((4, 4), -1, np.float32)
    >>> import warnings; from kernellab.errors import BlockPointerWarning
    >>> with warnings.catch_warnings():   # Triton 3.9 removed block pointers: the first use warns (once)
    ...     warnings.simplefilter("ignore", BlockPointerWarning)
    ...     cnt = copy_tile[(1,)](a, out, 5, 3)
    >>> out.tolist()[:2], cnt["load_bytes"]   # rows 2-4 of a, 3·3·4 bytes
    ([[6.0, 7.0, 8.0, 0.0], [9.0, 10.0, 11.0, 0.0]], 36)
    """
    limits.block_pointer("make_block_ptr")  # Triton 3.9 removed block pointers: kernellab keeps them, and warns once
    if not isinstance(base, pointer) or base._shape:
        raise TypeError(_("make_block_ptr needs a scalar pointer (an array argument) as base"))
    block_shape = tuple(int(getattr(b, "value", b)) for b in block_shape)
    lists = [_ints(v, n) for v, n in ((shape, "shape"), (strides, "strides"), (offsets, "offsets"))]
    if not len(lists[0]) == len(lists[1]) == len(lists[2]) == len(block_shape):
        raise ValueError(_("make_block_ptr: shape, strides, offsets and block_shape must have "
                           "the same length"))
    for b in block_shape:
        if b < 1 or b & (b - 1):
            raise ValueError(_("make_block_ptr: block_shape {block_shape} must be powers of two").format(
                block_shape=list(block_shape)))
    return block_ptr(base, *lists, block_shape, tuple(getattr(order, "value", order)),
                     tuple([facts(x) for x in v] for v in (shape, strides, offsets)))


@kinds.pure
@_tensor_member_fn
def advance(base, offsets, _semantic=None) -> block_ptr:
    """A block pointer moved by ``offsets`` (one per dimension)."""
    limits.block_pointer("advance")
    if not isinstance(base, block_ptr):
        raise TypeError(_("tl.advance needs a block pointer from tl.make_block_ptr"))
    delta = _ints(offsets, "advance offsets")
    if len(delta) != len(base.offsets):
        raise ValueError(_("tl.advance needs {n_offsets} offsets, got {n_delta}").format(
            n_offsets=len(base.offsets), n_delta=len(delta)))
    fs = base._facts
    if fs is not None:
        fs = (fs[0], fs[1], [A.add(o, facts(d), ()) for o, d in zip(fs[2], offsets)])
    return block_ptr(base.base, base.shape, base.strides, [o + d for o, d in zip(base.offsets, delta)],
                     base.block_shape, base.order, fs)


block_ptr.advance = advance  # both tl.advance(ptr, …) and ptr.advance(…)


class tensor_descriptor:
    """A tensor descriptor from ``tl.make_tensor_descriptor``: ``desc.load(offsets)``, ``desc.store(offsets, v)``."""

    def __init__(self, base, shape, strides, block_shape, padding_option, round_f32_to_tf32=False, facts=None):
        self.base, self._shape_v, self._strides_v = base, shape, strides
        self._facts = facts  # (shape's, strides') axis facts, for the tile's pointers and mask
        self.block_shape = list(block_shape)
        self.padding_option = padding_option
        self.round_f32_to_tf32 = bool(round_f32_to_tf32)

    @property
    def dtype(self):
        return self.base.dtype.element_ty

    @property
    def shape(self):
        return [tensor(s, T.int32, ()) for s in self._shape_v]

    @property
    def strides(self):
        return [tensor(s, T.int64, ()) for s in self._strides_v]

    def _tile(self, offsets):
        offs = _ints(offsets, "descriptor offsets")
        width = self.base.dtype.element_ty.primitive_bitwidth // 8
        last = offs[-1]
        if (int(last[0]) * width % 16 != 0) if last.size == 1 else (last * width % 16 != 0).any():
            raise ValueError(_("the last offset of a descriptor tile must be 16-byte aligned, "
                               "got {offs} elements of {width} bytes").format(
                offs=int(offs[-1][0]), width=width))
        if len(offs) != len(self.block_shape):
            raise ValueError(_("a rank-{n_block_shape} descriptor needs {n_block_shape} offsets, "
                               "got {n_offs}").format(
                n_block_shape=len(self.block_shape), n_offs=len(offs)))
        ptr, m = _tile(self.base, self._shape_v, self._strides_v, offs, tuple(self.block_shape),
                       tuple(range(len(self.block_shape))))
        if self._facts is not None:
            ptr._ax, mf = _tile_facts(self.base, *self._facts, [facts(o) for o in offsets], tuple(self.block_shape))
            if m is not None:
                m._ax = mf
        return ptr, m

    def load(self, offsets) -> tensor:
        """The tile at ``offsets``; elements outside the tensor read as the padding (zero or NaN).

        With ``round_f32_to_tf32``, fp32 elements arrive rounded to TF32, to nearest with ties to even,
        as Hopper's TMA rounds them (:func:`~kernellab.triton.executor.numerics.tf32_round`).
        """
        ptr, m = self._tile(offsets)
        t = load(ptr, m, _fill(ptr.dtype.element_ty, self.padding_option))
        if self.round_f32_to_tf32 and t.dtype == T.float32:
            lay = t._lay
            t = tensor(numerics.tf32_round(t.data, "rn"), t.dtype, t._shape)
            t._lay = lay
        prog = current()
        prog.tally.tma("load", _how(ptr, m), ptr.flat.itemsize, prog.num_warps, prog.P, prog.wanted,
                       _inside_bytes(ptr, m, prog.P))
        n = convert.tma_shared(tuple(self.block_shape), 8 * ptr.flat.itemsize, prog.num_warps)
        prog.tally.shared_sm90(0, n * prog.num_warps * prog.P)  # ttg.local_load into the registers
        tma.loaded(t, n, prog)
        return t

    def store(self, offsets, value) -> None:
        """Write the tile at ``offsets``; elements outside the tensor are not written."""
        ptr, m = self._tile(offsets)
        prog = current()
        bits, nw = 8 * ptr.flat.itemsize, prog.num_warps
        lay = getattr(value, "_lay", None)
        if lay is not None:  # on sm_80 the value is converted to the store's layout (core.store would
            value._lay = ("sm80", lay)  # count it on both targets); on sm_90 it goes to shared memory
        try:
            store(ptr, value, m)
        finally:
            if lay is not None:
                value._lay = lay
        prog.tally.tma("store", _how(ptr, m), ptr.flat.itemsize, nw, prog.P, None, _inside_bytes(ptr, m, prog.P))
        note = tma.stored(value)
        if note is not None and tuple(value._shape) == tuple(self.block_shape):
            tma.give_back(prog, note)  # stored unchanged: it stays in shared memory
        else:
            prog.tally.shared_sm90(convert.tma_shared(tuple(self.block_shape), bits, nw) * nw * prog.P, 0)

    def atomic_add(self, offsets, value):
        """Atomically add ``value`` to the tile at ``offsets``."""
        ptr, m = self._tile(offsets)
        return atomic_add(ptr, value, m)


def _inside_bytes(ptr: pointer, mask, programs: int) -> int:
    """The bytes of a tile's elements inside the tensor, over ``programs`` programs (what a TMA copy moves)."""
    if mask is None:
        return int(np.prod(ptr._shape, dtype=np.int64)) * ptr.flat.itemsize * programs
    kept = mask._view
    if kept is not None and kept.keep is not None and kept.keep.dtype != bool:  # each program's first lanes
        return int(kept.keep.sum()) * (programs // kept.keep.size) * ptr.flat.itemsize
    data = np.asarray(mask.data)
    return int(np.count_nonzero(data)) * (programs // max(data.shape[0], 1)) * ptr.flat.itemsize


@kinds.pure
def make_tensor_descriptor(base, shape, strides, block_shape, padding_option="zero", round_f32_to_tf32=False,
                           _semantic=None, _host=False):
    """A descriptor of the array ``base`` (``shape``, ``strides`` in elements, the last stride 1) read in
    tiles of ``block_shape``, as Triton 3.9's TMA descriptors.

    Examples
    --------
    >>> import kernellab.triton as triton
    >>> import kernellab.triton.language as tl
    >>> @triton.jit
    ... def double(x_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    ...     d = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN])
    ...     t = d.load([tl.program_id(0) * BM, 0])
    ...     d.store([tl.program_id(0) * BM, 0], t * 2)
    >>> x = np.ones((5, 4), np.float32); _ = double[(3,)](x, 5, 4, BM=2, BN=4); float(x.sum())
    40.0
    """
    if not isinstance(base, pointer) or base._shape:
        raise TypeError(_("make_tensor_descriptor needs a scalar pointer (an array argument) as base"))
    block_shape = [int(getattr(b, "value", b)) for b in block_shape]
    sh, st = _ints(shape, "shape"), _ints(strides, "strides")
    if not len(sh) == len(st) == len(block_shape):
        raise ValueError(_("make_tensor_descriptor: shape, strides and block_shape must have the "
                           "same length"))
    if (st[-1] != 1).any():
        raise ValueError(_("make_tensor_descriptor: the last stride must be 1 (TMA reads rows of "
                           "contiguous elements)"))
    if padding_option not in ("zero", "nan"):
        raise ValueError(_("padding_option must be 'zero' or 'nan', not {padding_option!r}").format(
            padding_option=padding_option))
    width = base.dtype.element_ty.primitive_bitwidth // 8
    if (base.data * width % 16 != 0).any():
        raise ValueError(_("make_tensor_descriptor: the base must be 16-byte aligned (TMA's rule)"))
    for d, stride in enumerate(st[:-1]):
        if (stride * width % 16 != 0).any():
            raise ValueError(_("make_tensor_descriptor: stride {d} is {stride} elements = "
                               "{bytes} bytes, not a multiple of 16 (TMA's rule)").format(
                d=d, stride=int(stride[0]), bytes=int(stride[0]) * width))
    if not _host:  # ttng.tensormap_create: 32 lanes zero the 128-byte descriptor in shared memory, 4 bytes each
        prog = current()
        prog.tally.shared_sm90(prog.num_warps * prog.P, 0)
    return tensor_descriptor(base, sh, st, block_shape, padding_option,
                             getattr(round_f32_to_tf32, "value", round_f32_to_tf32),
                             ([facts(x) for x in shape], [facts(x) for x in strides]))


@kinds.memory
def load_tensor_descriptor(desc, offsets, _semantic=None) -> tensor:
    """``desc.load(offsets)``."""
    return desc.load(offsets)


@kinds.memory
def store_tensor_descriptor(desc, offsets, value, _semantic=None) -> None:
    """``desc.store(offsets, value)``."""
    return desc.store(offsets, value)


__all__ = ["advance", "block_ptr", "load_tensor_descriptor", "make_block_ptr", "make_tensor_descriptor",
           "store_tensor_descriptor", "tensor_descriptor"]
