"""The lecture form's front end: ``triton_launch(kernel, grid, *args, **meta)`` with ``kernel(tl, ...)``.

The kernel receives a :class:`SeedLanguage` as ``tl``. Its ``load``/``store`` take a numpy array and a
block of element offsets, exactly as the lecture script's kernels call them, and loaded blocks are
plain numpy arrays (the kernels call ``np.max``, ``np.exp`` and ``.astype`` on them). Programs run one
after another through the shared engine (:mod:`kernellab.triton.executor.engine`), which counts every access.
"""

from __future__ import annotations

import inspect

import numpy as np

from kernellab.i18n import _

from ..float64 import warn_float64
from ..grid import cdiv
from ..lines import LineFinder
from ..record import wants_lines
from ..tracebacks import user_traceback
from .executor import memory, numerics
from .executor.counts import TritonCounts
from .executor.engine import run
from .executor.perprogram import NotBatchable, PerProgram, batched
from .executor.program import Program
from .language import extra as _extra
from .runtime.jit import _prints


class SeedLanguage:
    """The ``tl`` a lecture-form kernel receives: Triton's block operations on numpy arrays and offsets.

    Examples
    --------
    >>> def copy(tl, x, y, n, BLOCK):
    ...     offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ...     tl.store(y, offs, tl.load(x, offs, mask=offs < n), mask=offs < n)
    >>> x, y = np.arange(10, dtype=np.float32), np.zeros(10, np.float32)
    >>> cnt = triton_launch(copy, 3, x, y, 10, BLOCK=4)
    >>> bool((y == x).all()), cnt["programs"], cnt["load_bytes"], cnt["store_bytes"]   # 10 floats × 4 B
    (True, 3, 40, 40)
    """

    __slots__ = ("_prog",)

    def __init__(self, prog: Program):
        self._prog = prog

    def program_id(self, axis: int = 0) -> int:
        """This program's id along ``axis``, a Python int (ValueError for an axis other than 0, 1 or 2)."""
        return int(self._prog.program_id(axis)[0])

    def num_programs(self, axis: int = 0) -> int:
        """Programs along ``axis`` of the grid."""
        return self._prog.grid[axis]

    @staticmethod
    def arange(start: int, end: int) -> np.ndarray:
        """``np.arange(start, end)`` as int32; the length must be a power of two, as in Triton."""
        numerics.check_arange(start, end)
        return np.arange(start, end, dtype=np.int32)

    @staticmethod
    def zeros(shape, dtype=np.float32) -> np.ndarray:
        """A block of zeros, float32 unless told otherwise (the accumulator of ``tl.dot``)."""
        return np.zeros(numerics.check_shape(shape), np.dtype(getattr(dtype, "np", dtype)))

    @staticmethod
    def full(shape, value, dtype=np.float32) -> np.ndarray:
        return np.full(numerics.check_shape(shape), value, np.dtype(getattr(dtype, "np", dtype)))

    cdiv = staticmethod(cdiv)
    where = staticmethod(np.where)
    exp = staticmethod(np.exp)
    log = staticmethod(np.log)
    sqrt = staticmethod(np.sqrt)
    maximum = staticmethod(np.maximum)
    minimum = staticmethod(np.minimum)
    extra = _extra  # tl.extra.cuda.libdevice.tanh(x): libdevice computes on this form's numpy arrays too

    def _flat(self, array, op: str) -> np.ndarray:
        if array is None:
            raise TypeError(_("{where}: tl.{op} got None instead of an array").format(
                where=self._prog.where(0), op=op))
        return memory.flat_view(array, _("the array"))

    def load(self, array: np.ndarray, offsets, mask=None, other=None) -> np.ndarray:
        """``array.flat[offsets]`` where ``mask`` holds, ``other`` (0 if None) elsewhere; counts the bytes read."""
        flat = self._flat(array, "load")
        offs = np.asarray(offsets, dtype=np.int64)
        m = None if mask is None else np.asarray(mask, dtype=bool)[None]
        return memory.load(self._prog, flat, memory.lanes_view(offs[None], m), other)[0]

    def store(self, array: np.ndarray, offsets, value, mask=None) -> None:
        """Write ``value`` (cast to the array's dtype) to ``array.flat[offsets]`` where ``mask`` holds."""
        flat = self._flat(array, "store")
        offs = np.asarray(offsets, dtype=np.int64)
        m = None if mask is None else np.asarray(mask, dtype=bool)[None]
        memory.store(self._prog, flat, memory.lanes_view(offs[None], m), np.asarray(value)[None])

    def dot(self, a: np.ndarray, b: np.ndarray, acc=None) -> np.ndarray:
        """``acc + a @ b`` with fp32 accumulation (fp16 inputs are exact in fp32); counts 2·M·N·K FLOPs."""
        a, b = np.asarray(a), np.asarray(b)
        out_dtype = np.float32 if acc is None else np.asarray(acc).dtype
        out = numerics.dot(a[None], b[None], None if acc is None else np.asarray(acc)[None], None, out_dtype)
        self._prog.tally.flops(numerics.dot_flops((1, *a.shape), (1, *b.shape), 1), a.dtype.name)
        return out[0]


