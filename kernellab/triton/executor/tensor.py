"""``tl.tensor`` and pointer blocks of the real-Triton front end, carried over a batch of programs.

A value's ``data`` is a numpy array of shape ``(rows, *shape)``: the leading axis runs over the
programs of the current step (``rows`` is 1 when every program holds the same value, as for
``tl.arange``), so one Python pass over a kernel can run many programs at once. A *pointer* block holds
int64 element offsets into one array. Arithmetic follows Triton's promotion rules
(:mod:`kernellab.triton.executor.dtypes`); integer ``//`` and ``%`` truncate toward zero as in C.

Python control flow on a scalar (``if``, ``range``, ``min``) asks for its single value: when the
programs of a batch disagree, :class:`~kernellab.triton.executor.program.Divergence` makes the launcher rerun
them in groups that agree (:mod:`kernellab.triton.executor.groups`), or one by one.

A value's ``data`` may be computed only when first read (``_lazy``): elementwise results, so that a
store can compute them straight into its array, and — an optimisation of the memory layer — integer
blocks kept by their structure, a :class:`~kernellab.triton.executor.view.View` (``_view``): offsets
``pid * BLOCK + tl.arange(0, BLOCK)``, the outer sums that make a tile's offsets, masks ``offs < n``, and
every pointer block. Whatever reads ``data`` gets exactly the values the plain computation gives.
"""

from __future__ import annotations

import math
import sys
from functools import cache

import numpy as np

from kernellab import cvt
from kernellab.i18n import _

from ..compiler import axis as A
from ..compiler import limits as _LIMITS
from ..compiler.limits import _LEGAL as _LEGAL_SHAPES
from ..compiler.limits import block_shape as _check_block_shape
from . import dtypes as T
from . import kinds
from .addresses import pointed_at
from .numerics import _widen, fp16_values
from .program import _CURRENT, Divergence, current
from .view import Base, View, lines_of_outer


class constexpr:
    """Annotation for compile-time parameters (``BLOCK_SIZE: tl.constexpr``); also wraps a value."""

    def __init__(self, value=None):
        self.value = value.value if isinstance(value, constexpr) else value

    def __repr__(self) -> str:
        return f"constexpr[{self.value!r}]"


def _operand(x, values: bool = True):
    """``(data, dtype, shape, is_literal)`` of a block or a Python/numpy number (a block's data None
    unless ``values``)."""
    if isinstance(x, tensor):
        if x._ld is not None:
            waited(x)
        return (x.data if values else None), x.dtype, x._shape, False
    if isinstance(x, constexpr):
        x = x.value
    if isinstance(x, (bool, int, float, np.generic)):
        return x, T.of_python(x), (), True
    raise TypeError(_("unsupported operand of type {type} in a Triton expression").format(
        type=type(x).__name__))


def _cast(data, src: T.dtype, dst: T.dtype, literal: bool):
    if literal:  # (a float into an integer type saturates; a Python int out of range raises, as numpy's)
        return cvt.astype(data, dst.np) if isinstance(data, (float, np.floating)) else np.asarray(data, dst.np)
    return data if src.np == dst.np else cvt.astype(data, dst.np)


def _align(data, shape: tuple, nd: int, literal: bool):
    """Insert size-1 axes after the program axis so a rank-``len(shape)`` block broadcasts to rank ``nd``."""
    if literal or len(shape) == nd:
        return data
    return data.reshape((data.shape[0],) + (1,) * (nd - len(shape)) + shape)


def _block_operand(data, t: T.dtype, shape: tuple, ct: T.dtype, nd: int):
    """``_align(_cast(data, t, ct, False), shape, nd, False)`` of a block operand of a binary operation, calling
    neither where it changes nothing (a block already of type ``ct`` and of rank ``nd``, the commonest)."""
    if t is not ct:
        data = _cast(data, t, ct, False)
    return data if len(shape) == nd else _align(data, shape, nd, False)


def broadcast_shape(a: tuple, b: tuple) -> tuple:
    """The block shape two operands broadcast to (numpy's rule, which Triton follows)."""
    if a == b or not b:
        return a
    if not a:
        return b
    if len(a) == len(b):  # numpy's rule on blocks of one rank, without its call (a tl.where, a row times a column)
        out = tuple(x if y == 1 or x == y else y if x == 1 else -1 for x, y in zip(a, b))
        if -1 not in out:
            return out
    try:
        return np.broadcast_shapes(a, b)
    except ValueError:
        raise ValueError(_("Cannot broadcast, the block shapes {a} and {b} are incompatible").format(
            a=list(a), b=list(b))) from None


def facts(x, shape: tuple | None = None) -> A.AxisInfo:
    """What Triton's axis analysis knows of ``x`` (:mod:`kernellab.triton.compiler.axis`), made ``shape`` (a
    block's own shape when None): a block's facts, a Python or numpy integer's constant, else nothing."""
    if isinstance(x, tensor):
        info = x._ax if x._ax is not None else A.unknown(len(x._shape))
        own = x._shape
    else:
        v = getattr(x, "value", x)
        if isinstance(v, (bool, int, np.integer)):
            info = A.constant(int(v))
        else:
            info = A.UNKNOWN_SCALAR
        own = ()
    if shape is None:
        return info
    shape = shape if shape.__class__ is tuple else tuple(shape)
    # (A.to_shape gives ``info`` itself for its own shape or a scalar's: the facts as they are, without the lookup)
    return info if not shape or shape == own else A.to_shape(info, own, shape)


def _binary_facts(a, b, op: str, shape: tuple):
    """The facts of ``a op b`` on integers (None when Triton's analysis does not follow ``op``)."""
    if op == "maximum" or op == "minimum":
        return A.minmax(op[:3], facts(a, shape), facts(b, shape))
    if op not in _AXIS_OPS:
        return None
    return A.binary(op, facts(a, shape), facts(b, shape), shape)


_AXIS_OPS = frozenset(("+", "-", "*", "//", "%", "<", "<=", ">", ">=", "==", "!=", "&", "|", "^", "<<", ">>"))


