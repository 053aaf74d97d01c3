"""The offsets of an access (kernellab.triton.executor.view) and its one route (kernellab.triton.executor.memory):
every fast form equals the lanes reference.

Random views of every form — rows of consecutive offsets (a row start per program or one for all, a prefix
mask, a run, a bool mask), tiles of lines from an outer sum (along rows or down columns) or at any starts
(strided, shuffled, repeated, near 2^40), strided tiles (a block pointer's), offsets searched for their form,
offsets as built — each checked three ways against
:meth:`View.lanes`, which builds every offset and mask:

* its structure: what :meth:`View.starts`, :meth:`View.prefix`, :meth:`View.run`, :meth:`View.lines`,
  :meth:`View.extremes` and :meth:`View.kept` say holds of the lanes;
* its counts: :func:`count_planned`'s closed forms (and what it keeps per base) under random blocked
  layouts equal the lanes' addresses counted one by one;
* its access: :func:`memory.load` and :func:`memory.store` give the values, array, counts, DRAM sectors and
  error of the same access as built offsets, on arrays the view may reach past.
"""

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import LaunchError, OutOfBoundsError
from kernellab.access import Access, bytes_requested, lines, prefix_counts, requests, sectors
from kernellab.triton.compiler import axis as A
from kernellab.triton.compiler import layout
from kernellab.triton.executor import dtypes as T
from kernellab.triton.executor import memory
from kernellab.triton.executor.counts import Tally, Touched, count_planned
from kernellab.triton.executor.program import Program, pid_table
from kernellab.triton.executor.view import Base, Lines, View, lines_of, lines_of_outer, row_starts

SEEDS = range(8)


# --- random views ------------------------------------------------------------------------------------
def _keep(rng, rows, shape, may_prefix=True):
    """None, a prefix of each row (a run when the last row alone is short), or a bool block."""
    n = int(np.prod(shape))
    kind = rng.integers(0, 4 if may_prefix else 2)
    if kind == 0:
        return None
    if kind == 1:
        m = rng.random((rows, *shape)) < 0.7
        return m if rng.random() < 0.8 else m[:1]  # one row: every program keeps the same lanes
    if kind == 2:
        return rng.integers(0, n + 1, rows).astype(np.int64)
    k = np.full(rows, n, np.int64)
    k[-1] = rng.integers(0, n + 1)
    return k


def _shift(rng, rows):
    """One shift for every program, or one each (some evenly spaced, as ``pid * BLOCK`` makes them)."""
    kind = rng.integers(0, 3)
    if kind == 0:
        return int(rng.integers(-40, 400))
    if kind == 1:
        return int(rng.integers(-10, 50)) + np.arange(rows, dtype=np.int64) * int(rng.choice([0, 7, 32, 64, 100]))
    return rng.integers(-20, 600, rows).astype(np.int64)


