"""Values of a batch of lecture-form programs: one numpy value per program, computed for all at once.

A lecture-form kernel (``kernel(tl, ...)``) computes with plain Python numbers and numpy arrays. To run
a batch of its programs at once, ``tl.program_id`` returns a :class:`PerProgram`: an array with a
leading axis over the programs (length P, or 1 for a value every program shares) that behaves, for
the kernel, as one program's value. Arithmetic, comparisons, indexing, ``astype``, numpy's
elementwise functions and whole-block reductions act program by program.

Exactness comes first. A value that came from Python numbers (``program_id`` and what is computed
from it with Python numbers) is *weak*, as a Python number is under NumPy's promotion rules (NEP 50):
combined with an ``int32`` block it gives ``int32``. Whatever this module cannot reproduce exactly —
a ``PerProgram`` turned into a plain array, an unknown numpy function, Python numbers out of the
range where int64 and float64 agree with Python, programs that take different branches — raises
:class:`NotBatchable` or :class:`~kernellab.triton.executor.program.Divergence`, and the launcher reruns the
batch one program at a time.
"""

from __future__ import annotations

import builtins
import dis
import functools
import operator
import types

import numpy as np

from .program import Divergence

_SAFE_INT = 1 << 52  # Python ints of at most this size behave the same in int64 and float64 arithmetic
_WEAK_UFUNCS = {np.add, np.subtract, np.multiply, np.floor_divide, np.remainder, np.true_divide, np.negative,
                np.positive, np.absolute, np.less, np.less_equal, np.greater, np.greater_equal, np.equal,
                np.not_equal, np.minimum, np.maximum}  # what Python does to numbers as numpy does, given the checks


class NotBatchable(Exception):
    """An operation a batch of programs cannot reproduce exactly; the batch reruns program by program."""


class PerProgram:
    """One value per program: ``data`` has a leading axis over the programs (P, or 1 when shared).

    ``weak`` marks a value that is a Python number in each program (see the module's docstring).

    Examples
    --------
    >>> pid = PerProgram(np.arange(3), weak=True)            # program_id(0) of programs 0, 1, 2
    >>> offs = pid * 4 + np.arange(4, dtype=np.int32)        # a Python int plus an int32 block
    >>> offs.data.tolist(), offs.dtype
    ([[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], dtype('int32'))
    >>> int(PerProgram(np.array([2, 2, 2]), weak=True) + 1)  # every program agrees: a plain int
    3
    """

    __slots__ = ("data", "weak")
    __array_priority__ = 1000  # numpy defers binary operators to this class

    def __init__(self, data: np.ndarray, weak: bool = False):
        self.data = data
        self.weak = weak

    def __repr__(self) -> str:
        return f"PerProgram({self.data!r}, weak={self.weak})"

    # --- what a single program sees ----------------------------------------------------------------
    def _strong(self, what: str):
        if self.weak:  # a Python number has no such attribute: let the one-by-one run raise that
            raise NotBatchable(f"a Python number has no {what}")
        return self.data

    @property
    def shape(self) -> tuple:
        return self._strong("shape").shape[1:]

    @property
    def ndim(self) -> int:
        return self._strong("ndim").ndim - 1

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def dtype(self) -> np.dtype:
        return self._strong("dtype").dtype

    def __len__(self) -> int:
        if not self.shape:
            raise NotBatchable("len() of a single value")
        return self.shape[0]

    def astype(self, dtype, copy: bool = True) -> PerProgram:
        return PerProgram(self._strong("astype").astype(dtype), weak=False)

    def __getitem__(self, key) -> PerProgram:
        key = key if isinstance(key, tuple) else (key,)
        if not all(k is None or k is Ellipsis or isinstance(k, (slice, int, np.integer)) for k in key):
            raise NotBatchable("indexing a block with an array")
        if any(isinstance(k, slice) and any(isinstance(v, PerProgram) for v in (k.start, k.stop, k.step))
               for k in key):
            raise NotBatchable("slice bounds that differ between programs")
        if Ellipsis not in key:
            key = (*key, Ellipsis)
        return PerProgram(self._strong("indexing")[(slice(None), *key)], weak=False)

    def __iter__(self):
        raise NotBatchable("iterating over a block")

    # --- a single Python value, for control flow: every program must agree ------------------------
    def _item(self):
        d = self.data.reshape(self.data.shape[0], -1)
        if d.shape[1] != 1:
            raise NotBatchable("the truth value of a block")  # the one-by-one run raises numpy's error
        if d.shape[0] > 1 and (d != d[0]).any():
            raise Divergence
        return d[0, 0].item()

    def __bool__(self):
        return bool(self._item())

    def __int__(self):
        return int(self._item())

    def __index__(self):
        return operator.index(self._item())

    def __float__(self):
        return float(self._item())

    # --- numpy's protocols -----------------------------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        raise NotBatchable("a per-program value turned into one plain array")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method != "__call__" or kwargs or ufunc.nout != 1:
            raise NotBatchable(f"numpy.{ufunc.__name__}.{method} with {sorted(kwargs)}")
        return elementwise(ufunc, inputs)

    def __array_function__(self, func, types_, args, kwargs):
        impl = _FUNCTIONS.get(func)
        if impl is None:
            raise NotBatchable(f"numpy.{func.__name__} on per-program values")
        return impl(*args, **kwargs)


