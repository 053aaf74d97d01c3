"""The access record's counters on hand-derived patterns, and the laws they obey for any access."""

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernellab.access import (
    WARP_SIZE,
    Access,
    _distinct_per_row,
    _distinct_total,
    _max_bank_load,
    bank_conflicts,
    bytes_requested,
    lane_sector_ids,
    lines,
    merged_updates,
    phase_lanes,
    prefix_counts,
    requests,
    sector_ids,
    sectors,
    shared_ideal_wavefronts,
    shared_wavefronts,
    sorted_distinct,
)

sys.path.insert(0, str(Path(__file__).parent))
from lane_draws import bool_lanes, int_lanes

LANES = np.arange(32)


def counts(acc):
    return requests(acc), sectors(acc), lines(acc), bytes_requested(acc)


def test_aligned_floats():
    # 32 lanes × 4 B = 128 B from address 0: 4 sectors, 1 line
    assert counts(Access.from_lanes(LANES * 4, width=4)) == (1, 4, 1, 128)


def test_strided_floats():
    # stride 512 B: every lane in its own sector and its own line → 32 and 32
    assert counts(Access.from_lanes(LANES * 512, width=4)) == (1, 32, 32, 128)


def test_stride_two_floats():
    # stride 8 B: lanes cover bytes 0..255 → 256/32 = 8 sectors, 256/128 = 2 lines
    assert counts(Access.from_lanes(LANES * 8, width=4)) == (1, 8, 2, 128)


def test_broadcast():
    # every lane reads address 1000: one sector (992..1023), one line (896..1023)
    assert counts(Access.from_lanes(np.full(32, 1000), width=4)) == (1, 1, 1, 128)


def test_misaligned_by_one_float():
    # 32 floats from byte 4: bytes 4..131 → sectors 0..4 = 5; lines 0 and 1 = 2
    assert counts(Access.from_lanes(4 + LANES * 4, width=4)) == (1, 5, 2, 128)


def test_straddling_lane():
    # one 8-byte lane at byte 28 covers bytes 28..35: sectors 0 and 1, one line
    acc = Access.from_lanes([28], width=8)
    assert counts(acc) == (1, 2, 1, 8)
    assert sector_ids(acc).tolist() == [0, 1]


def test_gathered():
    # lanes read [0, 4, 36, 130·4, 0, …]: sectors {0, 1, 16} = 3, lines {0, 4} = 2
    addr = np.zeros(32, np.int64)
    addr[[1, 2, 3]] = [4, 36, 520]
    assert counts(Access.from_lanes(addr, width=4)) == (1, 3, 2, 128)


def test_64_bit():
    # 32 lanes × 8 B = 256 B: 8 sectors, 2 lines
    assert counts(Access.from_lanes(LANES * 8, width=8)) == (1, 8, 2, 256)


def test_float4():
    # 32 lanes × 16 B = 512 B: 16 sectors, 4 lines, one request
    assert counts(Access.from_lanes(LANES * 16, width=16)) == (1, 16, 4, 512)


def test_partly_masked():
    # 40 lanes → two warps; the second has 8 lanes (bytes 128..159) → 4 + 1 sectors, 1 + 1 lines
    assert counts(Access.from_lanes(np.arange(40) * 4, width=4)) == (2, 5, 2, 160)
    # lanes 0..9 active only: bytes 0..39 → 2 sectors, 1 line
    active = LANES < 10
    assert counts(Access.from_lanes(LANES * 4, active, width=4)) == (1, 2, 1, 40)


def test_no_active_lane_issues_nothing():
    assert counts(Access.from_lanes(LANES * 4, np.zeros(32, bool), width=4)) == (0, 0, 0, 0)


def test_sectors_per_warp_not_merged_across_warps():
    # two warps reading the same 128 B: each request counts its own 4 sectors
    acc = Access.from_lanes(np.tile(LANES * 4, 2), width=4)
    assert (requests(acc), sectors(acc), lines(acc)) == (2, 8, 2)
    assert sector_ids(acc).tolist() == [0, 1, 2, 3]  # but the distinct sectors are 4


def test_lane_sector_ids_is_sector_ids_unsorted():
    acc = Access.from_lanes([96, 0, 4, 64], width=4)
    assert lane_sector_ids(acc).tolist() == [3, 0, 0, 2]
    assert np.unique(lane_sector_ids(acc)).tolist() == sector_ids(acc).tolist()


