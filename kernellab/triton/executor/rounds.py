"""The round trips a program waits for: a load's values used before the program issues its next loads.

A GPU warp issues in order. When an instruction needs a register a load has not filled yet, the warp
stalls (Nsight Compute's ``long_scoreboard`` stall reason) until the load's data arrives; every load
issued before that point arrives with it, so loads issued together cost one round trip. A program's
**rounds** are the times it waits: ``x = tl.load(...); y = tl.load(...); z = x + y`` is one round, a K loop
that loads two tiles and feeds them to ``tl.dot`` is one round a trip, a pointer chase one round a hop.

The engine follows this as the program runs: each loaded block remembers the step's *epoch* when it was
loaded; the first operation that uses a block of the current epoch waits (one round, the next epoch
begins). Rounds whose first use is a ``tl.dot`` operand are counted apart: Triton's software pipeliner
(``num_stages``) issues those loads stages ahead, which a plain use cannot have.

A program's two **edges** are what it moves outside the rounds it waits between: ``first_round_bytes``, the
bytes of the lanes it loads before its first wait (its first round, which it needs before any work can start),
and ``last_store_bytes``, the bytes of the lanes it stores or updates atomically after its last wait (which it
leaves to be acknowledged when its work is done); masked-off lanes move nothing and count nothing, and a store
followed by a wait is not among the last. ``counts.launch`` holds each as a mean over the programs that ran;
:mod:`kernellab.model.edges` prices them. Nsight Compute counts bytes per launch, not per phase of a program, so
no metric of its gives these; summed over the launch they are a part of the lanes' requested bytes of its
global loads and of its stores and atomics.

Examples
--------
>>> import numpy as np
>>> import kernellab.triton as triton
>>> import kernellab.triton.language as tl
>>> @triton.jit
... def chase(nxt, out, HOPS: tl.constexpr):
...     j = tl.load(nxt)
...     for _ in range(HOPS - 1):
...         j = tl.load(nxt + j)             # its address comes from the previous load: one round a hop
...     tl.store(out, j)
>>> c = chase[(1,)](np.arange(1, 9, dtype=np.int32), np.zeros(1, np.int32), HOPS=5)
>>> c.launch["rounds"], c.launch["dot_rounds"]
(5.0, 0.0)
>>> c.launch["first_round_bytes"], c.launch["last_store_bytes"]  # the first hop's int32, the stored int32
(4.0, 4.0)
"""

from __future__ import annotations

import numpy as np

from .locks import active_bytes
from .program import _CURRENT, current


def loaded(out) -> None:
    """Mark ``out``, a block ``tl.load`` just made, as loaded in the running step's current epoch."""
    prog = current()
    out._ld = (id(prog), prog.epoch)


def waited(x, dot: bool = False) -> None:
    """``x`` is used: if it was loaded in the running step's current epoch, the program waits (one round)."""
    prog = _CURRENT.get()
    if prog is not None and x._ld == (id(prog), prog.epoch):
        prog.epoch += 1
        prog.rounds += 1
        prog.tail.clear()  # what the program stores from now on is stored after this wait
        if dot:
            prog.dot_rounds += 1


def note_loop(num_stages, warp_specialize) -> None:
    """A ``tl.range`` loop's scheduling hints, kept on the running step's tally for the launch's counts."""
    prog = _CURRENT.get()
    if prog is None:
        return
    if num_stages is not None:
        prog.tally.note("loop_stages", int(num_stages))
    if warp_specialize:
        prog.tally.note("warp_specialize", True)


def note_dot(prog, a, b, operands: str) -> None:
    """A ``tl.dot`` of ``a`` (M×K) by ``b`` (K×N) with ``operands`` (``"fp16"``, ``"fp8"``, …), for the launch's
    residency rule (:mod:`kernellab.model.persm`): the bytes of its two operand tiles (the largest of the
    program's dots: Triton keeps them in shared memory, one buffer a pipeline stage) and its M×N result (kept
    in registers, one set a distinct result shape)."""
    tile = a.numel * a.dtype.primitive_bitwidth // 8 + b.numel * b.dtype.primitive_bitwidth // 8
    prog.tally.note("dot_tile_bytes", tile)
    m, n = a._shape[-2], b._shape[-1]
    prog.tally.note("dot_results", {(m, n): m * n})
    if operands == "fp8":
        prog.tally.note("fp8", True)


