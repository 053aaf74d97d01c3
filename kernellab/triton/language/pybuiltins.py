"""The environment a ``@triton.jit`` function runs in: Python's ``min`` and ``max`` on blocks mean
``tl.minimum`` and ``tl.maximum``, as Triton's code generator makes them.

Triton compiles a kernel, so ``min(num_pid_m - first_pid_m, GROUP_SIZE_M)`` (the grouped ordering of
the matmul tutorial) is an elementwise minimum of two values of each program. Run as Python it would
call ``bool()`` on a comparison of per-program values, which no vectorised step can answer. kernellab
does not rewrite the kernel's source: the function runs with the same code object and closure, over
:class:`KernelGlobals`, a view of its module's globals (read live, so functions defined after the
kernel are found) that adds this module's :func:`min` and :func:`max` before Python's builtins. A
module that defines its own ``min`` keeps it. On anything but blocks they are Python's own.

Examples
--------
>>> import numpy as np
>>> import kernellab.triton as triton
>>> import kernellab.triton.language as tl
>>> @triton.jit
... def group_rows(out_ptr, num_pid_m, GROUP: tl.constexpr):
...     first = (tl.program_id(0) // GROUP) * GROUP
...     tl.store(out_ptr + tl.program_id(0), min(num_pid_m - first, GROUP))
>>> out = np.zeros(7, np.int32)
>>> _ = group_rows[(7,)](out, 7, GROUP=3); out.tolist()       # groups of 3 rows, the last of 1
[3, 3, 3, 3, 3, 3, 1]
>>> min(3, 5), max([1, 4, 2])
(3, 4)
"""

from __future__ import annotations

import builtins
import types

from ..executor.loops import kernel_range
from ..executor.tensor import tensor
from .math import maximum, minimum


def _fold(op, args):
    out = args[0]
    for a in args[1:]:
        out = op(out, a)
    return out


def min(*args, **kwargs):
    """``tl.minimum`` folded over two or more values when one is a block; Python's ``min`` otherwise."""
    if len(args) >= 2 and not kwargs and builtins.any(isinstance(a, tensor) for a in args):
        return _fold(minimum, args)
    return builtins.min(*args, **kwargs)


def max(*args, **kwargs):
    """``tl.maximum`` folded over two or more values when one is a block; Python's ``max`` otherwise."""
    if len(args) >= 2 and not kwargs and builtins.any(isinstance(a, tensor) for a in args):
        return _fold(maximum, args)
    return builtins.max(*args, **kwargs)


def range(*args):
    """``range`` in a kernel: Triton's ``scf.for``, a loop the running program knows of (its pipelining,
    :mod:`kernellab.triton.executor.loops`); Python's ``range`` values."""
    return kernel_range(*args)


#: What a kernel sees in place of Python's builtins of the same name.
KERNEL_BUILTINS = {"min": min, "max": max, "range": range}


class KernelGlobals(dict):
    """A kernel's globals: its module's, looked up live, then :data:`KERNEL_BUILTINS`, then Python's builtins.

    Only ``__builtins__`` is stored in the dict itself; every other name is found by ``__missing__``
    (CPython looks a function's globals up through it when they are not an exact ``dict``). A kernel
    that assigns a global (``global n; n = 1``) writes to its module, as Python would.
    """

    __slots__ = ("module",)

    def __init__(self, module: dict):
        super().__init__()
        self.module = module
        dict.__setitem__(self, "__builtins__", module.get("__builtins__", builtins))

    def __missing__(self, key):
        try:
            return self.module[key]
        except KeyError:
            pass
        if key in KERNEL_BUILTINS:
            return KERNEL_BUILTINS[key]
        raise KeyError(key)

    def __setitem__(self, key, value):
        self.module[key] = value

    def __delitem__(self, key):
        del self.module[key]


def in_kernel_environment(fn):
    """``fn`` with the same code, defaults and closure, running over :class:`KernelGlobals`."""
    if not isinstance(fn, types.FunctionType):
        return fn
    out = types.FunctionType(fn.__code__, KernelGlobals(fn.__globals__), fn.__name__, fn.__defaults__,
                             fn.__closure__)
    out.__kwdefaults__ = fn.__kwdefaults__
    out.__qualname__, out.__module__, out.__doc__ = fn.__qualname__, fn.__module__, fn.__doc__
    out.__dict__.update(fn.__dict__)
    return out


__all__ = ["KERNEL_BUILTINS", "KernelGlobals", "in_kernel_environment", "max", "min", "range"]
