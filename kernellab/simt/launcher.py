"""``launch``: check a launch as the CUDA runtime would, run the kernel over its blocks, return the counts."""

from __future__ import annotations

import inspect
from dataclasses import replace

import numpy as np

from ..access import WARP_SIZE
from ..counters import Counts
from ..errors import LaunchError, fmt_dim3, placed
from ..float64 import warn_float64
from ..grid import cdiv, check_limits, dim3
from ..i18n import _
from ..lines import LineFinder, _function, line_tally
from ..record import launched, wants_lines
from ..specs import A6000, GPU, as_gpu
from ..tracebacks import user_traceback
from .block import Block
from .guard import guard_arguments, lane_hint
from .memory import GlobalMemory
from .tally import Tally

MAX_LANES_PER_BATCH = 1 << 20  # blocks run together until a batch would exceed this many lanes


def launch(kernel, grid, block, args=(), *, gpu: GPU = A6000, racecheck: bool = True,
           hazards: list | None = None, name: str | None = None, shape: tuple = (), lines: bool = False,
           auto_instr: bool | None = None, regs: int | None = None, smem: int | None = None) -> Counts:
    """Run ``kernel(blk, *args)`` on a ``grid`` of ``block``-shaped thread blocks; return its counts.

    Parameters
    ----------
    kernel : callable
        ``kernel(blk, *args)``; ``blk`` is a :class:`~kernellab.Block`.
    grid, block : int or tuple of 1–3 ints
        ``gridDim`` and ``blockDim``, as in ``kernel<<<grid, block>>>``.
    args : tuple
        numpy arrays (global memory, C-contiguous; written in place) and scalars. An array's name in
        messages and in ``Counts.dram_sectors`` is the kernel's parameter name.
    gpu : GPU
        whose limits apply (threads and shared memory per block); the RTX A6000 unless given. Predict on
        the same GPU you launch on: ``c = launch(..., gpu=H100)``, then ``predict(c, H100)``.
    racecheck : bool
        detect shared-memory hazards between barriers (compute-sanitizer's racecheck).
    hazards : list, optional
        collect each hazard here as a :class:`~kernellab.RaceError` instead of raising it.
    name : str, optional
        the kernel's name in messages (default ``kernel.__name__``).
    shape : tuple
        the problem size, recorded in ``Counts.shape`` for :func:`~kernellab.scale_counts`.
    lines : bool
        also count per source line of the kernel, in ``counts.by_line`` (see :mod:`kernellab.lines`;
        ``counts.source()`` shows them beside the source). Each line's ``dram_sectors`` are the sectors
        it touched first in the launch, so the lines' DRAM sectors add up to the launch's.
    auto_instr : bool, optional
        count the integer, comparison and branch instructions nvcc would emit, without the kernel's
        help (:mod:`kernellab.simt.lanes`; loops, ``blk.where`` as predication or a branch, each kernel's
        entry and exit; see ``Block``). Default: on, unless the kernel is marked with
        :func:`~kernellab.simt.launcher.declares_overhead` (it counts its own with ``blk.count_instr``, as Boehm's kernels do).
    regs : int, optional
        registers per thread, 1 to the GPU's ``max_regs_per_thread`` (255), as ``ptxas -v`` reports them
        (``Used 37 registers``); recorded in ``counts.launch["regs"]`` for the residency per SM
        (:func:`~kernellab.model.persm.launch_of`). Default: not recorded, and the model assumes
        :data:`~kernellab.model.persm.DEFAULT_REGS` (32) registers, which the report marks "(assumed)".
        The SGEMM study passes each kernel's CUDA twin's count (:func:`~kernellab.run_kernel`).
    smem : int, optional
        dynamic shared memory per block, in bytes, as the third argument of ``kernel<<<grid, block, smem>>>``:
        added to the static shared memory the kernel declares with ``blk.shared``; the sum, in
        ``counts.launch["smem_per_block"]``, may not exceed the GPU's ``max_smem_per_block``. Default 0.

    Raises
    ------
    TypeError
        the kernel indexes an array argument directly (``B[i] = A[i]``): kernel memory goes through
        ``blk.load`` / ``blk.store``, which honour ``blk.where`` and are counted.
    ValueError
        a Python ``if`` (``while``, ``and``, ``or``) on lane values: the message says to use ``blk.where``.
    LaunchError
        too many threads per block, a block or grid dimension over its limit, too much shared memory
        (declared plus ``smem``), ``regs`` outside 1–255, an argument that is neither a numpy array nor a scalar, or arguments that do not fit ``kernel``.
    OutOfBoundsError, MisalignedError, RaceError, BarrierError
        as compute-sanitizer's memcheck, racecheck and synccheck would report them.

    Examples
    --------
    >>> def axpy(blk, x, y, a, n):
    ...     i = blk.bx * blk.bdx + blk.tx
    ...     with blk.where(i < n):
    ...         blk.store(y, i, blk.fma(a, blk.load(x, i), blk.load(y, i)))
    >>> x, y = np.ones(100, np.float32), np.arange(100, dtype=np.float32)
    >>> c = launch(axpy, 4, 32, args=(x, y, 2.0, 100))
    >>> float(y[99]), c.fma, c.gld_instr, f"{c.simt_efficiency():.3f}"
    (101.0, 100, 8, '0.898')

    Per warp: 5 instructions of prologue and EXIT and 3 of index arithmetic on all 32 lanes, then 7 in the
    ``where`` (2 loads, an FMA, a store and their 3 addresses) on the 32, 32, 32 and 4 lanes below 100:
    (4 × 8 × 32 + 7 × 100) / (4 × 15 × 32) = 1724 / 1920 = 0.898. Without the automatic counts:

    >>> c = launch(axpy, 4, 32, args=(x, y, 2.0, 100), auto_instr=False)
    >>> c.warp_instr, c.thread_instr, f"{c.simt_efficiency():.3f}"    # 4 × 4 instructions, 4 × 100 lanes
    (16, 400, '0.781')

    Resources per block set the blocks an SM holds (:func:`~kernellab.occupancy`). A 1024-thread block at 64
    registers a thread needs 1024 × 64 = 65 536 registers, all of an H100 SM's, so one block fits; with
    48 KB of dynamic shared memory, four 256-thread blocks fit in the SM's 228 KB (4 × (48 + 1) KB = 196 KB):

    >>> from kernellab.specs import H100
    >>> from kernellab.model.persm import launch_of
    >>> c = launch(axpy, 4, 1024, args=(x, y, 2.0, 100), gpu=H100, regs=64)
    >>> c.launch["regs"], launch_of(c, H100).blocks_per_sm
    (64, 1)
    >>> c = launch(axpy, 4, 256, args=(x, y, 2.0, 100), gpu=H100, smem=48 * 1024)
    >>> c.launch["smem_per_block"], launch_of(c, H100).occupancy.limiters
    (49152, ('shared',))
    """
    try:
        return _launch(kernel, grid, block, tuple(args), gpu, racecheck, hazards, name, shape, lines, auto_instr,
                       regs, smem)
    except Exception as exc:  # the caller's lines alone: the launch line, then the kernel's (kernellab.tracebacks)
        user_traceback(exc)
        raise


