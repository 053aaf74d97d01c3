"""Counts from the simulator on hand-derived access patterns, with the arithmetic beside each."""

from functools import partial

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernellab import Counts, allow_float64
from kernellab.simt import launch as _launch

# the hand-derived instruction counts here are the memory, FMA and barrier instructions alone; the integer
# and branch instructions counted automatically are derived in tests/test_simt_auto.py
launch = partial(_launch, auto_instr=False)


def one_load(index_fn, n_threads=32, vec=1, dtype=np.float32, size=4096, mask_fn=None):
    """Launch one block where thread t loads ``index_fn(t)`` once; return the counts."""
    src = np.arange(size).astype(dtype)

    def kernel(blk, src):
        t = blk.tx
        with blk.where(mask_fn(t) if mask_fn else t >= 0):
            blk.load(src, index_fn(t), vec=vec)

    return launch(kernel, 1, n_threads, args=(src,))


def gld(c: Counts):
    return c.gld_instr, c.gld_sectors, c.gld_lines, c.gld_bytes


def test_coalesced():
    # 32 consecutive floats from a 256-byte aligned base: 1 request, 128 B = 4 sectors = 1 line
    assert gld(one_load(lambda t: t)) == (1, 4, 1, 128)


def test_strided():
    # stride 32 floats = 128 B: each lane its own line → 32 sectors, 32 lines
    assert gld(one_load(lambda t: 32 * t)) == (1, 32, 32, 128)


def test_broadcast():
    # all lanes read element 7: 1 sector, 1 line, but 32 × 4 B requested
    assert gld(one_load(lambda t: 0 * t + 7)) == (1, 1, 1, 128)


def test_offset_by_one():
    # floats 1..32 = bytes 4..131: sectors 0..4 = 5, lines 0..1 = 2
    assert gld(one_load(lambda t: t + 1)) == (1, 5, 2, 128)


def test_gathered():
    # a permutation of 0..31 inside one line: still 4 sectors, 1 line
    perm = np.random.default_rng(0).permutation(32)
    assert gld(one_load(lambda t: perm[t])) == (1, 4, 1, 128)


def test_64_bit():
    # 32 doubles = 256 B: 8 sectors, 2 lines
    with allow_float64():
        assert gld(one_load(lambda t: t, dtype=np.float64)) == (1, 8, 2, 256)


def test_float4():
    # float4 at element 4t: 32 × 16 B = 512 B, one instruction: 16 sectors, 4 lines
    c = one_load(lambda t: 4 * t, vec=4)
    assert gld(c) == (1, 16, 4, 512)
    assert c.warp_instr == 1 and c.instr_by_kind == {"ld.global.v4": 1}  # PTX ld.global.v4.f32, SASS LDG.E.128


def test_partly_masked():
    # 64 threads, lanes t < 40 active: warp 0 full (4 sectors, 1 line), warp 1 has 8 lanes (1 sector, 1 line)
    c = one_load(lambda t: t, n_threads=64, mask_fn=lambda t: t < 40)
    assert gld(c) == (2, 5, 2, 160)
    # SIMT efficiency: 40 active lanes over 2 warp instructions × 32 = 40/64
    assert c.thread_instr == 40 and c.warp_instr == 2 and c.simt_efficiency() == 40 / 64


def test_warp_with_no_active_lane_issues_nothing():
    # 64 threads, only t < 32 active: the second warp issues nothing
    c = one_load(lambda t: t, n_threads=64, mask_fn=lambda t: t < 32)
    assert (c.gld_instr, c.warp_instr, c.simt_efficiency()) == (1, 1, 1.0)


def test_block_padded_to_whole_warps():
    # a block of 33 threads is 2 warps; 2 blocks = 4 warps, never one spanning both blocks:
    # each block: warp 0 reads 32 floats (4 sectors), warp 1 reads 1 float (1 sector)
    src = np.zeros(66, np.float32)

    def kernel(blk, src):
        blk.load(src, blk.bx * 33 + blk.tx)

    c = launch(kernel, 2, 33, args=(src,))
    assert c.gld_instr == 4 and c.thread_instr == 66 and c.warp_instr == 4
    # block 1's first warp reads floats 33..64 = bytes 132..259: sectors 4..8 = 5, lines 1..2 = 2
    assert c.gld_sectors == 4 + 1 + 5 + 1
    assert c.simt_efficiency() == 66 / 128


