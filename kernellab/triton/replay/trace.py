"""Recording one launch's data flow, for :mod:`kernellab.triton.replay.cache`.

While a launch records, the functions the language marks (:mod:`kernellab.triton.executor.kinds`: the
public functions of ``triton.language`` and its submodules, and the marked methods of ``tl.tensor``) are
wrapped, found by their marks as Triton's interpreter finds its ``@builtin`` functions — in the recording's
own thread or task only: elsewhere the wrappers call straight through. The recorder is also the launch's
hook (:class:`Recorder`): the engine tells it of each step, of the memory a step touches, and of a step
undone. A call the kernel makes (a wrapped call inside another one is not looked at) tags every block it
returns:

* *static* when every block it was given is static: the launch's arguments, and what is computed from
  them and the program ids without reading memory (a function of the launch's signature);
* *data* when one of them is data (a ``tl.load`` result, or computed from one): the call of a ``pure`` (or
  ``checked``) function becomes a node of the trace, kept to be called again, with the same function and its
  static operands, on the next launch;
* *unknown* when one of them has no tag of this recording (a block made by a path that is not wrapped).

The recording is refused (``Recorder.why`` says why) when the launch's counts or effects might depend on
loaded data or on anything not followed:

* a ``tl.load``/``tl.store`` whose pointer, mask or ``other`` is not static (a gather through loaded
  indices, a mask from data), or a store of an unknown value;
* a function marked ``host`` on a block that is not static (``if``, ``range()``, ``int()`` on data, an
  assertion on data, the kernel's own read of a block's numpy values, ``.data``), or a value computed from
  data leaving the blocks (a Python number);
* a function marked ``effect`` (printing, a clock), or ``memory`` other than ``tl.load`` and ``tl.store``
  (atomics, block pointers and descriptors), or memory touched other than by them;
* a step undone (the programs ran one by one or were rerun); a function marked ``checked`` after a store;
* a function given to a call (a combine function) that holds a loaded value, or a nested one (a closure)
  given to a call on data (a replay would call it with its cells as the recorded launch left them).
"""

from __future__ import annotations

import inspect
import types
import weakref
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

from ... import cvt
from .. import language as tl
from ..executor import dtypes as T
from ..executor import kinds
from ..executor.numerics import _widen
from ..executor.program import current
from ..executor.tensor import _align, _operand, constexpr, pointer, tensor
from ..language import core
from ..language.core import _to_tensor, _view

REC: ContextVar = ContextVar("kernellab_triton_trace", default=None)

STATIC = -1
UNKNOWN = -2


class Ref:
    """A data value of the trace in a node's arguments: ``values[vid]`` when the node runs again."""

    __slots__ = ("vid",)

    def __init__(self, vid: int):
        self.vid = vid


class Node:
    """A call on data: ``fn(*args, **kwargs)`` with :class:`Ref` s replaced by the values they name; its
    results are ``values[vid]`` for each ``(vid, path)`` of ``outs`` (``path``: indices into a tuple)."""

    __slots__ = ("fn", "args", "kwargs", "outs", "nested")

    def __init__(self, fn, args, kwargs, outs, nested):
        self.fn, self.args, self.kwargs, self.outs, self.nested = fn, args, kwargs, outs, nested

    def run(self, values, flats):
        if self.nested:
            args, kwargs = _subst(self.args, values), _subst(self.kwargs, values)
        else:
            args = [values[a.vid] if a.__class__ is Ref else a for a in self.args]
            kwargs = {k: values[a.vid] if a.__class__ is Ref else a for k, a in self.kwargs.items()}
        out = self.fn(*args, **kwargs)
        for vid, path in self.outs:
            v = out
            for i in path:
                v = v[i]
            values[vid] = v


def _subst(x, values):
    if x.__class__ is Ref:
        return values[x.vid]
    if x.__class__ in (tuple, list):
        return x.__class__(_subst(y, values) for y in x)
    if x.__class__ is dict:
        return {k: _subst(v, values) for k, v in x.items()}
    return x


