"""Two-dimensional tiles kept as lines (kernellab.triton.executor.view) give exactly the reference path's numbers.

Three layers, each against the one it replaces: ``layout.line_runs`` against ``layout.lanes`` (the runs
hold exactly the lanes' elements); the tile form of ``count_planned`` against the lanes' addresses
counted one by one (``closed=False``) on random tiles — random and transposed strides,
masked edges, prime sizes, blocks one element off a power of two, int64 offsets past 2^32; and whole
kernels (the grouped matmul, FlashAttention, a transposed copy) with the tile path on and off: the
same values, counts, DRAM sectors and errors.
"""

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import OutOfBoundsError
from kernellab.triton.compiler import layout
from kernellab.triton.executor import view as V
from kernellab.triton.executor.counts import Touched, count_planned
from kernellab.triton.executor.numerics import _widen
from kernellab.triton.executor.policy import Policy, using
from tests import triton_kernels as K
from tests.reference import attention_float64

RNG_SEEDS = range(6)


def make_plan(shape, spt_o, order, num_warps, vec):
    """A blocked-layout plan built as layout.plan builds one (``vec`` divides ``spt_o``)."""
    spt = tuple(spt_o if d == order[0] else 1 for d in range(2))
    tpw, wpc = layout.blocked(shape, spt, order, num_warps)
    per = 1
    for d in range(2):
        tile = spt[d] * tpw[d] * wpc[d]
        per *= spt[d] * max(1, -(-shape[d] // tile))
    return layout.Plan(tuple(shape), spt, tpw, wpc, tuple(order), vec, per // vec * num_warps)


def random_plans(rng, n):
    for _ in range(n):
        shape = (int(2 ** rng.integers(0, 8)), int(2 ** rng.integers(0, 8)))
        order = (1, 0) if rng.random() < 0.6 else (0, 1)
        spt = int(min(2 ** rng.integers(0, 4), shape[order[0]]))
        vec = int(2 ** rng.integers(0, int(np.log2(spt)) + 1))
        yield make_plan(shape, spt, order, int(2 ** rng.integers(0, 4)), vec)


# --- line_runs against lanes --------------------------------------------------------------------
@pytest.mark.parametrize("seed", RNG_SEEDS)
def test_line_runs_hold_exactly_the_lanes(seed):
    rng = np.random.default_rng(seed)
    found = 0
    for p in random_plans(rng, 60):
        first, owner = layout.lanes(p)
        d0, d1 = p.shape
        for axis in (0, 1):
            runs = layout.line_runs(p, axis)
            if runs is None:
                continue
            found += 1
            assert owner is None and (p.vec == 1 or p.order[0] == axis)
            # every lane once, at the position its run says
            assert sorted(runs.members.reshape(len(first), -1)[0].tolist()) == sorted(first[0].tolist())
            for i in range(first.shape[0]):
                assert sorted(runs.members[i].reshape(-1).tolist()) == sorted(first[i].tolist())
                r, c = runs.members[i] // d1, runs.members[i] % d1
                line, pos = (r, c) if axis == 1 else (c, r)
                assert (line == runs.line[i][:, None]).all()
                assert (pos == runs.first[i][:, None] + np.arange(runs.K) * p.vec).all()
    assert found > 20  # the runs exist for most blocked layouts


def test_line_runs_by_hand():
    # fp16 64×32, 8 elements a lane (16 bytes), lanes 4 along a row: each instruction 8 rows × 4 lanes
    p = layout.Plan((64, 32), (1, 8), (8, 4), (4, 1), (1, 0), 8, 8)
    runs = layout.line_runs(p, 1)
    assert runs.K == 4 and runs.line.shape == (8, 8)
    assert runs.line[1].tolist() == list(range(32, 40))  # instruction 1 is warp 1's first: rows 32–39
    assert layout.line_runs(p, 0) is None  # 8 elements a lane along axis 1 cannot lie on column lines


# --- the tile form of count_planned against the lanes' addresses -------------------------------------
def built(axis, s, shape):
    """The offsets of a tile of lines from ``s`` built by broadcasting, ``(rows, *shape)``."""
    i = np.arange(shape[0])[:, None]
    j = np.arange(shape[1])[None, :]
    return s[:, i + 0 * j] + j if axis == 1 else s[:, j + 0 * i] + i


def tile_view(axis, s, shape, mask=None):
    """A view whose base is known as the lines from ``s`` (its offsets built only if asked for)."""
    lines = V.Lines(axis, s, shape[axis], int(s.min()), int(s.max()))
    base = V.Base(make=lambda: built(axis, s, shape), rows=s.shape[0], shape=shape, lines=lines)
    return V.View(base, 0, None if mask is None else mask.reshape(s.shape[0], *shape))


def reference(view, width, copies, p, store):
    """The lanes' addresses counted one by one: the view as built offsets, no closed form."""
    offs, mask = view.lanes()
    return count_planned(V.View.of(offs, mask), width, copies, p, store, closed=False)


def random_lines(rng, rows, n_lines, vec, big):
    """Line starts (multiples of ``vec``): strided, shuffled, repeated or near 2^40."""
    kind = rng.integers(0, 4)
    base = int(rng.integers(0, 1000)) * vec + (2**40 if big else 0)
    if kind == 0:  # strided lines, a random (prime, or block ± 1) stride per program
        stride = int(rng.choice([7, 13, 31, 33, 63, 65, 127, 1031])) * vec
        return base + np.arange(n_lines) * stride + rng.integers(0, 50, (rows, 1)) * vec
    if kind == 1:  # lines in any order, some sharing sectors
        return base + rng.integers(0, 64, (rows, n_lines)) * vec
    if kind == 2:  # every line the same (a broadcast row)
        return np.full((rows, n_lines), base)
    return base + np.arange(n_lines)[None, :] * vec * int(rng.integers(1, 5))  # lines closer than a line apart


def random_mask(rng, rows, shape):
    kind = rng.integers(0, 5)
    if kind == 0:
        return None
    i, j = np.arange(shape[0])[:, None], np.arange(shape[1])[None, :]
    if kind == 1:  # masked edge rows: offs_m[:, None] < M
        m = i < rng.integers(0, shape[0] + 1, (rows, 1, 1))
    elif kind == 2:  # masked edge columns: offs_k[None, :] < K - k·BLOCK_K
        m = j < rng.integers(0, shape[1] + 1, (rows, 1, 1))
    elif kind == 3:  # both edges: (offs_m[:, None] < M) & (offs_n[None, :] < N)
        m = (i < rng.integers(0, shape[0] + 1, (rows, 1, 1))) & (j < rng.integers(0, shape[1] + 1, (rows, 1, 1)))
    else:  # anything
        m = rng.random((rows, *shape)) < 0.7
    return np.broadcast_to(m, (rows, *shape)).reshape(rows, -1)


@pytest.mark.parametrize("seed", RNG_SEEDS)
def test_tile_counts_equal_the_lanes_addresses(seed):
    rng = np.random.default_rng(100 + seed)
    closed = 0
    for p in random_plans(rng, 80):
        for axis in (0, 1):
            rows = int(rng.integers(1, 4))
            width = int(rng.choice([1, 2, 4, 8]))
            vec = p.vec if (p.vec * width <= 16) else 1
            if vec != p.vec:
                continue
            n_lines = p.shape[1 - axis]
            s = random_lines(rng, rows, n_lines, vec, big=rng.random() < 0.3).astype(np.int64)
            s = np.broadcast_to(s, (rows, n_lines)).copy()
            mask = random_mask(rng, rows, p.shape)
            view, copies = tile_view(axis, s, p.shape, mask), int(rng.integers(1, 3))
            for store in (False, True):
                got = count_planned(view, width, copies, p, store)
                assert got == count_planned(view, width, copies, p, store, closed=False) == reference(
                    view, width, copies, p, store), (p, axis, mask is None)
                closed += layout.line_runs(p, axis) is not None
    assert closed > 50


def test_tile_counts_by_hand():
    # a 64×32 fp16 tile of a row-major 1024-wide matrix, 8 a lane: instruction = 8 rows × 64 bytes;
    # each row's 64 bytes from a 64-byte boundary are 2 sectors of its own line: 16 sectors, 8 lines;
    # 512 distinct bytes an instruction: 16 ideal sectors
    p = layout.Plan((64, 32), (1, 8), (8, 4), (4, 1), (1, 0), 8, 8)
    s = (np.arange(64) * 1024)[None]
    assert count_planned(tile_view(1, s, (64, 32)), 2, 1, p, False) == (8, 8, 8 * 16, 8 * 8, 8 * 16)
    # shifted by 16 elements (32 bytes): still 2 sectors a row; by 8 (16 bytes): 3 sectors a row
    assert count_planned(tile_view(1, s + 16, (64, 32)), 2, 1, p, False)[2] == 8 * 16
    assert count_planned(tile_view(1, s + 8, (64, 32)), 2, 1, p, False)[2] == 8 * 24
    # rows 32 elements apart (the tile is one run of 4 KB): 4 sectors per 2 rows, 1 line per 2 rows
    s = (np.arange(64) * 32)[None]
    assert count_planned(tile_view(1, s, (64, 32)), 2, 1, p, False) == (8, 8, 8 * 16, 8 * 4, 8 * 16)


def test_mark_lines_equals_mark():
    rng = np.random.default_rng(7)
    for width in (1, 2, 4, 8):
        x = np.zeros(5000, np.dtype(f"i{width}"))
        for n in (1, 3, 16, 17, 32, 64):
            at = int(rng.integers(0, 32 // width)) if width < 32 else 0
            for s in (rng.integers(0, 5000 - n, (3, 11)),  # anywhere, and every line at one byte of a sector
                      rng.integers(0, (5000 - n - at) * width // 32, (3, 11)) * (32 // width) + at):
                a, b = Touched(), Touched()
                a.mark_lines("x", x, s, n)
                b.mark("x", x, s[..., None] + np.arange(n), None)
                assert a.sectors() == b.sectors()


def test_widen_is_astype_bit_for_bit():
    h = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    assert np.array_equal(_widen(h).view(np.uint32), h.astype(np.float32).view(np.uint32))
    t = h.reshape(256, 256).T  # not contiguous
    assert np.array_equal(_widen(t).view(np.uint32), t.astype(np.float32).view(np.uint32))


# --- whole kernels, the tile path on and off --------------------------------------------------------
def reference_path():
    return using(Policy.reference())


def both(launch, *arrays):
    out = []
    for on in (True, False):
        copies = [a.copy(order="K") for a in arrays]
        try:
            if on:
                result = launch(*copies)
            else:
                with reference_path():
                    result = launch(*copies)
        except OutOfBoundsError as exc:
            result = ("error", str(exc))
        out.append((result, copies))
    (fast, fa), (ref, ra) = out
    assert fast == ref
    if not isinstance(fast, tuple):
        assert fast.dram_sectors == ref.dram_sectors
    for a, b in zip(fa, ra):
        assert np.array_equal(a, b, equal_nan=True)
    return fast, fa


def matmul(a, b, c, M, N, Kd, sa, sb, sc, bm=64, bn=64, bk=32):
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
    return K.matmul_kernel[grid](a, b, c, M, N, Kd, *sa, *sb, *sc, BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn,
                                 BLOCK_SIZE_K=bk, GROUP_SIZE_M=8, ACTIVATION="")


@pytest.mark.parametrize("M,N,Kd", [(128, 128, 64), (131, 67, 97), (64, 192, 33), (257, 65, 31)])
@pytest.mark.parametrize("layout_", ["rows", "a columns", "b columns"])
def test_grouped_matmul_same_both_ways(M, N, Kd, layout_):
    rng = np.random.default_rng(M * N)
    a = rng.standard_normal((M, Kd)).astype(np.float16)
    b = rng.standard_normal((Kd, N)).astype(np.float16)
    if layout_ == "a columns":
        a = np.asfortranarray(a)
    if layout_ == "b columns":
        b = np.asfortranarray(b)
    sa = (1, M) if a.flags.f_contiguous and not a.flags.c_contiguous else (Kd, 1)
    sb = (1, Kd) if b.flags.f_contiguous and not b.flags.c_contiguous else (N, 1)
    c = np.zeros((M, N), np.float16)
    cnt, (_, _, out) = both(lambda a, b, c: matmul(a, b, c, M, N, Kd, sa, sb, (N, 1)), a, b, c)
    assert cnt.load_bytes >= (M * Kd + Kd * N) * 2
    ref = a.astype(np.float64) @ b.astype(np.float64)
    assert np.abs(out - ref).max() <= 2e-2 * np.abs(ref).max()


@pytest.mark.parametrize("heads,n", [(2, 128), (1, 200)])
def test_flash_attention_same_both_ways(heads, n):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parents[1] / "benchmarks" / "speed_kernels.py"
    spec = importlib.util.spec_from_file_location("speed_kernels", path)
    ks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ks)
    rng = np.random.default_rng(3)
    q, k, v = (rng.standard_normal((heads, n, 64)).astype(np.float16) for _ in range(3))
    _, (*_, o) = both(lambda q, k, v, o: ks.attention_fwd_kernel[(triton.cdiv(n, 64), heads)](
        q, k, v, o, n, 0.125, HEAD_DIM=64, BLOCK_M=64, BLOCK_N=64), q, k, v, np.zeros_like(q))
    assert np.abs(o - attention_float64(q, k, v, 0.125)).max() < 2e-2


@triton.jit
def tile_copy_kernel(x_ptr, y_ptr, M, N, sxm, sxn, sym, syn, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    x = tl.load(x_ptr + rows[:, None] * sxm + cols[None, :] * sxn)
    tl.store(y_ptr + rows[:, None] * sym + cols[None, :] * syn, x * 2)


@pytest.mark.parametrize("transpose", [False, True])
def test_tile_copy_same_both_ways(transpose):
    x = np.arange(64 * 96, dtype=np.float32).reshape(64, 96)
    y = np.zeros((96, 64) if transpose else (64, 96), np.float32)
    sy = (1, 64) if transpose else (96, 1)
    _, (_, out) = both(lambda x, y: tile_copy_kernel[(4, 3)](x, y, 64, 96, 96, 1, *sy, BM=16, BN=32), x, y)
    assert np.array_equal(out, 2 * (x.T if transpose else x))


def test_out_of_bounds_tile_names_the_same_lane_both_ways():
    x = np.zeros((60, 96), np.float32)  # 4 rows short of the 4th program's block
    y = np.zeros((64, 96), np.float32)
    err, _ = both(lambda x, y: tile_copy_kernel[(4, 3)](x, y, 64, 96, 96, 1, 96, 1, BM=16, BN=32), x, y)
    assert err[0] == "error" and "x_ptr" in err[1]


def test_overlapping_tile_store_takes_the_reference_path():
    # rows 8 elements apart, 32 wide: lines overlap, so the write order is the reference path's
    x = np.arange(16 * 32, dtype=np.float32).reshape(16, 32)
    y = np.zeros(16 * 8 + 32, np.float32)
    _, (_, out) = both(lambda x, y: tile_copy_kernel[(1, 1)](x, y, 16, 32, 32, 1, 8, 1, BM=16, BN=32), x, y)
    assert out[15 * 8:15 * 8 + 32].tolist() == (2 * x[15]).tolist()  # the last row written last


def test_lines_true_same_rows_both_ways():
    # lines=True charges each DRAM sector to the line that touches it first: the tile path's marks too
    rng = np.random.default_rng(11)
    M, N, Kd = 131, 67, 97
    a = rng.standard_normal((M, Kd)).astype(np.float16)
    b = rng.standard_normal((Kd, N)).astype(np.float16)
    rows = []
    for on in (True, False):
        c = np.zeros((M, N), np.float16)
        with using(Policy() if on else Policy.reference()):
            grid = (triton.cdiv(M, 64) * triton.cdiv(N, 64),)
            cnt = K.matmul_kernel[grid](a, b, c, M, N, Kd, Kd, 1, N, 1, N, 1, BLOCK_SIZE_M=64, BLOCK_SIZE_N=64,
                                        BLOCK_SIZE_K=32, GROUP_SIZE_M=8, ACTIVATION="", lines=True)
        rows.append({k: (v, v.dram_sectors) for k, v in cnt.by_line.items()})
    assert rows[0] == rows[1]
    assert sum(sum(v[1].values()) for v in rows[0].values()) > 0


@triton.jit
def where_dot_kernel(x_ptr, q_ptr, out_ptr, dots_ptr, n, KEEP: tl.constexpr):
    i = tl.arange(0, 32)
    x = tl.load(x_ptr + i[:, None] * 32 + i[None, :])
    keep = (i < n) if KEEP else (i > n)
    tl.store(out_ptr + i[:, None] * 32 + i[None, :], tl.where(keep[None, :], x, 7))  # int 7: promoted to x's type
    q = tl.load(q_ptr + i[:, None] * 32 + i[None, :])
    d = tl.dot(q, q) + tl.dot(q, q)  # q widened once, used twice
    tl.store(dots_ptr + i[:, None] * 32 + i[None, :], d)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int32])
@pytest.mark.parametrize("n", [0, 32, 17])  # a condition all false, all true (the shortcuts), mixed
def test_where_with_a_small_condition_and_reused_dot_operand(dtype, n):
    x = (np.arange(32 * 32) % 251 - 100).astype(dtype).reshape(32, 32)
    q = (np.arange(32 * 32) % 13 - 6).astype(np.float16).reshape(32, 32) / 4
    for keep in (True, False):
        out, dots = np.zeros_like(x), np.zeros((32, 32), np.float32)
        where_dot_kernel[(1,)](x, q, out, dots, n, KEEP=keep)
        cond = (np.arange(32) < n) if keep else (np.arange(32) > n)
        expect = np.where(cond[None, :], x, dtype(7))
        assert out.dtype == x.dtype and np.array_equal(out, expect)
        q32 = q.astype(np.float32)
        assert np.array_equal(dots, q32 @ q32 + q32 @ q32)


@pytest.mark.parametrize("seed", RNG_SEEDS)
def test_lines_of_an_outer_sum_equal_the_lines_of_the_sum(seed):
    from kernellab.triton.executor import dtypes as T

    rng = np.random.default_rng(200 + seed)
    for _ in range(40):
        d0, d1 = int(rng.integers(2, 9)), int(rng.integers(2, 9))
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
        known, lines = V.lines_of_outer(row, col, T.int32)  # either order
        with np.errstate(over="ignore"):
            built = (col + row).astype(np.int64)
        if not known:
            assert big
            continue
        ref = V.lines_of(np.broadcast_to(built, (max(r0, r1), d0, d1)))
        assert (lines is None) == (ref is None)
        if lines is not None:
            assert (lines.axis, lines.n, lines.lo, lines.hi) == (ref.axis, ref.n, ref.lo, ref.hi)
            assert np.array_equal(lines.starts, ref.starts)