def test_simt_efficiency_partly_masked_grid():
    # n = 100 with blocks of 64: 2 blocks, 4 warps; active lanes 64 + 36 = 100 → warps with lanes: 32, 32, 32, 4.
    # Instructions: load, fma, store per active warp = 3 × 4 = 12 warp instructions, 3 × 100 thread instructions.
    x = np.ones(100, np.float32)

    def scale(blk, x, n):
        i = blk.bx * blk.bdx + blk.tx
        with blk.where(i < n):
            blk.store(x, i, blk.fma(blk.load(x, i), 2.0, 1.0))

    c = launch(scale, 2, 64, args=(x, 100))
    assert (c.warp_instr, c.thread_instr, c.fma) == (12, 300, 100)
    assert c.simt_efficiency() == pytest.approx(300 / (12 * 32))
    assert (x == 3.0).all()
    assert c.instr_by_kind == {"ld.global": 4, "fma": 4, "st.global": 4}


def test_stores_and_dram_sectors():
    # 64 threads store 64 floats = 256 B: 2 requests, 8 sectors, 2 lines; DRAM: 8 distinct sectors of y,
    # and x read twice over (two loads of the same 64 floats) still 8 distinct sectors
    x, y = np.ones(64, np.float32), np.zeros(64, np.float32)

    def k(blk, x, y):
        v = blk.load(x, blk.tx)
        v = v + blk.load(x, blk.tx)
        blk.store(y, blk.tx, v)

    c = launch(k, 1, 64, args=(x, y))
    assert (c.gst_instr, c.gst_sectors, c.gst_lines, c.gst_bytes) == (2, 8, 2, 256)
    assert c.gld_sectors == 16 and c.dram_sectors == {"x": 8, "y": 8}
    assert c.dram_bytes == 16 * 32


def test_index_matrix_is_one_instruction_per_column():
    # idx of shape (lanes, 3): three loads; each coalesced → 3 requests, 12 sectors
    src = np.zeros(256, np.float32)

    def k(blk, src):
        out = blk.load(src, blk.tx[:, None] + 32 * np.arange(3))
        assert out.shape == (blk.n_threads, 3)

    c = launch(k, 1, 32, args=(src,))
    assert (c.gld_instr, c.gld_sectors, c.warp_instr) == (3, 12, 3)


def tile_kernel(pattern, pad=0):
    """A 32×32 (+pad) float tile in shared memory: each thread writes a row element, then reads by pattern."""
    def kernel(blk, out):
        W = 32 + pad
        tile = blk.shared(32 * W, np.float32, name="tile")
        r, c = blk.tx // 32, blk.tx % 32
        blk.store(tile, r * W + c, (r * 32 + c).astype(np.float32))
        blk.syncthreads()
        idx = (r * W + c) if pattern == "rows" else (c * W + r)
        blk.store(out, blk.tx, blk.load(tile, idx))
    return kernel


@pytest.mark.parametrize("pattern, pad, wavefronts", [
    ("rows", 0, 32 * 1),      # a warp reads a row: 32 words in 32 banks → 1 wavefront × 32 warps
    ("cols", 0, 32 * 32),     # a warp reads a column: word 32·c → bank r for every lane → 32 wavefronts each
    ("cols", 1, 32 * 1),      # padded to 33: word 33·c + r → bank (c + r) mod 32, all different → 1 each
])
def test_shared_tile(pattern, pad, wavefronts):
    out = np.zeros(1024, np.float32)
    c = launch(tile_kernel(pattern, pad), 1, 1024, args=(out,))
    assert c.shld_instr == 32 and c.shld_ideal == 32
    assert c.shld_wavefronts == wavefronts and c.shld_conflicts == wavefronts - 32
    # the stores went by rows: conflict-free, 32 warps × 1 wavefront
    assert c.shst_wavefronts == c.shst_ideal == 32
    expected = np.arange(1024).reshape(32, 32)
    assert (out.reshape(32, 32) == (expected if pattern == "rows" else expected.T)).all()
    assert c.barriers == 1 and c.instr_by_kind["bar.sync"] == 32