def layout_of(out, *sources):
    """Give ``out`` the layout of the first of ``sources`` of its own shape that has one (Triton's
    layout propagation: an elementwise result takes its operands' layout); returns ``out``. (It reads shapes
    as ``_shp``: looking after the operation is no use of its operands, :mod:`kernellab.triton.executor.liveness`.)"""
    for x in sources:
        lay = getattr(x, "_lay", None)
        if lay is not None and x._shp == out._shp:
            out._lay = lay
            break
    else:
        return out
    for x in sources:  # a small load broadcast into it is loaded again under its layout (see _remat)
        lay = getattr(x, "_lay", None)
        if lay is not None and lay[0] == "expand" and x._shp != out._shp:
            _remat(lay, out._lay)
    return out


def _remat(expanded, lay):
    """A 1-D load broadcast (``s[None, :]``) into a block of layout tag ``lay``: Triton's layout pass
    reloads a load of fewer elements than the program has threads in the consumer's layout, sliced,
    rather than convert it (``isExpensiveLoadOrStore``); the tally counts its instructions so
    (:meth:`kernellab.triton.executor.counts.Tally.remat`)."""
    load = expanded[1]
    prog = _CURRENT.get()
    if prog is None or load.__class__ is not tuple or load[0] != "load" or len(load[1][2]) != 1:
        return
    if load[1][2][0] < 32 * prog.num_warps:
        prog.tally.remat(load, lay, expanded[2], prog.num_warps, prog.P)


def _binary(a, b, fn, op: str, *, div=False, result=None, ints_only=False, compute=None):
    out = _binary_values(a, b, fn, op, div=div, result=result, ints_only=ints_only, compute=compute)
    # (an operand that is not a block is a Python or numpy number, with neither attribute)
    ta, tb = isinstance(a, tensor), isinstance(b, tensor)
    if ta and a._dep or tb and b._dep:
        out._dep = True
        if op in _FLOP_OPS and out.dtype.is_floating():
            dependent(out._shape, 1, op == "/" and out.dtype is T.float32)
    if ta and a._lay is not None or tb and b._lay is not None:
        layout_of(out, a, b)
    if out.dtype.is_int() and (op not in _CMP_OPS or _int_operands(a, b)):
        out._ax = _binary_facts(a, b, op, out._shape)
    return out


_CMP_OPS = frozenset(("<", "<=", ">", ">=", "==", "!="))


def _int_operands(a, b) -> bool:
    """Whether both operands of a comparison are integers (Triton's ``arith.cmpi``; floats compare by
    ``arith.cmpf``, which the analysis does not follow)."""
    for x in (a, b):
        if isinstance(x, tensor):
            if not x.dtype.is_int():
                return False
        elif not isinstance(getattr(x, "value", x), (bool, int, np.integer)):
            return False
    return True


def _binary_values(a, b, fn, op: str, *, div=False, result=None, ints_only=False, compute=None):
    # _operand(a, values=False) and _operand(b, values=False), a block's written out (the commonest operand)
    if isinstance(a, tensor):
        if a._ld is not None:
            waited(a)
        ad, at, ash, alit = None, a.dtype, a._shape, False
    else:
        ad, at, ash, alit = _operand(a, values=False)
    if isinstance(b, tensor):
        if b._ld is not None:
            waited(b)
        bd, bt, bsh, blit = None, b.dtype, b._shape, False
    else:
        bd, bt, bsh, blit = _operand(b, values=False)
    if isinstance(at, T.pointer_type) or isinstance(bt, T.pointer_type):
        raise TypeError(_("unsupported operand types for {op}: {at} and {bt}").format(op=op, at=at, bt=bt))
    ct = T.computation_type(at, not ash, bt, not bsh, div)
    if compute is not None:
        ct = compute(ct)
    if ints_only and ct.is_floating():
        raise TypeError(_("unexpected type {ct} for {op}: it needs integers").format(ct=ct, op=op))
    shape = ash if ash == bsh or not bsh else broadcast_shape(ash, bsh)  # (broadcast_shape's own first test)
    nd = len(shape)
    if op in _STRUCTURED_OPS and ct.is_int() and _structured():  # an optimisation: see _affine_sum, _prefix_mask
        out = (_affine_sum if op == "+" else _prefix_mask)(a, b, op, ct, shape)
        if out is not None:
            return out
    x = _cast(ad, at, ct, True) if alit else _block_operand(a.data if ad is None else ad, at, ash, ct, nd)
    y = _cast(bd, bt, ct, True) if blit else _block_operand(b.data if bd is None else bd, bt, bsh, ct, nd)
    rt = result or ct
    if op in _FLOP_OPS and rt.is_floating():
        count_flops(shape)
        if op == "/" and rt is T.float32:  # div.full.f32: a MUFU.RCP and multiplies
            count_special(shape)
    if rt.__class__ is T.float_format:  # bfloat16 / float8 arithmetic rounds its fp32 result
        return tensor(rt.round(fn(x, y)), rt, shape)
    # computed when read; tl.store of it writes it straight into the array (an optimisation: see _into)
    out = tensor(None, rt, shape)
    # (an operand below _ELIDE_MIN elements is never written into: then _elided's checks would change nothing)
    out._lazy = _elided(fn, x, y) if fn in _IN_PLACE and (x.size >= _ELIDE_MIN or y.size >= _ELIDE_MIN) \
        else lambda: fn(x, y)
    if isinstance(fn, np.ufunc):
        out._into = (lambda dst, k=None: fn(_lanes(x, k), _lanes(y, k), out=dst)), (x, y)
    if op == "+" and nd == 2 and ct.is_int() and _outer_shapes(x, y, shape) and _structured():  # a tile's offsets
        known, lines = lines_of_outer(x, y, ct)
        if lines is not None:  # its lines from its two sides (no sum wraps around); its offsets built only if read
            out._view = View(Base.outer(x, y, lines))
        elif known:  # no lines: its offsets are its values, as computed (in ``ct``, wrapping where they do)
            out._view = View(Base(make=lambda: out.data.astype(np.int64, copy=False), rows=max(x.shape[0], y.shape[0]),
                                  shape=shape, starts=None, lines=None))
    return out


