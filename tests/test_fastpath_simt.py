"""The SIMT executor's fast paths give exactly the reference path's values, counts and errors.

Each is switched off by monkeypatching it to its reference form, and the kernel is run both ways:
- the record of a repeated access (``Block._seen_access``): a site whose index and mask equal its last
  ones reuses their Access, skips the checks that passed and the DRAM marking of sectors already marked;
- the record of a moved access (``Block._shifted_access``, tests/test_fastpath_shifts.py);
- vector loads gathered as rows (``block._whole_vectors``);
- fewer repeated sector ids before marking DRAM (``memory._fewer_repeats``), and the set built per warp
  (``access.sector_set``);
- ideal sectors from the warps' first address and stride (``access._ideal_affine``);
- the lanes' thread and block indices, spread from one block's threads and the batch's blocks
  (``Block._spread``), against the per-lane formula;
- ``blk.fma``'s float64 product with ``a`` widened in one pass and multiplied in place (``block._product64``),
  against ``np.multiply(a, b, dtype=np.float64)``.
"""

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kernellab.access as access
import kernellab.simt.block as block_mod
import kernellab.simt.memory as memory_mod
from kernellab import KERNELS, OutOfBoundsError, run_kernel
from kernellab.simt import launch

sys.path.insert(0, str(Path(__file__).parent))
from test_fastpath import accesses


def reference_paths(monkeypatch):
    monkeypatch.setattr(block_mod.Block, "_seen_access", lambda self, key, idx, act: None)
    monkeypatch.setattr(block_mod.Block, "_shifted_access", lambda self, *a: None)
    monkeypatch.setattr(block_mod, "_whole_vectors", lambda *a: False)
    monkeypatch.setattr(memory_mod, "_fewer_repeats", lambda ids: ids)
    monkeypatch.setattr(memory_mod, "sector_set", access.lane_sector_ids)
    monkeypatch.setattr(access, "_ideal_affine", access._ideal_exact)


def fields_of(c):
    """Every field of a Counts but its per-line rows (compared row by row by ``same_counts``), as it is: a
    nested value compares by ``==`` all the way down, as ``dataclasses.asdict`` would give it, without the deep
    copy of every per-line row that asdict made only for them to be dropped."""
    return {f.name: getattr(c, f.name) for f in dataclasses.fields(c) if f.name != "by_line"}


def same_counts(fast, ref):
    assert fields_of(fast) == fields_of(ref)
    if ref.by_line is not None:
        assert list(fast.by_line) == list(ref.by_line)
        for k in ref.by_line:
            assert fields_of(fast.by_line[k]) == fields_of(ref.by_line[k]), k


def sgemm_both_ways(spec, monkeypatch, reference):
    """Boehm's kernel ``spec`` at 128 × 128 × 128 on inputs seeded by its number, counted per line, as it runs and
    with ``reference(m)`` patching the fast path off: ``A, B, (fast_C, fast), (ref_C, ref)``."""
    rng = np.random.default_rng(spec.number)
    A = rng.standard_normal((128, 128)).astype(np.float32)
    B = rng.standard_normal((128, 128)).astype(np.float32)
    fast = run_kernel(spec, A, B, lines=True)
    with monkeypatch.context() as m:
        reference(m)
        ref = run_kernel(spec, A, B, lines=True)
    return A, B, fast, ref


@pytest.mark.parametrize("spec", KERNELS, ids=lambda s: f"k{s.number}")
def test_sgemm_kernels_equal_with_and_without_fast_paths(spec, monkeypatch):
    # 128 × 64 × 128: every kernel's tiles fit (k5–k10 need multiples of 128 and of BK), two K passes or more
    A, B, (fast_C, fast), (ref_C, ref) = sgemm_both_ways(spec, monkeypatch, reference_paths)
    assert np.array_equal(fast_C, ref_C)
    np.testing.assert_allclose(fast_C, A.astype(np.float64) @ B, rtol=1e-4, atol=1e-4)
    same_counts(fast, ref)


