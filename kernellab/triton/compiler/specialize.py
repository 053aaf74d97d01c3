"""Launch-time specialisation, as ``triton.jit``'s launcher (Triton 3.9) does it.

Before compiling, Triton looks at each argument of a launch:

* a pointer whose data address is a multiple of 16 bytes is marked ``tt.divisibility = 16`` (``"D"``);
* an integer that is a multiple of 16 is marked the same way;
* an integer equal to 1 becomes the constant 1 (``stride == 1`` then makes ``offs * stride`` contiguous);
* a parameter named in ``do_not_specialize`` is neither; one in ``do_not_specialize_on_alignment`` is
  not marked divisible (an int equal to 1 still becomes 1); floats and bools are never specialised.

A kernel is compiled once per specialisation. The marks are the facts Triton's axis analysis starts
from (:mod:`kernellab.triton.compiler.axis`): they decide how wide each load and store is. kernellab applies the
same marks at each launch and shows them on the counts (``counts.specialization``).

Examples
--------
>>> mark(16, True, True), mark(17, True, True), mark(1, True, True), mark(16, False, True), mark(2.0, True, True)
('D', None, 1, None, None)
>>> facts_of(1, 1).value, facts_of(32, "D").divisibility, facts_of(7, None).divisibility
(1, (16,), (1,))
"""

from __future__ import annotations

import numpy as np

from . import axis as A


def mark(value, specialize: bool, align: bool):
    """``"D"``, ``1`` or None: how Triton specialises one argument (a number, or a pointer's data address
    given as ``("pointer", address)``)."""
    if not specialize:
        return None
    if isinstance(value, tuple) and value[:1] == ("pointer",):
        return "D" if align and value[1] % 16 == 0 else None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        return None
    if value == 1:
        return 1
    return "D" if align and value % 16 == 0 else None


def facts_of(value, marked) -> A.AxisInfo:
    """The axis facts a kernel starts from for a scalar argument marked ``marked`` (pointers too: their
    divisibility is in bytes)."""
    return _FACTS[marked]


# the three starting facts (AxisInfo is immutable: made once, shared by every launch)
_FACTS = {1: A.constant(1)._replace(param=True), "D": A.argument(16), None: A.argument(1)}


def nothing_known(kernel):
    """A copy of a ``@triton.jit`` kernel that specialises none of its arguments (every parameter that is
    not a ``tl.constexpr`` in ``do_not_specialize`` and ``do_not_specialize_on_alignment``): the code
    Triton compiles when it knows nothing of a launch's arguments.

    Examples
    --------
    >>> import kernellab.triton as triton
    >>> import kernellab.triton.language as tl
    >>> @triton.jit
    ... def copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    ...     offs = tl.arange(0, BLOCK)
    ...     tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
    >>> x = np.zeros(512, np.float32)
    >>> aligned, plain = copy[(1,)](x, x, 512, BLOCK=512), nothing_known(copy)[(1,)](x, x, 512, BLOCK=512)
    >>> aligned.specialization, aligned.load_instructions, plain.specialization, plain.load_instructions
    ({'x_ptr': 'D', 'y_ptr': 'D', 'n': 'D'}, 4, {}, 16)
    """
    plain = [n for n in kernel.arg_names if n not in kernel._constexpr_names]
    return type(kernel)(kernel.fn, do_not_specialize=plain, do_not_specialize_on_alignment=plain)
