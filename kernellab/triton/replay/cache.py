"""Record once, replay per signature: the mini-Triton's analogue of Triton's per-specialisation compile cache.

Triton compiles a kernel once per *signature* and then only launches it. kernellab has nothing to compile,
but most of a small launch's time is the same Python work every time: binding the arguments, running the
kernel's Python on pid arithmetic, aranges, pointers and masks, and counting every access. None of that
depends on the data in the arrays, so the first launch of a signature records it and the next ones replay
only what does.

**The signature** (the cache key, per ``@triton.jit`` kernel): the grid, ``num_warps``, ``num_stages``, every
``tl.constexpr`` by value and type; every scalar argument by value and type (an ``int``, ``float`` —
by its bits —, ``bool``, numpy scalar, ``None``, string); every array argument by dtype, shape, strides,
writeability and whether its address is a multiple of 16 bytes (Triton's ``tt.divisibility``, the only
bit of an address kernellab's counts read: they take arrays to start 256-byte aligned), and the
arguments' aliasing (which arrays share an address, and the offset between any two whose memory
overlaps); the values of the globals and closure cells the kernel's code names, and the scalar settings
of a library's module it names (``mod.attr``); a function (a ``@triton.jit`` one or a plain one, as a
global or a constexpr) by identity and, in turn, by what its code reads, its defaults and attributes (a
factory's new closure is a new key, however its address); the modelled GPU, ``TRITON_F32_DEFAULT`` (the precision of a
``tl.dot`` that names none, a variable Triton's cache key holds too), the launch's learnt hints and the engine's
switches (``engine.BATCH``, the launch policy: :mod:`kernellab.triton.executor.policy`).

**What is cached** for a signature, from its first launch (:mod:`kernellab.triton.replay.trace` records it):
the launch's counts, and its *data flow*: every ``tl.load`` as a plan (a slice, or a gather at fixed
offsets under a fixed mask and fill), every operation on loaded values as the same function called with
the same static operands, and every ``tl.store`` as a plan, in the launch's order. A later launch of the
signature runs that data flow on its own arrays — the same numpy functions in the same order, so its
values are bitwise those a fresh launch computes — and returns a copy of the cached counts, which it
reports to every recorder (:func:`kernellab.record.recording`, :func:`kernellab.triton.launches.recording`)
as a fresh launch does.

**Replay is opt-in**, as tinygrad's ``TinyJit`` is: a launch replays only where asked, by the kernel
(``@triton.jit(replay=True)``) or around the launch (``with triton.replaying():``). ``KERNELLAB_REPLAY``
sets it for the process: unset, where asked; ``0`` or ``off``, nowhere; ``1`` or ``on``, every launch;
``check``, every launch, and every replay checked (below). Any other value is an error at import that
names the switch and its values. :func:`disabled` turns replay off for a block.

**What a recording captured is checked at every launch**, as Triton checks the globals a compiled kernel
used: the signature is made again and looked up, and on a miss what the launch would capture is compared,
place by place, with what the kernel's recordings captured. A replay does not run the kernel's Python, so a
global, a closure cell, a helper's code or what it reads, a library module's setting read as ``mod.attr``, or
a builtin the code names is read again each launch, defined or not yet. Where one has changed since it was
recorded (a global defined after the first launch, a builtin shadowed later in the module, a constexpr's
``.value`` set again), the launch raises :class:`~kernellab.ReplayError`, which names the kernel, the place
and its old and new values, and writes nothing; launch the kernel without replay, or forget its recordings
with ``kernel.replay_reset()`` (tinygrad's ``TinyJit.reset()``), after which it records again. Where what it
captured cannot be checked (below) the launch runs fresh.

**A launch runs fresh** (and its signature is not recorded again) when:

* it asks for ``per_program=``, ``vectorize=False`` or ``lines=True`` (or a recording asks for lines), runs
  inside :func:`kernellab.triton.executor.sampling.sampled`, prints, or has ``launch_metadata``;
* an argument is outside the signature (a torch tensor, a float64, bfloat16 or float8 array, a tensor
  descriptor, a tuple, a global holding a list or an array);
* the kernel's Python (or a function's it reads) does what a replay would skip: assigns a global, imports a
  module that is not a library's, names a random-number module, calls a builtin that is not known to be
  harmless (:data:`BUILTINS`: ``print``, ``getattr``, ``object``, ``eval``, … are not), or names a private
  attribute (``._data``, ``.__getattribute__``) or an attribute its class marks as the host's (a
  pointer's array, ``.flat``);
* its counts or effects may depend on loaded data or on anything the trace does not follow
  (:mod:`kernellab.triton.replay.trace`: a gather through loaded indices, a mask or Python control flow
  from data, a language function marked ``memory``, ``effect`` or ``host`` on data, a store to memory
  another argument overlaps, programs that diverge and run one by one, a step undone);
* the trace would keep more than :data:`BUDGET` bytes. Each kernel keeps its last :data:`ENTRIES`
  signatures, and all kernels together their last :data:`TOTAL` bytes of traces.

**Errors.** A replay raises what the same functions raise on the new data. One that stops before its first
store (a ``tl.gather`` index out of range) has written nothing: the launch reruns fresh, and raises, and
leaves memory, as a fresh launch does. A function marked ``checked`` (``tl.gather``) is replayed even when
nothing stores what it returns, and a trace calling one after a store is refused.

:func:`status` says what a kernel's last launch did. ``KERNELLAB_REPLAY=check`` tests the replay itself:
every replayed launch is also run fresh on copies of its arrays, and replayed and run fresh again on
copies filled with other random values of the same dtypes; any difference in an array's bits or in a
count raises :class:`ReplayMismatch`.

Examples
--------
>>> import numpy as np
>>> import kernellab.triton as triton
>>> import kernellab.triton.language as tl
>>> @triton.jit
... def scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
...     offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
...     tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)
>>> x, out = np.arange(128, dtype=np.float32), np.zeros(128, np.float32)
>>> first = scale[(2,)](x, out, 128, BLOCK=64); status(scale)      # not asked: fresh
'off'
>>> with replaying():
...     first = scale[(2,)](x, out, 128, BLOCK=64); s1 = status(scale)
...     x += 1; again = scale[(2,)](x, out, 128, BLOCK=64); s2 = status(scale)
>>> s1, s2, out[:3].tolist(), again == first
('recorded', 'replayed', [2.0, 4.0, 6.0], True)

A global the kernel reads, changed after its recording:

>>> FACTOR = 2.0
>>> @triton.jit(replay=True)
... def times(x_ptr, out_ptr, BLOCK: tl.constexpr):
...     offs = tl.arange(0, BLOCK)
...     tl.store(out_ptr + offs, tl.load(x_ptr + offs) * FACTOR)
>>> counts = times[(1,)](x, out, BLOCK=64)
>>> FACTOR = 3.0
>>> try:
...     counts = times[(1,)](x, out, BLOCK=64)
... except RuntimeError as e:
...     print(type(e).__name__, e.details["changed"], e.details["old"], e.details["new"])
ReplayError global FACTOR 2.0 3.0
>>> times.replay_reset(); counts = times[(1,)](x, out, BLOCK=64); out[:3].tolist()
[3.0, 6.0, 9.0]
"""