def _launch(kernel, grid, block, args: tuple, gpu, racecheck: bool, hazards, name, shape: tuple, lines,
            auto_instr, regs, smem) -> Counts:
    """:func:`launch` itself: check the launch, run the blocks, gather the counts."""
    name = name or getattr(kernel, "__name__", "kernel")
    gpu = as_gpu(gpu)  # a GPU, or its Perf
    try:
        g, b = dim3(grid, "grid"), dim3(block, "block")
    except LaunchError as exc:
        raise LaunchError(_("kernel {kernel}: {error}").format(kernel=name, error=exc),
                          **{**exc.details, "kernel": name}) from None
    threads = b[0] * b[1] * b[2]
    if threads > gpu.max_threads_per_block:
        raise LaunchError(_("kernel {kernel}: block {block} has {threads} threads; {gpu} allows at most {limit} "
                            "per block").format(kernel=name, block=fmt_dim3(b), threads=threads, gpu=gpu.name,
                                                limit=gpu.max_threads_per_block),
                          kernel=name, block=fmt_dim3(b), threads=threads, limit=gpu.max_threads_per_block)
    check_limits(name, b, "block")
    check_limits(name, g, "grid")
    regs, smem = _resources(name, gpu, regs, smem)
    try:  # once a launch: the parameters name the arrays, check the arguments and name the guarded views
        sig = inspect.signature(kernel)
    except (TypeError, ValueError) as exc:
        sig = exc
    named = _named_arrays(kernel, name, tuple(args), sig)
    warn_float64(name, named.items())
    memory = GlobalMemory(named, kernel=name)
    if wants_lines(lines):
        tally = line_tally(Tally, LineFinder(kernel, name=name))
        memory.first_touch = tally.first_touch
    else:
        tally = Tally()
    args = guard_arguments(list(sig.parameters)[1:] if isinstance(sig, inspect.Signature) else [], name, tuple(args),
                           memory)
    fn = _function(kernel)
    declared = getattr(kernel, "__kernellab_declares_overhead__", False) or getattr(fn, "__kernellab_declares_overhead__", False)
    auto = not declared if auto_instr is None else bool(auto_instr)
    code = getattr(fn, "__code__", None)
    n_blocks = g[0] * g[1] * g[2]
    lanes_per_block = cdiv(threads, WARP_SIZE) * WARP_SIZE
    per_batch = max(1, MAX_LANES_PER_BATCH // lanes_per_block)
    rounds = 0  # the most round trips a batch's threads waited for their global loads (Block.wait_rounds)
    try:
        for first in range(0, n_blocks, per_batch):
            blk = Block(name, g, b, first, min(per_batch, n_blocks - first), memory, tally,
                        gpu.max_smem_per_block, racecheck, hazards, auto=auto, code=code)
            kernel(blk, *args)
            rounds = max(rounds, blk.wait_rounds)
    except Exception as exc:  # a hint for a Python `if` on lanes; a TypeError or ValueError named at the kernel
        err = placed(lane_hint(exc, name), _("kernel {kernel}").format(kernel=name), kernel=name)
        if err is exc:
            raise
        raise err from exc.__cause__
    total = blk.smem_bytes + smem
    if total > gpu.max_smem_per_block:
        raise LaunchError(_("kernel {kernel}: {declared} B of shared memory declared plus smem={smem} B is {total} B "
                            "a block; {gpu} allows at most {limit} B").format(
            kernel=name, declared=blk.smem_bytes, smem=smem, total=total, gpu=gpu.name, limit=gpu.max_smem_per_block),
            kernel=name, smem=total, limit=gpu.max_smem_per_block)
    info = {"grid": g, "block": b, "smem_per_block": total, "rounds": rounds}
    if regs is not None:
        info["regs"] = regs
    counts = replace(tally.counts(memory.dram_sectors(), shape), launch=info)
    return launched(name, "simt", counts, g, b)


def _resources(name: str, gpu: GPU, regs, smem) -> tuple[int | None, int]:
    """Check ``launch``'s ``regs=`` (registers per thread) and ``smem=`` (dynamic shared memory, bytes)."""
    limit = gpu.max_regs_per_thread
    if regs is not None:
        if isinstance(regs, bool) or not isinstance(regs, (int, np.integer)) or not 1 <= regs <= limit:
            raise LaunchError(_("kernel {kernel}: regs={regs!r} registers per thread; {gpu} allows a whole number "
                                "from 1 to {limit}").format(kernel=name, regs=regs, gpu=gpu.name, limit=limit),
                              kernel=name, argument="regs", limit=limit)
        regs = int(regs)
    if smem is None:
        return regs, 0
    cap = gpu.max_smem_per_block
    if isinstance(smem, bool) or not isinstance(smem, (int, np.integer)) or not 0 <= smem <= cap:
        raise LaunchError(_("kernel {kernel}: smem={smem!r} bytes of dynamic shared memory per block; {gpu} allows "
                            "a whole number from 0 to {limit}").format(kernel=name, smem=smem, gpu=gpu.name, limit=cap),
                          kernel=name, argument="smem", limit=cap)
    return regs, int(smem)


def declares_overhead(kernel):
    """Mark a SIMT kernel that counts its own integer and branch instructions (``blk.count_instr``, from
    its SASS): ``launch`` then counts none automatically, so its counts stay exactly what it declares.

    >>> @declares_overhead
    ... def k(blk):
    ...     blk.count_instr("int", 3)
    >>> launch(k, 1, 32).instr_by_kind
    {'int': 3}
    """
    kernel.__kernellab_declares_overhead__ = True
    return kernel


def _named_arrays(kernel, name: str, args: tuple, sig) -> dict[str, np.ndarray]:
    """Check the arguments' kinds and that they bind to the kernel (``sig``: its signature, or the error
    ``inspect.signature`` raised); name each array by its parameter."""
    params = list(sig.parameters) if isinstance(sig, inspect.Signature) else []
    named = {}
    for i, a in enumerate(args):
        pname = params[i + 1] if i + 1 < len(params) else f"arg{i}"
        if isinstance(a, np.ndarray):
            if a.dtype.kind not in "biuf" or not a.flags.c_contiguous:
                raise LaunchError(_("kernel {kernel}: argument {name} must be a C-contiguous numeric array (got "
                                    "dtype {dtype}, contiguous={contiguous})").format(
                    kernel=name, name=pname, dtype=a.dtype, contiguous=a.flags.c_contiguous), kernel=name, argument=pname)
            named.setdefault(pname, a)
        elif not isinstance(a, (bool, int, float, np.number, np.bool_)):
            raise LaunchError(_("kernel {kernel}: argument {name} is a {type}; pass numpy arrays for memory "
                                "and numbers for scalars").format(kernel=name, name=pname, type=type(a).__name__),
                              kernel=name, argument=pname)
    try:
        if not isinstance(sig, inspect.Signature):
            raise sig
        sig.bind(None, *args)
    except TypeError as exc:
        raise LaunchError(_("kernel {kernel}: the arguments do not fit its parameters: {error}").format(
            kernel=name, error=exc), kernel=name) from exc
    except ValueError:
        pass
    return named
