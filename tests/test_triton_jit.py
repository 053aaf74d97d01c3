"""Real Triton syntax: the tutorials' kernels against float64 numpy, dtypes, grids, and every error.

The grouped matmul's 20 cases run in one test (one pytest item each cost about 1.4 ms of pytest's own CPU), which lists
every failing case by the id it had as a parametrized test (``leaky_relu-17-33-65-vectorised``); one case alone:
``grouped_matmul(17, 33, 65, "leaky_relu", True)``."""

from pathlib import Path

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import LaunchError, OutOfBoundsError, allow_float64
from tests.reference import every_case, failing_cases, fresh_module

K = fresh_module(Path(__file__).with_name("triton_kernels.py"), "kl_triton_kernels")

MODES = [pytest.param(True, id="vectorised"), pytest.param(False, id="one-by-one")]


@pytest.mark.parametrize("vectorize", MODES)
@pytest.mark.parametrize("n", [1, 97, 1023, 1024, 1025, 4096])
def test_vector_add(n, vectorize):
    rng = np.random.default_rng(n)
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    out = np.empty_like(x)
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)  # noqa: E731
    c = K.add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024, vectorize=vectorize)
    np.testing.assert_array_equal(out, x + y)
    # two loads and a store of n floats; as compiled (compiled_counts.json: add, add_odd), each thread of the
    # 4 warps holds 4 consecutive floats of a program's 1024 (a layout of 512, twice): 8 instructions a thread
    assert (c.programs, c.load_bytes, c.store_bytes) == (triton.cdiv(n, 1024), 8 * n, 4 * n)
    programs = triton.cdiv(n, 1024)
    if n % 16 == 0:  # n divisible by 16: the mask keeps runs of 16, one ld.v4 a lane reads 512 B of a run
        assert c.load_instructions == 2 * programs * 2 * 4
        assert c.load_requests == 2 * triton.cdiv(n, 128) and c.load_sectors == 2 * triton.cdiv(4 * n, 32)
    else:  # the mask may change at any float: one float an instruction, instruction k of a warp reads float
        # 4l + k of its 128 in lane l, 16 B apart; it issues when a lane is active
        assert c.load_instructions == 2 * programs * 8 * 4
        tail = n % 1024  # the last program's active floats; full programs: 32 instructions × 16 sectors
        req = sum(1 for w in range(8) for k in range(4) if w * 128 + k < tail)
        sec = sum(len({(16 * lane + 4 * k) // 32 for lane in range(32) if w * 128 + 4 * lane + k < tail})
                  for w in range(8) for k in range(4))
        assert c.load_requests == 2 * ((n // 1024) * 32 + req)
        assert c.load_sectors == 2 * ((n // 1024) * 32 * 16 + sec)


@pytest.mark.parametrize("vectorize", MODES)
@pytest.mark.parametrize(("M", "N"), [(1, 1), (7, 13), (64, 100), (33, 1024), (5, 1025)])
def test_fused_softmax(M, N, vectorize):
    x = np.random.default_rng(M + N).standard_normal((M, N)).astype(np.float32)
    y = np.empty_like(x)
    B = triton.next_power_of_2(N)
    c = K.softmax_kernel[(M,)](y, x, x.strides[0] // 4, y.strides[0] // 4, N, BLOCK_SIZE=B, vectorize=vectorize)
    ref = np.exp(x - x.max(1, keepdims=True).astype(np.float64))
    np.testing.assert_allclose(y, ref / ref.sum(1, keepdims=True), rtol=2e-6 * np.log2(B + 1), atol=1e-7)
    assert (c.load_bytes, c.store_bytes) == (4 * M * N, 4 * M * N)  # read once, written once


def test_persistent_softmax_with_tl_range_and_num_programs():
    M, N = 37, 200
    x = np.random.default_rng(5).standard_normal((M, N)).astype(np.float32)
    y = np.empty_like(x)
    c = K.softmax_persistent_kernel[(8,)](y, x, N, N, M, N, BLOCK_SIZE=256, num_stages=2)
    ref = np.exp(x - x.max(1, keepdims=True).astype(np.float64))
    np.testing.assert_allclose(y, ref / ref.sum(1, keepdims=True), rtol=1e-5, atol=1e-7)
    assert c.programs == 8 and c.loads == M  # each row loaded once, by program row % 8


def _matmul(a, b, vectorize=True, activation="", BM=32, BN=32, BK=32, G=4):
    M, Kd = a.shape
    N = b.shape[1]
    c = np.empty((M, N), np.float16)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]),)  # noqa: E731
    cnt = K.matmul_kernel[grid](a, b, c, M, N, Kd, a.strides[0] // 2, a.strides[1] // 2, b.strides[0] // 2,
                                b.strides[1] // 2, c.strides[0] // 2, c.strides[1] // 2, BLOCK_SIZE_M=BM,
                                BLOCK_SIZE_N=BN, BLOCK_SIZE_K=BK, GROUP_SIZE_M=G, ACTIVATION=activation,
                                vectorize=vectorize)
    return c, cnt


def grouped_matmul(M: int, N: int, Kd: int, activation: str, vectorize: bool) -> None:
    """One case of :func:`test_grouped_matmul`: the grouped matmul of an M × Kd and a Kd × N fp16 matrix against
    float64, and its counts; raises AssertionError at the first difference."""
    rng = np.random.default_rng(M * N * Kd)
    a = rng.standard_normal((M, Kd)).astype(np.float16)
    b = rng.standard_normal((Kd, N)).astype(np.float16)
    c, cnt = _matmul(a, b, vectorize, activation)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    if activation:
        ref = np.where(ref >= 0, ref, 0.01 * ref)
    tol = 1e-3 * np.abs(ref).max() + 1e-6 * np.sqrt(Kd) * 16  # fp16 output rounding + fp32 accumulation
    assert np.abs(c - ref).max() <= tol
    pm, pn = triton.cdiv(M, 32), triton.cdiv(N, 32)
    assert cnt.programs == pm * pn
    # every K tile is a full 32×32 fp16 tile of A and of B (rows wrap with % M), K masked: (Kd·32·2 B)·2 per program
    assert cnt.load_bytes == pm * pn * 2 * Kd * 32 * 2
    assert cnt.dot_flops == pm * pn * triton.cdiv(Kd, 32) * 2 * 32 * 32 * 32
    assert cnt.store_bytes == M * N * 2


def test_grouped_matmul():
    # 2 activations × 5 shapes × 2 modes: 20 cases, each checked; a failure lists every failing case by the id it had
    # as a parametrized test ([leaky_relu-17-33-65-vectorised]). One case: grouped_matmul(17, 33, 65, "leaky_relu",
    # True)
    cases = {f"{act}-{M}-{N}-{Kd}-{mode.id}": (M, N, Kd, act, mode.values[0]) for act in ("", "leaky_relu")
             for M, N, Kd in [(1, 1, 1), (17, 33, 65), (64, 64, 64), (100, 70, 31), (129, 31, 33)] for mode in MODES}
    checked = every_case(cases, grouped_matmul)
    assert checked[0] == 20
    assert not checked[1], failing_cases(checked, "fail")


def test_grouped_matmul_bytes_formula_at_512_in_real_syntax():
    m = 512
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, m)).astype(np.float16)
    b = rng.standard_normal((m, m)).astype(np.float16)
    c, cnt = _matmul(a, b, BM=64, BN=64, BK=32, G=8)
    assert cnt.load_bytes == (m * m * (m // 64) + m * m * (m // 64)) * 2  # the seed's formula, fp16
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=2e-3, atol=2e-2)


@pytest.mark.parametrize("vectorize", MODES)
@pytest.mark.parametrize(("M", "N"), [(1, 1), (3, 1023), (5, 1024), (4, 1025), (11, 3000)])
def test_layer_norm_forward(M, N, vectorize):
    rng = np.random.default_rng(N)
    x = (-2.3 + 0.5 * rng.standard_normal((M, N))).astype(np.float16)
    w, b = rng.random(N).astype(np.float16), rng.random(N).astype(np.float16)
    y = np.empty_like(x)
    mean, rstd = np.empty(M, np.float32), np.empty(M, np.float32)
    c = K._layer_norm_fwd_fused[(M,)](x, y, w, b, mean, rstd, N, N, 1e-5, BLOCK_SIZE=1024, vectorize=vectorize)
    x64 = x.astype(np.float64)
    mu = x64.mean(1)
    r = 1 / np.sqrt(x64.var(1) + 1e-5)
    np.testing.assert_allclose(mean, mu, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(rstd, r, rtol=1e-4)
    ref = (x64 - mu[:, None]) * r[:, None] * w + b
    np.testing.assert_allclose(y.astype(np.float64), ref, atol=1e-2)  # fp16 output: 2^-11 relative, |y| < 8
    # x read three times, w and b once per row, y written once (fp16), mean and rstd one fp32 each per row
    assert c.load_bytes == M * (3 * N * 2 + 2 * N * 2) and c.store_bytes == M * (N * 2 + 8)


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize(("R", "C"), [(1, 1), (5, 7), (16, 16), (9, 31)])
def test_reductions_along_an_axis(axis, R, C):
    x = np.random.default_rng(R * C).standard_normal((R, C)).astype(np.float32)
    n = C if axis == 0 else R
    outs = [np.zeros(n, np.float32) for _ in range(3)] + [np.zeros(n, np.int32)]
    K.reduce_kernel[(1,)](x, *outs, R, C, AXIS=axis, BR=triton.next_power_of_2(R), BC=triton.next_power_of_2(C))
    np.testing.assert_array_equal(outs[0], x.max(axis))
    np.testing.assert_array_equal(outs[1], x.min(axis))
    np.testing.assert_allclose(outs[2], x.astype(np.float64).sum(axis), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(outs[3], x.argmax(axis))


def test_elementwise_math():
    x = np.random.default_rng(3).standard_normal(300).astype(np.float32)
    out = np.empty_like(x)
    K.math_kernel[(3,)](x, out, 300, BLOCK=128)
    x64 = x.astype(np.float64)
    ref = (np.exp(x64) + np.log(np.abs(x64) + 1) + np.sqrt(np.abs(x64)) + 1 / np.sqrt(np.abs(x64) + 1)
           + 1 / (1 + np.exp(-x64)) + np.maximum(x64, 0.5) - np.minimum(x64, -0.5))
    np.testing.assert_allclose(out, ref, rtol=1e-5)


def test_integer_division_truncates_as_in_c():
    a = np.array([7, -7, 7, -7, 0, 5], np.int32)
    b = np.array([2, 2, -2, -2, 3, 5], np.int32)
    q, r = np.empty_like(a), np.empty_like(a)
    K.intdiv_kernel[(1,)](a, b, q, r, 6, BLOCK=8)
    assert q.tolist() == [3, -3, -3, 3, 0, 1]  # C: toward zero (numpy's // would give -4)
    assert r.tolist() == [1, -1, 1, -1, 0, 0]  # C: sign of the dividend


def test_fp16_arithmetic_stays_fp16_and_division_computes_in_fp32():
    x = np.random.default_rng(0).random(64).astype(np.float16)
    out = np.empty_like(x)
    K.half_kernel[(1,)](x, out, 64, BLOCK=64)
    num = (x * np.float16(0.5) + x)  # fp16 * 0.5 stays fp16
    ref = (num.astype(np.float32) / (x + np.float16(3.0)).astype(np.float32)).astype(np.float16)
    np.testing.assert_array_equal(out, ref)


def test_2d_grid_transpose_and_3d_grid_ids():
    x = np.arange(35 * 19, dtype=np.float32).reshape(35, 19)
    y = np.zeros((19, 35), np.float32)
    c = K.transpose_kernel[(triton.cdiv(35, 16), triton.cdiv(19, 16))](x, y, 35, 19, BM=16, BN=16)
    np.testing.assert_array_equal(y, x.T)
    assert c.programs == 3 * 2
    ids = np.zeros((2 * 3 * 4, 3), np.int32)
    K.grid3_kernel[(2, 3, 4)](ids)
    lin = np.arange(24)
    np.testing.assert_array_equal(ids, np.stack([lin % 2, lin // 2 % 3, lin // 6], 1))


def test_divergent_programs_rerun_one_by_one_with_the_same_result():
    x = np.arange(100, dtype=np.float32)
    outs = []
    for v in (True, False):
        out = np.zeros_like(x)
        c = K.branchy_kernel[(4,)](x, out, 100, BLOCK=32, vectorize=v)
        outs.append((out, c))
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    assert outs[0][1] == outs[1][1]
    assert outs[0][0][40] == -40 and outs[0][0][10] == 10


def test_vectorised_and_one_by_one_counts_agree_per_program():
    x = np.random.default_rng(0).standard_normal((6, 50)).astype(np.float32)
    y = np.empty_like(x)
    c1 = K.softmax_kernel[(6,)](y, x, 50, 50, 50, BLOCK_SIZE=64)
    c2 = K.softmax_kernel[(6,)](y, x, 50, 50, 50, BLOCK_SIZE=64, per_program=True)
    assert c1 == c2
    # row r: 50 floats from byte 200·r; warp 0 covers [200r, 200r+128), warp 1 [200r+128, 200r+200).
    # r=0: 4 + 3 (bytes 128..199 → sectors 4,5,6) = 7; r=1: bytes 200..327 → sectors 6..10 (5), 328..399 → 10..12 (3) = 8
    # r=2: 400..527 → 12..16 (5), 528..599 → 16..18 (3) = 8; r=3: 600..727 → 18..22 (5), 728..799 → 22..24 (3) = 8
    # r=4: 800..927 → 25..28 (4), 928..999 → 29..31 (3) = 7; r=5: 1000..1127 → 31..35 (5), 1128..1199 → 35..37 (3) = 8
    # A block of 64 over 4 warps (compiled: softmax_rows, copy_small): warps 2 and 3 load copies of warps 0
    # and 1's elements, so a load counts each of those sectors twice.
    sectors = [c2.per_program[(r, 0, 0)].load_sectors for r in range(6)]
    assert sectors == [2 * 7, 2 * 8, 2 * 8, 2 * 8, 2 * 7, 2 * 8]
    assert sum(sectors) == c2.load_sectors == c1.load_sectors


# --- errors --------------------------------------------------------------------------------------
@triton.jit
def _oob(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.load(x_ptr + offs)


@pytest.mark.parametrize("vectorize", MODES)
def test_out_of_bounds_names_kernel_program_array_offset(vectorize):
    x = np.zeros(70, np.float32)
    with pytest.raises(OutOfBoundsError, match=r"kernel _oob, program \(2,0,0\): load x_ptr\[70\] out of bounds \(size 70\)"):
        _oob[(3,)](x, 70, BLOCK=32, vectorize=vectorize)


def test_a_failed_vectorised_batch_leaves_the_stores_of_the_programs_before_the_error():
    @triton.jit
    def k(x_ptr, out_ptr, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs) + 1)

    x = np.zeros(40, np.float32)
    out = np.zeros(40, np.float32)
    with pytest.raises(OutOfBoundsError, match=r"program \(1,0,0\): load x_ptr\[40\]"):
        k[(2,)](x, out, BLOCK=32)
    assert out[:32].tolist() == [1.0] * 32 and out[32:].tolist() == [0.0] * 8  # as run program by program


@pytest.mark.parametrize(("body", "cause", "msg"), [
    (lambda: tl.arange(0, 12), ValueError, "arange's range must be a power of 2"),
    (lambda: tl.arange(4, 4), ValueError, "arange's end argument must be greater than the start argument"),
    (lambda: tl.zeros((3, 4), tl.float32), ValueError, "Shape element 0 must be a power of 2"),
    (lambda: tl.exp(tl.zeros((16,), tl.float16)), ValueError, "Expected dtype ['fp32', 'fp64'] but got fp16"),
    (lambda: tl.dot(tl.zeros((16, 32), tl.float16), tl.zeros((16, 16), tl.float16)), AssertionError,
     "input and other must have equal reduction dimensions"),
])
def test_compile_errors_inside_a_kernel(body, cause, msg):
    """What Triton 3.9 refuses to compile is a CompilationError naming the kernel and the line, with Triton's
    own exception (type and message) as its cause (the messages are real Triton 3.9's)."""
    @triton.jit
    def k(x_ptr):
        body()

    with pytest.raises(triton.CompilationError) as info:
        k[(1,)](np.zeros(4, np.float32))
    assert type(info.value.__cause__) is cause and str(info.value.__cause__).startswith(msg)
    assert str(info.value).startswith("kernel k, ") and __file__ in info.value.file_line


@pytest.mark.parametrize(("body", "exc", "msg"), [
    # Triton 3.9 compiles M, N < 16 (padded) but not an fp16 K below 16 (test_triton_limits has both sides)
    (lambda: tl.dot(tl.zeros((8, 8), tl.float16), tl.zeros((8, 16), tl.float16)), triton.CompilationError,
     "(?s)kernel k, .*K >= 16"),
    (lambda: bool(tl.arange(0, 4) < 2), TypeError, "no single truth value"),
    (lambda: tl.arange(0, 4)[0], TypeError, "indexed only with None"),
    (lambda: tl.zeros((4,), tl.float32) & 1, TypeError, "needs integers"),
    (lambda: tl.zeros((4,), tl.float32) // 2, TypeError, "needs integers"),
    (lambda: tl.zeros((4,), tl.float32) + tl.zeros((8,), tl.float32), ValueError, "Cannot broadcast"),
    (lambda: np.exp(tl.zeros((4,), tl.float32)), TypeError, "does not support ufuncs"),
    (lambda: tl.load(tl.zeros((4,), tl.int32)), TypeError, "needs a pointer"),
])
def test_errors_inside_a_kernel(body, exc, msg):
    @triton.jit
    def k(x_ptr):
        body()

    with pytest.raises(exc, match=msg):
        k[(1,)](np.zeros(4, np.float32))


def test_launch_errors():
    with pytest.raises(LaunchError, match="positive"):
        K.add_kernel[(0,)](*(np.zeros(4, np.float32) for _ in range(3)), 4, BLOCK_SIZE=4)
    with pytest.raises(LaunchError, match="kernel add_kernel"):
        K.add_kernel[(1,)](np.zeros(4), np.zeros(4), 4, BLOCK_SIZE=4)  # an argument missing
    with pytest.raises(LaunchError, match="not contiguous"):
        K.add_kernel[(1,)](np.zeros(8)[::2], np.zeros(4), np.zeros(4), 4, BLOCK_SIZE=4)
    with pytest.raises(RuntimeError, match="no Triton program is running"):
        tl.program_id(0)
    with pytest.raises(RuntimeError, match=r"launch it as add_kernel\[grid\]"):
        K.add_kernel(np.zeros(4), np.zeros(4), np.zeros(4), 4, 4)


def test_scalar_arguments_python_and_numpy():
    @triton.jit
    def k(out_ptr, a, b, c):
        tl.store(out_ptr + tl.arange(0, 4), tl.where(tl.arange(0, 4) == 0, a * 2, b + c))

    out = np.zeros(4, np.float64)
    with allow_float64():  # fp64 on purpose: the promotion rules under test
        k[(1,)](out, 3, np.float64(0.25), np.int64(2**40))
    assert out.tolist() == [6.0] + [0.25 + 2**40] * 3  # fp64 + int64 computes in fp64


@triton.jit
def _negated_if(x, flip: tl.constexpr = tl.core.CONSTEXPR_0):
    if flip:
        return -x
    return x


def test_a_constexpr_default_of_a_device_function_is_its_value():
    # Triton 3.9's tl.core.CONSTEXPR_0 (constexpr(0)), a default libraries give constexpr parameters: the
    # helper called without it takes the value 0, not the truthy object
    @triton.jit
    def k(out_ptr):
        o = tl.arange(0, 4)
        tl.store(out_ptr + o, _negated_if(o) * 10 + _negated_if(o, 1))

    out = np.zeros(4, np.int32)
    k[(1,)](out)
    assert out.tolist() == [0, 9, 18, 27]  # o·10 + (−o) = 9·o
