"""Bad input to a mini-Triton launch gets an error naming the kernel and the argument (or the program, or
the limit), never a bare numpy or dtypes error; a launch that raises leaves memory as a fresh launch,
running its programs in launch order, does."""

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import LaunchError, OutOfBoundsError
from kernellab.grid import MAX_GRID_DIM
from kernellab.simt import launch as simt_launch
from kernellab.triton.executor import program
from kernellab.triton.replay import cache as replay


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


NO_TYPE = ("which Triton has no type for: pass bool, int8 to int64, uint8 to uint64, float16, float32 or float64 "
           "(bfloat16 and float8 as ml_dtypes arrays or torch tensors)")


@pytest.mark.parametrize("dtype, argument, said", [
    (np.complex64, "x_ptr", "an array of complex64, " + NO_TYPE),
    (np.dtype(">f4"), "x_ptr", "a big-endian array (>f4): a GPU reads memory little-endian; pass x_ptr.astype('<f4')"),
    (np.dtype(">i8"), "out_ptr", "a big-endian array (>i8): a GPU reads memory little-endian; pass out_ptr.astype('<i8')"),
    (object, "out_ptr", "an array of object, " + NO_TYPE),
])
def test_an_array_of_no_triton_type_names_the_kernel_and_argument(dtype, argument, said):
    x = np.zeros(8, dtype if argument == "x_ptr" else np.float32)
    out = np.zeros(8, dtype if argument == "out_ptr" else np.float32)
    with pytest.raises(LaunchError) as err:
        copy_kernel[(1,)](x, out, 8, BLOCK=8)
    assert str(err.value) == f"kernel copy_kernel: argument {argument} is {said}"
    assert err.value.details["kernel"] == "copy_kernel" and err.value.details["argument"] == argument


@pytest.mark.parametrize("grid, axis, size", [((2**31,), "x", 2**31), ((1, 65536), "y", 65536),
                                              ((1, 1, 65536), "z", 65536)])
def test_a_grid_past_cudas_limits_names_the_kernel_and_dimension(grid, axis, size):
    x = np.zeros(4, np.float32)
    with pytest.raises(LaunchError) as err:
        copy_kernel[grid](x, x.copy(), 4, BLOCK=4)
    limit = MAX_GRID_DIM["xyz".index(axis)]
    assert str(err.value) == f"kernel copy_kernel: grid dimension {axis} = {size} exceeds the limit {limit}"
    # the SIMT simulator says the same of the same grid
    with pytest.raises(LaunchError) as simt:
        simt_launch(lambda blk: None, grid, 32, name="copy_kernel")
    assert str(simt.value) == str(err.value)


@pytest.mark.parametrize("grid, said", [((0,), "dimensions must be positive integers, got (0,)"),
                                         ((-1,), "dimensions must be positive integers, got (-1,)"),
                                         ((1.5,), "dimensions must be positive integers, got (1.5,)"),
                                         ((1, 1, 1, 1), "must have 1 to 3 dimensions, got 4: (1, 1, 1, 1)")])
def test_a_grid_that_is_no_grid_names_the_kernel(grid, said):
    # grid.dim3's words had no kernel in them on a mini-Triton launch (the SIMT launcher put it first)
    x = np.zeros(4, np.float32)
    with pytest.raises(LaunchError) as err:
        copy_kernel[grid](x, x.copy(), 4, BLOCK=4)
    assert str(err.value) == f"kernel copy_kernel: grid {said}"
    assert err.value.details["kernel"] == "copy_kernel"
    with pytest.raises(LaunchError) as simt:
        simt_launch(lambda blk: None, grid, 32, name="copy_kernel")
    assert str(simt.value) == str(err.value)