def _binary(ufunc, reflected=False):
    if reflected:
        return lambda self, other: elementwise(ufunc, (other, self))
    return lambda self, other: elementwise(ufunc, (self, other))


for _name, _ufunc in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("truediv", np.true_divide),
                      ("floordiv", np.floor_divide), ("mod", np.remainder), ("pow", np.power),
                      ("and", np.bitwise_and), ("or", np.bitwise_or), ("xor", np.bitwise_xor),
                      ("lshift", np.left_shift), ("rshift", np.right_shift)):
    setattr(PerProgram, f"__{_name}__", _binary(_ufunc))
    setattr(PerProgram, f"__r{_name}__", _binary(_ufunc, reflected=True))
for _name, _ufunc in (("lt", np.less), ("le", np.less_equal), ("gt", np.greater), ("ge", np.greater_equal),
                      ("eq", np.equal), ("ne", np.not_equal)):
    setattr(PerProgram, f"__{_name}__", _binary(_ufunc))
PerProgram.__hash__ = None
PerProgram.__neg__ = lambda self: elementwise(np.negative, (self,))
PerProgram.__pos__ = lambda self: elementwise(np.positive, (self,))
PerProgram.__abs__ = lambda self: elementwise(np.absolute, (self,))
PerProgram.__invert__ = lambda self: elementwise(np.invert, (self,))


# --- elementwise operations --------------------------------------------------------------------------
def _probe(x):
    """What stands for ``x`` when numpy works out a result's dtype: a Python number for a weak value."""
    if isinstance(x, PerProgram):
        if x.weak:
            return x.data.dtype.type(0).item()  # 0, 0.0 or False: a Python number of the same kind
        return np.zeros((), x.data.dtype)
    if isinstance(x, np.ndarray):
        return np.zeros((), x.dtype)
    return x


def elementwise(func, inputs) -> PerProgram:
    """``func(*inputs)`` program by program, for an elementwise ``func`` (a ufunc, ``np.clip``, ``np.where``)."""
    if not all(isinstance(x, (PerProgram, np.ndarray, np.generic, int, float, bool)) or x is None
               for x in inputs):
        raise NotBatchable(f"{getattr(func, '__name__', func)} of {[type(x).__name__ for x in inputs]}")
    per = [x for x in inputs if isinstance(x, PerProgram)]
    if all(x.weak for x in per) and not any(isinstance(x, (np.ndarray, np.generic)) for x in inputs):
        return _weak_only(func, inputs)
    target = np.result_type(*(_probe(x) for x in inputs if x is not None))  # NEP 50: weak Python numbers
    expected = func(*(_probe(x) for x in inputs))
    nd = max((x.data.ndim - 1 if isinstance(x, PerProgram) else np.ndim(x)) for x in inputs)
    args = []
    for x in inputs:
        if isinstance(x, PerProgram):
            d = x.data
            if x.weak:  # a Python number meets a numpy value: it takes that value's type, if it fits
                d = _weak_to(d, target)
            args.append(d.reshape(d.shape[0], *(1,) * (nd - d.ndim + 1), *d.shape[1:]))
        elif isinstance(x, np.ndarray):
            args.append(x.reshape(1, *(1,) * (nd - x.ndim), *x.shape))
        else:
            args.append(x)
    out = func(*args)
    if np.asarray(out).dtype != np.asarray(expected).dtype:
        raise NotBatchable(f"{getattr(func, '__name__', func)}: dtype {out.dtype}, one program gets "
                           f"{np.asarray(expected).dtype}")
    return PerProgram(out, weak=False)