class SeedBatchLanguage(SeedLanguage):
    """The ``tl`` of a batch of lecture-form programs run at once (see :mod:`kernellab.triton.executor.perprogram`).

    ``program_id`` is a :class:`~kernellab.triton.executor.perprogram.PerProgram` (one Python int per
    program); loads return one block per program; stores, dots and counts act for every program of
    the batch. What a batch cannot reproduce exactly raises, and the launcher reruns it one by one.
    """

    __slots__ = ("_loaded", "_stored")

    def __init__(self, prog: Program):
        super().__init__(prog)
        self._loaded: dict[int, list] = {}  # array address → (offsets, mask) of each load so far
        self._stored: set[int] = set()  # addresses of the arrays stored to so far

    def program_id(self, axis: int = 0) -> PerProgram:
        return PerProgram(self._prog.program_id(axis).astype(np.int64), weak=True)

    @staticmethod
    def _rows(v, dtype=None) -> np.ndarray:
        """A per-program value as an array with a leading program axis; a plain one as one shared row."""
        if isinstance(v, PerProgram):
            return v.data if dtype is None else v.data.astype(dtype)
        return np.asarray(v, dtype=dtype)[None]

    # A batch runs each statement for all its programs before the next statement; one by one, each
    # program runs all its statements before the next program. The two agree unless programs
    # exchange data through an array within the launch, which the checks below rule out (raising
    # NotBatchable: the batch then reruns in order).
    def load(self, array: np.ndarray, offsets, mask=None, other=None) -> PerProgram:
        flat = self._flat(array, "load")
        if memory.address(flat) in self._stored:
            raise NotBatchable("a load from an array the batch has stored to")
        if isinstance(other, PerProgram):
            raise NotBatchable("a per-program `other`")
        offs, m = self._rows(offsets, np.int64), None if mask is None else self._rows(mask, bool)
        self._loaded.setdefault(memory.address(flat), []).append((offs, m))
        return PerProgram(memory.load(self._prog, flat, memory.lanes_view(offs, m), other))

    def store(self, array: np.ndarray, offsets, value, mask=None) -> None:
        flat = self._flat(array, "store")
        key = memory.address(flat)
        if key in self._stored:
            raise NotBatchable("a second store to one array")  # a later program's first store must win
        offs, m = self._rows(offsets, np.int64), None if mask is None else self._rows(mask, bool)
        if key in self._loaded and self._read_by_later_program(flat.size, self._loaded[key], offs, m):
            raise NotBatchable("a store to an element a later program read")  # it should have read this
        self._stored.add(key)
        memory.store(self._prog, flat, memory.lanes_view(offs, m), self._rows(value))

    def _read_by_later_program(self, size: int, loads: list, offs: np.ndarray, mask) -> bool:
        """Whether some program stores to an element that a program after it in launch order loaded."""
        P = self._prog.P
        last_reader = np.full(size, -1, np.int64)
        for lo, lm in loads:
            rows = np.broadcast_to(np.arange(P).reshape(-1, *(1,) * (lo.ndim - 1)) if lo.shape[0] > 1
                                   else np.full((1,) * lo.ndim, P - 1), lo.shape)
            keep = np.ones(lo.shape, bool) if lm is None else np.broadcast_to(lm, lo.shape)
            np.maximum.at(last_reader, lo[keep], rows[keep])
        shape = np.broadcast_shapes(offs.shape, (P, *offs.shape[1:])) if mask is None else \
            np.broadcast_shapes(offs.shape, mask.shape, (P, *offs.shape[1:]))
        writers = np.broadcast_to(np.arange(P).reshape(-1, *(1,) * (len(shape) - 1)), shape)
        keep = np.ones(shape, bool) if mask is None else np.broadcast_to(mask, shape)
        elements = np.broadcast_to(offs, shape)[keep]
        inside = (elements >= 0) & (elements < size)  # an element outside raises when the store runs
        return bool((last_reader[elements[inside]] > writers[keep][inside]).any())

    def dot(self, a, b, acc=None) -> PerProgram:
        rows = [self._rows(v) for v in (a, b)]
        if any(isinstance(v, PerProgram) and v.weak for v in (a, b, acc)):
            raise NotBatchable("tl.dot of Python numbers")
        out_dtype = np.float32 if acc is None else self._rows(acc).dtype
        lead = max(r.shape[0] for r in rows + ([] if acc is None else [self._rows(acc)]))
        a_, b_ = (np.broadcast_to(r, (lead, *r.shape[1:])) for r in rows)
        c_ = None if acc is None else np.broadcast_to(self._rows(acc), (lead, *self._rows(acc).shape[1:]))
        out = numerics.dot(a_, b_, c_, None, out_dtype)
        self._prog.tally.flops(self._prog.P * numerics.dot_flops((1, *a_.shape[1:]), (1, *b_.shape[1:]), 1),
                               a_.dtype.name)
        return PerProgram(out)


