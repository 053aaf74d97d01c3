"""The ``tl`` functions of real Triton syntax: program ids, block creation, memory, dot, reductions, shapes.

Each works on :class:`~kernellab.triton.executor.tensor.tensor` values of the current step (found through the
context variable the launcher sets, see :mod:`kernellab.triton.executor.program`) and follows the signatures of
``triton.language``. Elementwise math lives in :mod:`kernellab.triton.language.math`.
"""

from __future__ import annotations

import builtins
import functools

import numpy as np

from kernellab import cvt
from kernellab.i18n import _

from ..compiler import axis as A
from ..compiler import limits
from ..compiler.mma import DotChain, dot_plan
from ..compiler.mma import kind as mma_kind
from ..executor import dtypes as T
from ..executor import kinds, memory, numerics, sampling
from ..executor.loops import loop
from ..executor.program import _CURRENT, current
from ..executor.rounds import accumulated, dependent, loaded, note_dot, note_loop, waited
from ..executor.tensor import (
    _align,
    _operand,
    _structured,
    _tensor_member_fn,
    bitcast_data,
    broadcast_shape,
    constexpr,
    convert,
    count_flops,
    facts,
    layout_of,
    pointer,
    tensor,
)
from ..executor.view import Base, View
from .tma import tma_tile

_POINTER = pointer  # the class (``load`` and ``store`` name their argument ``pointer``)


def _to_tensor(x) -> tensor:
    if isinstance(x, tensor):
        if x._ld is not None:
            waited(x)
        return x
    data, dt, _, _ = _operand(x)
    return tensor(np.asarray([data], dt.np), dt, ())


@kinds.pure
def to_tensor(x, _semantic=None) -> tensor:
    """A Python number as a scalar block (int → int32, float → fp32); a block unchanged."""
    return _to_tensor(x)


def _dims(shape) -> tuple[int, ...]:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    return tuple(int(getattr(d, "value", d)) for d in shape)


# --- programs ------------------------------------------------------------------------------------
@kinds.pure
def program_id(axis, _semantic=None) -> tensor:
    """This program's id along ``axis`` (0, 1 or 2), an int32 scalar."""
    return tensor(current().program_id(int(getattr(axis, "value", axis))), T.int32, ())


@kinds.pure
def num_programs(axis, _semantic=None) -> tensor:
    """The number of programs along ``axis`` of the launch grid, an int32 scalar."""
    axis = int(getattr(axis, "value", axis))
    return tensor(np.array([current().grid[axis]], np.int32), T.int32, ())


# --- creation ------------------------------------------------------------------------------------
@kinds.pure
def arange(start, end, _semantic=None) -> tensor:
    """``[start, end)`` as int32; ``end - start`` must be a power of two.

    Examples
    --------
    >>> arange(0, 4).data[0].tolist()
    [0, 1, 2, 3]
    """
    limits.arange(start, end)  # in a @triton.jit kernel: Triton 3.9's compile-time checks
    start, end = getattr(start, "value", start), getattr(end, "value", end)
    n = numerics.check_arange(start, end)
    data, base, ax = (_arange if n <= _ARANGE_KEPT else _arange.__wrapped__)(int(start), int(end))
    out = tensor(data, T.int32, (n,))
    if _structured():
        out._view = View(base)
    out._ax = ax
    return out


_ARANGE_KEPT = 1 << 14  # elements: larger blocks are made afresh (at most 128 × 192 KiB kept)


@functools.lru_cache(maxsize=128)
def _arange(start: int, end: int):
    """The values (read-only), offsets base and axis facts of ``tl.arange(start, end)``: made once, shared by
    every launch (a base keeps what the memory layer counted of it, which depends on its offsets alone)."""
    data = np.arange(start, end, dtype=np.int32)[None]
    wide = np.arange(start, end, dtype=np.int64)[None]
    data.flags.writeable = wide.flags.writeable = False
    return data, Base.consecutive(start, (end - start,), wide), A.arange(start, end)


@kinds.pure
def full(shape, value, dtype, _semantic=None) -> tensor:
    """A block of ``shape`` filled with ``value`` of type ``dtype``."""
    limits.shape(shape)
    dims = numerics.check_shape(_dims((shape,)))
    dt = T.from_numpy(getattr(dtype, "value", dtype))
    data = np.full((1, *dims), getattr(value, "value", value), np.float64 if dt.__class__ is T.float_format else dt.np)
    out = tensor(convert(data, T.float64, dt) if dt.__class__ is T.float_format else data, dt, dims)
    if dt.is_int() and isinstance(getattr(value, "value", value), (bool, int, np.integer)):
        out._ax = A.constant(int(getattr(value, "value", value)), dims)
    return out


@kinds.pure
def zeros(shape, dtype, _semantic=None) -> tensor:
    """A block of zeros (``tl.zeros((BM, BN), dtype=tl.float32)``)."""
    return full(shape, 0, dtype)


@kinds.pure
def zeros_like(input) -> tensor:
    """A block of zeros with the shape and dtype of ``input``."""
    return full(input.shape, 0, input.dtype)


@kinds.pure
@_tensor_member_fn
def cdiv(x, div):
    """⌈x / div⌉ for ints or integer blocks."""
    return (x + div - 1) // div


