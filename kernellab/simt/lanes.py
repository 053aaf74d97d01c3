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
>>> type(m).__name__, int(np.count_nonzero(m))
('Lanes', 28)
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import KernelValueError
from ..i18n import _

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
        if isinstance(kwargs.get("where"), Lanes):  # a mask of lane values (numpy would come back here for it)
            kwargs["where"] = kwargs["where"].view(np.ndarray)
        result = getattr(ufunc, method)(*args, **kwargs)
        if counter is None:
            return result
        if method != "__call__":
            result = count_method(counter, ufunc, method, inputs, args, kwargs, result)
            return out[0] if out is not None and len(out) == 1 else lanes(result, counter, chain)
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


def count_method(counter, ufunc, method: str, inputs, args, kwargs: dict, result):
    """Count a ufunc method other than a plain call on lane values into ``counter`` (its block), as CUDA compiles it,
    and return ``result``; refuse (:class:`~kernellab.errors.KernelValueError`) what is not one instruction per
    operation per lane.

    A lane's values are the rows of the lanes array (axis 0 is the lanes), so what a lane holds is a small
    vector in registers (an ``int4``/``float4`` load, ``(lanes, 4)``):

    * ``reduce`` along a lane's own axes (``v.sum(axis=1)``, ``v.max(axis=1)``, ``v.all(axis=1)``): nvcc unrolls
      it into k − 1 instructions a lane for each result of k components (``IADD3``, ``IMNMX``, ``LOP3``:
      Nsight Compute's ``smsp__inst_executed`` counts each once a warp), of the kind of a plain call
      (:func:`count_ufunc`);
    * ``accumulate`` along a lane's own axis (``v.cumsum(axis=1)``): the same k − 1 a lane (the first
      component is the operand itself);
    * ``outer(a, b)`` with ``a`` lane values and ``b`` not (``np.multiply.outer(blk.tx, np.arange(3))``): one
      instruction for each of a lane's ``len(a) · len(b)`` products.

    Refused, since none is one instruction a lane: a reduce or accumulate over the lanes (``axis`` 0 or None: in
    CUDA warp shuffles, a vote or shared memory), an ``outer`` whose second operand holds lane values (it pairs
    one lane's values with every other lane's), a masked or seeded reduce (``where=``, ``initial=``),
    ``reduceat`` and ``at``. Floating-point arithmetic is not counted here, as for a plain call (``blk.fadd``);
    a comparison after it is (``FSETP``), since the result is lane values again.
    """
    n = args[0].ndim if isinstance(args[0], np.ndarray) else 0
    axis = kwargs.get("axis", 0)
    axes = tuple(range(n)) if axis is None or not n else tuple(
        a % n for a in (axis if isinstance(axis, tuple) else (axis,)))
    if method in ("reduce", "accumulate") and isinstance(inputs[0], Lanes) and 0 not in axes and n > 1 and (
            kwargs.get("where", True) is True and "initial" not in kwargs):
        k = math.prod(args[0].shape[a] for a in axes)
        per_lane = args[0].size // args[0].shape[0] if args[0].shape[0] else 0
        ops = per_lane - per_lane // k if k else 0  # k - 1 for each of the per_lane / k results
    elif method == "outer" and isinstance(inputs[0], Lanes) and not isinstance(inputs[1], (Lanes, HeldLanes)):
        ops = result.size // result.shape[0] if result.shape[0] else 0
    else:
        where, block = getattr(counter, "_name", None), _block_of(counter)
        call = f"np.{ufunc.__name__}.{method}" + (f"(axis={axis!r})" if method in ("reduce", "accumulate") else "")
        raise KernelValueError(_(
            "kernel {kernel}, block {block}: {call} on lane values is not counted: only a reduce or accumulate "
            "along a lane's own axes (1 and after, unmasked, with no initial value) and an outer product whose first "
            "operand alone holds lane values are one instruction a lane; a reduction over the lanes is, in CUDA, "
            "warp shuffles, a vote or shared memory").format(kernel=where, block=block, call=call),
            kernel=where, block=block, call=call)
    if ops:
        first = result[0] if isinstance(result, tuple) else result
        count_ufunc(counter, ufunc.__name__, args, first.dtype, ops)
    return result


def _block_of(counter) -> str:
    """The block (``(x,y,z)`` text) of the first active lane of ``counter``'s batch, "?" when it has no blocks."""
    masks = getattr(counter, "_masks", None)
    if not masks:
        return "?"
    active = np.flatnonzero(masks[-1][0])
    return counter._index_of(int(active[0]) if active.size else 0, "bx", "by", "bz")


def lanes(values, counter, chain: tuple = (0, 0)) -> Lanes:
    """``values`` (a numpy array) as :class:`Lanes` counting into ``counter`` (anything else as it is), behind a
    chain of ``chain`` = (global, shared) dependent loads."""
    if not isinstance(values, np.ndarray) or values.ndim == 0:
        return values
    v = values.view(Lanes)
    v._counter = counter
    v._chain = chain
    return v
