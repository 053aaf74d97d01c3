"""Atomic operations of ``triton.language``: ``atomic_add``, ``atomic_max``, ``atomic_cas``, ``atomic_xchg``, …

Every one reads the old value, writes the new one in a single step, and returns the old values (for
lanes where ``mask`` is false: 0, which nothing should read). ``sem`` and ``scope`` are checked and
accepted; on one simulated device every order is already sequentially consistent.

**Order.** The lanes of a launch take effect one after another in launch order: program by program
(x fastest), and within a program in row-major lane order. The final values are therefore those of a
sequential run; for integer operations and exchanges any order gives the same finals, for floating
``atomic_add`` a GPU's order (and its last bits) may differ.

**Counts.** Each call counts once per program in ``atomics``; ``atomic_requests`` and
``atomic_sectors`` are the warp requests and 32-byte sectors of its active lanes (as the ``atom`` /
``red`` instructions of Nsight Compute's ``l1tex__t_requests_pipe_lsu_mem_global_op_atom``), and
``atomic_bytes`` is active lanes × element size — the operand each lane sends; the old value it gets
back is the same size again and is not counted twice. ``atomic_same_address`` is the most updates any
one element receives in the launch: the L2 serialises them, and the performance model charges them.
"""

from __future__ import annotations

import bisect
import dis
import functools
import os
import sys

import numpy as np

from kernellab.i18n import _
from kernellab.lane_order import in_lane_order

from ..executor import dtypes as T
from ..executor import kinds, locks, memory, sampling
from ..executor.program import Divergence, SplitLocks, current
from ..executor.tensor import _align, _tensor_member_fn, broadcast_shape, convert, facts, pointer, tensor
from ..executor.view import spread
from .core import _to_tensor

SPIN_LIMIT = 1000  # failed compare-and-swaps in a row after which a lone program is deadlocked
_SEMS = (None, "", "acquire", "release", "acq_rel", "relaxed")
_SCOPES = (None, "", "gpu", "cta", "sys")


def _check_order(op: str, sem, scope):
    sem, scope = getattr(sem, "value", sem), getattr(scope, "value", scope)
    if sem not in _SEMS:
        raise ValueError(_("tl.{op}: sem must be one of acquire, release, acq_rel, relaxed, not "
                           "{sem!r}").format(
            op=op, sem=sem))
    if scope not in _SCOPES:
        raise ValueError(_("tl.{op}: scope must be one of gpu, cta, sys, not {scope!r}").format(
            op=op, scope=scope))


def _lanes(op: str, ptr, others, mask):
    """Offsets, values and mask broadcast to ``(P, *shape)`` (one row per program of the step)."""
    if not isinstance(ptr, pointer):
        raise TypeError(_("tl.{op} needs a pointer (an array argument plus offsets), got {type}").format(
            op=op, type=type(ptr).__name__))
    prog = current()
    ts = [_to_tensor(o) for o in others]
    shape = ptr._shape
    for t in ts:
        shape = broadcast_shape(shape, t._shape)
    m = None
    if mask is not None:
        m = _to_tensor(mask)
        shape = broadcast_shape(shape, m._shape)
    nd = len(shape)
    full = (prog.P, *shape)
    offs = spread(_align(ptr.data, ptr._shape, nd, False), full)
    elem = ptr.dtype.element_ty
    vals = [spread(_align(convert(t.data, t.dtype, elem), t._shape, nd, False), full) for t in ts]
    act = None if m is None else spread(_align(m.data.astype(bool), m._shape, nd, False), full)
    return prog, offs, vals, act, shape, elem


def _read_codes(elem):
    """Read an element format's stored codes (float8 bytes) as values."""
    return lambda flat, idx: elem.decode(flat[idx])


def _write_codes(elem):
    """Store values as an element format's codes."""
    def write(flat, idx, v):
        flat[idx] = elem.encode(v)
    return write