from __future__ import annotations

import copy
import dataclasses
import dis
import os
import struct
import threading
import types
import weakref
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

from ... import record as klrecord
from ...errors import ReplayError
from ...grid import dim3
from ...i18n import _
from ...record import launched, wants_lines
from .. import knobs, launches
from ..executor import dtypes as T
from ..executor import engine, memory, policy, sampling
from ..executor.addresses import register_array
from ..executor.program import _CURRENT, Program
from ..executor.tensor import constexpr, pointer, tensor
from ..runtime.driver import gpu as modelled_gpu
from .trace import STATIC, Recorder
from .trace import finish as close

ENV = "KERNELLAB_REPLAY"
BUDGET = 64 << 20  #: bytes a trace may keep (offsets, masks, constant blocks)
ENTRIES = 8  #: signatures kept per kernel
TOTAL = 256 << 20  #: bytes all kernels' traces may keep together (the oldest are forgotten first)

_GPUS: dict = {}  # id → every GPU a launch modelled (the key names it by address)
_KEPT: dict = {}  # (id(kernel), key) → (weak reference to the kernel, bytes): every kept trace, oldest first
_LOCK = threading.Lock()  # around _KEPT: threads recording at once

#: Where each value of ``KERNELLAB_REPLAY`` lets a launch replay, ``"asked"`` (by the kernel,
#: ``@triton.jit(replay=True)``, or by :func:`replaying`), ``"never"`` or ``"always"``
SETTINGS = {"": "asked", "0": "never", "off": "never", "1": "always", "on": "always", "check": "always"}


def _setting(value: str) -> str:
    """Where ``KERNELLAB_REPLAY=value`` lets a launch replay; ValueError naming the switch and its values."""
    where = SETTINGS.get(value.strip().lower())
    if where is None:
        raise ValueError(_("KERNELLAB_REPLAY={value!r} is not a setting of replay: unset (a launch replays "
                           "only where asked, @triton.jit(replay=True) or triton.replaying()), 0 or off (no "
                           "launch replays), 1 or on (every launch may), or check (every launch may, and every "
                           "replay is checked against a fresh launch)").format(value=value))
    return where


DEFAULT = _setting(os.environ.get(ENV, ""))  #: where launches replay outside :func:`replaying` and :func:`disabled`
_WHERE: ContextVar[str] = ContextVar("kernellab_replay", default=DEFAULT)
# ``KERNELLAB_REPLAY=check``: every replayed launch is also run fresh on copies of its arrays, and a
# difference in any array's bits or in the counts raises ReplayMismatch (for testing the replay itself)
CHECK = os.environ.get(ENV, "").strip().lower() == "check"


