"""Lane values held once for a batch (``kernellab.simt.tiled``, an optimisation) give the reference path's bits and counts.

The reference is the same launch with ``block.TILED`` False: every index spread over the batch's lanes, every value
a lanes array. Random kernels (index arithmetic, conversions, FMAs, loads through held and spread indices, masks,
stores, writes that turn a held value into its lanes array halfway) run both ways: every value they make, bit for
bit (signed zeros and NaN payloads among them), its type as the block sees it, and every count, per line too.
And a block's large all-zero indices on the reference path (``Block._spread``) are memory nothing has mapped yet.
"""

import dataclasses
import mmap
import sys
from pathlib import Path

import numpy as np
import pytest

import kernellab.simt.block as block_mod
import kernellab.simt.launcher as launcher_mod
from kernellab import KERNELS, OutOfBoundsError
from kernellab.simt import launch
from kernellab.simt.lanes import Lanes
from kernellab.simt.memory import GlobalMemory
from kernellab.simt.shifts import BlockMoves
from kernellab.simt.tally import Tally
from kernellab.simt.tiled import Tiled, parts_of

sys.path.insert(0, str(Path(__file__).parent))
from test_fastpath_simt import same_counts, sgemm_both_ways

N_MEM = 97  # elements of each memory array (prime: indices wrap round it unevenly)


@pytest.fixture(autouse=True)
def held_in_small_batches(monkeypatch):
    """Every batch of two blocks or more holds its indices (the engine's threshold, 32 768 lanes, is for speed)."""
    monkeypatch.setattr(block_mod, "TILED_MIN_LANES", 0)


def _program(rng, steps: int) -> list:
    """A random kernel as a list of steps over three pools of values (ints, floats, bools), each refering to earlier
    values by position; the same list runs on both paths."""
    prog, n = [], {"i": 4, "f": 1, "b": 0}  # ints: tx, ty, bx, by; floats: tx · 1.0
    for _ in range(steps):
        kind = rng.choice(["iop", "iop", "iconst", "fop", "fma", "fma", "arith", "cmp", "conv", "load", "nanload",
                           "where", "store", "write", "view", "npwhere"])
        pick = {k: (lambda k=k: int(rng.integers(n[k]))) for k in n}
        if kind == "iop":
            prog.append((kind, str(rng.choice(["add", "subtract", "multiply", "bitwise_and", "bitwise_xor",
                                               "minimum", "maximum"])), pick["i"](), pick["i"]()))
            n["i"] += 1
        elif kind == "iconst":
            prog.append((kind, str(rng.choice(["add", "multiply", "right_shift", "remainder", "floor_divide"])),
                         pick["i"](), int(rng.integers(1, 9))))
            n["i"] += 1
        elif kind == "fop":
            other = pick["f"]() if rng.integers(2) else float(rng.choice([0.5, -0.0, 3.0, np.inf, np.nan]))
            prog.append((kind, str(rng.choice(["add", "multiply", "subtract", "minimum", "maximum", "true_divide"])),
                         pick["f"](), other))
            n["f"] += 1
        elif kind == "fma":
            prog.append((kind, pick["f"](), pick["f"]() if rng.integers(2) else 1.5, pick["f"]() if rng.integers(2)
                         else -0.0))
            n["f"] += 1
        elif kind == "arith":
            prog.append((kind, str(rng.choice(["fadd", "fmul"])), pick["f"](), pick["f"]()))
            n["f"] += 1
        elif kind == "cmp":
            prog.append((kind, str(rng.choice(["less", "equal", "greater_equal"])), pick["i"](), int(rng.integers(4))))
            n["b"] += 1
        elif kind == "conv":
            src = "i" if rng.integers(2) else "f"
            prog.append((kind, "f32" if rng.integers(2) else "i64", src, pick[src]()))
            n["f" if prog[-1][1] == "f32" else "i"] += 1
        elif kind in ("load", "nanload"):
            prog.append((kind, pick["i"]()))
            n["f"] += 1
            n["i"] += kind == "load"  # an integer load too: an address to be, one load further along the chain
        elif kind == "where" and n["b"]:
            prog.append((kind, pick["b"](), pick["f"](), pick["f"]()))
            n["f"] += 1
        elif kind == "store":
            prog.append((kind, pick["i"](), pick["f"]()))
        elif kind == "write":
            pool = "f" if rng.integers(2) else "i"
            prog.append((kind, pool, pick[pool](), int(rng.integers(4)), pick[pool]()))
        elif kind == "view":
            prog.append((kind, pick["f"]()))
            n["f"] += 1
        elif kind == "npwhere" and n["b"]:
            prog.append((kind, pick["b"](), pick["f"](), pick["f"]()))
            n["f"] += 1
    return prog


