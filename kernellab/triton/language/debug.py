"""Debugging, hints and what a CPU simulator cannot run: ``static_print``, ``device_print``,
``device_assert``, ``assume``, ``debug_barrier``, ``condition``, ``map_elementwise``, and the
``NotImplementedError`` of ``inline_asm_elementwise``.

``device_print`` prints one line per program and element, as Triton's interpreter does (``pid (x, y,
z) idx (i, j) prefix value``). ``device_assert`` raises :class:`AssertionError` naming the first
program and lane whose condition is false (Triton checks it only with ``TRITON_DEBUG=1``; here always).
"""

from __future__ import annotations

import builtins
import itertools

import numpy as np

from kernellab.i18n import _

from ..executor import kinds
from ..executor.program import current
from ..executor.tensor import _align, tensor
from .core import _to_tensor, broadcast_to


@kinds.effect
def static_print(*values, sep: str = " ", end: str = "\n", file=None, flush=False, _semantic=None):
    """Print at 'compile' time: here, each time the line runs (once per step of the launch)."""
    builtins.print(*(getattr(v, "value", v) for v in values), sep=sep, end=end, file=file, flush=flush)


@kinds.effect
def device_print(prefix, *args, hex=False, _semantic=None):
    """Print ``prefix`` and the values of ``args`` for every program and element."""
    prog = current()
    ts = [_to_tensor(a) for a in args]
    for row in range(prog.P):
        pid = tuple(int(v) for v in prog.pids[row])
        for t in ts:
            data = t.data[row if t.data.shape[0] > 1 else 0]
            for idx in itertools.product(*(range(n) for n in t._shape)):
                v = data[idx]
                text = f"0x{int(v) & ((1 << (8 * data.dtype.itemsize)) - 1):x}" if hex else str(v.item())
                where = f" idx ({', '.join(map(str, idx))})" if t._shape else ""
                builtins.print(f"pid ({pid[0]}, {pid[1]}, {pid[2]}){where} {prefix}{text}")


@kinds.host
def device_assert(cond, msg="", mask=None, _semantic=None):
    """Raise AssertionError if ``cond`` is false for some lane (where ``mask`` holds)."""
    c = _to_tensor(cond)
    ok = c.data.astype(bool)
    if mask is not None:
        m = _to_tensor(mask)
        nd = builtins.max(len(c._shape), len(m._shape))
        ok = _align(ok, c._shape, nd, False) | ~_align(m.data.astype(bool), m._shape, nd, False)
    if ok.all():
        return
    prog = current()
    bad = ~ok.reshape(ok.shape[0], -1)
    row = int(np.argmax(bad.any(axis=1)))
    lane = int(np.argmax(bad[row]))
    where = prog.where(row if ok.shape[0] > 1 else 0)
    raise AssertionError(_("{where}, lane {lane}: device_assert failed: {msg}").format(
        where=where, lane=lane, msg=msg))


@kinds.host
def assume(cond, _semantic=None):
    """Compiler hint that ``cond`` holds; checked here like ``device_assert``."""
    device_assert(cond, "tl.assume: the assumed condition is false")


@kinds.pure
def debug_barrier(_semantic=None):
    """A barrier for the threads of one program; programs here have no threads to wait for."""


@kinds.pure
def condition(cond, disable_licm=False):
    """The condition of a ``while`` loop (``while tl.condition(i < n):``), unchanged."""
    return cond


@kinds.pure
def expect_zero(x, mask, _semantic=None):
    """Mark values expected to have underflowed to zero: returns ``x`` unchanged (as a regular build)."""
    return x


@kinds.pure
def map_elementwise(scalar_fn, *args, pack=1, _semantic=None, _generator=None):
    """Apply ``scalar_fn`` (a ``@triton.jit`` function of scalars, free to branch) to every element of the
    broadcast ``args``. Runs element by element: slow, but any Python control flow works."""
    ts = [_to_tensor(a) for a in args]
    shape = ()
    for t in ts:
        shape = np.broadcast_shapes(shape, t._shape)
    ts = [broadcast_to(t, shape) if t._shape != shape else t for t in ts]
    outs = None
    for idx in itertools.product(*(range(n) for n in shape)):
        scalars = [tensor(np.ascontiguousarray(t.data[(slice(None), *idx)]), t.dtype, ()) for t in ts]
        r = scalar_fn(*scalars)
        r = list(r) if isinstance(r, tuple) else [r]
        r = [_to_tensor(v) for v in r]
        if outs is None:
            rows = builtins.max([t.data.shape[0] for t in ts] + [v.data.shape[0] for v in r])
            outs = [np.zeros((rows, *shape), v.dtype.np) for v in r]
            types = [v.dtype for v in r]
        for o, v in zip(outs, r):
            o[(slice(None), *idx)] = v.data
    res = [tensor(o, t, shape) for o, t in zip(outs, types)]
    return res[0] if len(res) == 1 else tuple(res)


def _cannot(name: str, why):
    def fn(*args, **kwargs):
        raise NotImplementedError(_("tl.{name} is not supported by kernellab: {why}").format(
            name=name, why=why()))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Not supported: raises NotImplementedError ({why.__doc__})."
    return kinds.effect(fn)


def _asm():
    """it runs PTX or GCN assembly, and a CPU simulator has no GPU instruction set to run it on"""
    return _("it runs PTX or GCN assembly, and a CPU simulator has no GPU instruction set to run it on")


inline_asm_elementwise = _cannot("inline_asm_elementwise", _asm)

__all__ = ["assume", "condition", "debug_barrier", "device_assert", "device_print", "expect_zero",
           "inline_asm_elementwise", "map_elementwise", "static_print"]