class Access:
    """A ``tl.load`` (``vid`` its result) or ``tl.store`` (``value``: a :class:`Ref` or a static value) of the
    launch argument ``arg``, kept as the pointer and mask blocks until the launch ends (:func:`finish`
    makes the plan the replay runs)."""

    __slots__ = ("store", "arg", "ptr", "mask", "fill", "vid", "value", "lay", "plan", "P")

    def __init__(self, store, arg, ptr, mask, fill, vid, value, lay, P):
        self.store, self.arg, self.ptr, self.mask, self.fill = store, arg, ptr, mask, fill
        self.vid, self.value, self.lay, self.plan, self.P = vid, value, lay, None, P

    def run(self, values, flats):

        flat = flats[self.arg]
        (kind, a, b, c, d), elem, shape, fill, view = self.plan
        if not self.store:
            if kind == "run":  # a, b, c, d: first offset, elements, block elements, (rows, *shape)
                if b == c:
                    v = flat[a:a + b].reshape(d)
                    if not view:
                        v = v.copy()
                else:
                    v = np.empty(c, flat.dtype)
                    v[:b] = flat[a:a + b]
                    v[b:] = fill
                    v = v.reshape(d)
            elif kind == "rows":  # a, b, c, d: first offset, row step, (rows, lanes kept, lanes), (rows, *shape)
                r, k0, lanes = c
                w = flat.itemsize
                part = np.lib.stride_tricks.as_strided(flat[a:], (r, k0), (b * w, w), writeable=False)
                if k0 == lanes:
                    v = part.reshape(d) if view else part.copy().reshape(d)
                else:
                    v = np.empty((r, lanes), flat.dtype)
                    v[:, :k0] = part
                    v[:, k0:] = fill
                    v = v.reshape(d)
            elif kind == "tile":  # a, b, c, d: each row's first offset, block shape, mask, strides
                w = flat.itemsize
                extent = sum((n - 1) * st for n, st in zip(b, d))
                view = np.lib.stride_tricks.as_strided(flat, (flat.size - extent, *b), (w, *(st * w for st in d)),
                                                       writeable=False)
                if a.__class__ is not np.ndarray and c is None and elem is T.float16:
                    # programs sharing tiles (a: distinct starts, which): each read and widened once, as
                    # tiles.load gives them, the float16 values made only if read (a tl.dot reads the float32)
                    out = tensor(None, elem, shape)
                    part, which = view[a[0]], a[1]
                    out._lazy = lambda: part[which]
                    out._wide = lambda: _widen(part)[which]
                    out._lay = self.lay
                    values[self.vid] = out
                    return
                v = view[a] if a.__class__ is np.ndarray else view[a[0]][a[1]]  # a: starts, or (distinct, which)
                if c is not None:
                    v = np.where(c, v, fill)
            else:  # a, b, c: root offsets, shift, mask
                offs = a if b is None else a + b
                v = flat[offs] if c is None else np.where(c, flat.take(offs, mode="clip"), fill)
            out = tensor(v, elem, shape)
            out._lay = self.lay
            values[self.vid] = out
            return
        _store(self.value, values, flat, kind, a, b, c, d, shape)


