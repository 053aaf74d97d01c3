"""The launch engine both front ends share: runs a kernel's programs and gathers their counts.

A step runs either one program or a batch of programs at once (every value then carries a leading
program axis). The vectorised path is tried first when the front end allows it; if a batch raises
anything — its programs diverge in Python control flow, an access is out of bounds, any error — every
array the batch stored to is restored and the batch reruns program by program, in launch order (x
fastest), so results, errors and counts are exactly those of running the programs one after another.
A batch whose programs diverge where each program's value is known (a loop bound, a branch) reruns
instead in groups of programs that agree (:mod:`kernellab.triton.executor.groups`, which says why the
results are the same), when the policy allows.
The rerun happens after the failed attempt is discarded, so an error is reported once, by the program
that raised it, with a traceback that ends at the kernel's line (``kernellab.tracebacks``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...errors import LaunchError, fmt_dim3, placed
from ...grid import check_limits, dim3
from ...i18n import _
from ...lines import LineFinder, tally_factory
from ...record import launched
from ...tracebacks import user_traceback
from .. import launches
from . import groups, sampling
from .counts import Tally, Touched, TritonCounts, Wanted
from .policy import Policy, active
from .program import _CURRENT, Divergence, Program, Reorder, SplitLocks, SplitTail, pid_table
from .rounds import edge_bytes

BATCH = 4096  # programs per vectorised step: bounds memory to ~BATCH × block elements per value
SETTLE = 64  # programs run one by one between countings of their loads under the layouts known so far


class Launch:
    """What every step of one launch shares: the kernel, its grid, where its counts go, its policy and its
    hook (see :class:`~kernellab.triton.executor.program.Program`)."""

    __slots__ = ("kernel", "body", "grid", "names", "touched", "new_tally", "num_warps", "wanted", "addresses",
                 "hints", "policy", "hook")

    def __init__(self, kernel: str, body: Callable[[Program], None], grid: tuple, names: dict, touched: Touched,
                 new_tally, num_warps: int, addresses: dict | None, hints: dict, policy: Policy, hook=None):
        self.kernel, self.body, self.grid, self.names = kernel, body, grid, names
        self.touched, self.new_tally, self.num_warps, self.addresses = touched, new_tally, num_warps, addresses
        self.wanted = Wanted()  # what the launch's accesses ask of the layouts (see Tally.planned)
        self.hints, self.policy, self.hook = hints, policy, hook

    def program(self, pids: np.ndarray, tally: Tally, journal=None, defer: bool = False) -> Program:
        """A step of this launch running the programs ``pids``."""
        return Program(self.kernel, self.grid, pids, tally, self.names, journal=journal, touched=self.touched,
                       defer=defer, num_warps=self.num_warps, wanted=self.wanted, addresses=self.addresses,
                       policy=self.policy, hook=self.hook)


def _step(body: Callable[[Program], None], prog: Program):
    token = _CURRENT.set(prog)
    try:
        if prog.hook is not None:
            prog.hook.step(prog)
        body(prog)
        if prog.live.clock:  # registers its values held (kernellab.triton.executor.liveness)
            prog.tally.note("live_words", prog.live.peak())
    finally:
        _CURRENT.reset(token)


def _one_by_one(launch: Launch, pids: np.ndarray, tally, per_program: dict | None):
    for row in range(len(pids)):
        own = launch.new_tally() if per_program is not None else tally
        prog = launch.program(pids[row:row + 1], own)
        try:
            _step(launch.body, prog)
            own.add_rounds(prog.rounds, prog.dot_rounds, 1, edge_bytes(prog.head, 1), edge_bytes(prog.tail, 1))
        except (TypeError, ValueError) as exc:  # tl.arange(0, 1000), a pointer plus a float: name the place
            err = placed(exc, prog.where(0), kernel=launch.kernel, program=fmt_dim3(pids[row]))
            if err is exc:
                raise
            raise err from exc.__cause__
        own.n["programs"] += 1
        if per_program is None and row % SETTLE == SETTLE - 1:
            own._settle()  # the loads of a long launch, under the layouts the kernel's accesses settled on
        if per_program is not None:
            per_program[tuple(int(v) for v in pids[row])] = own.result()
            tally.merge(own)


def _batch(launch: Launch, chunk: np.ndarray, claims=None) -> Program | SplitTail | SplitLocks | Divergence | None:
    """Run ``chunk`` as one vectorised step: the step's Program when it ran, None when it failed (undone),
    :class:`SplitTail` when it should run as two steps, :class:`SplitLocks` when its programs share spin locks
    (undone), a :class:`Divergence` with each program's ``keys`` when they diverged where those are known (undone).

    The step defers its stores when the launch's policy and ``hints["defer"]`` allow; a step that cannot
    (:class:`Reorder`) reruns storing at once, and sets that hint for the launch's later steps and the
    kernel's later launches. ``claims``: the step is one group of a diverging step, and records what its programs
    touch in ``claims()`` (a :class:`~kernellab.triton.executor.groups.Claims`).
    """
    hints = launch.hints
    batch = launch.program(chunk, launch.new_tally(), journal=[], defer=launch.policy.defer and hints["defer"])
    if claims is not None:
        batch.claims = claims()
    touched = launch.touched
    mark = touched.checkpoint()  # lines=True: the sectors the step touches first are unmarked if it is undone
    try:
        _step(launch.body, batch)
    except Reorder:
        batch.undo()
        touched.rollback(mark)
        hints["defer"] = False
        return _batch(launch, chunk, claims)
    except (SplitTail, SplitLocks) as split:
        batch.undo()
        touched.rollback(mark)
        return split
    except Exception as exc:  # rerun by the caller, outside this handler: no chained second traceback
        batch.undo()
        touched.rollback(mark)
        keys = exc.keys if exc.__class__ is Divergence else None
        return None if keys is None else Divergence(keys)
    batch.flush()
    batch.tally.add_rounds(batch.rounds, batch.dot_rounds, batch.P, edge_bytes(batch.head, batch.P),
                           edge_bytes(batch.tail, batch.P))
    return batch


def _chunks(pids, hints: dict) -> list[slice]:
    """The launch's vectorised steps, as slices of ``pids`` (each made into ids when its step runs): ``BATCH``
    programs each, or as many as the last step of the kernel whose programs shared spin locks ran
    (``hints["locks"]``: a launch of tutorial 05's backward kernel would otherwise compute 4096 programs up to
    their first lock, undo them and run again in steps of 96); the last program alone when an earlier step of
    the kernel had to split its tail (``hints["split"]``). Steps only group programs: any split runs the
    programs in launch order with the same results and counts (see the module)."""
    n = len(pids)
    size = min(BATCH, hints.get("locks", BATCH))
    chunks = [slice(lo, min(lo + size, n)) for lo in range(0, n, size)]
    if hints.get("split") and chunks[-1].stop - chunks[-1].start > 1:
        last = chunks.pop()
        chunks += [slice(last.start, last.stop - 1), slice(last.stop - 1, last.stop)]
    return chunks


def run(kernel: str, body: Callable[[Program], None], grid, names: dict, *, vectorize: bool,
        per_program: bool = False, hints: dict | None = None, lines: LineFinder | None = None,
        num_warps: int = 4, specialization: dict | None = None, addresses: dict | None = None,
        policy: Policy | None = None, hook=None, options: dict | None = None) -> TritonCounts:
    """Run ``body`` for every program of ``grid`` and return the launch's counts.

    ``body(prog)`` runs the kernel for the programs of ``prog`` (a batch when ``vectorize`` and the policy's
    ``batch`` allow).
    ``per_program`` adds a ``(x, y, z) → TritonCounts`` breakdown (programs then run one by one; its
    entries leave ``dram_sectors`` empty: compulsory traffic is a union over the launch).
    ``hints`` is what an earlier launch of the kernel learnt (kept by the caller, updated here): whether
    a vectorised step may defer its stores and let its loads lend views (see
    :class:`~kernellab.triton.executor.program.Reorder`), whether its last program runs alone, whether its
    diverging steps may run in groups (:mod:`~kernellab.triton.executor.groups`).
    ``lines`` (a :class:`~kernellab.lines.LineFinder`) adds counts per source line (``by_line``): every
    step's tally keeps rows, and a step undone is dropped with its rows.
    ``num_warps`` sets the layouts of the kernel's loads and stores; ``specialization`` is shown on the
    counts (see :mod:`kernellab.triton.compiler.specialize`). ``addresses`` (``id(array) → (array, address of
    its data)``, the launch arguments' flat views) saves each step looking those addresses up again.
    ``policy``: the shortcuts the launch may take (:mod:`kernellab.triton.executor.policy`; None: the active one).
    ``hook``: what watches the launch's steps (see :class:`~kernellab.triton.executor.program.Program`).
    ``options``: the launch's compile options the timing model reads (``num_stages``), added to ``counts.launch``.
    """
    try:
        g = dim3(grid)
    except LaunchError as exc:  # dim3's words, the kernel first (as the SIMT launcher says them)
        raise LaunchError(_("kernel {kernel}: {error}").format(kernel=kernel, error=exc),
                          **{**exc.details, "kernel": kernel}) from None
    check_limits(kernel, g)  # CUDA's gridDim limits
    hints = {} if hints is None else hints
    hints.setdefault("defer", True)
    pids = pid_table(g)
    sample = sampling.plan(tuple(g), enabled=not per_program)  # inside sampling.sampled: a benchmark's sample
    if sample is not None:
        n_programs, pids = len(pids), pids[sample[0]]
    new_tally = tally_factory(Tally, lines)
    launch = Launch(kernel, body, tuple(g), names, Touched(first_touch=lines is not None), new_tally, num_warps,
                    addresses, hints, active() if policy is None else policy, hook)
    vectorize = vectorize and launch.policy.batch and not per_program
    # a diverging step in groups (kernellab.triton.executor.groups): not where the order of first touches counts
    # (lines) or a hook records the steps
    grouping = launch.policy.groups and lines is None and hook is None
    # the launch's tally: a vectorised launch's first step's own (made only when no step gives one)
    tally = new_tally() if not vectorize else None
    breakdown = {} if per_program else None
    try:
        with np.errstate(all="ignore"):  # GPU arithmetic: overflow gives inf, 0/0 NaN, silently
            if not vectorize:
                _one_by_one(launch, pids, tally, breakdown)
            else:
                chunks = _chunks(pids, hints)[::-1]  # the next step last, popped from the end
                fresh = True  # nothing counted yet
                while chunks:
                    chunk = chunks.pop()
                    if chunk.__class__ is slice:
                        chunk = pids[chunk]
                    batch = _batch(launch, chunk)
                    if isinstance(batch, SplitTail):  # the others first, then the last program alone
                        hints["split"] = True
                        chunks += [chunk[-1:], chunk[:-1]]
                    elif isinstance(batch, SplitLocks):  # programs that share a lock: steps whose locks differ
                        # the first k, then the rest of the launch in steps of k (the kernel's later launches too)
                        k = hints["locks"] = batch.k
                        rest = np.concatenate([chunk[k:]] + [pids[c] if c.__class__ is slice else c
                                                             for c in chunks[::-1]])
                        chunks = [rest[i:i + k] for i in range(0, len(rest), k)][::-1] + [chunk[:k]]
                    else:
                        steps, adopt = [batch], False
                        if batch is None or batch.__class__ is Divergence:  # in groups that agree, or one by one
                            adopt = len(chunk) < SETTLE  # counted as the one-by-one run would: when the launch's are
                            steps = groups.run(launch, chunk, batch.keys, _batch, not adopt) if (
                                batch and grouping and hints.get("groups", True)) else None
                        if steps is None:
                            if fresh:
                                tally, fresh = new_tally(), False
                            _one_by_one(launch, chunk, tally, None)
                            continue
                        for step in steps:
                            step.tally.n["programs"] += step.P
                            if adopt:
                                if fresh:
                                    tally, fresh = new_tally(), False
                                tally.adopt(step.tally)
                            elif fresh:  # the launch's first step: its tally becomes the launch's (no merge)
                                step.tally._settle()  # its loads under the layouts so far, as a merge would
                                tally, fresh = step.tally, False
                            else:
                                tally.merge(step.tally)
    except sampling.Locked:  # how many programs share each lock a sample cannot tell: run them all
        with sampling.full():
            return run(kernel, body, grid, names, vectorize=vectorize, hints=hints, lines=lines, num_warps=num_warps,
                       specialization=specialization, addresses=addresses, policy=policy, hook=hook, options=options)
    except Exception as exc:  # the kernel's lines alone; a bare raise adds no frame (kernellab.tracebacks)
        user_traceback(exc)
        raise
    if tally is None:  # no step ran (a grid of no programs)
        tally = new_tally()
    touched = launch.touched
    counts = tally.result(breakdown, touched.sectors(), specialization,
                          launch={"grid": g, "num_warps": num_warps, **tally.rounds_info(), **(options or {})})
    if sample is not None:
        counts = sampling.scale(counts, sample[1], n_programs, touched.sizes())
    launches.note(kernel, g, counts, sampled=sample is not None)
    return launched(kernel, "triton", counts, g)
