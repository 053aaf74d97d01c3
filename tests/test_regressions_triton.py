"""mini-Triton behaviours no test exercised before issue 15, each against a numpy reference.

Broadcasting a rank-1 block against a rank-2 block (BM ≠ BN and BM = BN), reductions over a negative
axis, fp16 blocks divided by a Python scalar, seed-form kernels on 2-D and 3-D grids, and a uniform
batch running vectorised. Every kernel runs several programs, so the program axis the engine carries
in front of each block is part of what is tested.
"""

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import triton_launch
from kernellab.triton.executor.policy import Policy, using

RNG = np.random.default_rng(15)


@triton.jit
def bias_scale(x_ptr, col_ptr, row_ptr, out_ptr, BM: tl.constexpr, BN: tl.constexpr):
    """out = (x + col[None, :]) * row[:, None] for one BM×BN tile per program (tiles stacked by rows)."""
    pid = tl.program_id(0)
    rm = pid * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    offs = rm[:, None] * BN + rn[None, :]
    x = tl.load(x_ptr + offs)
    col = tl.load(col_ptr + rn)          # rank 1, (BN,): broadcasts along rows as numpy's rule says
    row = tl.load(row_ptr + rm)          # rank 1, (BM,): made a column explicitly
    tl.store(out_ptr + offs, (x + col) * row[:, None])


@pytest.mark.parametrize("BM,BN", [(4, 8), (8, 4), (4, 4), (1, 16)])
def test_rank1_broadcasts_against_rank2_along_the_last_axis(BM, BN):
    # with BM = BN a wrong alignment (col as a column) keeps the shape and changes only the values:
    # out[i, j] = (x[i, j] + col[j]) · row[i], so the reference below tells them apart
    programs = 3
    x = RNG.standard_normal((programs * BM, BN)).astype(np.float32)
    col = RNG.standard_normal(BN).astype(np.float32)
    row = RNG.standard_normal(programs * BM).astype(np.float32)
    out = np.zeros_like(x)
    bias_scale[(programs,)](x, col, row, out, BM=BM, BN=BN)
    ref = (x.astype(np.float64) + col[None, :]) * row[:, None]
    np.testing.assert_allclose(out, ref, rtol=1e-6, atol=1e-6)


def test_rank1_against_rank2_with_incompatible_shapes_is_refused():
    @triton.jit
    def k(x_ptr, BM: tl.constexpr, BN: tl.constexpr):
        a = tl.load(x_ptr + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :])
        b = tl.load(x_ptr + tl.arange(0, BM))  # (BM,) against (BM, BN) with BM ≠ BN
        tl.store(x_ptr + tl.arange(0, BM), tl.sum(a + b, axis=1))

    with pytest.raises(ValueError, match=r"Cannot broadcast, the block shapes \[4, 8\] and \[4\] are incompatible"):
        k[(2,)](np.zeros(32, np.float32), BM=4, BN=8)


