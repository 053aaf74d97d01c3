"""Lane values held once for a batch of blocks, or once per block: ``blk.tx``, ``blk.bx`` and what is computed from them.

A :class:`~kernellab.Block` runs a batch of blocks at once: lane ``L`` of the batch is thread ``L mod lanes`` of
block ``L div lanes`` (``lanes``: a block's threads padded to whole warps). A value that depends on ``threadIdx``
and numbers alone is the same in every block of the batch, and one that depends on ``blockIdx`` alone is the same in
every lane of a block. :class:`Tiled` holds such a value once, as an array ``part`` of shape ``(blocks or 1, lanes or
1, …)``: the lanes' values are ``part`` broadcast to ``(blocks, lanes, …)`` and read as ``(blocks × lanes, …)``.

An optimisation (the reference spreads every index over the lanes: ``block.TILED = False``;
tests/test_fastpath_tiled.py runs random kernels both ways). It is exact by construction:

* an elementwise ufunc commutes with broadcasting, so one on held values is computed on their parts and held in turn
  (``tx * 4 + 1``, ``bx * bdx + tx``: the second differs in both, and is a plain lanes array). Only ufuncs whose
  results depend on their operands' values alone are computed so (:data:`EXACT_UFUNCS`: integer and logical
  operations, comparisons, and the IEEE operations that round once); float operands only where every array operand
  has the part's shape, so that numpy runs the loop the lanes arrays would get (a NaN's payload, which an IEEE
  operation on two NaNs may take from either, depends on it);
* it counts what the same ufunc on the lanes array counts (:mod:`kernellab.simt.lanes`);
* anything else (an index, a method, any other numpy function, an in-place operation, a write) turns the value for
  good into the lanes array it stands for (a :class:`~kernellab.simt.lanes.Lanes` where it counts, else a numpy
  array), which it forwards everything to from then on: views and writes behave as on that array.

The block's own operations (``blk.fma``, ``blk.fadd``, ``blk.fmul``, the special functions, a store's value) compute
on parts too, under the same rules (:func:`parts_of`); every access sees the lanes' addresses.

Examples
--------
>>> t = np.arange(4).reshape(1, 4)                           # threadIdx.x of a 4-lane block, in a batch of 3 blocks
>>> tx = Tiled(t, 3, 4)
>>> y = tx * 2 + 1                                           # computed on the 4 lanes of one block
>>> type(y).__name__, y.shape, y._part.tolist()
('Tiled', (12,), [[1, 3, 5, 7]])
>>> i = Tiled(np.arange(3).reshape(3, 1), 3, 4) * 4 + tx    # blockIdx.x · blockDim.x + threadIdx.x
>>> i._part.shape, i.tolist()                                # every lane's, computed in one pass
((3, 4), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
>>> y[5] = -1                                                # a write: y is its lanes array from now on
>>> type(y.full()).__name__, np.asarray(y).tolist()
('ndarray', [1, 3, 5, 7, 1, -1, 5, 7, 1, 3, 5, 7])
"""

from __future__ import annotations

import math

import numpy as np

from .lanes import HeldLanes, Lanes, count_ufunc, lanes

#: The ufuncs computed on the parts, those whose result for an element depends on its operands' values alone,
#: whatever the array's length, layout or the element's position (integer and logical operations, comparisons, the
#: IEEE 754 operations that round once and the exact ones). Transcendental functions are left out, as numpy may
#: compute them in vector code whose result for an element need not be the scalar code's; ``np.power`` is one of them
#: (libm's or SIMD ``pow``, not an operation that rounds once), so ``x ** y`` gives its lanes array.
EXACT_UFUNCS = frozenset({
    np.add, np.subtract, np.multiply, np.true_divide, np.floor_divide, np.remainder, np.fmod, np.divmod,
    np.negative, np.positive, np.absolute, np.fabs, np.sqrt, np.square, np.reciprocal, np.minimum, np.maximum,
    np.fmin, np.fmax, np.copysign, np.sign, np.floor, np.ceil, np.trunc, np.rint, np.signbit, np.isnan, np.isinf,
    np.isfinite, np.less, np.less_equal, np.greater, np.greater_equal, np.equal, np.not_equal, np.logical_and,
    np.logical_or, np.logical_xor, np.logical_not, np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.invert,
    np.left_shift, np.right_shift,
})
_SHAPE_FUNCTIONS = {np.shape: lambda v: v.shape, np.ndim: lambda v: v.ndim}