def test_fma_counts_elements_per_lane():
    # a (lanes, 4, 2) result is 8 FMAs per lane: 32 lanes × 8 = 256 FMAs, 8 warp instructions
    def k(blk):
        r = blk.fma(np.ones((blk.n_threads, 4, 1), np.float32), np.ones((1, 2), np.float32), 1.0)
        assert r.shape == (32, 4, 2) and (r == 2).all()

    c = launch(k, 1, 32)
    assert (c.fma, c.warp_instr, c.thread_instr) == (256, 8, 256)


def test_fma_rounds_once():
    # (1 + 2⁻²³)·(1 − 2⁻²³) = 1 − 2⁻⁴⁶; minus 1 → −2⁻⁴⁶ exactly with one rounding, 0 with two
    a, b = np.float32(1 + 2**-23), np.float32(1 - 2**-23)

    def k(blk, out):
        blk.store(out, blk.tx, blk.fma(a, b, np.float32(-1)))

    out = np.zeros(32, np.float32)
    launch(k, 1, 32, args=(out,))
    assert out[0] == np.float32(-(2.0**-46))


def test_fma_rounds_once_where_float64_lands_on_a_tie():
    # a·b = 64·(1 + 2^-12)·(1 − 4095·2^-24) = 64 + 2^-30 exactly; + 2^30: float64 (spacing 2^-22) gives 2^30 + 64,
    # the tie of the float32 values 2^30 and 2^30 + 128, which a second rounding sends to even, 2^30; one
    # rounding of the exact sum (2^-30 above the tie) gives 2^30 + 128, as fmaf does. Lane 1: c = 2^30 + 256,
    # the tie of 2^30 + 256 and 2^30 + 384 → 2^30 + 384. Lane 2: c = 1, exact: 65 + 2^-30 → 65.
    a, b = np.float32(64 * (1 + 2**-12)), np.float32(1 - 4095 * 2**-24)
    c = np.zeros(32, np.float32)
    c[0], c[1], c[2:] = 2**30, 2**30 + 256, 1

    def k(blk, cs, out):
        blk.store(out, blk.tx, blk.fma(a, b, blk.load(cs, blk.tx)))

    out = np.zeros(32, np.float32)
    launch(k, 1, 32, args=(c, out))
    assert out[:3].tolist() == [2**30 + 128, 2**30 + 384, 65]


def test_fma_converts_python_numbers_to_float32_first():
    # fmaf(x, 0.1, y) in C takes (float)0.1 = 13421773·2^-27 (0.1·2^27 = 13421772.8), not the double 0.1.
    # fma(9, 0.1, 0): 9·13421773 = 120795957 (·2^-27), exact; float32's spacing in [0.5, 1) is 2^-24 = 8·2^-27 and
    #   120795957 / 8 = 15099494.625 → 15099495·2^-24; the double 0.1 gives 9·0.1·2^24 = 15099494.4 → 15099494·2^-24.
    # fma(3, 1 + 2^-24 + 2^-50, 0): (float)b = 1 + 2^-23 (b lies above the tie 1 + 2^-24); 3·(1 + 2^-23) = 3 + 1.5·2^-22,
    #   the tie of 3 + 2^-22 (odd) and 3 + 2^-21 (even) → 3 + 2^-21; the double b: 3 + 0.75·2^-22 + 3·2^-50 → 3 + 2^-22.
    # fma(1, 1, 2^-24 + 2^-50): (float)c = 2^-24 (2^-50 is under half of float32's spacing 2^-47 there); 1 + 2^-24 is
    #   the tie of 1 and 1 + 2^-23 → even, 1; the double c lies above the tie → 1 + 2^-23.
    def k(blk, out):
        blk.store(out, blk.tx, blk.fma(np.float32(9), 0.1, 0.0))
        blk.store(out, blk.tx + 32, blk.fma(np.float32(3), 1 + 2**-24 + 2**-50, 0))
        blk.store(out, blk.tx + 64, blk.fma(1, 1, 2**-24 + 2**-50))

    out = np.zeros(96, np.float32)
    launch(k, 1, 32, args=(out,))
    assert out[0] == 15099495 * 2.0**-24 and (out[:32] == out[0]).all()
    assert out[32] == 3 + 2.0**-21 and (out[32:64] == out[32]).all()
    assert out[64] == 1 and (out[64:] == 1).all()