class Recorder:
    """The trace of one launch being recorded (see the module), and the launch's hook: the engine tells it of
    each step (:meth:`step`), and each step of the memory it touches (:meth:`memory`) and of being undone
    (:meth:`undone`)."""

    def __init__(self, flats: list):
        self.tags: dict = {}  # id(block) → (weak reference to it, STATIC, UNKNOWN or the vid of a data value)
        self.depth = 0
        self.mem = None  # "load" / "store" while a wrapped tl.load / tl.store runs
        self.why = None  # why the launch cannot be replayed (None: it can, so far)
        self.steps: list = []  # (pids, [Node or Access, ...]) per vectorised step, in order
        self.nvalues = 0
        self.flats = {id(f): j for j, f in enumerate(flats)}  # the array arguments' flat views
        self.flat_objs = flats
        self.kept: dict = {}  # id → static block kept by a node (the budget counts them)
        self.nbytes = 0  # what the finished trace keeps

    def refuse(self, why: str):
        if self.why is None:
            self.why = why

    def step(self, prog):
        """A step of the launch starts (the engine's hook)."""
        if prog.journal is None:
            self.refuse("programs ran one by one")
        self.steps.append((prog.pids, []))

    def memory(self, prog, kind: str):
        """The step touches memory (``kind`` ``"load"`` or ``"store"``): refused unless a wrapped ``tl.load`` or
        ``tl.store`` does (block pointers, descriptors, atomics, a kernel's own numpy)."""
        if self.mem != kind:
            self.refuse("memory {} other than by tl.{}".format("written" if kind == "store" else "read", kind))

    def undone(self, prog):
        """The step is undone, to be rerun (the engine's hook)."""
        self.refuse("a step was undone")

    def made(self, prog, x):
        """The executor made ``x`` from the launch's signature (a loop's variable, from bounds a recorded launch
        reads with ``int()``, refused on data): static (the engine's hook)."""
        self.mark(x, STATIC)

    def tag(self, x) -> int:
        t = self.tags.get(id(x))
        if t is None or t[0]() is not x:  # (a block of this recording, not one made since at its address)
            return UNKNOWN
        return t[1]

    def mark(self, x, v: int):
        self.tags[id(x)] = (weakref.ref(x), v)

    def new_value(self) -> int:
        self.nvalues += 1
        return self.nvalues - 1

    def add(self, node):
        if not self.steps:
            self.refuse("a call outside a step")
            return
        self.steps[-1][1].append(node)


def _static_leaf(x) -> bool:

    if x is None or x.__class__ in (int, float, bool, str, bytes, complex, slice, type(Ellipsis)):
        return True
    if isinstance(x, (np.generic, T.dtype, type)):
        return True
    if isinstance(x, constexpr):
        return _static_leaf(x.value) or _state_of(None, x.value) == 0
    if isinstance(x, (types.FunctionType, types.BuiltinFunctionType)) or hasattr(x, "fn") and hasattr(x, "arg_names"):
        return True  # a function (combine_fn, a @triton.jit helper)
    return False


def _state_of(rec, x) -> int:
    """0 static, 1 data, 2 unknown."""

    if isinstance(x, tensor):
        if rec is None:
            return 2
        v = rec.tag(x)
        return 0 if v == STATIC else 1 if v >= 0 else 2
    if isinstance(x, (tuple, list)):
        s = 0
        for y in x:
            s = max(s, _state_of(rec, y))
        return s
    if isinstance(x, dict):
        return max((_state_of(rec, y) for y in x.values()), default=0)
    if isinstance(x, types.FunctionType) or hasattr(x, "fn") and hasattr(x, "arg_names"):
        if not _function_state(rec, x, set()):
            return 0
        if rec is not None:  # a replay would call it holding the recorded launch's blocks
            rec.refuse("a function holding a block that is not static (a closure over a loaded value)")
        return 2
    return 0 if _static_leaf(x) else 2


def _function_state(rec, fn, seen: set) -> int:
    """The worst :func:`_state_of` of what a function given to a call (a combine function) holds in its
    closure cells and defaults (a nested function closing over a loaded value computes from data, though
    every block the call is given is static)."""
    f = getattr(fn, "fn", fn)
    if not isinstance(f, types.FunctionType) or id(f) in seen:
        return 0
    seen.add(id(f))
    held = list(f.__defaults__ or ()) + list((f.__kwdefaults__ or {}).values())
    for cell in f.__closure__ or ():
        try:
            held.append(cell.cell_contents)
        except ValueError:  # a cell not yet assigned
            pass
    s = 0
    for v in held:
        if isinstance(v, types.FunctionType) or hasattr(v, "fn") and hasattr(v, "arg_names"):
            s = max(s, _function_state(rec, v, seen))
        elif isinstance(v, (types.ModuleType, constexpr)) or v.__class__ in _PLAIN:
            continue
        else:
            s = max(s, _state_of(rec, v))
        if s == 2:
            break
    return s


_PLAIN = frozenset((int, float, bool, str, type(None)))


