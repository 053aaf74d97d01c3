"""Stores whose lanes overlap: every element ends as the last lane to write it, in launch order (programs one
after another, x fastest) and, within a program, in the block's row-major order — the reference path's
order, whatever shape the access takes (rows of consecutive elements, a tile of lines along either axis).

On a GPU two threads writing one address race, and which one wins is not defined; kernellab defines it so
that a launch is repeatable and its fast paths can be held to the reference. The fast paths move rows and
lines as slices and views, whose writes are ordered by rows; where rows overlap that order could differ
from the lanes', so they must give the lanes' result.
"""

import numpy as np

import kernellab.triton as triton
import kernellab.triton.language as tl


@triton.jit
def _overlapping_rows(out_ptr, STEP: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    lane = tl.arange(0, BLOCK)
    tl.store(out_ptr + pid * STEP + lane, (pid * 100 + lane).to(tl.float32))


def test_rows_overlapping_across_programs_end_as_the_last_program_wrote_them():
    # 6 programs store 16 lanes each, rows 8 elements apart: element e is written by programs ⌊e/8⌋ − 1 and
    # ⌊e/8⌋ (those in 0 … 5), and keeps the later one's value, 100·p + (e − 8p)
    out = np.full(8 * 5 + 16, -1.0, np.float32)
    c = _overlapping_rows[(6,)](out, STEP=8, BLOCK=16)
    want = [100 * min(e // 8, 5) + e - 8 * min(e // 8, 5) for e in range(out.size)]
    assert out.tolist() == want
    assert c.store_bytes == 6 * 16 * 4


@triton.jit
def _overlapping_tile(out_ptr, S0: tl.constexpr, S1: tl.constexpr, M: tl.constexpr, N: tl.constexpr):
    i = tl.arange(0, M)
    j = tl.arange(0, N)
    tl.store(out_ptr + i[:, None] * S0 + j[None, :] * S1, (i[:, None] * 100 + j[None, :]).to(tl.float32))


def _row_major_last(m, n, s0, s1, size):
    """What the lanes (i, j) of an m × n block storing 100·i + j at i·s0 + j·s1 leave, in row-major order."""
    out = [-1.0] * size
    for i in range(m):
        for j in range(n):
            out[i * s0 + j * s1] = 100.0 * i + j
    return out


def test_a_tile_of_overlapping_row_lines_ends_as_its_last_row_wrote_it():
    # lines along j (consecutive), 8 of 16 elements, 4 apart: element e is in rows i with 4i ≤ e < 4i + 16
    out = np.full(4 * 7 + 16, -1.0, np.float32)
    _overlapping_tile[(1,)](out, S0=4, S1=1, M=8, N=16)
    assert out.tolist() == _row_major_last(8, 16, 4, 1, out.size)
    assert out[20] == 100 * 5 + 0  # rows 2 … 5 hold element 20; row 5, lane j = 0, is last


def test_a_tile_of_overlapping_column_lines_ends_as_its_last_row_wrote_it():
    # lines along i (consecutive down a column), 16 of 8 elements, 4 apart: element e = i + 4j is written by
    # every (i, j) with i ≡ e mod 4; row-major order ends at the largest such i, whose j = (e − i) / 4 is the
    # smallest. A line at a time (column by column) would end at the largest j instead.
    out = np.full(7 + 4 * 15 + 1, -1.0, np.float32)
    _overlapping_tile[(1,)](out, S0=1, S1=4, M=8, N=16)
    assert out.tolist() == _row_major_last(8, 16, 1, 4, out.size)
    assert out[8] == 100 * 4 + 1  # (0, 2), (4, 1) and (8 > 7: none): row 4, column 1, is last