def _kernel(prog, made):
    """The kernel running ``prog``; every value it makes is appended to ``made``."""
    def kernel(blk, f_src, i_src, nan_src, f_dst):
        ints, floats, bools = [blk.tx, blk.ty, blk.bx, blk.by], [blk.tx * 1.0], []
        pools = {"i": ints, "f": floats, "b": bools}
        with np.errstate(all="ignore"):
            for step in prog:
                kind = step[0]
                if kind == "iop":
                    v = getattr(np, step[1])(ints[step[2] % len(ints)], ints[step[3] % len(ints)])
                    ints.append(v)
                elif kind == "iconst":
                    ints.append(getattr(np, step[1])(ints[step[2] % len(ints)], step[3]))
                elif kind == "fop":
                    other = floats[step[3] % len(floats)] if isinstance(step[3], int) else step[3]
                    floats.append(getattr(np, step[1])(floats[step[2] % len(floats)], other))
                elif kind == "fma":
                    b, c = (floats[x % len(floats)] if isinstance(x, int) else x for x in step[2:])
                    floats.append(blk.fma(floats[step[1] % len(floats)], b, c))
                elif kind == "arith":
                    floats.append(getattr(blk, step[1])(floats[step[2] % len(floats)], floats[step[3] % len(floats)]))
                elif kind == "cmp":
                    bools.append(getattr(np, step[1])(ints[step[2] % len(ints)] % 4, step[3]))
                elif kind == "conv":
                    pool = pools[step[2]]
                    v = pool[step[3] % len(pool)]
                    if step[1] == "f32":
                        floats.append(v.astype(np.float32))
                    else:  # a float → int conversion: numpy's (the kernel's own Python arithmetic, not blk's)
                        ints.append(np.minimum(np.maximum(v, -1e6), 1e6).astype(np.int64))
                elif kind in ("load", "nanload"):
                    i = ints[step[1] % len(ints)] % (N_MEM if kind == "load" else 32)
                    floats.append(blk.load(f_src if kind == "load" else nan_src, i))
                    if kind == "load":
                        ints.append(blk.load(i_src, i))
                elif kind == "where":
                    with blk.where(bools[step[1] % len(bools)]):
                        floats.append(blk.fma(floats[step[2] % len(floats)], 2.0, floats[step[3] % len(floats)]))
                elif kind == "store":
                    blk.store(f_dst, ints[step[1] % len(ints)] % N_MEM, floats[step[2] % len(floats)])
                elif kind == "write":  # a held value written to: its lanes array from now on, for every name of it
                    pool = pools[step[1]]
                    v = pool[step[2] % len(pool)]
                    if step[3] == 0:
                        v += 1
                    elif step[3] == 1:
                        v[3] = 7
                    elif step[3] == 2:
                        np.asarray(v)[-1] = 5
                    else:  # in place, by another value (a Lanes += a held value: counted once)
                        v += pool[step[4] % len(pool)]
                elif kind == "view":
                    floats.append((floats[step[1] % len(floats)][:, None] * np.float32(2)).sum(axis=1))
                elif kind == "npwhere":
                    floats.append(np.where(bools[step[1] % len(bools)], floats[step[2] % len(floats)],
                                           floats[step[3] % len(floats)]))
        made.extend(ints + floats + bools)
    return kernel


def _memory(rng):
    f_src = rng.standard_normal(N_MEM).astype(np.float32)
    f_src[::7] = -0.0
    f_src[3::11] = np.float32(np.nan)
    i_src = rng.integers(-50, 50, N_MEM)
    nan_src = np.arange(32, dtype=np.float32)  # quiet NaNs with payloads 1 … 16 in the even lanes, ±0 in some odd
    nan_src.view(np.uint32)[0::2] = 0x7FC00000 | np.arange(1, 17, dtype=np.uint32)
    nan_src[1::4] = -0.0
    return f_src, i_src, nan_src


def _as_seen(v):
    """A value as the block's lanes hold it: its bits, and whether it counts (a Lanes) or not (a numpy array)."""
    arr = v.full() if type(v) is Tiled else v
    return type(arr), arr.dtype, arr.shape, np.ascontiguousarray(arr).tobytes()