class Tiled(HeldLanes):
    """A lane value held as ``part`` (shape ``(blocks or 1, lanes or 1, …)``) for a batch of ``blocks`` blocks of
    ``lanes`` lanes (see the module). It acts as its lanes array: a numpy array of shape ``(blocks × lanes, …)``,
    counting as a :class:`~kernellab.simt.lanes.Lanes` into ``counter`` (None: a plain array) behind ``chain``.
    """

    __slots__ = ("_p", "_blocks", "_lanes", "_counter", "_chain", "_cache", "_full", "sum_of")
    __hash__ = None  # unhashable, as an array is

    def __init__(self, part: np.ndarray | None, blocks: int, lanes_: int, counter=None, chain: tuple = (0, 0),
                 sum_of: tuple | None = None):
        if part is not None:
            part.flags.writeable = False  # a new array, this value's alone: nothing writes to it, ever
        put = object.__setattr__
        put(self, "_p", part)  # None: the sum ``sum_of`` not added yet (see _part)
        put(self, "_blocks", blocks)
        put(self, "_lanes", lanes_)
        put(self, "_counter", counter)
        put(self, "_chain", chain)
        put(self, "_cache", None)  # the lanes' values, read-only, once the block needed them (expanded)
        put(self, "_full", None)  # the array this value has turned into, for good (full)
        put(self, "sum_of", sum_of)  # (a block's part, a lane's part) whose sum the part is, when made so (int64)

    @property
    def _part(self) -> np.ndarray | None:
        """The part (None once turned full); a sum (``sum_of``) is added when first asked for."""
        p = self._p
        if p is None and self._full is None:
            p = np.add(*self.sum_of)
            p.flags.writeable = False
            object.__setattr__(self, "_p", p)
        return p

    # --- what it is -------------------------------------------------------------------------------
    @property
    def shape(self) -> tuple:
        if self._full is not None:
            return self._full.shape
        return (self._blocks * self._lanes, *(self._p.shape[2:] if self._p is not None else ()))

    @property
    def dtype(self) -> np.dtype:
        if self._full is not None:
            return self._full.dtype
        return self._p.dtype if self._p is not None else self.sum_of[0].dtype

    @property
    def ndim(self) -> int:
        if self._full is not None:
            return self._full.ndim
        return self._p.ndim - 1 if self._p is not None else 1

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def __len__(self) -> int:
        return self.shape[0]

    @property
    def held(self) -> bool:
        """Whether the value is still held as its part (not turned into its lanes array)."""
        return self._full is None

    # --- its lanes array ------------------------------------------------------------------------
    def expanded(self) -> np.ndarray:
        """The lanes' values as a plain array. While the value is held it is read-only and never changes (nothing
        writes to it, and turning :meth:`full` copies it), so the block may keep it as it is (``immutable``)."""
        if self._full is not None:
            return self._full.view(np.ndarray)
        if self._cache is None:
            p = self._part
            if p.shape[0] == self._blocks and p.shape[1] == self._lanes:
                out = p  # already every lane's
            else:
                out = np.empty((self._blocks, self._lanes, *p.shape[2:]), p.dtype)
                out[...] = p
                out.flags.writeable = False
            self._cache = out
        return self._cache.reshape(self.shape)

    @property
    def immutable(self) -> bool:
        """Whether :meth:`expanded` gives an array that never changes (the value is still held)."""
        return self._full is None

    def _value(self):
        """The lanes array, read-only while held: as the block's lanes would be (a Lanes when it counts)."""
        if self._full is not None:
            return self._full
        return self.expanded() if self._counter is None else lanes(self.expanded(), self._counter, self._chain)

    def full(self):
        """Turn into the lanes array for good and return it (a writable Lanes, or numpy array)."""
        if self._full is None:
            arr = np.array(self.expanded(), copy=True)  # new memory: what the block kept of the held value stays
            self._full = arr if self._counter is None else lanes(arr, self._counter, self._chain)
            self._p = self._cache = None
        return self._full

    def __array__(self, dtype=None, copy=None):
        arr = self.full().view(np.ndarray)
        if dtype is not None and np.dtype(dtype) != arr.dtype:
            if copy is False:
                raise ValueError("Tiled.__array__: a copy is needed to change the dtype")
            return arr.astype(dtype)
        return arr.copy() if copy else arr

    # --- numpy's protocols ----------------------------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        if method == "__call__" and out is None and not kwargs and ufunc in EXACT_UFUNCS:
            if self._p is not None and self.sum_of is not None and self._full is None and all(
                    x is self or type(x) is not Tiled for x in inputs):  # a sum already added: its lanes array's ufunc
                return ufunc(*(self._value() if x is self else x for x in inputs))
            got = _held_ufunc(ufunc, inputs)
            if got is not None:
                return got
        if out is not None:  # written: turned for good
            kwargs["out"] = tuple(o.full() if type(o) is Tiled else o for o in out)
        kwargs = {k: (v._value() if type(v) is Tiled else v) for k, v in kwargs.items()}
        return getattr(ufunc, method)(*(x._value() if type(x) is Tiled else x for x in inputs), **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        if func in _SHAPE_FUNCTIONS and len(args) == 1 and not kwargs:
            return _SHAPE_FUNCTIONS[func](self)
        return func(*_turned(args), **_turned(kwargs))

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        """As ``ndarray.astype``; held values stay held (a conversion is elementwise)."""
        if self._full is not None or order not in ("K", "A", "C"):
            return self.full().astype(dtype, order=order, casting=casting, subok=subok, copy=copy)
        part = self._part.astype(dtype, casting=casting, copy=copy)
        if part is self._part:
            return self
        return Tiled(part, self._blocks, self._lanes, self._counter if subok else None, self._chain)

    def __getattr__(self, name):  # any other attribute: the lanes array's
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.full(), name)

    def __setattr__(self, name, value):
        if name in Tiled.__slots__:
            object.__setattr__(self, name, value)
        else:
            setattr(self.full(), name, value)

    def __getitem__(self, key):
        return self.full()[_turned(key)]

    def __setitem__(self, key, value):
        self.full()[_turned(key)] = value._value() if type(value) is Tiled else value

    def __delitem__(self, key):
        del self.full()[key]