def _args_state(rec, args, kwargs) -> int:
    """:func:`_state_of` of a call's arguments, the usual ones (blocks, Python numbers) looked at inline."""
    s = 0
    tags = rec.tags
    for group in (args, kwargs.values()):
        for x in group:
            c = x.__class__
            if c is tensor or c is pointer:
                t = tags.get(id(x))
                if t is None or t[1] == UNKNOWN or t[0]() is not x:
                    return 2
                if t[1] != STATIC:
                    s = 1
            elif c not in _PLAIN:
                s = max(s, _state_of(rec, x))
                if s == 2:
                    return 2
    return s


def _mark_all(rec, x, v: int):

    if isinstance(x, tensor):
        rec.mark(x, v)
    elif isinstance(x, (tuple, list)):
        for y in x:
            _mark_all(rec, y, v)


def _template(rec, x):
    """``x`` with its data blocks as :class:`Ref` s; ``(template, nested)``."""

    if isinstance(x, tensor):
        v = rec.tag(x)
        if v >= 0:
            return Ref(v), False
        if isinstance(x, pointer):
            rec.refuse("a pointer in a computation on data")
        rec.kept[id(x)] = x
        return x, False
    if x.__class__ in (tuple, list):
        parts = [_template(rec, y) for y in x]
        nested = any(isinstance(p, Ref) or n for p, n in parts)
        return x.__class__(p for p, _n in parts), nested
    if isinstance(x, (tuple, list, dict)) and _state_of(rec, x) == 1:
        rec.refuse("data inside a container the trace does not follow")
    if getattr(getattr(x, "fn", x), "__closure__", None) and (isinstance(x, types.FunctionType) or hasattr(x, "arg_names")):
        # a replay would call it with its cells as the recorded launch left them (a name the kernel assigns
        # again after the call)
        rec.refuse("a nested function (a closure) given to a call on data")
    return x, False


def _outputs(rec, out, path=()):
    """Tag the data blocks ``out`` holds; their ``(vid, path)``."""

    if isinstance(out, tensor):
        vid = rec.new_value()
        rec.mark(out, vid)
        return [(vid, path)]
    if isinstance(out, (tuple, list)):
        found = []
        for i, y in enumerate(out):
            found += _outputs(rec, y, path + (i,))
        return found
    if out is not None:
        rec.refuse(f"a value computed from data left the blocks ({type(out).__name__})")
    return []


# --- the wrappers ------------------------------------------------------------------------------------------


def _pure(fn):
    def call(*args, **kwargs):
        rec = REC.get()
        if rec is None or rec.depth:
            return fn(*args, **kwargs)
        rec.depth += 1
        try:
            out = fn(*args, **kwargs)
        finally:
            rec.depth -= 1
        state = _args_state(rec, args, kwargs)
        if state == 0:
            _mark_all(rec, out, STATIC)
        elif state == 2:
            _mark_all(rec, out, UNKNOWN)
        else:
            targs = [_template(rec, a) for a in args]
            tkw = {k: _template(rec, a) for k, a in kwargs.items()}
            nested = any(n for _t, n in targs) or any(n for _t, n in tkw.values())
            outs = _outputs(rec, out)
            rec.add(Node(fn, [t for t, _n in targs], {k: t for k, (t, _n) in tkw.items()}, outs, nested))
        return out

    return call


def _host(fn):
    """A function marked ``host`` (its block's values go to the host's Python: ``if x:``, ``int(x)``, an
    assertion): refused on a block that is not static."""
    def call(*args, **kwargs):
        rec = REC.get()
        if rec is not None and not rec.depth and max(_state_of(rec, args), _state_of(rec, kwargs)):
            rec.refuse(f"{fn.__name__} on a block that is not static (Python control flow, an assertion, "
                       "or the block's values, on data)")
        return fn(*args, **kwargs)

    return call


def _effect(fn):
    """A function marked ``effect`` (a clock, printing, assembly), or ``memory`` other than ``tl.load`` and
    ``tl.store`` (atomics, a descriptor's loads and stores): refused."""
    def call(*args, **kwargs):
        rec = REC.get()
        if rec is not None and not rec.depth:
            rec.refuse(f"{fn.__name__} is not replayed")
        return fn(*args, **kwargs)

    return call


