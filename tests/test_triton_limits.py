"""Triton 3.9's compile-time limits in @triton.jit kernels: each raises triton.CompilationError naming the kernel
and the line, with the exception Triton's own code raises (type and message) as its cause.

Every message below is what real Triton 3.9 gave when compiling the same kernel for sm_90 on a machine with no
GPU (``triton.compile(ASTSource(fn, signature, constexprs), target=GPUTarget("cuda", 90, 32))``). The lecture
form ``kernel(tl, ...)`` is the course's specification and is not held to them; block pointers, which Triton 3.9
removed, are kept with a warning."""

import warnings

import numpy as np
import pytest

import kernellab
import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab.errors import BlockPointerWarning
from kernellab.triton.compiler import limits
from kernellab.triton.language.extra import libdevice
from kernellab.triton.seed import triton_launch


def refused(kernel, *args, **meta):
    """The CompilationError a one-program launch raises."""
    with pytest.raises(triton.CompilationError) as info:
        kernel[(1,)](*args, **meta)
    return info.value


def cause(err):
    return type(err.__cause__), str(err.__cause__)


# --- block shapes: a power of two each dimension, 2^20 elements at most ---------------------------------
@triton.jit
def arange_of(x_ptr, B: tl.constexpr):
    o = tl.arange(0, B)
    tl.store(x_ptr + o, o)


@triton.jit
def outer_sum(x_ptr, B: tl.constexpr):
    a = tl.arange(0, B)
    c = a[:, None] + a[None, :]
    tl.store(x_ptr + tl.arange(0, 4), tl.sum(tl.sum(c, 0), 0))


@triton.jit
def zeros_of(x_ptr, M: tl.constexpr, N: tl.constexpr):
    z = tl.zeros((M, N), dtype=tl.float32)
    tl.store(x_ptr + tl.arange(0, 4), tl.sum(tl.sum(z, 0), 0))


@triton.jit
def join_of(x_ptr, B: tl.constexpr):
    a = tl.arange(0, B)
    c = tl.join(a, a)
    tl.store(x_ptr + tl.arange(0, 4), tl.sum(tl.sum(c, 0), 0))