def _hinted(input, values, kind: str):
    """``input`` with one of its axis facts replaced by the hint ``values`` (see :mod:`kernellab.triton.compiler.axis`).

    As in Triton, the hint is an attribute of the operation that made the value: a kernel parameter
    used as it came (no operation made it) keeps what the launch's specialisation says.
    """
    if not isinstance(input, tensor) or (input._ax is not None and input._ax.param):
        return input
    vals = getattr(values, "value", values)
    vals = tuple(int(getattr(v, "value", v)) for v in (vals if isinstance(vals, (tuple, list)) else (vals,)))
    if len(vals) != builtins.max(1, len(input._shape)):  # the module's own max is tl.max
        raise ValueError(_("Shape of input to {hint} does not match the length of values").format(
            hint={"divisibility": "multiple_of", "contiguity": "max_contiguous", "constancy": "max_constancy"}[kind]))
    out = _shallow(input)  # the same value (and structure), with the hinted fact
    out._ax = A.hint(facts(input), kind, vals)
    return out


def _shallow(x: tensor) -> tensor:
    """``copy.copy(x)`` of a block: a new object of its class holding the same attributes (its slots), made
    without copy's reduce protocol (a loop's ``tl.multiple_of`` makes one at every step)."""
    out = object.__new__(x.__class__)
    for name in _slots(x.__class__):
        try:
            value = getattr(x, name)
        except AttributeError:  # a slot never set
            continue
        setattr(out, name, value)
    return out


@functools.cache
def _slots(cls) -> tuple:
    """Every slot of ``cls`` and its bases but ``__weakref__`` and ``__dict__``, as ``copy.copy`` copies them."""
    names = []
    for klass in reversed(cls.__mro__):
        slots = klass.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__weakref__", "__dict__") and name not in names:
                names.append(name)
    return tuple(names)


@kinds.pure
def multiple_of(input, values, _semantic=None):
    """Compiler hint that the first value of every run along each axis is a multiple of ``values``.

    No effect on results; it widens the vector width of the loads and stores it reaches, as in Triton
    (see :mod:`kernellab.triton.compiler.axis`).
    """
    return _hinted(input, values, "divisibility")


@kinds.pure
def max_contiguous(input, values, _semantic=None):
    """Compiler hint that the values come in runs of ``values`` consecutive integers (no effect on results)."""
    return _hinted(input, values, "contiguity")


@kinds.pure
def max_constancy(input, values, _semantic=None):
    """Compiler hint that the values come in runs of ``values`` equal values (no effect on results)."""
    return _hinted(input, values, "constancy")


@kinds.pure
@_tensor_member_fn
def cast(input, dtype, fp_downcast_rounding=None, bitcast=False, _semantic=None) -> tensor:
    """``input`` converted to ``dtype`` (``bitcast=True``: its bits reinterpreted), as ``x.to(dtype)``.

    Examples
    --------
    >>> x = tensor(np.float32([[1.0, -2.0]]), T.float32, (2,))
    >>> cast(x, T.int32, bitcast=True).data[0].tolist()       # 0x3F800000, 0xC0000000
    [1065353216, -1073741824]
    """
    x = _to_tensor(input)
    return x.to(getattr(dtype, "value", dtype), fp_downcast_rounding=fp_downcast_rounding, bitcast=bitcast)


@kinds.pure
def bitcast(input, dtype) -> tensor:
    """The bits of ``input`` read as ``dtype`` of the same width."""
    return bitcast_data(_to_tensor(input), T.from_numpy(getattr(dtype, "value", dtype)))


@kinds.host
def static_assert(cond, msg="", _semantic=None):
    """Assert at 'compile' time (here: when the line runs); in a ``@triton.jit`` kernel a condition that does not
    hold raises ``CompileTimeAssertionFailure`` (a ``triton.CompilationError``), and so does one known only at run
    time (see :mod:`kernellab.triton.compiler.limits`); elsewhere an ``AssertionError``."""
    limits.static_assert(cond, msg)


@kinds.pure
def range(arg1, arg2=None, step=None, num_stages=None, loop_unroll_factor=None, warp_specialize=False,
          disallow_acc_multi_buffer=False, flatten=False, **kwargs):
    """``tl.range``: the loop's values, as Python's range, each a scalar block of the bounds' type as Triton
    makes the variable (:func:`kernellab.triton.executor.loops.induction`). ``num_stages`` pipelines it as Triton's
    compiler does (every load, when the loop has no ``tl.dot``; :mod:`kernellab.triton.executor.loops`),
    which changes the instructions counted, not the bytes moved; the other arguments
    (``loop_unroll_factor``, ``warp_specialize``, ``flatten``, ``disallow_acc_multi_buffer``) change
    neither here. ``num_stages`` and ``warp_specialize`` are also kept for the performance model (the
    launch's ``counts.launch``): the loop's loads are pipelined that many stages deep, and its warps split
    into producer and consumer groups whose Tensor Core and SIMT work overlap (:mod:`kernellab.model.estimate`).
    """
    note_loop(num_stages, warp_specialize)
    args = (arg1,) if arg2 is None else (arg1, arg2) if step is None else (arg1, arg2, step)
    stages = None if num_stages is None else int(getattr(num_stages, "value", num_stages))
    return loop(args, stages)


@kinds.pure
def static_range(arg1, arg2=None, step=None):
    """``tl.static_range``: an unrolled loop (no ``scf.for``), a Python range here; its bounds must be
    compile-time ints."""
    limits.static_range(*(a for a in (arg1, arg2, step) if a is not None))
    args = (arg1,) if arg2 is None else (arg1, arg2) if step is None else (arg1, arg2, step)
    return builtins.range(*(int(a) for a in args))


