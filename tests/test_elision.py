"""Temporary elision (kernellab.triton.executor.tensor._elided): writing an operator's result into an operand's
memory changes no value, and never memory something else still reads.

Each kernel runs twice, with the elision on and off (``_ELIDE_MIN`` above every block), on blocks large
enough for it (≥ 2^14 elements a step); results are compared bit for bit with each other and with the
same arithmetic in numpy float32. The kernels keep intermediates alive in every way a kernel can: a
named value used twice, a value stored and then used again, a loaded block used after arithmetic on
it, an input array read as a view (its memory must never be written).
"""

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab.triton.executor import tensor as T


@triton.jit
def gelu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    a = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    tanh = 1 - 2 / (tl.exp(2 * a) + 1)
    tl.store(y_ptr + offs, 0.5 * x * (1 + tanh), mask=mask)


@triton.jit
def reuse(x_ptr, o1_ptr, o2_ptr, o3_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    t = x * 2.0  # named, used three times below
    u = t + 1.0
    v = t * 3.0
    tl.store(o1_ptr + offs, t, mask=mask)  # stored (deferred), then read again
    w = (t - 0.5) * (u + v)
    tl.store(o2_ptr + offs, w + x, mask=mask)  # x (a view of the input) read after arithmetic on it
    tl.store(o3_ptr + offs, (x * x + 1.0) / (u * 1.0), mask=mask)


@triton.jit
def scaled(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, (x * 2.0 + 1.0) * 3.0, mask=mask)


def _both(launch):
    """``launch()`` with the elision on and off: the two results."""
    on = launch()
    saved = T._ELIDE_MIN
    T._ELIDE_MIN = 1 << 62
    try:
        off = launch()
    finally:
        T._ELIDE_MIN = saved
    return on, off


@pytest.fixture
def elisions(monkeypatch):
    """The number of operands written into, while the test runs (to know the elision happened)."""
    seen = []
    real = T._reusable

    def spy(a, other, fn):
        ok = real(a, other, fn)
        seen.append(ok)
        return ok

    monkeypatch.setattr(T, "_reusable", spy)
    return seen


@pytest.mark.parametrize("n", [1 << 15, (1 << 16) + 17])
def test_gelu_is_the_same_with_and_without_elision(n, elisions):
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    x0 = x.copy()

    def launch():
        y = np.zeros_like(x)
        c = gelu[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y, c

    (y_on, c_on), (y_off, c_off) = _both(launch)
    assert any(elisions)  # the fast run did write into temporaries
    np.testing.assert_array_equal(y_on, y_off)
    assert c_on == c_off
    np.testing.assert_array_equal(x, x0)  # the input, read as a view, untouched
    a = np.float32(0.7978845608028654) * (x + np.float32(0.044715) * x * x * x)
    want = np.float32(0.5) * x * (np.float32(1) + (np.float32(1) - np.float32(2) / (np.exp(np.float32(2) * a) + np.float32(1))))
    np.testing.assert_array_equal(y_on, want)


def test_a_value_still_held_is_never_written_into(elisions):
    n = (1 << 15) + 5
    x = np.random.default_rng(1).standard_normal(n).astype(np.float32)
    x0 = x.copy()

    def launch():
        outs = [np.zeros_like(x) for _ in range(3)]
        reuse[(triton.cdiv(n, 4096),)](x, *outs, n, BLOCK=4096)
        return outs

    on, off = _both(launch)
    for a, b in zip(on, off):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(x, x0)
    f = np.float32
    t = x * f(2)
    u, v = t + f(1), t * f(3)
    np.testing.assert_array_equal(on[0], t)
    np.testing.assert_array_equal(on[1], (t - f(0.5)) * (u + v) + x)
    np.testing.assert_array_equal(on[2], (x * x + f(1)) / (u * f(1)))
    assert any(elisions)


def test_a_temporary_and_a_literal_write_into_the_temporary(elisions):
    # x · 2 is a temporary of 2^15 elements only the sum's closure holds; + 1.0 is a literal (one element):
    # the sum is computed into x · 2's memory
    n = 1 << 15
    x = np.random.default_rng(2).standard_normal(n).astype(np.float32)

    def launch():
        y = np.zeros_like(x)
        scaled[(1,)](x, y, n, BLOCK=n)
        return y

    on, off = _both(launch)
    assert any(elisions)
    np.testing.assert_array_equal(on, off)
    np.testing.assert_array_equal(on, (x * np.float32(2) + np.float32(1)) * np.float32(3))