@triton.jit
def reshape_to(x_ptr, R: tl.constexpr):
    o = tl.arange(0, 16)
    v = tl.reshape(o, (R, 16 // R))
    tl.store(x_ptr + o, tl.reshape(v, (16,)))


@triton.jit
def histogram_of(x_ptr, BINS: tl.constexpr):
    tl.store(x_ptr, tl.sum(tl.histogram(tl.arange(0, 16), BINS), 0))


def test_the_largest_block_triton_allows_runs_and_one_element_more_is_refused():
    x = np.zeros(2**20, np.int32)
    arange_of[(1,)](x, B=2**20)  # 2^20 = TRITON_MAX_TENSOR_NUMEL: compiles in Triton 3.9, runs here
    assert x[-1] == 2**20 - 1
    err = refused(arange_of, np.zeros(2**21, np.int32), B=2**21)
    assert cause(err) == (ValueError, "numel (2097152) exceeds triton maximum tensor numel (1048576)")


def test_a_broadcast_past_two_to_the_twenty_is_refused_where_it_is_made():
    # the case: a 2048 × 2048 = 4,194,304-element block, made by broadcasting two legal blocks
    err = refused(outer_sum, np.zeros(4, np.int32), B=2048)
    assert cause(err) == (ValueError, "numel (4194304) exceeds triton maximum tensor numel (1048576)")
    assert (err.node.lineno, err.node.col_offset) == (3, 8)  # Triton 3.9: "at 3:8:", the line of the broadcast
    x = np.zeros(4, np.int32)
    outer_sum[(1,)](x, B=1024)  # 1024 × 1024 = 2^20: allowed
    # Σ over 1024² of (i + j) = 2 · 1024 · (1023 · 1024 / 2) = 1,072,693,248
    assert x[0] == 1072693248


@pytest.mark.parametrize(("kernel", "meta", "message"), [
    (arange_of, {"B": 1000}, "arange's range must be a power of 2"),
    (zeros_of, {"M": 3, "N": 4}, "Shape element 0 must be a power of 2"),
    (zeros_of, {"M": 2048, "N": 2048}, "numel (4194304) exceeds triton maximum tensor numel (1048576)"),
    (join_of, {"B": 2**20}, "numel (2097152) exceeds triton maximum tensor numel (1048576)"),
    (reshape_to, {"R": 3}, "Shape element 0 must be a power of 2"),
    (histogram_of, {"BINS": 10}, "Shape element 0 must be a power of 2"),
])
def test_block_shapes_triton_refuses(kernel, meta, message):
    err = refused(kernel, np.zeros(16, np.float32), **meta)
    assert cause(err) == (ValueError, message)
    assert str(err).startswith(f"kernel {kernel.__name__}, {__file__}:") and str(err).endswith(message)


# --- compile-time arguments (constexpr) ------------------------------------------------------------------
@triton.jit
def arange_to(x_ptr, n):
    o = tl.arange(0, n)
    tl.store(x_ptr + o, o)


@triton.jit
def zeros_runtime(x_ptr, n):
    z = tl.zeros((n,), dtype=tl.float32)
    tl.store(x_ptr + tl.arange(0, 4), tl.sum(z, 0))


@triton.jit
def reshape_runtime(x_ptr, n):
    o = tl.arange(0, 16)
    tl.store(x_ptr + o, tl.reshape(tl.reshape(o, (n, 4)), (16,)))


@triton.jit
def static_range_runtime(x_ptr, n):
    for i in tl.static_range(n):
        tl.store(x_ptr + i, i)


@triton.jit
def static_assert_runtime(x_ptr, n):
    tl.static_assert(n > 3)
    tl.store(x_ptr, 1)


@pytest.mark.parametrize(("kernel", "exc", "message"), [
    (arange_to, ValueError, "arange's arguments must be of type tl.constexpr"),
    (zeros_runtime, TypeError,
     "Shape element 0 must have type `constexpr[int]`, got `constexpr[<class 'triton.language.core.tensor'>]"),
    (reshape_runtime, TypeError,
     "Shape element 0 must have type `constexpr[int]`, got `constexpr[<class 'triton.language.core.tensor'>]"),
    (static_range_runtime, AssertionError, "int32[] used as tl.static_range start value is not a constexpr"),
    (static_assert_runtime, NotImplementedError, "Assertion condition could not be determined at compile-time. "
                                                 "Make sure that it depends only on `constexpr` values"),
])
def test_a_run_time_value_where_triton_needs_a_constexpr(kernel, exc, message):
    err = refused(kernel, np.zeros(16, np.float32), 4)  # n = 4: a scalar argument, known only at run time
    assert cause(err) == (exc, message)


# --- tl.dot's rules ----------------------------------------------------------------------------------------
@triton.jit
def dot_of(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    a = tl.load(a_ptr + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :])
    b = tl.load(b_ptr + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], c)


@triton.jit
def dot_into(a_ptr, c_ptr, B: tl.constexpr, OUT: tl.constexpr):
    o = tl.arange(0, B)
    a = tl.load(a_ptr + o[:, None] * B + o[None, :])
    c = tl.dot(a, a, tl.zeros((B, B), dtype=tl.float16), out_dtype=OUT)
    tl.store(c_ptr + o[:, None] * B + o[None, :], c)


@pytest.mark.parametrize(("a", "b", "K", "exc", "message"), [
    (np.float16, np.float16, 8, AssertionError, "Input shapes should have M >= 1, N >= 1 and K >= 16"),
    (np.int8, np.int8, 16, AssertionError, "Input shapes should have M >= 1, N >= 1 and K >= 32"),
    (np.float16, np.float32, 16, AssertionError, "Both operands must be same dtype. Got fp16 and fp32"),
    (np.int32, np.int32, 16, AssertionError, "Unsupported lhs dtype int32"),
    (np.uint8, np.uint8, 32, AssertionError, "only int8 supported!"),
])
def test_dot_dtype_and_size_rules(a, b, K, exc, message):
    err = refused(dot_of, np.zeros((16, K), a), np.zeros((K, 16), b), np.zeros((16, 16), np.float32), M=16, N=16, K=K)
    assert cause(err) == (exc, message)


@pytest.mark.parametrize(("dtype", "out", "smallest_k"), [
    (np.float16, np.float32, 16), (np.float32, np.float32, 8), (np.float64, np.float64, 4), (np.int8, np.int32, 32)])
def test_dot_sizes_on_both_sides_of_triton_3_9_s_limit(dtype, out, smallest_k):
    # Triton 3.9's min_dot_size on NVIDIA (backends/nvidia/compiler.py), (M, N, K) at least: (1, 1, 32) for 8-bit
    # operands, (1, 1, 4) for 64-bit, (1, 1, 8) for 32-bit, (1, 1, 16) else: M and N of 1 compile (the tensor
    # cores' tiles padded), a K one power of two below its smallest does not
    rng = np.random.default_rng(7)
    for m, n in ((1, 1), (2, 8), (8, 2)):
        a = rng.integers(-3, 4, (m, smallest_k)).astype(dtype)
        b = rng.integers(-3, 4, (smallest_k, n)).astype(dtype)
        c = np.zeros((m, n), out)
        with kernellab.allow_float64():
            cnt = dot_of[(1,)](a, b, c, M=m, N=n, K=smallest_k)
        # integers of at most 3 in magnitude, K <= 32: sums of at most 9 * 32 = 288, exact in every type
        np.testing.assert_array_equal(c, a.astype(np.int64) @ b.astype(np.int64))
        assert cnt.flops == 2 * m * n * smallest_k  # one multiply and one add per (row, column, k): 2·M·N·K
    k = smallest_k // 2
    with kernellab.allow_float64():
        err = refused(dot_of, np.zeros((1, k), dtype), np.zeros((k, 1), dtype), np.zeros((1, 1), out), M=1, N=1, K=k)
    assert cause(err) == (AssertionError, f"Input shapes should have M >= 1, N >= 1 and K >= {smallest_k}")


def test_dot_accumulator_rules():
    a, c = np.zeros((16, 16), np.float16), np.zeros((16, 16), np.float16)
    dot_into[(1,)](a, c, B=16, OUT=tl.float16)  # an fp16 accumulator with out_dtype fp16: Triton compiles it
    err = refused(dot_into, a, c, B=16, OUT=tl.bfloat16)
    assert cause(err) == (ValueError, "out_dtype=bfloat16 is unsupported. Please use out_dtype=float32/float16 and "
                                      "cast with `.to(tl.bfloat16)`")
    err = refused(dot_into, a, c, B=16, OUT=tl.float32)
    assert cause(err) == (AssertionError, "expected accumulator dtype fp32, got fp16; pass out_dtype=fp16 to use "
                                          "this accumulator dtype")



@triton.jit
def dot_fp8_fp16(a_ptr, b_ptr, c_ptr):
    r, k = tl.arange(0, 16), tl.arange(0, 32)
    a = tl.load(a_ptr + r[:, None] * 32 + k[None, :]).to(tl.float8e4nv, bitcast=True)
    b = tl.load(b_ptr + k[:, None] * 16 + r[None, :])
    tl.store(c_ptr + r[:, None] * 16 + r[None, :], tl.dot(a, b))


def test_fp8_with_another_operand_type_is_refused_by_its_dtype():
    # only fp8 × fp8 skips the dtype list (semantic.dot: "All combinations of supported fp8 x fp8 are permitted");
    # fp8 × fp16 is checked against it, and fp8 is not on it: the lhs is refused first
    err = refused(dot_fp8_fp16, np.zeros((16, 32), np.uint8), np.zeros((32, 16), np.float16),
                  np.zeros((16, 16), np.float32))
    assert cause(err) == (AssertionError, "Unsupported lhs dtype fp8e4nv")


@triton.jit
def arange_between(x_ptr, S: tl.constexpr, E: tl.constexpr):
    o = tl.arange(S, E)
    tl.store(x_ptr + o, o)


def test_an_arange_past_int32_is_refused_before_its_size():
    # semantic.arange: start >> 32 or end >> 32 → "arange must fit in int32", before any other check; 2^32 is the
    # first such end (and a power of two, whose 2^32 elements the block-shape rule would refuse with another
    # message), and a start of 2^32 is refused so even with an end below it (not "end must be greater")
    err = refused(arange_of, np.zeros(16, np.float32), B=2**32)
    assert cause(err) == (ValueError, "arange must fit in int32")
    err = refused(arange_between, np.zeros(16, np.float32), S=2**32, E=16)
    assert cause(err) == (ValueError, "arange must fit in int32")
    err = refused(arange_of, np.zeros(16, np.float32), B=2**31)  # fits in int32 (2^31 >> 32 = 0): its size refused
    assert cause(err) == (ValueError, f"numel ({2**31}) exceeds triton maximum tensor numel (1048576)")


def test_the_error_is_chained_as_raise_from_and_a_missing_column_is_column_0(monkeypatch):
    # `raise CompilationError from cause`: __cause__ the cause, __suppress_context__ True. Python run with -X
    # no_debug_ranges gives an instruction no column (positions.col_offset None): the caret goes at column 0
    err = refused(arange_of, np.zeros(16, np.float32), B=1000)
    assert isinstance(err.__cause__, ValueError) and err.__suppress_context__ is True
    assert err.node.col_offset == 8  # `o = tl.arange(0, B)`: tl.arange at column 8 of the dedented source
    import inspect
    from types import SimpleNamespace

    real = inspect.getframeinfo

    def no_columns(frame, context=1):
        info = real(frame, context)
        return SimpleNamespace(positions=info.positions._replace(col_offset=None, end_col_offset=None))

    monkeypatch.setattr(inspect, "getframeinfo", no_columns)
    err = refused(arange_of, np.zeros(16, np.float32), B=1000)
    assert err.node.col_offset == 0 and str(err).endswith("    o = tl.arange(0, B)\n^\narange's range must be a power of 2")

# --- names Triton 3.9 does not have ------------------------------------------------------------------------
@triton.jit
def tanh_by_math(x_ptr, B: tl.constexpr):
    o = tl.arange(0, B)
    tl.store(x_ptr + o, tl.math.tanh(tl.load(x_ptr + o)))


@triton.jit
def tanh_by_libdevice(x_ptr, B: tl.constexpr):
    o = tl.arange(0, B)
    tl.store(x_ptr + o, libdevice.tanh(tl.load(x_ptr + o)))


def test_tl_math_tanh_is_a_name_triton_3_9_lacks():
    err = refused(tanh_by_math, np.zeros(16, np.float32), B=16)
    assert cause(err) == (AttributeError, "module 'triton.language.math' has no attribute 'tanh'")
    assert err.error_message == 'AttributeError("module \'triton.language.math\' has no attribute \'tanh\'")'
    assert (err.node.lineno, err.node.col_offset) == (3, 24)  # where tl.math.tanh starts, as Triton 3.9 reports it
    x = np.full(16, 0.5, np.float32)
    tanh_by_libdevice[(1,)](x, B=16)  # where Triton 3.9 has it
    assert x[0] == np.float32(np.tanh(0.5))  # tanh(0.5) = 0.4621171572…, rounded to fp32
    assert not hasattr(tl.math, "tanh")  # outside a kernel, the AttributeError itself


# --- where the checks do not apply -------------------------------------------------------------------------
def seed_arange(tl, x, B):
    tl.store(x, tl.arange(0, B), np.zeros(B, np.float32))


def seed_outer(tl, x, B):
    a = tl.arange(0, B)
    tl.store(x, tl.arange(0, 4), np.zeros(4, np.float32) + (a[:, None] + a[None, :]).sum())


def test_the_lecture_form_is_not_held_to_them():
    # the seeds' array-and-offset form: a 2048 × 2048 block of numpy, as the lecture scripts may build
    triton_launch(seed_outer, 1, np.zeros(4, np.float32), B=2048)
    triton_launch(seed_arange, 1, np.zeros(1024, np.float32), B=1024)


def test_outside_a_kernel_the_cause_itself_is_raised():
    with pytest.raises(ValueError, match="power of 2"):
        tl.arange(0, 1000)
    assert not limits.active()


# --- block pointers: kept, with a warning ------------------------------------------------------------------
@triton.jit
def copy_by_block_pointer(x_ptr, y_ptr, N: tl.constexpr):
    src = tl.make_block_ptr(x_ptr, (N,), (1,), (0,), (N,), (0,))
    dst = tl.make_block_ptr(y_ptr, (N,), (1,), (0,), (N,), (0,))
    tl.store(dst, tl.load(src))


def test_block_pointers_run_and_warn_once(monkeypatch):
    monkeypatch.setattr(limits, "_WARNED", set())  # as at the start of a process
    x, y = np.arange(16, dtype=np.float32), np.zeros(16, np.float32)
    with pytest.warns(BlockPointerWarning, match="Triton 3.9 removed block pointers") as record:
        copy_by_block_pointer[(1,)](x, y, N=16)
    assert len(record) == 1 and record[0].filename == __file__  # the kernel's line, once for two block pointers
    assert (y == x).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the second launch: no warning
        copy_by_block_pointer[(1,)](x, np.zeros(16, np.float32), N=16)
