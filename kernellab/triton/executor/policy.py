"""How a launch runs: the exact shortcuts it may take, fixed for the launch.

Every :class:`Policy` gives the same values, counts and errors; they differ only in speed.
:meth:`Policy.reference` takes no shortcut: the programs run one after another, every offset and mask
of an access is built lane by lane, every access counted from each lane's address, every store applied
when it runs. The equivalence tests compare a kernel's launch under the default policy with its launch
under the reference one (``tests/test_policy.py``).

A launch takes the policy active where it starts (:func:`using`, a context manager) and carries it in
its :class:`~kernellab.triton.executor.program.Program` steps to the end.

Examples
--------
>>> Policy().structured, Policy.reference()
(True, Policy(structured=False, closed_forms=False, defer=False, batch=False, groups=False))
>>> with using(Policy.reference()):
...     active().defer
False
>>> active() == Policy()
True
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True)
class Policy:
    """The shortcuts a launch may take (each exact: see the module)."""

    # offsets and masks kept by their structure (:class:`~kernellab.triton.executor.view.View`), so that an
    # access moves slices and windows of its array and checks its bounds from its extremes
    structured: bool = True
    # an access counted from its structure (closed forms, counts kept per structure) instead of from every
    # lane's address through kernellab.access
    closed_forms: bool = True
    # a vectorised step defers its stores to its end and lets its loads lend views of arrays
    defer: bool = True
    # the programs run a batch at a time, every value carrying a leading axis over the batch (a batch that
    # cannot is undone and rerun program by program; see kernellab.triton.executor.engine)
    batch: bool = True
    # a batch whose programs diverge in Python control flow reruns in groups of programs that agree, not program
    # by program (kernellab.triton.executor.groups)
    groups: bool = True

    @classmethod
    def reference(cls) -> Policy:
        """The policy that takes no shortcut: what every other policy is tested against."""
        return cls(structured=False, closed_forms=False, defer=False, batch=False, groups=False)


DEFAULT = Policy()
_ACTIVE: ContextVar[Policy] = ContextVar("kernellab_triton_policy", default=DEFAULT)


def active() -> Policy:
    """The policy a launch started now would take."""
    return _ACTIVE.get()


@contextmanager
def using(policy: Policy):
    """Launches started inside the ``with`` block take ``policy``."""
    token = _ACTIVE.set(policy)
    try:
        yield policy
    finally:
        _ACTIVE.reset(token)