def _weak_to(d: np.ndarray, target: np.dtype) -> np.ndarray:
    """Python numbers (as int64/float64/bool values) converted to ``target`` the way NumPy converts them."""
    if d.dtype.kind == "b" or d.dtype == target:
        return d.astype(target, copy=False)
    if target.kind in "iu":  # d is int64 here: numpy's promotion (NEP 50) makes a Python float and a block float
        info = np.iinfo(target)
        if d.size and (d.min() < info.min or d.max() > info.max):
            raise NotBatchable(f"a Python int out of range for {target}")  # numpy raises OverflowError
        return d.astype(target)
    if target.kind == "f" and d.dtype.kind == "i" and d.size and np.abs(d).max() > 1 << 24:
        raise NotBatchable("a large Python int converted to a float block")
    return d.astype(target)


def _weak_only(func, inputs) -> PerProgram:
    """Python arithmetic on Python numbers, reproduced in int64/float64 where the two agree exactly."""
    if func not in _WEAK_UFUNCS:
        raise NotBatchable(f"{getattr(func, '__name__', func)} on Python numbers")
    args = [x.data if isinstance(x, PerProgram) else x for x in inputs]
    kinds = {np.asarray(a).dtype.kind for a in args}
    if kinds - {"b", "i", "f"}:
        raise NotBatchable("Python numbers of an unexpected kind")
    for a in args:
        a = np.asarray(a)
        if a.dtype.kind == "i" and a.size and np.abs(a).max() > _SAFE_INT:
            raise NotBatchable("a Python int beyond 2^52")
    if func in (np.floor_divide, np.remainder, np.true_divide):
        if np.any(np.asarray(args[1]) == 0):
            raise NotBatchable("division by zero")  # Python raises ZeroDivisionError
        if "f" in kinds and func is not np.true_divide:
            raise NotBatchable("float floor division")
    if "f" not in kinds and func is np.true_divide:
        args = [np.asarray(a, np.float64) for a in args]  # int / int is a float in Python
    out = func(*args)
    if out.dtype.kind == "i" and out.size and np.abs(out).max() > _SAFE_INT:
        raise NotBatchable("a Python int beyond 2^52")
    return PerProgram(out, weak=True)


# --- numpy functions on per-program values ----------------------------------------------------------
def _reduce(name):
    def reduce(a, axis=None, out=None, keepdims=False, **kwargs):
        if out is not None or kwargs or not isinstance(a, PerProgram) or a.weak:
            raise NotBatchable(f"numpy.{name} with these arguments")
        d = a.data
        if axis is None:
            # every value of the program in memory order, as np.<name> of one block flattens it
            flat = np.ascontiguousarray(d).reshape(d.shape[0], -1)
            if flat.shape[1] == 0:
                raise NotBatchable(f"numpy.{name} of an empty block")
            r = getattr(np, name)(flat, axis=1)
            return PerProgram(r.reshape(r.shape[0], *(1,) * (d.ndim - 1)) if keepdims else r)
        if name == "sum" and d.ndim > 2:
            raise NotBatchable("a sum along one axis of a multi-dimensional block")  # summation order
        ax = axis if axis < 0 else axis + 1
        if not -(d.ndim - 1) <= axis < d.ndim - 1:
            raise NotBatchable(f"axis {axis} out of range")
        return PerProgram(getattr(np, name)(d, axis=ax, keepdims=keepdims))
    return reduce


def _clip(a, a_min, a_max, **kwargs):
    if kwargs:
        raise NotBatchable("numpy.clip with keywords")
    return elementwise(np.clip, (a, a_min, a_max))