@kinds.pure
def add(x, y, sanitize_overflow=True, _semantic=None) -> tensor:
    """``x + y`` (integer overflow wraps; ``sanitize_overflow`` only matters to Triton's sanitizer)."""
    return _to_tensor(x) + y


@kinds.pure
def sub(x, y, sanitize_overflow=True, _semantic=None) -> tensor:
    """``x - y``."""
    return _to_tensor(x) - y


@kinds.pure
def mul(x, y, sanitize_overflow=True, _semantic=None) -> tensor:
    """``x * y``."""
    return _to_tensor(x) * y


# --- memory --------------------------------------------------------------------------------------
def _how(ptr, mask):
    """``(pointer facts, mask facts or None, block shape)``: what the memory layer needs to count an access
    under the layout Triton gives it (:mod:`kernellab.triton.compiler.layout`)."""
    shape = ptr._shape
    return facts(ptr), None if mask is None else facts(_to_tensor(mask), shape), shape


def _view(ptr, mask, what: str) -> View:
    """The :class:`~kernellab.triton.executor.view.View` a ``tl.load``/``tl.store`` reaches: the pointers'
    offsets and the lanes ``mask`` keeps (a prefix of each program's lanes where the mask is ``offs < n``)."""
    if not isinstance(ptr, pointer):
        raise TypeError(_("{what} needs a pointer (an array argument plus offsets), got {type}").format(
            what=what, type=type(ptr).__name__))
    view = ptr.view
    if view is None:  # offsets with no structure known: as built
        view = View.of(ptr.data)
    if mask is None:
        return view
    m = _to_tensor(mask)
    kept = m._view
    if kept is not None and kept.keep is not None and m._shape == ptr._shape:  # a prefix of each program's lanes
        return view.masked(kept.keep)
    if m.dtype is not T.int1:
        m = m.to(T.int1)
    shape = broadcast_shape(ptr._shape, m._shape)
    if shape != tuple(ptr._shape):
        raise ValueError(_("mask of shape {shape} does not broadcast to the pointer block "
                           "{shape2}").format(
            shape=m.shape, shape2=ptr.shape))
    return view.masked(_align(m.data, m._shape, len(shape), False))


_LOAD_CACHE = ("", ".ca", ".cg", ".cv")
_STORE_CACHE = ("", ".wb", ".cg", ".cs", ".wt")
_EVICTION = ("", "evict_normal", "evict_first", "evict_last", "no_allocate")


def _check_cache(op: str, cache_modifier, allowed, eviction_policy):
    if cache_modifier == "" and eviction_policy == "":  # the defaults (the usual case)
        return
    cache_modifier = getattr(cache_modifier, "value", cache_modifier) or ""
    eviction_policy = getattr(eviction_policy, "value", eviction_policy) or ""
    if cache_modifier not in allowed:
        raise ValueError(_("tl.{op}: cache_modifier must be one of {allowed}, not "
                           "{cache_modifier!r}").format(
            op=op, allowed=', '.join(allowed[1:]), cache_modifier=cache_modifier))
    if eviction_policy not in _EVICTION:
        raise ValueError(_("tl.{op}: eviction_policy must be one of {allowed}, not "
                           "{eviction_policy!r}").format(
            op=op, allowed=', '.join(_EVICTION[1:]), eviction_policy=eviction_policy))


def _decoded(elem: T.float_format, bits: np.ndarray):
    """A function giving the float32 values of the loaded ``bits`` of ``elem`` (:meth:`~kernellab.triton.executor.
    dtypes.float_format.decode`), made when first read: a sampled launch's ``tl.dot`` reads only its ``rows``
    (:mod:`kernellab.triton.executor.sampling`)."""
    def decoded():
        return elem.decode(bits)

    decoded.rows = bits.shape[0]
    return decoded