def _access(fn, store: bool):
    sig = inspect.signature(fn)

    def call(*args, **kwargs):
        rec = REC.get()
        if rec is None or rec.depth:
            return fn(*args, **kwargs)

        try:
            bound = sig.bind(*args, **kwargs).arguments
        except TypeError:
            bound = None
        ptr = bound.get("pointer") if bound else None
        mask = bound.get("mask") if bound else None
        other = None if store or not bound else bound.get("other")
        value = bound.get("value") if store and bound else None
        ok = bound is not None and ptr.__class__ is pointer and id(ptr.flat) in rec.flats \
            and rec.flat_objs[rec.flats[id(ptr.flat)]] is ptr.flat and rec.tag(ptr) == STATIC \
            and ptr.dtype.element_ty.__class__ is not T.float_format \
            and (mask is None or _state_of(rec, mask) == 0) and (other is None or _state_of(rec, other) == 0)
        if not ok:
            rec.refuse("a tl.{} the trace cannot follow (a pointer, mask or `other` not static, or not into "
                       "a launch argument)".format("store" if store else "load"))
        vstate = _state_of(rec, value) if store else 0
        if vstate == 2:
            rec.refuse("a store of a value the trace does not know")
        rec.depth += 1
        rec.mem = "store" if store else "load"
        try:
            out = fn(*args, **kwargs)
        finally:
            rec.depth -= 1
            rec.mem = None
        if not ok or vstate == 2:
            _mark_all(rec, out, UNKNOWN)
            return out
        prog = current()
        if store:
            tv, _nested = _template(rec, value)
            rec.add(Access(True, rec.flats[id(ptr.flat)], ptr, mask, None, None, tv, None, prog.P))
            return out
        fill = None
        if other is not None:
            od, _dt, _osh, olit = _operand(other)
            fill = od if olit else od[0]
        vid = rec.new_value()
        rec.mark(out, vid)
        rec.add(Access(False, rec.flats[id(ptr.flat)], ptr, mask, fill, vid, None, out._lay, prog.P))
        return out

    return call


def _store(value, values, flat, kind, a, b, c, d, shape):
    """Replay a ``tl.store`` (see :func:`_plan` for ``kind, a, b, c, d``), as :func:`kernellab.triton.language.store`
    writes it."""

    v = values[value.vid] if value.__class__ is Ref else _to_tensor(value)
    nd = len(shape)
    if kind == "run":
        dst = flat[a:a + b]
        if b == c and v._data is None and v._into is not None and v._shape == shape and v.dtype.np == flat.dtype \
                and all(o.ndim == 0 or o.shape[0] <= d[0] for o in v._into[1]):
            v._into[0](dst.reshape(d))  # computed straight into the array
            return
        vals = cvt.astype(_align(v.data, v._shape, nd, False), flat.dtype)
        if vals.shape != d:
            vals = np.broadcast_to(vals, d)
        np.copyto(dst, vals.reshape(-1)[:b])
        return
    if kind == "rows":
        r, k0, lanes = c
        w = flat.itemsize
        dst = np.lib.stride_tricks.as_strided(flat[a:], (r, k0), (b * w, w), writeable=True)
        if nd == 1 and v._data is None and v._into is not None and v._shape == shape and v.dtype.np == flat.dtype \
                and all(o.ndim == 0 or o.shape[0] in (1, r) for o in v._into[1]):
            v._into[0](dst, k0)  # computed straight into the array, the first k0 lanes of each row
            return
        vals = cvt.astype(_align(v.data, v._shape, nd, False), flat.dtype)
        if vals.shape != d:
            vals = np.broadcast_to(vals, d)
        np.copyto(dst, vals.reshape(r, lanes)[:, :k0])
        return
    if kind == "tile":
        a = a if a.__class__ is np.ndarray else a[0][a[1]]
        offs = a.reshape((-1,) + (1,) * len(b)) + sum(np.ix_(*[np.arange(n, dtype=np.int64) * st for n, st in zip(b, d)]))
    else:
        offs = a if b is None else a + b
    vals = cvt.astype(_align(v.data, v._shape, nd, False), flat.dtype)
    full = np.broadcast_shapes(offs.shape, vals.shape, () if c is None else c.shape)
    offs, vals = np.broadcast_to(offs, full), np.broadcast_to(vals, full)
    if c is None:
        flat[offs] = vals
    else:
        m = np.broadcast_to(c, full)
        flat[offs[m]] = vals[m]


