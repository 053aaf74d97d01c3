"""The mini-Triton's access shortcuts on the shapes of access they rarely meet: each kernel launched under the
default policy and under the reference one (every lane's offset, mask and address; stores applied at once)
gives the same arrays, counts and DRAM sectors, and the values derived by hand.

The shapes: offsets every program shares under a mask that differs per program; a block whose first and last
offsets are consecutive but whose middle is not; block pointers of three dimensions, of no unit stride and of
columns; a tile stored with one value every program shares; float16 tiles the programs share, read as values
and not only by ``tl.dot``; a tile moved by a different amount in each program; a bfloat16 block with a
masked tail; and the lecture form's arrays that are no arrays or not contiguous.
"""

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import LaunchError, triton_launch
from tests.reference import plain_path


def both(launch, *arrays):
    """``launch(*copies)`` under the default policy and the reference one: the same arrays and counts."""
    out = []
    for reference in (False, True):
        copies = [a.copy() for a in arrays]
        if reference:
            with plain_path():
                counts = launch(*copies)
        else:
            counts = launch(*copies)
        out.append((counts, copies))
    (fast, fa), (ref, ra) = out
    assert fast == ref and fast.dram_sectors == ref.dram_sectors
    for a, b in zip(fa, ra):
        assert a.tobytes() == b.tobytes()
    return fast, fa


@triton.jit
def _shared_offsets_own_mask(x_ptr, out_ptr, TILE: tl.constexpr):
    pid = tl.program_id(0)
    if TILE:  # a 4 × 16 tile every program shares, rows kept below the program id
        r, c = tl.arange(0, 4), tl.arange(0, 16)
        offs = r[:, None] * 32 + c[None, :]
        keep = r[:, None] < pid
        v = tl.load(x_ptr + offs, mask=keep, other=-1)
        tl.store(out_ptr + pid * 128 + offs, v)
    else:  # 64 offsets every program shares, the first 16·pid kept
        offs = tl.arange(0, 64)
        v = tl.load(x_ptr + offs, mask=offs < pid * 16, other=-1)
        tl.store(out_ptr + pid * 64 + offs, v)


@pytest.mark.parametrize("tile", [False, True])
def test_offsets_every_program_shares_under_a_mask_of_its_own(tile):
    x = np.arange(128, dtype=np.float32)
    out = np.zeros(4 * 128, np.float32)
    c, (_, got) = both(lambda x, out: _shared_offsets_own_mask[(4,)](x, out, TILE=tile), x, out)
    if tile:  # program p keeps rows 0 … p − 1 of 4: 0 + 1 + 2 + 3 = 6 rows of 16 floats
        rows = got.reshape(4, 4, 32)[:, :, :16]
        for p in range(4):
            assert (rows[p, :p] == x.reshape(4, 32)[:p, :16]).all() and (rows[p, p:] == -1).all()
        assert c.load_bytes == 6 * 16 * 4
    else:  # program p keeps 16·p of 64 lanes: 0 + 16 + 32 + 48 = 96 floats
        for p in range(4):
            assert (got[p * 64:p * 64 + 16 * p] == x[:16 * p]).all() and (got[p * 64 + 16 * p:(p + 1) * 64] == -1).all()
        assert c.load_bytes == 96 * 4


@triton.jit
def _ends_consecutive(x_ptr, out_ptr):
    i = tl.arange(0, 4)
    j = i + (i == 1).to(tl.int32) - (i == 2).to(tl.int32)  # 0, 2, 1, 3: the ends one apart per lane, not the middle
    tl.store(out_ptr + i, tl.load(x_ptr + j))


def test_a_block_consecutive_at_its_ends_only():
    x = np.array([10, 11, 12, 13], np.float32)
    c, (_, out) = both(lambda x, out: _ends_consecutive[(1,)](x, out), x, np.zeros(4, np.float32))
    assert out.tolist() == [10, 12, 11, 13] and c.load_bytes == 16


@triton.jit
def _block_pointers(x_ptr, out_ptr, KIND: tl.constexpr):
    if KIND == "3-D":  # a 2 × 2 × 4 box of a 2 × 4 × 8 array
        src = tl.make_block_ptr(x_ptr, (2, 4, 8), (32, 8, 1), (0, 1, 2), (2, 2, 4), (2, 1, 0))
        dst = tl.make_block_ptr(out_ptr, (2, 2, 4), (8, 4, 1), (0, 0, 0), (2, 2, 4), (2, 1, 0))
    elif KIND == "no unit stride":  # every other row and column of an 8 × 8 array: 4 × 4
        src = tl.make_block_ptr(x_ptr, (4, 4), (16, 2), (0, 0), (4, 4), (1, 0))
        dst = tl.make_block_ptr(out_ptr, (4, 4), (4, 1), (0, 0), (4, 4), (1, 0))
    else:  # "columns": an 8 × 8 array read column-major, a 4 × 4 box from (2, 1)
        src = tl.make_block_ptr(x_ptr, (8, 8), (1, 8), (2, 1), (4, 4), (0, 1))
        dst = tl.make_block_ptr(out_ptr, (4, 4), (4, 1), (0, 0), (4, 4), (1, 0))
    tl.store(dst, tl.load(src))