def _where(cond, *xy):
    if len(xy) != 2:
        raise NotBatchable("numpy.where with one argument")
    return elementwise(np.where, (cond, *xy))


_FUNCTIONS = {np.max: _reduce("max"), np.amax: _reduce("max"), np.min: _reduce("min"), np.amin: _reduce("min"),
              np.sum: _reduce("sum"), np.clip: _clip, np.where: _where}


# --- the kernel's own names: numpy's array() and Python's min() and max() ---------------------------
class _Numpy(types.ModuleType):
    """``numpy`` as a batched kernel sees it: ``np.array(v)`` of a per-program value stays per program."""

    def __init__(self):
        super().__init__("numpy")

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def array(obj, dtype=None, *args, **kwargs):
        if not isinstance(obj, PerProgram):
            return np.array(obj, dtype, *args, **kwargs)
        if args or kwargs:
            raise NotBatchable("numpy.array with more arguments")
        return PerProgram(obj.data.astype(dtype if dtype is not None else obj.data.dtype), weak=False)

    asarray = array


def _fold(pick, name):
    def fold(*args, **kwargs):
        items = args[0] if len(args) == 1 else args
        if kwargs or not any(isinstance(v, PerProgram) for v in (items if len(args) > 1 else ())):
            return getattr(builtins, name)(*args, **kwargs)
        first, *rest = items
        for v in rest:  # Python keeps the first of equals: min(a, b) is b only when b < a
            if isinstance(v, PerProgram) or isinstance(first, PerProgram):
                first = _choose(pick(v, first), v, first)
            elif pick(v, first):
                first = v
        return first
    return fold


def _choose(take, v, keep) -> PerProgram:
    """``v`` where ``take`` holds, else ``keep``, for Python numbers (weak values) only."""
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) or isinstance(x, PerProgram) and x.weak
               for x in (v, keep)):
        raise NotBatchable("min() or max() of numpy values")
    kinds = {np.asarray(x.data if isinstance(x, PerProgram) else x).dtype.kind for x in (v, keep)}
    if kinds != {"i"}:
        raise NotBatchable("min() or max() of Python floats")  # which object is kept shows in the result type
    a = v.data if isinstance(v, PerProgram) else v
    b = keep.data if isinstance(keep, PerProgram) else keep
    return PerProgram(np.where(take.data, a, b), weak=True)


class _Names(dict):
    """A kernel's module names as a batched kernel sees them: a few replaced, the rest read live."""

    def __init__(self, module: dict, replaced: dict):
        super().__init__(replaced)
        self._module = module

    def __missing__(self, key):
        return self._module[key]  # KeyError: Python then looks in builtins, as for any global


def batched(kernel):
    """``kernel`` with ``np.array``, ``min`` and ``max`` that keep per-program values per program.

    The copy shares the kernel's code, defaults and closure; it looks its module's names up live,
    except those three. A callable that is not a plain function is returned as it is. A kernel that
    assigns module names (``global``) keeps state across programs: None, it runs one by one.
    """
    if not isinstance(kernel, types.FunctionType):
        return kernel
    if _assigns_globals(kernel.__code__):
        return None
    replaced = {key: _NUMPY for key, value in kernel.__globals__.items() if value is np}
    replaced["min"] = _fold(lambda v, cur: v < cur, "min")
    replaced["max"] = _fold(lambda v, cur: v > cur, "max")
    names = _Names(kernel.__globals__, replaced)
    fn = types.FunctionType(kernel.__code__, names, kernel.__name__, kernel.__defaults__, kernel.__closure__)
    fn.__kwdefaults__ = kernel.__kwdefaults__
    return fn


@functools.lru_cache(maxsize=1024)
def _assigns_globals(code: types.CodeType) -> bool:
    """Whether ``code`` (or a function defined in it) assigns or deletes a module name (read once a code object:
    a lecture-form launch asks at every launch, and the bytecode cannot change)."""
    if any(ins.opname in ("STORE_GLOBAL", "DELETE_GLOBAL") for ins in dis.get_instructions(code)):
        return True
    return any(_assigns_globals(c) for c in code.co_consts if isinstance(c, types.CodeType))


_NUMPY = _Numpy()