def _outer_shapes(x, y, shape: tuple) -> bool:
    """Whether ``x + y`` is an outer sum of a column ``(rows, d0, 1)`` and a row ``(rows, 1, d1)`` (both
    sides longer than 1): ``rows[:, None] * stride + cols[None, :]``."""
    if getattr(x, "ndim", 0) != 3 or getattr(y, "ndim", 0) != 3 or shape[0] < 2 or shape[1] < 2:
        return False
    pair = {x.shape[1:], y.shape[1:]}
    return pair == {(shape[0], 1), (1, shape[1])}


_FLOP_OPS = frozenset(("+", "-", "*", "/", "fdiv", "div_rn", "fma"))  # one FLOP per element (tl.fma: two ops)


# --- an optimisation: numpy's temporary elision, for the lazy values above ----------------------------
# ``0.5 * x * (1 + t)`` in a kernel makes a temporary block per operator. numpy reuses a temporary's
# memory for the next operator's result when nothing else holds it (its reference count says so); a
# lazy value's operands are held by its closure, so numpy cannot see that. ``_elided`` looks itself:
# when an operand array is held by the closure alone (no tensor, view, store or journal holds it), owns
# its memory, is writeable and large, and the other operand has its dtype and broadcasts to its shape,
# the ufunc writes into it. Elementwise ufuncs give the same values with ``out=`` one of their inputs.

_IN_PLACE = frozenset((np.add, np.subtract, np.multiply, np.true_divide, np.maximum, np.minimum))
_ELIDE_MIN = 1 << 14  # elements: below this a new array costs less than the checks


def _probe():
    held = np.empty(2)

    def count():
        return sys.getrefcount(held)

    return count


# the reference count of an array only a closure holds, read from inside the closure; -1 (never equal)
# where reference counts are not the plain ones (a free-threaded build)
_SOLE = _probe()() if getattr(sys, "_is_gil_enabled", lambda: True)() else -1


def _reusable(a, other, fn) -> bool:
    """Whether ``fn(a, other)`` (or ``fn(other, a)``) may be written into ``a``: ``a`` owns its memory, is
    writeable and large, ``other`` has its dtype (the result's, for these ufuncs; ``/`` of floats only) and
    broadcasts to its shape."""
    return (a.__class__ is np.ndarray and a.base is None and a.size >= _ELIDE_MIN and a.flags.writeable
            and a.dtype == other.dtype and (fn is not np.true_divide or a.dtype.kind == "f")
            and (other.ndim == 0 or other.shape == a.shape or np.broadcast_shapes(a.shape, other.shape) == a.shape))


def _elided(fn, x, y):
    """``fn(x, y)`` when called, written into ``x`` or ``y`` where that operand is a temporary only this
    closure holds (see above)."""

    def compute():
        if sys.getrefcount(x) == _SOLE and _reusable(x, y, fn):
            return fn(x, y, out=x)
        if sys.getrefcount(y) == _SOLE and _reusable(y, x, fn):
            return fn(x, y, out=y)
        return fn(x, y)

    return compute


_STRUCTURED_OPS = frozenset(("+", "<", "<="))


def _structured() -> bool:
    """Whether the running launch's policy keeps offsets and masks by their structure (outside a launch: yes)."""
    prog = _CURRENT.get()
    return prog is None or prog.policy.structured


# --- an optimisation: offsets and masks kept by their structure, their values built only when read ----
# ``pid * BLOCK + tl.arange(0, BLOCK)`` is a row start per program plus a block every program shares, and
# ``offs < n`` keeps a prefix of each program's lanes. Kept that way (a View, ``_view``), the memory layer
# loads and stores such blocks as slices and counts them in closed form; anything else that reads ``.data``
# gets exactly the values the plain computation would have given.


@cache
def _int_range(dt: T.dtype) -> tuple[int, int]:
    info = np.iinfo(dt.np)
    return int(info.min), int(info.max)


def offsets_view(t: tensor) -> View | None:
    """The View of an integer block's values, kept by ``t`` (made from its values, once, when it has none); None
    for a block of another type, or a mask."""
    v = t._view
    if v is None:
        if t.dtype.__class__ is T.pointer_type or not t.dtype.is_int() or t.dtype is T.int1:
            return None
        v = t._view = View(Base.of(t.data.astype(np.int64, copy=False)))
    return v if v.keep is None else None


def _affine_sum(a, b, op: str, ct: T.dtype, shape: tuple):
    """``a + b`` as a lazy block when one operand is a scalar per program and the other a block every
    program shares (``pid * BLOCK + tl.arange(0, BLOCK)``), or a Python int and a block kept as a View
    (``start + tl.arange(0, BLOCK)`` in a loop); None otherwise."""
    if not (isinstance(a, tensor) and isinstance(b, tensor)):
        return _moved_by(a, b, ct, shape)
    row, block = (a, b) if not a._shape else (b, a)
    if row._shape or not block._shape or not row.dtype.is_int() or not block.dtype.is_int():
        return None
    v = block._view
    if v is not None and (v.shift.__class__ is np.ndarray or v.keep is not None):
        return None
    if _rows_of(block) != 1:
        return None
    v = offsets_view(block)
    lo, hi = v.extremes()
    rows = row.data
    r = rows.astype(np.int64)
    r.flags.writeable = False  # shared: the row starts of every pointer moved by this block
    tmin, tmax = _int_range(ct)
    rlo, rhi = (int(r[0]),) * 2 if r.shape == (1,) else (int(r.min()), int(r.max()))
    if rlo + lo < tmin or rhi + hi > tmax:  # it may wrap around: compute it plainly
        return None
    nd = len(shape)
    x = _align(_cast(a.data, a.dtype, ct, False), a._shape, nd, False)
    y = _align(_cast(b.data, b.dtype, ct, False), b._shape, nd, False)
    out = tensor(None, ct, shape)
    out._lazy = lambda: np.add(x, y)
    out._view = v.moved(r)
    return out


