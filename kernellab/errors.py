"""The errors kernellab raises, as compute-sanitizer and a CUDA launch would report them.

Each subclasses the built-in exception a user would catch (``IndexError``, ``ValueError``,
``RuntimeError``) and names the place in the programming model's own notation.
"""

from __future__ import annotations


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


class ModelWarning(UserWarning):
    """The performance model's prediction may mislead: a launch shorter than its launch overhead, or a
    cost the model left out that could change which resource binds (see :func:`kernellab.predict`)."""
