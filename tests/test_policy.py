"""Every launch policy gives the reference's values, counts and errors: one comparison per kernel corpus.

A launch may take exact shortcuts (:mod:`kernellab.triton.executor.policy`): programs run as a batch, offsets
kept as Views and moved as slices, strided views or windows of lines, counts from closed forms, stores
deferred and loads lending views. :meth:`Policy.reference` takes none. Each case below runs twice on copies of
the same arrays, under the default policy and under the reference: :func:`same` asserts the same arrays bit
for bit, the same counts (every field, the DRAM sectors, and each source line's with ``lines=True``) and the
same error (its type and message).

The corpora: every kernel of ``tests/triton_kernels.py`` and ``benchmarks/speed_kernels.py``; the lecture
form's kernels (``tests/seed_kernels.py``); and kernels written here for each form an access takes — 1-D blocks
over random sizes, blocks, dtypes, starts and bounds, rows of a matrix, 2-D tiles in every layout, stores
that read back what they stored, programs storing to one block, int32 offsets that wrap around.

A batch runs its programs together, and a kernel whose programs read what other programs of the launch
write (without atomics) is a race on a GPU: its values may then differ between a batch and the reference's
launch order (``test_a_shared_tile_read_after_a_store_holds_the_values_loaded``).
"""

import contextlib
from dataclasses import replace
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import allow_float64, cdiv, triton_launch
from kernellab.triton.executor import engine
from kernellab.triton.executor.policy import Policy, using
from kernellab.triton.tools.tensor_descriptor import TensorDescriptor
from tests.reference import fresh_module

ROOT = Path(__file__).parents[1]
K = fresh_module(ROOT / "tests" / "triton_kernels.py", "kl_policy_triton_kernels")
S = fresh_module(ROOT / "benchmarks" / "speed_kernels.py", "kl_policy_speed_kernels")
SEED = fresh_module(ROOT / "tests" / "seed_kernels.py", "kl_policy_seed_kernels")


def same(launch, *arrays, batched=False, policy=None):
    """``launch(*copies)`` under the default policy and under ``policy`` (the reference), on copies of
    ``arrays``: the same arrays, counts and error, which are returned (the default run's). ``batched``: the
    default run must run every step as a batch (no program rerun on its own)."""
    out = []
    for p in (Policy(), policy or Policy.reference()):
        copies = [a.copy(order="K") for a in arrays]
        watch = batched and not out  # the default run of a batched case: count the steps run one program at a time
        with using(p), (mock.patch.object(engine, "_one_by_one", wraps=engine._one_by_one) if watch
                        else contextlib.nullcontext()) as one_by_one:
            try:
                result = launch(*copies)
            except Exception as exc:
                result = ("error", type(exc).__name__, str(exc))
        if watch:
            assert one_by_one.call_count == 0, "a step fell back to one program at a time"
        out.append((result, copies))
    (fast, fa), (ref, ra) = out
    assert fast == ref  # counts compare every field but the per-line rows, the DRAM sectors included
    if getattr(fast, "by_line", None) is not None:
        assert {k: (v, v.dram_sectors) for k, v in fast.by_line.items()} == {
            k: (v, v.dram_sectors) for k, v in ref.by_line.items()}
    for a, b in zip(fa, ra):
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
    return fast, fa