CHECKED = [0]  # replays the check compared with fresh launches, in this process


class ReplayMismatch(AssertionError):
    """A replayed launch differs from a fresh launch on the same data (``KERNELLAB_REPLAY=check``)."""


def wants(kernel) -> bool:
    """Whether a launch of ``kernel`` made here may replay: where asked (the default: the kernel's
    ``replay=True``, or inside :func:`replaying`), never, or always (``KERNELLAB_REPLAY``)."""
    where = _WHERE.get()
    return where == "always" or where == "asked" and kernel.replay


@contextmanager
def _where(setting: str):
    token = _WHERE.set(setting)
    try:
        yield
    finally:
        _WHERE.reset(token)


def replaying():
    """``with triton.replaying():`` every launch in the block may replay (unless ``KERNELLAB_REPLAY=0``)."""
    return _where("never" if _WHERE.get() == "never" else "always")


def disabled():
    """``with replay.disabled():`` every launch in the block runs fresh."""
    return _where("never")


def status(kernel) -> str:
    """What ``kernel``'s last launch did: ``"replayed"``, ``"recorded"``, ``"off"``, ``"refused: <why>"`` /
    ``"unsupported: <why>"`` (run fresh), or ``"changed: <place>"`` (raised :class:`~kernellab.ReplayError`,
    ran nothing)."""
    return getattr(kernel, "_replay_status", "off")


def clear(kernel) -> None:
    """Forget every signature ``kernel`` recorded."""
    for key in list(kernel.__dict__.get("_replays", ())):
        _forget(kernel, key)


def _forget(kernel, key) -> int:
    """Forget one signature of ``kernel``; the bytes its trace kept."""
    kernel.__dict__.get("_replays", {}).pop(key, None)
    with _LOCK:
        kept = _KEPT.pop((id(kernel), key), None)
    return kept[1] if kept else 0


_NO = object()
_SAFE_MODULES = ("kernellab", "triton", "numpy", "math", "builtins")


def _scalar(v):
    c = v.__class__
    if c is int or c is bool or c is str or v is None:
        return (c, v)
    if c is float:
        return (c, struct.pack("<d", v))
    if isinstance(v, np.generic):
        return (c, v.dtype.str, v.tobytes())
    return _NO


def _library(name) -> bool:
    """Whether a module (or a function's ``__module__``) is one of the libraries whose state is constant."""
    return isinstance(name, str) and name.split(".")[0] in _SAFE_MODULES \
        and not any(name == s or name.startswith(s + ".") for s in _STATEFUL)


_STATEFUL = ("numpy.random", "random")  # library modules whose functions change state (an RNG): refused


def _constant(v, stack=None):
    """The key of a constexpr or a global: a scalar by value; a module, type or dtype by identity (the key
    holds the object, so a new one at a freed one's address is not taken for it); a user's function (a
    ``@triton.jit`` function or a plain one) by identity and the keys of what its code reads (see
    :func:`_reads`: a factory's closures, or a global the function names, change it); ``_NO`` otherwise."""
    if isinstance(v, constexpr):
        v = v.value
    k = _scalar(v)
    if k is not _NO:
        return k
    if isinstance(v, types.ModuleType):
        return ("module", v) if _library(v.__name__) else _NO
    if _is_jit(v):
        parts = _code_key(v.fn, stack, plain=False)
        return _NO if parts is _NO else ("jit", v, parts)
    if isinstance(v, types.FunctionType):
        if _library(getattr(v, "__module__", None)):
            return ("obj", v)
        parts = _code_key(v, stack, plain=True)
        return _NO if parts is _NO else ("fn", v, parts)
    if isinstance(v, types.BuiltinFunctionType):  # a library module's (math.exp), not a method of an object
        owner = v.__self__  # (np.random.rand: a RandomState's; time.time: the time module's)
        return ("obj", v) if owner is None or isinstance(owner, types.ModuleType) and _library(owner.__name__) \
            else _NO
    if isinstance(v, T.dtype):
        return ("obj", v)
    if isinstance(v, type):
        return ("obj", v) if _library(v.__module__) else _NO
    if isinstance(v, tuple):
        parts = tuple(_constant(x, stack) for x in v)
        return _NO if any(p is _NO for p in parts) else ("tuple", parts)
    return _NO


def _is_jit(v) -> bool:
    """Whether ``v`` is a ``@triton.jit`` function (its Python and its parameter names)."""
    return hasattr(v, "arg_names") and isinstance(getattr(v, "fn", None), types.FunctionType)