def random_view(rng, rows, counted=False):
    """``(view, reference offsets)``: a random view and its offsets built independently of it; ``counted``: one
    an access may count, its kept lanes at offsets ≥ 0 (a kept lane below the array raises before counting),
    some of them past 2^40 (too far for an array to hold)."""
    kind = int(rng.integers(0, 6))
    if kind == 5:  # a tile of lines at any starts: strided, shuffled, repeated, closer than a line, near 2^40
        shape, axis = (int(2 ** rng.integers(0, 7)), int(2 ** rng.integers(0, 7))), int(rng.integers(0, 2))
        n_lines, lo = shape[1 - axis], int(rng.integers(0, 1000)) + (2**40 if counted and rng.random() < 0.3 else 0)
        s = [lo + np.arange(n_lines) * int(rng.choice([7, 13, 33, 1031])) + rng.integers(0, 50, (rows, 1)),
             lo + rng.integers(0, 64, (rows, n_lines)), np.full((rows, n_lines), lo),
             lo + np.arange(n_lines)[None, :] * int(rng.integers(1, 5))][rng.integers(0, 4)]
        s = np.broadcast_to(s, (rows, n_lines)).astype(np.int64)
        i, j = np.arange(shape[0])[:, None], np.arange(shape[1])[None, :]
        ref = s[:, i + 0 * j] + j if axis == 1 else s[:, j + 0 * i] + i
        base = Base(ref, lines=Lines(axis, s, shape[axis], int(s.min()), int(s.max())))
    elif kind == 0:  # a block every program shares, consecutive, moved per program
        shape = ((int(rng.choice([1, 7, 32, 64, 100])),) if rng.random() < 0.6 else
                 (int(rng.choice([1, 2, 4])), int(rng.choice([8, 16, 32]))))
        start = int(rng.integers(0, 70))
        ref = (start + np.arange(int(np.prod(shape)))).reshape((1, *shape))
        base = Base.consecutive(start, shape)
    elif kind == 1:  # a tile: a column and a row, one of them consecutive (lines), per program or shared
        d0, d1 = (int(rng.choice([2, 4, 8, 16, 32])) for _ in range(2))
        r0, r1 = int(rng.choice([1, rows])), int(rng.choice([1, rows]))
        col = rng.integers(0, 40, (r0, d0, 1)) * int(rng.choice([1, 3, 64]))
        row = rng.integers(0, 40, (r1, 1, d1)) * int(rng.choice([1, 5]))
        if rng.random() < 0.5:
            row = rng.integers(0, 30, (r1, 1, 1)) + np.arange(d1)  # lines along the rows
        elif rng.random() < 0.5:
            col = rng.integers(0, 30, (r0, 1, 1)) + np.arange(d0)[:, None]  # lines down the columns
        if rng.random() < 0.3:
            col = np.arange(d0)[None, :, None] * d1 + rng.integers(0, 100, (r0, 1, 1))  # rows of a dense tile
            row = np.arange(d1)[None, None, :] + np.zeros((r1, 1, 1), np.int64)
        known, lines = lines_of_outer(col, row)
        assert known
        ref = np.broadcast_to(col + row, (max(r0, r1), d0, d1))
        base = Base.outer(col, row, lines)
    elif kind == 2:  # a block pointer's tile: a start per program, strides every program shares
        shape = tuple(int(rng.choice([1, 4, 16])) for _ in range(int(rng.integers(1, 3))))
        strides = tuple(int(rng.choice([0, 1, 3, 40])) for _ in shape)
        starts = rng.integers(0, 200, int(rng.choice([1, rows]))).astype(np.int64)
        grids = np.ix_(*[np.arange(n) * s for n, s in zip(shape, strides)])
        ref = starts.reshape(-1, *(1,) * len(shape)) + sum(grids)
        base = Base.strided(starts, shape, strides)
    elif kind == 3:  # offsets as built, their form looked for (rows of consecutive offsets often)
        n = int(rng.choice([4, 16, 33]))
        r = int(rng.choice([1, rows]))
        ref = rng.integers(0, 300, (r, 1)) + np.arange(n) if rng.random() < 0.6 else rng.integers(0, 300, (r, n))
        base = Base.of(ref.astype(np.int64))
    else:  # offsets as built, no form looked for
        shape = (int(rng.choice([5, 32])),)
        ref = rng.integers(0, 300, (int(rng.choice([1, rows])), *shape))
        base = Base.of(ref.astype(np.int64), search=False)
    shift = _shift(rng, rows) if rng.random() < 0.8 else 0
    if isinstance(shift, np.ndarray) and base.rows not in (1, rows):
        shift = 0
    view = View(base, shift).masked(_keep(rng, rows, base.shape, may_prefix=True))
    s = shift.reshape(-1, *(1,) * len(base.shape)) if isinstance(shift, np.ndarray) else shift
    ref = np.broadcast_to(ref + s, (view.rows, *base.shape))
    low = int(ref.min()) if ref.size else 0
    if counted and low < 0:
        view, ref = view.moved(-low), ref - low
    return view, ref


def _mask_of(view):
    k = view.keep
    if k is None:
        return np.ones((view.rows, *view.shape), bool)
    if k.dtype == bool:
        return np.broadcast_to(k, (view.rows, *view.shape))
    return (np.arange(view.numel) < np.broadcast_to(k, (view.rows,))[:, None]).reshape((view.rows, *view.shape))