@kinds.memory
def load(pointer, mask=None, other=None, boundary_check=(), padding_option="", cache_modifier="",
         eviction_policy="", volatile=False, _semantic=None) -> tensor:
    """Read the block ``pointer`` points to; lanes where ``mask`` is false read nothing and give ``other``.

    ``pointer`` may be a block pointer (``tl.make_block_ptr``): then ``boundary_check`` names the
    dimensions checked against its shape and ``padding_option`` (``"zero"``, ``"nan"``) fills the rest.
    ``cache_modifier`` (``.ca``, ``.cg``, ``.cv``), ``eviction_policy`` (``evict_first``,
    ``evict_last``) and ``volatile`` are checked and change nothing here: they steer the caches, and
    these counts are of what the program asks for.
    """
    _check_cache("load", cache_modifier, _LOAD_CACHE, eviction_policy)
    if pointer.__class__ is not _POINTER and hasattr(pointer, "_load"):  # a block pointer, a descriptor
        return pointer._load(boundary_check, padding_option)
    ptr = pointer
    view = _view(ptr, mask, "tl.load")
    fill = None
    if other is not None:
        od, _dt, osh, olit = _operand(other)
        if not olit:
            if osh:
                raise TypeError(_("kernellab supports only a scalar `other` in tl.load"))
            if od.shape[0] != 1 and (od != od[0]).any():
                raise TypeError(_("kernellab supports only an `other` that is the same in every program"))
            od = od[0]
        fill = od
    elem = ptr.dtype.element_ty
    bits = elem.__class__ is T.float_format  # bfloat16 / float8: memory holds the bits
    if bits and fill is not None:
        fill = elem.encode_one(fill)
    how = _how(ptr, mask)
    data = memory.load(current(), ptr.flat, view, fill, how, lend=not bits)
    widen = None
    if data.__class__ is tuple:
        data, widen = data
    if callable(data):  # a shared fp16 tile (memory.load): its float16 values made only if read
        out = tensor(None, elem, ptr._shape)
        out._lazy = data
    elif bits:  # bfloat16 / float8 bits (a copy: later stores do not reach them) decoded only if read
        out = tensor(None, elem, ptr._shape)
        out._lazy = _decoded(elem, data)
    else:
        out = tensor(data, elem, ptr._shape)
    if widen is not None and elem is T.float16:
        out._wide = widen  # called by the first tl.dot that needs the float32 values (see _wide)
    prog = current()
    if ptr._shape:
        out._lay = ("load", how, ptr.flat.itemsize, prog.num_warps, prog.wanted)
        out._loaded = True
        if prog.loops:  # a load of a loop's body: perhaps pipelined (kernellab.triton.executor.loops)
            prog.loops[-1].load(out._lay, 8 * ptr.flat.itemsize)
    elif prog.loops:  # a scalar load of a loop's body: pipelined too where its 32 bits or more allow a cp.async
        prog.loops[-1].load(("load", how, ptr.flat.itemsize, prog.num_warps, prog.wanted), 8 * ptr.flat.itemsize)
    loaded(out)
    return out


@kinds.memory
@_tensor_member_fn
def store(pointer, value, mask=None, boundary_check=(), cache_modifier="", eviction_policy="",
          _semantic=None) -> None:
    """Write ``value`` (cast to the pointer's element type) where ``mask`` holds.

    ``pointer`` may be a block pointer; ``boundary_check`` then names the dimensions to mask.
    ``cache_modifier`` (``.wb``, ``.cg``, ``.cs``, ``.wt``) and ``eviction_policy`` are checked and
    change nothing here.
    """
    _check_cache("store", cache_modifier, _STORE_CACHE, eviction_policy)
    if pointer.__class__ is not _POINTER and hasattr(pointer, "_store"):
        return pointer._store(value, boundary_check)
    ptr = pointer
    view = _view(ptr, mask, "tl.store")
    v = _to_tensor(value)
    shape = broadcast_shape(ptr._shape, v._shape)
    if shape != tuple(ptr._shape):
        raise ValueError(_("Value argument of shape {shape} cannot be stored through pointers of "
                           "shape {shape2}").format(
            shape=v.shape, shape2=ptr.shape))
    nd = len(shape)
    elem = ptr.dtype.element_ty
    how = _how(ptr, mask)
    prog = current()
    if v._lay is not None and v._shape == ptr._shape:  # the value reaches the store under another layout
        prog.tally.converted(v._lay, ("store", how, ptr.flat.itemsize, prog.num_warps, None),
                             8 * ptr.flat.itemsize, prog.num_warps, prog.P)
    if v._data is None and v._into is not None and v._shape == ptr._shape and v.dtype.np == ptr.flat.dtype:
        return memory.store(prog, ptr.flat, view, v, how)  # computed straight into the array where it can be
    vals = _align(v.data, v._shape, nd, False)
    if elem.__class__ is T.float_format:
        vals = elem.encode(convert(vals, v.dtype, elem))
    else:
        vals = cvt.astype(vals, ptr.flat.dtype)  # a float into an int array saturates (cvt.rzi)
    memory.store(prog, ptr.flat, view, vals, how)