def test_aligned_hint_and_property():
    assert Access.from_lanes([0, 4], width=4).aligned
    assert not Access.from_lanes([2], width=4).aligned
    assert Access.from_lanes([2], active=[False], width=4).aligned  # inactive lanes do not count


def test_width_checked():
    with pytest.raises(ValueError, match="width"):
        Access.from_lanes([0], width=3)


# --- shared memory: a 32×32 float tile ------------------------------------------------------------
def test_tile_row_read():
    # a row: 32 consecutive words in 32 banks → 1 wavefront, no conflict
    acc = Access.from_lanes(LANES * 4, width=4)
    assert (shared_wavefronts(acc), shared_ideal_wavefronts(acc), bank_conflicts(acc)) == (1, 1, 0)


def test_tile_column_read():
    # a column: word 32·l → bank 0 for every lane → 32 wavefronts, 31 conflicts
    acc = Access.from_lanes(LANES * 32 * 4, width=4)
    assert (shared_wavefronts(acc), bank_conflicts(acc)) == (32, 31)


def test_tile_column_read_padded():
    # padded to 33 columns: word 33·l → bank l → 1 wavefront
    acc = Access.from_lanes(LANES * 33 * 4, width=4)
    assert (shared_wavefronts(acc), bank_conflicts(acc)) == (1, 0)


def test_shared_broadcast():
    # all lanes read one word: a broadcast, one wavefront
    assert shared_wavefronts(Access.from_lanes(np.zeros(32, np.int64), width=4)) == 1


def test_shared_two_way():
    # stride 2 words: lanes l and l+16 share bank 2l mod 32 → 2 wavefronts
    assert shared_wavefronts(Access.from_lanes(LANES * 8, width=4)) == 2


def test_shared_float4_rows():
    # 128-bit: 4 phases of 8 lanes × 16 B, each 128 B over 32 banks → ideal 4, no conflict
    acc = Access.from_lanes(LANES * 16, width=16)
    assert (shared_wavefronts(acc), shared_ideal_wavefronts(acc)) == (4, 4)


def test_shared_float4_strided():
    # 128-bit with stride 32 B: a phase of 8 lanes touches words 8l..8l+3 → banks 0-3, 8-11, 16-19, 24-27,
    # each bank hit by 2 lanes of the phase → 2 wavefronts per phase, 8 in all, 4 conflicts
    acc = Access.from_lanes(LANES * 32, width=16)
    assert (shared_wavefronts(acc), bank_conflicts(acc)) == (8, 4)


def test_lds128_forum_pattern_halves_two_wavefronts():
    # NCU on A10 / H100 (forum 373160, pattern 2): lanes 0-15 → +0 B, lanes 16-31 → +32 B, 16 B each.
    # Pairs (n, n^1) share an address → phases of 16 lanes, 2 phases. Phase 0 reads words 0-3 once
    # (banks 0-3, broadcast), phase 1 words 8-11 (banks 8-11): 1 wavefront each → 2, none excessive.
    acc = Access.from_lanes(np.repeat([0, 32], 16), width=16)
    assert phase_lanes(acc).tolist() == [16]
    assert (shared_wavefronts(acc), shared_ideal_wavefronts(acc), bank_conflicts(acc)) == (2, 2, 0)


def test_lds128_forum_pattern_i_and_i_plus_16_eight_wavefronts():
    # forum 373160, pattern 1: lanes i and i+16 read +32·(i mod 16) B. No pair (n, n^1) or (n, n^2)
    # shares, so quarter-warps of 8 lanes: lanes 0-7 read words 0-3, 8-11, …, 56-59 → banks 0-3, 8-11,
    # 16-19, 24-27, then 0-3 again (word 32-35) … → every bank serves 2 distinct words → 2 wavefronts
    # per quarter, 4 × 2 = 8 (NCU: 8); ideal 4, so 4 excessive.
    acc = Access.from_lanes(LANES % 16 * 32, width=16)
    assert phase_lanes(acc).tolist() == [8]
    assert (shared_wavefronts(acc), shared_ideal_wavefronts(acc), bank_conflicts(acc)) == (8, 4, 4)