@contextmanager
def recording(rec):
    """While the block runs, ``rec`` records (None: nothing is recorded)."""
    if rec is None:
        yield
        return
    token = REC.set(rec)
    install()
    try:
        yield
    finally:
        uninstall()
        REC.reset(token)


_INSTALLED: list = []  # (owner, name, original) while wrapped
_USERS = [0]


def _targets():
    """``(owner, name, function)`` of every function the language marks (:mod:`~kernellab.triton.executor.kinds`):
    the public functions of ``triton.language`` and its submodules, and the marked methods and properties of
    its blocks."""
    mods = [tl] + [m for m in vars(tl).values() if isinstance(m, types.ModuleType)
                   and m.__name__.startswith("kernellab.triton.language")]
    seen = set()
    for mod in mods:
        if id(mod) in seen:
            continue
        seen.add(id(mod))
        for name, fn in list(vars(mod).items()):
            if not name.startswith("_") and kinds.of(fn) is not None:
                yield mod, name, fn
    for cls in (tensor, pointer):
        for name, fn in list(vars(cls).items()):
            if kinds.of(fn) is not None:
                yield cls, name, fn


_WRAPPERS: list = []  # (owner, name, original, wrapper), made once (again when an original changed)


_BY_KIND = {"pure": _pure, "checked": _pure, "memory": _effect, "effect": _effect, "host": _host}


def _wrapper(fn):
    """The wrapper of a marked function: :func:`_access` for ``tl.load`` and ``tl.store``, else by its kind."""
    if fn is core.load:
        return _access(fn, False)
    if fn is core.store:
        return _access(fn, True)
    return _BY_KIND[kinds.of(fn)](fn)


def _wrappers() -> list:
    made: dict = {}
    out = []
    for owner, name, fn in _targets():
        w = made.get(id(fn))
        if w is None:
            if isinstance(fn, property):  # (a block's values, read as numpy: ``x.data``)
                w = property(_wrapper(fn.fget), fn.fset, doc=fn.__doc__)
            else:
                w = _wrapper(fn)
                w.__name__, w.__doc__, w.__wrapped__ = fn.__name__, fn.__doc__, fn
            made[id(fn)] = w
        out.append((owner, name, fn, w))
    return out


def install():
    """Wrap (once, however many recordings are open)."""
    _USERS[0] += 1
    if _USERS[0] > 1:
        return
    if not _WRAPPERS or any(vars(owner).get(name) is not fn for owner, name, fn, _w in _WRAPPERS):
        _WRAPPERS[:] = _wrappers()
    for owner, name, fn, w in _WRAPPERS:
        setattr(owner, name, w)
        _INSTALLED.append((owner, name, fn))


def uninstall():
    _USERS[0] -= 1
    if _USERS[0]:
        return
    while _INSTALLED:
        owner, name, fn = _INSTALLED.pop()
        setattr(owner, name, fn)


# --- the end of a recording: the plans a replay runs ------------------------------------------------------


def _bytes(x) -> int:
    return x.nbytes if isinstance(x, np.ndarray) else 0