def _random_kernel(pattern):
    """Loads and stores through the same and changing indices, masks and widths, global and shared."""
    def kernel(blk, src, dst, vec_src, n, passes):
        _body(blk, src, dst, pattern, vec_src, n, passes)
    return kernel


def _body(blk, src, dst, pattern, vec_src, n, passes):
    sh = blk.shared(256, np.float32, name="sh")
    t = blk.tx
    blk.store(sh, t % 256, blk.load(src, (blk.bx * 7 + t) % n))
    blk.syncthreads()
    acc = np.zeros(blk.n_threads, np.float32)
    for p in range(passes):
        same = blk.load(src, pattern[t % pattern.size])           # the same every pass
        moved = blk.load(src, (pattern[t % pattern.size] + 4 * (p // 2)) % n)  # the same two passes running
        with blk.where((t + p) % 3 != 0):                          # a mask that changes every pass
            masked = blk.load(src, pattern[t % pattern.size])
        v = blk.load(vec_src, (t % 8)[:, None] * 8 + np.array([0, 4]), vec=4)  # (lanes, 2, 4), every pass
        w = blk.load(sh, (t * 5 + p % 2) % 256)                    # shared, alternating
        acc = acc + same + moved + masked + v.sum(axis=(1, 2)) + w
    with blk.where(t < 40):
        blk.store(dst, blk.bx * blk.bdx + t, acc)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_random_kernels_equal_with_and_without_fast_paths(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(64, 4000))
    src = rng.standard_normal(n).astype(np.float32)
    kind = rng.integers(3)  # random, affine with a random stride, or a broadcast
    pattern = (rng.integers(0, n, 64) if kind == 0 else (np.arange(64) * rng.integers(0, 40)) % n if kind == 1
               else np.full(64, rng.integers(n)))
    vec_src = rng.standard_normal(64).astype(np.float32)
    grid, threads, passes = int(rng.integers(1, 5)), int(rng.integers(1, 130)), int(rng.integers(1, 6))
    runs = []
    for fast in (True, False):
        with pytest.MonkeyPatch.context() as m:
            if not fast:
                reference_paths(m)
            dst = np.zeros(grid * threads, np.float32)
            c = launch(_random_kernel(pattern), grid, threads, args=(src, dst, vec_src, n, passes), lines=True)
            runs.append((dst, c))
    assert np.array_equal(runs[0][0], runs[1][0], equal_nan=True)  # shared elements no thread wrote are NaN
    same_counts(runs[0][1], runs[1][1])


def test_a_repeated_site_sees_an_index_changed_in_place():
    # the index array is mutated between two loads at the same site: the second must be checked again
    idx = np.arange(32)

    def k(blk, x):
        blk.load(x, idx)
        idx[5] = 1000  # lane 5 now reads past the end of x (32 elements)
        blk.load(x, idx)
    with pytest.raises(OutOfBoundsError, match="1000"):
        launch(k, 1, 32, args=(np.zeros(32, np.float32),))


def test_a_block_part_below_the_array_in_one_block_only_is_refused():
    # i = (bx − 1)·32 + tx on 1024 blocks of 32 (2^15 lanes: the batch holds bx·bdx + tx as a block part and a lane
    # part): the block part is −32 for block 0 and 0 … 32704 for the rest, the lane part 0..31, so block 0 reads
    # x[−32 .. −1]. The block-plus-lane fast path must bound it by the least block part (−32 + 0 < 0) and leave it to
    # the lanes' path, which names x[−32]; bounding by the greatest would let numpy read from the end of x, no error
    def k(blk, x, y):
        blk.store(y, blk.bx * blk.bdx + blk.tx, blk.load(x, (blk.bx - 1) * blk.bdx + blk.tx))
    n = 1024 * 32
    with pytest.raises(OutOfBoundsError, match=r"block \(0,0,0\), thread \(0,0,0\): load x\[-32\] out of bounds"):
        launch(k, 1024, 32, args=(np.arange(n, dtype=np.float32), np.zeros(n, np.float32)))


def test_a_float4_load_no_lane_takes_reads_nothing_from_an_array_shorter_than_a_vector():
    # a float4 copy guards its vector part with 4·i + 3 < n; at n = 3 no lane passes, and the scalar tail (i < n mod 4
    # = 3) copies x[0..2]. The masked-off float4 load must not gather rows of 4 from x (3 elements, not a whole row:
    # the fast path's x.reshape(-1, 4) cannot be made) but read nothing. Counted: the tail's load alone, 1 request,
    # 3 lanes × 4 B = 12 B in 1 sector of 1 line; the vector load and store have no active lane (0 requests)
    def k(blk, x, y, n):
        i = blk.tx
        with blk.where(4 * i + 3 < n):
            blk.store(y, 4 * i, blk.load(x, 4 * i, vec=4), vec=4)
        with blk.where(i < n % 4):
            blk.store(y, n - n % 4 + i, blk.load(x, n - n % 4 + i))
    x, y = np.array([1, 2, 3], np.float32), np.zeros(3, np.float32)
    c = launch(k, 1, 32, args=(x, y, 3), auto_instr=False)
    assert y.tolist() == [1, 2, 3]
    assert (c.gld_instr, c.gld_sectors, c.gld_lines, c.gld_bytes) == (1, 1, 1, 12)
    assert (c.gst_instr, c.gst_bytes) == (1, 12)


def test_a_repeated_access_is_counted_and_reuses_its_record(monkeypatch):
    # 2 warps read 64 consecutive floats 3 times: 2 requests, 8 sectors each time → 6 and 24; DRAM 8 sectors
    def k(blk, x):
        for _ in range(3):
            blk.load(x, blk.tx)
    built = []
    real = block_mod.Block._record
    monkeypatch.setattr(block_mod.Block, "_record", staticmethod(lambda *a: built.append(1) or real(*a)))
    c = launch(k, 1, 64, args=(np.zeros(64, np.float32),), auto_instr=False)
    assert (c.gld_instr, c.gld_sectors, c.gld_ideal_sectors, c.dram_sectors) == (6, 24, 24, {"x": 8})
    assert len(built) == 1


def test_first_touches_count_each_new_sector_once_however_spread():
    # two arrays of 64 KiB (2048 sectors each: "a" sectors 0–2047, "b" 2048–4095); first_touch hears (the array of
    # the lowest new sector, how many distinct sectors no earlier mark touched). Compact ids are counted by the flags
    # they set in their range, ids spread over 64 sectors or more apiece through np.unique: both by hand
    heard = []
    mem = memory_mod.GlobalMemory({"a": np.zeros(16384, np.float32), "b": np.zeros(16384, np.float32)})
    mem.first_touch = lambda name, n: heard.append((name, n))
    mem.mark_ids(np.array([5, 3, 5, 4, 3]))            # 3, 4, 5: 3 new (range 3 < 64 × 5)
    mem.mark_ids(np.array([4, 6, 6, 2]))               # 4 again; 2 and 6: 2 new
    mem.mark_ids(np.array([3, 4, 5]))                  # nothing new: not heard
    mem.mark_ids(np.array([2000, 0, 2000, 1000, 0]))   # 0, 1000, 2000: 3 new (range 2001 ≥ 64 × 5)
    mem.mark_ids(np.array([2049, 7, 2050, 7]))         # 7 in "a", 2049 and 2050 in "b": named by the lowest, 3 new
    mem.mark_ids(np.array([2050, 4095, 2049]))         # 4095 alone new (range 1 id), in "b"
    mem.mark_ids(np.array([2048, 2047, 2048]))         # 2047 ("a") and 2048 ("b"), compact: "a", 2 new
    assert heard == [("a", 3), ("a", 2), ("a", 3), ("a", 3), ("b", 1), ("a", 2)]
    assert all(type(n) is int for _name, n in heard)  # Python ints, as a report's JSON needs
    assert mem.dram_sectors() == {"a": 5 + 3 + 1 + 1, "b": 3 + 1}  # 2–6; 0, 1000, 2000; 7; 2047 | 2049, 2050, 4095; 2048


def test_fewer_repeats_keeps_the_set():
    rng = np.random.default_rng(1)
    for _ in range(200):
        n = int(rng.integers(1, 20000))
        ids = rng.integers(0, int(rng.integers(1, 3000)), n)
        if rng.integers(2):
            ids = np.sort(ids)
        if rng.integers(2):  # warps repeating the warp before, as a block's rows of one A tile do
            ids = np.tile(ids[: max(1, n // 8)], 8)
        out = memory_mod._fewer_repeats(ids)
        assert np.array_equal(np.unique(out), np.unique(ids))  # the same set: the same distinct values, sorted
    assert memory_mod._fewer_repeats(np.repeat(np.arange(5), 5000)).size == 5  # 25000 ids, 5 values


@settings(max_examples=300, deadline=None)
@given(accesses())
def test_ideal_sectors_affine_equal_exact(acc):
    assert access._ideal_affine(acc) == access._ideal_exact(acc)


def test_ideal_sectors_by_hand():
    # 3 warps: 32 consecutive floats (4 sectors ideal), a broadcast (1 float: 1 sector), stride 4096 B
    # (32 distinct floats: 128 B, 4 sectors); 9 in all, whichever path counts
    addr = np.concatenate([np.arange(32) * 4, np.zeros(32, np.int64), np.arange(32) * 4096])
    acc = access.Access.from_lanes(addr, width=4)
    assert access._ideal_affine(acc) == access._ideal_exact(acc) == 9


@settings(max_examples=300, deadline=None)
@given(accesses())
def test_sector_set_equals_the_lanes_sectors(acc):
    access._affine_runs(acc)  # as the counts leave it before the DRAM marking
    assert set(access.sector_set(acc).tolist()) == set(access.lane_sector_ids(acc).tolist())


def test_sector_set_by_hand():
    # 4 warps: two alike reading 32 floats 1024 B apart (sectors 0, 32, …, 992: 32), a broadcast of byte
    # 40000 (sector 1250), 32 consecutive floats from byte 50048 = 1564 · 32 (sectors 1564–1567):
    # 32 + 1 + 4 = 37 distinct sectors, and the repeated warp adds no id
    addr = np.concatenate([np.arange(32) * 1024, np.arange(32) * 1024, np.full(32, 40000), 50048 + np.arange(32) * 4])
    acc = access.Access.from_lanes(addr, width=4, aligned=True)
    access._affine_runs(acc)
    got = access.sector_set(acc)
    assert sorted(got.tolist()) == sorted(set((addr // 32).tolist())) and got.size == 37


def _warp(lo, step, lanes=32):
    """One warp's 32 byte addresses ``lo + l·step`` (floats), its first ``lanes`` lanes active."""
    return lo + np.arange(32) * step, np.arange(32) < lanes


@pytest.mark.parametrize("warps", [
    # warp 2 starts where warp 0 does and has warp 1's stride: sectors 0, 4, …, 124 (stride 128 B), which neither
    # warp 0 (sectors 0–3) nor warp 1 (from byte 4096) touches
    [(0, 4), (4096, 128), (0, 128)],
    # warp 2 has warp 0's stride and warp 1's start: sectors 0–3, of which warp 1 (0, 4, …, 124) has only sector 0
    [(4096, 4), (0, 128), (0, 4)],
    # warp 2 has warp 0's 32 lanes and warp 1's start and stride: sectors 0–3, warp 1's 8 lanes only sector 0
    [(4096, 4), (0, 4, 8), (0, 4)],
], ids=["start", "stride", "lanes"])
def test_sector_set_drops_only_a_warp_equal_to_the_one_before_it(warps):
    # a warp is left out only when its start, stride and lanes all equal the previous warp's (the same sectors);
    # each case has a warp equal to the previous one in two of the three and to the first warp in the third
    addr, active = (np.concatenate(x) for x in zip(*(_warp(*w) for w in warps)))
    acc = access.Access.from_lanes(addr, active, width=4, aligned=True)
    access._affine_runs(acc)  # as the counts leave it before the DRAM marking: the per-warp path
    want = set((addr[active] // 32).tolist())
    assert set(access.sector_set(acc).tolist()) == want and {1, 2, 3} <= want


def test_mask_runs_without_numpys_popcount(monkeypatch):
    # numpy < 2.0 has no bitwise_count: the set bits are counted a byte at a time. Warps: every lane; lanes 3–9
    # (7 lanes, one run); lanes 0 and 31 (2 lanes, a gap); none
    active = np.zeros((4, 32), bool)
    active[0], active[1, 3:10], active[2, [0, 31]] = True, True, True
    want = ([32, 7, 2, 0], [0, 3, 0], [31, 9, 31], [True, True, False])
    monkeypatch.setattr(access, "_HAS_POPCOUNT", False)
    n, p, q, one = access._mask_runs(active)
    assert (n.tolist(), p[:3].tolist(), q[:3].tolist(), one[:3].tolist()) == want


def test_a_site_remembers_each_index_of_an_inner_loop(monkeypatch):
    # 3 passes × 4 indices at one site (a K loop around a dot loop): 4 records built, 12 loads counted;
    # each load is one warp, lane l reading float 32·d + l: 4 sectors, 48 in all; DRAM 128 floats = 16 sectors
    def k(blk, x):
        for _ in range(3):
            for d in range(4):
                blk.load(x, blk.tx + 32 * d)
    built = []
    real = block_mod.Block._record
    monkeypatch.setattr(block_mod.Block, "_record", staticmethod(lambda *a: built.append(1) or real(*a)))
    with monkeypatch.context() as m:  # the exact records alone (a move of the first would serve all 12)
        m.setattr(block_mod.Block, "_shifted_access", lambda self, *a: None)
        c = launch(k, 1, 32, args=(np.zeros(128, np.float32),), auto_instr=False)
    assert (c.gld_instr, c.gld_sectors, c.dram_sectors) == (12, 48, {"x": 16})
    assert len(built) == 4
    built.clear()
    moved = launch(k, 1, 32, args=(np.zeros(128, np.float32),), auto_instr=False)
    same_counts(moved, c)
    assert len(built) == 1  # d = 1, 2, 3 are the first index moved by 32·d elements
    with monkeypatch.context() as m:
        reference_paths(m)
        ref = launch(k, 1, 32, args=(np.zeros(128, np.float32),), auto_instr=False)
    same_counts(c, ref)


@pytest.mark.parametrize("grid,block,first,n_blocks", [
    ((7, 3, 2), (40, 3, 2), 5, 9),  # 240 threads → 256 lanes: 16 padding lanes a block; a 3-D grid from block 5
    ((129, 1, 1), (1024, 1, 1), 128, 1),  # the last block of a 1-D grid alone
    ((5, 4, 3), (8, 8, 4), 0, 60),  # every block of a 3-D grid
    ((3, 1, 1), (33, 1, 1), 1, 2),  # 33 threads → 64 lanes: tz = 31 padding lanes // 33 = 1 on the last lanes
    ((1, 1, 1), (1, 1, 1), 0, 1),  # one thread, 31 padding lanes
    ((300, 1, 1), (512, 1, 1), 100, 200),  # 200 × 512 = 102 400 lanes: ty, by, bz all zero (np.zeros)
])
def test_block_indices_are_the_lane_formula(grid, block, first, n_blocks):
    # lane L is thread t = L mod lanes of block b = first + L div lanes (lanes: the block's threads rounded up
    # to whole warps); the indices are t and b in CUDA's x-fastest order
    tally = block_mod.Tally()
    blk = block_mod.Block("k", grid, block, first, n_blocks, memory_mod.GlobalMemory({}, kernel="k"), tally, 49152)
    (gx, gy, _gz), (bx, by, bz) = grid, block
    lanes = -(-bx * by * bz // 32) * 32
    lane = np.arange(n_blocks * lanes)
    t, b = lane % lanes, lane // lanes + first
    want = {"tx": t % bx, "ty": t // bx % by, "tz": t // (bx * by), "bx": b % gx, "by": b // gx % gy,
            "bz": b // (gx * gy), "_lane_block": lane // lanes}
    for name, values in want.items():
        got = getattr(blk, name)
        assert got.dtype == np.int64 and got.tolist() == values.tolist(), name
    assert blk._real.tolist() == (t < bx * by * bz).tolist()
    arrays = [blk.tx, blk.ty, blk.tz, blk.bx, blk.by, blk.bz]
    assert all(a.flags.writeable for a in arrays)  # a kernel may update an index in place, as before
    assert not any(np.shares_memory(a, c) for i, a in enumerate(arrays) for c in arrays[i + 1:])


def _reference_product(a, b):
    return np.asarray(np.multiply(a, b, dtype=np.float64))


def _numbers(rng, shape, dtype):
    """Values of ``dtype`` over every range: ±0, ±inf, NaNs with their own payloads, subnormals, huge and tiny."""
    if np.dtype(dtype).kind in "biu":
        return rng.integers(0 if np.dtype(dtype).kind in "bu" else -(2**62), 2 if dtype is bool else 2**62,
                            shape).astype(dtype)
    x = rng.standard_normal(shape) * 10.0 ** rng.integers(-46, 40, shape)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 3.4028235e38, 2.0**24 + 1])
    x = np.where(rng.random(shape) < 0.3, special[rng.integers(0, special.size, shape)], x)
    with np.errstate(all="ignore"):
        x = x.astype(dtype)
    if x.dtype == np.float32:  # quiet NaNs with payloads 1 … 2^22 − 1: which operand's payload survives shows
        nan = rng.random(shape) < 0.1
        x.view(np.uint32)[nan] = 0x7FC00000 | rng.integers(1, 1 << 22, int(nan.sum())).astype(np.uint32)
    return x


@pytest.mark.parametrize("seed", range(4))
def test_fma_product_equals_the_ufunc_product(seed, monkeypatch):
    # blk.fma on random shapes (1 to 3 warps and 33 threads; lanes, lanes × 3, lanes × 2 × 2), operand kinds
    # (float32/64/16, int64, uint8, bool arrays, lane values from blk.tx, Python numbers) and broadcasts, under
    # a mask or not: the same bits and type, fast path or reference
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(60):
        threads = int(rng.choice([32, 33, 64, 96]))
        lanes = -(-threads // 32) * 32
        extra = [(), (3,), (2, 2)][rng.integers(3)]
        dtype = [np.float32, np.float64, np.float16, np.int64, np.uint8, bool][rng.integers(6)]
        a = _numbers(rng, (lanes, *extra), dtype)
        b_shape = [(), (lanes, *extra), (1,) * (1 + len(extra)), (lanes,) + (1,) * len(extra)][rng.integers(4)]
        b = _numbers(rng, b_shape, np.float32) if b_shape else float(_numbers(rng, (1,), np.float32)[0])
        c = _numbers(rng, [(1,), (lanes, *extra)][rng.integers(2)], np.float32)
        cases.append((threads, a, b, c, bool(rng.integers(2)), not extra and bool(rng.integers(2))))

    def kernel(a, b, c, masked, from_tx, out):
        def k(blk):
            x = blk.tx * 0.5 + a if from_tx and a.dtype.kind == "f" else a  # a Lanes array, as a kernel makes
            with np.errstate(all="ignore"), blk.where(blk.tx % 3 != 1 if masked else blk.tx >= 0):
                out.append(blk.fma(x, b, c))
        return k

    def run():
        out = []
        for threads, a, b, c, masked, from_tx in cases:
            launch(kernel(a, b, c, masked, from_tx, out), 1, threads)
        return out

    fast = run()
    monkeypatch.setattr(block_mod, "_product64", _reference_product)
    ref = run()
    assert len(fast) == len(ref) == 60
    for f, r in zip(fast, ref):
        assert type(f) is type(r) is np.ndarray and f.dtype == r.dtype == np.float32 and f.shape == r.shape
        assert f.tobytes() == r.tobytes()


def test_fma_product_keeps_the_first_operands_nan():
    # both operands NaN: numpy (x86's rule) keeps the first operand's payload, 0x7FC00001 here, in the reference
    # and in the fast path, which widens a and multiplies it in place by b; written as b·a it would be 0x7FC00002
    a = np.full(32, 0x7FC00001, np.uint32).view(np.float32)
    b = np.full(32, 0x7FC00002, np.uint32).view(np.float32)
    assert block_mod._product64(a, b).astype(np.float32).view(np.uint32).tolist() == [0x7FC00001] * 32
    assert _reference_product(a, b).astype(np.float32).view(np.uint32).tolist() == [0x7FC00001] * 32
    # 3 × 0.1: 0.1 is a float64 operand, as in the reference: 0.30000000000000004, not 3 × float32(0.1)
    assert block_mod._product64(np.full(32, 3, np.int64), 0.1).tolist() == [3 * 0.1] * 32


def test_the_columns_of_a_partly_masked_index_keep_each_lanes_mask():
    # one warp, an index of 2 columns (2 instructions): column 0 reads float l, column 1 float 8·l + 64 (lanes
    # 32 B apart); lanes 0–15 active. Column 0: floats 0–15 = 64 B = 2 sectors; column 1: 16 lanes in 16
    # sectors of their own; 2 + 16 = 18 sectors, 16 × 4 B = 64 B requested each
    def k(blk, x):
        blk.load(x, np.stack([blk.tx, 8 * blk.tx + 64], axis=1), mask=blk.tx < 16)
    c = launch(k, 1, 32, args=(np.zeros(64 + 8 * 32, np.float32),), auto_instr=False)
    assert (c.gld_instr, c.gld_sectors) == (2, 2 + 16)


def test_a_masked_vector_load_from_a_one_vector_array():
    # float4 loads by lane 0 alone from an array of exactly 4 floats; the other lanes' indices (4·l) lie past
    # it but are masked off: they read nothing and get 0. One instruction, one lane's 16 B: 1 sector
    def k(blk, x, out):
        v = blk.load(x, 4 * blk.tx, mask=blk.tx == 0, vec=4)
        blk.store(out, blk.tx, v.sum(axis=-1))
    x, out = np.arange(1, 5, dtype=np.float32), np.full(32, -1, np.float32)
    c = launch(k, 1, 32, args=(x, out), auto_instr=False)
    assert out[0] == 1 + 2 + 3 + 4 and not out[1:].any()
    assert (c.gld_instr, c.gld_sectors) == (1, 1)


def test_a_vector_load_masked_off_entirely_from_an_array_shorter_than_a_vector():
    # float4 loads with every lane masked off, from an array of 2 floats: nothing is read, every lane gets 0
    def k(blk, x, out):
        v = blk.load(x, 4 * blk.tx, mask=blk.tx < 0, vec=4)
        blk.store(out, blk.tx, v.sum(axis=-1))
    out = np.full(32, -1, np.float32)
    c = launch(k, 1, 32, args=(np.ones(2, np.float32), out), auto_instr=False)
    assert not out.any() and c.gld_sectors == 0


def test_a_load_of_lanes_by_instructions_comes_back_as_numpys_gather():
    # 32 lanes each load 3 fp16 elements (3 instructions, every lane active: the gather path). Summed along the
    # instructions in fp16, the values depend on the layout numpy is handed: from C-ordered rows it accumulates in
    # float32 and rounds once, from F-ordered columns it rounds to fp16 at every add. The load must come back as
    # numpy's own gather ``src[idx]`` (C-ordered), or the kernel computes other values than the reference path.
    rng = np.random.default_rng(7)
    src = (rng.standard_normal(256) * 10).astype(np.float16)
    idx = rng.integers(0, 256, (32, 3))
    want = src[idx].sum(axis=1)
    columns = np.ascontiguousarray(src[idx].T).T  # the same elements, F-ordered
    assert not np.array_equal(columns.sum(axis=1), want)  # these values do round differently by layout

    def kernel(blk, src, out):
        v = blk.load(src, idx[blk.tx])
        blk.store(out, blk.tx, v.sum(axis=1))

    out = np.zeros(32, np.float16)
    launch(kernel, 1, 32, args=(src, out))
    assert np.array_equal(out, want)