def _run(prog, launch_args, memory, monkeypatch, tiled: bool, per_batch: int):
    made = []
    f_dst = np.zeros(N_MEM, np.float32)
    with monkeypatch.context() as m:
        m.setattr(block_mod, "TILED", tiled)
        m.setattr(launcher_mod, "MAX_LANES_PER_BATCH", per_batch)
        counts = launch(_kernel(prog, made), *launch_args[:2], args=(*memory, f_dst), lines=True,
                        auto_instr=launch_args[2])
    return made, f_dst, counts


@pytest.mark.parametrize("seed", range(6))
def test_random_kernels_give_the_reference_paths_bits_and_counts(seed, monkeypatch):
    # 2-D grids of 2–6 blocks of 1-D or 2-D blocks of 32–96 threads (33 and 40: padding lanes), counting on or
    # off, in batches of every block or of 3 (the last batch of one block is never held), 30 random steps each
    rng = np.random.default_rng(seed)
    memory = _memory(rng)
    for case in range(4):
        grid = (int(rng.integers(1, 4)), int(rng.integers(2, 3)))
        block = [(32,), (33,), (16, 2), (40,), (32, 3)][int(rng.integers(5))]
        lanes = -(-int(np.prod(block)) // 32) * 32
        per_batch = [1 << 20, 3 * lanes][case % 2]
        prog = _program(rng, 30)
        args = (grid, block, bool(rng.integers(2)))
        fast_made, fast_dst, fast = _run(prog, args, memory, monkeypatch, True, per_batch)
        ref_made, ref_dst, ref = _run(prog, args, memory, monkeypatch, False, per_batch)
        assert len(fast_made) == len(ref_made) > 0
        for f, r in zip(fast_made, ref_made):
            assert _as_seen(f) == _as_seen(r), (seed, case, prog)
        assert fast_dst.tobytes() == ref_dst.tobytes()
        same_counts(fast, ref)


def test_the_random_kernels_hold_values():
    # the programs above make held values, and ones the block computed on their parts: 30 steps of seed 0 in 2
    # blocks of 32 make ≥ 10 values still held at the end (a test whose fast path is never taken tests nothing)
    prog = _program(np.random.default_rng(0), 30)
    made = []
    launch(_kernel(prog, made), 2, 32, args=(*_memory(np.random.default_rng(0)), np.zeros(N_MEM, np.float32)))
    assert sum(type(v) is Tiled and v.held for v in made) >= 10


@pytest.mark.parametrize("spec", [s for s in KERNELS if s.number in (1, 2, 3, 6, 9)], ids=lambda s: f"k{s.number}")
def test_sgemm_kernels_give_the_reference_paths_bits_and_counts(spec, monkeypatch):
    # Boehm's kernels (shared tiles, tx[:, None], float4 loads, warp tiling) at 128 × 128 × 128, per line too
    _, _, (fast_C, fast), (ref_C, ref) = sgemm_both_ways(spec, monkeypatch,
                                                         lambda m: m.setattr(block_mod, "TILED", False))
    assert fast_C.tobytes() == ref_C.tobytes()
    same_counts(fast, ref)


def test_the_waves_pages_chain_is_computed_on_one_blocks_lanes(monkeypatch):
    # the waves page's kernel at 4 blocks of 64 threads: v = tx, then v = v·1 + 1 64 times, so y = tx + 64 (exact
    # in float32); 4 blocks × 2 warps × 64 FMAs = 512 warp FMA instructions, 256 threads × 64 = 16 384 FMAs. Every
    # FMA is computed on the 64 lanes of one block (parts of shape (1, 64)), and the store is of that part
    parts = []
    real = block_mod._fused
    monkeypatch.setattr(block_mod, "_fused", lambda a, b, c: parts.append(np.shape(a)) or real(a, b, c))

    def fma_chain(blk, y):
        v = blk.tx * 1.0
        for _ in range(64):
            v = blk.fma(v, 1.0, 1.0)
        blk.store(y, blk.bx * blk.bdx + blk.tx, v)

    y = np.zeros(256, np.float32)
    c = launch(fma_chain, 4, 64, args=(y,))
    assert y.tolist() == [float(t % 64 + 64) for t in range(256)]
    assert (c.fma, c.instr_by_kind["fma"]) == (16384, 512)
    assert parts == [(1, 64)] * 64
    monkeypatch.setattr(block_mod, "TILED", False)
    y_ref = np.zeros(256, np.float32)
    ref = launch(fma_chain, 4, 64, args=(y_ref,))
    assert y.tobytes() == y_ref.tobytes() and dataclasses.asdict(c) == dataclasses.asdict(ref)
    assert parts[64:] == [(256,)] * 64  # the reference: every lane's


def _copy_kernel(form):
    """A copy through an index of the form ``form`` (a block's part plus a lane's: bx · bdx + tx and others)."""
    def copy(blk, src, dst, n):
        i = {"bx*bdx+tx": lambda: blk.bx * blk.bdx + blk.tx, "tx+bx*bdx": lambda: blk.tx + blk.bx * blk.bdx,
             "2-D grid": lambda: (blk.by * blk.gdx + blk.bx) * blk.bdx + blk.tx,
             "stride 2": lambda: blk.bx * (2 * blk.bdx) + blk.tx * 2,
             "one past": lambda: blk.bx * blk.bdx + blk.tx + 1, "product": lambda: (blk.bx * 8) * (blk.tx % 2),
             "overlap": lambda: blk.bx * 16 + blk.tx, "squares": lambda: (blk.bx * blk.bx) * blk.bdx + blk.tx,
             "offset 3": lambda: blk.bx * blk.bdx + (blk.tx + 3), "masked": lambda: None}[form]()
        if form == "masked":
            i = blk.bx * blk.bdx + blk.tx
            with blk.where(i < n):
                blk.store(dst, i, blk.load(src, i))
            return
        blk.store(dst, i, blk.load(src, i) + blk.bx * 1000)  # blocks that store one element: the last one's
    return copy


@pytest.mark.parametrize("form,grid,threads,dtype,moved", [
    # every block the first moved by bdx · itemsize bytes: 32 floats 128 B (one class of D mod 128), 40 threads
    # (padding lanes off in every block) 160 B (classes 0, 32, 64, 96), 8 floats 32 B, 6 floats 24 B (not whole
    # sectors: the lanes' own path), 64 int64s 512 B; a 2-D grid; a lane stride of 2; a mask that differs by block
    # (the lanes' own path); an index one past the end in the last block (the lanes' path names it)
    ("bx*bdx+tx", 5, 32, np.float32, True), ("tx+bx*bdx", 7, 40, np.float32, True),
    ("bx*bdx+tx", 9, 8, np.float32, True), ("bx*bdx+tx", 5, 6, np.float32, False),
    ("bx*bdx+tx", 3, 64, np.int64, True), ("2-D grid", (3, 2), 32, np.float32, True),
    ("stride 2", 4, 32, np.float32, True), ("masked", 5, 32, np.float32, False),
    ("product", 5, 32, np.float32, False),  # bx · 8 · (tx mod 2): a product of the two parts, not a sum
    # the rows of a strided view: blocks 16 elements apart overlap (the index, in lane order), blocks bx² · 32
    # apart do not step evenly (the index), lanes from 3 on (a view from element 3)
    ("overlap", 5, 32, np.float32, True), ("squares", 5, 32, np.float32, True), ("offset 3", 5, 32, np.float32, True),
])
def test_an_index_a_blocks_part_plus_a_lanes_counts_as_the_first_block_moved(form, grid, threads, dtype, moved,
                                                                             monkeypatch):
    blocks = int(np.prod(grid))
    n = blocks * threads * (2 if form == "stride 2" else 1) + {"squares": 16 * 32, "offset 3": 3}.get(form, 0)
    n_masked = n - threads // 2 - 1  # the mask cuts the last block
    made = []
    real = BlockMoves.__init__
    monkeypatch.setattr(BlockMoves, "__init__", lambda self, *a: made.append(1) or real(self, *a))
    results = []
    for tiled in (True, False):
        monkeypatch.setattr(block_mod, "TILED", tiled)
        src, dst = (np.arange(n) * 3 % 101).astype(dtype), np.zeros(n, dtype)
        c = launch(_copy_kernel(form), grid, threads, args=(src, dst, n_masked if form == "masked" else n),
                   lines=True)
        results.append((dst, c))
    (fast_dst, fast), (ref_dst, ref) = results
    assert fast_dst.tobytes() == ref_dst.tobytes()
    same_counts(fast, ref)
    assert made == [1, 1] * moved  # the load's and the store's, on the held path only


@pytest.mark.parametrize("form,size", [("one past", 160), ("bx*bdx+tx", 159)])
def test_an_index_past_the_end_in_the_last_block_is_named_as_the_lanes_name_it(form, size, monkeypatch):
    # bx · 32 + tx + 1 into 5 × 32 elements, and bx · 32 + tx (a held sum) into 159: thread 31 of block 4 reads
    # index 160 (159), out of bounds
    errors = []
    for tiled in (True, False):
        monkeypatch.setattr(block_mod, "TILED", tiled)
        with pytest.raises(OutOfBoundsError) as e:
            launch(_copy_kernel(form), 5, 32, args=(np.zeros(size, np.float32), np.zeros(size, np.float32), size))
        errors.append((str(e.value), e.value.details))
    assert errors[0] == errors[1] and "block (4,0,0), thread (31,0,0)" in errors[0][0]
    assert f"[{size}] out of bounds (size {size})" in errors[0][0]


def test_batches_below_the_threshold_spread_their_indices(monkeypatch):
    # at the engine's threshold of 2**15 lanes: 31 blocks of 1024 threads (31 744 lanes) spread, 32 (32 768) hold
    monkeypatch.setattr(block_mod, "TILED_MIN_LANES", 1 << 15)
    made = {n: block_mod.Block("k", (64, 1, 1), (1024, 1, 1), 0, n, GlobalMemory({}, kernel="k"), Tally(), 49152)
            for n in (31, 32)}
    assert type(made[31].tx) is np.ndarray and type(made[32].tx) is Tiled and type(made[32].bx) is Tiled


def test_indices_are_held_as_one_block_and_as_one_lane():
    # 3 blocks (first block 4 of a 7 × 2 grid) of 8 × 5 threads (40 → 64 lanes, 24 padding): threadIdx held as the
    # 64 lanes of one block, blockIdx as one lane per block; their lanes arrays are the per-lane formula
    blk = block_mod.Block("k", (7, 2, 1), (8, 5, 1), 4, 3, GlobalMemory({}, kernel="k"), Tally(), 49152)
    t, b = np.arange(64), np.arange(4, 7)
    assert blk.tx._part.shape == (1, 64) and blk.bx._part.shape == (3, 1)
    for v, want in ((blk.tx, t % 8), (blk.ty, t // 8 % 5), (blk.tz, t // 40), (blk.bx, b % 7), (blk.by, b // 7)):
        lanes = np.asarray(v.expanded())
        assert lanes.shape == (192,)
        assert lanes.tolist() == (np.tile(want, 3) if want.size == 64 else np.repeat(want, 64)).tolist()
    assert blk.bz.expanded().tolist() == [0] * 192


def test_floats_are_computed_on_parts_only_where_numpy_runs_the_lanes_loop():
    # an IEEE operation on two NaNs may return either's payload, and numpy's loop for a broadcast operand is not the
    # one for two arrays: float operands only of one part's shape; integers broadcast (exact, and no payloads)
    tx = Tiled(np.arange(32, dtype=np.float32).reshape(1, 32), 2, 32)
    bx = Tiled(np.array([[0.5], [1.5]], np.float32), 2, 32)
    assert parts_of((tx, bx)) is None and parts_of((tx, np.float32(2))) is not None
    assert parts_of((tx, np.zeros(64, np.float32))) is None  # a lanes array against a block's part
    ti, bi = Tiled(np.arange(32).reshape(1, 32), 2, 32), Tiled(np.array([[0], [1]]), 2, 32)
    assert parts_of((ti, bi)) is not None and parts_of((ti, np.zeros(64, np.int64))) is not None
    assert parts_of((ti, np.zeros((64, 1)))) is None  # of more dimensions than the lanes: numpy broadcasts it
    assert type(ti + bi) is Tiled and (ti + bi)._part.shape == (2, 32)
    assert np.asarray(tx + bx).tolist() == (np.arange(64) % 32 + np.repeat([0.5, 1.5], 32)).tolist()


def test_pow_is_computed_on_the_lanes_not_on_parts():
    # pow is no operation that rounds once (libm's or a SIMD loop's, whose element results may depend on where the
    # element falls), so x ** y leaves the held form whatever the dtype, with every lane's value: 2 blocks of 4 lanes
    tx = Tiled(np.arange(4, dtype=np.float32).reshape(1, 4) + np.float32(0.5), 2, 4)
    y = tx ** np.float32(1.5)
    assert type(y) is not Tiled
    assert np.asarray(y).tolist() == np.tile((np.arange(4, dtype=np.float32) + np.float32(0.5)) ** np.float32(1.5),
                                             2).tolist()
    ti = Tiled(np.arange(4).reshape(1, 4), 2, 4)
    assert type(ti ** 2) is not Tiled and np.asarray(ti ** 2).tolist() == [0, 1, 4, 9] * 2  # 0², 1², 2², 3² per block
    assert type(ti * 2) is Tiled  # the exact ufuncs stay held


def test_a_written_index_is_not_taken_for_the_access_it_was():
    # i = bx·32 + tx is kept by the block's record of repeated accesses as it is (held: it never changes). Written
    # to in place between two loads at one site it is a new index: the second load reads src[i + 1], and counts
    # its own sectors: 2 blocks × 32 lanes × 4 B at 4 B past a sector boundary = 5 sectors a warp, not 4
    def k(blk, src, out):
        i = blk.bx * 32 + blk.tx
        for p in range(2):
            v = blk.load(src, i)
            blk.store(out, blk.bx * 32 + blk.tx + 64 * p, v)
            i += 1

    src, out = np.arange(80, dtype=np.float32), np.zeros(128, np.float32)
    c = launch(k, 2, 32, args=(src, out))
    assert out.tolist() == list(range(64)) + list(range(1, 65))
    assert c.gld_sectors == 2 * 4 + 2 * 5


def test_an_alias_of_a_written_value_sees_the_write():
    # as with a numpy array: a name bound to the same value, and the array np.asarray gave, see an in-place add
    seen = {}

    def k(blk):
        v = blk.tx * 2
        same, arr = v, np.asarray(v)
        v += 1
        seen.update(v=np.asarray(v).copy(), same=np.asarray(same).copy(), arr=arr.copy())

    launch(k, 3, 32)
    want = (np.arange(96) % 32 * 2 + 1).tolist()
    assert seen["v"].tolist() == seen["same"].tolist() == seen["arr"].tolist() == want


def test_an_out_of_bounds_held_index_names_the_same_thread(monkeypatch):
    # tx + 30 in 3 blocks of 32 threads into 50 elements: thread 20 of block 0 is the first past the end (index 50)
    def k(blk, x):
        blk.load(x, blk.tx + 30)

    errors = []
    for tiled in (True, False):
        monkeypatch.setattr(block_mod, "TILED", tiled)
        with pytest.raises(OutOfBoundsError) as e:
            launch(k, 3, 32, args=(np.zeros(50, np.float32),))
        errors.append((str(e.value), e.value.details))
    assert errors[0] == errors[1]
    assert "block (0,0,0), thread (20,0,0)" in errors[0][0] and "x[50]" in errors[0][0]


def test_a_pointer_chase_through_a_held_index_is_two_loads_long(monkeypatch):
    # j = perm[tx] (a load at a held index: held values, one integer load along the chain), then perm[j]: two
    # dependent integer loads (Counts.load_chain_global 2); perm reversed twice is tx again, in every block
    def k(blk, perm, out):
        j = blk.load(perm, blk.tx)
        blk.store(out, blk.bx * 32 + blk.tx, blk.load(perm, j))

    perm = np.arange(32)[::-1].copy()
    for tiled in (True, False):
        monkeypatch.setattr(block_mod, "TILED", tiled)
        out = np.zeros(96, np.int64)
        c = launch(k, 3, 32, args=(perm, out))
        assert c.load_chain_global == 2 and out.tolist() == list(range(32)) * 3


def test_a_lanes_value_added_to_in_place_by_a_held_one_counts_once(monkeypatch):
    # a = src[tx] through a plain index (a Lanes: counted), a += tx (the held value's ufunc, Lanes on the left): per
    # warp 2 (prologue) + 1 (the load's address) + 1 (+=) + 2 (bx · 32 + tx) + 1 (the store's address) = 7 int
    # instructions; 3 blocks of one warp: 21
    def k(blk, src, out):
        a = blk.load(src, np.asarray(blk.tx))
        a += blk.tx
        blk.store(out, blk.bx * 32 + blk.tx, a)

    for tiled in (True, False):
        monkeypatch.setattr(block_mod, "TILED", tiled)
        out = np.zeros(96, np.int64)
        c = launch(k, 3, 32, args=(np.arange(32) * 10, out))
        assert c.instr_by_kind["int"] == 21 and out.tolist() == (np.arange(96) % 32 * 11).tolist()


def test_held_values_count_as_the_lanes_they_stand_for():
    # tx % 4 < 2 in 3 blocks of 64 threads, counting on: 6 warps × (1 remainder (15 int + 3 other) + 1 ISETP);
    # a float compare is an FSETP ("other"); tx · 1.0 (a float result) is not counted here
    def k(blk):
        m = (blk.tx % 4) < 2
        f = blk.tx * 1.0
        assert type(m) is Tiled and type(f) is Tiled and m._counter is blk and f._counter is blk
        assert type(f < 3.0) is Tiled

    c = launch(k, 3, 64)
    body = {kind: n - 6 * (2 if kind in ("int", "other") else 1) for kind, n in c.instr_by_kind.items()}  # prologue
    assert body == {"int": 6 * (15 + 1), "other": 6 * (3 + 1), "ctrl": 0}


def _present_pages(v: np.ndarray) -> int:
    """How many of the memory pages ``v`` spans are mapped (present in RAM), from /proc/self/pagemap (Linux: bit 63
    of a page's 8-byte entry)."""
    page = mmap.PAGESIZE
    first, last = v.ctypes.data // page, (v.ctypes.data + v.nbytes - 1) // page
    with open("/proc/self/pagemap", "rb") as f:
        f.seek(first * 8)
        entries = np.frombuffer(f.read((last - first + 1) * 8), np.uint64)
    return int(np.count_nonzero(entries >> np.uint64(63)))


@pytest.mark.skipif(not Path("/proc/self/pagemap").exists(), reason="reads the process's page table (Linux)")
def test_a_large_zero_index_is_memory_no_one_has_touched(monkeypatch):
    # the reference path: 200 blocks × 512 threads of a 1-D grid and block: ty, tz, by and bz are zero on 102 400
    # lanes (800 KiB, 200 pages each). Made, none of their pages is mapped (np.zeros on memory the allocator hands
    # out again writes it, mapping those pages: 35 of ty's 200 here, run after the tests above); a kernel reads
    # zeros and may write one, as it may any index
    monkeypatch.setattr(block_mod, "TILED", False)
    blk = block_mod.Block("k", (300, 1, 1), (512, 1, 1), 100, 200, GlobalMemory({}, kernel="k"), Tally(), 49152)
    for name in ("ty", "tz", "by", "bz"):
        v = getattr(blk, name)
        assert v.dtype == np.int64 and v.shape == (102400,) and v.flags.writeable
        assert _present_pages(v) == 0, name
    blk.tz[7] = 3  # a write maps the page it writes, and no other
    assert _present_pages(blk.tz) == 1 and blk.tz[7] == 3 and blk.tz.sum() == 3
    assert not blk.ty.any() and not blk.by.any() and blk.bz[-1] == 0


@pytest.mark.parametrize("shape,other", [
    ((64,), ()), ((64,), (64,)), ((64,), (1,)), ((64, 3), (3,)), ((64, 3), (64, 1)), ((64, 3), (1, 3)),
    ((64, 1), (64, 3)), ((64,), (2, 64)), ((64, 2, 2), (2,)), ((64, 2, 2), (64, 1, 2)), ((), ()),
])
def test_keeps_shape_is_numpys_broadcast(shape, other):
    # blk.fma adds c to the product in place (and widens a in place) only when broadcasting keeps the shape:
    # (64, 3) with (3,) or (64, 1) keeps it; (64, 1) with (64, 3) and (64,) with (2, 64) do not
    assert block_mod._keeps_shape(shape, other) == (np.broadcast_shapes(shape, other) == shape)


def test_a_lanes_operand_leaves_the_ufunc_to_a_held_one():
    # Lanes + Tiled: the Lanes answers NotImplemented and the held value computes and counts it, once (every
    # lane's: a Lanes)
    counted = []

    class Counter:
        def _lane_op(self, cost, per_lane):
            counted.append(cost)

    ctr = Counter()
    a = Lanes.__new__(Lanes, (64,), np.int64)
    a[:] = np.arange(64)
    a._counter = ctr
    t = Tiled(np.arange(32).reshape(1, 32), 2, 32, ctr)
    r = a + t
    assert counted == [(("int", 1),)] and type(r) is Lanes and np.asarray(r).tolist() == (
        np.arange(64) + np.arange(64) % 32).tolist()