def _plan(a: Access, flat: np.ndarray):
    """``("run", s0, n, total, shape)`` (``n`` consecutive elements from ``s0``, then fill up to ``total``)
    or ``("take", root, shift, mask, None)`` (offsets ``root + shift``), or a reason it cannot be replayed."""

    ptr, mask = a.ptr, a.mask
    view = _view(ptr, mask, "tl.store" if a.store else "tl.load")
    starts = view.starts()
    k = None if starts is None else view.prefix()
    offs, m = view.lanes()
    root, shift = offs, None
    if k is not None:
        r, lanes = view.rows, view.numel
        s = np.asarray(starts, np.int64)
        if a.store and r == 1 and a.P > 1:
            return "every program stores to the same addresses"
        if r == 1 or ((s[1:] - s[:-1] == lanes).all() and (k[:-1] == lanes).all()):
            return ("run", int(s[0]), (r - 1) * lanes + int(k[-1]), r * lanes, (r, *ptr._shape))
        k0, s0 = int(k.min()), int(s[0])
        step = int(s[1] - s[0])
        if k0 > 0 and int(k.max()) == k0 and step >= (k0 if a.store else 0) and (np.diff(s) == step).all() \
                and s0 >= 0 and s0 + (r - 1) * step + k0 <= flat.size:
            # the same first k0 lanes of rows evenly spaced: a strided view (as memory.load and store move them)
            return ("rows", s0, step, (r, k0, lanes), (r, *ptr._shape))
    elif view.base._lanes is not None and view.base.rows in (1, view.rows):
        root = view.base._lanes  # offsets that programs share, up to a shift
        sh = view.shift
        shift = sh.reshape(-1, *(1,) * len(ptr._shape)) if sh.__class__ is np.ndarray else sh or None
    if a.store:
        full = np.broadcast_shapes(offs.shape, () if m is None else m.shape)
        if full[0] == 1 and a.P > 1:
            return "every program stores to the same addresses"
        o = np.broadcast_to(offs, full)
        o = o.reshape(-1) if m is None else o[np.broadcast_to(m, full)]
        if o.size > 1 and (np.bincount(o - o.min()).max() > 1 if o.max() - o.min() < 1 << 26
                           else np.unique(o).size != o.size):
            return "a store whose lanes write one address twice"
    tile = _tile(root if shift is None else root + shift, flat.size)
    if tile is not None:
        return ("tile", tile[0], tile[1], m, tile[2])
    return ("take", root, shift, m, None)


def _tile(offs: np.ndarray, size: int):
    """``(starts, shape, strides)`` when every row of ``offs`` (int64 ``(rows, *block)``, a block of one or
    two axes) is ``start + i·s0 + j·s1`` with the same non-negative strides and lies inside the array, so
    that a replay reads it as a strided view; else None."""
    if offs.ndim not in (2, 3) or offs.size == 0:
        return None
    starts = offs.reshape(offs.shape[0], -1)[:, 0].copy()
    block = offs.shape[1:]
    strides = []
    for ax in range(1, offs.ndim):
        idx = [0] * offs.ndim
        idx[ax] = 1 if offs.shape[ax] > 1 else 0
        st = int(offs[tuple(idx)] - offs.reshape(-1)[0])
        if st < 0:
            return None
        strides.append(st)
    extent = sum((n - 1) * st for n, st in zip(block, strides))
    if int(starts.min()) < 0 or int(starts.max()) + extent >= size:
        return None
    grids = np.ix_(*[np.arange(n, dtype=np.int64) * st for n, st in zip(block, strides)])
    pattern = sum(grids)
    if not np.array_equal(offs, starts.reshape((-1,) + (1,) * len(block)) + pattern):
        return None
    distinct, which = np.unique(starts, return_inverse=True)
    if distinct.size < starts.size:  # programs reading the same tile: each read once, then copied
        return (distinct, which.reshape(-1)), block, tuple(strides)
    return starts, block, tuple(strides)


NODE_BYTES = 512  #: bytes a trace's node keeps, about (40 000 nodes of a loop kept 23.6 MB)
def _checks(fn) -> bool:
    """Whether ``fn`` is marked ``checked``: it raises on loaded values out of its range (``tl.gather``'s index)."""
    return kinds.of(getattr(fn, "__wrapped__", fn)) == "checked"


