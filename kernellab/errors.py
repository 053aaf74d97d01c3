"""The errors kernellab raises, as compute-sanitizer and a CUDA launch would report them.

Each subclasses the built-in exception a user would catch (``IndexError``, ``ValueError``,
``RuntimeError``) and names the place in the programming model's own notation.
"""

from __future__ import annotations

from .i18n import _


class KernelError(Exception):
    """Base of every error a kernel or a launch raises in kernellab.

    The message is in the reader's language (``KERNELLAB_LANG``); its fields are also in ``details``, a dict
    with language-independent keys and values, so code never needs to parse a message.

    Examples
    --------
    >>> e = RaceError("…", kind="read-after-write", array="s", index=1)
    >>> e.details["kind"], str(e)
    ('read-after-write', '…')
    """

    def __init__(self, *args, **details):
        super().__init__(*args)
        self.details = details


class OutOfBoundsError(KernelError, IndexError):
    """An access outside its array (memcheck): names the kernel, block and thread or program, array, index and size."""


class MisalignedError(KernelError, IndexError):
    """A vector access whose address is not a multiple of its width (memcheck's misaligned access)."""


class RaceError(KernelError, RuntimeError):
    """A shared-memory hazard between two threads with no barrier between them (racecheck)."""


class BarrierError(KernelError, RuntimeError):
    """A barrier reached by part of a block only (synccheck's divergent barrier)."""


class LaunchError(KernelError, ValueError):
    """A launch the hardware would refuse: too many threads, too much shared memory, bad arguments."""


class ReplayError(KernelError, RuntimeError):
    """A replayed kernel (``@triton.jit(replay=True)``, ``triton.replaying()``) whose capture no longer holds: a
    global, a closure cell, a helper or a builtin its code reads has changed since its launches were recorded
    (Triton's ``RuntimeError: Global variable … has changed since we compiled this kernel``). Names the kernel,
    what changed, from what to what, and how to go on: launch it without replay, or ``kernel.replay_reset()``."""


class KernelTypeError(KernelError, TypeError):
    """A value of the wrong kind inside a kernel (a pointer offset by a float, an array indexed directly),
    named at its place: the ``TypeError`` a front end raises, with the kernel and program (or block) prefixed."""


class KernelValueError(KernelError, ValueError):
    """A value out of the programming model's range inside a kernel (``tl.arange(0, 1000)``, a Python ``if``
    on lane values), named at its place: the ``ValueError`` a front end raises, with the place prefixed."""


def placed(exc: BaseException, place: str, **where) -> BaseException:
    """``exc`` named at ``place``: a plain ``TypeError`` or ``ValueError`` raised inside a kernel becomes a
    :class:`KernelTypeError` or :class:`KernelValueError` whose message starts with ``place`` (kept when it
    already does) and whose ``details`` hold ``where`` and the original message; anything else is returned
    as it is. The traceback stays the original's, so it still ends at the kernel's line.

    Examples
    --------
    >>> e = placed(ValueError("arange's range must be a power of 2"), "kernel k, program (3,0,0)",
    ...            kernel="k", program="(3,0,0)")
    >>> type(e).__name__, isinstance(e, ValueError), str(e)
    ('KernelValueError', True, "kernel k, program (3,0,0): arange's range must be a power of 2")
    >>> e.details["program"], e.details["error"]
    ('(3,0,0)', "arange's range must be a power of 2")
    >>> type(placed(IndexError("x"), "kernel k")).__name__   # not a TypeError or ValueError: as it is
    'IndexError'
    """
    if type(exc) not in (TypeError, ValueError):
        return exc
    text = str(exc)
    message = text if text.startswith(place) else _("{place}: {error}").format(place=place, error=text)
    new = (KernelTypeError if isinstance(exc, TypeError) else KernelValueError)(message, **where, error=text)
    new.__cause__, new.__suppress_context__ = exc.__cause__, True
    return new.with_traceback(exc.__traceback__)


class ClaimError(AssertionError):
    """A number a page states that its own computation does not give (raised by :class:`~kernellab.Claims`).

    ``details`` holds the claim, the computed and the stated value, as ``KernelError.details`` holds its fields.
    """

    def __init__(self, *args, **details):
        super().__init__(*args)
        self.details = details


def fmt_dim3(v) -> str:
    """A CUDA dim3 as ``(x,y,z)``.

    Examples
    --------
    >>> fmt_dim3((3, 0)), fmt_dim3(5)
    ('(3,0,0)', '(5,0,0)')
    """
    v = tuple(v) if hasattr(v, "__len__") else (v,)
    return "(" + ",".join(str(int(x)) for x in (*v, 0, 0)[:3]) + ")"


class Float64Warning(UserWarning):
    """A float64 array reached a kernel: numpy's default dtype, which doubles every byte count and predicted
    time of a kernel meant for float32. Said once per launch; ``with kernellab.allow_float64():`` says
    float64 is meant (``kernellab.float64``)."""


class BlockPointerWarning(UserWarning):
    """A ``@triton.jit`` kernel made a block pointer (``tl.make_block_ptr``, ``tl.advance``): Triton 3.9 removed
    them, and refuses to compile such a kernel; kernellab keeps them (course assignments use them). Said once
    per process (``kernellab.triton.compiler.limits``)."""


class UnknownGPUError(ValueError):
    """A GPU given by a name kernellab has no spec for (``kernellab.specs.gpu_named``); the message names it
    and the GPUs kernellab models."""


class ModelWarning(UserWarning):
    """The performance model's prediction may mislead: a launch shorter than its launch overhead, or a
    cost the model left out that could change which resource binds (see :func:`kernellab.predict`)."""