#: The builtins a kernel's code may name and still replay, each computing from its arguments alone. Any
#: other (``print``, ``getattr``, ``object``, ``type``, ``globals``, ``eval``, ``open``, ``id``, …) reads or
#: does what the signature does not name, or what a replay, which does not run the Python, would skip.
BUILTINS = frozenset(("abs", "all", "any", "bool", "divmod", "enumerate", "float", "int", "isinstance", "len", "list",
                      "max", "min", "pow", "range", "reversed", "round", "slice", "sorted", "sum", "tuple", "zip",
                      "True", "False", "None", "ValueError", "TypeError", "AssertionError", "NotImplementedError"))
# attributes a class of the language hands to the host's Python (a pointer's whole array): its ``_host``
_HOST = frozenset(a for cls in (tensor, pointer) for a in getattr(cls, "_host", ()))
_READS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # a function → _reads(function)
_MISSING = object()
_NONE_YET = (_MISSING, None)
_CHANGING = ("jit", "fn", "tuple", "module")  # keys of objects whose key may change (what a function reads, a
# module's settings)


def _reads(fn):
    """What the code of the function ``fn`` reads, as ``([holder, name, None, (object, key)], ...], attributes)``
    (the last item of each read: what :func:`_code_key` read last and its key, when that cannot change): every
    global name the code loads (``(fn.__globals__, name)``), whether defined yet or not, and every closure cell
    (``(cell, None)``); ``attributes``, the attribute names it loads (a library module's settings read as
    ``mod.attr`` are keyed by them). ``_NO`` when the code assigns or deletes a global, imports a module that
    is not a library's, names a builtin outside :data:`BUILTINS`, or names a private attribute or one a class
    of the language hands to the host (``_HOST``): what a replay, which does not run the code, would not do
    or would not see. Made once per function."""
    out = _READS.get(fn)
    if out is not None:
        return out
    code = fn.__code__
    names, attrs, stack, ok = set(), set(), [code], True
    while stack:
        c = stack.pop()
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
        for ins in dis.get_instructions(c):
            op = ins.opname
            if op in ("LOAD_GLOBAL", "LOAD_NAME"):
                names.add(ins.argval)
            elif op in ("LOAD_ATTR", "LOAD_METHOD", "STORE_ATTR", "DELETE_ATTR", "IMPORT_FROM"):
                attrs.add(ins.argval)
            elif op in ("STORE_GLOBAL", "DELETE_GLOBAL", "STORE_NAME", "DELETE_NAME"):
                ok = False
            elif op == "IMPORT_NAME" and not _library(ins.argval):
                ok = False
    g = fn.__globals__
    builtins = g.get("__builtins__", __builtins__)
    builtins = builtins if isinstance(builtins, dict) else vars(builtins)
    if any(n in builtins and n not in BUILTINS for n in names) or any(a.startswith("_") or a in _HOST for a in attrs):
        ok = False
    reads = [[g, n, None, _NONE_YET] for n in sorted(names)] + [[cell, None, None, _NONE_YET]
                                                                  for cell in fn.__closure__ or ()]
    out = (reads, tuple(sorted(attrs))) if ok else _NO
    _READS[fn] = out
    return out


def _module_key(module, attrs):
    """The key of a library module the code names: the module, and the value of each attribute the code reads
    that is a setting (a scalar) or missing; ``_NO`` for one holding a module that is not a library's
    (``np.random``)."""
    parts = []
    for a in attrs:
        w = getattr(module, a, _MISSING)
        if w is _MISSING:
            parts.append(None)
        elif isinstance(w, types.ModuleType):
            if not _library(w.__name__):
                return _NO
        else:
            k = _scalar(w)
            if k is not _NO:
                parts.append((a, k))
    return ("module", module, tuple(parts))


def _code_key(fn, stack, plain: bool):
    """The keys of what ``fn``'s code reads now (:func:`_reads`), and, for a plain function, of its defaults
    and attributes; ``_NO`` when one is not a constant. A function met again while its key is being made
    (recursion) is keyed by identity alone."""
    if stack is None:
        stack = set()
    if id(fn) in stack:
        return ()
    found = _reads(fn)
    if found is _NO:
        return _NO
    reads, attrs = found
    stack.add(id(fn))
    try:
        parts = []
        for read in reads:
            holder, n, _attr, last = read
            if n is None:
                try:
                    v = holder.cell_contents
                except ValueError:
                    parts.append(None)
                    continue
            else:
                v = holder.get(n, _MISSING)
                if v is _MISSING:  # not defined yet (a builtin, or a NameError): its definition is a new key
                    parts.append(None)
                    continue
            if v is last[0]:  # the object of the last launch, whose key cannot have changed
                parts.append(last[1])
                continue
            k = _module_key(v, attrs) if isinstance(v, types.ModuleType) and _library(v.__name__) \
                else _constant(v, stack)
            if k is _NO:
                return _NO
            if k[0] not in _CHANGING and v.__class__ is not constexpr:  # (a constexpr's .value may be set)
                read[3] = (v, k)  # one store: a thread reading it sees an object and its own key
            parts.append(k)
        if plain:
            for extra in (fn.__defaults__ or (), tuple(sorted((fn.__kwdefaults__ or {}).items())),
                          tuple(sorted(fn.__dict__.items()))):
                k = _constant(extra, stack)
                if k is _NO:
                    return _NO
                parts.append(k)
        return tuple(parts)
    finally:
        stack.discard(id(fn))


