"""The project's real-syntax kernels under real Triton's interpreter, against kernellab.

Runs ``tests/triton_kernels.py`` twice: as written (kernellab) and with its two import lines changed to
``import triton`` / ``import triton.language as tl``, under ``TRITON_INTERPRET=1`` on CPU torch tensors.
Skipped unless ``triton`` and ``torch`` are importable: ``nox -s conformance`` installs them.
"""

import importlib.util
import os
from pathlib import Path

import numpy as np
import pytest

from kernellab.grid import cdiv

os.environ.setdefault("TRITON_INTERPRET", "1")  # must be set before triton is imported
torch = pytest.importorskip("torch", reason="the conformance session installs torch (CPU) and triton")
pytest.importorskip("triton", reason="the conformance session installs triton; run `nox -s conformance`")

SOURCE = Path(__file__).parents[1] / "triton_kernels.py"


@pytest.fixture(scope="module")
def kernels(load_pair):
    return load_pair(SOURCE)


COMPARED: set[str] = set()  # the kernels some test below ran in both


def both(kernels, name, grid, arrays, scalars=(), **meta):
    """Launch kernel ``name`` in kernellab and in real Triton on copies of ``arrays``; return both outputs."""
    COMPARED.add(name)
    return kernels.run(name, grid, arrays, scalars, **meta)


def test_vector_add(kernels):
    n = 1000
    x, y = np.random.default_rng(0).random((2, n), dtype=np.float32)
    ours, theirs = both(kernels, "add_kernel", (4,), [x, y, np.zeros(n, np.float32)], (n,), BLOCK_SIZE=256)
    np.testing.assert_array_equal(ours[2], theirs[2])


def test_softmax(kernels):
    M, N = 13, 100
    x = np.random.default_rng(1).standard_normal((M, N)).astype(np.float32)
    ours, theirs = both(kernels, "softmax_kernel", (M,), [np.zeros_like(x), x], (N, N, N), BLOCK_SIZE=128)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("activation", ["", "leaky_relu"])
def test_grouped_matmul(kernels, activation):
    M, N, K = 70, 45, 40
    rng = np.random.default_rng(2)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    grid = (3 * 2,)
    ours, theirs = both(kernels, "matmul_kernel", grid, [a, b, np.zeros((M, N), np.float16)],
                        (M, N, K, K, 1, N, 1, N, 1), BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32,
                        GROUP_SIZE_M=2, ACTIVATION=activation)
    np.testing.assert_allclose(ours[2].astype(np.float32), theirs[2].astype(np.float32), rtol=2e-3, atol=2e-3)


def test_layer_norm_forward(kernels):
    M, N = 7, 1500
    rng = np.random.default_rng(3)
    x = (-2.3 + 0.5 * rng.standard_normal((M, N))).astype(np.float16)
    w, b = rng.random((2, N)).astype(np.float16)
    arrays = [x, np.zeros_like(x), w, b, np.zeros(M, np.float32), np.zeros(M, np.float32)]
    ours, theirs = both(kernels, "_layer_norm_fwd_fused", (M,), arrays, (N, N, 1e-5), BLOCK_SIZE=512)
    for o, t in zip(ours[1:], theirs[1:]):
        np.testing.assert_allclose(o.astype(np.float32), t.astype(np.float32), rtol=1e-3, atol=1e-3)


def test_integer_division(kernels):
    a = np.array([7, -7, 7, -7, 0, 5, -9, 9], np.int32)
    b = np.array([2, 2, -2, -2, 3, 5, 4, -4], np.int32)
    ours, theirs = both(kernels, "intdiv_kernel", (1,), [a, b, np.zeros(8, np.int32), np.zeros(8, np.int32)],
                        (8,), BLOCK=8)
    np.testing.assert_array_equal(ours[2], theirs[2])
    np.testing.assert_array_equal(ours[3], theirs[3])


def test_half_precision_promotion(kernels):
    x = np.random.default_rng(4).random(64).astype(np.float16)
    ours, theirs = both(kernels, "half_kernel", (1,), [x, np.zeros_like(x)], (64,), BLOCK=64)
    np.testing.assert_array_equal(ours[1], theirs[1])


@pytest.mark.parametrize("axis", [0, 1])
def test_reductions(kernels, axis):
    R, C = 9, 31
    x = np.random.default_rng(5).standard_normal((R, C)).astype(np.float32)
    n = C if axis == 0 else R
    arrays = [x] + [np.zeros(n, np.float32) for _ in range(3)] + [np.zeros(n, np.int32)]
    ours, theirs = both(kernels, "reduce_kernel", (1,), arrays, (R, C), AXIS=axis, BR=16, BC=32)
    for o, t in zip(ours[1:], theirs[1:]):
        np.testing.assert_allclose(o, t, rtol=1e-6)