# --- dot -----------------------------------------------------------------------------------------
@kinds.pure
def dot(input, other, acc=None, input_precision=None, allow_tf32=None, max_num_imprecise_acc=None,
        out_dtype=None, _semantic=None) -> tensor:
    """``acc + input @ other`` for 2-D (or batched 3-D) blocks, accumulating in fp32 (int32 for ints), or in
    ``out_dtype`` (default: the accumulator's type). fp32 operands are read as the GPU's tensor cores read
    them under ``input_precision``, resolved as Triton 3.9 resolves it
    (:func:`kernellab.triton.compiler.limits.dot_input_precision`): by default TF32, the low 13 mantissa
    bits dropped; ``input_precision="ieee"`` computes IEEE fp32."""
    for x in (input, other):
        if getattr(x, "_ld", None) is not None:
            waited(x, dot=True)
    a, b = _to_tensor(input), _to_tensor(other)
    limits.dot_arguments(input_precision, allow_tf32)
    limits.dot(a, b, None if acc is None else _to_tensor(acc), out_dtype)  # in a @triton.jit kernel: Triton 3.9's rules
    if out_dtype is None:
        out_dtype = T.float32
    if len(a._shape) not in (2, 3) or len(a._shape) != len(b._shape):
        raise ValueError(_("tl.dot needs two 2-D (or two 3-D) blocks, got shapes {shape} and "
                           "{shape2}").format(
            shape=a.shape, shape2=b.shape))
    if a.dtype.is_floating() != b.dtype.is_floating():
        raise TypeError(_("tl.dot operands must both be floating or both integer, got {dtype} "
                          "and {dtype2}").format(
            dtype=a.dtype, dtype2=b.dtype))
    input_precision = _input_precision(input_precision, allow_tf32, a.dtype)
    out_t = T.from_numpy(getattr(out_dtype, "value", out_dtype)) if a.dtype.is_floating() else T.int32
    acc_data = None
    if acc is not None:
        c = _to_tensor(acc)
        if c._shape != a._shape[:-1] + b._shape[-1:]:
            raise ValueError(_("tl.dot accumulator of shape {shape} does not match {shape2} @ "
                               "{shape3}").format(
                shape=c.shape, shape2=a.shape, shape3=b.shape))
        out_t, acc_data = c.dtype, c.data
    prog = current()
    if sampling.active():  # a benchmark's sampled launch: counted, not computed (see kernellab.triton.executor.sampling)
        data = _uncomputed_dot(_rows(a), _rows(b), a._shape, b._shape, acc_data, out_t.np)
    else:
        data = numerics.dot(_dot_operand(a), _dot_operand(b), acc_data, input_precision, out_t.np, _wide(a),
                            _wide(b))
    m, k = a._shape[-2:]
    n = b._shape[-1]
    operands = a.dtype.name if a.dtype.primitive_bitwidth > 8 else ("fp8" if a.dtype.is_floating() else "int8")
    precision = input_precision
    flops = numerics.dot_flops((1, *a._shape), (1, *b._shape), prog.P)
    prog.tally.flops(flops, operands, precision)
    if any(getattr(x, "_dep", False) for x in (a, b, acc)):  # fed by a dot's result: waited at its next use
        accumulated(flops)
    # dots feeding one another share their warps (kernellab.triton.compiler.mma.DotChain): the plan of
    # each is made once the program has run, so its MMA instructions and layouts are counted then
    chain = _dot_chain(a) or _dot_chain(b) or DotChain()
    batch = a._shape[0] if len(a._shape) == 3 else 1
    if mma_kind(operands, precision)[1] == 3:  # "tf32x3": Triton's F32DotTC makes three dots chained through
        chain.add(m, n, batch)  # their accumulator (lo·hi, hi·lo, then hi·hi), which warpsPerTileV2 plans
        chain.add(m, n, batch)  # as a chain: all warps along M (M ≥ N) or N; this dot stands for the last
    ref = (chain, chain.add(m, n, batch))
    prog.tally.dotted(m, n, k, operands, precision, prog.num_warps, batch, prog.P, ref)
    note_dot(prog, a, b, operands)
    out = tensor(data, out_t, a._shape[:-1] + b._shape[-1:])
    out._dep = True
    what = mma_kind(operands, precision)[0]
    if what is None and operands in ("fp32", "float32"):
        what = "fma"  # input_precision="ieee": FMAs, the operands through shared memory all the same
    if what is not None and (len(a._shape) == 2 or what != "fma"):  # through shared memory to the tensor cores
        lay_a = a._lay if a._lay is not None else ("default", a._shape, prog.num_warps)
        lay_b = b._lay if b._lay is not None else ("default", b._shape, prog.num_warps)
        tma = (False, False)
        if what in ("fp16", "bf16"):  # a tensor descriptor's tile: wgmma reads it in shared memory (sm_90)
            if dot_plan(m, n, what, prog.num_warps).sm90[0] == "wgmma":
                tma = (tma_tile(a), tma_tile(b))
        flags = [False, False]  # which operands the pipeliner copies to shared memory (set when a loop ends)
        # each operand a load's result itself (True), computed from one by casts ("hoist"), or else computed
        loaded = (getattr(a, "_loaded", False), getattr(b, "_loaded", False))
        prog.tally.staged(lay_a, lay_b, what, a.dtype.primitive_bitwidth, prog.num_warps, prog.P, tma, ref, flags,
                          loaded)
        out._lay = ("dot", (batch, m) if batch > 1 else m, n, what, prog.num_warps, ref)
        if prog.loops:
            prog.loops[-1].dot(lay_a, lay_b, ref, flags, (m, n, k, what, a.dtype.primitive_bitwidth), loaded, (a, b))
    return out


def _input_precision(input_precision, allow_tf32, dtype) -> str:
    """The ``input_precision`` Triton 3.9 compiles a ``tl.dot`` with, lower-case (resolved and checked by
    :func:`~kernellab.triton.compiler.limits.dot_input_precision`): by default ``"tf32"``, what the tensor
    cores of every GPU kernellab models (sm_80 and later) compute. The ``"bf16x3"`` and ``"bf16x6"`` splits of
    an fp32 dot are not modelled: they raise ``NotImplementedError``."""
    input_precision = limits.dot_input_precision(input_precision, allow_tf32)
    if input_precision.startswith("bf16x") and dtype.name == "fp32":
        raise NotImplementedError(_("tl.dot(input_precision={precision!r}): kernellab does not model the bf16 "
                                    "splits of an fp32 dot; use \"tf32\", \"tf32x3\" or \"ieee\"").format(
            precision=input_precision))
    return input_precision


def _dot_chain(t: tensor):
    """The :class:`~kernellab.triton.compiler.mma.DotChain` of a dot whose result ``t`` came from (through
    elementwise operations, reductions, ``tl.trans``), or None."""
    tag = t._lay
    while tag.__class__ is tuple and tag[0] in ("slice", "expand", "trans"):
        tag = tag[1]
    if tag.__class__ is tuple and tag[0] == "dot" and len(tag) > 5:
        return tag[5][0]
    return None


