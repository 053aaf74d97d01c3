"""Branches of the mini-Triton's executor that no other test reached (issue 37's branch-coverage report).

Each test reaches one branch the coverage report listed as never taken and asserts what it decides, derived
by hand; each fails when that branch's code is broken (checked by planting the break).
"""

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab.triton.executor.policy import Policy, using


@triton.jit
def release_first(Lock, Buf, BLOCK: tl.constexpr):
    # program p holds lock p; the first exchange writes word 0: program 0's own lock, another word for program 1
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    while tl.atomic_cas(Lock + pid, 0, 1) == 1:
        pass
    tl.store(Buf + pid * BLOCK + cols, tl.load(Buf + pid * BLOCK + cols) + 1.0)
    tl.atomic_xchg(Lock, 0)
    tl.store(Buf + pid * BLOCK + cols, tl.load(Buf + pid * BLOCK + cols) + 1.0)
    tl.atomic_xchg(Lock + pid, 0)


def test_an_exchange_that_releases_only_some_programs_locks_splits_the_step():
    # The step of 2 programs holds locks 0 and 1; the first tl.atomic_xchg writes word 0 in both, which releases
    # program 0's section only, so the step reruns program by program (as the reference policy runs it):
    #   lock 0: 1 acquisition; its section loads (used: 1 round trip) and stores (+1): 2 round trips,
    #           64 floats × 4 B × (load + store) = 512 B
    #   lock 1: the section runs on to the second exchange: 2 loads used (2) and a store (+1): 3 round trips,
    #           4 × 256 B = 1024 B
    # Released at the second exchange in one step, program 0 would be charged lock 1's (1, 3, 1024).
    for policy in (Policy(), Policy.reference()):
        lock, buf = np.zeros(2, np.int32), np.zeros(2 * 64, np.float32)
        with using(policy):
            c = release_first[(2,)](lock, buf, BLOCK=64)
        assert c.launch["locks"] == {("Lock", 0): (1, 2, 512), ("Lock", 1): (1, 3, 1024)}
        assert lock.tolist() == [0, 0] and buf.tolist() == [2.0] * 128


# --- the seed form's (kernel(tl, ...)) shape checks: Triton's rules, named by kernel and program ----------------

def _seed_error(body):
    from kernellab import triton_launch
    from kernellab.errors import KernelValueError

    def bad(tl, y):
        body(tl)

    with pytest.raises(KernelValueError) as info:
        triton_launch(bad, (1,), np.zeros(4, np.float32))
    assert str(info.value).startswith("kernel bad, program (0,0,0): ")
    return str(info.value).removeprefix("kernel bad, program (0,0,0): ")


def test_the_seed_forms_ranges_and_shapes_are_checked_as_triton_checks_them():
    assert _seed_error(lambda tl: tl.arange(4, 4)) == "arange's end must be greater than start, got arange(4, 4)"
    # 2²¹ = 2,097,152 elements, over Triton's 2²⁰ = 1,048,576
    assert _seed_error(lambda tl: tl.arange(0, 2**21)) == "arange's range must be at most 1048576, got 2097152"
    assert _seed_error(lambda tl: tl.zeros((3,))) == "Shape element 0 must be a power of 2, got shape [3]"
    # 2048 × 1024 = 2²¹ elements, each dimension a power of two
    assert _seed_error(lambda tl: tl.zeros((2048, 1024))) == (
        "a block may hold at most 1048576 elements, got shape [2048, 1024]")
    assert _seed_error(lambda tl: tl.dot(tl.zeros((16, 16)), tl.zeros((32, 16)))).startswith(
        "First input shape ([16, 16]) and second input shape [32, 16] are not compatible for matmul")
    # the batched form and the one-program form (its rerun) name a wrong axis alike, not numpy's IndexError
    assert _seed_error(lambda tl: tl.program_id(3)) == "program_id axis must be 0, 1 or 2, not 3"


def test_a_program_with_no_floating_point_value_holds_no_register_word():
    # Live.peak() of no value born: 0 words (the running sum of nothing), not numpy's max of an empty array
    from kernellab.triton.executor.liveness import Live

    assert Live(num_warps=4).peak() == 0.0