@pytest.mark.parametrize("seed", SEEDS)
def test_every_form_says_what_holds_of_the_lanes(seed):
    rng = np.random.default_rng(seed)
    seen = set()
    for _ in range(200):
        rows = int(rng.integers(1, 6))
        view, ref = random_view(rng, rows)
        offs, mask = view.lanes()
        assert np.array_equal(offs, ref)
        want = _mask_of(view)
        assert (mask is None and want.all()) or np.array_equal(mask, want)
        flat_offs, kept = offs.reshape(view.rows, -1), want.reshape(view.rows, -1)
        assert view.kept() == int(kept.sum())
        lo, hi = view.extremes()
        assert lo <= offs.min() and hi >= offs.max()
        starts = view.starts()
        if starts is not None:
            seen.add("starts")
            assert np.array_equal(flat_offs, starts[:, None] + np.arange(view.numel))
        k = view.prefix()
        if k is not None:
            seen.add("prefix")
            assert np.array_equal(kept, np.arange(view.numel) < k[:, None])
        if view.run():
            seen.add("run")
            run = flat_offs[kept]
            assert np.array_equal(run, run[0] + np.arange(run.size)) if run.size else True
        got = view.lines()
        if got is not None:
            seen.add(f"lines {got[0]}")
            axis, s, n = got
            i, j = np.arange(view.shape[0])[:, None], np.arange(view.shape[1])[None, :]
            built = s[:, i + 0 * j] + j if axis == 1 else s[:, j + 0 * i] + i
            assert np.array_equal(np.broadcast_to(built, offs.shape), offs)
    assert seen == {"starts", "prefix", "run", "lines 0", "lines 1"}



def test_views_of_one_base_share_an_answer_only_with_the_same_shift_and_kept_lanes():
    # The views of one offsets block (x_ptr + offs, y_ptr + offs under one mask) ask run, kept and extremes
    # once, through their base. Base: 8 consecutive elements from 0, moved per program by s = 0, 8, 16, 24:
    # all 4 × 8 = 32 lanes kept are one run, elements 0–31
    base = Base.consecutive(0, (8,))
    s, full = np.array([0, 8, 16, 24]), np.array([8, 8, 8, 8])
    short = np.array([8, 3, 8, 8])  # program 1 keeps 3 lanes: a gap (11–15) after them; 8 + 3 + 8 + 8 = 27 kept
    a, b = View(base, s, full), View(base, s, short)
    assert a.run() and not b.run()  # b asked after a: not a's answer
    assert a.kept() == 32 and b.kept() == 27
    assert View(base, s, full).run() and View(base, s, full).kept() == 32
    gap = np.array([0, 8, 20, 28])  # programs 2 and 3 four elements further: 16–19 skipped, no run
    assert not View(base, gap, full).run()
    assert View(base, gap, full).extremes() == (0, 35) and a.extremes() == (0, 31)  # 28 + 7 and 24 + 7
    assert not View(base, 5, full).run()  # an int shift: all 4 programs at elements 5–12, no run
    assert View(base, 5).run() and View(base, 5).extremes() == (5, 12)  # one program: 0 + 5 … 7 + 5
    # no mask kept either: an array shift's answer is not an int shift's. The gap's (no run) is asked first; the base
    # moved by 5 alone is one program's 8 elements, 5–12, a run
    assert not View(base, gap).run() and View(base, 5).run()