def _forward(name):
    def method(self, *args):
        return getattr(self.full(), name)(*_turned(args))
    method.__name__ = name
    return method


for _name in ("__iter__", "__contains__", "__bool__", "__int__", "__float__", "__complex__", "__index__", "__repr__",
              "__str__", "__format__", "__copy__", "__deepcopy__", "__reduce__", "__reduce_ex__", "__round__",
              "__array_wrap__", "__dlpack__", "__dlpack_device__"):
    setattr(Tiled, _name, _forward(_name))


def _operator(ufunc, reflected=False, inplace=False):
    # defined here, not by numpy's mixin: the block finds a kernel's loops from its frames, skipping kernellab's own
    if inplace:
        def method(self, other):
            return ufunc(self, other, out=(self,))
    elif reflected:
        def method(self, other):
            return ufunc(other, self)
    else:
        def method(self, other):
            return ufunc(self, other)
    return method


for _n, _u in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("truediv", np.true_divide),
               ("floordiv", np.floor_divide), ("mod", np.remainder), ("divmod", np.divmod), ("pow", np.power),
               ("lshift", np.left_shift), ("rshift", np.right_shift), ("and", np.bitwise_and), ("or", np.bitwise_or),
               ("xor", np.bitwise_xor), ("matmul", np.matmul)):
    setattr(Tiled, f"__{_n}__", _operator(_u))
    setattr(Tiled, f"__r{_n}__", _operator(_u, reflected=True))
    if _n != "divmod":
        setattr(Tiled, f"__i{_n}__", _operator(_u, inplace=True))
for _n, _u in (("lt", np.less), ("le", np.less_equal), ("gt", np.greater), ("ge", np.greater_equal),
               ("eq", np.equal), ("ne", np.not_equal)):
    setattr(Tiled, f"__{_n}__", _operator(_u))
for _n, _u in (("neg", np.negative), ("pos", np.positive), ("abs", np.absolute), ("invert", np.invert)):
    setattr(Tiled, f"__{_n}__", (lambda u: lambda self: u(self))(_u))
del _n, _u, _name


def _turned(x):
    """``x`` (an argument, a tuple or list of them, or a dict's values) with every Tiled value turned for good."""
    if type(x) is Tiled:
        return x.full()
    if type(x) in (tuple, list):
        return type(x)(_turned(v) for v in x)
    if type(x) is dict:
        return {k: _turned(v) for k, v in x.items()}
    return x