def test_dtypes_by_name_and_a_scalar_argument_that_is_no_number():
    from kernellab.triton.executor import dtypes

    class Bits:  # a dtype numpy lacks, known by its name (ml_dtypes' numpy dtypes, torch's viewed as bits)
        name = "float8_e4m3fn"

    assert dtypes.from_numpy(Bits()) is dtypes.float8e4nv
    with pytest.raises(TypeError, match="a str is not a Triton scalar"):
        dtypes.of_argument("1.0")


@triton.jit
def wrapped_mask(out_ptr):
    x = tl.arange(0, 4) + 2147483646  # int32: 2147483646, 2147483647, then −2147483648, −2147483647 (wrapped)
    tl.store(out_ptr + tl.arange(0, 4), 1, mask=x < 0)


def test_a_range_moved_past_its_types_end_wraps_as_its_values_do():
    # 3 + 2147483646 > 2³¹ − 1: the sum wraps in int32, so x < 0 keeps lanes 2 and 3 (2 × 4 B stored). Kept as
    # the range's offsets moved by the int, unwrapped, "x < 0" would keep no lane: the sum is computed plainly
    out = np.zeros(4, np.int32)
    c = wrapped_mask[(1,)](out)
    assert out.tolist() == [0, 0, 1, 1] and c.store_bytes == 8


def test_products_with_shared_tiles_equal_those_of_the_copied_tiles_bit_for_bit():
    # numerics.matmul of Grouped operands (tiles that consecutive programs share, kept once): both operands
    # grouped, and a one-program block broadcast against grouped tiles, as np.matmul of the copies gives them
    from kernellab.triton.executor.numerics import Grouped, matmul

    rng = np.random.default_rng(0)
    ga = Grouped(rng.standard_normal((2, 4, 4)).astype(np.float32), 3)  # 6 programs, 3 a tile
    gb = Grouped(rng.standard_normal((3, 4, 4)).astype(np.float32), 2)  # 6 programs, 2 a tile
    np.testing.assert_array_equal(matmul(ga, gb), np.matmul(ga.array(), gb.array()))
    one = rng.standard_normal((1, 4, 4)).astype(np.float32)
    got = matmul(one, gb)
    assert got.shape == (6, 4, 4)
    np.testing.assert_array_equal(got, np.matmul(one, gb.array()))


# --- a block as the host sees it (tensor's Python protocols), and masks the prefix form does not take ---------

@triton.jit
def _iterate(y_ptr):
    for _v in tl.arange(0, 4):
        pass


@triton.jit
def _float_index(y_ptr):
    (1, 2, 3)[tl.load(y_ptr) + 0.5]


@triton.jit
def _int_index(y_ptr):
    tl.store(y_ptr + tl.program_id(0), (10, 20, 30)[tl.program_id(0)])


def test_a_block_as_a_python_index_or_iterable():
    from kernellab.errors import KernelTypeError

    with pytest.raises(KernelTypeError, match="a Triton block cannot be iterated over; use tl.static_range"):
        _iterate[(1,)](np.zeros(1, np.float32))
    with pytest.raises(KernelTypeError, match="a fp32 value cannot be used as an index"):
        _float_index[(1,)](np.zeros(1, np.float32))
    y = np.zeros(3, np.int32)
    _int_index[(3,)](y)  # program p's id indexes the tuple: 10, 20, 30
    assert y.tolist() == [10, 20, 30]


def test_a_blocks_repr_shows_its_values_shape_and_type():
    seen = []

    @triton.jit
    def k(y_ptr):
        seen.append(repr(tl.arange(0, 4)))

    k[(1,)](np.zeros(1, np.float32))
    assert seen == ["tensor(array([0, 1, 2, 3], dtype=int32), shape=[4], dtype=int32)"]


@triton.jit
def _outer_mask(y_ptr):
    r = tl.program_id(0) * 2 + tl.arange(0, 2)
    offs = r[:, None] * 4 + tl.arange(0, 4)[None, :]
    tl.store(y_ptr + offs, 1.0, mask=offs < 10)


def test_a_tiles_offsets_under_a_bound_keep_their_own_lanes():
    # 2 programs, rows r = 2p, 2p + 1 of 4 floats: program 0 offsets 0–7, program 1 8–15; offs < 10 keeps 8 + 2
    # lanes: 10 × 4 B = 40 B (the offsets differ per program as rows, not as one shared run: the plain mask)
    y = np.zeros(16, np.float32)
    c = _outer_mask[(2,)](y)
    assert y.tolist() == [1.0] * 10 + [0.0] * 6 and c.store_bytes == 40


