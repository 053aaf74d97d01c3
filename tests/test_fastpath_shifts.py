"""The record of a moved access (``kernellab.simt.shifts``) gives exactly the reference path's values, counts and errors.

A site's access that is its last fully counted one moved by ``d`` elements on the same lanes is counted
from it (``Block._shifted_access``). Each test runs a kernel with the fast paths and with every one of
them switched off (``reference_paths``), and compares values, every counter (per line too), the DRAM
sectors, and the errors and hazards raised or collected, message for message.
"""

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import kernellab.simt.block as block_mod
from kernellab import MisalignedError, OutOfBoundsError, RaceError, allow_float64
from kernellab.access import Access
from kernellab.simt import launch
from kernellab.simt.shifts import ShiftRef

sys.path.insert(0, str(Path(__file__).parent))
from test_fastpath_simt import reference_paths, same_counts

DTYPES = (np.int8, np.float16, np.float32, np.float64)


def both_ways(kernel, grid, block, make_args, **kw):
    """Run ``kernel`` with the fast paths and with the reference paths: (arrays after, counts or error text, hazards)."""
    out = []
    for fast in (True, False):
        with pytest.MonkeyPatch.context() as m:
            if not fast:
                reference_paths(m)
            args = make_args()
            hazards = [] if kw.get("collect") else None
            try:
                with allow_float64():  # float64 is meant: 8-byte elements
                    c = launch(kernel, grid, block, args=args, lines=True, hazards=hazards,
                               **{k: v for k, v in kw.items() if k != "collect"})
            except (OutOfBoundsError, MisalignedError, RaceError) as exc:
                c = f"{type(exc).__name__}: {exc}"
            arrays = [a.copy() for a in args if isinstance(a, np.ndarray)]
            out.append((arrays, c, [str(h) for h in hazards or []]))
    (fa, fc, fh), (ra, rc, rh) = out
    for x, y in zip(fa, ra):
        assert np.array_equal(x, y, equal_nan=True)
    if isinstance(rc, str) or isinstance(fc, str):
        assert fc == rc
    else:
        same_counts(fc, rc)
    assert fh == rh
    return fc


def _moving(cfg):
    """Loads and stores whose index moves by ``step`` elements a pass: global and shared, 1-D or 2-D, vectors."""
    base, step, passes, vec, cols, masked, sh_step = (cfg[k] for k in (
        "base", "step", "passes", "vec", "cols", "masked", "sh_step"))

    def kernel(blk, src, dst, n):
        t = blk.bx * blk.bdx + blk.tx
        sh = blk.shared(512, src.dtype, name="sh")
        idx = base[t % base.size] * vec  # aligned to the vector
        if cols is not None:
            idx = idx[:, None] + np.asarray(cols) * vec
        acc = np.zeros(blk.n_threads, np.float64)
        for p in range(passes):
            with blk.where((t + p) % 3 != 0 if masked == "changing" else t % 5 != 1 if masked == "fixed" else True):
                v = blk.load(src, idx + p * step, vec=vec)
                acc = acc + v.reshape(blk.n_threads, -1).sum(axis=1)
                blk.store(sh, (blk.tx + p * sh_step) % 7 + 7 * p * sh_step, _cast(acc, src.dtype))
                acc = acc + blk.load(sh, blk.tx % 7 + 7 * p * sh_step)
                w = blk.load(sh, (blk.tx % 16) * 2 * vec + p * sh_step * vec, vec=vec)  # shared vectors, moved
                acc = acc + w.reshape(blk.n_threads, -1).sum(axis=1)
            blk.syncthreads()
        with blk.where(t < dst.size):
            blk.store(dst, t, _cast(acc, dst.dtype))
    return kernel