def test_loaded_offsets_stored_after_a_load_through_them_moved_per_program():
    # o = idx[16·pid + l] = 32·pid + l (a block of offsets of its own, 4 programs × 16). The load reads x[o − 16·pid]
    # = x[16·pid + l]: the 4 programs' rows are one run, 0–63. The store writes y[o] = y[32·pid + l]: rows 32 apart,
    # no run (elements 16–31 of each 32 untouched). The view of the store (o moved by an int, 0) must not take the
    # load's answer (o moved by one int per program): y[32·pid + l] = 16·pid + l, y[32·pid + 16 + l] = 0
    @triton.jit
    def k(idx_ptr, x_ptr, y_ptr):
        pid = tl.program_id(0)
        o = tl.load(idx_ptr + pid * 16 + tl.arange(0, 16))
        v = tl.load(x_ptr - pid * 16 + o)
        tl.store(y_ptr + o, v)

    idx = (np.arange(4)[:, None] * 32 + np.arange(16)).reshape(-1).astype(np.int32)
    x, y = np.arange(64, dtype=np.float32), np.zeros(128, np.float32)
    c = k[(4,)](idx, x, y)
    assert y.reshape(4, 2, 16)[:, 0].tolist() == np.arange(64).reshape(4, 16).tolist()
    assert not y.reshape(4, 2, 16)[:, 1].any()
    # 4 programs × 16 floats = 64 B each, at 128 B apart: 2 sectors each, 8 in all; 4 × 64 = 256 bytes
    assert (c.store_sectors, c.store_bytes) == (8, 256)

def test_row_starts_and_the_lines_of_built_offsets():
    assert row_starts(np.arange(12).reshape(3, 4)).tolist() == [0, 4, 8]
    assert row_starts(np.array([[3, 4, 6]])) is None
    data = np.array([[[0, 1, 2], [10, 11, 12]]])  # one program's 2×3 tile: two lines of three
    found = lines_of(data)
    assert (found.axis, found.n, found.lo, found.hi, found.starts.tolist()) == (1, 3, 0, 10, [[0, 10]])
    assert lines_of(data.transpose(0, 2, 1)).axis == 0 and lines_of(np.array([[[0, 2], [5, 9]]])) is None


@pytest.mark.parametrize("seed", range(4))
def test_lines_of_an_outer_sum_equal_the_lines_of_the_sum(seed):
    rng = np.random.default_rng(300 + seed)
    for _ in range(200):
        d0, d1 = int(rng.integers(2, 9)), int(rng.integers(2, 9))  # both sides longer than 1
        r0, r1 = int(rng.choice([1, 3])), int(rng.choice([1, 3]))
        big = rng.random() < 0.3  # near the top of int32: a sum may wrap
        col = rng.integers(0, 100, (r0, d0, 1)) * int(rng.choice([1, 7, 64]))
        row = rng.integers(0, 100, (r1, 1, d1)) * int(rng.choice([1, 3]))
        if rng.random() < 0.5:
            row = rng.integers(0, 50, (r1, 1, 1)) + np.arange(d1)  # consecutive along the row
        if rng.random() < 0.4:
            col = rng.integers(0, 50, (r0, 1, 1)) + np.arange(d0)[:, None]  # consecutive down the column
        if big:
            col = col + (2**31 - 60)
        col, row = col.astype(np.int32), row.astype(np.int32)
        known, found = lines_of_outer(row, col, T.int32)  # either order
        with np.errstate(over="ignore"):
            built = (col + row).astype(np.int64)
        if not known:
            assert big
            continue
        ref = lines_of(np.broadcast_to(built, (max(r0, r1), d0, d1)))
        assert (found is None) == (ref is None)
        if found is not None:
            assert (found.axis, found.n, found.lo, found.hi) == (ref.axis, ref.n, ref.lo, ref.hi)
            assert np.array_equal(found.starts, ref.starts)