def _f32(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


# --- every kernel of tests/triton_kernels.py and benchmarks/speed_kernels.py ------------------------------------
def _desc(a, block):
    return TensorDescriptor.from_tensor(a, block)


CORPUS = {
    "add": lambda r: (lambda x, y, o: K.add_kernel[(4,)](x, y, o, 1000, BLOCK_SIZE=256),
                      _f32(r, 1000), _f32(r, 1000), np.zeros(1000, np.float32)),
    "softmax, rows 120 and 130 apart": lambda r: (
        lambda o, x: K.softmax_kernel[(7,)](o, x, 120, 130, 100, BLOCK_SIZE=128), np.zeros((7, 130), np.float32),
        _f32(r, 7, 120)),
    "softmax persistent": lambda r: (
        lambda o, x: K.softmax_persistent_kernel[(3,)](o, x, 100, 100, 9, 100, BLOCK_SIZE=128, num_stages=2),
        np.zeros((9, 100), np.float32), _f32(r, 9, 100)),
    "matmul, masked, leaky_relu": lambda r: (
        lambda a, b, c: K.matmul_kernel[(6,)](a, b, c, 100, 90, 72, 72, 1, 90, 1, 90, 1, BLOCK_SIZE_M=64,
                                              BLOCK_SIZE_N=32, BLOCK_SIZE_K=32, GROUP_SIZE_M=2,
                                              ACTIVATION="leaky_relu"),
        r.standard_normal((100, 72)).astype(np.float16), r.standard_normal((72, 90)).astype(np.float16),
        np.zeros((100, 90), np.float16)),
    "layer norm (tutorial)": lambda r: (
        lambda x, y, w, b, m, s: K._layer_norm_fwd_fused[(5,)](x, y, w, b, m, s, 300, 300, 1e-5, BLOCK_SIZE=128),
        _f32(r, 5, 300), np.zeros((5, 300), np.float32), _f32(r, 300), _f32(r, 300), np.zeros(5, np.float32),
        np.zeros(5, np.float32)),
    "reduce along rows": lambda r: (
        lambda x, a, b, c, d: K.reduce_kernel[(1,)](x, a, b, c, d, 6, 10, AXIS=1, BR=8, BC=16),
        _f32(r, 6, 10), *(np.zeros(16, np.float32) for _ in range(3)), np.zeros(16, np.int32)),
    "reduce along columns": lambda r: (
        lambda x, a, b, c, d: K.reduce_kernel[(1,)](x, a, b, c, d, 6, 10, AXIS=0, BR=8, BC=16),
        _f32(r, 6, 10), *(np.zeros(16, np.float32) for _ in range(3)), np.zeros(16, np.int32)),
    "math": lambda r: (lambda x, o: K.math_kernel[(3,)](x, o, 300, BLOCK=128), _f32(r, 300), np.zeros(300, np.float32)),
    "intdiv": lambda r: (lambda a, b, q, m: K.intdiv_kernel[(2,)](a, b, q, m, 200, BLOCK=128),
                         r.integers(-50, 50, 200).astype(np.int32), r.integers(1, 9, 200).astype(np.int32),
                         np.zeros(200, np.int32), np.zeros(200, np.int32)),
    "transpose": lambda r: (lambda x, y: K.transpose_kernel[(3, 2)](x, y, 40, 30, BM=16, BN=16), _f32(r, 40, 30),
                            np.zeros((30, 40), np.float32)),
    "grid3": lambda r: (lambda o: K.grid3_kernel[(2, 3, 4)](o), r.integers(0, 9, 80).astype(np.int32)),
    "branchy": lambda r: (lambda x, o: K.branchy_kernel[(4,)](x, o, 200, BLOCK=64), _f32(r, 200),
                          np.zeros(200, np.float32)),
    "half": lambda r: (lambda x, o: K.half_kernel[(2,)](x, o, 200, BLOCK=128),
                       r.standard_normal(200).astype(np.float16), np.zeros(200, np.float16)),
    "shifted copy": lambda r: (lambda x, o: K.shifted_copy_kernel[(2,)](x, o, 200, 7, BLOCK=128), _f32(r, 300),
                               np.zeros(200, np.float32)),
    "dropout": lambda r: (lambda x, o: K.seeded_dropout_kernel[(2,)](x, o, 200, 0.5, 123, BLOCK_SIZE=128),
                          _f32(r, 200), np.zeros(200, np.float32)),
    "random streams": lambda r: (lambda i, u, n: K.random_streams_kernel[(4,)](i, u, n, 123, BLOCK=64),
                                 np.zeros(4 * 256, np.uint32), np.zeros(5 * 256, np.float32),
                                 np.zeros(3 * 256, np.float32)),
    "histogram (atomics)": lambda r: (lambda x, b: K.histogram_kernel[(3,)](x, b, 300, NUM_BINS=16, BLOCK=128),
                                      r.integers(0, 16, 300).astype(np.int32), np.zeros(32, np.int32)),
    "every atomic": lambda r: (lambda f, i, o: K.atomics_kernel[(1,)](f, i, o, 13, BLOCK=16), _f32(r, 48),
                               r.integers(-100, 100, 80).astype(np.int32), np.zeros(32, np.int32)),
    "a counter every program adds to": lambda r: (lambda c, x: K.counter_kernel[(6,)](c, x, BLOCK=8),
                                                  np.zeros(3, np.float32),
                                                  r.integers(-4, 4, (6, 8)).astype(np.float32)),
    "a spin lock": lambda r: (lambda x, dw, lock, cnt: K.locked_accumulate_kernel[(10,)](x, dw, lock, cnt, 10, 20,
                                                                                         GROUP=3, BLOCK=32),
                              r.integers(-8, 8, (10, 20)).astype(np.float32), np.zeros((3, 20), np.float32),
                              np.zeros(3, np.int32), np.zeros(3, np.int32)),
    "scans": lambda r: (lambda x, i, o, io: K.scan_kernel[(1,)](x, i, o, io, R=8, C=16, AXIS=1, L=8),
                        _f32(r, 8, 16), r.integers(-50, 50, (8, 16)).astype(np.int32),
                        np.zeros(3 * 128 + 16, np.float32), np.zeros(3 * 128 + 6 * 16, np.int32)),
    "shapes": lambda r: (lambda x, o, i: K.shapes_kernel[(1,)](x, o, i, N=16), _f32(r, 32),
                         np.zeros(10 * 16 + 16 * 16 + 16, np.float32), r.integers(0, 16, 16).astype(np.int32)),
    "math2": lambda r: (lambda x, o: K.math2_kernel[(2,)](x, o, 100, BLOCK=64), _f32(r, 100),
                        np.zeros(800, np.float32)),
    "intmath": lambda r: (lambda a, b, o: K.intmath_kernel[(1,)](a, b, o, BLOCK=16),
                          r.integers(-2**31, 2**31, 16).astype(np.int32), r.integers(-2**31, 2**31, 16).astype(np.int32),
                          np.zeros(48, np.int32)),
    "conversions": lambda r: (lambda x, o, b: K.convert_kernel[(1,)](x, o, b, BLOCK=64), _f32(r, 64) * 10,
                              np.zeros(256, np.float32), np.zeros(128, np.int32)),
    "float to int": lambda r: (lambda x, i, u: K.float_to_int_kernel[(1,)](x, i, u, BLOCK=16),
                               np.float32([np.nan, -1.5, 3e9, -3e9, 0.5, 7, -0.0, np.inf] * 2),
                               np.zeros(16, np.int32), np.zeros(16, np.uint32)),
    "block pointers: a row-block sum": lambda r: (
        lambda x, o: K.block_ptr_rowsum_kernel[(3,)](x, o, 37, 50, 50, 1, BM=16, BN=16), _f32(r, 37, 50),
        np.zeros(37, np.float32)),
    "block pointers: a matmul": lambda r: (
        lambda a, b, c: K.block_ptr_matmul_kernel[(3, 2)](a, b, c, 40, 30, 33, BM=16, BN=16, BK=16), _f32(r, 40, 33),
        _f32(r, 33, 30), np.zeros((40, 30), np.float32)),
    "tensor descriptors": lambda r: (lambda x, y: K.descriptor_scale_kernel[(3, 4)](x, y, 37, 52, BM=16, BN=16),
                                     _f32(r, 37, 52), np.zeros((37, 52), np.float32)),
    "swizzle2d": lambda r: (lambda o: K.swizzle_kernel[(4, 6)](o, GM=4, GN=6, G=3), np.zeros(48, np.int32)),
    "attention on host descriptors": lambda r: (
        lambda q, k, v, o: K.attention_descriptor_kernel[(4,)](*(_desc(a, [16, 16]) for a in (q, k, v, o)), 50, 0.25,
                                                               HEAD_DIM=16, BLOCK_M=16, BLOCK_N=16),
        *(_f32(r, 50, 16) for _ in range(3)), np.zeros((50, 16), np.float32)),
    "weighted sum, block pointers": lambda r: (
        lambda x, w, o: K.weighted_sum_fwd[(3,)](x, w, o, 20, 1, 1, 1, 37, 20, ROWS_TILE_SIZE=16, D_TILE_SIZE=16),
        _f32(r, 37, 20), _f32(r, 20), np.zeros(37, np.float32)),
    "weighted sum backward": lambda r: (
        lambda x, w, g, gx, gw: K.weighted_sum_backward[(3,)](x, w, g, gx, gw, 20, 1, 1, 1, 20, 1, 20, 1, 37, 20,
                                                             ROWS_TILE_SIZE=16, D_TILE_SIZE=16),
        _f32(r, 37, 20), _f32(r, 20), _f32(r, 37), np.zeros((37, 20), np.float32), np.zeros((3, 20), np.float32)),
    "add+ReLU": lambda r: (lambda x, y, o: S.add_relu_kernel[(4,)](x, y, o, 1000, BLOCK_SIZE=256), _f32(r, 1000),
                           _f32(r, 1000), np.zeros(1000, np.float32)),
    "GeLU": lambda r: (lambda x, o: S.gelu_kernel[(4,)](x, o, 1000, BLOCK_SIZE=256), _f32(r, 1000),
                       np.zeros(1000, np.float32)),
    "GeLU, one program": lambda r: (lambda x, o: S.gelu_kernel[(1,)](x, o, 255, BLOCK_SIZE=256), _f32(r, 255),
                                    np.zeros(255, np.float32)),
    "row softmax": lambda r: (lambda o, x: S.row_softmax_kernel[(5,)](o, x, 300, 300, 300, BLOCK=128),
                              np.zeros((5, 300), np.float32), _f32(r, 5, 300)),
    "layer norm, fp16": lambda r: (
        lambda x, y, w, b, m, s: S.layer_norm_kernel[(4,)](x, y, w, b, m, s, 300, 300, 1e-5, BLOCK=128),
        r.standard_normal((4, 300)).astype(np.float16), np.zeros((4, 300), np.float16),
        r.standard_normal(300).astype(np.float16), r.standard_normal(300).astype(np.float16), np.zeros(4, np.float32),
        np.zeros(4, np.float32)),
    "FlashAttention": lambda r: (
        lambda q, k, v, o: S.attention_fwd_kernel[(2, 2)](q, k, v, o, 128, 0.125, HEAD_DIM=64, BLOCK_M=64, BLOCK_N=64),
        *(r.standard_normal((2, 128, 64)).astype(np.float16) for _ in range(3)), np.zeros((2, 128, 64), np.float16)),
    "FlashAttention, a masked tail": lambda r: (
        lambda q, k, v, o: S.attention_fwd_kernel[(2, 1)](q, k, v, o, 100, 0.125, HEAD_DIM=64, BLOCK_M=64, BLOCK_N=64),
        *(r.standard_normal((1, 100, 64)).astype(np.float16) for _ in range(3)), np.zeros((1, 100, 64), np.float16)),
}


@pytest.mark.filterwarnings("ignore::kernellab.errors.BlockPointerWarning")  # the corpus's block-pointer kernels
@pytest.mark.parametrize("case", sorted(CORPUS))
def test_every_kernel_of_the_corpus(case):
    launch, *arrays = CORPUS[case](np.random.default_rng(len(case)))
    same(launch, *arrays)


def test_the_corpus_holds_every_kernel():
    from kernellab.triton import JITFunction

    helpers = {"leaky_relu", "_add_combine", "_first_max_combine", "_affine_combine"}
    names = {f"K.{n}" for n, v in vars(K).items() if isinstance(v, JITFunction)} - {f"K.{h}" for h in helpers}
    names |= {f"S.{n}" for n, v in vars(S).items() if isinstance(v, JITFunction)}
    text = Path(__file__).read_text()
    assert {n for n in names if f"{n}[" not in text} == set()


# --- 1-D blocks: consecutive offsets, a row start per program, prefix masks -----------------------------------
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def shifted_kernel(x_ptr, out_ptr, n, start, BLOCK: tl.constexpr, LE: tl.constexpr):
    offs = start + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = (offs <= n) if LE else (offs < n)
    v = tl.load(x_ptr + offs, mask=mask, other=-1)
    tl.store(out_ptr + offs, v * 2 + tl.sum(v, axis=0), mask=mask)  # masked-off lanes count in the sum


@triton.jit
def rows_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    v = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * out_stride + cols, v - tl.max(v, axis=0), mask=mask)