def accumulated(flops: int) -> None:
    """A ``tl.dot`` of ``flops`` FLOPs (all the step's programs) with an operand or accumulator computed from a
    dot's result (attention's ``p·v``, its backward's ``dv += p_tᵀ·do``, a K loop's ``acc = tl.dot(a, b, acc)``):
    the last dot of a loop step's chain, whose result a loop carries to its next accumulation. On sm_90
    Triton's pipeliner makes a loop's ``wgmma`` asynchronous and waits for it only where its result is next
    used (``asyncLaunchDots``, ``lib/Dialect/TritonGPU/Transforms/Pipeliner/WGMMAPipeline.cpp``), so the
    program's next SIMT work runs meanwhile (:mod:`kernellab.model.estimate`)."""
    current().tally.dependent(0, 0, flops)


def dot_loop(prog, iterations: int) -> None:
    """An innermost loop whose body holds a ``tl.dot`` ended after ``iterations`` trips, in each of the step's
    programs. The performance model reads the trips a program makes (``counts.launch["dot_trips"]``, a mean over
    the programs): a pipelined loop pays its first and last trip's unoverlapped halves once a program
    (:mod:`kernellab.model.estimate`)."""
    prog.tally.dependent(0, 0, 0, iterations * prog.P)


def dependent(shape: tuple, flops_per_element: int = 1, mufu: bool = False) -> None:
    """Operations on a ``tl.dot``'s result (or on what was computed from one): ``flops_per_element`` FP32
    operations and, with ``mufu``, one special function, on every element of a ``shape`` block, in every
    program of the step. The performance model runs them after the dot they depend on and before the dot
    that needs them (a program's Tensor Core and SIMT phases, :mod:`kernellab.model.estimate`)."""
    prog = current()
    n = 1
    for d in shape:
        n *= d
    w = prog.num_warps
    prog.tally.dependent(flops_per_element * n * prog.P, prog.P * w * -(-n // (32 * w)) if mufu else 0)


def edge_bytes(edge: list, programs: int) -> int:
    """The bytes of a step's edge (``Program.head`` or ``Program.tail``), summed over its ``programs`` programs:
    each access's kept lanes × the element size (:func:`kernellab.triton.executor.locks.active_bytes`), an atomic's
    bytes as recorded. Counted once, when the step ends, so that the stores of a loop's earlier trips, dropped at
    the next wait, cost nothing.

    >>> from kernellab.triton.executor.view import Base, View
    >>> import numpy as np
    >>> v = View(Base.consecutive(0, (8,)), np.array([0, 8, 16]), np.array([8, 5, 0]))  # 3 programs, offs < 21
    >>> edge_bytes([(v, 4), 12], 3)                      # (8 + 5 + 0) lanes × 4 B, and an atomic's 12 B
    64
    >>> edge_bytes([(View(Base.consecutive(0, (8,))), 4)], 3)   # one row of 8 lanes shared by 3 programs: 96 B
    96
    """
    total = 0
    for access in edge:
        if access.__class__ is int:
            total += access
            continue
        view, itemsize = access
        k = view.keep
        # active_bytes' sum without its per-program arrays (an optimisation): every lane of each program's row (or of
        # the one row they share) kept; a bool block kept, its lanes repeated alike by broadcasting
        if k is None:
            total += view.numel * itemsize * programs
        elif k.dtype == bool and k.ndim == len(view.shape) + 1:
            total += int(np.count_nonzero(k)) * (view.numel // max(k[0].size, 1)) * itemsize * \
                (programs if k.shape[0] == 1 else 1)
        else:
            total += int(active_bytes(view, itemsize, programs).sum())
    return total