def _globals_key(kernel):
    """The keys of the globals and closure cells the kernel's code reads (:func:`_code_key`)."""
    return _code_key(kernel.fn, None, plain=False)


# --- what a recording captured, by name (read again on a miss, to say what changed) ---


def _shown(v) -> str:
    """``v`` as a message shows it: its repr, shortened to 60 characters."""
    if v is _MISSING:
        return "<undefined>"
    try:
        text = repr(v)
    except Exception:  # (a repr that raises is no reason to hide the error it belongs to)
        text = object.__repr__(v)
    return text if len(text) <= 60 else text[:59] + "…"


def _capture_key(v):
    """How a captured value compares with what was captured: a function, a module or anything that is not a
    constant by identity (what a function reads is captured in its own right), a constant by its key."""
    if v is _MISSING:
        return None
    if _is_jit(v) or isinstance(v, (types.FunctionType, types.ModuleType)):
        return ("id", id(v), v)  # (compared by the address first: never by the objects' own ==)
    k = _constant(v)
    return ("id", id(v), v) if k is _NO else k


#: How a message names each kind of place a recording captures (``_captures``)
PLACES = {"global": "global {name}", "cell": "closure cell {name}", "setting": "setting {name}",
          "attribute": "attribute {name}", "defaults": "defaults of {name}"}


def _place(place, tr=lambda m: m) -> str:
    """A captured place ``(kind, name, reader)`` as a message names it (``tr``: the translation, or none)."""
    kind, name, by = place
    text = tr(PLACES[kind]).format(name=name)
    return text if by is None else text + tr(" (read by {fn})").format(fn=by)


def _captures(kernel, meta) -> dict:
    """What a launch of ``kernel`` with the arguments ``meta`` captures, by place: ``(id(holder), name) →
    (holder, place, key, shown)``, for every global and closure cell the kernel's code reads, and the code of
    each function it reaches through them or through a constexpr argument (a ``@triton.jit`` helper, a plain
    function), each library module's setting read as ``mod.attr``, and each plain function's defaults and
    attributes. ``place`` is ``(kind, name, reader)`` (``_place`` words it: ``global SCALE``,
    ``closure cell k (read by f)``); ``shown`` is the value as it was (``_shown``; a name not defined yet
    that is a builtin's shows as ``builtins.abs``). The holder is kept, so no other object takes its address."""
    out: dict = {}
    seen: set = set()

    def put(holder, name, place, v, shown=None):
        out[(id(holder), name)] = (holder, place, _capture_key(v), _shown(v) if shown is None else shown)

    def walk(fn, plain, by):
        if id(fn) in seen:
            return
        seen.add(id(fn))
        found = _reads(fn)
        if found is _NO:
            return
        reads, attrs = found
        g = fn.__globals__
        builtins = g.get("__builtins__", __builtins__)
        builtins = builtins if isinstance(builtins, dict) else vars(builtins)
        for _h, n, _a, _l in reads:
            if n is None:
                continue
            v = g.get(n, _MISSING)
            # (a name the module does not define is the builtin's, if there is one, until the module does)
            put(g, n, ("global", n, by), v, "builtins." + n if v is _MISSING and n in builtins else None)
            reach(v, attrs)
        for n, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            try:
                v = cell.cell_contents
            except ValueError:
                v = _MISSING
            put(cell, None, ("cell", n, by), v)
            reach(v, attrs)
        if plain:
            for attr in ("__defaults__", "__kwdefaults__"):
                v = getattr(fn, attr)
                if v:
                    put(fn, attr, ("defaults", fn.__qualname__, None), v)
            for attr, v in fn.__dict__.items():
                put(fn, attr, ("attribute", fn.__qualname__ + "." + attr, None), v)

    def reach(v, attrs=()):
        v = v.value if isinstance(v, constexpr) else v
        if _is_jit(v):
            walk(v.fn, False, v.fn.__qualname__)
        elif isinstance(v, types.FunctionType) and not _library(getattr(v, "__module__", None)):
            walk(v, True, v.__qualname__)
        elif isinstance(v, types.ModuleType) and _library(v.__name__):
            for a in attrs:
                w = getattr(v, a, _MISSING)
                if w is _MISSING or _scalar(w) is not _NO:
                    put(v, a, ("setting", v.__name__ + "." + a, None), w)
        elif isinstance(v, tuple):
            for x in v:
                reach(x)

    walk(kernel.fn, False, None)
    for name in kernel._constexpr_names:
        if name in meta:
            reach(meta[name])
    return out