@triton.jit
def bounded_rows_kernel(x_ptr, out_ptr, n_ptr, stride, BLOCK: tl.constexpr, WIDE: tl.constexpr):
    row = tl.program_id(1)
    n = tl.load(n_ptr + row)  # a bound per program, loaded from memory
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if WIDE:
        offs = offs.to(tl.int64)
    mask = offs < n
    v = tl.load(x_ptr + row * stride + offs, mask=mask, other=7)  # masked-off lanes hold 7, and count in the sum
    tl.store(out_ptr + row * stride + offs, v * 3 + tl.sum(v, axis=0), mask=mask)


@st.composite
def sizes_and_blocks(draw):
    """``(n, block)``: n any size from 1 to 3000 that at most 40 programs of ``block`` cover (the reference runs
    programs one at a time, and a 1-element block over 3000 elements is 3000 of them; what the masks do is
    decided by n against the block, which every draw still varies: 1, primes, a block ± 1, several blocks)."""
    block = draw(st.sampled_from([1, 2, 16, 32, 64, 128]))
    return draw(st.integers(1, min(3000, 40 * block))), block


@settings(max_examples=60, deadline=None)
@given(sizes_and_blocks(), st.sampled_from([np.float32, np.float16, np.int8, np.float64, np.int32]),
       st.integers(0, 2), st.integers(0, 9))
