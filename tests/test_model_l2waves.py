"""L2 wave model of launch order: tile_order, and seed 000 demo 2's numbers, exactly."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kernellab.model import dram_bytes_tiled, tile_order, wave_footprints


def _ratio(n_sm, bm, bn, group):
    base = dram_bytes_tiled(4096, bm, bn, 1, n_sm, elem=2, group=None)
    return dram_bytes_tiled(4096, bm, bn, 1, n_sm, elem=2, group=group) / base


# --- tile_order -------------------------------------------------------------------------------------------

def test_row_major_order():
    pm, pn = tile_order(2, 3)
    assert pm.tolist() == [0, 0, 0, 1, 1, 1]
    assert pn.tolist() == [0, 1, 2, 0, 1, 2]


def test_grouped_order_by_hand():
    # 5×2 tiles, GROUP_M=2: group 0 = rows 0–1 (pids 0–3, column by column), group 1 = rows 2–3,
    # group 2 = the short group of row 4 alone (group_size_m = min(5 − 4, 2) = 1)
    pm, pn = tile_order(5, 2, group=2)
    assert list(zip(pm.tolist(), pn.tolist(), strict=True)) == [
        (0, 0), (1, 0), (0, 1), (1, 1), (2, 0), (3, 0), (2, 1), (3, 1), (4, 0), (4, 1)]


def test_group_1_is_row_major_and_a_whole_group_is_column_major():
    for a, b in zip(tile_order(4, 6, group=1), tile_order(4, 6), strict=True):
        assert np.array_equal(a, b)
    pm, pn = tile_order(4, 6, group=4)
    assert np.array_equal(pn, np.arange(24) // 4) and np.array_equal(pm, np.arange(24) % 4)


@given(st.integers(1, 40), st.integers(1, 40), st.one_of(st.none(), st.integers(1, 50)))
def test_every_tile_exactly_once(num_m, num_n, group):
    pm, pn = tile_order(num_m, num_n, group)
    assert len(pm) == num_m * num_n
    assert sorted(zip(pm.tolist(), pn.tolist(), strict=True)) == [(m, n) for m in range(num_m) for n in range(num_n)]


def test_bad_tile_order_arguments():
    with pytest.raises(ValueError):
        tile_order(0, 3)
    with pytest.raises(ValueError):
        tile_order(3, 3, group=0)
    with pytest.raises(ValueError):
        wave_footprints(3, 3, 0)


# --- seed 000 demo 2: the 9×9 example ----------------------------------------------------------------------

def test_seed000_nine_by_nine_first_nine_programs():
    # row-major: programs 0–8 are block-row 0: 1 row of A × 9 K-blocks + 9 cols of B × 9 = 9 + 81 = 90
    # GROUP_M=3: programs 0–8 are rows 0–2 × cols 0–2: 3 × 9 + 3 × 9 = 27 + 27 = 54
    (rows, cols), = wave_footprints(9, 9, 9)[:1]
    assert (rows, cols, (rows + cols) * 9) == (1, 9, 90)
    (rows, cols), = wave_footprints(9, 9, 9, group=3)[:1]
    assert (rows, cols, (rows + cols) * 9) == (3, 3, 54)


def test_seed000_nine_by_nine_whole_matmul_in_bytes():
    # 9 waves of 9 programs, blocks of 16×16 FP16 = 512 B; K = 9 blocks.
    # Row-major: every wave 90 blocks → 9 × 90 × 512 B; grouped: every wave 54 → 9 × 54 × 512 B; C 144² × 2 B
    blk, c = 16 * 16 * 2, 144 * 144 * 2
    assert dram_bytes_tiled(144, 16, 16, 1, 9, elem=2) == 9 * 90 * blk + c
    assert dram_bytes_tiled(144, 16, 16, 1, 9, elem=2, group=3) == 9 * 54 * blk + c


# --- seed 000 demo 2: 4096³ FP16, one CTA per SM ------------------------------------------------------------

def test_wave_footprints_by_hand():
    # A100, 128×128 (32×32 tiles), row-major: wave k = ids 108k … 108k+107 = rows ⌊108k/32⌋ … ⌊(108k+107)/32⌋
    assert wave_footprints(32, 32, 108) == [(4, 32), (4, 32), (5, 32), (4, 32), (4, 32), (5, 32), (4, 32),
                                            (4, 32), (4, 32), (2, 32)]
    # GROUP_M=8: a group is 8 × 32 = 256 ids; wave 0 = ids 0–107 = 8 rows × cols 0–13 (⌊107/8⌋ = 13)
    assert wave_footprints(32, 32, 108, group=8)[0] == (8, 14)
    # wave 2 = ids 216–323 crosses from group 0 into group 1: 16 rows
    assert wave_footprints(32, 32, 108, group=8)[2] == (16, 14)


def test_seed000_128x128_group8_at_69_to_77_percent():
    # In units of 4096 × 2 B, reads = (Σ rows + Σ cols) × 128, C = 4096.
    # A100 row-major: rows 40, cols 10 × 32 = 320 → 360 × 128 + 4096 = 50176
    # A100 GROUP_M=8: rows 8+8+16+8+16+8+8+16+8+8 = 104, cols 9 × 14 + 7 = 133 → 237 × 128 + 4096 = 34432
    assert _ratio(108, 128, 128, 8) == pytest.approx(34432 / 50176)  # 0.686
    # H100 row-major: rows 7 × 5 + 4 = 39, cols 8 × 32 = 256 → 295 × 128 + 4096 = 41856
    # H100 GROUP_M=8: rows 8+16+8+16+8+16+8+8 = 88, cols 7 × 17 + 13 = 132 → 220 × 128 + 4096 = 32256
    assert _ratio(132, 128, 128, 8) == pytest.approx(32256 / 41856)  # 0.771
    assert (f"{_ratio(108, 128, 128, 8):.0%}", f"{_ratio(132, 128, 128, 8):.0%}") == ("69%", "77%")


def test_seed000_128x256_only_group16_reaches_87_to_89_percent():
    # 128×256: 32 × 16 tiles. A100 row-major: rows 7+8+8+7+5 = 35 (× 128), cols 5 × 16 = 80 (× 256)
    #   → 4480 + 20480 + 4096 = 29056; GROUP_M=16: rows 16+16+32+16+16 = 96, cols 7+8+8+7+5 = 35
    #   → 12288 + 8960 + 4096 = 25344; 25344 / 29056 = 0.872
    assert _ratio(108, 128, 256, 16) == pytest.approx(25344 / 29056)
    # H100 row-major: rows 9+9+9+8 = 35, cols 4 × 16 = 64 → 4480 + 16384 + 4096 = 24960
    #   GROUP_M=16: rows 16+24+16+16 = 72, cols 9+9+9+8 = 35 → 9216 + 8960 + 4096 = 22272; 0.892
    assert _ratio(132, 128, 256, 16) == pytest.approx(22272 / 24960)
    assert (f"{_ratio(108, 128, 256, 16):.0%}", f"{_ratio(132, 128, 256, 16):.0%}") == ("87%", "89%")
    # the other groups save nothing on 128×256: all at 100 % of row-major or above
    for n_sm in (108, 132):
        for g in (4, 8):
            assert _ratio(n_sm, 128, 256, g) >= 1.0


def test_seed000_group4_can_be_worse_than_row_major():
    worse = {(n_sm, bn) for n_sm in (108, 132) for bn in (128, 256) if _ratio(n_sm, 128, bn, 4) > 1}
    # all but A100 128×128 (91 %): a wave of 108 or 132 spans two or three 4-row groups
    assert worse == {(132, 128), (108, 256), (132, 256)}
    assert _ratio(108, 128, 128, 4) < 1


def test_seed000_table_as_printed():
    table = {(n_sm, bn, g): f"{_ratio(n_sm, 128, bn, g):.0%}" for n_sm in (108, 132) for bn in (128, 256)
             for g in (4, 8, 16)}
    assert table == {
        (108, 128, 4): "91%", (108, 128, 8): "69%", (108, 128, 16): "71%",
        (108, 256, 4): "106%", (108, 256, 8): "100%", (108, 256, 16): "87%",
        (132, 128, 4): "104%", (132, 128, 8): "77%", (132, 128, 16): "75%",
        (132, 256, 4): "105%", (132, 256, 8): "108%", (132, 256, 16): "89%",
    }


# --- non-square and partial tiles --------------------------------------------------------------------------

def test_non_square_with_partial_tiles_by_hand():
    # M=100, N=70, K=50, 32×32 tiles: 4 × 3 tiles, the last row of tiles has 4 rows, the last col 6 cols.
    # One wave holding all 12 tiles reads A and B once: (100 + 70) × 50 × 4 B = 34000; C 100 × 70 × 4 = 28000
    assert dram_bytes_tiled(0, 32, 32, 1, 12, elem=4, M=100, N=70, K=50) == 34000 + 28000
    # One tile per wave: each tile reads its rows and cols: (100 × 3 + 70 × 4) × 50 × 4 = 116000
    assert dram_bytes_tiled(0, 32, 32, 1, 1, elem=4, M=100, N=70, K=50) == 116000 + 28000


def test_keywords_default_to_square():
    assert dram_bytes_tiled(1024, 64, 128, 2, 54, elem=2, group=8) == \
        dram_bytes_tiled(1, 64, 128, 2, 54, elem=2, group=8, M=1024, N=1024, K=1024)
    with pytest.raises(ValueError, match="BM"):
        dram_bytes_tiled(1024, 0, 128, 1, 108)


@given(st.integers(1, 300), st.integers(1, 300), st.integers(1, 64), st.sampled_from([16, 32, 64]),
       st.sampled_from([16, 32, 64]), st.integers(1, 40), st.one_of(st.none(), st.integers(1, 12)))
def test_traffic_between_read_once_and_no_sharing(m, n, k, bm, bn, wave, group):
    got = dram_bytes_tiled(0, bm, bn, 1, wave, elem=2, group=group, M=m, N=n, K=k)
    once = (m * k + k * n + m * n) * 2  # everything read once, C written once
    no_share = dram_bytes_tiled(0, bm, bn, 1, 1, elem=2, M=m, N=n, K=k)
    assert once <= got <= no_share


def _reads_wave_by_wave(M, N, BM, BN, wave, group):
    """The wave model's reads (elements of one K step) by its definition, one wave at a time."""
    num_m, num_n = -(-M // BM), -(-N // BN)
    rows = np.minimum(BM, M - np.arange(num_m) * BM)
    cols = np.minimum(BN, N - np.arange(num_n) * BN)
    pm, pn = tile_order(num_m, num_n, group)
    return sum(int(rows[sorted(set(pm[s:s + wave].tolist()))].sum() + cols[sorted(set(pn[s:s + wave].tolist()))].sum())
               for s in range(0, len(pm), wave))


@pytest.mark.parametrize(("M", "N", "BM", "BN", "wave", "group"), [
    (4096, 4096, 32, 32, 84, 8),   # 16384 tiles in waves of 84: the flag table, 196 × 128 flags
    (700, 5, 1, 1, 1, None),        # waves of one program over 700 block-rows: too many flags, np.unique
    (997, 31, 7, 3, 1, 3),          # likewise (143 block-rows, waves of 1), grouped
    (1, 1, 1, 1, 1, None),          # one tile
    (257, 255, 16, 16, 7, 2),       # block ± 1 and a partial last wave
])
def test_distinct_tiles_per_wave_equal_the_wave_by_wave_count(M, N, BM, BN, wave, group):
    K, elem = 3, 2
    want = _reads_wave_by_wave(M, N, BM, BN, wave, group) * K * elem + M * N * elem
    assert dram_bytes_tiled(0, BM, BN, 1, wave, elem, group, M=M, N=N, K=K) == want


def test_an_lru_cache_exactly_as_large_as_the_reused_blocks_keeps_them():
    # n = 128, BM = 128, BN = 64, BK = 128, 2 bytes: one K step, 2 programs (0, 0) then (0, 1), one a wave.
    # A's block 128 × 128 × 2 = 32768 B, each B block 128 × 64 × 2 = 16384 B. An L2 of 49152 B holds A and one
    # B block exactly: program 1 finds A (its new B block evicts the older B): A once + 2 B blocks = 65536 B
    # read, + C 128 × 128 × 2 = 32768 B written: 98304. One byte less and A goes when program 0's B block
    # arrives (49152 > 49151), so program 1 reads A again: 98304 + 32768 = 131072.
    from kernellab.model import dram_bytes_lru

    assert dram_bytes_lru(128, 128, 64, 128, 1, 1, l2_bytes=49152, elem=2) == 98304
    assert dram_bytes_lru(128, 128, 64, 128, 1, 1, l2_bytes=49151, elem=2) == 131072


def test_wave_bytes_of_a_launch_are_counted_once(monkeypatch):
    # Boehm's kernel 5 on the A6000 at 4096³: 256 threads × 128 registers = 32768 of 65536, so 2 blocks per SM
    # and waves of 84 × 2 = 168 of the 32 × 32 = 1024 128×128 tiles, row-major. The six full waves each touch
    # 6 block-rows (e.g. ids 0–167: rows 0–5) and all 32 block-columns, the last (ids 1008–1023) 1 row and 16
    # columns: (37 + 6 × 32 + 16) × 128 × 4096 × 4 B + C's 4096² × 4 B = 580,911,104 B. predict asks for it at
    # every call (the SGEMM study's scans: 406 calls for 24 launches on lecture 10's autotuning page); the wave
    # model runs once a launch
    from kernellab.model import latency
    from kernellab.model.latency import LoopShape, dram_bytes_waves
    from kernellab.specs import A100, A6000
    calls = []

    def counting(*args, **kwargs):
        calls.append(args)
        return dram_bytes_tiled(*args, **kwargs)

    monkeypatch.setattr(latency, "dram_bytes_tiled", counting)
    latency._tiled_bytes.cache_clear()
    k5 = LoopShape(threads=256, regs=128, smem=8192, tile=(128, 128), k_step=8)
    assert dram_bytes_waves(k5, (4096, 4096, 4096), A6000) == (37 + 6 * 32 + 16) * 128 * 4096 * 4 + 4096**2 * 4
    assert dram_bytes_waves(k5, (4096, 4096, 4096), A6000) == 580_911_104
    assert len(calls) == 1
    # the A100's 108 SMs make another launch (waves of 216), counted anew
    assert dram_bytes_waves(k5, (4096, 4096, 4096), A100) != 580_911_104
    assert len(calls) == 2