def test_inactive_lanes_keep_fma_accumulator():
    def k(blk, out):
        acc = np.full(blk.n_threads, 5, np.float32)
        with blk.where(blk.tx < 3):
            acc = blk.fma(1.0, 1.0, acc)
        blk.store(out, blk.tx, acc)

    out = np.zeros(32, np.float32)
    c = launch(k, 1, 32, args=(out,))
    assert out[:3].tolist() == [6, 6, 6] and (out[3:] == 5).all() and c.fma == 3


def test_count_instr_and_cuda_names():
    def k(blk):
        assert blk.threadIdx.x is blk.tx and blk.blockDim.x == 8 and blk.gridDim.y == 2
        with blk.where(blk.tx < 4):
            blk.count_instr("iadd", 2)

    c = launch(k, (1, 2), 8)
    # 2 blocks × 1 warp × 2 instructions; 2 blocks × 4 lanes × 2
    assert c.instr_by_kind == {"iadd": 4} and c.thread_instr == 16


def test_array_not_passed_as_argument_is_placed_on_first_use():
    # a module-level array the kernel closes over: placed after the arguments, counted under its own name
    table = np.arange(64, dtype=np.float32)
    x = np.zeros(32, np.float32)

    def k(blk, x):
        blk.store(x, blk.tx, blk.load(table, 2 * blk.tx))  # stride 8 B: 256 B = 8 sectors

    c = launch(k, 1, 32, args=(x,))
    assert x[5] == 10 and c.gld_sectors == 8
    assert c.dram_sectors == {"x": 4, "global1": 8}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 1023), min_size=1, max_size=96), st.integers(0, 96))
