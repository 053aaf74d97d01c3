"""The mini-Triton's per-operation paths written out for speed (kernellab/triton/executor/tensor.py ``_binary``,
``_binary_values``, ``facts``; dtypes.py ``of_python``; counts.py ``_union_length`` of intervals of one length): a literal's type, operands of another rank or type, the
facts of an operand made another shape, and what a ``tl.dot``'s result or a load passes on through either
operand. Every expectation is derived by hand in its comment."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab.triton.compiler import axis as A
from kernellab.triton.executor import dtypes as T
from kernellab.triton.executor import engine
from kernellab.triton.executor.counts import _union_length
from kernellab.triton.executor.tensor import _ELIDE_MIN, facts, tensor
from kernellab.triton.language.core import _uncomputed_dot


@pytest.mark.parametrize(("value", "name"), [
    (0.5, "fp32"), (-0.0, "fp32"), (float("inf"), "fp32"), (float("nan"), "fp32"),
    (2.0**-126, "fp32"),               # the least normal fp32 magnitude
    (2.0**-127, "fp64"),               # an fp32 subnormal: fp64
    (1e-40, "fp64"), (3.4028234663852886e38, "fp32"),   # fp32's largest finite value
    (3.5e38, "fp64"),                  # past fp32's largest: fp64, not inf
    (3, "int32"), (2**31 - 1, "int32"), (-2**31, "int32"),
    (2**31, "uint32"), (2**32 - 1, "uint32"), (-2**31 - 1, "int64"), (2**32, "int64"),
    (2**63, "uint64"), (True, "int1"), (np.float16(1), "fp16"), (np.int8(3), "int8"),
])
def test_a_literal_is_typed_as_tritons_to_tensor_types_it(value, name):
    assert T.of_python(value).name == name


def test_a_literal_past_64_bits_is_refused():
    with pytest.raises(OverflowError, match="64 bits"):
        T.of_python(2**64)
    with pytest.raises(OverflowError, match="64 bits"):
        T.of_python(-2**63 - 1)


def test_the_facts_of_an_operand_made_another_shape():
    col = tensor(np.zeros((1, 4, 1), np.int32), T.int32, (4, 1))
    col._ax = A.AxisInfo((4, 1), (16, 16), (1, 1))
    same = facts(col, (4, 1))
    assert same is col._ax  # its own shape: the facts as they are
    # (4, 1) broadcast to (4, 8): dimension 1 becomes 8 equal values (constancy 8), runs of 1 (contiguity 1)
    assert facts(col, (4, 8)) == A.AxisInfo((4, 1), (16, 16), (1, 8))
    assert facts(col, [4, 8]) == A.AxisInfo((4, 1), (16, 16), (1, 8))  # a list as a shape, as a tuple
    row = tensor(np.zeros((1, 8), np.int32), T.int32, (8,))
    row._ax = A.AxisInfo((8,), (8,), (1,))
    # (8,) made (4, 8): a leading dimension of 1, then broadcast to 4 equal values (constancy 4); its
    # divisibility is the gcd of the elements' own: a run of 8 consecutive ints has elements divisible only by 1
    assert facts(row, (4, 8)) == A.AxisInfo((1, 8), (1, 8), (4, 1))
    # the constant 12 (divisible by 4) splat to (2, 2): runs of 1, every element 12, one run of 2 equal values
    assert facts(12, (2, 2)) == A.AxisInfo((1, 1), (4, 4), (2, 2), 12)
    assert facts(12, ()) == facts(12) == A.constant(12)
    assert facts(0.5, (4,)) == A.AxisInfo((1,), (1,), (4,))  # nothing known of a float, splat

real_one_by_one = engine._one_by_one


@triton.jit
def _mixed(x_ptr, i_ptr, h_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr):
    pid = tl.program_id(0)
    rows = tl.arange(0, R)
    cols = tl.arange(0, C)
    x = tl.load(x_ptr + pid * R * C + rows[:, None] * C + cols[None, :])   # fp32 (R, C)
    i = tl.load(i_ptr + pid * C + cols)                                    # int32 (C,): one rank less
    h = tl.load(h_ptr + pid * R + rows)                                    # fp16 (R,)
    y = i + x                                # int32 → fp32, rank 1 → 2 on the left
    v = x - i                                # and on the right
    z = h[:, None] * 0.5 + 3                 # fp16 block with literals stays fp16
    w = 2.0 * y - z + v * 0.25               # fp16 → fp32 on the right
    tl.store(out_ptr + pid * R * C + rows[:, None] * C + cols[None, :], w)


def test_operands_of_another_type_and_rank_are_cast_and_aligned(monkeypatch):
    # five programs, each its own rows of every array, run together (values of shape (programs, …)): a step
    # that failed would be rerun one program at a time, and right, so none may be
    alone = []
    monkeypatch.setattr(engine, "_one_by_one", lambda *a: alone.append(a) or real_one_by_one(*a))
    P, R, C = 5, 4, 8
    rng = np.random.default_rng(3)
    x = rng.standard_normal((P, R, C)).astype(np.float32)
    i = rng.integers(-50, 50, (P, C)).astype(np.int32)
    h = rng.standard_normal((P, R)).astype(np.float16)
    out = np.zeros((P, R, C), np.float32)
    _mixed[(P,)](x, i, h, out, R=R, C=C)
    f = np.float32
    y = i.astype(f)[:, None, :] + x
    v = x - i.astype(f)[:, None, :]
    z = h[:, :, None] * np.float16(0.5) + np.float16(3)    # computed in fp16, as Triton does
    assert np.array_equal(out, f(2.0) * y - z.astype(f) + v * f(0.25))
    assert not alone


@triton.jit
def _dep_left(a_ptr, b_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    acc = tl.dot(a, b)
    acc = 2.0 * acc          # the dot's result on the right of a literal
    acc = 1.0 - acc          # and again
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc)


def test_work_on_a_dots_result_counts_whichever_side_it_is_on():
    M = N = K = 16
    a = np.ones((M, K), np.float16)
    b = np.ones((K, N), np.float16)
    out = np.zeros((M, N), np.float32)
    c = _dep_left[(1,)](a, b, out, M=M, N=N, K=K)
    assert np.all(out == 1.0 - 2.0 * K)
    # two FP32 operations on every element of a 16 × 16 result, one program: 2 × 256 = 512 dependent FLOPs
    assert c.launch["dot_dependent_flops"] == 512


@triton.jit
def _wait_right(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    s = 1.5 + y              # y waited for on the right of a literal: one round
    t = x * s                # x loaded in that round's epoch: it had arrived, no more waiting
    u = tl.load(x_ptr + offs)
    v = t + u                # u loaded after: waited for on the right of a block, a second round
    tl.store(out_ptr + offs, v)


def test_a_load_used_on_either_side_is_waited_for():
    x = np.arange(128, dtype=np.float32)
    y = np.ones(128, np.float32)
    out = np.zeros(128, np.float32)
    c = _wait_right[(1,)](x, y, out, BLOCK=128)
    assert np.array_equal(out, x * 2.5 + x)
    # rounds: y's first use waits for both loads in flight (1), u's use waits for u (2)
    assert c.launch["rounds"] == 2


def test_a_layout_passes_to_a_result_from_either_operand():
    # the layout tag of a block (where its layout comes from) goes to a result of its shape, whichever side the
    # block is on, a literal on the other
    x = tensor(np.ones((1, 64), np.float32), T.float32, (64,))
    x._lay = ("blocked", 7)
    for out in (3.0 * x, x * 3.0, 1 - x, x - 1):
        assert out._lay == ("blocked", 7)
    assert (x + x)._lay == ("blocked", 7)
    y = tensor(np.ones((1, 64), np.float32), T.float32, (64,))
    assert (y * 2.0)._lay is None and (2.0 * y)._lay is None  # none known: none given


def test_a_small_product_is_computed_as_numpy_computes_it():
    # below _ELIDE_MIN elements no operand is written into; the value is the plain product
    n = _ELIDE_MIN // 2
    a = tensor(np.full((1, n), 3.0, np.float32), T.float32, (n,))
    b = a * a
    assert np.array_equal(b.data, np.full((1, n), 9.0, np.float32))
    assert np.array_equal(a.data, np.full((1, n), 3.0, np.float32))  # its operand unchanged


def test_a_sampled_dots_stand_in_has_the_shape_of_the_product():
    # operands of 3 programs and of 1: the stand-in has rows for 3; batch dimensions (1,) and (2,) broadcast to
    # (2,); 16 × 32 @ 32 × 8 is 16 × 8; NaN for floats, 0 for integers
    out = _uncomputed_dot(3, 1, (1, 16, 32), (2, 32, 8), None, np.float32)
    assert out.shape == (3, 2, 16, 8) and out.dtype == np.float32 and np.isnan(out).all()
    assert _uncomputed_dot(1, 1, (16, 32), (32, 8), None, np.int32).tolist() == np.zeros((1, 16, 8)).tolist()
    # an accumulator of 4 programs' rows (4, 16, 8) broadcasts the product's one row to 4
    acc = np.zeros((4, 16, 8), np.float32)
    assert _uncomputed_dot(1, 1, (16, 32), (32, 8), acc, np.float32).shape == (4, 16, 8)
    # an accumulator of the product's own shape: that shape
    assert _uncomputed_dot(2, 2, (16, 32), (32, 8), np.zeros((2, 16, 8)), np.float16).shape == (2, 16, 8)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 60), min_size=1, max_size=40), st.integers(-1, 6), st.integers(1, 4))
def test_the_union_of_intervals_of_one_length_is_every_integer_they_cover(starts, n, parts):
    # intervals [s, s + n) in any order (repeats too), split over `parts` marks as a launch's loads give them, and
    # one more run of a single int pair: the union counted one integer at a time
    lo = np.array(starts, np.int64)
    runs = [(chunk, chunk + n) for chunk in np.array_split(lo, parts) if chunk.size]
    want = len({x for s in starts for x in range(s, s + n)})
    assert _union_length(runs) == want
    assert _union_length(runs + [(starts[0], starts[0] + n)]) == want  # (an int run: the same interval again)