def _changed(kernel, now: dict):
    """The first place whose value differs between ``now`` (``_captures``) and what one of ``kernel``'s
    recordings captured there: ``(place, then, now)``, or None."""
    for entry in kernel.__dict__.get("_replays", {}).values():
        if not isinstance(entry, Entry):
            continue
        for at, (_h, place, key, shown) in entry.captures.items():
            cur = now.get(at)
            if cur is not None and cur[2] != key:
                return place, shown, cur[3]
    return None


def _refuse_changed(kernel, change) -> None:
    """Raise :class:`~kernellab.errors.ReplayError` for a capture of ``kernel`` that has changed."""
    place, then, now = change
    name = kernel.__name__
    raise ReplayError(_("kernel {kernel}: {what} has changed since replay recorded this kernel, from {then} to "
                        "{now}; launch it without replay (outside triton.replaying(), without "
                        "@triton.jit(replay=True), or under KERNELLAB_REPLAY=0), or forget its recordings with "
                        "{kernel}.replay_reset()").format(kernel=name, what=_place(place, _), then=then, now=now),
                      kernel=name, changed=_place(place), old=then, new=now)


class Plan:
    """One launch's signature, and what replaying it needs (made by :func:`plan`)."""

    __slots__ = ("kernel", "key", "grid", "arrays", "entry", "num_warps", "captures")

    def __init__(self, kernel, key, grid, arrays, entry, num_warps, captures=None):
        self.kernel, self.key, self.grid, self.arrays, self.entry = kernel, key, grid, arrays, entry
        self.num_warps, self.captures = num_warps, captures  # (captures: a miss's, for its recording)

    def recorder(self, values):
        """A :class:`~kernellab.triton.replay.trace.Recorder` for the fresh launch of ``values`` (what ``_bind`` made)."""
        flats = [v.flat for v in values if v.__class__ is pointer]
        if len(flats) != len(self.arrays):
            return None
        rec = Recorder(flats)
        for v in values:
            if isinstance(v, tensor):
                rec.mark(v, STATIC)
        return rec

    def store(self, entry_or_why, nbytes: int = 0):
        cache = self.kernel.__dict__.setdefault("_replays", {})
        if len(cache) >= ENTRIES:
            _forget(self.kernel, next(iter(cache)))
        cache[self.key] = entry_or_why
        if not nbytes:
            return
        with _LOCK:  # (a kernel that is gone took its traces with it: its entries are dropped; the total keeps
            # no kernel alive, however many a program makes and drops)
            for k in [k for k, (ref, _n) in _KEPT.items() if ref() is None]:
                del _KEPT[k]
            _KEPT[(id(self.kernel), self.key)] = (weakref.ref(self.kernel), nbytes)
            total = sum(n for _r, n in _KEPT.values())
            oldest = []
            while total > TOTAL and len(_KEPT) > 1:  # (the newest is kept: BUDGET bounds it)
                (_id, key), (ref, n) = next(iter(_KEPT.items()))
                del _KEPT[(_id, key)]
                total -= n
                oldest.append((ref(), key))
        for kernel, key in oldest:
            if kernel is not None:
                _forget(kernel, key)

    def replay(self):
        """Run the recorded data flow on this launch's arrays; report and return the recorded counts.

        An error raised before the first store (a value computed from the data out of a function's range)
        is :class:`Rerun`: nothing is written yet, and the launch runs fresh, raising and leaving memory as a
        fresh launch does. (A trace that could raise after a store is refused when recorded.)"""
        e = self.entry
        flats = [memory.flat_view(a) for a in self.arrays]
        values = [None] * e.nvalues
        tally = _NoTally()
        name = self.kernel.__name__
        done = 0  # nodes run
        with np.errstate(all="ignore"):
            try:
                for pids, nodes in e.steps:
                    prog = Program(name, e.grid, pids, tally, {}, num_warps=self.num_warps)
                    token = _CURRENT.set(prog)
                    try:
                        for node, frees in nodes:
                            node.run(values, flats)
                            done += 1
                            for vid in frees:
                                values[vid] = None
                    finally:
                        _CURRENT.reset(token)
            except Exception as exc:
                if done < e.first_store:
                    raise Rerun from exc
                raise
        counts = _copy(e.counts)
        self.kernel._replay_status = "replayed"
        launches.note(name, e.grid, counts, sampled=False)
        return launched(name, "triton", counts, e.grid)


def replayed(kernel, args, given: dict, grid, plan_: Plan):
    """The launch ``plan_`` replays (checked against fresh launches under ``KERNELLAB_REPLAY=check``); a replay
    stopped before its first store (:class:`Rerun`) runs the launch fresh instead, which raises as a fresh
    launch does."""
    try:
        return checked(kernel, args, given, grid, plan_) if CHECK else plan_.replay()
    except Rerun:
        pass
    with disabled():
        return kernel.run(*args, grid=grid, **given)


class Rerun(Exception):
    """A replay stopped by an error before it wrote anything: the launch is to run fresh (and raise its own)."""