def _dot_operand(t: tensor) -> np.ndarray:
    """``t.data`` for ``numerics.dot``; for an fp16 block not yet made whose float32 values are known
    (``p.to(tl.float16)``, see ``tensor.to``; a shared tile, see ``memory.load``), a stand-in of its shape
    and type, not made: the dot reads its values from ``_wide``."""
    if t._data is None and t._wide is not None:
        return _stand_in(_wide(t).shape)
    return t.data


@functools.lru_cache(maxsize=64)
def _stand_in(shape: tuple) -> np.ndarray:
    """A read-only float16 block of ``shape`` (zeros, one element broadcast): :func:`_dot_operand`'s stand-in."""
    return np.broadcast_to(np.float16(0), shape)


def _wide(t: tensor):
    """An fp16 block's values as float32, widened once per block (a ``q`` reused by every ``tl.dot`` of a
    loop is widened once); None for other types (``numerics.dot`` converts those)."""
    if t.dtype is not T.float16:
        return None
    w = t._wide
    if w is None:
        w = t._wide = numerics._widen(t.data)
    elif callable(w):
        w = t._wide = w()
    return w


def _rows(t: tensor) -> int:
    """The programs ``t``'s values have rows for (1: the same for all); a block not yet made that knows its
    rows (``p.to(tl.float16)``, see ``tensor.to``) is not made for it."""
    d = t._data
    if d is None:
        rows = getattr(t._lazy, "rows", None)
        return t.data.shape[0] if rows is None else rows
    return d.shape[0]


def _uncomputed_dot(rows_a: int, rows_b: int, shape_a: tuple, shape_b: tuple, acc, out_dtype) -> np.ndarray:
    """NaN (zeros for integers) in the shape of ``a @ b`` (blocks of ``shape_a`` and ``shape_b`` with rows for
    ``rows_a`` and ``rows_b`` programs): what a sampled launch's ``tl.dot`` returns, so that nothing computed
    from it passes for a result (see :mod:`kernellab.triton.executor.sampling`). The operands' values are not
    needed, so a block not yet made (``p.to(tl.float16)``) is not made for it."""
    batch_a, batch_b = shape_a[:-2], shape_b[:-2]  # (np.broadcast_shapes of equal shapes is that shape)
    batch = batch_a if batch_a == batch_b else np.broadcast_shapes(batch_a, batch_b)
    shape = (builtins.max(rows_a, rows_b), *batch, shape_a[-2], shape_b[-1])
    if acc is not None and np.shape(acc) != shape:
        shape = np.broadcast_shapes(shape, np.shape(acc))
    return np.full(shape, np.nan if np.dtype(out_dtype).kind == "f" else 0, out_dtype)


# --- selection -----------------------------------------------------------------------------------
@kinds.pure
def where(condition, x, y, _semantic=None) -> tensor:
    """``x`` where ``condition`` holds, else ``y``, with Triton's promotion of ``x`` and ``y``."""
    c = _to_tensor(condition)
    if c.dtype is not T.int1:
        c = c.to(T.int1)
    xd, xt, xsh, xlit = _operand(x)
    yd, yt, ysh, ylit = _operand(y)
    ptr = next((v for v in (x, y) if isinstance(v, pointer)), None)
    if ptr is not None:
        raise TypeError(_("kernellab's tl.where does not select between pointers; select the "
                          "offsets instead"))
    ct = T.computation_type(xt, not xsh, yt, not ysh)
    shape = broadcast_shape(broadcast_shape(c._shape, xsh), ysh)
    nd = len(shape)
    xv = _align(np.asarray(xd, ct.np) if xlit else xd.astype(ct.np, copy=False), xsh, nd, xlit)
    yv = _align(np.asarray(yd, ct.np) if ylit else yd.astype(ct.np, copy=False), ysh, nd, ylit)
    cond = _align(c.data, c._shape, nd, False)
    pick = None
    if cond.size <= 4096 and (xv.ndim == nd + 1 or yv.ndim == nd + 1):  # a small condition: one side everywhere?
        pick = xv if cond.all() else yv if not cond.any() else None
        if pick is not None and pick.shape != np.broadcast_shapes(cond.shape, np.shape(xv), np.shape(yv)):
            pick = None
    out = layout_of(tensor(np.where(cond, xv, yv) if pick is None else pick, ct, shape), x, y, c)
    if ct.is_int():
        out._ax = A.select(facts(c, shape), facts(x, shape), facts(y, shape), scalar_cond=not c._shape)
    return out


# --- reductions ----------------------------------------------------------------------------------
def _axes(x: tensor, axis):
    axis = getattr(axis, "value", axis)
    if axis is None:
        return None
    nd = len(x._shape)
    if not -nd <= axis < nd:
        raise ValueError(_("reduction axis {axis} out of range for a block of shape {shape}").format(
            axis=axis, shape=x.shape))
    return axis % nd


def _layout_tag(x: tensor):
    """A block's layout tag (Triton's default layout when no access gave it one)."""
    return x._lay if x._lay is not None else ("default", x._shape, current().num_warps)