def _names(kernel, args, meta) -> dict:
    """``data address → parameter name`` for the array arguments, for error messages."""
    try:
        params = list(inspect.signature(kernel).parameters)[1:]
    except (TypeError, ValueError):
        params = []
    pairs = list(zip(params, args)) + list(meta.items())
    out = {}
    for name, v in pairs:
        if isinstance(v, np.ndarray) and (v.flags.c_contiguous or v.flags.f_contiguous):
            out[memory.address(v)] = name
    return out


def triton_launch(kernel, grid, *args, per_program: bool = False, vectorize: bool = True, lines: bool = False,
                  **meta) -> TritonCounts:
    """Run ``kernel(tl, *args, **meta)`` once per program of ``grid`` and return what they moved.

    Programs run in batches, all of a batch at once, when the kernel allows (see
    ``SeedBatchLanguage``); a batch that cannot reproduce one-by-one execution exactly reruns
    program by program, so results, errors and counts are those of running the programs one after
    another. ``vectorize=False`` runs them one by one from the start.

    Parameters
    ----------
    kernel : callable
        ``kernel(tl, *args, **meta)`` in the lecture scripts' form.
    grid : int or tuple of int
        1 to 3 grid dimensions.
    per_program : bool
        also return a per-program breakdown in ``counts.per_program``, keyed by ``(x, y, z)``.
    vectorize : bool
        run batches of programs at once (the default) or every program on its own.
    lines : bool
        also count per source line of the kernel, in ``counts.by_line`` (see :mod:`kernellab.lines`).

    Returns
    -------
    TritonCounts
        readable as ``cnt["programs"]``, ``cnt["load_bytes"]``, ``cnt["store_bytes"]``, ``cnt["dot_flops"]``.
    """
    names = _names(kernel, args, meta)
    many = batched(kernel)  # None: the kernel cannot run batched

    def body(prog: Program):
        if prog.journal is None:  # one program: the plain seed language, exactly as written
            kernel(SeedLanguage(prog), *args, **meta)
        else:  # a batch of programs at once; anything it cannot reproduce reruns them one by one
            many(SeedBatchLanguage(prog), *args, **meta)

    vectorize = vectorize and many is not None and not _prints(kernel, set())  # a kernel that prints: in launch order
    # stores at once: the values a lecture-form kernel stores are its own numpy arrays, which it may change later
    name = getattr(kernel, "__name__", "kernel")
    try:
        warn_float64(name, [(names.get(memory.address(v), "array"), v) for v in (*args, *meta.values())
                            if isinstance(v, np.ndarray) and memory.address(v) in names])
        return run(name, body, grid, names, vectorize=vectorize, per_program=per_program,
                   hints={"defer": False}, lines=LineFinder(kernel, name=name) if wants_lines(lines) else None)
    except Exception as exc:  # the caller's lines alone: the launch line, then the kernel's (kernellab.tracebacks)
        user_traceback(exc)
        raise