class _NoTally:
    """The tally of a replayed step: its counts are the recorded ones, so nothing is counted again."""

    def __getattr__(self, name):
        return _nothing


def _nothing(*args, **kwargs):
    return None


def _copy(counts):
    out = copy.copy(counts)
    for f in ("dram_sectors", "launch", "specialization"):
        v = getattr(out, f, None)
        if isinstance(v, dict):
            object.__setattr__(out, f, dict(v))
    return out


class Entry:
    """A recorded signature: its counts, its steps (``(pids, [(node, vids freed after it), ...])``) and what it
    captured (``_captures``)."""

    __slots__ = ("counts", "steps", "nvalues", "grid", "first_store", "captures")

    def __init__(self, counts, steps, nvalues, grid, captures=None):
        self.counts, self.steps, self.nvalues, self.grid = counts, steps, nvalues, grid
        self.captures = captures or {}
        order = [n for _p, nodes in steps for n, _f in nodes]
        self.first_store = next((i for i, n in enumerate(order) if getattr(n, "store", False)), len(order))


def plan(kernel, args, kwargs, grid, num_warps: int, num_stages: int = 3):
    """The launch's :class:`Plan` (its ``entry`` the recorded replay, None when it is to be recorded), or
    None when it runs fresh and unrecorded (the reason in :func:`status`)."""
    def no(why):
        kernel._replay_status = "unsupported: " + why
        return None

    if kernel.prints or getattr(kernel, "launch_metadata", None) is not None:
        return no("the kernel prints or has launch_metadata")
    if wants_lines(False) or sampling._SAMPLE.get() is not None:
        return no("counts per line or a sampled launch")
    meta = kernel._arguments(args, kwargs)
    if meta is None:
        return no("arguments bound through inspect")
    try:
        g = grid(meta) if callable(grid) else grid
        g3 = dim3(g)
    except Exception:
        return no("the grid")  # the fresh launch says what is wrong with it
    hints = kernel._hints
    try:
        # what earlier launches learnt (engine.run; unset, its defaults): the steps may differ
        learnt = tuple(sorted({"defer": True, "split": False, **hints}.items()))
        hash(learnt)
    except TypeError:
        return no("the kernel's hints")
    gpu = modelled_gpu()
    _GPUS.setdefault(id(gpu), gpu)  # kept: no other GPU is ever at its address
    parts = [g3, num_warps, num_stages, learnt, engine.BATCH, policy.active(), id(gpu), knobs.language.fp32_default]
    arrays, spans = [], []
    constexprs = kernel._constexpr_names
    for name, v in meta.items():
        if name in constexprs:
            k = _constant(v)
            if k is _NO:
                return no("constexpr " + name)
            parts.append(k)
            continue
        if v.__class__ is np.ndarray:
            if v.dtype.name in T._BY_NAME or v.dtype == np.float64:  # (bfloat16, float8: ml_dtypes arrays)
                return no("array " + name + " of " + v.dtype.name)
            address = register_array(v)
            parts.append((v.dtype, v.shape, v.strides, v.flags.writeable, address % 16 == 0))
            spans.append((address, address + v.nbytes))
            arrays.append(v)
            continue
        k = _scalar(v)
        if k is _NO:
            return no("argument " + name + " of type " + type(v).__name__)
        parts.append(k)
    for i in range(len(spans)):  # the aliasing: shared addresses, overlapping memory
        a0, a1 = spans[i]
        for j in range(i):
            b0, b1 = spans[j]
            if a0 == b0 or (a0 < b1 and b0 < a1):
                parts.append((i, j, a0 - b0))
    gk = _globals_key(kernel)
    if gk is _NO:
        return no("a global the kernel reads that is not a constant, or Python a replay would skip (a global "
                  "assigned, print, random numbers, a block's private state, globals(), getattr, open)")
    parts.append(gk)
    key = tuple(parts)
    cache = kernel.__dict__.get("_replays")
    entry = cache.get(key) if cache else None
    if isinstance(entry, str):
        kernel._replay_status = entry
        return Plan(kernel, key, g, arrays, False, num_warps)
    captures = None
    if entry is None:  # a miss: where what a recording captured has changed since, an error (not a new record)
        captures = _captures(kernel, meta)
        change = _changed(kernel, captures)
        if change is not None:
            kernel._replay_status = "changed: " + _place(change[0])
            _refuse_changed(kernel, change)
        kernel._replay_status = "recording"
    return Plan(kernel, key, g, arrays, entry, num_warps, captures)