def test_an_array_not_dense_in_memory_names_the_kernel_and_argument():
    x = np.arange(16, dtype=np.float32)[::2]  # every other float: 8-byte steps, no flat view of its own
    with pytest.raises(LaunchError) as err:
        copy_kernel[(1,)](x, np.zeros(8, np.float32), 8, BLOCK=8)
    assert str(err.value) == "kernel copy_kernel: x_ptr is not contiguous in memory: pass np.ascontiguousarray(x_ptr)"
    assert err.value.details == {"argument": "x_ptr", "kernel": "copy_kernel"}


@pytest.mark.parametrize("n", [2**64, -(2**63) - 1])
def test_an_integer_past_64_bits_names_the_kernel_and_argument(n):
    # Triton passes an int as int32, int64 or uint64 (2^63 ≤ n < 2^64); past those, no type: a bare
    # OverflowError named neither the kernel nor the argument
    x = np.zeros(4, np.float32)
    with pytest.raises(LaunchError) as err:
        copy_kernel[(1,)](x, x.copy(), n, BLOCK=4)
    assert str(err.value) == f"kernel copy_kernel: argument n: integer {n} does not fit in 64 bits"
    assert err.value.details == {"kernel": "copy_kernel", "argument": "n"}
    assert isinstance(err.value.__cause__, OverflowError)


def test_a_grid_too_large_for_a_table_makes_its_ids_a_step_at_a_time(monkeypatch):
    # 37 × 3 × 2 = 222 programs: with the table limit at 50, ids are made per step (Pids), and the launch
    # gives the same values and counts as with the table
    x = np.random.default_rng(0).standard_normal(222 * 8).astype(np.float32)
    want_out = np.zeros_like(x)

    @triton.jit
    def grid3(x_ptr, out_ptr, BLOCK: tl.constexpr):
        pid = tl.program_id(0) + 37 * (tl.program_id(1) + 3 * tl.program_id(2))
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs) * 2)

    want = grid3[(37, 3, 2)](x, want_out, BLOCK=8)
    program.pid_table.cache_clear()
    monkeypatch.setattr(program, "TABLE_PROGRAMS", 50)
    try:
        assert isinstance(program.pid_table((37, 3, 2)), program.Pids)
        out = np.zeros_like(x)
        with replay.disabled():  # a fresh launch, through the ids
            got = grid3[(37, 3, 2)](x, out, BLOCK=8)
        one_by_one = grid3[(37, 3, 2)](x, np.zeros_like(x), BLOCK=8, vectorize=False)
    finally:
        program.pid_table.cache_clear()
    assert np.array_equal(out, want_out) and np.array_equal(out, 2 * x)
    assert got == want == one_by_one
    big = program.Pids((1 << 16, 1 << 15, 1))  # 2^31 programs: nothing made until asked
    assert len(big) == 2**31 and big[2**31 - 1].tolist() == [65535, 32767, 0]
    assert big[(1 << 16) * 5 + 7: (1 << 16) * 5 + 9].tolist() == [[7, 5, 0], [8, 5, 0]]


@triton.jit
def gather_in_place(x_ptr, idx_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(x_ptr + offs, tl.gather(x, tl.load(idx_ptr + offs), 0))


def test_a_gather_out_of_range_names_kernel_program_and_index_and_leaves_earlier_programs_stored():
    x = np.arange(16, dtype=np.float32)
    idx = np.tile(np.int32([3, 2, 1, 0]), 4)
    idx[13] = 99  # program 3, lane 1
    with pytest.raises(OutOfBoundsError) as err:
        gather_in_place[(4,)](x, idx, BLOCK=4)
    assert str(err.value) == ("kernel gather_in_place, program (3,0,0): tl.gather index 99 out of bounds (size 4 "
                              "along axis 0) at lane 1 of the index block")
    assert err.value.details["program"] == "(3,0,0)" and err.value.details["index"] == 99
    # programs 0-2 ran, in launch order, before program 3 raised: their rows are reversed; row 3 is untouched
    assert x.tolist() == [3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 12, 13, 14, 15]