def finish(rec: Recorder, budget: int):
    """``(steps, None)``: each step's ``(pids, [(runnable, vids freed after it), ...])``; or ``(None, why)``."""
    flats = rec.flat_objs
    stored = {a.arg for _p, nodes in rec.steps for a in nodes if isinstance(a, Access) and a.store}
    used = {a.arg for _p, nodes in rec.steps for a in nodes if isinstance(a, Access)}
    for i in used:
        for j in stored:
            if i != j and np.may_share_memory(flats[i], flats[j]):
                return None, "a store to memory another argument overlaps"
    total, roots = 0, set()
    for x in rec.kept.values():
        if isinstance(x, tensor):
            total += _bytes(x.data)
    for _p, nodes in rec.steps:
        for a in nodes:
            if not isinstance(a, Access):
                continue
            plan = _plan(a, flats[a.arg])
            if isinstance(plan, str):
                return None, plan
            if plan[0] == "tile" and plan[1].__class__ is tuple:
                total += _bytes(plan[1][0]) + _bytes(plan[1][1]) + _bytes(plan[3])
            elif plan[0] != "run":
                if id(plan[1]) not in roots:
                    roots.add(id(plan[1]))
                    total += _bytes(plan[1])
                total += _bytes(plan[2]) + _bytes(plan[3])
            if total > budget:
                return None, f"the trace would keep more than {budget} bytes"
            flat = flats[a.arg]
            elem = a.ptr.dtype.element_ty
            shape = a.ptr._shape
            fill = cvt.astype(0 if a.fill is None else a.fill, flat.dtype)
            view = a.arg not in stored and not any(np.may_share_memory(flat, flats[j]) for j in stored)
            a.plan = (plan, elem, shape, fill, view)
            a.ptr = a.mask = None  # the recorded launch's arrays are not kept
    rec.flat_objs = rec.flats = None
    # liveness: a node is kept when a store needs its values, or when it checks them (_checks); each
    # value is freed after its last use
    order = [n for _p, nodes in rec.steps for n in nodes]
    live_vids: set = set()
    keep = [False] * len(order)
    for i in range(len(order) - 1, -1, -1):
        n = order[i]
        if isinstance(n, Access):
            if n.store:
                keep[i] = True
                live_vids.update(_refs(n.value))
            elif n.vid in live_vids:
                keep[i] = True
        elif any(vid in live_vids for vid, _path in n.outs) or _checks(n.fn):
            keep[i] = True  # (a call that raises on bad data is kept when nothing uses it: a fresh launch raises)
            live_vids.update(_refs(n.args))
            live_vids.update(_refs(n.kwargs))
    stores = [i for i, n in enumerate(order) if keep[i] and isinstance(n, Access) and n.store]
    if stores and any(keep[i] and not isinstance(n, Access) and _checks(n.fn)
                      for i, n in enumerate(order[stores[0] + 1:], stores[0] + 1)):
        # a replay that raises there has stored what it did before; a fresh launch, deferring its stores and
        # undoing a step, may not have: only an error before any store is replayed (or rerun fresh)
        return None, "a tl.gather (an index checked on loaded values) after a store"
    last: dict = {}
    for i, n in enumerate(order):
        if keep[i]:
            for vid in _uses(n):
                last[vid] = i
    frees: dict = {}
    for i, n in enumerate(order):
        if not keep[i]:
            continue
        for vid in _made(n):
            if vid not in last:
                frees.setdefault(i, []).append(vid)
    for vid, i in last.items():
        frees.setdefault(i, []).append(vid)
    steps, i = [], 0
    for pids, nodes in rec.steps:
        out = []
        for n in nodes:
            if keep[i]:
                out.append((n, frees.get(i, ())))
            i += 1
        steps.append((pids, out))
    total += NODE_BYTES * sum(keep)  # the nodes themselves (a loop of a few operations, many times)
    if total > budget:
        return None, f"the trace would keep more than {budget} bytes"
    rec.nbytes = total
    return steps, None


def _refs(x) -> list:
    if x.__class__ is Ref:
        return [x.vid]
    if x.__class__ in (tuple, list):
        return [v for y in x for v in _refs(y)]
    if x.__class__ is dict:
        return [v for y in x.values() for v in _refs(y)]
    return []


def _uses(n) -> list:
    if isinstance(n, Access):
        return _refs(n.value) if n.store else []
    return _refs(n.args) + _refs(n.kwargs)


def _made(n) -> list:
    if isinstance(n, Access):
        return [] if n.store else [n.vid]
    return [vid for vid, _path in n.outs]