def _moved_by(a, b, ct: T.dtype, shape: tuple):
    """``a + b`` of a Python int and an integer block kept as a View, as that View moved by the int (its values
    computed when read); None when the block has no View or the sum may wrap around in ``ct``."""
    block, c = (a, b) if isinstance(a, tensor) else (b, a)
    if not isinstance(block, tensor) or c.__class__ is not int or block._shape != shape or not block.dtype.is_int():
        return None
    v = block._view
    if v is None or v.keep is not None:
        return None
    lo, hi = v.extremes()
    tmin, tmax = _int_range(ct)
    if lo + c < tmin or hi + c > tmax:
        return None
    cv = np.asarray(c, ct.np)
    out = tensor(None, ct, shape)
    out._lazy = lambda: np.add(_cast(block.data, block.dtype, ct, False), cv)
    out._view = v.moved(c)
    return out


def _prefix_mask(a, b, op: str, ct: T.dtype, shape: tuple):
    """``offs < n`` (or ``<=``) as a lazy mask that keeps the first ``k`` lanes of each program's block,
    when ``offs`` is consecutive in every program (row-major) and ``n`` a scalar; None otherwise."""
    if not isinstance(a, tensor) or not a._shape or a.dtype.__class__ is T.pointer_type:
        return None
    if isinstance(b, tensor):
        if b._shape or not b.dtype.is_int():
            return None
        bound = b.data if b.data.dtype == np.int64 else b.data.astype(np.int64)
    elif isinstance(b, (int, np.integer)) and not isinstance(b, bool):
        bound = np.array([int(b)], np.int64)
    else:
        return None
    v = a._view
    if v is None and (len(a._shape) != 1 or a.data.shape[0] != 1):  # a 1-D block every program shares: looked at
        return None
    v = offsets_view(a)
    if v is None or v.base.rows != 1:
        return None
    first = v.base.starts
    if first is None:
        return None
    start = int(first[0])
    rows = v.shift if v.shift.__class__ is np.ndarray else np.array([v.shift], np.int64)
    lanes = 1
    for d in shape:
        lanes *= d
    if bound.shape == rows.shape == (1,):  # one row: the same in Python ints
        k = int(bound[0]) - (int(rows[0]) + start) + (op != "<")
        k = np.array([min(max(k, 0), lanes)], np.int64)
    else:
        k = bound - (rows + start) if op == "<" else bound - (rows + start) + 1
        k = np.minimum(np.maximum(k, 0, out=k), lanes, out=k)
    k.flags.writeable = False  # shared by every access under this mask
    out = tensor(None, T.int1, shape)
    out._lazy = lambda: np.arange(lanes).reshape((1, *shape)) < k.reshape((-1,) + (1,) * len(shape))
    out._view = View(v.base, v.shift, k)  # the offsets it compares, and the lanes it keeps
    return out


def _lanes(a, k: int | None):
    """An operand of a 1-D block (``(rows, lanes)``, or broadcasting) cut to its first ``k`` lanes (None: all)."""
    return a if k is None or a.ndim < 2 or a.shape[-1] == 1 else a[..., :k]


def count_flops(shape: tuple, per_element: int = 1):
    """Count ``per_element`` FLOPs for every element of a ``shape`` block, in every program of the step."""
    prog = _CURRENT.get()
    if prog is not None:
        n = per_element * prog.P
        for d in shape:
            n *= d
        prog.tally.arith(n)