# --- counts: the closed forms against the lanes' addresses ----------------------------------------------
def make_plan(shape, spt_o, order, num_warps, vec):
    """A blocked-layout plan built as layout.plan builds one (``vec`` divides ``spt_o``)."""
    nd = len(shape)
    spt = tuple(spt_o if d == order[0] else 1 for d in range(nd))
    tpw, wpc = layout.blocked(shape, spt, order, num_warps)
    per = 1
    for d in range(nd):
        tile = spt[d] * tpw[d] * wpc[d]
        per *= spt[d] * max(1, -(-shape[d] // tile))
    return layout.Plan(tuple(shape), spt, tpw, wpc, tuple(order), vec, per // vec * num_warps)


def random_plan(rng, shape, width):
    order = tuple(range(len(shape)))[::-1] if rng.random() < 0.6 else tuple(range(len(shape)))
    spt = int(min(2 ** rng.integers(0, 4), shape[order[0]]))
    vec = int(2 ** rng.integers(0, int(np.log2(spt)) + 1))
    while vec * width > 16:
        vec //= 2
    return make_plan(shape, spt, order, int(2 ** rng.integers(0, 4)), vec)


def lanes_count(view, width, copies, p, store):
    """The reference: the view as built offsets, every lane's address counted through kernellab.access."""
    return count_planned(View.of(*view.lanes()), width, copies, p, store, closed=False)


@pytest.mark.parametrize("seed", SEEDS)
def test_closed_form_counts_equal_the_lanes_addresses(seed):
    rng = np.random.default_rng(100 + seed)
    tiles = 0  # tiles of lines whose layout runs along their lines: counted in closed form
    for _ in range(200):
        rows = int(rng.integers(1, 5))
        view, _ = random_view(rng, rows, counted=True)
        width = int(rng.choice([1, 2, 4, 8]))
        p = random_plan(rng, view.shape, width)
        lines = view.lines()
        tiles += lines is not None and view.starts() is None and layout.line_runs(p, lines[0]) is not None
        copies = int(rng.integers(1, 3))
        for store in (False, True):
            want = lanes_count(view, width, copies, p, store)
            assert count_planned(view, width, copies, p, store) == want, (view.shape, p)
            assert count_planned(view, width, copies, p, store) == want  # again: what its base kept
            per_line = 128 // width
            moved = view.moved(per_line * int(rng.integers(1, 4)))  # whole 128-byte lines further
            assert count_planned(moved, width, copies, p, store) == lanes_count(moved, width, copies, p, store)
            part = view.moved(int(rng.integers(1, per_line)))  # part of a line further: not what its base kept
            assert count_planned(part, width, copies, p, store) == lanes_count(part, width, copies, p, store)
    assert tiles >= 3, tiles


def test_tile_counts_by_hand():
    # a 64×32 fp16 tile of a row-major 1024-wide matrix, 8 a lane: instruction = 8 rows × 64 bytes;
    # each row's 64 bytes from a 64-byte boundary are 2 sectors of its own line: 16 sectors, 8 lines;
    # 512 distinct bytes an instruction: 16 ideal sectors
    p = layout.Plan((64, 32), (1, 8), (8, 4), (4, 1), (1, 0), 8, 8)

    def tile(s):
        lines = Lines(1, s, 32, int(s.min()), int(s.max()))
        return View(Base(s[:, :, None] + np.arange(32), lines=lines))

    s = (np.arange(64) * 1024)[None]
    assert count_planned(tile(s), 2, 1, p, False) == (8, 8, 8 * 16, 8 * 8, 8 * 16)
    # shifted by 16 elements (32 bytes): still 2 sectors a row; by 8 (16 bytes): 3 sectors a row
    assert count_planned(tile(s + 16), 2, 1, p, False)[2] == 8 * 16
    assert count_planned(tile(s + 8), 2, 1, p, False)[2] == 8 * 24
    # rows 32 elements apart (the tile is one run of 4 KB): 4 sectors per 2 rows, 1 line per 2 rows
    assert count_planned(tile((np.arange(64) * 32)[None]), 2, 1, p, False) == (8, 8, 8 * 16, 8 * 4, 8 * 16)


def test_tile_counts_remembered_per_mask():
    # the 64×32 fp16 tile of test_tile_counts_by_hand under three masks, then again: the tile's counts are
    # remembered by its line starts and its mask, so each equals its own lanes' addresses, never another mask's
    p = layout.Plan((64, 32), (1, 8), (8, 4), (4, 1), (1, 0), 8, 8)
    s = (np.arange(64) * 1024)[None]
    lines = Lines(1, s, 32, int(s.min()), int(s.max()))
    rows = np.arange(64)[:, None] + np.zeros(32, int)
    masks = [rows < 16, rows >= 40, np.ones((64, 32), bool)]
    first = []
    for keep in masks + masks:
        view = View(Base(s[:, :, None] + np.arange(32), lines=lines), keep=keep[None])
        got = count_planned(view, 2, 1, p, False)
        assert got == lanes_count(view, 2, 1, p, False)
        first.append(got)
    # rows 0–15: 2 of the 8 instructions (8 rows each), 2 sectors a row: 32 sectors; rows 40–63: 3 of them,
    # 48 sectors; every row: 8 instructions, 128 sectors (test_tile_counts_by_hand)
    assert [c[2] for c in first[:3]] == [32, 48, 128] and first[:3] == first[3:]


def test_line_runs_hold_exactly_the_lanes():
    rng = np.random.default_rng(5)
    found = 0
    for _ in range(300):
        shape = (int(2 ** rng.integers(0, 8)), int(2 ** rng.integers(0, 8)))
        p = random_plan(rng, shape, 1)
        first, owner = layout.lanes(p)
        d1 = p.shape[1]
        for axis in (0, 1):
            runs = layout.line_runs(p, axis)
            if runs is None:
                continue
            found += 1
            assert owner is None and (p.vec == 1 or p.order[0] == axis)
            for i in range(first.shape[0]):  # every lane once, at the position its run says
                assert sorted(runs.members[i].reshape(-1).tolist()) == sorted(first[i].tolist())
                r, c = runs.members[i] // d1, runs.members[i] % d1
                line, pos = (r, c) if axis == 1 else (c, r)
                assert (line == runs.line[i][:, None]).all()
                assert (pos == runs.first[i][:, None] + np.arange(runs.K) * p.vec).all()
    assert found > 100


def test_prefix_counts_by_hand():
    # 100 fp16 from byte 64: warp 0 = bytes 64–127 (2 sectors, line 0), warp 1 = 128–191 (2 sectors,
    # line 1), warp 2 = 192–255 (2, line 1), warp 3 = 4 lanes, bytes 256–263 (1 sector, line 2):
    # 4 requests, 7 sectors, 4 lines (warp 2 shares line 1 with warp 1 but each request counts its own), 200 B
    assert prefix_counts([64], [100], 2) == (4, 7, 4, 200)
    # 33 floats from byte 4: warp 0 spans bytes 4–131 (5 sectors, 2 lines), warp 1 one float at 132 (1, 1)
    assert prefix_counts([4], [33], 4) == (2, 6, 3, 132)
    assert prefix_counts([0, 128], [0, 0], 4) == (0, 0, 0, 0)  # no active lane: nothing


@pytest.mark.parametrize("seed", range(4))
def test_prefix_counts_equal_the_record(seed):
    rng = np.random.default_rng(seed)
    for _ in range(80):
        width, lanes, rows = int(rng.choice([1, 2, 4, 8, 16])), int(rng.integers(1, 600)), int(rng.integers(1, 6))
        starts = rng.integers(0, 5000, rows) * width
        active = rng.integers(0, lanes + 1, rows) if rng.random() < 0.7 else np.full(rows, lanes)
        pad = -(-lanes // 32) * 32
        lane = np.arange(pad)
        acc = Access(np.concatenate([s + lane * width for s in starts]).reshape(-1, 32),
                     np.concatenate([lane < k for k in active]).reshape(-1, 32), width, known_aligned=True)
        assert prefix_counts(starts, active, width) == (requests(acc), sectors(acc), lines(acc), bytes_requested(acc))


# --- the access: load and store through the view against the same access as built offsets -------------------
def _access(op, view, flat, rows, value, how):
    prog = Program("k", (rows, 1, 1), pid_table((rows, 1, 1)), Tally(), {}, touched=Touched())
    try:
        if op == "load":
            out = memory.load(prog, flat, view, other=-1, how=how)
            out = out[0]() if isinstance(out, tuple) else out
        else:
            memory.store(prog, flat, view, value, how=how)
            out = flat
    except OutOfBoundsError as exc:
        return "error", str(exc)
    return out, prog.tally.result(), prog.touched.sectors()


@pytest.mark.parametrize("seed", SEEDS)
def test_the_access_equals_the_access_of_its_lanes(seed):
    rng = np.random.default_rng(400 + seed)
    for _ in range(120):
        rows = int(rng.integers(1, 5))
        view, _ = random_view(rng, rows)
        offs, mask = view.lanes()
        hi = int(offs[mask].max()) if mask is not None and mask.any() else int(offs.max())
        size = max(1, hi + 1 + int(rng.integers(-3, 40)))  # the array may end before the last kept lane
        dtype = np.dtype(rng.choice(["float32", "float16", "int8", "float64"]))
        facts = (A.unknown(len(view.shape)), None if view.keep is None else A.unknown(len(view.shape)), view.shape)
        how = None if rng.random() < 0.4 else facts
        op = "load" if rng.random() < 0.5 else "store"
        value = rng.integers(0, 100, (view.rows, *view.shape)).astype(dtype)
        got = []
        for v in (view, View.of(offs, mask)):
            flat = (np.arange(size) % 101).astype(dtype)
            got.append(_access(op, v, flat, view.rows, value, how))
        a, b = got
        if isinstance(a[0], str) or isinstance(b[0], str):
            assert a == b
            continue
        assert np.array_equal(a[0], b[0]) and a[0].dtype == b[0].dtype
        assert a[1] == b[1] and a[1].dram_sectors == b[1].dram_sectors and a[2] == b[2]


def test_mark_lines_equals_mark():
    rng = np.random.default_rng(7)
    for width in (1, 2, 4, 8):
        x = np.zeros(5000, np.dtype(f"i{width}"))
        for n in (1, 3, 16, 17, 32, 64):
            at = int(rng.integers(0, 32 // width))
            for s in (rng.integers(0, 5000 - n, (3, 11)),  # anywhere, and every line at one byte of a sector
                      rng.integers(0, (5000 - n - at) * width // 32, (3, 11)) * (32 // width) + at):
                a, b = Touched(), Touched()
                a.mark_lines("x", x, s, n)
                b.mark("x", x, s[..., None] + np.arange(n), None)
                assert a.sectors() == b.sectors()


def test_flat_view_of_a_permuted_block_with_an_inserted_axis():
    # arange(24) as 2×3×4, axes 1 and 2 swapped, then a size-1 axis inserted: strides (96, 0, 8, 32) bytes. The
    # size-1 axis's stride 0 says nothing about memory; the block is still dense, so element (i, 0, j, k) is
    # memory offset 12i + j + 4k and the flat view is the base's memory in order, 0 … 23.
    base = np.arange(24.0)
    block = base.reshape(2, 3, 4).transpose(0, 2, 1)[:, None]
    flat = memory.flat_view(block)
    assert np.shares_memory(flat, base) and np.array_equal(flat, base)
    for i, j, k in np.ndindex(2, 4, 3):
        assert block[i, 0, j, k] == flat[12 * i + j + 4 * k]
    with pytest.raises(LaunchError, match="not contiguous"):  # every other element: not dense
        memory.flat_view(base[::2].reshape(3, 4)[:, None])


def test_a_strided_tile_with_a_negative_stride_has_its_extremes_from_its_last_line():
    # two programs starting at 100 and 40, 3 lines of 4 elements, each line 10 elements before the one above:
    # lines start at 100, 90, 80 and 40, 30, 20, so the starts span 20 … 100 and the lanes 20 … 100 + 3 = 103
    base = Base.strided(np.array([100, 40]), (3, 4), (-10, 1))
    assert (base.lines.lo, base.lines.hi, base.starts) == (20, 100, None)  # rows 10 apart, not 4: no row starts
    assert base.extremes() == (20, 103) == (int(base.lanes.min()), int(base.lanes.max()))


def test_a_prefix_mask_is_dropped_only_when_every_program_keeps_every_lane():
    base = Base.strided(np.array([0]), (16,), (1,))  # 16 lanes a program
    # programs keeping 16 and 3 lanes keep the mask (the second's 13 last lanes are off); 16 and 16 keep every lane
    assert View(base).masked(np.array([16, 3])).keep.tolist() == [16, 3]
    assert View(base).masked(np.array([16, 16])).keep is None
    # one prefix for every program: 16 of 16 is every lane, 15 of 16 is not
    assert View(base).masked(np.array([16])).keep is None and View(base).masked(np.array([15])).keep.tolist() == [15]