def test_math_and_grids(kernels):
    x = np.random.default_rng(6).standard_normal(300).astype(np.float32)
    ours, theirs = both(kernels, "math_kernel", (3,), [x, np.zeros_like(x)], (300,), BLOCK=128)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5)
    m = np.arange(35 * 19, dtype=np.float32).reshape(35, 19)
    ours, theirs = both(kernels, "transpose_kernel", (3, 2), [m, np.zeros((19, 35), np.float32)], (35, 19), BM=16, BN=16)
    np.testing.assert_array_equal(ours[1], theirs[1])
    ours, theirs = both(kernels, "grid3_kernel", (2, 3, 4), [np.zeros((24, 3), np.int32)])
    np.testing.assert_array_equal(ours[0], theirs[0])


def test_dropout_and_random_streams_bit_for_bit(kernels):
    n = 1000
    x = np.random.default_rng(7).standard_normal(n).astype(np.float32)
    ours, theirs = both(kernels, "seeded_dropout_kernel", (4,), [x, np.zeros_like(x)], (n, 0.5, 123), BLOCK_SIZE=256)
    np.testing.assert_array_equal(ours[1], theirs[1])
    arrays = [np.zeros(4 * 256, np.int32), np.zeros(5 * 256, np.float32), np.zeros(3 * 256, np.float32)]
    ours, theirs = both(kernels, "random_streams_kernel", (4,), arrays, (2**33 + 7,), BLOCK=64)
    np.testing.assert_array_equal(ours[0], theirs[0])  # Philox: bit for bit
    np.testing.assert_array_equal(ours[1], theirs[1])
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-5, atol=1e-5)  # Box-Muller: libm's log/cos


def test_atomics_finals_bit_for_bit(kernels):
    rng = np.random.default_rng(8)
    xi = rng.integers(0, 16, 300).astype(np.int32)
    ours, theirs = both(kernels, "histogram_kernel", (3,), [xi, np.zeros(32, np.int32)], (300,), NUM_BINS=16, BLOCK=128)
    np.testing.assert_array_equal(ours[1], theirs[1])
    f = rng.standard_normal(48).astype(np.float32)
    i = rng.integers(-100, 100, 80).astype(np.int32)
    ours, theirs = both(kernels, "atomics_kernel", (1,), [f, i, np.zeros(32, np.int32)], (13,), BLOCK=16)
    for o, t in zip(ours, theirs):
        np.testing.assert_array_equal(o, t)
    x = rng.integers(-4, 4, (6, 8)).astype(np.float32)
    ours, theirs = both(kernels, "counter_kernel", (6,), [np.zeros(3, np.float32), x], BLOCK=8)
    np.testing.assert_array_equal(ours[0], theirs[0])
    X = rng.integers(-8, 8, (10, 20)).astype(np.float32)
    arrays = [X, np.zeros((3, 20), np.float32), np.zeros(3, np.int32), np.zeros(3, np.int32)]
    ours, theirs = both(kernels, "locked_accumulate_kernel", (10,), arrays, (10, 20), GROUP=3, BLOCK=32)
    for o, t in zip(ours, theirs):
        np.testing.assert_array_equal(o, t)


@pytest.mark.parametrize("axis", [0, 1])
def test_scans_and_combine_reductions(kernels, axis):
    rng = np.random.default_rng(9 + axis)
    x = rng.integers(-9, 9, (8, 16)).astype(np.float32)  # small integers: float sums are exact in any order
    xi = rng.integers(-50, 50, (8, 16)).astype(np.int32)
    xi[2, 3] = xi[5, 3] = xi.max()  # a tie for the tie rule of argmax
    arrays = [x, xi, np.zeros(3 * 128 + 16, np.float32), np.zeros(3 * 128 + 6 * 16, np.int32)]
    ours, theirs = both(kernels, "scan_kernel", (1,), arrays, R=8, C=16, AXIS=axis,
                        L=16 if axis == 0 else 8)
    np.testing.assert_array_equal(ours[2], theirs[2])
    np.testing.assert_array_equal(ours[3], theirs[3])