def count_special(shape: tuple):
    """Count the MUFU warp instructions of one special function on a ``shape`` block, in every program of
    the step: each thread computes its elements, ``num_warps × ⌈elements ÷ (32 × num_warps)⌉`` a program."""
    prog = _CURRENT.get()
    if prog is not None:
        n = 1
        for d in shape:
            n *= d
        w = prog.num_warps
        prog.tally.special(prog.P * w * -(-n // (32 * w)))


def _truediv_type(ct: T.dtype) -> T.dtype:
    return T.float32 if ct.is_int() else ct


def _c_floordiv(x, y):
    """Integer division truncating toward zero, as C and Triton (numpy's ``//`` floors)."""
    r = np.fmod(x, y)
    return np.floor_divide(x - r, y)


def _floordiv(a, b):
    return _binary(a, b, _c_floordiv, "//", div=True, ints_only=True)


class tensor:
    """A block (or scalar) value of a Triton program: ``shape``, ``dtype`` and per-program ``data``.

    Examples
    --------
    >>> x = tensor(np.arange(4, dtype=np.int32)[None], T.int32, (4,))
    >>> y = -7 // (x + 1)                       # C division: -7 // 2 == -3
    >>> y.shape, y.dtype, y.data[0].tolist()
    ([4], triton.language.int32, [-7, -3, -2, -1])
    >>> ((x + 0.5) * 2).dtype, (x < 2).dtype
    (triton.language.fp32, triton.language.int1)
    """

    # ``_loaded``: True on a tl.load's result itself, "hoist" on one computed from it by bitcasts and
    # widening casts only (tl.dot's operand conversion is hoisted through them), "trans" on its 2-D transpose
    # (tl.trans: a pipelined copy is read through a transposed view, ttg.memdesc_trans); unset on every other block
    __slots__ = ("_data", "dtype", "_shp", "_lazy", "_view", "_into", "_ax", "_lay", "_wide", "_loaded", "_ld",
                 "_dep", "_lv", "_li", "_tma", "__weakref__")
    __array_ufunc__ = None  # numpy defers to the reflected operators; np.exp(block) is a TypeError, as in Triton
    __hash__ = object.__hash__

    def __init__(self, data: np.ndarray | None, dtype: T.dtype, shape: tuple):
        self._data = data
        self.dtype = dtype
        self._shp = shape = tuple(shape)
        if shape not in _LEGAL_SHAPES:  # in a @triton.jit kernel: a power of two a dimension, 2^20 at most
            _check_block_shape(shape)
        # a floating-point value's span in the running step's registers (kernellab.triton.executor.liveness)
        prog = _CURRENT.get() if dtype.kind == T.FLOAT else None
        if prog is None:
            self._lv = None
        else:
            self._lv = live = prog.live
            self._li = live.born(shape, dtype.primitive_bitwidth)
        self._lazy = None  # makes ``data`` when it is None (a block kept by its structure, see _affine_sum)
        # its structure (kernellab.triton.executor.view): an integer block's values (data == view's offsets), or
        # for a mask the View of the offsets it compares with the lanes it keeps (keep); None: none known
        self._view = None
        # (write, operands): ``write(dst)`` computes the values into ``dst`` (of the full broadcast shape,
        # dtype ``dtype.np``) reading only the arrays ``operands``, ``write(dst, k)`` the first k lanes of
        # a 1-D block into ``dst`` of shape (rows, k); for a value not yet computed
        self._into = None
        self._ax = None  # what Triton's axis analysis knows of it (kernellab.triton.compiler.axis); None: nothing
        self._lay = None  # where its layout comes from (kernellab.triton.compiler.convert.resolve); None: not followed
        self._wide = None  # an fp16 block's values as float32 (or a function making them), for tl.dot
        self._ld = None  # a loaded block: (its step, the step's epoch when loaded), see kernellab.triton.executor.rounds
        self._dep = False  # computed from a tl.dot's result (kernellab.triton.executor.rounds.dependent)
        self._tma = None  # a desc.load's tile: (its ld.shared a thread on sm_90, its line); kernellab.triton.language.tma

    @property
    def _shape(self) -> tuple:
        """The block shape, as a tuple: every operation that takes the value reads it, which marks a use of the
        value (its last use so far, :mod:`kernellab.triton.executor.liveness`)."""
        live = self._lv
        if live is not None:
            lasts = live.lasts
            lasts[self._li] = len(lasts)  # the step's clock: values made so far
        return self._shp

    @property
    @kinds.host  # (a block's values handed to Python as numpy)
    def data(self) -> np.ndarray:
        """The values, ``(rows, *shape)``: built on first use for a block kept by its structure."""
        d = self._data
        if d is None:
            lazy = self._lazy
            self._lazy = self._into = None  # let go of the operands (before computing: see _elided)
            try:
                d = self._data = lazy()
            except BaseException:
                self._lazy = lazy
                raise
        return d

    @data.setter
    def data(self, value: np.ndarray):
        self._data = value

    def _like(self, data, shape):
        out = tensor(data, self.dtype, shape)
        if self._lay is not None and tuple(shape) == self._shape:
            out._lay = self._lay
        out._dep = self._dep
        return out

    @property
    def shape(self) -> list:
        """The block shape, as a list (Triton's ``tensor.shape``)."""
        return list(self._shape)

    @property
    def numel(self) -> int:
        return int(math.prod(self._shape))

    @property
    def type(self):
        return self.dtype

    # --- single values for Python control flow -------------------------------------------------
    def _item(self, what: str):
        if self._shape:
            what = {"truth value": _("truth value"), "index": _("index"), "value": _("value")}.get(what, what)
            raise TypeError(_("a block of shape {shape} has no single {what}; use tl.where, or "
                              "reduce it with tl.max / tl.sum first").format(
                shape=list(self._shape), what=what))
        d = self.data
        if d.shape[0] > 1 and (d != d[0]).any():  # each program's truth value, or its value's bits
            raise Divergence(d != 0 if what == "truth value" else d)
        return d[0].item()

    @kinds.host
    def __bool__(self):
        return bool(self._item("truth value"))

    @kinds.host
    def __index__(self):
        if not self.dtype.is_int():
            raise TypeError(_("a {dtype} value cannot be used as an index").format(dtype=self.dtype))
        return int(self._item("index"))

    @kinds.host
    def __int__(self):
        return int(self._item("value"))

    @kinds.host
    def __float__(self):
        return float(self._item("value"))

    @kinds.host
    def __iter__(self):
        raise TypeError(_("a Triton block cannot be iterated over; use tl.static_range over indices"))

    @kinds.host
    def __repr__(self) -> str:
        body = self.data[0] if self.data.shape[0] == 1 else self.data
        return f"tensor({body!r}, shape={list(self._shape)}, dtype={self.dtype})"

    @kinds.host
    def __str__(self) -> str:
        """The values, as ``print(x)`` in a kernel shows them (one program: ``0``, ``[0 1 2 3]``)."""
        return str(self.data[0]) if self.data.shape[0] == 1 else repr(self)

    # --- arithmetic -----------------------------------------------------------------------------
    @kinds.pure
    def __add__(self, o):
        return _binary(self, o, np.add, "+")

    @kinds.pure
    def __radd__(self, o):
        return _binary(o, self, np.add, "+")

    @kinds.pure
    def __sub__(self, o):
        return _binary(self, o, np.subtract, "-")

    @kinds.pure
    def __rsub__(self, o):
        return _binary(o, self, np.subtract, "-")

    @kinds.pure
    def __mul__(self, o):
        return _binary(self, o, np.multiply, "*")

    @kinds.pure
    def __rmul__(self, o):
        return _binary(o, self, np.multiply, "*")

    @kinds.pure
    def __truediv__(self, o):
        return _binary(self, o, np.true_divide, "/", div=True, compute=_truediv_type)

    @kinds.pure
    def __rtruediv__(self, o):
        return _binary(o, self, np.true_divide, "/", div=True, compute=_truediv_type)

    @kinds.pure
    def __floordiv__(self, o):
        return _floordiv(self, o)

    @kinds.pure
    def __rfloordiv__(self, o):
        return _floordiv(o, self)

    @kinds.pure
    def __mod__(self, o):
        return _binary(self, o, np.fmod, "%", div=True)

    @kinds.pure
    def __rmod__(self, o):
        return _binary(o, self, np.fmod, "%", div=True)

    @kinds.pure
    def __and__(self, o):
        return _binary(self, o, np.bitwise_and, "&", ints_only=True)

    @kinds.pure
    def __rand__(self, o):
        return _binary(o, self, np.bitwise_and, "&", ints_only=True)

    @kinds.pure
    def __or__(self, o):
        return _binary(self, o, np.bitwise_or, "|", ints_only=True)

    @kinds.pure
    def __ror__(self, o):
        return _binary(o, self, np.bitwise_or, "|", ints_only=True)

    @kinds.pure
    def __xor__(self, o):
        return _binary(self, o, np.bitwise_xor, "^", ints_only=True)

    @kinds.pure
    def __rxor__(self, o):
        return _binary(o, self, np.bitwise_xor, "^", ints_only=True)

    @kinds.pure
    def __lshift__(self, o):
        return _binary(self, o, np.left_shift, "<<", ints_only=True)

    @kinds.pure
    def __rshift__(self, o):
        return _binary(self, o, np.right_shift, ">>", ints_only=True)

    @kinds.pure
    def __lt__(self, o):
        return _binary(self, o, np.less, "<", result=T.int1)

    @kinds.pure
    def __le__(self, o):
        return _binary(self, o, np.less_equal, "<=", result=T.int1)

    @kinds.pure
    def __gt__(self, o):
        return _binary(self, o, np.greater, ">", result=T.int1)

    @kinds.pure
    def __ge__(self, o):
        return _binary(self, o, np.greater_equal, ">=", result=T.int1)

    @kinds.pure
    def __eq__(self, o):
        return _binary(self, o, np.equal, "==", result=T.int1)

    @kinds.pure
    def __ne__(self, o):
        return _binary(self, o, np.not_equal, "!=", result=T.int1)

    @kinds.pure
    def __neg__(self):
        return self._like(np.negative(self.data), self._shape)

    @kinds.pure
    def __pos__(self):
        return self

    @kinds.pure
    def __invert__(self):
        if self.dtype.is_floating():
            raise TypeError(_("unexpected type {dtype} for ~").format(dtype=self.dtype))
        return self._like(np.invert(self.data), self._shape)

    @kinds.pure
    def __abs__(self):
        return self._like(np.abs(self.data), self._shape)

    # --- shape ----------------------------------------------------------------------------------
    @kinds.pure
    def __getitem__(self, key):
        """``x[:, None]``, ``x[None, :]``: insert size-1 axes (Triton allows only ``None`` and ``:``)."""
        key = key if isinstance(key, tuple) else (key,)
        idx, shape, dims = [slice(None)], [], list(self._shape)
        for k in key:
            if k is None:
                idx.append(None)
                shape.append(1)
            elif isinstance(k, slice) and k == slice(None) and dims:
                idx.append(k)
                shape.append(dims.pop(0))
            else:
                raise TypeError(_("Triton blocks are indexed only with None and ':', got {k!r} "
                                  "for a block of shape {shape}").format(
                    k=k, shape=list(self._shape)))
        out = self._like(self.data[tuple(idx)], (*shape, *dims))
        if self._lay is not None:
            lay = self._lay
            for i, k in enumerate(key):
                if k is None:
                    lay = ("expand", lay, i)
            out._lay = lay
        if self._ax is not None:  # each None: tl.expand_dims at its place
            info = self._ax
            for i, k in enumerate(key):
                if k is None:
                    info = A.expand_dims(info, i)
            out._ax = info
        return out

    @kinds.pure
    def to(self, dtype, fp_downcast_rounding=None, bitcast: bool = False):
        """Convert to another element type.

        ``bitcast=True`` reinterprets the bits; ``fp_downcast_rounding`` (``"rtne"``, the default, or
        ``"rtz"``) rounds a float converted to a narrower float.
        """
        if isinstance(getattr(dtype, "value", dtype), T.pointer_type):  # int64 addresses → a pointer block
            elem = getattr(dtype, "value", dtype).element_ty
            flat, offsets = pointed_at(self, elem, current())
            return pointer(flat, offsets, self._shape, elem=elem)
        dst = T.from_numpy(getattr(dtype, "value", dtype))
        if bitcast:
            out = bitcast_data(self, dst)
            out._ld = self._ld  # the same registers: not a use (kernellab.triton.executor.rounds)
            out._dep = self._dep
            return out
        if self.dtype is T.float32 and dst is T.float16 and fp_downcast_rounding in (None, "rtne") \
                and self.numel >= _FP16_VALUES_FROM:  # each form made only if read: see _half
            out = tensor(None, dst, self._shape)
            out._lazy, out._wide = _half(self.data)
        elif dst.__class__ is T.float_format and self.dtype is T.float32 and self.numel >= _FP16_VALUES_FROM \
                and fp_downcast_rounding in (None, "rtne", "rtz"):  # fp8 / bf16: rounded only if read
            out = tensor(None, dst, self._shape)
            out._lazy = _rounded(self.data, dst, fp_downcast_rounding or "rtne")
        else:
            out = tensor(convert(self.data, self.dtype, dst, fp_downcast_rounding), dst, self._shape)
        out._lay = self._lay
        _cast_from_load(self, out)
        out._ld = self._ld  # converted where it is used, as the compiler places the cvt (kernellab.triton.executor.rounds)
        out._dep = self._dep
        if self.dtype.is_int() and dst.is_int():  # extsi / trunci: the analysis passes the facts through
            out._ax = self._ax
        return out

    @property
    def T(self):
        """The block transposed (``x.T`` is ``tl.trans(x)``)."""
        return self.trans()


_LIMITS.BLOCK_TYPES.append(tensor)  # what Triton 3.9 refuses is checked on blocks of this class


def _tensor_member_fn(fn):
    """Make the free function ``fn`` a method of :class:`tensor` as well, as Triton's core does.

    Each function marks itself (``x.exp()`` is ``tl.exp(x)``), so this class never imports the modules
    that define them.

    Examples
    --------
    >>> @_tensor_member_fn
    ... def twice(input):
    ...     return input + input
    >>> twice(tensor(np.ones((1, 2), np.float32), T.float32, (2,))).data.tolist()
    [[2.0, 2.0]]
    >>> tensor(np.ones((1, 2), np.float32), T.float32, (2,)).twice().data.tolist()
    [[2.0, 2.0]]
    >>> del tensor.twice
    """
    setattr(tensor, fn.__name__, fn)  # a plain function is a method: the block is its first argument
    return fn


def _half(src: np.ndarray):
    """``(half, wide)`` for ``src.to(tl.float16)``: functions giving the float16 array (what a store writes)
    and its values as float32 (what a ``tl.dot`` reads, through ``numerics.fp16_values`` unless the float16
    array is made already), so that a block only stored or only dotted is converted once."""
    made = []

    def half():
        if not made:
            made.append(src.astype(np.float16))
        return made[0]

    def wide():
        w = None if made else fp16_values(src)
        return _widen(half()) if w is None else w

    half.rows = src.shape[0]  # the programs it has rows for, known without making it (a sampled tl.dot's shape)
    return half, wide


def _rounded(src: np.ndarray, dst: T.dtype, rounding: str):
    """A function giving ``src`` (float32) rounded to the 8-bit float or bfloat16 ``dst`` (``convert``), made
    when first read: a sampled launch's ``tl.dot`` (:mod:`kernellab.triton.executor.sampling`) reads only its
    ``rows``."""
    def rounded():
        return dst.round(src, rounding)

    rounded.rows = src.shape[0]
    return rounded


_FP16_VALUES_FROM = 4096  # lanes per program from which fp32 → fp16 goes through numerics.fp16_values


def convert(data: np.ndarray, src: T.dtype, dst: T.dtype, rounding=None) -> np.ndarray:
    """Values of type ``src`` converted to ``dst``, as Triton's ``.to``: floats to ints round toward zero
    and saturate, NaN giving 0 (PTX's ``cvt.rzi``, :mod:`kernellab.cvt`), floats to narrower floats
    round to nearest even (``rounding="rtz"``: toward zero).

    Examples
    --------
    >>> convert(np.float32([1/3]), T.float32, T.bfloat16).tolist(), convert(np.float32([1/3]), T.float32, T.bfloat16, "rtz").tolist()
    ([0.333984375], [0.33203125])
    >>> convert(np.float32([2049.0]), T.float32, T.float16, "rtz").tolist()    # 2049 lies between 2048 and 2050
    [2048.0]
    >>> convert(np.float32([np.nan, -1.0, 5e9]), T.float32, T.uint32).tolist()  # NaN 0, below 0 → 0, past 2^32 − 1
    [0, 0, 4294967295]
    """
    if rounding not in (None, "rtne", "rtz"):
        raise ValueError(_("fp_downcast_rounding must be 'rtne' or 'rtz', not {rounding!r}").format(
            rounding=rounding))
    if dst.__class__ is T.float_format:
        if src is dst:
            return data
        src_data = data if src.is_floating() else data.astype(np.float64)
        return dst.round(src_data, rounding or "rtne")
    out = data if src.np == dst.np else cvt.astype(data, dst.np)
    if rounding == "rtz" and src.is_floating() and dst.is_floating() and dst.np.itemsize < data.dtype.itemsize:
        wide = data.astype(np.float64)
        away = np.abs(out.astype(np.float64)) > np.abs(wide)
        if away.any():  # step back toward zero where round-to-nearest went away from it
            out = np.where(away & np.isfinite(wide), np.nextafter(out, np.zeros((), dst.np)), out)
            out = out.astype(dst.np)
    return out


def bitcast_data(x: tensor, dst: T.dtype) -> tensor:
    """The bits of ``x`` read as type ``dst`` of the same width (``tl.cast(x, dst, bitcast=True)``)."""
    if dst.primitive_bitwidth != x.dtype.primitive_bitwidth:
        raise ValueError(_("Cannot bitcast data-type of size {primitive_bitwidth} to data-type "
                           "of size {primitive_bitwidth2}").format(
            primitive_bitwidth=x.dtype.primitive_bitwidth, primitive_bitwidth2=dst.primitive_bitwidth))
    bits = x.dtype.encode(x.data) if x.dtype.__class__ is T.float_format else x.data
    if dst.__class__ is T.float_format:
        out = tensor(dst.decode(bits.view(dst.storage)), dst, x._shape)
    else:
        out = tensor(bits.view(dst.np), dst, x._shape)
    out._lay = x._lay  # a bitcast moves no data: the same layout
    _cast_from_load(x, out)
    return out


def _cast_from_load(x: tensor, out: tensor):
    """Mark ``out``, a bitcast or cast of ``x``, as computed from a load by casts (``_loaded = "hoist"``)
    where ``x`` is one and the cast does not narrow (Triton hoists a dot operand's conversion through
    bitcasts and widening casts, not through truncations); the same type: still the load's result."""
    src = getattr(x, "_loaded", False)
    if src and out.dtype.primitive_bitwidth >= x.dtype.primitive_bitwidth:
        out._loaded = src if out.dtype == x.dtype else "hoist"


@cache
def _pointer_type(np_dtype: np.dtype) -> T.pointer_type:
    return T.pointer_type(T.from_numpy(np_dtype))


@cache
def _pointer_to(elem: T.dtype) -> T.pointer_type:
    return T.pointer_type(elem)


class pointer(tensor):
    """A block of pointers into one array: int64 element offsets in ``data``, the array's flat view in ``flat``.

    ``ptr + offsets`` and ``ptr += step`` move it; ``tl.load`` / ``tl.store`` dereference it. ``view``: the
    structure of its offsets (:class:`~kernellab.triton.executor.view.View`), kept through its moves
    (``x_ptr + offs``, ``y_ptr + offs`` and ``a_ptrs += BLOCK_K`` share one base), or None.
    """

    __slots__ = ("flat", "view", "_address")
    _host = ("flat",)  # attributes holding the host's memory itself (the array): what a kernel's code that
    # reads them does leaves the language

    def __init__(self, flat: np.ndarray, data: np.ndarray | None, shape: tuple, view: View | None = None,
                 elem: T.dtype | None = None):
        super().__init__(data, _pointer_type(flat.dtype) if elem is None else _pointer_to(elem), shape)
        self.flat = flat
        self.view = view
        self._address = None  # a launch argument's: the address of ``flat``'s data (set by the launcher)

    def _like(self, data, shape):
        return pointer(self.flat, data, shape, elem=self.dtype.element_ty)

    def _lazy_moved(self, view: View, shape: tuple) -> pointer:
        """The pointers of ``view``, their values built only when read."""
        out = pointer(self.flat, None, shape, view, self.dtype.element_ty)
        out._lazy = lambda: view.lanes()[0]
        return out

    def _move(self, other, sign: int):
        out = self._moved(other, sign)
        shape = out._shape
        off = facts(other, shape)
        if sign < 0:
            off = A.add(A.constant(0, shape), off, shape, sub=True)
        out._ax = A.add(facts(self, shape), off, shape, elem_bytes=self.flat.itemsize)
        return out

    def _moved(self, other, sign: int):
        structured = _structured()
        if structured and sign > 0 and not self._shape and isinstance(other, tensor) and other._view is not None \
                and other._view.keep is None and other._view.shift.__class__ is np.ndarray:
            # base pointer(s) + a row start per program + a block every program shares: the base is the
            # block's, the shift one int per program
            v = other._view
            d = self.data
            if d.shape == (1,) and d[0] == 0:  # an argument's pointer: the shift is the row starts
                return self._lazy_moved(v, other._shape)
            return self._lazy_moved(v.moved(d.astype(np.int64).reshape(-1)), other._shape)
        od, ot, osh, olit = _operand(other, values=False)  # a block's values read only where needed
        if not ot.is_int() or isinstance(ot, T.pointer_type):
            raise TypeError(_("a pointer can be offset only by integers, not by {ot}").format(ot=ot))
        if od is None and not osh:
            od = other.data
        if not osh and (olit or od.shape[0] == 1):  # a shift every program shares
            s = sign * int(od if olit else od[0])
            if self.view is not None:
                return self._lazy_moved(self.view.moved(s), self._shape)
            view = View(Base.of(self.data), s) if structured else None
            return pointer(self.flat, self.data + s, self._shape, view, self.dtype.element_ty)
        if structured and sign > 0 and not self._shape and osh and (self.data.shape[0] == 1 or _rows_of(other) in (
                1, self.data.shape[0])) and (v := offsets_view(other)) is not None:
            # a base pointer, or one per program (a row start), + a block of offsets every program shares
            # or one block per program
            d = self.data
            if d.shape == (1,):
                base = int(d[0])
                if base == 0 and v.shift.__class__ is not np.ndarray and v.shift == 0 and v.base._lanes is not None:
                    return pointer(self.flat, v.base.lanes, osh, v, self.dtype.element_ty)
                return self._lazy_moved(v.moved(base), osh)
            return self._lazy_moved(v.moved(d.astype(np.int64).reshape(-1)), osh)
        shape = broadcast_shape(self._shape, osh)
        nd = len(shape)
        if od is None:
            od = other.data
        off = np.int64(od) if olit else od.astype(np.int64, copy=False)
        x = _align(self.data, self._shape, nd, False)
        y = _align(off, osh, nd, olit)
        if structured and nd == 2 and sign > 0 and _outer_shapes(x, y, shape):  # ``ptr + rows[:, None] * s + cols[None, :]``
            known, lines = lines_of_outer(x, y, None)
            if known:  # a base whose lines are known: its offsets built only when read
                return self._lazy_moved(View(Base.outer(x, y, lines)), shape)
        data = x + y if sign > 0 else x - y
        if structured and nd == 2:  # a tile (``ptr + rows[:, None] * stride + cols[None, :]``): to find its lines
            return pointer(self.flat, data, shape, View(Base.of(data)), self.dtype.element_ty)
        return pointer(self.flat, data, shape, elem=self.dtype.element_ty)

    @kinds.pure
    def __add__(self, o):
        return _offset_layout(self._move(o, 1), o)

    __radd__ = __add__

    @kinds.pure
    def __sub__(self, o):
        return _offset_layout(self._move(o, -1), o)

    @kinds.pure
    def __rsub__(self, o):
        raise TypeError(_("cannot subtract a pointer from a number"))

    @kinds.pure
    def __mul__(self, o):
        raise TypeError(_("cannot multiply a pointer"))

    __rmul__ = __truediv__ = __rtruediv__ = __floordiv__ = __mod__ = __mul__

    @kinds.pure
    def to(self, dtype, fp_downcast_rounding=None, bitcast: bool = False):
        """A pointer to another element type over the same bytes (``ptr.to(tl.pointer_type(tl.int32))``)."""
        dst = getattr(dtype, "value", dtype)
        if not isinstance(dst, T.pointer_type):
            raise TypeError(_("kernellab converts a pointer only to another pointer type"))
        elem = dst.element_ty
        width = elem.primitive_bitwidth // 8 if elem.__class__ is T.float_format else elem.np.itemsize
        if width != self.flat.itemsize:
            raise TypeError(_("kernellab cannot reinterpret a {dtype} as a {dst}: element sizes "
                              "differ").format(
                dtype=self.dtype, dst=dst))
        flat = self.flat.view(elem.storage if elem.__class__ is T.float_format else elem.np)
        out = pointer(flat, self.data, self._shape, elem=elem)
        out._ax = self._ax  # a bitcast: the analysis passes the facts through
        return out


def _offset_layout(out: pointer, offsets) -> pointer:
    """Pointers moved by offsets that have a layout (computed from loaded values: a histogram's bins)
    keep it, as Triton's IR does (an atomic or a store through them converts the pointers)."""
    lay = getattr(offsets, "_lay", None)
    if lay is not None and offsets._shape == out._shape:
        out._lay = lay
    return out


def _rows_of(t: tensor) -> int:
    """The rows (programs) of a block's values, without building them where its structure says."""
    if t._data is None and t._view is not None:
        return t._view.rows
    return t.data.shape[0]


from .rounds import dependent, waited  # noqa: E402  (it imports nothing of this module)