def test_laws_through_the_simulator(indices, n_active):
    # any gather, any prefix of active threads: sectors ≥ requests, lines ≤ sectors,
    # bytes = active lanes × 4, distinct DRAM sectors ≤ sectors
    idx = np.asarray(indices)
    src = np.zeros(1024, np.float32)

    def k(blk, src):
        with blk.where(blk.tx < n_active):
            blk.load(src, idx[blk.tx % idx.size])

    c = launch(k, 1, len(indices), args=(src,))
    active = min(n_active, len(indices))
    assert c.gld_sectors >= c.gld_instr and c.gld_lines <= c.gld_sectors
    assert c.gld_bytes == 4 * active and c.thread_instr == active
    assert c.gld_instr == -(-active // 32)
    assert c.dram_sectors.get("src", 0) <= c.gld_sectors


def test_lsu_instructions_are_the_memory_instructions_of_both_spaces():
    def k(blk, x, y):
        sh = blk.shared(64, np.float32, name="sh")
        blk.store(sh, blk.tx, blk.load(x, blk.tx))  # 2 warps: 2 global loads, 2 shared stores
        blk.syncthreads()
        blk.store(y, blk.tx, blk.load(sh, 63 - blk.tx))  # 2 shared loads, 2 global stores
    x, y = np.arange(64, dtype=np.float32), np.zeros(64, np.float32)
    c = launch(k, 1, 64, args=(x, y))
    assert y.tolist() == x[::-1].tolist()
    assert (c.gld_instr, c.gst_instr, c.shld_instr, c.shst_instr, c.lsu_instr) == (2, 2, 2, 2, 8)


def test_a_predicated_body_repeats_every_column_of_a_shared_access():
    # 2 warps; only warp 0 enters the region (tx < 32), a short body, so it is predicated: warp 1 issues it
    # too, with no lane. The body's shared load has a 2-column index: 2 LDS a warp. Warp 0's 2 move data
    # (shld_instr); warp 1's 2 are issued with no active lane: 2 + 2 = 4 ld.shared warp instructions.
    def k(blk, out):
        sh = blk.shared(128, np.float32, name="sh")
        idx = np.stack([blk.tx % 32, blk.tx % 32 + 64], axis=1)
        with blk.where(blk.tx < 32):
            blk.load(sh, idx)
    c = launch(k, 1, 64, args=(np.zeros(1, np.float32),), auto_instr=True)
    assert c.shld_instr == 2 and c.instr_by_kind["ld.shared"] == 2 + 2


def test_a_predicated_body_issues_a_vector_shared_load_as_its_vector_instruction():
    # as above with a float4 load (the index made before the region, so the body is the load alone, 1 ≤ 12 a warp:
    # predicated): warp 0's LDS.128 (ld.shared.v4) moves 16 B a lane; warp 1 issues the same LDS.128 with no lane:
    # 1 + 1 = 2 ld.shared.v4, and no 32-bit ld.shared
    def k(blk, out):
        sh = blk.shared(128, np.float32, name="sh")
        i = 4 * (blk.tx % 32)
        with blk.where(blk.tx < 32):
            blk.load(sh, i, vec=4)
    c = launch(k, 1, 64, args=(np.zeros(1, np.float32),), auto_instr=True)
    assert c.shld_instr == 1 and c.instr_by_kind["ld.shared.v4"] == 1 + 1 and "ld.shared" not in c.instr_by_kind


def test_one_lanes_atomic_is_one_update_of_one_address():
    # thread 0 alone adds 1 to bins[5]: 1 request, and the most updates any address gets is 1
    def k(blk, bins):
        with blk.where(blk.tx == 0):
            blk.atomic_add(bins, blk.tx * 0 + 5, 1)
    bins = np.zeros(8, np.int32)
    c = launch(k, 1, 32, args=(bins,))
    assert bins.tolist() == [0, 0, 0, 0, 0, 1, 0, 0]
    assert (c.atomic_requests, c.atomic_same_address) == (1, 1)


def test_atomics_on_two_arrays_count_the_most_updates_any_one_element_gets():
    # one warp. a: all 32 lanes add to a[0] of a 4-element array; the L1 merges 16 lanes to an update, so a[0] gets
    # ⌈32 ÷ 16⌉ = 2 updates and a[1], a[2], a[3] none. b: lane t adds to b[t], 1 update each. The most any one
    # address gets is max(2, 1) = 2: the largest over every element of every array, not the fewest of an array
    # (a[1]'s 0) nor the smallest array's largest (b's 1). 2 atom.global requests, one a warp and instruction
    def k(blk, a, b):
        blk.atomic_add(a, blk.tx * 0, 1)
        blk.atomic_add(b, blk.tx, 1)
    a, b = np.zeros(4, np.int32), np.zeros(32, np.int32)
    c = launch(k, 1, 32, args=(a, b))
    assert a.tolist() == [32, 0, 0, 0] and b.tolist() == [1] * 32
    assert (c.atomic_requests, c.atomic_same_address) == (2, 2)


def test_shared_memory_read_before_any_thread_wrote_it():
    # CUDA leaves shared memory undefined: a float array starts NaN (so such a read shows in the result), an
    # integer one 0 (it has no NaN)
    def k(blk, f, i):
        fs, ints = blk.shared(32, np.float32, name="fs"), blk.shared(32, np.int32, name="ints")
        blk.store(f, blk.tx, blk.load(fs, blk.tx))
        blk.store(i, blk.tx, blk.load(ints, blk.tx))
    f, i = np.zeros(32, np.float32), np.full(32, 7, np.int32)
    launch(k, 1, 32, args=(f, i), auto_instr=False)
    assert np.isnan(f).all() and not i.any()


def test_arithmetic_on_a_value_one_shared_load_deep_keeps_its_chain():
    # s = sh[tx] is one shared load deep (chain: 0 global, 1 shared); s ^ 1 keeps that chain, so the load at s ^ 1 is
    # the chain's second shared load: the launch's chains are global 0, shared 2 (arithmetic that dropped its
    # operand's chain would make it shared 1). sh holds tx, so out[tx] = sh[tx ^ 1] = tx ^ 1
    def k(blk, out):
        sh = blk.shared(32, np.int32)
        blk.store(sh, blk.tx, blk.tx)
        blk.syncthreads()
        s = blk.load(sh, blk.tx)
        blk.store(out, blk.tx, blk.load(sh, s ^ 1))
    out = np.zeros(32, np.int32)
    c = _launch(k, 1, 32, args=(out,))
    assert (c.load_chain_global, c.load_chain_shared) == (0, 2)
    assert out.tolist() == [t ^ 1 for t in range(32)]


def test_a_sum_keeps_each_kind_of_load_chain_apart():
    # p: one global load (chain: 1 global, 0 shared); s: two dependent shared loads (0, 2). s + p keeps the longer of
    # each kind, (1, 2), not the longer of either: the int load of x at s + p is then 2 global loads deep, and the
    # launch's chains are global 2, shared 2 (taking the shared 2 into the global one would make it 3)
    def k(blk, perm, x, out):
        sh = blk.shared(32, np.int32)
        p = blk.load(perm, blk.tx)
        blk.store(sh, blk.tx, p)
        blk.syncthreads()
        s = blk.load(sh, blk.load(sh, blk.tx))
        blk.store(out, blk.tx, blk.load(x, s + p))
    perm, x, out = np.arange(32, dtype=np.int32), np.arange(64, dtype=np.int32), np.zeros(32, np.int32)
    c = _launch(k, 1, 32, args=(perm, x, out))
    assert (c.load_chain_global, c.load_chain_shared) == (2, 2)
    assert out.tolist() == list(range(0, 64, 2))  # x[tx + tx]


def test_a_warp_with_one_lane_on_issues_the_instruction():
    # 4 warps; in each one lane loads: lane 0 (the first 8-lane group), 9, 18, 31 (the last): 4 warp instructions
    # (issued, and requests), 4 lanes × 4 B; then lanes 31 and 63 only: 2 and 8 B (the warps with none issue nothing)
    def k(lanes):
        def kernel(blk, x):
            with blk.where(np.isin(blk.tx, lanes)):
                blk.load(x, blk.tx)
        return kernel

    x = np.zeros(128, np.float32)
    c = launch(k([0, 32 + 9, 64 + 18, 96 + 31]), 1, 128, args=(x,))
    assert (c.warp_instr, c.gld_instr, c.gld_bytes) == (4, 4, 16)
    c = launch(k([31, 63]), 1, 128, args=(x,))
    assert (c.warp_instr, c.gld_instr, c.gld_bytes) == (2, 2, 8)


def test_barriers_of_whole_blocks_and_of_the_blocks_a_branch_keeps():
    # 3 blocks of 48 threads (2 warps each, the second with 16 threads and 16 padding lanes): a barrier outside any
    # blk.where is reached by all 3 blocks, 6 warps; one under blk.where(bx != 1) by blocks 0 and 2, 4 warps; one under
    # blk.where(tx < 48) (every thread, a mask of its own) by all 3 again: 3 + 2 + 3 = 8 barriers, 6 + 4 + 6 = 16 bar.sync
    def k(blk):
        blk.syncthreads()
        with blk.where(blk.bx != 1):
            blk.syncthreads()
        with blk.where(blk.tx < 48):
            blk.syncthreads()

    c = launch(k, 3, 48)
    assert (c.barriers, c.instr_by_kind["bar.sync"]) == (8, 16)


def test_a_masked_store_to_one_element_keeps_the_later_lanes_value():
    # global stores take effect in lane order (lane by lane, a lane's columns in order); under a mask:
    # 1-D: odd lanes of 32 store tx to out[tx // 4]: element e gets lanes 4e + 1, then 4e + 3 → 4e + 3
    def one(blk, out):
        with blk.where(blk.tx % 2 == 1):
            blk.store(out, blk.tx // 4, blk.tx.astype(np.float32))

    out = np.full(8, -1, np.float32)
    launch(one, 1, 32, args=(out,))
    assert out.tolist() == [4.0 * e + 3 for e in range(8)]

    # 2-D: lanes below 20 store 10·tx to out[tx] and 10·tx + 1 to out[tx + 1]: element e (1 ≤ e ≤ 19) gets lane
    # e − 1's second (10e − 9) and then lane e's first (10e), which stays; element 20 only lane 19's second, 191
    def two(blk, out):
        with blk.where(blk.tx < 20):
            cols = np.stack([blk.tx, blk.tx + 1], axis=1)
            vals = np.stack([10 * blk.tx, 10 * blk.tx + 1], axis=1).astype(np.float32)
            blk.store(out, cols, vals)

    out = np.full(33, -1, np.float32)
    launch(two, 1, 32, args=(out,))
    assert out.tolist() == [10.0 * e for e in range(20)] + [191.0] + [-1.0] * 12