def test_shapes(kernels):
    rng = np.random.default_rng(10)
    x = rng.standard_normal(32).astype(np.float32)
    idx = rng.integers(0, 16, 16).astype(np.int32)
    ours, theirs = both(kernels, "shapes_kernel", (1,), [x, np.zeros(10 * 16 + 16 * 16 + 16, np.float32), idx], N=16)
    np.testing.assert_array_equal(ours[1], theirs[1])


def test_math_and_integer_math(kernels):
    rng = np.random.default_rng(11)
    x = (3 * rng.standard_normal(100)).astype(np.float32)
    ours, theirs = both(kernels, "math2_kernel", (2,), [x, np.zeros(800, np.float32)], (100,), BLOCK=64)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=2e-6, atol=2e-6)
    a = rng.integers(-2**31, 2**31, 16).astype(np.int32)
    b = rng.integers(-2**31, 2**31, 16).astype(np.int32)
    ours, theirs = both(kernels, "intmath_kernel", (1,), [a, b, np.zeros(48, np.int32)], BLOCK=16)
    np.testing.assert_array_equal(ours[2], theirs[2])


def test_conversions(kernels):
    rng = np.random.default_rng(12)
    x = (rng.standard_normal(64) * 10).astype(np.float32)
    ours, theirs = both(kernels, "convert_kernel", (1,), [x, np.zeros(256, np.float32), np.zeros(128, np.int32)],
                        BLOCK=64)
    np.testing.assert_array_equal(ours[2], theirs[2])  # bitcast
    o, t = ours[1].reshape(4, 64), theirs[1].reshape(4, 64)
    np.testing.assert_array_equal(o[1], t[1])  # fp16 rtz
    # Triton's interpreter truncates fp32 -> bf16 and rounds fp8 half away from zero; kernellab rounds to
    # nearest even, as the GPU's cvt.rn does: the two agree to one unit in the last place.
    np.testing.assert_allclose(o[0], t[0], rtol=2**-7)
    # fp8 is not compared: the interpreter's rounding drops the carry when the mantissa rounds up into
    # the exponent (6.5 → 4.0 in e5m2); tests/test_triton_language.py checks fp8 against float64 instead.


@pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")  # numpy, in the interpreter
def test_float_to_int_an_expected_difference(kernels):
    # An expected difference, not a bug of either side's making. kernellab converts a float to an integer
    # type as the GPU does (PTX cvt.rzi: toward zero, saturated to the range, NaN → 0; kernellab.cvt);
    # Triton's CPU interpreter converts with numpy, whose NaN and out-of-range conversions are undefined
    # (x86: NaN → INT_MIN, −1.0 → uint32 4294967295). In range, the two agree bit for bit.
    inside = np.float32([0.0, 0.5, 1.9, 7.99, 123456.7, 2.0**30])
    outside = np.float32([np.nan, -1.0, -3.5, 1e10, -1e10, np.inf, -np.inf, 2.0**31, 2.0**32, -2.0**32])
    x = np.concatenate([inside, np.zeros(16 - inside.size - outside.size, np.float32), outside])
    ours, theirs = both(kernels, "float_to_int_kernel", (1,), [x, np.zeros(16, np.int32), np.zeros(16, np.uint32)],
                        BLOCK=16)
    k = 16 - outside.size
    np.testing.assert_array_equal(ours[1][:k], theirs[1][:k])
    np.testing.assert_array_equal(ours[2][:k], theirs[2][:k])
    assert ours[1][k:].tolist() == [0, -1, -3, 2**31 - 1, -2**31, 2**31 - 1, -2**31, 2**31 - 1, 2**31 - 1, -2**31]
    assert ours[2][k:].tolist() == [0, 0, 0, 2**32 - 1, 0, 2**32 - 1, 0, 2**31, 2**32 - 1, 0]
    # the difference is real (when Triton's interpreter saturates too, this fails: drop the expectation)
    assert theirs[1][k] != 0 or theirs[2][k + 1] != 0, "Triton's interpreter now converts as cvt.rzi does"


# Triton 3.9 removed block pointers ("in favor of the tensor descriptor API"): these kernels run in
# kernellab only, checked against numpy in tests/test_triton_language.py.
NOT_IN_TRITON_39 = {"block_ptr_rowsum_kernel", "block_ptr_matmul_kernel", "weighted_sum_fwd", "weighted_sum_backward"}


def test_descriptors(kernels):
    X = np.random.default_rng(13).standard_normal((37, 52)).astype(np.float32)  # rows of 208 bytes: 16-byte aligned
    ours, theirs = both(kernels, "descriptor_scale_kernel", (3, 4), [X, np.zeros_like(X)], (37, 52), BM=16, BN=16)
    np.testing.assert_array_equal(ours[0], theirs[0])
    np.testing.assert_array_equal(ours[1], theirs[1])