def _atomic(op: str, ptr, others, mask, sem, scope, fn, returns=True):
    _check_order(op, sem, scope)
    prog, offs, vals, act, shape, elem = _lanes(op, ptr, others, mask)
    flat = ptr.flat
    memory.check(prog, op, flat, offs, act)
    rows = offs.shape[0]
    # the bytes it updates, summed over the step's programs (offs and act hold a row for each)
    prog.tail.append((offs.size if act is None else int(np.count_nonzero(act))) * flat.itemsize)
    prog.tally.access("atomic", offs.reshape(rows, -1) * flat.itemsize,
                      None if act is None else act.reshape(rows, -1), flat.itemsize)
    how = (facts(ptr), None if mask is None else facts(_to_tensor(mask), ptr._shape), ptr._shape)
    is_float = elem.is_floating()
    prog.tally.atomic_layout(how, flat.itemsize, prog.num_warps, op, is_float, prog.P)
    lay = ("atomic", how, flat.itemsize, prog.num_warps, op, is_float)
    for t in _tensors(others):  # a value reaching the atomic under another layout is converted
        if t._lay is not None and t._shape == ptr._shape:
            prog.tally.converted(t._lay, lay, 8 * flat.itemsize, prog.num_warps, prog.P)
    if ptr._lay is not None and ptr._shape:  # pointers computed from loaded values: converted too (64 bits)
        prog.tally.converted(ptr._lay, lay, 64, prog.num_warps, prog.P)
    if mask is not None and getattr(mask, "_lay", None) is not None and mask._shape == ptr._shape:
        prog.tally.converted(mask._lay, lay, 8, prog.num_warps, prog.P)  # a mask from loaded values (i1 as i8)
    if not ptr._shape and returns and _result_used():  # one thread's atomic, its old value sent to all
        prog.tally.broadcast(prog.num_warps, prog.P)
    sel = np.ones(offs.shape, bool) if act is None else act
    addr = offs[sel]
    # it writes only where its kept lanes point
    prog.before_store(flat, lambda: (int(addr.min()), int(addr.max()) + 1) if addr.size else (0, 0))
    prog.touch(flat, offs, act)
    if shape:  # a block: its lanes row-major in warps of 32, each warp's same-address lanes merged (access.merged_updates)
        numel = int(np.prod(shape))
        warp = np.arange(rows)[:, None] * -(-numel // 32) + np.arange(numel)[None, :] // 32
        prog.tally.atomic_targets(flat, addr, warp_of=warp.reshape(offs.shape)[sel])
    else:  # a scalar: one thread of the program issues it
        prog.tally.atomic_targets(flat, addr)
    old_act = in_lane_order(flat, addr, [v[sel] for v in vals], fn, elem.np,
                             *((_read_codes(elem), _write_codes(elem)) if elem.__class__ is T.float_format else ()))
    old = np.zeros(offs.shape, elem.np)
    old[sel] = old_act
    if not returns:
        return None
    out = tensor(old, elem, shape)
    if shape == ptr._shape and shape:
        out._lay = lay
    return out


def _result_used() -> bool:
    """Whether the kernel's line that called the atomic uses its result (Triton's
    ``atomicNeedsSharedMemory``: a scalar atomic whose result has uses broadcasts it through shared
    memory). Read from the kernel's bytecode: a call whose value is popped at once is unused."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(_LANGUAGE_DIR):
        frame = frame.f_back
    if frame is None:
        return True
    return _next_op(frame.f_code, frame.f_lasti) != "POP_TOP"


_LANGUAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # kernellab/triton


@functools.lru_cache(maxsize=256)
def _ops(code) -> tuple:
    ops = list(dis.get_instructions(code))  # without the CACHE entries that follow a call
    return tuple(i.offset for i in ops), tuple(i.opname for i in ops)


def _next_op(code, lasti: int) -> str | None:
    """The first instruction after the one at byte ``lasti`` (a frame's ``f_lasti``, which during a call
    points at the call or at its last inline cache entry)."""
    offsets, names = _ops(code)
    i = bisect.bisect_right(offsets, lasti)
    return names[i] if i < len(names) else None


def _tensors(others):
    """The tensors among an atomic's value operands."""
    return [o for o in others if isinstance(o, tensor)]


def _rmw(name: str, fn, doc: str):
    def op(pointer, val, mask=None, sem=None, scope=None, _semantic=None) -> tensor:
        return _atomic(name, pointer, [val], mask, sem, scope, fn)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc + " Returns the old values; lanes take effect in launch order (see the module)."
    return _tensor_member_fn(kinds.memory(op))


def _check_int(name):
    def fn(old, v):
        if old.dtype.kind == "f":
            raise TypeError(_("tl.{name} needs integer pointers, got {dtype}").format(
                name=name, dtype=old.dtype))
        return {"atomic_and": np.bitwise_and, "atomic_or": np.bitwise_or, "atomic_xor": np.bitwise_xor}[name](old, v)

    return fn


atomic_add = _rmw("atomic_add", np.add, "``*pointer += val`` atomically where ``mask`` holds.")
atomic_max = _rmw("atomic_max", np.maximum, "``*pointer = max(*pointer, val)`` atomically.")
atomic_min = _rmw("atomic_min", np.minimum, "``*pointer = min(*pointer, val)`` atomically.")
atomic_and = _rmw("atomic_and", _check_int("atomic_and"), "``*pointer &= val`` atomically (integers).")
atomic_or = _rmw("atomic_or", _check_int("atomic_or"), "``*pointer |= val`` atomically (integers).")
atomic_xor = _rmw("atomic_xor", _check_int("atomic_xor"), "``*pointer ^= val`` atomically (integers).")


@kinds.memory
@_tensor_member_fn
def atomic_xchg(pointer, val, mask=None, sem=None, scope=None, _semantic=None) -> tensor:
    """``*pointer = val`` atomically. Returns the old values; lanes take effect in launch order (see the module).

    A scalar exchange of the lock word the program took with ``tl.atomic_cas`` releases that lock and ends its
    critical section (:mod:`kernellab.triton.executor.locks`).
    """
    out = _atomic("atomic_xchg", pointer, [val], mask, sem, scope, lambda old, v: v)
    prog = current()
    if prog.lock is not None and not pointer._shape and (mask is None or bool(np.all(_to_tensor(mask).data))):
        locks.released(prog, pointer.flat, pointer.data)
    return out


@kinds.memory
@_tensor_member_fn
def atomic_cas(pointer, cmp, val, sem=None, scope=None, _semantic=None) -> tensor:
    """Compare and swap: where ``*pointer == cmp``, write ``val``; returns the old values (a lock:
    ``while tl.atomic_cas(lock, 0, 1) == 1: pass``).

    A scalar compare-and-swap whose answer the program reads and that swaps takes a lock: the program's critical
    section runs until it releases the word with ``tl.atomic_xchg`` (:mod:`kernellab.triton.executor.locks`, which
    the performance model charges). Programs of one vectorised step that take the same word run in steps whose
    words differ (:class:`~kernellab.triton.executor.program.SplitLocks`).
    Programs here run one after another, so a program spinning on a lock that an earlier program left
    taken would spin forever: after ``SPIN_LIMIT`` compare-and-swaps in a row that swap nothing, a
    program running alone raises RuntimeError instead.
    """
    swapped = []

    def cas(old, c, v):
        hit = old == c
        swapped.append(bool(hit.any()))
        return np.where(hit, v, old)

    prog = current()
    spin = not pointer._shape and _result_used()  # a scalar compare-and-swap whose answer the program reads
    word = int(np.asarray(pointer.data).reshape(-1)[0]) if spin and prog.P == 1 else None
    before = None if word is None or not 0 <= word < pointer.flat.size else pointer.flat[word].copy()
    out = _atomic("atomic_cas", pointer, [cmp, val], None, sem, scope, cas)
    if spin and any(swapped):  # it took a lock word (kernellab.triton.executor.locks)
        if sampling.active():  # a sample cannot price a lock's chain: undo the swap, run the launch in full
            if word is not None:  # (a vectorised step is undone as a whole)
                pointer.flat[word] = before
            raise sampling.Locked
        took = np.asarray(out.data).reshape(-1) == spread(np.asarray(_to_tensor(cmp).data), (prog.P,))
        if not took.all():  # a program found its word taken by an earlier one of the step: split the step there
            k = int(np.argmin(took))
            raise SplitLocks(k) if k else Divergence
        locks.acquired(prog, pointer.flat, pointer.data)
    prog.failed_cas = 0 if any(swapped) else prog.failed_cas + 1
    if prog.P == 1 and prog.failed_cas > SPIN_LIMIT:
        raise RuntimeError(_("{where}: tl.atomic_cas found the lock taken {SPIN_LIMIT} times in "
                             "a row; programs run one after another here, so no other program "
                             "can release it (was it released with tl.atomic_xchg after use?)").format(
            where=prog.where(0), SPIN_LIMIT=SPIN_LIMIT))
    return out


@kinds.memory
@_tensor_member_fn
def atomic_load(pointer, mask=None, sem=None, scope=None, _semantic=None) -> tensor:
    """Read atomically (counted as an atomic, not as a load)."""
    return _atomic("atomic_load", pointer, [], mask, sem, scope, lambda old: old)


@kinds.memory
@_tensor_member_fn
def atomic_store(pointer, val, mask=None, sem=None, scope=None, _semantic=None) -> None:
    """Write atomically (counted as an atomic, not as a store)."""
    _atomic("atomic_store", pointer, [val], mask, sem, scope, lambda old, v: v, returns=False)


@kinds.memory
@_tensor_member_fn
def atomic_poll(pointer, expected_value, sem=None, scope=None, timeout_ns=None, _semantic=None) -> tensor:
    """Wait until ``*pointer == expected_value``. Programs here run one after another, so a value that
    is not there yet never will be: that raises RuntimeError instead of hanging."""
    old = atomic_load(pointer, None, sem, scope)
    if not bool(np.all(old.data == _to_tensor(expected_value).data)):
        raise RuntimeError(_("tl.atomic_poll would wait forever: kernellab runs programs in "
                             "launch order, and no earlier program wrote the expected value"))
    return old


__all__ = ["atomic_add", "atomic_and", "atomic_cas", "atomic_load", "atomic_max", "atomic_min", "atomic_or",
           "atomic_poll", "atomic_store", "atomic_xchg", "atomic_xor"]