def test_lds128_pairs_n_xor_2():
    # lanes n and n^2 share: lane l reads 16·((l // 4)·2 + l % 2) → 16 distinct 16-B chunks over lanes
    # 0-31, 8 per half-warp = 128 B → halves, and the 8 chunks of a half are consecutive: 1 wavefront each
    addr = 16 * ((LANES // 4) * 2 + LANES % 2)
    acc = Access.from_lanes(addr, width=16)
    assert phase_lanes(acc).tolist() == [16]
    assert (shared_wavefronts(acc), shared_ideal_wavefronts(acc)) == (2, 2)


def test_lds64_pairs():
    # 64-bit, lanes 2j and 2j+1 read 8·j: 16 distinct 8-B words pairs → one phase of 32 lanes covering
    # 128 consecutive bytes → 1 wavefront (without the rule: 2 half-warps, 2 wavefronts)
    acc = Access.from_lanes(LANES // 2 * 8, width=8)
    assert phase_lanes(acc).tolist() == [32]
    assert (shared_wavefronts(acc), shared_ideal_wavefronts(acc)) == (1, 1)
    # consecutive 64-bit lanes (no pairs): 2 half-warps of 128 B, 1 wavefront each
    assert shared_wavefronts(Access.from_lanes(LANES * 8, width=8)) == 2


def test_pair_rule_with_inactive_partner():
    # lanes 16-31 inactive, lanes 0-15 read +0: every active lane's partner shares or is inactive →
    # half-warp phases; only phase 0 has active lanes → 1 wavefront, 1 ideal
    acc = Access.from_lanes(np.zeros(32, np.int64), LANES < 16, width=16)
    assert (shared_wavefronts(acc), shared_ideal_wavefronts(acc)) == (1, 1)
    # a pair split over two addresses (lane 1 reads +16) breaks the rule → quarter-warps: lanes 0-7
    # read words 0-3 and 4-7 (distinct banks) → 1 wavefront in quarters 0 and 1 → 2
    addr = np.where(LANES == 1, 16, 0)
    acc = Access.from_lanes(addr, LANES < 16, width=16)
    assert phase_lanes(acc).tolist() == [8]
    assert (shared_wavefronts(acc), shared_ideal_wavefronts(acc)) == (2, 2)


def test_32_bit_not_merged():
    # 32-bit accesses are one phase of 32 lanes whatever the pairs: lanes 2j, 2j+1 on word 32j mod 1024
    # → 16 distinct words all in bank 0 → 16 wavefronts, as before the pair rule
    acc = Access.from_lanes(LANES // 2 * 128, width=4)
    assert phase_lanes(acc).tolist() == [32]
    assert shared_wavefronts(acc) == 16


# --- laws ---------------------------------------------------------------------------------------------
# one strategy per number of lanes, built once (a strategy built inside a draw is validated again at every draw):
# the same draws as building it in the flatmap
_PATTERNS = {n: st.tuples(int_lanes(n, 4096), bool_lanes(n), st.sampled_from([1, 2, 4, 8, 16]), st.booleans())
             for n in range(1, 97)}
patterns = st.integers(1, 96).flatmap(_PATTERNS.__getitem__)


def build(p):
    addr, act, width, sort = p
    addr = np.asarray(addr, np.int64) // width * width  # aligned, as real accesses are
    return Access.from_lanes(np.sort(addr) if sort else addr, act, width)


@settings(max_examples=150, deadline=None)
@given(patterns)
def test_laws(p):
    acc = build(p)
    r, s, li = requests(acc), sectors(acc), lines(acc)
    assert s >= r and li <= s and li >= r
    assert s <= requests(acc) * 32 * max(1, acc.width // 32 + 1)
    assert bytes_requested(acc) == int(acc.active.sum()) * acc.width
    assert shared_wavefronts(acc) >= shared_ideal_wavefronts(acc) >= r
    assert len(sector_ids(acc)) <= s


@settings(max_examples=150, deadline=None)
@given(patterns, st.sampled_from([32, 128]))
def test_fast_path_equals_sorting(p, unit):
    acc = build(p)
    ids = acc.addresses // unit
    s = np.sort(np.where(acc.active, ids, -1), axis=1)
    new = s >= 0
    new[:, 1:] &= s[:, 1:] != s[:, :-1]
    assert _distinct_total(ids, acc.active) == int(new.sum())
    assert (_distinct_per_row(ids, acc.active) == new.sum(axis=1)).all()


def test_distinct_per_row_equals_a_set_per_row():
    # the definition, row by row: len(set(valid ids)). Ids of any sign and the int64 extremes (the sort puts
    # masked-off entries at the largest int64: a valid id equal to it must still count once), rows all
    # masked off (0), all valid, one valid; widths 1, 2, 32, 64. E.g. [5, -3, 5, max] all valid: {5, -3, max}
    # = 3; with max masked off: {5, -3} = 2; nothing valid: 0
    big, small = np.iinfo(np.int64).max, np.iinfo(np.int64).min
    ids = np.array([[5, -3, 5, big], [5, -3, 5, big], [5, -3, 5, big], [big, big, small, small]])
    valid = np.array([[1, 1, 1, 1], [1, 1, 1, 0], [0, 0, 0, 0], [0, 1, 1, 0]], bool)
    assert _distinct_per_row(ids, valid).tolist() == [3, 2, 0, 2]
    rng = np.random.default_rng(37)
    for _ in range(300):
        rows, width = int(rng.integers(1, 9)), int(rng.choice([1, 2, 32, 64]))
        ids = rng.integers(-4, 5, (rows, width)) + rng.choice([0, big - 4, small + 4])
        valid = rng.random((rows, width)) < rng.choice([0.0, 0.3, 0.9, 1.0])
        want = [len(set(r[v].tolist())) for r, v in zip(ids, valid)]
        assert _distinct_per_row(ids, valid).tolist() == want, (ids, valid)
        assert _distinct_total(ids, valid) == sum(want)


def test_exact_counts_equal_a_set_per_warp():
    # sectors, lines and ideal sectors by their definitions, warp by warp with Python sets: a lane touches the
    # chunks of its first and last byte; ideal = ⌈distinct addresses × width / 32⌉. E.g. lanes at 0, 4, 64, 64
    # (4 B each): sectors {0, 2} = 2, lines {0} = 1, ideal ⌈3 × 4 / 32⌉ = 1. Random warps, sorted or not,
    # masked or not, aligned or not, broadcast, negative steps: the counts share one sort per record
    from kernellab.access import ideal_sectors

    acc = Access.from_lanes([0, 4, 64, 64], width=4)
    assert (sectors(acc), lines(acc), ideal_sectors(acc)) == (2, 1, 1)
    rng = np.random.default_rng(37)
    for _ in range(300):
        warps, width = int(rng.integers(1, 7)), int(rng.choice([1, 2, 4, 8, 16]))
        kind = rng.choice(["random", "sorted", "broadcast", "strided"])
        if kind == "strided":
            addr = 8192 + np.arange(32 * warps) * int(rng.choice([-2, -1, 1, 3, 33])) * width
        else:
            addr = rng.integers(0, int(rng.choice([64, 4096])), 32 * warps)
            addr = np.sort(addr) if kind == "sorted" else np.full_like(addr, addr[0]) if kind == "broadcast" else addr
        if rng.random() < 0.7:
            addr = addr // width * width
        active = rng.random(32 * warps) < rng.choice([0.0, 0.5, 1.0])
        acc = Access.from_lanes(addr, active, width)
        want = [0, 0, 0]
        for a, on in zip(acc.addresses, acc.active):
            a = a[on].tolist()
            for i, unit in enumerate((32, 128)):
                want[i] += len({x // unit for x in a} | {(x + width - 1) // unit for x in a})
            want[2] += -(-len(set(a)) * width // 32)
        assert [sectors(acc), lines(acc), ideal_sectors(acc)] == want, (kind, width)


def test_summed_distinct_chunks_equal_the_warps_own_counts():
    # _chunks_exact sums a record's distinct chunks in one count (_distinct_sorted_total): every change among each
    # warp's sorted active ids, plus one for each warp with an active lane. By hand, 3 warps of floats: warp 0 all
    # 32 lanes on bytes 0–127 (4 sectors, 1 line); warp 1 no lane active (0); warp 2 lanes 0 and 31 only, at
    # 4096 + 64·l: bytes 4096 and 6080, sectors 128 and 190, lines 32 and 47 (2 and 2). Sectors 4 + 0 + 2 = 6,
    # lines 1 + 0 + 2 = 3, distinct addresses 32 + 0 + 2 = 34
    from kernellab.access import _chunks_exact, _distinct_sorted, _distinct_sorted_total

    addr = np.concatenate([LANES * 4, LANES * 4, 4096 + LANES * 64])
    active = np.concatenate([LANES >= 0, LANES < 0, (LANES == 0) | (LANES == 31)])
    acc = Access.from_lanes(addr, active, width=4)
    assert (_chunks_exact(acc, 32), _chunks_exact(acc, 128), _distinct_sorted_total(acc, 0)) == (6, 3, 34)
    # random records whose warps are each all on, all off or partly on, every width, all lanes on or not: the
    # one count equals the warps' own counts summed (_distinct_sorted) and a Python set per warp
    rng = np.random.default_rng(37)
    for _ in range(400):
        warps, width = int(rng.integers(1, 9)), int(rng.choice([1, 2, 4, 8, 16]))
        addr = rng.integers(0, int(rng.choice([256, 8192])), 32 * warps) // width * width
        share = rng.choice([0.0, 0.3, 1.0], size=warps) if rng.random() < 0.8 else np.ones(warps)
        active = rng.random((warps, 32)) < share[:, None]
        acc = Access.from_lanes(addr, active.ravel(), width)
        for shift in (0, 5, 7):
            want = sum(len({x >> shift for x in a[on].tolist()}) for a, on in zip(acc.addresses, acc.active))
            assert _distinct_sorted_total(acc, shift) == int(_distinct_sorted(acc, shift).sum()) == want, (shift, share)


def test_distinct_chunks_per_warp_from_the_bits_neighbours_differ_in():
    # _distinct_sorted counts, per warp, the neighbours (sorted, both active) whose addresses differ in a bit at or
    # above the shift (a ^ b ≥ 2^shift as unsigned) — the same as their ids a >> shift and b >> shift differing.
    # By hand, 3 warps of floats, shift 5 (sectors): warp 0 lanes on bytes 28, 32, 60, 64, the rest off: 28 ^ 32 =
    # 60 ≥ 32 (sectors 0, 1), 32 ^ 60 = 28 < 32 (both sector 1), 60 ^ 64 = 124 ≥ 32 (sector 2): 3 sectors, though
    # 32 − 28 = 4 and 64 − 60 = 4 are small steps; warp 1 no lane (0); warp 2 every lane on byte −4 (sector −1:
    # 1), negative addresses sort and shift as numbers do
    from kernellab.access import _LAST, _distinct_sorted, _distinct_sorted_total

    addr = np.concatenate([np.where(LANES < 4, [28, 32, 60, 64] * 8, 0), LANES * 4, np.full(32, -4)])
    active = np.concatenate([LANES < 4, LANES < 0, LANES >= 0])
    acc = Access.from_lanes(addr, active, width=4)
    assert _distinct_sorted(acc, 5).tolist() == [3, 0, 1] and _distinct_sorted_total(acc, 5) == 4
    assert _distinct_sorted(acc, 0).tolist() == [4, 0, 1] and _distinct_sorted(acc, 7).tolist() == [1, 0, 1]
    # random warps, each all on, all off or partly on: every warp's count equals a Python set of its active ids, with
    # addresses near 0, negative ones, ones apart only in high bits (2^40, 2^62) and the filler's own value (the
    # largest int64, where masked-off lanes sort) active
    rng = np.random.default_rng(38)
    for _ in range(300):
        warps = int(rng.integers(1, 9))
        kind = rng.integers(4)
        addr = (rng.integers(0, 512, 32 * warps) if kind == 0 else rng.integers(-300, 300, 32 * warps) if kind == 1
                else rng.integers(0, 4, 32 * warps) << int(rng.choice([40, 62])) if kind == 2
                else np.where(rng.random(32 * warps) < 0.5, _LAST, rng.integers(_LAST - 300, _LAST, 32 * warps)))
        share = rng.choice([0.0, 0.3, 1.0], size=warps) if rng.random() < 0.8 else np.ones(warps)
        active = (rng.random((warps, 32)) < share[:, None]).ravel()
        acc = Access.from_lanes(addr, active, width=1)
        for shift in (0, 5, 7):
            want = [len({x >> shift for x in a[on].tolist()}) for a, on in zip(acc.addresses, acc.active)]
            assert _distinct_sorted(acc, shift).tolist() == want, (kind, shift, share)
            assert _distinct_sorted_total(acc, shift) == sum(want), (kind, shift, share)


@settings(max_examples=150, deadline=None)
@given(patterns)
def test_pair_rule_never_costs_more(p):
    # merging two phases can only lower the largest per-bank load (max of a union ≤ sum of the maxima):
    # the uniform-pair rule gives at most the wavefronts of fixed half-/quarter-warp phases
    acc = build(p)
    lanes = WARP_SIZE if acc.width <= 4 else 128 // acc.width
    wpl = max(1, acc.width // 4)
    words = ((acc.addresses // 4)[..., None] + np.arange(wpl)).reshape(-1, lanes * wpl)
    valid = np.repeat(acc.active, wpl, axis=1).reshape(-1, lanes * wpl)
    assert shared_wavefronts(acc) <= _max_bank_load(words, valid)
    assert shared_ideal_wavefronts(acc) <= int(valid.any(axis=1).sum())


def test_prefix_counts_broadcast_one_start_to_every_row():
    # two rows from byte 0: 32 floats (128 B: 1 request, 4 sectors, 1 line) and 17 floats (68 B: 1 request,
    # 3 sectors, 1 line)
    assert prefix_counts(0, [32, 17], 4) == (2, 7, 2, 196) == prefix_counts([0, 0], [32, 17], 4)


def test_merged_updates_by_hand():
    # the L1 merges a warp's lanes on one element 16 at a time: warp 0's 32 lanes on element 5 are ⌈32 ÷ 16⌉ = 2
    # updates, warp 1's 17 on element 5 are 2 (16 + 1), its one lane on element 9 is 1. A lone lane on element 9 is
    # 1 update (not its element's index); no lane, nothing
    el, up = merged_updates(np.array([5] * 32 + [5] * 17 + [9]), np.array([0] * 32 + [1] * 18))
    assert (el.tolist(), up.tolist()) == ([5, 5, 9], [2, 2, 1])
    el, up = merged_updates(np.array([9]), np.array([3]))
    assert (el.tolist(), up.tolist()) == ([9], [1])
    el, up = merged_updates(np.array([], np.int64), np.array([], np.int64))
    assert el.size == up.size == 0


def test_sorted_distinct_is_numpy_unique_of_integers():
    # np.unique's answer (distinct values, sorted, flattened, a new array) on arrays in order, in no order, with
    # repeats, of one or no element, 2-D, and of every integer width; in order (a block's addresses) it skips the sort
    rng = np.random.default_rng(33)
    arrays = [np.arange(1024, dtype=np.int64) * 4 + 1024, (np.arange(1024, dtype=np.int64) * 4) >> 5,
              np.array([3, 1, 2, 1]), np.array([7]), np.array([], np.int64), np.array([[5, 1], [5, 3]]),
              np.array([-2, -2, 0, 5, 5, 9]), np.array([9, 5, 5, 0, -2, -2])]
    arrays += [rng.integers(-50, 50, size=n).astype(t) for n in (2, 33, 500) for t in (np.int8, np.int32, np.int64, np.uint16)]
    arrays += [np.sort(rng.integers(0, 10, size=200))]
    for a in arrays:
        got = sorted_distinct(a)
        assert got.dtype == a.dtype and np.array_equal(got, np.unique(a)), a
    a = np.arange(6)
    sorted_distinct(a)[0] = 99  # a new array, not a view of the one in order
    assert a[0] == 0
    # by hand: 1024 floats from byte 1024 are 4096 bytes, sectors 32 … 159 (1024 // 32 = 32, 5116 // 32 = 159): 128
    ids = sorted_distinct(arrays[0] >> 5)
    assert ids.size == 128 and ids[0] == 32 and ids[-1] == 159


def test_every_lane_active_is_known_once_and_only_when_true():
    # from_lanes without a mask over whole warps knows every lane is active; 40 lanes pad the second warp with 24
    # masked-off lanes: 2 requests, 40 × 4 = 160 bytes, and not every lane active; a mask given is looked at
    from kernellab.access import Access, bytes_requested, requests

    whole = Access.from_lanes(np.arange(64) * 4)
    padded = Access.from_lanes(np.arange(40) * 4)
    masked = Access.from_lanes(np.arange(64) * 4, np.arange(64) != 63)
    assert (whole.every_active, requests(whole), bytes_requested(whole)) == (True, 2, 256)
    assert (padded.every_active, requests(padded), bytes_requested(padded)) == (False, 2, 160)
    assert (masked.every_active, requests(masked), bytes_requested(masked)) == (False, 2, 252)
    # a warp of 1-byte lanes, one of 16-byte lanes, each on its own sector-sized run: ideal sectors are
    # ⌈distinct × width / 32⌉ a warp — 32 distinct bytes: ⌈32 / 32⌉ = 1; one lane on: ⌈1 / 32⌉ = 1; 3 float4: ⌈48 / 32⌉ = 2
    from kernellab.access import ideal_sectors

    assert ideal_sectors(Access.from_lanes(np.arange(32), width=1)) == 1
    assert ideal_sectors(Access.from_lanes(np.arange(32), LANES == 5, width=1)) == 1
    assert ideal_sectors(Access.from_lanes(np.arange(32) * 16, LANES < 3, width=16)) == 2


def test_shared_wavefronts_of_one_phase_per_warp_by_hand():
    # 4-byte lanes are one phase of 32 per warp. Warp 0: lane l on word 33·l (a stride of 33 words): banks l + l·32
    # ≡ l, all different: 1 wavefront. Warp 1: lanes on words 0, 32, 64, … (bank 0 each, 32 distinct words): 32.
    # Warp 2: every lane on word 5 (byte 20, bank 5, one word: a broadcast): 1. Ideal: 1 a warp with an active lane
    from kernellab.access import Access, _shared_exact, shared_ideal_wavefronts, shared_wavefronts

    addr = np.concatenate([LANES * 33 * 4, LANES * 32 * 4, np.full(32, 20)])
    acc = Access.from_lanes(addr, width=4)
    assert _shared_exact(acc) == (1 + 32 + 1, 3)
    assert (shared_wavefronts(acc), shared_ideal_wavefronts(acc)) == (34, 3)
    # each phase's banks are its own: warp 0 has lanes 0–2 on words 5, 37, 69 (bank 5, 3 words: 3 wavefronts), lane
    # 3 on word 31 (bank 31, 1) and the rest on word 5; warp 1 has lanes 0–15 on word 0, 16–31 on word 32 (bank 0, 2
    # words: 2). 3 + 2 = 5 — not max(3, 1 + 2) = 3, as one warp's bank 31 and the next warp's bank 0 added would be
    words0 = np.where(LANES < 3, 5 + 32 * LANES, np.where(LANES == 3, 31, 5))
    words1 = np.where(LANES < 16, 0, 32)
    acc = Access.from_lanes(np.concatenate([words0, words1]) * 4, width=4)
    assert _shared_exact(acc) == (5, 2)


def test_warp_any_reads_every_lane_of_every_warp():
    # 8 × 32 warps with one lane on, each of its 32 lanes in turn (each of the four 8-lane words, each byte), then
    # one with none: 256 warps with an active lane of 257 (read as words: 256 warps or more); and random masks of
    # up to 600 warps, contiguous or not, against numpy's any per row
    from kernellab.access import requests, warp_any

    one = np.vstack([np.eye(32, dtype=bool)] * 8 + [np.zeros((1, 32), bool)])
    assert warp_any(one).tolist() == [True] * 256 + [False]
    assert warp_any(one[-33:]).tolist() == [True] * 32 + [False]  # fewer warps: numpy's any
    assert requests(Access(np.zeros((257, 32), np.int64), one, 4)) == 256
    rng = np.random.default_rng(5)
    for _ in range(50):
        m = rng.random((int(rng.integers(1, 600)), 64)) < rng.choice([0.0, 0.02, 0.5])
        assert warp_any(m[:, :32]).tolist() == m[:, :32].any(axis=1).tolist()  # a strided view: numpy's own path
        assert warp_any(np.ascontiguousarray(m[:, 32:])).tolist() == m[:, 32:].any(axis=1).tolist()


def test_aligned_counts_from_one_sort_by_hand_and_against_the_five_counters():
    # aligned_counts gives requests, sectors, bytes, lines and ideal sectors from one sort per warp: the steps
    # between sorted neighbours, plus one per warp whose lanes are all on (a warp with a lane off counts the step
    # from its last active address to the filler instead). By hand, 5 warps of floats: warp 0 all 32 lanes on
    # bytes 0–127 (4 sectors, 1 line, 32 distinct: ⌈128/32⌉ = 4 ideal); warp 1 lanes 0–9 on, at 4096 + 32·l
    # (bytes 4096–4384: 10 sectors, lines 32, 33, 34: 3; ⌈10·4/32⌉ = 2 ideal); warp 2 no lane (0); warp 3 every
    # lane on byte 64 (1, 1, 1); warp 4 lanes 0 and 31 on, byte −4 and byte 8 (sectors −1 and 0, lines −1 and 0:
    # 2 and 2; 2 distinct: ⌈8/32⌉ = 1). Requests 4; sectors 4 + 10 + 0 + 1 + 2 = 17; bytes (32 + 10 + 32 + 2) × 4 =
    # 304; lines 1 + 3 + 0 + 1 + 2 = 7; ideal 4 + 2 + 0 + 1 + 1 = 8
    from kernellab.access import _EXACT_LANES, _LAST, aligned_counts, ideal_sectors

    addr = np.stack([LANES * 4, 4096 + LANES * 32, LANES * 4, np.full(32, 64), np.where(LANES == 0, -4, 8)])
    active = np.stack([LANES >= 0, LANES < 10, LANES < 0, LANES >= 0, (LANES == 0) | (LANES == 31)])
    assert aligned_counts(addr, active, 4) == (4, 17, 304, 7, 8)
    assert aligned_counts(addr[[0, 3]], None, 4) == (2, 5, 256, 2, 5)  # every lane on: warps 0 and 3

    def five(addr, active, width):
        acc = Access(addr, np.ones(addr.shape, bool) if active is None else active, width)
        return requests(acc), sectors(acc), bytes_requested(acc), lines(acc), ideal_sectors(acc)

    # random records against the five counters: warps of 0, 1, 10, 31 or 32 lanes on, every width, sorted or not,
    # negative addresses, addresses in the filler's line (the five counters count those), records of more than 64
    # warps, and of _EXACT_LANES lanes or more (counted by the five counters)
    rng = np.random.default_rng(39)
    for i in range(400):
        warps, width = int(rng.integers(1, 9)), int(rng.choice([1, 2, 4, 8, 16]))
        if i % 50 == 0:
            warps = _EXACT_LANES // 32 + int(rng.integers(0, 3))
        elif i % 50 == 25:  # more than 64 warps: ideal sectors summed by numpy, not in Python
            warps = int(rng.integers(65, 120))
        kind = rng.integers(4)
        addr = (rng.integers(0, int(rng.choice([256, 8192])), (warps, 32)) if kind == 0
                else rng.integers(-600, 600, (warps, 32)) if kind == 1
                else np.sort(rng.integers(0, 4096, (warps, 32)), axis=1) if kind == 2
                else rng.integers(_LAST - 200, _LAST, (warps, 32)))
        addr = addr // width * width
        if rng.random() < 0.5:  # a warp of one distinct address (a broadcast): ⌈width / 32⌉ ideal, of 1 B: 1
            addr[int(rng.integers(warps))] = addr[0, 0]
        # per warp: no lane, one lane, about 30 %, all but one, or every lane on
        on = rng.choice([0, 1, 10, 31, 32], size=warps) if rng.random() < 0.8 else np.full(warps, 32)
        active = np.argsort(rng.random((warps, 32)), axis=1) < on[:, None]
        assert aligned_counts(addr, active, width) == five(addr, active, width), (kind, width, on)
        assert aligned_counts(addr, None, width) == five(addr, None, width), (kind, width)


def test_shared_wavefronts_of_negative_addresses_by_both_paths():
    # A word's bank is its number mod 32, a negative word's too (word −1 is bank 31), so moving every address by
    # 128 bytes (32 words) moves no lane to another bank: the exact path (_shared_exact, every phase's banks
    # looked at) and the affine path (_shared_affine: an affine warp as its class first mod 128) agree at negative
    # addresses as at positive ones. By hand: a warp of floats from byte −128 (words −32 … −1, banks 0 … 31 once
    # each): 1 wavefront, ideal 1. A warp of floats at −644 + 128·l with lanes 0–15 on: words −161 + 32·l, all in
    # bank 31 (−161 = −6·32 + 31), 16 distinct words: 16 wavefronts, ideal 1, 15 conflicts (the exact path once
    # took a negative word for a masked-off lane: 0 and 10; a class key built from a truncated, negative
    # first mod 128 loses the mask's bits: 32)
    from kernellab import access

    for addr, on, want in ((-128 + LANES * 4, None, (1, 1)), (-644 + LANES * 128, LANES < 16, (16, 1))):
        assert access._shared_exact(Access.from_lanes(addr, on, width=4)) == want
        assert access._shared_affine(Access.from_lanes(addr, on, width=4)) == want
        acc = Access.from_lanes(addr, on, width=4)
        assert (shared_wavefronts(acc), bank_conflicts(acc)) == (want[0], want[0] - want[1])
    # 100 random records (affine warps or not, masked or not, every width) moved below zero by whole multiples of 128
    # bytes: both paths give the record's own counts
    rng = np.random.default_rng(40)
    for _ in range(100):
        warps, width = int(rng.integers(1, 5)), int(rng.choice([4, 8, 16]))
        if rng.random() < 0.5:
            addr = (rng.integers(0, 64, warps)[:, None] + LANES * int(rng.integers(-40, 40))) * width
        else:
            addr = rng.integers(0, 512, (warps, 32)) * width
        on = rng.random((warps, 32)) < rng.choice([0.3, 1.0])
        moved = addr - 128 * int(rng.integers(1, 100)) - 128 * int(addr.max() // 128 + 1)  # every address < 0
        want = access._shared_exact(Access(addr, on, width))
        assert access._shared_exact(Access(moved, on, width)) == want
        assert access._shared_affine(Access(moved, on, width)) == want