@pytest.mark.filterwarnings("ignore::kernellab.errors.BlockPointerWarning")  # block pointers: Triton 3.9 removed them
@pytest.mark.parametrize("kind", ["3-D", "no unit stride", "columns"])
def test_block_pointers_of_three_axes_of_no_unit_stride_and_of_columns(kind):
    x = np.arange(64, dtype=np.float32)
    n = 16
    c, (_, out) = both(lambda x, out: _block_pointers[(1,)](x, out, KIND=kind), x, np.zeros(n, np.float32))
    if kind == "3-D":
        want = x.reshape(2, 4, 8)[:, 1:3, 2:6]
    elif kind == "no unit stride":
        want = x.reshape(8, 8)[::2, ::2]
    else:  # element (i, j) at i + 8·j: the array's transpose read from row 2, column 1
        want = x.reshape(8, 8).T[2:6, 1:5]
    assert out.tolist() == want.ravel().tolist() and c.load_bytes == c.store_bytes == 16 * 4


@triton.jit
def _tile_of_one_value(out_ptr):
    r, c = tl.arange(0, 4), tl.arange(0, 16)
    tl.store(out_ptr + tl.program_id(0) * 128 + r[:, None] * 32 + c[None, :], tl.full((4, 16), 7.0, tl.float32))


def test_a_tile_stored_with_one_value_every_program_shares():
    c, (out,) = both(lambda out: _tile_of_one_value[(3,)](out), np.zeros(3 * 128, np.float32))
    assert (out.reshape(3, 4, 32)[:, :, :16] == 7).all() and (out.reshape(3, 4, 32)[:, :, 16:] == 0).all()
    assert c.store_bytes == 3 * 64 * 4


