"""The lecture form's batched programs (kernellab.triton.executor.perprogram), operation by operation.

A batch of lecture-form programs runs at once only where it reproduces each program exactly; anything
else makes it run one program at a time. Each kernel below uses one family of operations on per-program
values — block attributes, indexing, Python numbers from ``program_id``, numpy's reductions, ``np.array``,
Python's ``min`` and ``max`` — and must give what its programs give one by one, bit for bit, with the
same counts; ``BATCHED`` says which of them run as one batch (the rest fall back, and must say so by
giving the same answer, not by failing).
"""

from unittest import mock

import numpy as np
import pytest

from kernellab import triton_launch
from kernellab.triton.executor import engine
from kernellab.triton.executor.perprogram import NotBatchable, PerProgram, elementwise


def shape_facts(tl, x, out):  # shape, ndim, size and len of a loaded block: the same in every program
    pid = tl.program_id(0)
    v = tl.load(x, pid * 8 + tl.arange(0, 8))
    tl.store(out, pid * 8 + tl.arange(0, 8), v * 0 + v.ndim * 100 + v.size * 10 + len(v) + v.shape[0])


def slicing(tl, x, out):  # basic indexing: a new axis, Ellipsis, a reversed slice, an int, a negative int
    pid = tl.program_id(0)
    v = tl.load(x, pid * 8 + tl.arange(0, 8))
    w = v[None, :][0, ...]
    tl.store(out, pid * 8 + tl.arange(0, 8), w[::-1] + v[2] + v[-1])


def fancy(tl, x, out):  # indexing with an array and iterating over a block: one program at a time
    pid = tl.program_id(0)
    v = tl.load(x, pid * 8 + tl.arange(0, 8))
    total = 0.0
    for e in v[np.array([7, 0, 1, 2, 3, 4, 5, 6])]:
        total = total + e
    tl.store(out, pid * 8 + tl.arange(0, 8), v * 0 + total)


def weak_arithmetic(tl, x, out):  # Python numbers from program_id: arithmetic and comparisons, as Python's
    pid = tl.program_id(0)
    n = pid / 4 + pid * 3 % 5 + pid * 7 // 3 + (-pid) + abs(-pid) + (+pid) + (pid < 3) + (pid >= 2) + \
        (pid == 1) + (pid != 4) + (pid > 4) + (pid <= 0) + (pid - 1) * 0.5
    tl.store(out, pid * 8 + tl.arange(0, 8), tl.zeros((8,)) + n)


def weak_bits(tl, x, out):  # powers and bit operations of Python numbers: one program at a time
    pid = tl.program_id(0)
    n = pid ** 2 + (pid << 1) + (pid >> 1) + (pid ^ 3) + (pid | 4) + (pid & 5) + (~pid) + 2 ** pid + (8 >> pid)
    tl.store(out, pid * 8 + tl.arange(0, 8), tl.zeros((8,)) + n)


def to_python(tl, x, out):  # a per-program value made one Python number: programs disagree, one at a time
    pid = tl.program_id(0)
    n = 0
    for _ in range(pid % 2 + 1):
        n = n + 1
    tl.store(out, pid * 8 + tl.arange(0, 8), tl.zeros((8,)) + float(pid) + int(pid * 3) + n)


def same_python(tl, x, out):  # …or agree: the batch goes on with one number
    pid = tl.program_id(0)
    k = int(pid * 0 + 3) + float(pid - pid) + range(10)[pid * 0 + 2]  # __int__, __float__, __index__
    tl.store(out, pid * 8 + tl.arange(0, 8), tl.zeros((8,)) + k + pid)


def reductions(tl, x, out):  # numpy's max, min, sum, amax, amin: the block, an axis, keepdims; clip, where
    pid = tl.program_id(0)
    offs = pid * 8 + tl.arange(0, 2)[:, None] * 4 + tl.arange(0, 4)[None, :]
    v = tl.load(x, offs)
    s = np.max(v) + np.min(v, axis=0) + np.max(v, axis=1, keepdims=True) + np.amax(v, axis=-1)[:, None] + np.amin(v) \
        + np.sum(v[0], axis=0) + np.sum(v, keepdims=True)
    tl.store(out, offs, np.clip(np.where(v > 0, v, -v), 0.5, 3.0) + s)


def reductions_one_by_one(tl, x, out):  # a sum along an axis of a 2-D block (its order), np.concatenate,
    # np.where of one argument: one program at a time
    pid = tl.program_id(0)
    offs = pid * 8 + tl.arange(0, 8)
    v = tl.load(x, offs)
    w = np.sum(v.reshape(2, 2, 2), axis=0).reshape(4)
    tl.store(out, offs, np.concatenate([w, w]) + np.sum(v) + np.where(v > 0)[0].size)


