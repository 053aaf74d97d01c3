"""What a function of the language does, marked where it is defined, as Triton marks its builtins (``@builtin``).

* :func:`pure`: computes blocks from blocks and constants, and nothing else (``tl.exp``, ``x + y``,
  ``tl.reshape``, ``tl.program_id``);
* :func:`checked`: pure, but raises on values outside its range (``tl.gather``'s index);
* :func:`memory`: reads or writes memory (``tl.load``, ``tl.store``, the atomics, a descriptor's loads);
* :func:`effect`: does something a block does not hold: prints, reads a clock, runs assembly;
* :func:`host`: hands a block's values to the host's Python (``if x:``, ``int(x)``, an assertion's verdict).

Nothing in the executor reads the marks; a layer above it may (:mod:`kernellab.triton.replay` follows the
pure functions of a launch and refuses the others on loaded data). :func:`of` reads a mark.

Examples
--------
>>> @effect
... def tick():
...     return 0
>>> of(tick), of(len)
('effect', None)
"""

from __future__ import annotations

ATTRIBUTE = "__kernellab_kind__"  #: the attribute a mark sets on the function
KINDS = ("pure", "checked", "memory", "effect", "host")


def _mark(kind: str):
    def mark(fn):
        setattr(fn, ATTRIBUTE, kind)
        return fn

    mark.__name__ = kind
    mark.__doc__ = f"Mark ``fn`` as a {kind} function of the language (see :mod:`kernellab.triton.executor.kinds`)."
    return mark


pure = _mark("pure")
checked = _mark("checked")
memory = _mark("memory")
effect = _mark("effect")
host = _mark("host")


def of(fn) -> str | None:
    """The kind ``fn`` was marked with (a property's, its getter's), or None."""
    fn = getattr(fn, "fget", fn)
    return getattr(fn, ATTRIBUTE, None)
