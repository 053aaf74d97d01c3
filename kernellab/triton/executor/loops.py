"""The loops of a ``@triton.jit`` kernel as Triton 3.9's software pipeliner compiles them.

Triton turns a ``for`` loop (``range`` or ``tl.range``) into an ``scf.for`` and, with ``num_stages`` S ≥ 2
(the launch's, default 3, or ``tl.range(..., num_stages=S)``), pipelines it (``AssignLatencies``,
``ScheduleLoops``, ``LowerLoops``): a load whose result reaches a ``tl.dot`` of the loop (or, in a loop
given ``num_stages`` that has no dot, every load) is issued S − 1 iterations ahead, as ``cp.async``
copies straight into shared memory. The compiled loop is then

* a **prologue**: the loads of iterations 0 … S − 2, each predicated on the iteration existing;
* the **steady state**, run once per iteration: the loads of iteration ``i + S − 1`` (predicated
  likewise), the dot of iteration ``i`` reading its operands from shared memory;

and no epilogue (the predicates take its place). A loop of ``n`` iterations therefore executes each
pipelined load's instructions ``n + S − 1`` times; the S − 1 beyond ``n`` are predicated off, executed
warp instructions that move no byte (Nsight Compute's ``inst_executed`` counts them, its requests and
sectors do not). The operands' stores to shared memory (``st.shared``) disappear: the copies write it.
On sm_80 the ``Prefetch`` pass then loads the first K slice of the next iteration's operands at the end
of each iteration, and the first iteration's before the loop: one slice's ``ldmatrix`` more per loop.

Only innermost loops are pipelined, and only loads of at least 32 bits a thread (``isSmallLoad``). The
kernel's ``range`` is :func:`kernel_range` (:mod:`kernellab.triton.language.pybuiltins`), ``tl.range``
passes its ``num_stages``; each tells the running program when a loop starts, iterates and ends, and the
program's innermost loop notes its loads and dots (:class:`Frame`). When a loop ends, :func:`finish`
records its pipelined loads in the tally, counted once the layouts are known.

The loop's variable is what Triton 3.9's code generator (``visit_For``) makes it: a scalar ``tl.tensor`` (so
``i.to(tl.int64)``, ``i * stride`` wrapping in 32 bits, ``i == 0`` as a block) of the type the bounds promote
to (:func:`induction`: int32 for Python ints that fit, int64 when a bound is), with what Triton's axis
analysis knows of an induction variable (``visitForOpInductionVar``: divisible by the gcd of the start's
and the step's divisibility, nothing more). Outside a running program (a loop at the prompt) it is Python's
int; ``tl.static_range`` (unrolled, a constexpr) stays Python's int everywhere.

Examples
--------
>>> f = Frame(3, explicit=False); f.iterations = 4
>>> f.stages, f.iterations + f.stages - 1      # 4 iterations, 3 stages: each pipelined load runs 6 times
(3, 6)
>>> dt, info, negative = induction(0, 2**32, 64)     # 2^32 fits neither int32 nor uint32: an int64 loop
>>> dt, info.divisibility, negative                  # gcd(divisibility of 0, of 64) = 64
(triton.language.int64, (64,), False)
"""

from __future__ import annotations

import builtins
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

from ..compiler import axis as A
from ..compiler import layout, limits
from . import dtypes as T
from . import rounds
from .program import _CURRENT
from .tensor import facts, tensor

DEFAULT_STAGES = 3  # Triton 3.9's num_stages for CUDA targets when the launch names none
_STAGES: ContextVar[int] = ContextVar("kernellab_triton_num_stages", default=DEFAULT_STAGES)


def launch_stages() -> int:
    """The ``num_stages`` of the launch now running (its ``num_stages=`` option, else 3)."""
    return _STAGES.get()


@contextmanager
def stages(n: int | None):
    """Launches started inside the ``with`` block compile their loops with ``num_stages=n`` (None: 3)."""
    token = _STAGES.set(DEFAULT_STAGES if n is None else int(n))
    try:
        yield
    finally:
        _STAGES.reset(token)


_CAP: ContextVar[int | None] = ContextVar("kernellab_triton_loop_cap", default=None)


@contextmanager
def capped(iterations: int):
    """Kernel loops (``range``, ``tl.range``) started inside the block stop after ``iterations`` iterations: a
    compiled kernel's trial of one program (its registers, :mod:`kernellab.triton.executor.liveness`), whose
    results are thrown away, needs a loop's carried values and one iteration's, not every row of a persistent
    program."""
    token = _CAP.set(int(iterations))
    try:
        yield
    finally:
        _CAP.reset(token)