def arrays(tl, x, out):  # np.array and np.asarray of a program id; Python min and max of program ids
    pid = tl.program_id(0)
    a = np.array(pid) + np.asarray(pid, dtype=np.float32) + np.array(2.5)
    tl.store(out, pid * 8 + tl.arange(0, 8), tl.zeros((8,)) + a + min(pid, 2) + max(1, pid, 3) + min(pid, 5 - pid))


def float_min(tl, x, out):  # min() and max() of Python floats: which object is kept shows in its type
    pid = tl.program_id(0)
    tl.store(out, pid * 8 + tl.arange(0, 8), tl.zeros((8,)) + min(pid * 0.5, 1.0) + max(0.25, pid * 1.0))


def promotion(tl, x, out):  # Python numbers meeting numpy blocks: numpy's promotion (NEP 50) decides
    pid = tl.program_id(0)
    i = tl.arange(0, 8)  # int32
    tl.store(out, pid * 8 + i, (i + pid).astype(np.float32) + (i * 0.5) + pid * np.float32(0.25))


def out_of_range(tl, x, out):  # …where one program would raise or round: one program at a time
    pid = tl.program_id(0)
    i = tl.arange(0, 8)
    big = pid * (1 << 30) * (1 << 25)  # beyond 2^52: int64 and float64 no longer agree
    tl.store(out, pid * 8 + i, (i + pid * 0.5) * 0 + big % 7 + (i + pid * (1 << 25)) * 0 + x[0])


# one kernel a reason to run one program at a time: the value each stores
def no_dtype(tl, x, out):  # a Python number has no dtype
    pid = tl.program_id(0)
    v = tl.load(x, pid * 8 + tl.arange(0, 8))
    tl.store(out, pid * 8 + tl.arange(0, 8), v + (getattr(pid, "dtype", None) is None))


def slice_bounds(tl, x, out):  # slice bounds from program ids
    pid = tl.program_id(0)
    v = tl.load(x, pid * 8 + tl.arange(0, 8))
    tl.store(out, pid * 8 + tl.arange(0, 8), v + (np.sum(v[pid * 0 + 1:])))


def iterating(tl, x, out):  # iterating over a block
    pid = tl.program_id(0)
    v = tl.load(x, pid * 8 + tl.arange(0, 8))
    tl.store(out, pid * 8 + tl.arange(0, 8), v + (sum(e for e in v[:2])))


def ufunc_keywords(tl, x, out):  # a ufunc with keywords
    pid = tl.program_id(0)
    v = tl.load(x, pid * 8 + tl.arange(0, 8))
    tl.store(out, pid * 8 + tl.arange(0, 8), v + (np.add(v, 1, dtype=np.float32)[0]))


def ufunc_method(tl, x, out):  # a ufunc's method
    pid = tl.program_id(0)
    v = tl.load(x, pid * 8 + tl.arange(0, 8))
    tl.store(out, pid * 8 + tl.arange(0, 8), v + (np.add.reduce(v)))


def other_function(tl, x, out):  # a numpy function not reproduced per program
    pid = tl.program_id(0)
    v = tl.load(x, pid * 8 + tl.arange(0, 8))
    tl.store(out, pid * 8 + tl.arange(0, 8), v + (np.cumsum(v)[-1]))


def a_list(tl, x, out):  # a list as an operand
    pid = tl.program_id(0)
    v = tl.load(x, pid * 8 + tl.arange(0, 8))
    tl.store(out, pid * 8 + tl.arange(0, 8), v + ((v + [1] * 8)[3]))


def big_int_to_float(tl, x, out):  # a Python int beyond 2^24 meeting a float32 block
    pid = tl.program_id(0)
    v = tl.load(x, pid * 8 + tl.arange(0, 8))
    tl.store(out, pid * 8 + tl.arange(0, 8), v + ((v + pid * (1 << 25))[0]))


def big_int(tl, x, out):  # a Python int beyond 2^52
    pid = tl.program_id(0)
    v = tl.load(x, pid * 8 + tl.arange(0, 8))
    tl.store(out, pid * 8 + tl.arange(0, 8), v + ((pid + (1 << 53)) % 3))


def huge_int(tl, x, out):  # a Python int beyond int64 (numpy holds it as an object)
    pid = tl.program_id(0)
    v = tl.load(x, pid * 8 + tl.arange(0, 8))
    tl.store(out, pid * 8 + tl.arange(0, 8), v + ((pid + (1 << 70)) > 0))


