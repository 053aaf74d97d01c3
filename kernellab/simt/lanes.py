"""Lane values that count the integer work done on them: what nvcc compiles Python arithmetic on lanes into.

``blk.tx``, ``blk.bx`` and the other indices are :class:`Lanes`, a numpy array over the lanes of the
batch. Every numpy ufunc on them computes as on a plain array and counts, for each warp active at that
point of the kernel, the warp instructions nvcc emits for it (:data:`UFUNC_COST`): an integer add,
multiply, shift or bitwise operation is one (``IADD3``, ``IMAD``, ``SHF``, ``LOP3``), a comparison one
(``ISETP``; ``FSETP`` on floats), and an integer ``%`` or ``//`` the 18 of an unsigned division by a
value the compiler does not know (``I2F.U32.RP``, ``MUFU.RCP``, ``F2I``, ``IMAD.HI``, …, as in the SASS
of Harris's reduction kernel 1, ``cuda/r01_interleaved_divergent.cu``). Arithmetic whose result is a
float is not counted here (``blk.fma``, ``blk.fadd`` and ``blk.fmul`` count floating-point work), and
neither is arithmetic on plain Python numbers (constants and loop counters: the uniform datapath).

The results of counted operations are :class:`Lanes` again, so a chain of index arithmetic counts
each step. Simplifications nvcc makes are not seen: ``a * b + c`` is counted as two instructions where
nvcc fuses one ``IMAD``, and a division by a constant power of two as 18 where nvcc shifts (write
``>>`` and ``&`` for those, as one would in CUDA).

Examples
--------
>>> import numpy as np
>>> counted = []
>>> class Recorder:                                 # what a Block does with the counts
...     def _lane_op(self, cost, per_lane): counted.extend((kind, n, per_lane) for kind, n in cost)
>>> tx = lanes(np.arange(64), Recorder())
>>> i = tx * 2 + 1                                   # IMAD, IADD3
>>> m = (i % 7) < 3                                  # an unsigned division (18), an ISETP
>>> [(k, n) for k, n, _ in counted]
[('int', 1), ('int', 1), ('int', 15), ('other', 3), ('int', 1)]
>>> type(m).__name__, int(m.sum())
('Lanes', 28)
"""

from __future__ import annotations

import numpy as np

#: Warp instructions per lane-parallel numpy ufunc, by kind (``kernellab.counters.OVERHEAD_KINDS``):
#: one SASS integer instruction for each simple operation; an integer division or remainder by a value
#: nvcc cannot see at compile time is the 15 integer and 3 other instructions of its unsigned-division
#: sequence (counted in the sm_86 SASS of ``cuda/r01_interleaved_divergent.cu``: I2F.U32.RP, IADD3,
#: ISETP, MUFU.RCP, IADD3, F2I, IMAD.MOV, IMAD, IMAD.HI ×2, IADD3, IMAD, ISETP, IMAD.IADD, ISETP, IADD3,
#: LOP3, and the IMAD.SHL of 2·s).
UFUNC_COST = {
    **{name: (("int", 1),) for name in (
        "add", "subtract", "multiply", "left_shift", "right_shift", "bitwise_and", "bitwise_or", "bitwise_xor",
        "invert", "negative", "positive", "absolute", "minimum", "maximum", "logical_and", "logical_or",
        "logical_not", "logical_xor", "less", "less_equal", "greater", "greater_equal", "equal", "not_equal")},
    **{name: (("int", 15), ("other", 3)) for name in ("remainder", "floor_divide", "fmod", "divmod")},
}
_COMPARISONS = frozenset({"less", "less_equal", "greater", "greater_equal", "equal", "not_equal"})


class Lanes(np.ndarray):
    """A numpy array over the lanes whose ufuncs count their instructions into a block (see the module).

    ``_chain`` is the longest chain of dependent loads behind the values, ``(global, shared)``: a value
    loaded at an address computed from another loaded value is one load further along the chain (a pointer
    chase). Arithmetic keeps the longest chain of its operands.
    """

    _counter = None
    _chain = (0, 0)

    def __array_finalize__(self, obj):
        self._counter = getattr(obj, "_counter", None)
        self._chain = getattr(obj, "_chain", (0, 0))

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        counter = None
        chain = (0, 0)
        args = []
        for x in inputs:
            if isinstance(x, Lanes):
                counter = counter or x._counter
                if x._chain != (0, 0):
                    chain = (max(chain[0], x._chain[0]), max(chain[1], x._chain[1]))
                args.append(x.view(np.ndarray))
            elif isinstance(x, HeldLanes):
                return NotImplemented  # it computes and counts (kernellab.simt.tiled)
            else:
                args.append(x)
        if out is not None:
            if any(isinstance(o, HeldLanes) for o in out):
                return NotImplemented
            kwargs["out"] = tuple(o.view(np.ndarray) if isinstance(o, Lanes) else o for o in out)
        result = getattr(ufunc, method)(*args, **kwargs)
        if method != "__call__" or counter is None:
            return result
        first = result[0] if isinstance(result, tuple) else result
        if isinstance(first, np.ndarray) and first.ndim:
            count_ufunc(counter, ufunc.__name__, args, first.dtype, first.size // first.shape[0] if first.shape[0] else 0)
        if out is not None:
            return out[0] if len(out) == 1 else out
        if isinstance(result, tuple):
            return tuple(lanes(r, counter, chain) for r in result)
        return lanes(result, counter, chain)


class HeldLanes:
    """A lane value held in another form than a lanes array (:class:`kernellab.simt.tiled.Tiled`): a ufunc with one
    among its operands is left to it (:class:`Lanes` answers NotImplemented), which computes and counts it."""

    __slots__ = ()


def count_ufunc(counter, name: str, args, dtype: np.dtype, per_lane: int) -> None:
    """Count the ufunc ``name`` on lane values into ``counter`` (its block): the instructions of
    :data:`UFUNC_COST` for ``per_lane`` elements a lane; ``args`` its operands (a comparison is an ``FSETP``,
    "other", when one is a float), ``dtype`` its result's (arithmetic with a float result is not counted here)."""
    cost = UFUNC_COST.get(name)
    if cost is None:
        return
    if name in _COMPARISONS:  # ISETP, or FSETP when an operand is a float
        floaty = any(isinstance(a, float) or getattr(a, "dtype", np.dtype(int)).kind in "fc" for a in args)
        cost = (("other" if floaty else "int", 1),)
    elif dtype.kind not in "iub":
        return
    counter._lane_op(cost, max(1, per_lane))


def lanes(values, counter, chain: tuple = (0, 0)) -> Lanes:
    """``values`` (a numpy array) as :class:`Lanes` counting into ``counter`` (anything else as it is), behind a
    chain of ``chain`` = (global, shared) dependent loads."""
    if not isinstance(values, np.ndarray) or values.ndim == 0:
        return values
    v = values.view(Lanes)
    v._counter = counter
    v._chain = chain
    return v