def _scanned(x: tensor, ax: int, out, bits: int, operands: int = 1):
    """Record the shared-memory traffic of a scan of ``x`` along ``ax``
    (:func:`kernellab.triton.compiler.convert.scan`); its results keep ``x``'s layout. Returns ``out``."""
    prog = _CURRENT.get()
    if not x._shape or prog is None:  # a scan of a scalar, or outside a kernel (a doctest): nothing moves
        return out
    lay = _layout_tag(x)
    prog.tally.scanned(lay, ax, bits, operands, prog.num_warps, prog.P)
    for o in out if isinstance(out, tuple) else (out,):
        o._lay = lay
    return out


def _reduced(x: tensor, ax, keep_dims: bool, out, bits: int, operands: int = 1, used: int | None = None):
    """Record the shared-memory traffic of a reduction of ``x`` along ``ax`` (:func:`kernellab.triton.compiler.convert.reduction`)
    and give its results (a tensor or a tuple) the sliced layout; returns ``out``."""
    if not x._shape:
        return out
    prog = current()
    lay = x._lay if x._lay is not None else ("default", x._shape, prog.num_warps)
    prog.tally.reduced(lay, ax, bits, operands, used, prog.num_warps, prog.P)
    if ax is not None:
        res = ("slice", lay, ax)
        if keep_dims:
            res = ("expand", res, ax)
        for o in out if isinstance(out, tuple) else (out,):
            o._lay = res
    return out


def _reduce(x: tensor, axis, keep_dims, fn, out_t: T.dtype, count: bool = True) -> tensor:
    x = _to_tensor(x)
    ax = _axes(x, axis)
    data = x.data.astype(out_t.np, copy=False)
    if ax is None:
        out = fn(data.reshape(data.shape[0], -1), axis=1)
        shape = (1,) * len(x._shape) if keep_dims else ()
        out = out.reshape((out.shape[0], *shape))
    else:
        out = fn(data, axis=ax + 1, keepdims=keep_dims)
        shape = x._shape[:ax] + ((1,) if keep_dims else ()) + x._shape[ax + 1:]
    if out_t.__class__ is T.float_format:  # a bfloat16 / float8 result is a value of that format
        out = out_t.round(out)
    out = tensor(out, out_t, shape)
    if x._dep:  # a reduction of a dot's result: its n − 1 operations per result wait for the dot too
        out._dep = True
        dependent(x._shape, 1)
    return _reduced(x, ax, keep_dims, out, out_t.primitive_bitwidth) if count else out


def _minmax_type(x: tensor) -> T.dtype:
    if x.dtype.primitive_bitwidth < 32:
        return T.float32 if x.dtype.is_floating() else T.int32
    return x.dtype


def _arg(x: tensor, axis, keep_dims, fn, count: bool = True) -> tensor:
    """Triton reduces the values and their indices together: two operands, only the index read."""
    x = _to_tensor(x)
    ax = _axes(x, axis)
    if ax is None:
        idx = fn(x.data.reshape(x.data.shape[0], -1), axis=1).astype(np.int32)
        shape = (1,) * len(x._shape) if keep_dims else ()
        out = tensor(idx.reshape((idx.shape[0], *shape)), T.int32, shape)
    else:
        idx = fn(x.data, axis=ax + 1, keepdims=keep_dims).astype(np.int32)
        shape = x._shape[:ax] + ((1,) if keep_dims else ()) + x._shape[ax + 1:]
        out = tensor(idx, T.int32, shape)
    return _reduced(x, ax, keep_dims, out, 32, operands=2, used=1) if count else out


def _with_index(x: tensor, axis, keep_dims, fn, argfn, out_t):
    """``tl.max``/``tl.min`` with ``return_indices``: one reduction of two operands, both read."""
    res = (_reduce(x, axis, keep_dims, fn, out_t, count=False), _arg(x, axis, keep_dims, argfn, count=False))
    return _reduced(x, _axes(x, axis), keep_dims, res, 32, operands=2)


