"""A launch's DRAM sectors (``counts.dram_sectors``) are kept per array by the address of its data: the step hands
that address (looked up once per array and step, ``Program.address``) to ``Touched.mark`` / ``mark_lines``,
which no longer look it up again. One array passed as two arguments is one array: its sectors are counted
once, whichever path marks them (a tile's lines, a gather's lanes), with and without ``lines=True`` (first
touches). Every count is derived by hand in its comment."""

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl


@triton.jit
def tile_sum(a_ptr, b_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
    # a row start per program, then a tile every program shares: the pointers' lines are known (touch_lines)
    pid = tl.program_id(0)
    tile = tl.arange(0, BM)[:, None] * stride + tl.arange(0, BN)[None, :]
    row = pid * BM * stride
    tl.store(out_ptr + row + tile, tl.load(a_ptr + row + tile) + tl.load(b_ptr + row + tile))


@triton.jit
def every_other(a_ptr, b_ptr, out_ptr, B: tl.constexpr):
    # offsets 0, 2, 4, …: not consecutive, so the lanes themselves are marked (touch)
    offs = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(out_ptr + offs, tl.load(a_ptr + 2 * offs) + tl.load(b_ptr + 2 * offs))


@pytest.mark.parametrize("lines", [False, True])
def test_one_array_as_two_arguments_is_counted_once_through_its_lines(lines):
    x = np.arange(8 * 64, dtype=np.float32).reshape(8, 64)
    out = np.zeros_like(x)
    c = tile_sum[(2,)](x, x, out, 64, BM=4, BN=16, lines=lines)
    # program p reads rows 4p … 4p + 3, columns 0 … 15: a row's 16 floats = 64 B = 2 sectors; 8 rows × 2 = 16
    # sectors of x (named by its last argument), 16 of out, whichever of a_ptr and b_ptr read them
    assert c.dram_sectors == {"b_ptr": 16, "out_ptr": 16}
    assert np.array_equal(out[:, :16], 2 * x[:, :16])
    y = x.copy()
    c = tile_sum[(2,)](x, y, out, 64, BM=4, BN=16, lines=lines)
    assert c.dram_sectors == {"a_ptr": 16, "b_ptr": 16, "out_ptr": 16}  # two arrays: 16 each


@pytest.mark.parametrize("lines", [False, True])
def test_one_array_as_two_arguments_is_counted_once_through_its_lanes(lines):
    x = np.arange(256, dtype=np.float32)
    out = np.zeros(64, np.float32)
    c = every_other[(2,)](x, x, out, B=32, lines=lines)
    # floats 0, 2, …, 126 of x: bytes 0 … 507, sectors 0 … 15 = 16; out: 64 floats = 256 B = 8 sectors
    assert c.dram_sectors == {"b_ptr": 16, "out_ptr": 8}
    assert np.array_equal(out, 2 * x[:128:2])
    c = every_other[(2,)](x, x.copy(), out, B=32, lines=lines)
    assert c.dram_sectors == {"a_ptr": 16, "b_ptr": 16, "out_ptr": 8}
