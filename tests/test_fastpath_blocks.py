"""``blk.fma`` on values equal in every block of a batch: computed for the first block and copied to the others
(``block._first_block``, an optimisation), it gives the bits, counts and errors of the whole batch computed.
The reference is the same launch with ``_first_block`` answering None (the whole batch computed).

And a block's large all-zero indices (``Block._spread``) are memory whose pages nothing has mapped yet.
"""

import dataclasses
import mmap
from pathlib import Path

import numpy as np
import pytest

import kernellab.simt.block as block_mod
from kernellab.simt import launch
from kernellab.simt.memory import GlobalMemory
from kernellab.simt.tally import Tally


def whole_batch(monkeypatch):
    monkeypatch.setattr(block_mod, "_first_block", lambda *a: None)


def taken(monkeypatch):
    """Record the shapes ``_fused`` computes, to see whether the first block alone was computed."""
    shapes, real = [], block_mod._fused
    monkeypatch.setattr(block_mod, "_fused", lambda a, b, c: shapes.append(np.broadcast_shapes(
        np.shape(a), np.shape(b), np.shape(c))) or real(a, b, c))
    return shapes


def _specials(rng, shape, dtype):
    """Values of ``dtype`` with ±0, ±inf, quiet NaNs with payloads, subnormals and float32 ties among them."""
    if np.dtype(dtype).kind in "biu":
        return rng.integers(0, 2 if dtype is bool else 1000, shape).astype(dtype)
    x = rng.standard_normal(shape) * 2.0 ** rng.integers(-140, 120, shape)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 3.4028235e38, 2.0**30, 64 * (1 + 2**-12)])
    x = np.where(rng.random(shape) < 0.3, special[rng.integers(0, special.size, shape)], x)
    with np.errstate(all="ignore"):
        x = x.astype(dtype)
    if x.dtype == np.float32:
        nan = rng.random(shape) < 0.1
        x.view(np.uint32)[nan] = 0x7FC00000 | rng.integers(1, 1 << 22, int(nan.sum())).astype(np.uint32)
    return x


def _per_block(one_block, blocks):
    """``one_block`` (a block's lanes, first axis) repeated for ``blocks`` blocks."""
    return np.concatenate([one_block] * blocks)