@triton.jit
def _shared_fp16_tile(x_ptr, out_ptr, COLUMNS: tl.constexpr):
    pid = tl.program_id(0)
    r = (pid // 4) * 8 + tl.arange(0, 8)  # each program's own rows, the same in all 4 (as a matmul's shared tiles)
    c = tl.arange(0, 16)
    if COLUMNS:  # the tile read down the columns of a column-major 16 × 8 array (lines along r)
        v = tl.load(x_ptr + r[:, None] + c[None, :] * 8)
    else:
        v = tl.load(x_ptr + r[:, None] * 16 + c[None, :])
    tl.store(out_ptr + pid * 128 + tl.arange(0, 8)[:, None] * 16 + c[None, :], v)  # the values, not a tl.dot


@pytest.mark.parametrize("columns", [False, True])
def test_a_float16_tile_every_program_shares_read_as_values(columns):
    x = np.arange(128, dtype=np.float16)
    c, (_, out) = both(lambda x, out: _shared_fp16_tile[(4,)](x, out, COLUMNS=columns), x, np.zeros(4 * 128, np.float16))
    want = x.reshape(16, 8).T if columns else x.reshape(8, 16)
    for p in range(4):
        assert (out[p * 128:(p + 1) * 128].reshape(8, 16) == want).all()
    assert c.dram_sectors == {"x_ptr": 8, "out_ptr": 32}  # 256 B and 4 × 256 B


@triton.jit
def _moved_tile(x_ptr, out_ptr):
    r, c = tl.arange(0, 4), tl.arange(0, 16)
    tile = r[:, None] * 32 + c[None, :]
    tl.store(out_ptr + tl.program_id(0) * 64 + r[:, None] * 16 + c[None, :], tl.load(x_ptr + tl.program_id(0) * 8 + tile))


def test_a_tile_moved_by_a_different_amount_in_each_program():
    x = np.arange(3 * 8 + 4 * 32, dtype=np.float32)
    c, (_, out) = both(lambda x, out: _moved_tile[(3,)](x, out), x, np.zeros(3 * 64, np.float32))
    for p in range(3):
        assert (out[p * 64:(p + 1) * 64].reshape(4, 16) == x[p * 8:].reshape(-1)[:128].reshape(4, 32)[:, :16]).all()
    # rows of 16 floats (64 B) at 128·r + 32·p bytes: programs 0–2 touch bytes 0–63, 32–95, 64–127 of each row,
    # sectors 0–3 of each 128-byte row, the last row's of 4 too: 4 rows × 4 sectors
    assert c.dram_sectors["x_ptr"] == 16


@triton.jit
def _bf16_tail(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr.to(tl.pointer_type(tl.bfloat16)) + offs, mask=offs < n, other=0.0)  # uint16 bits as bfloat16
    tl.store(out_ptr + offs, x.to(tl.float32), mask=offs < n)


def test_a_bfloat16_block_with_a_masked_tail():
    # bfloat16 is the top half of a float32: the integers 0 … 99 exactly
    x = (np.arange(100, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)
    c, (_, out) = both(lambda x, out: _bf16_tail[(4,)](x, out, 100, BLOCK=32), x, np.zeros(100, np.float32))
    assert out.tolist() == list(range(100)) and c.load_bytes == 200


def test_the_lecture_form_names_an_argument_that_is_no_array_or_not_contiguous():
    def copy(tl, x, y):
        offs = tl.arange(0, 4)
        tl.store(y, offs, tl.load(x, offs))

    with pytest.raises(LaunchError, match="the array must be a numpy array, not list"):
        triton_launch(copy, 1, [1.0, 2.0, 3.0, 4.0], np.zeros(4, np.float32))
    with pytest.raises(LaunchError, match="is not contiguous in memory"):
        triton_launch(copy, 1, np.arange(8, dtype=np.float32)[::-2], np.zeros(4, np.float32))

    def wide(tl, y):
        tl.store(y, tl.arange(0, 4), np.zeros((2, 4), np.float32))

    with pytest.raises(ValueError, match=r"cannot store a block of shape \[2, 4\] through pointers of shape \[4\]"):
        triton_launch(wide, 1, np.zeros(4, np.float32))


def test_the_offset_form_s_answers_on_its_own():
    from kernellab.triton.executor.view import Base, View, lines_of

    assert lines_of(np.zeros((4, 4), np.int64)) is None  # not a (rows, d0, d1) block: no lines
    v = View(Base.consecutive(0, (4,)), np.array([0, 8]), np.array([3, 1]))  # two programs, a prefix each
    assert v.mask().tolist() == [[True, True, True, False], [True, False, False, False]]
    assert v.kept() == 4 and v.starts().tolist() == [0, 8] and v.extremes() == (0, 11)


@triton.jit
def _strided_lanes(x_ptr, y_ptr, n, STEP: tl.constexpr, MASK: tl.constexpr):
    # the store asks 4 floats a thread (16 B); the load, 4 bytes past a 16-byte boundary, gets that layout at
    # vector width 1: each of its 4 instructions a thread has lanes 4 elements apart (an affine plan, not chunked)
    i = tl.arange(0, 512)
    offs = tl.program_id(0) * STEP + i
    if MASK == "none":
        x = tl.load(x_ptr + 1 + offs)
    elif MASK == "prefix":
        x = tl.load(x_ptr + 1 + offs, mask=offs < n, other=0.0)
    else:  # "every third"
        x = tl.load(x_ptr + 1 + offs, mask=offs % 3 != 0, other=0.0)
    tl.store(y_ptr + tl.program_id(0) * 512 + i, x)


@pytest.mark.parametrize("step", [512, 1024, 520])  # one run of rows; rows apart, alike; rows apart, unlike
@pytest.mark.parametrize("mask", ["none", "prefix", "every third"])
def test_rows_whose_lanes_stride_through_them(mask, step):
    n = 3 * step + 100  # the prefix mask cuts the last program's row after 100 lanes
    x = np.arange(1 + 3 * step + 512, dtype=np.float32)
    kernel = triton.jit(_strided_lanes.fn)  # a kernel of its own: no hint learnt from the other cases (a split tail)
    c, (_, y) = both(lambda x, y: kernel[(4,)](x, y, n, STEP=step, MASK=mask), x, np.zeros(4 * 512, np.float32))
    offs = (np.arange(4)[:, None] * step + np.arange(512)).ravel()
    keep = {"none": offs >= 0, "prefix": offs < n, "every third": offs % 3 != 0}[mask]
    assert (y == np.where(keep, x[1 + offs], 0)).all()
    assert c.load_instructions == 4 * 16  # 4 scalar loads a thread × 4 warps, a program
    if mask == "none" and step != 520:
        # load j of warp w: lane l at byte 4 + 4·step·p + 512·w + 16·l + 4·j, 500 bytes from 4 + 4j into a sector
        # and a line: sectors up to (4 + 4j + 499) / 32, i.e. 16, 16, 16, 17; lines 4, 4, 4, 5; 4 warps, 4 programs
        assert (c.load_requests, c.load_sectors, c.load_lines) == (64, 16 * (16 * 3 + 17), 16 * (4 * 3 + 5))


def test_first_touches_of_consecutive_rows_count_the_new_sectors():
    from kernellab.triton.executor.counts import Touched

    f, x = Touched(first_touch=True), np.zeros(100, np.float32)
    assert f.mark("x", x, np.arange(8, 24)[None], None, starts=[8]) == 2  # floats 8–23: bytes 32–95, sectors 1, 2
    # rows of whole sectors, floats 0–7 and 16–23 (sectors 0 and 2): sector 0 is new; then kept lanes 24–31 only
    assert f.mark("x", x, np.array([[0, 1, 2, 3, 4, 5, 6, 7], [16, 17, 18, 19, 20, 21, 22, 23]]), None,
                  starts=[0, 16]) == 1
    keep = np.array([[False] * 8, [True] * 8])
    assert f.mark("x", x, np.array([np.arange(40, 48), np.arange(24, 32)]), keep, starts=[40, 24]) == 1
    assert f.sectors() == {"x": 4}  # sectors 0, 1, 2, 3