def float_floor_division(tl, x, out):  # floor division of Python floats
    pid = tl.program_id(0)
    v = tl.load(x, pid * 8 + tl.arange(0, 8))
    tl.store(out, pid * 8 + tl.arange(0, 8), v + (pid * 0.5 // 1))


def reduction_keywords(tl, x, out):  # a reduction's keywords
    pid = tl.program_id(0)
    v = tl.load(x, pid * 8 + tl.arange(0, 8))
    tl.store(out, pid * 8 + tl.arange(0, 8), v + (np.sum(v, dtype=np.float64)))


def empty_reduction(tl, x, out):  # a reduction of an empty block
    pid = tl.program_id(0)
    v = tl.load(x, pid * 8 + tl.arange(0, 8))
    tl.store(out, pid * 8 + tl.arange(0, 8), v + (np.sum(v[0:0])))


def clip_keywords(tl, x, out):  # np.clip with keywords
    pid = tl.program_id(0)
    v = tl.load(x, pid * 8 + tl.arange(0, 8))
    tl.store(out, pid * 8 + tl.arange(0, 8), v + (np.clip(v, 0, 1, out=None)[0]))


def where_one_argument(tl, x, out):  # np.where of one argument
    pid = tl.program_id(0)
    v = tl.load(x, pid * 8 + tl.arange(0, 8))
    tl.store(out, pid * 8 + tl.arange(0, 8), v + (np.where(v > 0)[0].size))


def array_keywords(tl, x, out):  # np.array with more arguments
    pid = tl.program_id(0)
    v = tl.load(x, pid * 8 + tl.arange(0, 8))
    tl.store(out, pid * 8 + tl.arange(0, 8), v + (np.array(pid, copy=True)))


def min_of_numpy_values(tl, x, out):  # min() of a numpy value
    pid = tl.program_id(0)
    v = tl.load(x, pid * 8 + tl.arange(0, 8))
    tl.store(out, pid * 8 + tl.arange(0, 8), v + (min(v[0], pid)))


def max_of_numpy_values(tl, x, out):  # max() of a numpy value
    pid = tl.program_id(0)
    v = tl.load(x, pid * 8 + tl.arange(0, 8))
    tl.store(out, pid * 8 + tl.arange(0, 8), v + (max(pid * 1.0, v[1])))


FALLBACKS = [no_dtype, slice_bounds, iterating, ufunc_keywords, ufunc_method, other_function, a_list, big_int_to_float,
             big_int, huge_int, float_floor_division, reduction_keywords, empty_reduction, clip_keywords,
             where_one_argument, array_keywords, min_of_numpy_values, max_of_numpy_values]


def small_batched(tl, x, out):  # and these do not
    pid = tl.program_id(0)
    i = tl.arange(0, 8)
    v = tl.load(x, pid * 8 + i)
    flag = pid > 2  # a Python bool meeting a float block
    n = flag + v + max(1, 3, pid) + min([4, 2]) + max(5, 6) + max(3, 1, pid)
    tl.store(out, pid * 8 + i, n)


def sum_along_an_axis(tl, x, out):  # a sum along one axis of a 2-D block: numpy's order is the block's own
    pid = tl.program_id(0)
    offs = pid * 8 + tl.arange(0, 2)[:, None] * 4 + tl.arange(0, 4)[None, :]
    v = tl.load(x, offs)
    tl.store(out, offs, v * 0 + np.sum(v, axis=0))


CASES = [shape_facts, slicing, fancy, weak_arithmetic, weak_bits, to_python, same_python, reductions, reductions_one_by_one,
         arrays, float_min, promotion, out_of_range, *FALLBACKS, small_batched, sum_along_an_axis]
BATCHED = {shape_facts, slicing, weak_arithmetic, same_python, reductions, arrays, promotion, small_batched}


@pytest.mark.parametrize("kernel", CASES, ids=lambda k: k.__name__)
def test_a_batch_gives_what_its_programs_give_one_by_one(kernel):
    x = (np.arange(48, dtype=np.float32) - 20) / 4  # -5, -4.75, …, 6.75: exact in fp32
    runs = []
    for vectorize in (False, True):
        out = np.full(48, np.nan, np.float32)
        with mock.patch.object(engine, "_one_by_one", wraps=engine._one_by_one) as fallback:
            counts = triton_launch(kernel, 6, x, out, vectorize=vectorize)
        runs.append((out.tobytes(), counts, fallback.call_count))
    (one, c1, _), (batch, c2, fell_back) = runs
    assert batch == one and c2 == c1
    assert (fell_back == 0) == (kernel in BATCHED)
    assert not np.isnan(np.frombuffer(one, np.float32)).any()  # every program stored its 8 values


def test_hand_derived_values_of_three_kernels():
    x = (np.arange(48, dtype=np.float32) - 20) / 4
    out = np.zeros(48, np.float32)
    triton_launch(shape_facts, 6, x, out)
    assert (out == 1 * 100 + 8 * 10 + 8 + 8).all()  # ndim 1, size 8, len 8, shape[0] 8
    triton_launch(weak_arithmetic, 6, x, out)
    # program 2: 2/4 + 6 % 5 + 14 // 3 − 2 + 2 + 2 + (2 < 3) + (2 ≥ 2) + 0 + 1 + 0 + 0 + 0.5
    #          = 0.5 + 1 + 4 − 2 + 2 + 2 + 1 + 1 + 1 + 0.5 = 11
    assert (out[16:24] == 11).all()
    triton_launch(arrays, 6, x, out)
    # program 4: 4 + 4 + 2.5, + min(4, 2) = 2, + max(1, 4, 3) = 4, + min(4, 1) = 1: 17.5
    assert (out[32:40] == 17.5).all()


def len_of_a_value(tl, x, out):
    pid = tl.program_id(0)
    tl.store(out, pid * 8 + tl.arange(0, 8), tl.load(x, pid * 8 + tl.arange(0, 8)) * len(tl.load(x, pid * 8)))


def truth_of_a_block(tl, x, out):
    pid = tl.program_id(0)
    v = tl.load(x, pid * 8 + tl.arange(0, 8))
    if v > 0:
        tl.store(out, pid * 8 + tl.arange(0, 8), v)


def division_by_zero(tl, x, out):
    pid = tl.program_id(0)
    tl.store(out, pid * 8 + tl.arange(0, 8), tl.zeros((8,)) + 1 / (pid - pid))


def axis_out_of_range(tl, x, out):
    pid = tl.program_id(0)
    v = tl.load(x, pid * 8 + tl.arange(0, 8))
    tl.store(out, pid * 8 + tl.arange(0, 8), v + np.max(v, axis=1))


@pytest.mark.parametrize("kernel", [len_of_a_value, truth_of_a_block, division_by_zero, axis_out_of_range],
                         ids=lambda k: k.__name__)
def test_a_batch_raises_what_its_first_program_raises(kernel):
    x = np.arange(48, dtype=np.float32)
    errors = []
    for vectorize in (False, True):
        with pytest.raises(Exception) as exc:
            triton_launch(kernel, 6, x, np.zeros(48, np.float32), vectorize=vectorize)
        errors.append((type(exc.value), str(exc.value)))
    assert errors[0] == errors[1]


def test_a_kernel_that_is_not_a_plain_function_runs_as_it_is():
    import functools

    out = np.zeros(48, np.float32)
    x = np.arange(48, dtype=np.float32)
    triton_launch(functools.partial(small_batched, x=x), 6, out=out)
    assert out[16:24].tolist() == (x[16:24] + 0 + 3 + 2 + 6 + 3).tolist()  # program 2: 2 > 2 is False


def test_a_per_program_value_shows_its_programs():
    assert repr(PerProgram(np.arange(2), weak=True)) == "PerProgram(array([0, 1]), weak=True)"


def test_a_result_whose_type_differs_from_one_programs_is_refused():
    # elementwise compares the batch's result type with one program's (a 0-d probe): a function whose type
    # depends on its operands' shapes is refused, not trusted
    def shape_dependent(a, b):
        out = np.add(a, b)
        return out if np.ndim(out) == 0 else out.astype(np.float64)

    with pytest.raises(NotBatchable, match="dtype float64, one program gets float32"):
        elementwise(shape_dependent, (PerProgram(np.ones((2, 3), np.float32)), np.float32(1)))


def _twin(which: bool):
    """Two kernels of one name and one file, only one of which assigns a module name."""
    if which:
        def kernel(tl, x):
            global _TWIN_SEEN
            _TWIN_SEEN = tl.program_id(0)
    else:
        def kernel(tl, x):
            tl.store(x, tl.program_id(0))
    return kernel


def test_whether_a_kernel_assigns_a_module_name_is_read_from_its_own_code():
    # read once a code object: each twin keeps its own answer, whichever is asked first
    from kernellab.triton.executor.perprogram import batched

    assigns, plain = _twin(True), _twin(False)
    assert assigns.__name__ == plain.__name__ == "kernel"
    for _ in range(2):
        assert batched(plain) is not None
        assert batched(assigns) is None  # a kernel that keeps state across programs runs one by one