@pytest.mark.parametrize("seed", range(3))
def test_equal_blocks_give_the_whole_batchs_bits(seed, monkeypatch):
    # random launches of 2–5 blocks (32, 33 or 64 threads; lanes, lanes × 3), operands equal in every block or
    # not (a random lane of a random block changed), numbers or arrays, under a mask or not: the same bits, shape
    # and type as the whole batch computed; and the equal-block cases computed on one block's lanes only
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(40):
        blocks, threads = int(rng.integers(2, 6)), int(rng.choice([32, 33, 64]))
        per = -(-threads // 32) * 32
        extra = [(), (3,)][rng.integers(2)]
        dtype = [np.float32, np.float32, np.float64, np.float16, np.int64, bool][rng.integers(6)]
        a = _per_block(_specials(rng, (per, *extra), dtype), blocks)
        b = _per_block(_specials(rng, (per, *extra), np.float32), blocks) if rng.integers(2) else float(
            _specials(rng, (1,), np.float32)[0])
        c = _per_block(_specials(rng, (per, *extra), np.float32), blocks) if rng.integers(2) else np.float32(1.5)
        equal = bool(rng.integers(3))
        if not equal:  # one lane of one block other than the first: that block is not the first block's
            lane = int(rng.integers(per, per * blocks))
            a = a.copy()
            a.reshape(per * blocks, -1)[lane, 0] = np.array(a.reshape(per * blocks, -1)[lane, 0] + 1).astype(a.dtype) \
                if a.dtype != bool else not a.reshape(per * blocks, -1)[lane, 0]
            equal = bool(np.array_equal(a.reshape(blocks, -1).view(np.uint8)[0], a.reshape(blocks, -1).view(np.uint8)[
                lane // per]))  # (+1 can leave it as it was: inf, NaN, huge values)
        cases.append((blocks, threads, a, b, c, bool(rng.integers(2)), equal))

    def run():
        out = []
        for blocks, threads, a, b, c, masked, _equal in cases:
            def k(blk, a=a, b=b, c=c, masked=masked):
                with np.errstate(all="ignore"), blk.where(blk.tx % 3 != 1 if masked else blk.tx >= 0):
                    out.append(blk.fma(a, b, c))
            out.append(launch(k, blocks, threads))
        return out

    with monkeypatch.context() as m:
        shapes = taken(m)
        fast = run()
    with monkeypatch.context() as m:
        whole_batch(m)
        ref = run()
    assert len(fast) == len(ref) == 80
    for f, r in zip(fast[0::2], ref[0::2]):
        assert type(f) is type(r) is np.ndarray and f.dtype == r.dtype == np.float32 and f.shape == r.shape
        assert f.tobytes() == r.tobytes()
    for f, r in zip(fast[1::2], ref[1::2]):
        assert dataclasses.asdict(f) == dataclasses.asdict(r)
    lanes = [-(-threads // 32) * 32 for blocks, threads, *_ in cases]
    assert [s[0] for s in shapes] == [per if equal else per * blocks
                                      for per, (blocks, _t, _a, _b, _c, _m, equal) in zip(lanes, cases)]
    assert sum(equal for *_, equal in cases) >= 10  # the fast path was taken often enough to be tested


def _five_blocks(lane, value):
    """5 blocks of 32 threads: lane l of every block holds ``l``, but ``lane`` (of the batch) holds ``value``."""
    a = np.tile(np.arange(32, dtype=np.float32), 5)
    a[lane] = value
    return a


@pytest.mark.parametrize("middle,want", [
    (2.0, 2.0 * 3 + 1),  # a value: fma(2, 3, 1) = 7 where the other blocks' lane 5 gives fma(5, 3, 1) = 16
    (-0.0, None),  # the sign of zero: fma(-0, 3, -0) = -0, the other blocks' lane 5 gives fma(5, 3, -0) = 15
])
def test_a_block_that_differs_in_one_lane_is_computed_for_itself(middle, want):
    # lane 5 of block 3 of 5: the blocks compared first are 1, 2 (the middle) and 4 (the last), so only comparing
    # every block finds it; a comparison of values (not of bits) would take -0.0 for the other blocks' 0.0 at lane 0
    a = _five_blocks(3 * 32 + 5, middle)
    c = np.float32(1.0) if want is not None else np.float32(-0.0)
    out = []
    launch(lambda blk: out.append(blk.fma(a, 3.0, c)), 5, 32)
    r = out[0]
    if want is not None:
        assert r[3 * 32 + 5] == want and r[5] == r[4 * 32 + 5] == 16.0
    else:
        assert r[3 * 32 + 5] == 0.0 and np.signbit(r[3 * 32 + 5])  # -0·3 + (-0) = -0
        assert r[5] == r[4 * 32 + 5] == 15.0
    a0 = _five_blocks(3 * 32, -0.0)  # lane 0 of block 3 -0.0, of the others +0.0: -0·3 + (-0) = -0, +0·3 + (-0) = +0
    out.clear()
    launch(lambda blk: out.append(blk.fma(a0, 3.0, np.float32(-0.0))), 5, 32)
    assert np.signbit(out[0][::32]).tolist() == [False, False, False, True, False]


def test_every_operand_is_compared():
    # a (lane l holds l) and b (2) equal in every block; c 0 except lane 5 of block 3, 100: fma(5, 2, 100) = 110
    # there, 2·l elsewhere; and c equal in every block, b 3 at that lane instead of 2: fma(5, 3, 0) = 15 there
    a = _five_blocks(0, 0.0)
    c = np.zeros(160, np.float32)
    c[3 * 32 + 5] = 100
    out = []
    launch(lambda blk: out.append(blk.fma(a, 2.0, c)), 5, 32)
    b = np.full(160, 2, np.float32)
    b[3 * 32 + 5] = 3
    launch(lambda blk: out.append(blk.fma(a, b, np.float32(0))), 5, 32)
    for r, want in zip(out, (110, 15)):
        assert r[3 * 32 + 5] == want and r[5] == r[4 * 32 + 5] == 10 and r[3 * 32 + 6] == 12


def test_a_nan_payload_of_one_block_is_kept():
    # quiet NaNs with payload 1 in blocks 0, 1, 2, 4 and 2 in block 3 at lane 7: fma keeps a's payload, lane by
    # lane (NaN · 1 + 1 is that NaN); equal as values they are not the same bits, so block 3 is computed for itself
    a = np.tile(np.arange(32, dtype=np.float32), 5)
    a.view(np.uint32)[7::32] = 0x7FC00001
    a.view(np.uint32)[3 * 32 + 7] = 0x7FC00002
    out = []
    launch(lambda blk: out.append(blk.fma(a, 1.0, 1.0)), 5, 32)
    assert out[0].view(np.uint32)[7::32].tolist() == [0x7FC00001] * 3 + [0x7FC00002, 0x7FC00001]


def test_a_chain_of_dependent_fmas_on_thread_indices(monkeypatch):
    # the waves page's kernel at 4 blocks of 64 threads: v = tx, then v = v·1 + 1 64 times, so y = tx + 64 (exact
    # in float32); 4 blocks × 2 warps × 64 FMAs = 512 warp FMA instructions, 256 threads × 64 = 16 384 FMAs;
    # every FMA after the first on one block's 64 lanes (the first's operand is tx · 1.0, equal in every block)
    def fma_chain(blk, y):
        v = blk.tx * 1.0
        for _ in range(64):
            v = blk.fma(v, 1.0, 1.0)
        blk.store(y, blk.bx * blk.bdx + blk.tx, v)

    with monkeypatch.context() as m:
        shapes = taken(m)
        y = np.zeros(256, np.float32)
        c = launch(fma_chain, 4, 64, args=(y,))
    assert y.tolist() == [float(t % 64 + 64) for t in range(256)]
    assert (c.fma, c.instr_by_kind["fma"]) == (16384, 512)
    assert shapes == [(64,)] * 64
    with monkeypatch.context() as m:
        whole_batch(m)
        y_ref = np.zeros(256, np.float32)
        ref = launch(fma_chain, 4, 64, args=(y_ref,))
    assert y.tobytes() == y_ref.tobytes() and dataclasses.asdict(c) == dataclasses.asdict(ref)


def test_one_block_and_unequal_shapes_take_the_whole_batch():
    # one block: nothing to copy; operands of different shapes (lanes × 1 against lanes × 3) or not contiguous:
    # the whole batch, as before (the shapes' broadcast and its errors are numpy's own)
    assert block_mod._first_block(1, 32, np.zeros(32, np.float32), 1.0, 1.0) is None
    two = np.zeros(64, np.float32)
    assert block_mod._first_block(2, 64, two.reshape(64, 1), np.zeros((64, 3), np.float32), 1.0) is None
    assert block_mod._first_block(2, 64, np.zeros((64, 2), np.float32)[:, 0], 1.0, 1.0) is None
    assert block_mod._first_block(2, 64, 1.0, np.float32(2.0), 3) is None  # no lanes at all
    first = block_mod._first_block(2, 64, two, np.float32(2.0), two)
    assert [np.shape(x) for x in first] == [(32,), (), (32,)]


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
def test_a_large_zero_index_is_memory_no_one_has_touched():
    # 200 blocks × 512 threads of a 1-D grid and block: ty, tz, by and bz are zero on 102 400 lanes (800 KiB, 200
    # pages each). Made, none of their pages is mapped (np.zeros on memory the allocator hands out again writes it,
    # mapping those pages: 35 of ty's 200 here, run after the tests above); a kernel reads zeros and may write one,
    # as it may any index
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