def test_masked_blocks_of_any_size_and_type(n_block, dtype, extra, at):
    # a block ± 1, primes and 1 all come up: n is any size, the grid covers it (plus `extra` idle programs),
    # and the arrays start `at` elements past a 256-byte boundary
    from tests.reference import placed

    n, block = n_block
    rng = np.random.default_rng(n)
    x, y = (placed((rng.random(n) * 100).astype(dtype), at) for _ in range(2))
    grid = (cdiv(n, block) + extra,)
    with allow_float64():  # float64 is one of the dtypes under test
        _, (_, _, out) = same(lambda x, y, o: add_kernel[grid](x, y, o, n, BLOCK=block), x, y, np.zeros(n, dtype))
    np.testing.assert_array_equal(out, x + y)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 700), st.sampled_from([8, 32, 64]), st.integers(-40, 40), st.booleans(), st.integers(0, 3))
def test_shifted_blocks_and_their_errors(n, block, start, le, extra):
    # a start that is not a multiple of the block, `<=`, and starts before the array (an error unless masked)
    x = np.arange(n, dtype=np.float32) + 1
    same(lambda x, o: shifted_kernel[(cdiv(n, block) + extra,)](x, o, n, start, BLOCK=block, LE=le), x,
         np.zeros(n, np.float32))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.integers(1, 70), st.integers(0, 9), st.integers(0, 9), st.sampled_from([16, 64, 128]))