def test_a_huge_grids_program_ids_by_an_array_of_positions():
    # 2¹⁶ × 2¹⁵ = 2³¹ programs: no table, ids computed; position 2¹⁶ + 3 is (3, 1, 0) (x fastest), the last
    # (2¹⁶ − 1, 2¹⁵ − 1, 0), as the int positions give them one at a time
    from kernellab.triton.executor.program import pid_table

    big = pid_table((1 << 16, 1 << 15, 1))
    got = big[np.array([0, (1 << 16) + 3, (1 << 31) - 1])]
    assert got.tolist() == [[0, 0, 0], [3, 1, 0], [(1 << 16) - 1, (1 << 15) - 1, 0]]
    assert got.tolist() == [big[0].tolist(), big[(1 << 16) + 3].tolist(), big[-1].tolist()]


# --- a Python number on the left of a block's operator, and the operators a block or a pointer refuses -------

@triton.jit
def _reflected(x_ptr, y_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4))
    tl.store(y_ptr + tl.arange(0, 4), 7 % x)
    tl.store(y_ptr + 4 + tl.arange(0, 4), 6 & x)
    tl.store(y_ptr + 8 + tl.arange(0, 4), 6 | x)
    tl.store(y_ptr + 12 + tl.arange(0, 4), 6 ^ x)
    tl.store(y_ptr + 16 + tl.arange(0, 4), ~(+x))


def test_a_number_on_the_left_of_an_integer_blocks_operator():
    # x = 3, −3, 5, −5 (int32). 7 % x is C's remainder (the dividend's sign, as Triton's arith.remsi): 1, 1, 2, 2
    # (Python's 7 % −3 would be −2); 6 = 0b110: & gives 2, 4, 4, 2; | gives 7, −1, 7, −1; ^ gives 5, −5, 3, −3;
    # ~(+x) = −x − 1: −4, 2, −6, 4
    x, y = np.array([3, -3, 5, -5], np.int32), np.zeros(20, np.int32)
    _reflected[(1,)](x, y)
    assert y.reshape(5, 4).tolist() == [[1, 1, 2, 2], [2, 4, 4, 2], [7, -1, 7, -1], [5, -5, 3, -3], [-4, 2, -6, 4]]


@triton.jit
def _reversed_by_pointer(x_ptr, y_ptr, N: tl.constexpr):
    o = tl.arange(0, N)
    tl.store(y_ptr + o, tl.load((x_ptr + N) - o))


@triton.jit
def _reversed_by_offsets(x_ptr, y_ptr, N: tl.constexpr):
    o = tl.arange(0, N)
    tl.store(y_ptr + o, tl.load(x_ptr + (N - o)))


def test_a_pointer_minus_a_range_is_counted_as_the_reversed_offsets():
    # (x + 512) − o and x + (512 − o) address the same 512 floats, x[512] down to x[1]: descending, so neither
    # is a vector load, though x + 512 is 16-byte aligned (2048 B) and o is contiguous: the subtraction's facts are
    # those of −o (contiguity 1), not of o. 512 floats on 4 warps: 4 a thread, one ld.global each: 4 × 128 / 32 =
    # 16 warp instructions (with o's facts, 4 floats a vector: 4)
    x = np.arange(1024, dtype=np.float32)
    got = []
    for k in (_reversed_by_pointer, _reversed_by_offsets):
        y = np.zeros(512, np.float32)
        got.append(k[(1,)](x, y, N=512))
        np.testing.assert_array_equal(y, x[512:0:-1])
    assert got[0].load_instructions == 16 and got[0] == got[1]


@pytest.mark.parametrize("body, error", [
    (lambda x: ~x, "unexpected type fp32 for ~"),
    (lambda x: x.to(tl.float16, fp_downcast_rounding="rtp"), "fp_downcast_rounding must be 'rtne' or 'rtz', not 'rtp'"),
    (lambda x: x.to(tl.int16, bitcast=True), "Cannot bitcast data-type of size 32 to data-type of size 16"),
])
def test_what_a_float_block_refuses(body, error):
    from kernellab.errors import KernelError

    @triton.jit
    def k(x_ptr):
        body(tl.load(x_ptr + tl.arange(0, 4)))

    with pytest.raises(KernelError, match=error):
        k[(1,)](np.zeros(4, np.float32))


