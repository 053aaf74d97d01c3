"""How a ``@triton.jit`` launch specialises its scalar arguments (kernellab.triton.compiler.specialize), against
what Triton 3.9's own ``native_specialize_impl`` returns for the same values (specialisation and alignment on):
``True`` and ``False`` → ``('u1', None)``, ``1.0`` and ``32.0`` → ``('fp32', None)``, ``1`` → ``('constexpr', 1)``,
``16`` → ``('i32', 'D')``, ``17`` → ``('i32', None)``."""

import numpy as np

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab.triton.compiler.specialize import mark


def test_bools_and_floats_are_never_specialised():
    # a bool is an int in Python, and 1.0 == 1, 32.0 % 16 == 0: none of them is marked (Triton types them u1 and
    # fp32 and specialises neither); the ints are: 1 a constant, 16 divisible by 16, 17 nothing
    assert [mark(v, True, True) for v in (True, False, 1.0, 32.0)] == [None] * 4
    assert [mark(v, True, True) for v in (1, 16, 17)] == [1, "D", None]


@triton.jit
def _scaled(x_ptr, scale, flag, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, tl.where(flag, x * scale, x), mask=offs < n)


def test_a_launch_marks_only_the_pointer_and_the_int():
    # x's data 16-byte aligned: "D"; n = 32: "D"; scale 1.0 and flag True: unmarked, and the values as passed
    x = np.arange(32, dtype=np.float32)
    cnt = _scaled[(1,)](x, 1.0, True, 32, BLOCK=32)
    assert cnt.specialization == {"x_ptr": "D", "n": "D"}
    assert np.array_equal(x, np.arange(32, dtype=np.float32))
    cnt = _scaled[(1,)](x, 32.0, True, 32, BLOCK=32)
    assert cnt.specialization == {"x_ptr": "D", "n": "D"} and x[1] == 32.0  # 1 × 32