def test_branches_shifts_and_persistent_programs(kernels):
    rng = np.random.default_rng(14)
    x = rng.standard_normal(100).astype(np.float32)
    ours, theirs = both(kernels, "branchy_kernel", (4,), [x, np.zeros_like(x)], (100,), BLOCK=32)
    np.testing.assert_array_equal(ours[1], theirs[1])
    ours, theirs = both(kernels, "shifted_copy_kernel", (2,), [x, np.zeros(90, np.float32)], (90, 7), BLOCK=64)
    np.testing.assert_array_equal(ours[1], theirs[1])
    M, N = 19, 200
    x = rng.standard_normal((M, N)).astype(np.float32)
    ours, theirs = both(kernels, "softmax_persistent_kernel", (8,), [np.zeros_like(x), x], (N, N, M, N),
                        BLOCK_SIZE=256, num_stages=2)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6, atol=1e-8)


def test_swizzle(kernels):
    ours, theirs = both(kernels, "swizzle_kernel", (4, 6), [np.zeros(48, np.int32)], GM=4, GN=6, G=3)
    np.testing.assert_array_equal(ours[0], theirs[0])


def test_gallery_flash_attention(tmp_path, source_loader, import_lines):
    """Page 06's FlashAttention-2 kernel, dropout included, in both."""
    spec = importlib.util.spec_from_file_location("compiled_helper", Path(__file__).with_name("compiled.py"))
    helper = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(helper)
    theirs_src = helper.kernel_source("06_flash_attention.py", "flash_attention_fwd")
    ours_lines, theirs_lines = import_lines
    ours_src = theirs_src.replace(theirs_lines, ours_lines)
    ours = source_loader("kl_flash", ours_src, tmp_path).flash_attention_fwd
    theirs = source_loader("real_flash", theirs_src, tmp_path).flash_attention_fwd
    rng = np.random.default_rng(15)
    heads, n, d = 2, 100, 16
    q, k, v = rng.standard_normal((3, heads, n, d)).astype(np.float32)
    for p_drop in (0.0, 0.25):
        o1, o2 = np.zeros_like(q), torch.zeros(heads, n, d)
        grid = (cdiv(n, 32), heads)
        ours[grid](q, k, v, o1, n, 0.25, 7, P_DROP=p_drop, HEAD_DIM=d, BLOCK_M=32, BLOCK_N=32)
        theirs[grid](*(torch.from_numpy(a) for a in (q, k, v)), o2, n, 0.25, 7, P_DROP=p_drop, HEAD_DIM=d,
                     BLOCK_M=32, BLOCK_N=32)
        np.testing.assert_allclose(o1, o2.numpy(), rtol=1e-5, atol=1e-5)


def test_attention_on_host_tensor_descriptors(kernels):
    from triton.tools.tensor_descriptor import TensorDescriptor as Theirs

    from kernellab.triton.tools.tensor_descriptor import TensorDescriptor as Ours

    COMPARED.add("attention_descriptor_kernel")
    rng = np.random.default_rng(16)
    n = 50
    q, k, v = rng.standard_normal((3, n, 16)).astype(np.float32)
    o1, o2 = np.zeros_like(q), torch.zeros(n, 16)
    ours = [Ours.from_tensor(a, [16, 16]) for a in (q, k, v, o1)]
    theirs = [Theirs.from_tensor(t, [16, 16]) for t in (*(torch.from_numpy(a) for a in (q, k, v)), o2)]
    kernels[0].attention_descriptor_kernel[(4,)](*ours, n, 0.25, HEAD_DIM=16, BLOCK_M=16, BLOCK_N=16)
    kernels[1].attention_descriptor_kernel[(4,)](*theirs, n, 0.25, HEAD_DIM=16, BLOCK_M=16, BLOCK_N=16)
    np.testing.assert_allclose(o1, o2.numpy(), rtol=1e-5, atol=1e-6)


def test_zz_every_kernel_compared(kernels):
    """Every kernel of tests/triton_kernels.py (not its helper functions) ran in both above."""
    from kernellab.triton import JITFunction

    helpers = {"leaky_relu", "_add_combine", "_first_max_combine", "_affine_combine"}
    names = {n for n, v in vars(kernels[0]).items() if isinstance(v, JITFunction)} - helpers
    assert names - COMPARED - NOT_IN_TRITON_39 == set()