@pytest.mark.parametrize("body, error", [
    (lambda p: 3 - p, "cannot subtract a pointer from a number"),
    (lambda p: p * 2, "cannot multiply a pointer"),
    (lambda p: p & 1, "unsupported operand types for &: pointer<fp32> and int32"),
    # Triton 3.9 refuses it too (semantic.less_than: binary_op_type_checking_impl without allow_lhs_ptr)
    (lambda p: p < p + 2, "unsupported operand types for <: pointer<fp32> and pointer<fp32>"),
    (lambda p: p.to(tl.int32), "kernellab converts a pointer only to another pointer type"),
    (lambda p: p.to(tl.pointer_type(tl.int16)),
     r"kernellab cannot reinterpret a pointer<fp32> as a pointer<int16>: element sizes differ"),
])
def test_what_a_pointer_refuses(body, error):
    from kernellab.errors import KernelTypeError

    @triton.jit
    def k(x_ptr):
        body(x_ptr)

    with pytest.raises(KernelTypeError, match=error):
        k[(1,)](np.zeros(4, np.float32))


def test_a_string_argument_in_a_kernels_arithmetic_is_refused_by_name():
    from kernellab.errors import KernelTypeError

    @triton.jit
    def k(y_ptr, s):
        tl.store(y_ptr + tl.arange(0, 4), tl.zeros((4,), tl.float32) + s)

    with pytest.raises(KernelTypeError, match="kernel k, program \\(0,0,0\\): unsupported operand of type str"):
        k[(1,)](np.zeros(4, np.float32), "a")


@triton.jit
def _tile_rows(x_ptr, y_ptr, S: tl.constexpr):
    pid = tl.program_id(0)
    rr = tl.arange(0, 2)
    c = tl.arange(0, 8)
    v = tl.load((x_ptr + pid * 2 * S) + (rr[:, None] * S + c[None, :]))  # a tile every program shares, moved
    tl.store(y_ptr + pid * 16 + (rr[:, None] * 8 + c[None, :]), v)


def test_a_tiles_lines_charge_their_first_touched_sectors_to_their_line():
    # 2 programs × 2 rows of 8 floats (32 B) of x, rows 128 B apart (S = 32): 4 lines, each one sector, none
    # touched before: the load's line gets x's 4 DRAM sectors; the store writes y[0:32], 128 B = 4 sectors
    x, y = np.arange(128, dtype=np.float32), np.zeros(32, np.float32)
    c = _tile_rows[(2,)](x, y, S=32, lines=True)
    np.testing.assert_array_equal(y, x.reshape(4, 32)[:, :8].reshape(-1))
    rows = [r.dram_sectors for r in c.by_line.values()]
    assert rows == [{"x_ptr": 4}, {"y_ptr": 4}] and c.dram_sectors == {"x_ptr": 4, "y_ptr": 4}


@triton.jit
def _masked_copy(x_ptr, y_ptr, N: tl.constexpr, BOUND: tl.constexpr, FLOAT: tl.constexpr):
    o = tl.arange(0, N)
    mask = (o.to(tl.float32) < BOUND) if FLOAT else (o < BOUND)
    tl.store(y_ptr + o, tl.load(x_ptr + o, mask=mask, other=0.0))


def test_a_mask_from_a_float_comparison_has_no_axis_facts():
    # o < 500 (arith.cmpi): the mask is constant over runs of 4 lanes (500 = 4 × 125), so 512 floats load as
    # vectors of 4, 4 a thread of 128: 4 × 128 / 4 / 32 = 4 warp instructions. A comparison of floats (o < 500.0:
    # sitofp; o.to(fp32) < 500) is arith.cmpf, which Triton's axis analysis does not follow: one float a load,
    # 16 instructions
    x = np.arange(512, dtype=np.float32)
    counts = []
    for bound, as_float in ((500, False), (500.0, False), (500, True)):
        y = np.zeros(512, np.float32)
        counts.append(_masked_copy[(1,)](x, y, N=512, BOUND=bound, FLOAT=as_float).load_instructions)
        np.testing.assert_array_equal(y, np.where(np.arange(512) < 500, x, 0))
    assert counts == [4, 16, 16]