@kinds.pure
@_tensor_member_fn
def max(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    """Largest element along ``axis`` (all axes when None); fp16 reduces in fp32, small ints in int32."""
    x = _to_tensor(input)
    if return_indices:
        return _with_index(x, axis, keep_dims, np.max, np.argmax, x.dtype)
    return _reduce(x, axis, keep_dims, numerics.block_max, _minmax_type(x))


@kinds.pure
@_tensor_member_fn
def min(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    """Smallest element along ``axis`` (all axes when None)."""
    x = _to_tensor(input)
    if return_indices:
        return _with_index(x, axis, keep_dims, np.min, np.argmin, x.dtype)
    return _reduce(x, axis, keep_dims, numerics.block_min, _minmax_type(x))


@kinds.pure
@_tensor_member_fn
def argmax(input, axis, tie_break_left=True, keep_dims=False) -> tensor:
    """Index (int32) of the largest element along ``axis``; ties go to the first."""
    return _arg(input, axis, keep_dims, np.argmax)


@kinds.pure
@_tensor_member_fn
def argmin(input, axis, tie_break_left=True, keep_dims=False) -> tensor:
    """Index (int32) of the smallest element along ``axis``; ties go to the first."""
    return _arg(input, axis, keep_dims, np.argmin)


@kinds.pure
@_tensor_member_fn
def sum(input, axis=None, keep_dims=False, dtype=None) -> tensor:
    """Sum along ``axis``; integers narrower than 32 bits sum in int32, floats in their own type."""
    x = _to_tensor(input)
    if dtype is not None:
        out_t = T.from_numpy(getattr(dtype, "value", dtype))
    elif x.dtype.is_int() and x.dtype.primitive_bitwidth < 32:
        out_t = T.uint32 if x.dtype.is_int_unsigned() else T.int32
    else:
        out_t = x.dtype
    out = _reduce(x, axis, keep_dims, np.sum, out_t)
    if out_t.is_floating():  # n − 1 adds per sum of n elements
        count_flops((x.numel - out.numel,))
    return out


# --- shapes --------------------------------------------------------------------------------------
@kinds.pure
@_tensor_member_fn
def reshape(input, *shape, can_reorder=False) -> tensor:
    """The same elements in another block shape (row-major)."""
    x = _to_tensor(input)
    limits.shape(shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape)
    dims = _dims(shape)
    if int(np.prod(dims, dtype=np.int64)) != x.numel:
        raise ValueError(_("cannot reshape a block of shape {shape} to {dims}").format(
            shape=x.shape, dims=list(dims)))
    return x._like(x.data.reshape((x.data.shape[0], *dims)), dims)


@kinds.pure
@_tensor_member_fn
def item(input, _semantic=None, _generator=None) -> tensor:
    """The single element of a one-element block, as a scalar (``x.item()``)."""
    x = _to_tensor(input)
    if x.numel != 1:
        raise ValueError(_("item() needs a block of one element, got shape {shape}").format(shape=x.shape))
    return x._like(x.data.reshape(x.data.shape[0]), ())


@kinds.pure
@_tensor_member_fn
def view(input, *shape) -> tensor:
    """The same elements in another block shape (Triton's deprecated alias of ``reshape``)."""
    return reshape(input, *shape)


@kinds.pure
@_tensor_member_fn
def ravel(x) -> tensor:
    """The block flattened to one dimension."""
    return reshape(x, x.numel)


def _transposed(x: tensor, axes: tuple, rows: int):
    """A function giving ``x``'s values with its axes permuted to ``axes`` (program axis first), made when first
    read; ``rows``: the programs it has values for, known without making it (a sampled ``tl.dot`` reads only that)."""
    def transposed():
        return x.data.transpose(axes)

    transposed.rows = rows
    return transposed


@kinds.pure
@_tensor_member_fn
def trans(input, *dims) -> tensor:
    """Permute the axes (reverse them when ``dims`` is empty)."""
    x = input if isinstance(input, tensor) else _to_tensor(input)  # a view: not a use (kernellab.triton.executor.rounds)
    perm = _dims(dims) or tuple(builtins.range(len(x._shape)))[::-1]
    axes, shape = (0, *(p + 1 for p in perm)), tuple(x._shape[p] for p in perm)
    rows = getattr(x._lazy, "rows", None) if x._data is None else None
    if rows is not None:  # bf16 / fp8 bits not yet decoded (tl.load): transposed when read, not for a sampled dot
        out = tensor(None, x.dtype, shape)
        out._lazy = _transposed(x, axes, rows)
    else:
        out = tensor(x.data.transpose(axes), x.dtype, shape)
    if x._lay is not None and tuple(perm) == (1, 0):
        out._lay = ("trans", x._lay)  # the same threads hold the same elements (kernellab.triton.compiler.convert.transposed)
        if getattr(x, "_loaded", False) is True:  # a dot reads a pipelined copy of it through a transposed view
            out._loaded = "trans"
    out._ld = x._ld
    out._dep = x._dep
    return out


@kinds.pure
@_tensor_member_fn
def permute(input, *dims) -> tensor:
    """Permute the axes of a block to ``dims``."""
    return trans(input, *dims)


@kinds.pure
@_tensor_member_fn
def broadcast_to(input, *shape) -> tensor:
    """Broadcast a block to ``shape``."""
    x = _to_tensor(input)
    limits.shape(shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape)
    dims = _dims(shape)
    if broadcast_shape(x._shape, dims) != dims:
        raise ValueError(_("cannot broadcast a block of shape {shape} to {dims}").format(
            shape=x.shape, dims=list(dims)))
    d = _align(x.data, x._shape, len(dims), False)
    out = x._like(np.broadcast_to(d, (d.shape[0], *dims)), dims)
    if x._ax is not None:
        out._ax = facts(x, dims)
    return out


@kinds.pure
@_tensor_member_fn
def expand_dims(input, axis) -> tensor:
    """Insert a size-1 axis at ``axis``."""
    x = _to_tensor(input)
    axis = int(getattr(axis, "value", axis))
    nd = len(x._shape) + 1
    axis = axis % nd
    shape = x._shape[:axis] + (1,) + x._shape[axis:]
    out = x._like(np.expand_dims(x.data, axis + 1), shape)
    if x._lay is not None:
        out._lay = ("expand", x._lay, axis)
    if x._ax is not None:
        out._ax = A.expand_dims(x._ax, axis)
    return out


#: Triton 3.9's ``triton.language.core.CONSTEXPR_0``, which libraries give as a constexpr parameter's default.
CONSTEXPR_0 = constexpr(0)

__all__ = [
    "arange", "argmax", "argmin", "broadcast_to", "cdiv", "constexpr", "dot", "expand_dims", "full",
    "load", "max", "max_contiguous", "min", "multiple_of", "num_programs", "permute", "program_id",
    "range", "ravel", "reshape", "static_assert", "static_range", "store", "sum", "trans", "view",
    "where", "zeros", "zeros_like",
]