def parts_of(operands) -> tuple | None:
    """``(parts, blocks, lanes, counter, chain)`` when ``operands`` can be computed on as parts, else None.

    Each operand's part: a held :class:`Tiled`'s own; a number or an array of fewer dimensions than the held
    values' as it is (it broadcasts along their trailing axes, as on the lanes); a C-contiguous lanes array (first
    axis the batch's lanes, or 1) reshaped to ``(blocks, lanes, …)`` (or ``(1, 1, …)``). Needs one held operand at
    least, every held one of the same batch and number of dimensions; where an operand is not an integer or a
    boolean, every array operand of the part's shape (see the module). ``counter`` and ``chain`` are as
    :class:`~kernellab.simt.lanes.Lanes` takes them from its operands.
    """
    blocks = lanes_ = ndim = None
    counter, chain = None, (0, 0)
    for x in operands:
        if type(x) is Tiled:
            if x._full is not None:
                return None
            if blocks is None:
                blocks, lanes_, ndim = x._blocks, x._lanes, x.ndim + 1
            elif x._blocks != blocks or x._lanes != lanes_ or x.ndim + 1 != ndim:
                return None
    if blocks is None:
        return None
    parts, shapes, exact = [], set(), True
    for x in operands:
        if type(x) is Tiled:
            p = x._part
            counter = counter or x._counter
        elif isinstance(x, np.ndarray) and x.ndim >= ndim - 1:
            if x.ndim != ndim - 1 or x.shape[0] not in (blocks * lanes_, 1) or not x.flags.c_contiguous:
                return None
            if type(x) is Lanes:
                counter = counter or x._counter
            p = x.view(np.ndarray).reshape((blocks, lanes_) if x.shape[0] != 1 else (1, 1), *x.shape[1:])
        elif isinstance(x, (np.ndarray, np.generic, int, float, complex, bool)):
            parts.append(x)
            exact = exact and not (isinstance(x, (float, complex)) or np.asarray(x).dtype.kind in "fc")
            continue
        else:
            return None
        c = getattr(x, "_chain", (0, 0))
        if c != (0, 0):
            chain = (max(chain[0], c[0]), max(chain[1], c[1]))
        parts.append(p)
        shapes.add(p.shape)
        exact = exact and p.dtype.kind in "biu"
    if not exact and len(shapes) > 1:
        return None
    return parts, blocks, lanes_, counter, chain


def held(part: np.ndarray, blocks: int, lanes_: int, counter=None, chain: tuple = (0, 0)):
    """A computed part (a new array) as the value it stands for: a :class:`Tiled` while it is the same in every block or
    every lane of one, else its lanes array (a view of ``part``; a Lanes when ``counter`` is given), on which numpy
    then computes directly. (A sum ``bx * bdx + tx`` is held unadded instead, by ``_held_ufunc``.)"""
    if blocks == 1 or (part.shape[0] == blocks and part.shape[1] == lanes_):
        arr = part.reshape(blocks * lanes_, *part.shape[2:])
        return arr if counter is None else lanes(arr, counter, chain)
    return Tiled(part, blocks, lanes_, counter, chain)


def _held_ufunc(ufunc, inputs):
    """``ufunc(*inputs)`` computed on parts and counted as the lanes would count it, or None (see the module)."""
    got = parts_of(inputs)
    if got is None:
        return None
    parts, blocks, lanes_, counter, chain = got
    if ufunc is np.add and len(parts) == 2 and blocks > 1 and all(
            type(p) is np.ndarray and p.dtype == np.int64 and p.ndim == 2 for p in parts):
        by_block, by_lane = sorted(parts, key=lambda p: p.shape[1])
        if by_block.shape == (blocks, 1) and by_lane.shape == (1, lanes_):  # bx · bdx + tx: a sum, added when needed
            if counter is not None:
                count_ufunc(counter, ufunc.__name__, parts, np.dtype(np.int64), 1)
            return Tiled(None, blocks, lanes_, counter, chain, sum_of=(by_block, by_lane))
    result = ufunc(*parts)
    first = result[0] if isinstance(result, tuple) else result
    if counter is not None:
        per_lane = math.prod(first.shape[2:])
        count_ufunc(counter, ufunc.__name__, parts, first.dtype, per_lane)
    if isinstance(result, tuple):
        return tuple(held(r, blocks, lanes_, counter, chain) for r in result)
    return held(result, blocks, lanes_, counter, chain)


def plain(x):
    """``x`` as the block reads it: a Tiled value's lanes array (read-only while held), anything else as it is."""
    return x.expanded() if type(x) is Tiled else x


__all__ = ["EXACT_UFUNCS", "Tiled", "held", "parts_of", "plain"]