def test_rows_of_a_matrix(m, n_cols, in_pad, out_pad, block):
    # rows `in_stride` apart, a prefix of each loaded; output rows packed or padded; n_cols may exceed BLOCK
    in_stride, out_stride = n_cols + in_pad, n_cols + out_pad
    a = np.random.default_rng(m * 1000 + n_cols).standard_normal(m * in_stride).astype(np.float32)
    same(lambda a, o: rows_kernel[(m,)](o, a, in_stride, out_stride, n_cols, BLOCK=block), a,
         np.zeros(m * out_stride, np.float32))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([1, 2, 32, 64]), st.integers(1, 5), st.integers(1, 300), st.integers(1, 5), st.booleans(),
       st.integers(0, 2**32 - 1))
def test_two_dimensional_grids_and_loaded_bounds(block, rows, stride, gx, wide, seed):
    # a 2-D grid, a row start per program from program_id(1), a bound per row read from memory, int64 offsets
    rng = np.random.default_rng(seed)
    bounds = rng.integers(0, stride + 1, rows).astype(np.int32)
    x = rng.integers(0, 100, rows * stride).astype(np.float32)
    same(lambda x, o, nn: bounded_rows_kernel[(gx, rows)](x, o, nn, stride, BLOCK=block, WIDE=wide), x,
         np.zeros_like(x), bounds)


@triton.jit
def row_plus_block_kernel(out_ptr, base, n, B: tl.constexpr):
    # a row start per program plus a shared block, stored as values (int32: may wrap past 2^31 − 1),
    # and a mask ``<=`` keeping a prefix
    offs = (tl.program_id(0) + base) + tl.arange(0, B)
    lanes = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(out_ptr + lanes, offs, mask=lanes <= n)