class Frame:
    """One running loop of a program: its stages, its iterations so far, whether a loop ran inside it
    (then it is not pipelined), and the loads and dots of its body (the last iteration's: every
    iteration runs the same lines). ``loads`` maps a load's layout tag (by identity: the tag a value
    carries through elementwise operations) to ``[tag, role]``, role None or the operand slot of the dot
    it feeds; ``dots`` holds ``(chain reference, operand flags, fed slots, dims, loaded)`` per dot."""

    __slots__ = ("stages", "explicit", "iterations", "inner", "loads", "dots", "flags", "operands")

    def __init__(self, stages: int, explicit: bool):
        self.stages = stages
        self.explicit = explicit  # tl.range(num_stages=...): loads with no dot are pipelined too
        self.iterations = 0
        self.inner = False
        self.loads: dict = {}
        self.dots: list = []
        self.flags: list = []  # every iteration's dots' operand flags, by the dot's place in the iteration
        self.operands: dict = {}  # a dot's place in the iteration → the blocks it took last iteration

    def iterate(self):
        self.iterations += 1
        self.loads = {}
        self.dots = []

    def load(self, tag, bits: int):
        """Note a ``tl.load`` of the body, its value's layout tag and its elements' bits."""
        self.loads[id(tag)] = [tag, None, bits]

    def dot(self, a_tag, b_tag, ref, flags: list, dims: tuple, loaded: tuple, operands: tuple):
        """Note a ``tl.dot`` of the body (``dims``: its ``(M, N, K, kind, bits)``): the operands that are loads
        of this iteration feed it (directly, or through elementwise operations, which keep the tag);
        ``flags`` (its staged move's, operand A and B) are set for the operands the pipeliner copies, once
        the loop ends, and now to ``"once"`` for an operand that is the very block the dot took in the last
        iteration (``operands``: this iteration's): a value of the loop's, made before it, whose store to
        shared memory (``ttg.local_alloc``) is placed before the loop, so only the first iteration's counts."""
        place = len(self.dots)
        last = self.operands.get(place)
        if last is not None:
            for slot, (now, before) in enumerate(zip(operands, last)):
                if now is before:
                    flags[slot] = "once"
        self.operands[place] = tuple(operands)
        roles = []
        for slot, tag in enumerate((a_tag, b_tag)):
            while tag.__class__ is tuple and tag[0] == "trans":
                tag = tag[1]
            entry = self.loads.get(id(tag))
            if entry is not None and entry[0] is tag:
                entry[1] = slot
                roles.append(slot)
        self.flags.append((len(self.dots), flags))
        self.dots.append((ref, flags, tuple(roles), (*dims, _unwrap(a_tag), _unwrap(b_tag)), tuple(loaded)))


def _unwrap(tag):
    while tag.__class__ is tuple and tag[0] == "trans":
        tag = tag[1]
    return tag


class Loop:
    """A kernel loop's iterator: a range that tells the running program when it starts, iterates and
    ends (:class:`Frame`). ``variable``: the loop variable's ``(dtype, axis facts)`` (:func:`induction`), its
    values then scalar blocks inside a running program (Python's ints outside one)."""

    __slots__ = ("_it", "_stages", "_frame", "_prog", "_var")

    def __init__(self, r: builtins.range, stages: int | None, variable: tuple):
        self._it = iter(r)
        self._stages = stages
        self._frame = None
        self._prog = None
        self._var = variable

    def __iter__(self):
        return self

    def __next__(self):
        frame = self._frame
        if frame is None:
            prog = self._prog = _CURRENT.get()
            if prog is None:
                return next(self._it)
            explicit = self._stages is not None
            frame = self._frame = Frame(self._stages if explicit else launch_stages(), explicit)
            if prog.loops:
                prog.loops[-1].inner = True
            prog.loops.append(frame)
        try:
            cap = _CAP.get()
            if cap is not None and frame.iterations >= cap:
                raise StopIteration
            v = next(self._it)
        except StopIteration:
            prog = self._prog
            if prog is not None and prog.loops and prog.loops[-1] is frame:
                prog.loops.pop()
                finish(prog, frame)
            self._prog = None
            raise
        frame.iterate()
        var = self._var
        iv = tensor(np.array([v], var[0].np), var[0], ())
        iv._ax = var[1]
        if self._prog.hook is not None:
            self._prog.hook.made(self._prog, iv)
        return iv


def kernel_range(*args) -> Loop:
    """``range`` inside a ``@triton.jit`` kernel: the same values, its loop known to the program, its
    variable a scalar block (:func:`induction`)."""
    return loop(args, None)


def loop(bounds: tuple, stages: int | None) -> Loop:
    """The :class:`Loop` of ``range(*bounds)`` (``tl.range``'s, with ``stages``)."""
    variable = induction(*bounds)
    return Loop(builtins.range(*(_index(a) for a in bounds)), stages, variable[:2])