def _cast(acc, dtype):
    """``acc`` in ``dtype``; sums too big for it wrap or become inf alike in both runs (no warning)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return acc.astype(dtype)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
@example(21556)  # fp16, 3 instructions a lane: a gather returned by columns summed to other values (Block._by_column)
def test_random_moving_accesses_equal_the_reference(seed):
    # random dtypes (1–8 bytes), vector widths, index families, masks, moves (in and out of bounds, whole vectors
    # or not), block sizes about a warp; shared stores that race or not
    rng = np.random.default_rng(seed)
    dtype = np.dtype(DTYPES[rng.integers(len(DTYPES))])
    vec = int(rng.choice([v for v in (1, 2, 4) if v * dtype.itemsize <= 16]))
    rows = int(rng.integers(64, 3000))
    n = rows * vec
    kind = rng.integers(3)  # random, affine with a random stride, a broadcast
    base = (rng.integers(0, rows - 4, 64) if kind == 0 else (np.arange(64) * rng.integers(0, 40)) % (rows - 4)
            if kind == 1 else np.full(64, rng.integers(rows - 4)))
    passes = int(rng.integers(1, 9))
    if rng.integers(4):  # mostly in bounds: the first index in the middle half, moved by at most a quarter
        base = rows // 4 + base // 2
        reach = max(1, rows // 4 // passes)
    else:
        reach = 40
    step = int(rng.integers(-reach, reach + 1)) * vec + (int(rng.integers(1, vec)) if vec > 1 and rng.integers(6) == 0
                                                        else 0)
    cfg = {"base": base, "step": step, "passes": passes, "vec": vec,
           "cols": None if rng.integers(2) else sorted(rng.integers(0, 4, int(rng.integers(1, 4))).tolist()),
           "masked": ["no", "fixed", "changing"][rng.integers(3)], "sh_step": int(rng.integers(0, 3))}
    grid, threads = int(rng.integers(1, 5)), int(rng.choice([1, 2, 7, 31, 32, 33, 63, 64, 65, 97, 128]))
    src = (rng.standard_normal(n) * 10).astype(dtype)
    both_ways(_moving(cfg), grid, threads, lambda: (src.copy(), np.zeros(grid * threads, np.float32), n),
              collect=bool(rng.integers(4)), auto_instr=bool(rng.integers(2)))


def test_a_loop_down_a_row_is_counted_from_its_first_pass(monkeypatch):
    # 2 warps, lane l reads float 64·l + i for i < 8 (a row of A each, kernel 1's access): each pass 2 requests,
    # 64 sectors (32 a warp: rows 256 B apart), 64 lines; ideal ⌈32 floats × 4 B / 32⌉ = 4 a warp → 8.
    # DRAM: 8 floats = 32 B = one sector per row, rows from byte 0: 64 sectors in all
    def k(blk, A):
        row = blk.tx * 64
        for i in range(8):
            blk.load(A, row + i)
    built = []
    real = block_mod.Block._record
    monkeypatch.setattr(block_mod.Block, "_record", staticmethod(lambda *a: built.append(1) or real(*a)))
    c = launch(k, 1, 64, args=(np.zeros(64 * 64, np.float32),), auto_instr=False)
    assert (c.gld_instr, c.gld_sectors, c.gld_lines, c.gld_ideal_sectors, c.dram_sectors) == (
        16, 8 * 64, 8 * 64, 8 * 8, {"A": 64})
    assert len(built) == 1


def test_a_move_by_part_of_a_sector_changes_the_sectors():
    # one warp reading 32 consecutive floats from byte 0 (4 sectors, 1 line), then from byte 4·d: d = 0 mod 8
    # stays 4 sectors, any other d straddles 5; lines: 1 when 4·d ≡ 0 (mod 128), else 2
    def k(blk, x):
        for d in (0, 1, 8, 31, 32, 3):
            blk.load(x, blk.tx + d)
    c = both_ways(k, 1, 32, lambda: (np.zeros(128, np.float32),), auto_instr=False)
    assert c.gld_sectors == 4 + 5 + 4 + 5 + 4 + 5
    assert c.gld_lines == 1 + 2 + 2 + 2 + 1 + 2
    assert c.dram_sectors == {"x": 8}  # floats 0–62: bytes 0–251, sectors 0–7


@pytest.mark.parametrize("threads", [1, 2, 31, 32, 33, 127, 1023, 1024])
def test_edge_block_sizes(threads):
    # a loop moving every index one element a pass, in a block of 1, a prime, a warp ± 1 and the largest block
    def k(blk, x, y):
        t = blk.tx
        with blk.where(t < threads - 1 if threads > 1 else True):
            for i in range(5):
                blk.store(y, t + i, blk.load(x, t * 2 + i))
    both_ways(k, 3, threads, lambda: (np.arange(2 * 1024 + 8, dtype=np.float32), np.zeros(1024 + 8, np.float32)),
              auto_instr=False)


def test_a_move_out_of_bounds_raises_the_same_error():
    # lane 31 reads x[31 + 3·i]: i = 11 reaches x[64], past the 64 floats
    def k(blk, x):
        for i in range(20):
            blk.load(x, blk.tx + 3 * i)
    with pytest.raises(OutOfBoundsError, match=r"thread \(31,0,0\).*x\[64\] out of bounds \(size 64\)"):
        launch(k, 1, 32, args=(np.zeros(64, np.float32),))
    both_ways(k, 1, 32, lambda: (np.zeros(64, np.float32),))


def test_a_move_below_zero_raises_the_same_error():
    def k(blk, x):
        for i in range(5):
            blk.load(x, blk.tx - i)
    with pytest.raises(OutOfBoundsError, match=r"thread \(0,0,0\).*x\[-1\]"):
        launch(k, 1, 32, args=(np.zeros(64, np.float32),))
    both_ways(k, 1, 32, lambda: (np.zeros(64, np.float32),))


def test_a_vector_move_by_part_of_a_vector_is_misaligned():
    # float4 loads at 4·tx, then at 4·tx + 2: byte 8 is not a multiple of 16
    def k(blk, x):
        for d in (0, 4, 2):
            blk.load(x, blk.tx * 4 + d, vec=4)
    with pytest.raises(MisalignedError, match=r"x\[2\] misaligned"):
        launch(k, 1, 32, args=(np.zeros(256, np.float32),))
    both_ways(k, 1, 32, lambda: (np.zeros(256, np.float32),))


def test_a_vector_moved_past_the_end_by_part_of_a_vector_raises():
    # float4 loads at 4·tx + d: lane 31 reads elements 124 + d … 127 + d. Of 134 elements, d = 0 and 4 fit
    # (131 < 134); d = 8 reads 132 … 135, of which 134 and 135 are past the end: its first element is inside
    def k(blk, x):
        for d in (0, 4, 8):
            blk.load(x, blk.tx * 4 + d, vec=4)
    with pytest.raises(OutOfBoundsError, match=r"thread \(31,0,0\): load float4 x\[132\] out of bounds \(size 134\)"):
        launch(k, 1, 32, args=(np.zeros(134, np.float32),))
    both_ways(k, 1, 32, lambda: (np.zeros(134, np.float32),))


def test_a_moved_shared_store_still_finds_its_race():
    # pass 0: thread t writes sh[t]; pass 1 (no barrier): thread t writes sh[t + 1], which thread t + 1 wrote
    def k(blk, out):
        sh = blk.shared(64, np.float32, name="sh")
        for i in range(2):
            blk.store(sh, blk.tx + i, 1.0)
    with pytest.raises(RaceError, match=r"write-after-write hazard on shared sh\[1\]"):
        launch(k, 1, 32, args=(np.zeros(1, np.float32),))
    both_ways(k, 1, 32, lambda: (np.zeros(1, np.float32),))
    both_ways(k, 1, 32, lambda: (np.zeros(1, np.float32),), collect=True)


def test_shared_half_words_move_on_the_reference_path():
    # 16-bit shared elements moved by one element (2 bytes) change which lanes share a 4-byte word: such a move
    # is not counted from the first (it takes the reference path); lanes 2 B apart share words pairwise (1
    # wavefront at d = 0); moved by 1 element the same, moved by a word the same again
    def k(blk, out):
        sh = blk.shared(128, np.float16, name="sh")
        for d in (0, 1, 2, 3):
            blk.load(sh, blk.tx + d)
    c = both_ways(k, 1, 32, lambda: (np.zeros(1, np.float32),), auto_instr=False)
    assert c.shld_instr == 4


def test_shift_ref_by_hand():
    # lanes 0–63 at 12·l bytes (stride 3 floats): a warp spans 372 B from byte 0 → sectors 0–11 (12 sectors) and
    # lines 0–2 (3); the second warp from byte 384 (= 12 · 32): sectors 12–23 and lines 3–5. Moved by 20 B:
    # warp 0 spans bytes 20–392 (sectors 0–12: 13; lines 0–3: 4), warp 1 404–776 (sectors 12–24: 13; lines 3–6: 4)
    idx = np.arange(64) * 3
    act = np.ones(64, bool)
    ref = ShiftRef(idx, act, Access.from_lanes(idx * 4, act, 4, aligned=True), itemsize=4, vec=1)
    assert ref.chunks(0) == (24, 6)
    assert ref.chunks(20) == (26, 8) == ref.chunks(20 + 128 * 5)
    assert ref.shift(idx + 5, act) == 5 and ref.shift(idx - 7, act) == -7
    assert ref.shift(idx + 5, ~act) is None and ref.shift(idx * 2, act) is None
    assert (ref.lo, ref.hi) == (0, 63 * 3)  # the active lanes' smallest and largest index, found by shift
    moved = ref.sector_ids(20)
    assert sorted(set(moved.tolist())) == sorted(set(((idx * 4 + 20) // 32).tolist()))
    assert ref.sector_ids(20) is None  # marked already


def test_a_partial_move_is_not_a_move():
    # pass i: lanes 0–15 move by i, lanes 16–31 stay (the difference is i, then 0: its first lane's is its largest)
    def k(blk, x):
        for i in range(4):
            blk.load(x, blk.tx + 37 * i * (blk.tx < 16))
    c = both_ways(k, 1, 32, lambda: (np.zeros(256, np.float32),), auto_instr=False)
    # i = 0: floats 0–31 (4 sectors); i ≥ 1: floats 37i … 37i+15 (bytes 148i …, 2 or 3 sectors) and 16–31 (2)
    assert c.gld_sectors == sum(len({(4 * e) // 32 for e in [lane + 37 * i * (lane < 16) for lane in range(32)]})
                                for i in range(4))
    idx, act = np.arange(32), np.ones(32, bool)
    ref = ShiftRef(idx, act, Access.from_lanes(idx * 4, act, 4, aligned=True), itemsize=4, vec=1)
    assert ref.shift(idx + 5 * (idx < 16), act) is None and ref.shift(idx - 5 * (idx < 16), act) is None


def test_a_shared_move_by_half_a_word_changes_the_wavefronts():
    # 16-bit shared elements at bytes 0 and 2 (word 0, bank 0), 128 (word 32, bank 0), 132 and 260 (words 33 and
    # 65, bank 1); every other lane at byte 0: banks 0 and 1 serve 2 words each → 2 wavefronts. Moved by one
    # element (2 B), the lane at byte 2 moves to byte 4 (word 1, bank 1): bank 1 serves 3 words → 3 wavefronts.
    # A move by half a word is not counted from the first access: it takes the reference path
    elems = np.array([0, 1, 64, 66, 130] + [0] * 27)

    def k(blk, out):
        sh = blk.shared(256, np.float16, name="sh")
        for d in (0, 1):
            blk.load(sh, elems + d)
    c = both_ways(k, 1, 32, lambda: (np.zeros(1, np.float32),), auto_instr=False)
    assert (c.shld_instr, c.shld_wavefronts) == (2, 2 + 3)


def test_a_writable_mask_is_compared_by_content():
    # a mask the caller may change is copied, never kept: changed after a move, the next access is not a move
    idx, act = np.arange(32), np.ones(32, bool)
    ref = ShiftRef(idx, act, Access.from_lanes(idx * 4, act, 4, aligned=True), itemsize=4, vec=1)
    act[3] = False
    assert ref.shift(idx + 1, act) is None
    act[3] = True
    assert ref.shift(idx + 1, act) == 1
    act[3] = False
    assert ref.shift(idx + 1, act) is None


def test_block_masks_are_read_only():
    # a moved access finds its mask again by identity: the masks a Block hands out cannot change in place
    seen = []

    def k(blk):
        with blk.where(blk.tx < 5):
            seen.append(blk.active.flags.writeable)
        seen.append(blk.active.flags.writeable)
    launch(k, 1, 32)
    assert seen == [False, False]


@pytest.mark.parametrize("shape", [(1, 1, 1), (31, 33, 17), (33, 31, 2), (97, 1, 65), (1, 97, 63), (65, 63, 33)])
@pytest.mark.parametrize("number", [1, 2])
def test_sgemm_kernels_at_edge_shapes_equal_the_reference(number, shape, monkeypatch):
    # kernels 1 and 2 take any shape: one element, primes, a warp or a block ± 1, the partial blocks masked
    from kernellab import KERNELS, run_kernel

    M, N, K = shape
    rng = np.random.default_rng(M * 10000 + N * 100 + K)
    A = rng.standard_normal((M, K)).astype(np.float32)
    B = rng.standard_normal((K, N)).astype(np.float32)
    fast_C, fast = run_kernel(KERNELS[number - 1], A, B, lines=True)
    with monkeypatch.context() as m:
        reference_paths(m)
        ref_C, ref = run_kernel(KERNELS[number - 1], A, B, lines=True)
    assert np.array_equal(fast_C, ref_C)
    np.testing.assert_allclose(fast_C, A.astype(np.float64) @ B, rtol=1e-4, atol=1e-4)
    same_counts(fast, ref)


@pytest.mark.parametrize("space", ["global", "shared"])
def test_loads_of_lanes_by_instructions_repeated_and_moved(space):
    # 2 blocks of 64 lanes, each loading 5 instructions' worth (lanes × 5) at the same index, then moved by 3 and
    # by 7 elements, then the same again: every value equals numpy's gather, in fast and reference paths alike
    cols = np.array([0, 64, 128, 192, 256])
    got = []

    def k(blk, x):
        src = x
        if space == "shared":
            src = blk.shared(512, np.float32, name="sh")
            blk.store(src, blk.tx, blk.load(x, blk.bx * 64 + blk.tx))
            blk.store(src, blk.tx + 64, blk.load(x, blk.bx * 64 + blk.tx + 64))
            blk.syncthreads()
        base = blk.tx[:, None] + cols
        for d in (0, 0, 3, 7, 3, 0):
            v = blk.load(src, base + d)
            got.append((d, np.array(v)))

    def make():
        return (np.arange(512, dtype=np.float32) * 1.5,)
    both_ways(k, 2, 64, make, auto_instr=False)
    x = make()[0]
    lanes = np.arange(128) % 64
    for d, v in got:
        if space == "global":
            want = x[lanes[:, None] + cols + d]
        else:  # shared element e of block b holds x[64b + e] for e < 128, NaN (never written) beyond
            e = lanes[:, None] + cols + d
            b = (np.arange(128) // 64)[:, None]
            want = np.where(e < 128, x[np.minimum(64 * b + e, 511)], np.nan)
        assert np.array_equal(v, want, equal_nan=True), d


def test_a_site_that_keeps_missing_stops_trying_and_stays_exact():
    # 40 passes whose index is never a move of the one before (lane l reads (l·p) mod 97), then 10 moves at another
    # site: the first site gives up after 32 misses running, the second counts 9 moves from its first (no miss);
    # every count equals the reference path's
    seen = []

    def k(blk, x):
        for p in range(1, 41):
            blk.load(x, blk.tx * p % 97)
        for d in range(10):
            blk.load(x, blk.tx + d)
        seen.append([(ref.misses, ref.first) for ref in blk._shifts.values()])
    c = both_ways(k, 1, 32, lambda: (np.zeros(97, np.float32),), auto_instr=False)
    assert c.gld_instr == 50
    (misses, first), (moved_misses, moved_first) = seen[0]  # the fast run's (the reference path never tries)
    assert misses >= block_mod.Block._MISSES_BEFORE_GIVING_UP and first == 0  # lane 0 reads 0 every pass
    assert (moved_misses, moved_first) == (0, 0)


def test_a_byte_moved_by_an_odd_number_of_bytes_reaches_the_next_sector():
    # int8: one lane reads byte 31, the last of sector 0, then bytes 32, 63, 64 (moves of 1, 32, 33 bytes from the
    # first, counted from it). A byte at offset r of its sector moved by D lands ⌊(r + D) / 32⌋ sectors on:
    # r = 31, D = 1 → 1 (byte 32, sector 1); D = 32 → 1 (byte 63, sector 1); D = 33 → 2 (byte 64, sector 2).
    # DRAM: sectors 0, 1 and 2 of x; each load one sector
    def k(blk, x):
        for d in (0, 1, 32, 33):
            blk.load(x, 31 + d)
    c = both_ways(k, 1, 1, lambda: (np.zeros(96, np.int8),), auto_instr=False)
    assert (c.gld_sectors, c.dram_sectors) == (4, {"x": 3})
    # a warp of bytes 1–31 and 32 (a run across the boundary), moved by 31 bytes: bytes 32–63, sector 1 alone
    def w(blk, x):
        for d in (0, 31):
            blk.load(x, blk.tx + 1 + d)
    c = both_ways(w, 1, 32, lambda: (np.zeros(96, np.int8),), auto_instr=False)
    assert (c.gld_sectors, c.dram_sectors) == (2 + 1, {"x": 2})


def test_a_global_move_by_part_of_a_word_is_counted_from_the_first(monkeypatch):
    # one warp reads bytes 0–31 of an int8 array, then the same moved by 1, 2 and 3 bytes. Only shared memory's
    # banks need a move by whole 4-byte words; in global memory each move is counted from the first access (one
    # record built). Sectors: bytes 0–31 are sector 0; bytes d … 31 + d straddle sectors 0 and 1: 1 + 3 × 2 = 7
    def k(blk, x):
        for d in range(4):
            blk.load(x, blk.tx + d)
    built = []
    real = block_mod.Block._record
    monkeypatch.setattr(block_mod.Block, "_record", staticmethod(lambda *a: built.append(1) or real(*a)))
    c = launch(k, 1, 32, args=(np.zeros(64, np.int8),), auto_instr=False)
    assert (c.gld_instr, c.gld_sectors) == (4, 1 + 3 * 2)
    assert len(built) == 1



def test_a_moved_reference_keeps_its_own_copy_of_an_index_changed_in_place(monkeypatch):
    # no bytes left for the sites' copies (_KEPT_BYTES 0): the moved-access reference copies the index itself.
    # The first pass loads floats l (4 sectors), then doubles its index array in place; the second loads
    # floats 2·l + 1, which is not the first access moved (it is the doubled array moved by 1): lanes 8 B
    # apart, bytes 4–252, 8 sectors: 4 + 8
    monkeypatch.setattr(block_mod.Block, "_KEPT_BYTES", 0)

    def k(blk, x):
        a = blk.tx + 0
        for j in range(2):
            blk.load(x, a if j == 0 else 2 * blk.tx + 1)
            a *= 2
    c = launch(k, 1, 32, args=(np.zeros(64, np.float32),), auto_instr=False)
    assert (c.gld_instr, c.gld_sectors) == (2, 4 + 8)


def test_a_move_one_sector_past_an_earlier_one_marks_its_own_dram_sector():
    # one lane reads byte 31 (sector 0), then bytes 63 (moved 32 bytes: sector 1) and 96 (moved 65: sector 3). The
    # third move's part (the same offset, one sector further than a whole-sector move would take it) is not the
    # second's already marked: DRAM sectors 0, 1 and 3
    def k(blk, x):
        for d in (0, 32, 65):
            blk.load(x, 31 + d)
    c = both_ways(k, 1, 1, lambda: (np.zeros(128, np.int8),), auto_instr=False)
    assert (c.gld_sectors, c.dram_sectors) == (3, {"x": 3})