@pytest.mark.parametrize("programs", [1, 3])
@pytest.mark.parametrize("base", [0, 5, 2 ** 31 - 63, 2 ** 31 - 64, 2 ** 31 - 65, 2 ** 31 - 30, -(2 ** 31)])
@pytest.mark.parametrize("n", [0, 17, 63, 64, 191, 1000])
def test_row_starts_near_the_int32_limit(programs, base, n):
    _, (out,) = same(lambda o: row_plus_block_kernel[(programs,)](o, base, n, B=64), np.zeros(64 * programs, np.int32))
    lanes = np.arange(64 * programs)
    want = ((lanes // 64 + base + lanes % 64 + 2 ** 31) % 2 ** 32 - 2 ** 31).astype(np.int32)  # int32 wraps
    assert np.array_equal(out[lanes <= n], want[lanes <= n]) and not out[lanes > n].any()


def test_offsets_that_wrap_around_in_int32():
    # a tile's int32 offsets, an outer sum of two sides of which neither steps by one, whose sum wraps past
    # 2^31 − 1 to negative values: the same error, naming the same (wrapped) index
    @triton.jit
    def wrap(x_ptr, big, BLOCK: tl.constexpr):
        rows = tl.arange(0, BLOCK)
        cols = tl.arange(0, BLOCK)
        offs = rows[:, None] * big + cols[None, :] * 3
        tl.store(x_ptr + offs, rows[:, None] + cols[None, :], mask=offs < 0)  # the wrapped lanes alone

    fast, _ = same(lambda x: wrap[(1,)](x, 2**31 - 4, BLOCK=4), np.zeros(64, np.int32))
    # row 1, column 2 first: (2^31 − 4) + 6 = 2^31 + 2 wraps to −2^31 + 2
    assert fast[0] == "error" and "[-2147483646]" in fast[2]


# --- stores that read what they stored, and the lessons a kernel learns ---------------------------------------
@triton.jit
def store_then_load(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # each program doubles its block of x in place, reads it back and writes it to out
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)


@triton.jit
def swap_halves(x_ptr, n_half, BLOCK: tl.constexpr):
    # program p writes x[p-block of the first half] into the second half, then the second into the first:
    # the second store reads a view of memory the first store changes
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_half
    lo = tl.load(x_ptr + offs, mask=mask)
    hi = tl.load(x_ptr + n_half + offs, mask=mask)
    tl.store(x_ptr + n_half + offs, lo, mask=mask)
    tl.store(x_ptr + offs, hi, mask=mask)


@triton.jit
def same_address_kernel(out_ptr, BLOCK: tl.constexpr):
    # every program stores its id to the same block: a race on a GPU; here the last program's values stay
    cols = tl.arange(0, BLOCK)
    tl.store(out_ptr + cols, tl.program_id(0) + cols * 0)


@pytest.mark.parametrize("n", [1, 63, 64, 65, 257])
def test_a_load_after_a_store_to_the_same_array_reads_the_stored_values(n):
    x = np.arange(n, dtype=np.float32)
    _, (_, out) = same(lambda x, o: store_then_load[(cdiv(n, 64),)](x, o, n, BLOCK=64), x, np.zeros(n, np.float32))
    np.testing.assert_array_equal(out, 2 * x + 1)  # 2x + 1, computed by hand


@pytest.mark.parametrize("half", [1, 31, 32, 100])
def test_a_store_reading_memory_an_earlier_store_changed_sees_the_old_values(half):
    x = np.arange(2 * half, dtype=np.float32)
    _, (out,) = same(lambda x: swap_halves[(cdiv(half, 32),)](x, half, BLOCK=32), x)
    np.testing.assert_array_equal(out, np.concatenate([x[half:], x[:half]]))  # the halves swapped


@pytest.mark.parametrize("programs", [1, 2, 7])
def test_programs_storing_to_one_block_keep_the_last_programs_values(programs):
    cnt, (out,) = same(lambda o: same_address_kernel[(programs,)](o, BLOCK=32), np.zeros(32, np.int32))
    np.testing.assert_array_equal(out, programs - 1)  # launch order: the last program wins
    assert cnt.store_requests == programs  # 32 ints per program: one request each


def test_a_kernel_that_reorders_stops_deferring_for_its_later_launches():
    x = np.arange(100, dtype=np.float32)
    out = np.zeros_like(x)
    store_then_load._hints.clear()
    store_then_load[(2,)](x, out, 100, BLOCK=64)
    assert store_then_load._hints["defer"] is False  # learnt on the first launch: it loads what it stored
    store_then_load[(2,)](x, out, 100, BLOCK=64)
    np.testing.assert_array_equal(out, 4 * np.arange(100) + 1)  # x doubled twice, then + 1


def test_a_short_last_program_runs_on_its_own_and_the_kernel_remembers_it():
    seen = []

    @triton.jit
    def rows_seen(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        v = tl.load(x_ptr + offs, mask=mask)
        seen.append(v.data.shape[0])  # programs in this step
        tl.store(out_ptr + offs, v + 1, mask=mask)

    x = np.arange(4 * 64 + 5, dtype=np.float32)  # 4 full blocks of 64 and a block with 5 lanes kept
    out = np.zeros_like(x)
    cnt = rows_seen[(5,)](x, out, x.size, BLOCK=64)
    # the step of 5 stopped at its load and ran again as 4 + 1; the next launch splits at once
    assert seen == [4, 1] and rows_seen._hints["split"]
    seen.clear()
    assert rows_seen[(5,)](x, out, x.size, BLOCK=64) == cnt and seen == [4, 1]
    np.testing.assert_array_equal(out, x + 1)
    assert cnt.programs == 5 and cnt.load_bytes == x.size * 4  # 261 floats, each loaded once


def test_a_uniform_batch_keeps_offsets_and_masks_by_structure_and_lends_views():
    seen = {}

    @triton.jit
    def probe(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        v = tl.load(x_ptr + offs, mask=mask)
        seen.update(offs=offs._data is None, mask=mask._view.keep.tolist(), rows=v.data.shape[0], view=v.data.base)
        tl.store(out_ptr + offs, v + 1, mask=mask)

    x = np.arange(256, dtype=np.float32)
    out = np.zeros_like(x)
    probe[(4,)](x, out, 256, BLOCK=64)
    # four programs in one vectorised step; offsets never built; every lane kept; the load a view of x
    assert seen["offs"] and seen["mask"] == [64, 64, 64, 64] and seen["rows"] == 4
    assert seen["view"] is x or seen["view"] is x.base or np.shares_memory(seen["view"], x)
    np.testing.assert_array_equal(out, x + 1)


# --- 2-D tiles: lines along rows or down columns, shared by programs, masked edges ------------------------------
def matmul(a, b, c, M, N, Kd, sa, sb, sc, bm=64, bn=64, bk=32, lines=False):
    grid = (cdiv(M, bm) * cdiv(N, bn),)
    return K.matmul_kernel[grid](a, b, c, M, N, Kd, *sa, *sb, *sc, BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn,
                                 BLOCK_SIZE_K=bk, GROUP_SIZE_M=8, ACTIVATION="", lines=lines)


@pytest.mark.parametrize("M,N,Kd", [(128, 128, 64), (131, 67, 97), (64, 192, 33), (257, 65, 31)])
@pytest.mark.parametrize("layout_", ["rows", "a columns", "b columns"])
def test_grouped_matmul_in_every_layout(M, N, Kd, layout_):
    rng = np.random.default_rng(M * N)
    a = rng.standard_normal((M, Kd)).astype(np.float16)
    b = rng.standard_normal((Kd, N)).astype(np.float16)
    if layout_ == "a columns":
        a = np.asfortranarray(a)
    if layout_ == "b columns":
        b = np.asfortranarray(b)
    sa = (1, M) if a.flags.f_contiguous and not a.flags.c_contiguous else (Kd, 1)
    sb = (1, Kd) if b.flags.f_contiguous and not b.flags.c_contiguous else (N, 1)
    cnt, (_, _, out) = same(lambda a, b, c: matmul(a, b, c, M, N, Kd, sa, sb, (N, 1)), a, b,
                            np.zeros((M, N), np.float16))
    assert cnt.load_bytes >= (M * Kd + Kd * N) * 2
    ref = a.astype(np.float64) @ b.astype(np.float64)
    assert np.abs(out - ref).max() <= 2e-2 * np.abs(ref).max()


def test_per_line_counts_of_a_matmul():
    # lines=True charges each DRAM sector to the line that touches it first: the tile forms' marks too
    rng = np.random.default_rng(11)
    M, N, Kd = 131, 67, 97
    a, b = rng.standard_normal((M, Kd)).astype(np.float16), rng.standard_normal((Kd, N)).astype(np.float16)
    cnt, _ = same(lambda a, b, c: matmul(a, b, c, M, N, Kd, (Kd, 1), (N, 1), (N, 1), lines=True), a, b,
                  np.zeros((M, N), np.float16))
    assert sum(sum(v.dram_sectors.values()) for v in cnt.by_line.values()) > 0


@pytest.mark.parametrize("heads,n", [(2, 128), (1, 200)])
def test_flash_attention(heads, n):
    from tests.reference import attention_float64

    rng = np.random.default_rng(n)
    q, k, v = (rng.standard_normal((heads, n, 64)).astype(np.float16) for _ in range(3))
    _, out = same(lambda q, k, v, o: S.attention_fwd_kernel[(cdiv(n, 64), heads)](
        q, k, v, o, n, 0.125, HEAD_DIM=64, BLOCK_M=64, BLOCK_N=64), q, k, v, np.zeros_like(q))
    np.testing.assert_allclose(out[3], attention_float64(q, k, v, 0.125), atol=2e-2)


@triton.jit
def tile_copy_kernel(x_ptr, y_ptr, M, N, sxm, sxn, sym, syn, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * sxm + rn[None, :] * sxn, mask=mask, other=0.0)
    tl.store(y_ptr + rm[:, None] * sym + rn[None, :] * syn, x * 2, mask=mask)


@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize(("M", "N"), [(64, 64), (50, 70), (16, 100)])
def test_tile_copies(transpose, M, N):
    x = np.random.default_rng(M + N).standard_normal((M, N)).astype(np.float32)
    sy = (1, M) if transpose else (N, 1)
    same(lambda x, y: tile_copy_kernel[(cdiv(M, 32), cdiv(N, 32))](x, y, M, N, N, 1, *sy, BM=32, BN=32), x,
         np.zeros(M * N, np.float32))


def test_a_tile_out_of_bounds_names_the_same_lane():
    x = np.zeros((16, 16), np.float32)
    fast, _ = same(lambda x, y: tile_copy_kernel[(1, 1)](x, y, 16, 16, 16, 1, 16, 1, BM=32, BN=32), x,
                   np.zeros(100, np.float32))  # the mask keeps rows < 16, but y holds only 100 elements
    assert fast[0] == "error"


def test_an_overlapping_tile_store_keeps_the_last_write():
    # tile rows 8 apart, 32 wide: the lines overlap, the scatter orders the writes (the last row written last)
    x = np.arange(16 * 32, dtype=np.float32).reshape(16, 32)
    _, (_, out) = same(lambda x, y: tile_copy_kernel[(1, 1)](x, y, 16, 32, 32, 1, 8, 1, BM=16, BN=32), x,
                       np.zeros(16 * 8 + 32, np.float32))
    assert out[15 * 8:15 * 8 + 32].tolist() == (2 * x[15]).tolist()


@triton.jit
def where_dot_kernel(x_ptr, q_ptr, out_ptr, dots_ptr, n, KEEP: tl.constexpr):
    i = tl.arange(0, 32)
    x = tl.load(x_ptr + i[:, None] * 32 + i[None, :])
    q = tl.load(q_ptr + i[:, None] * 32 + i[None, :])
    keep = i[None, :] < n if KEEP else i[None, :] >= 0
    tl.store(out_ptr + i[:, None] * 32 + i[None, :], tl.where(keep, x, -1.0))
    tl.store(dots_ptr + i[:, None] * 32 + i[None, :], tl.dot(q, x) + tl.dot(q, x))


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("n", [0, 17, 32])
def test_where_with_a_small_condition_and_a_reused_dot_operand(dtype, n):
    rng = np.random.default_rng(n)
    x, q = (rng.standard_normal((32, 32)).astype(dtype) for _ in range(2))
    same(lambda x, q, o, d: where_dot_kernel[(2,)](x, q, o, d, n, KEEP=n < 32), x, q, np.zeros((32, 32), dtype),
         np.zeros((32, 32), np.float32))


@triton.jit
def shared_tile_kernel(x_ptr, w_ptr, y_ptr, z_ptr, BLOCK: tl.constexpr):
    # two programs load each fp16 tile of x (shared lines: memory.load leaves its float16 values
    # unmade), overwrite x there, then store the tile they loaded and its dot with w: the values before
    rows = tl.arange(0, BLOCK)
    offs = rows[:, None] * BLOCK + rows[None, :]
    mine = tl.program_id(0) * BLOCK * BLOCK + offs
    pair = x_ptr + (tl.program_id(0) // 2) * BLOCK * BLOCK + rows[:, None] * BLOCK + rows[None, :]
    t = tl.load(pair)  # programs 0 and 1 read tile 0, 2 and 3 tile 1
    tl.store(pair, tl.zeros([BLOCK, BLOCK], dtype=tl.float16))
    tl.store(z_ptr + mine, tl.dot(t, tl.load(w_ptr + offs)))
    tl.store(y_ptr + mine, t * 2)


def test_a_shared_tile_read_after_a_store_holds_the_values_loaded():
    # programs 0 and 1 both read tile 0 and zero it: a race on a GPU. Run as a batch, both read it before
    # either zeroes it (the reference here runs as a batch too; one program at a time, program 1 reads zeros)
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 16, 16)).astype(np.float16)
    w = rng.standard_normal((16, 16)).astype(np.float16)
    y, z = np.zeros((4, 16, 16), np.float16), np.zeros((4, 16, 16), np.float32)
    _, (x_after, _, y, z) = same(lambda *a: shared_tile_kernel[(4,)](*a, BLOCK=16), x, w, y, z,
                                 policy=replace(Policy.reference(), batch=True))
    tile = np.repeat(x, 2, axis=0)  # program p's tile is x[p // 2]
    assert not x_after.any() and np.array_equal(y, 2 * tile)
    assert np.array_equal(z, tile.astype(np.float32) @ w.astype(np.float32))


# --- the lecture form: batched, as programs one after another -------------------------------------------------
@settings(max_examples=12, deadline=None)
@given(st.integers(1, 150), st.integers(1, 150), st.integers(1, 80), st.sampled_from([16, 32]),
       st.integers(1, 5), st.booleans())
def test_lecture_form_matmul(M, N, Kd, block, group, mask_k):
    rng = np.random.default_rng(M * N + Kd)
    a, b = rng.standard_normal((M, Kd)).astype(np.float32), rng.standard_normal((Kd, N)).astype(np.float32)
    same(lambda c: triton_launch(SEED.matmul_kernel, cdiv(M, block) * cdiv(N, block), a, b, c, M, N, Kd,
                                 BLOCK_M=block, BLOCK_N=block, BLOCK_K=16, GROUP_M=group, mask_k=mask_k),
         np.zeros((M, N), np.float32), batched=True)


@settings(max_examples=12, deadline=None)
@given(st.integers(1, 70), st.integers(1, 1100))
def test_lecture_form_softmax_fused_and_eager(M, N):
    x = np.random.default_rng(N).standard_normal((M, N)).astype(np.float32)
    B = 1 << (N - 1).bit_length()
    same(lambda y: triton_launch(SEED.softmax_fused_kernel, M, x, y, M, N, BLOCK=B), np.zeros_like(x), batched=True)

    def eager(mx, z, e, s, y):
        return [triton_launch(SEED._rowwise, M, x, mx, M, N, op="max", BLOCK=B),
                triton_launch(SEED._elementwise, M, x, mx, z, M, N, op="sub", BLOCK=B),
                triton_launch(SEED._elementwise, M, z, None, e, M, N, op="exp", BLOCK=B),
                triton_launch(SEED._rowwise, M, e, s, M, N, op="sum", BLOCK=B),
                triton_launch(SEED._elementwise, M, e, s, y, M, N, op="div", BLOCK=B)]

    same(eager, np.zeros(M, np.float32), *(np.zeros_like(x) for _ in range(2)), np.zeros(M, np.float32),
         np.zeros_like(x), batched=True)