@triton.jit
def reduce_rows_cols(x_ptr, s_ptr, m_ptr, a_ptr, k_ptr, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    rm, rn = tl.arange(0, BM), tl.arange(0, BN)
    x = tl.load(x_ptr + pid * BM * BN + rm[:, None] * BN + rn[None, :])
    tl.store(s_ptr + pid * BM + rm, tl.sum(x, axis=-1))                 # over columns: BM sums
    tl.store(m_ptr + pid * BN + rn, tl.max(x, axis=-2))                 # over rows: BN maxima
    tl.store(a_ptr + pid * BM + rm, tl.argmax(x, axis=-1))              # int32 column indices
    kept = tl.sum(x, axis=-1, keep_dims=True)                           # (BM, 1)
    tl.store(k_ptr + pid * BM * BN + rm[:, None] * BN + rn[None, :], x - kept)


def test_reductions_over_negative_axes():
    programs, BM, BN = 3, 4, 8
    x = RNG.standard_normal((programs, BM, BN)).astype(np.float32)
    s, a = np.zeros((programs, BM), np.float32), np.zeros((programs, BM), np.int32)
    m, k = np.zeros((programs, BN), np.float32), np.zeros_like(x)
    reduce_rows_cols[(programs,)](x, s, m, a, k, BM=BM, BN=BN)
    # axis −1 of a (BM, BN) block is axis 1 (columns), −2 is axis 0 (rows), per program
    np.testing.assert_allclose(s, x.astype(np.float64).sum(axis=2), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(m, x.max(axis=1))
    np.testing.assert_array_equal(a, x.argmax(axis=2))
    np.testing.assert_allclose(k, x - x.astype(np.float64).sum(axis=2, keepdims=True), rtol=1e-5, atol=1e-5)


def test_reduction_axis_out_of_range_is_named():
    @triton.jit
    def k(x_ptr, BN: tl.constexpr):
        tl.store(x_ptr, tl.sum(tl.load(x_ptr + tl.arange(0, BN)), axis=-2))

    with pytest.raises(ValueError, match=r"reduction axis -2 out of range for a block of shape \[4\]"):
        k[(1,)](np.zeros(4, np.float32), BN=4)


@triton.jit
def fp16_div(x_ptr, out32_ptr, out16_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    q = tl.load(x_ptr + offs) / 3.0      # fp16 block / Python float
    tl.store(out32_ptr + offs, q)        # stored as computed
    tl.store(out16_ptr + offs, q)        # rounded to fp16 by the store


def test_fp16_block_divided_by_a_python_scalar_computes_in_fp32():
    # Triton: a Python float does not widen an fp16 block, but / on fp16 is computed in fp32 (PTX has no
    # fp16 division), so q is fp32. For x = 1: fp32(1/3) = 0.3333333432674408; had q stayed fp16 it would
    # be fp16(1/3) = 0.333251953125.
    x = np.concatenate([[1.0], RNG.standard_normal(15)]).astype(np.float16)
    out32, out16 = np.zeros(16, np.float32), np.zeros(16, np.float16)
    fp16_div[(2,)](x, out32, out16, BLOCK=8)
    assert out32[0] == np.float32(0.3333333432674408) and float(out16[0]) == 0.333251953125
    ref = x.astype(np.float32) / np.float32(3.0)
    np.testing.assert_array_equal(out32, ref)
    np.testing.assert_array_equal(out16, ref.astype(np.float16))


def test_fp16_divided_by_a_scalar_has_the_fp32_type():
    seen = []

    @triton.jit
    def k(x_ptr, BLOCK: tl.constexpr):
        v = tl.load(x_ptr + tl.arange(0, BLOCK))
        seen.append(((v / 3.0).dtype, (v * 3.0).dtype, (v / 3).dtype))

    k[(1,)](np.ones(4, np.float16), BLOCK=4)
    # fp16 * a Python float stays fp16; fp16 / a float or an int computes in fp32
    assert seen == [(tl.float32, tl.float16, tl.float32)]


# --- seed-form kernels on 2-D and 3-D grids --------------------------------------------------------

def where_am_i(tl, out, BLOCK):
    """Each program writes x + 10·y + 100·z into its own BLOCK-long slot, slots laid out x fastest."""
    x, y, z = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    nx, ny = tl.num_programs(0), tl.num_programs(1)
    slot = (z * ny + y) * nx + x
    offs = slot * BLOCK + tl.arange(0, BLOCK)
    tl.store(out, offs, np.full(BLOCK, x + 10 * y + 100 * z, np.int32))


@pytest.mark.parametrize("grid", [(3, 2), (3, 2, 4), (1, 5, 2)])
def test_seed_form_kernels_see_every_program_id_on_2d_and_3d_grids(grid):
    gx, gy, gz = (*grid, 1)[:3]
    out = np.full(gx * gy * gz * 4, -1, np.int32)
    cnt = triton_launch(where_am_i, grid, out, BLOCK=4)
    z, y, x = np.meshgrid(np.arange(gz), np.arange(gy), np.arange(gx), indexing="ij")
    np.testing.assert_array_equal(out.reshape(gz, gy, gx, 4), np.repeat((x + 10 * y + 100 * z)[..., None], 4, -1))
    # one store of 4 int32 per program: programs = gx·gy·gz, bytes = programs × 16
    assert (cnt["programs"], cnt["stores"], cnt["store_bytes"]) == (gx * gy * gz, gx * gy * gz, gx * gy * gz * 16)


# --- a uniform batch runs vectorised -------------------------------------------------------------

def test_a_uniform_batch_runs_the_kernel_body_once():
    calls = []

    @triton.jit
    def double(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        calls.append(1)  # Python in the body runs once per step: once for a vectorised batch
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)

    x, y = np.arange(32, dtype=np.float32), np.zeros(32, np.float32)  # 8 full blocks of 4
    cnt = double[(8,)](x, y, 32, BLOCK=4)
    np.testing.assert_array_equal(y, 2 * x)
    assert len(calls) == 1 and cnt["programs"] == 8
    # one by one, and the same counts: the batch changed only how the programs ran
    calls.clear()
    one_by_one = double.run(x, y, 32, grid=(8,), BLOCK=4, vectorize=False)
    assert len(calls) == 8 and one_by_one == cnt
    # 30 elements: the last block keeps 2 lanes, so the 7 full programs run as one step and the last
    # alone: 3 calls the first time (the step of 8 stops at its first load), 2 once the kernel knows
    calls.clear()
    tail = double[(8,)](x[:30], y[:30], 30, BLOCK=4)
    assert len(calls) == 3 and tail == double.run(x[:30], y[:30], 30, grid=(8,), BLOCK=4, vectorize=False)
    calls.clear()
    assert double[(8,)](x[:30], y[:30], 30, BLOCK=4) == tail and len(calls) == 2


def test_a_divergent_batch_reruns_program_by_program():
    calls = []

    @triton.jit
    def branchy(x_ptr, BLOCK: tl.constexpr):
        calls.append(1)
        pid = tl.program_id(0)
        if pid > 0:  # Python control flow on a value the programs disagree on: the batch cannot stand
            tl.store(x_ptr + pid * BLOCK + tl.arange(0, BLOCK), tl.full((BLOCK,), 1.0, tl.float32))

    x = np.zeros(12, np.float32)
    with using(Policy(groups=False)):
        branchy[(3,)](x, BLOCK=4)
    np.testing.assert_array_equal(x, [0] * 4 + [1] * 8)
    assert len(calls) == 1 + 3  # the failed batch, then programs 0, 1, 2
    # by default, in groups of programs that agree on pid > 0 (kernellab.triton.executor.groups): the failed
    # batch, then program 0 alone, then programs 1 and 2 together
    calls.clear()
    x[:] = 0
    branchy[(3,)](x, BLOCK=4)
    np.testing.assert_array_equal(x, [0] * 4 + [1] * 8)
    assert len(calls) == 1 + 2