def checked(kernel, args, kwargs, grid, plan_: Plan):
    """``plan_.replay()``, compared with a fresh launch on copies of the arrays, and then a replay and a fresh
    launch on copies filled with other random values, where a value the record kept that depends on the data
    shows (``KERNELLAB_REPLAY=check``); ReplayMismatch on any difference."""
    arrays = [a for a in (*args, *kwargs.values()) if isinstance(a, np.ndarray)]
    spans = [(a.__array_interface__["data"][0], a.nbytes) for a in arrays]
    if any(a0 < b0 + b1 and b0 < a0 + a1 and (a0, a1) != (b0, b1) for a0, a1 in spans for b0, b1 in spans) \
            or not all(a.flags.c_contiguous for a in arrays):
        return plan_.replay()  # partly overlapping arrays: their copies would not overlap alike
    rng = np.random.default_rng(len(kernel.__dict__.get("_replays", ())))
    before = {id(a): a.copy() for a in arrays}
    fresh = _copies(arrays, before)
    got = plan_.replay()
    want = _quietly(lambda: _fresh(kernel, args, kwargs, grid, fresh))
    _compare(kernel, got, want, [(a, fresh[id(a)]) for a in arrays])
    other = {id(a): _random_like(a, rng) for a in arrays}  # new data of the same signature
    mine, theirs = _copies(arrays, other), _copies(arrays, other)
    again = Plan(kernel, plan_.key, plan_.grid, [mine[id(a)] for a in plan_.arrays], plan_.entry, plan_.num_warps)
    got2 = _outcome(lambda: _quietly(again.replay))
    want2 = _outcome(lambda: _quietly(lambda: _fresh(kernel, args, kwargs, grid, theirs)))
    if isinstance(got2, BaseException) or isinstance(want2, BaseException):  # data outside a function's range
        if not isinstance(got2, Rerun) and (type(got2) is not type(want2) or str(got2) != str(want2)):
            raise ReplayMismatch(f"{kernel.__name__}: on other data the replay gave {got2!r}, a fresh launch "
                                 f"{want2!r}")
    else:
        _compare(kernel, got2, want2, [(mine[id(a)], theirs[id(a)]) for a in arrays], " on other data")
    CHECKED[0] += 1
    kernel._replay_status = "replayed"
    return got


def _outcome(fn):
    """``fn()``, or the exception it raised."""
    try:
        return fn()
    except Exception as exc:
        return exc


def _copies(arrays, contents) -> dict:
    """``id(array) → a copy`` holding ``contents[id(array)]``, at the same address modulo 64 bytes."""
    out = {}
    for a in arrays:
        if id(a) in out:
            continue
        buf = np.empty(a.nbytes + 64, np.uint8)
        k = (a.__array_interface__["data"][0] - buf.ctypes.data) % 64
        c = buf[k:k + a.nbytes].view(a.dtype).reshape(a.shape)
        c[...] = contents[id(a)]
        out[id(a)] = c
    return out


def _random_like(a: np.ndarray, rng) -> np.ndarray:
    if a.dtype.kind == "f":
        return rng.standard_normal(a.shape).astype(a.dtype)
    if a.dtype.kind in "iu":
        info = np.iinfo(a.dtype)
        return rng.integers(info.min, info.max, a.shape, dtype=a.dtype, endpoint=True)
    if a.dtype.kind == "b":
        return rng.integers(0, 2, a.shape).astype(bool)
    return a.copy()


def _fresh(kernel, args, kwargs, grid, copies):
    with disabled():
        return kernel.run(*[copies[id(a)] if isinstance(a, np.ndarray) else a for a in args], grid=grid,
                          **{k: copies[id(a)] if isinstance(a, np.ndarray) else a for k, a in kwargs.items()})


def _quietly(fn):
    """``fn()`` reported to no recorder: the check's launches are no launches of the program's."""
    token = klrecord._RECORDER.set(None)
    try:
        with launches.hidden():
            return fn()
    finally:
        klrecord._RECORDER.reset(token)


def _compare(kernel, got, want, pairs, where=""):
    for f in dataclasses.fields(got):
        if f.name not in ("per_program", "by_line") and getattr(got, f.name) != getattr(want, f.name):
            raise ReplayMismatch(f"{kernel.__name__}: replayed {f.name} {getattr(got, f.name)!r} != fresh "
                                 f"{getattr(want, f.name)!r}{where}")
    for a, b in pairs:
        if a.tobytes() != b.tobytes():  # (contiguous: the check copies only those; a 0-d one has no uint8 view)
            raise ReplayMismatch(f"{kernel.__name__}: a replayed array differs from the fresh launch's{where}")


def finish(plan_: Plan, rec, counts, grid) -> None:
    """Keep the recorded launch (or why it cannot be replayed) under its signature."""
    why = rec.why
    steps = None
    if why is None:
        steps, why = close(rec, BUDGET)
    if why is not None:
        plan_.store("refused: " + why)
        plan_.kernel._replay_status = "refused: " + why
        return
    plan_.store(Entry(_copy(counts), steps, rec.nvalues, grid, plan_.captures), max(rec.nbytes, 1))  # a copy: callers may
    # change the counts' dicts
    plan_.kernel._replay_status = "recorded"


__all__ = ["BUDGET", "BUILTINS", "ENTRIES", "SETTINGS", "TOTAL", "clear", "disabled", "replaying", "status", "wants"]