def induction(*bounds) -> tuple:
    """``(dtype, facts, negative)`` of the variable of a loop over ``range(*bounds)``, as Triton 3.9's
    ``visit_For`` makes it: each bound typed as ``to_tensor`` types it (a Python int: int32 when it fits, else
    uint32, int64, uint64; a block: its own type), the three promoted (``integer_promote_impl``); a constant
    negative step is made positive with the bounds swapped, the variable then ``start − iv + end``.
    The facts are ``visitForOpInductionVar``'s (divisible by gcd(start's, step's divisibility)), carried
    through that subtraction and addition when the step is negative. Bounds that are not integers or not
    scalars are refused with Triton's ``TypeError`` (:func:`kernellab.triton.compiler.limits.loop_bounds`)."""
    start, end, step = (0, bounds[0], 1) if len(bounds) == 1 else (*bounds, 1)[:3]
    step = getattr(step, "value", step)
    negative = step.__class__ is not tensor and step < 0
    if negative:
        start, end, step = end, start, -step
    types = [_type(b) for b in (start, end, step)]
    limits.loop_bounds(types, [getattr(b, "_shape", ()) for b in (start, end, step)])
    dt = T._integer_promote(T._integer_promote(types[0], types[1]), types[2])
    info = A.AxisInfo((1,), (A.gcd(facts(start).divisibility[0], facts(step).divisibility[0]),), (1,))
    if negative:  # end − iv + start, with Triton's start and end (swapped)
        info = A.add(A.add(facts(end), info, (), sub=True), facts(start), ())
    return dt, info, negative


def _type(bound) -> T.dtype:
    """The type ``to_tensor`` gives a loop bound."""
    if isinstance(bound, tensor):
        return bound.dtype
    return T.of_python(getattr(bound, "value", bound))


def _index(a) -> int:
    return a if a.__class__ is int else int(a)


def finish(prog, frame: Frame):
    """Record what the pipeliner does to a loop that ended (:class:`Frame`): its pipelined loads (their
    prologue copies, the operand stores they replace) and, on sm_80, the prefetch of the first K slice; and the
    trips of an innermost loop holding a dot (:func:`kernellab.triton.executor.rounds.dot_loop`)."""
    if frame.dots and not frame.inner:
        rounds.dot_loop(prog, frame.iterations)
    if frame.inner or frame.stages < 2 or not frame.iterations:
        return
    extra = frame.stages - 1
    if frame.dots:
        piped = [e for e in frame.loads.values() if e[1] is not None]
    elif frame.explicit:
        piped = list(frame.loads.values())
    else:
        return
    tally = prog.tally
    copied = set()
    feeds = {}  # a copied operand's dot: its slot, kind and chain reference
    for ref, _flags, slots, dims, loaded in frame.dots:
        for slot in slots:
            feeds.setdefault(id(dims[-2:][slot]), (slot, dims[3], ref, loaded[slot]))
    for tag, role, bits in piped:
        if id(tag) in copied or _small(tag, bits):
            continue
        copied.add(id(tag))
        tally.pipelined(tag, role is not None, extra, frame.iterations, prog.num_warps, prog.P, feeds.get(id(tag)))
    roles = []
    for _ref, _flags, slots, dims, _loaded in frame.dots:
        a_tag, b_tag = dims[-2:]
        roles.append(tuple(s for s in slots if id((a_tag, b_tag)[s]) in copied))
    for place, flags in frame.flags:  # every iteration's dot at that place: its copied operands
        for slot in roles[place] if place < len(roles) else ():
            flags[slot] = True
    # both operands from the buffers as they were copied: sm_80's Prefetch (which does not look through a transposed
    # view of a buffer, ttg.memdesc_trans: real Triton 3.9 prefetches no tl.trans'd operand)
    if len(frame.dots) == 1 and len(roles[0]) == 2 and "trans" not in frame.dots[0][4]:
        ref, _flags, _slots, dims, _loaded = frame.dots[0]
        tally.prefetched(ref, dims[:-2], prog.num_warps, prog.P)


def _small(tag, bits: int) -> bool:
    """``isSmallLoad``: a load of fewer than 32 bits a thread an instruction is not pipelined (``cp.async``
    copies 4, 8 or 16 bytes); a scalar load moves one element a thread (Triton 3.9 pipelines an fp32 one, not an
    fp16 one)."""
    (ptr, mask, shape), width, num_warps, wanted = tag[1:]  # wanted: the program's widths, a dict (tl.load's tag)
    want = wanted.get((shape, layout.own_width(ptr, shape, width)[0]))
    return layout.plan(ptr, mask, shape, width, num_warps, want).vec * bits < 32
