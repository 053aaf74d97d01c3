"""The access counters against hand-derived answers and a brute-force oracle, on the patterns their fast paths
must refuse: rows that are almost in order, lanes that straddle a sector, partial masks.

The counters take shortcuts for coalesced and broadcast accesses (one pass instead of a sort); each
shortcut must give exactly what counting distinct chunks lane by lane gives. The oracle below is that
definition, written the slow way.
"""

import numpy as np
import pytest

from kernellab import Access, access


def oracle(addresses, active, width, unit):
    """Distinct ``unit``-byte chunks per warp, summed: every byte of every active lane, counted by hand."""
    addresses, active = np.asarray(addresses), np.asarray(active, bool)
    total = 0
    for w in range(0, len(addresses), 32):
        chunks = {b // unit for a, on in zip(addresses[w:w + 32], active[w:w + 32]) if on for b in (a, a + width - 1)}
        total += len(chunks)
    return total


def test_a_decrease_inside_the_second_warp_is_not_taken_for_order():
    # warp 0: lanes at 0, 4, …, 124 → sectors 0–3 (4). warp 1: lane 0 at 160 (sector 5), lane 1 at 192 (sector 6),
    # lane 2 back at 160 (sector 5), lanes 3–31 at 192 (sector 6) → sectors {5, 6} = 2. Total 6. Counting the
    # places where neighbours differ (5→6, 6→5, 5→6) would give 1 + 3 = 4 for warp 1 instead.
    warp1 = [160, 192, 160] + [192] * 29
    acc = Access.from_lanes(np.concatenate([4 * np.arange(32), warp1]), width=4)
    assert access.sectors(acc) == 6
    assert access.lines(acc) == 1 + 1  # warp 0: line 0; warp 1: bytes 160–195, all in line 1


def test_a_decrease_at_the_last_lane_is_not_taken_for_order():
    # lanes 0–29 at byte 0 (sector 0), lane 30 at 32 (sector 1), lane 31 back at 0 → 2 sectors, not 1 + 2 changes
    acc = Access.from_lanes([0] * 30 + [32, 0], width=4)
    assert (access.sectors(acc), access.lines(acc)) == (2, 1)


@pytest.mark.parametrize("address,width,expected", [
    (31, 2, (2, 1)),     # bytes 31–32: sectors 0 and 1, line 0
    (29, 2, (1, 1)),     # bytes 29–30: misaligned, yet inside sector 0
    (26, 4, (1, 1)),     # bytes 26–29: misaligned, inside sector 0
    (127, 2, (2, 2)),    # bytes 127–128: sectors 3 and 4, lines 0 and 1
    (29, 4, (2, 1)),     # bytes 29–32: 29 is not a multiple of 4 (29 & 3 = 1)
    (30, 4, (2, 1)),     # bytes 30–33
    (28, 8, (2, 1)),     # bytes 28–35: a multiple of 4 but not of 8
    (120, 16, (2, 2)),   # bytes 120–135
    (112, 16, (1, 1)),   # bytes 112–127: aligned, one sector
])
def test_one_lane_straddling_a_sector(address, width, expected):
    acc = Access.from_lanes([address], width=width)
    assert (access.sectors(acc), access.lines(acc)) == expected
    assert acc.aligned == (address % width == 0)


def test_one_misaligned_lane_among_aligned_ones():
    # 31 lanes at byte 0 and lane 5 at byte 30 (bytes 30–33): sectors 0 and 1 → 2; the access is misaligned
    addr = np.zeros(32, np.int64)
    addr[5] = 30
    acc = Access.from_lanes(addr, width=4)
    assert not acc.aligned and access.sectors(acc) == 2
    # the same lane masked off: every active lane is aligned, 1 sector
    masked = Access.from_lanes(addr, active=np.arange(32) != 5, width=4)
    assert masked.aligned and access.sectors(masked) == 1 and access.bytes_requested(masked) == 31 * 4


def test_partial_warps_and_empty_warps():
    # 40 lanes, only lanes 0–7 and 32–35 active: warp 0 bytes 0–31 (1 sector), warp 1 bytes 128–143 (1 sector)
    active = np.zeros(40, bool)
    active[:8] = active[32:36] = True
    acc = Access.from_lanes(4 * np.arange(40), active=active, width=4)
    assert (access.requests(acc), access.sectors(acc), access.lines(acc), access.bytes_requested(acc)) == (2, 2, 2, 48)
    none = Access.from_lanes(4 * np.arange(64), active=np.zeros(64, bool), width=4)
    assert (access.requests(none), access.sectors(none), access.lines(none), access.bytes_requested(none)) == (0, 0, 0, 0)


@pytest.mark.parametrize("seed", range(6))
def test_counters_match_the_oracle_on_almost_ordered_accesses(seed):
    # sorted addresses with a few neighbours swapped, sometimes a repeated value, sometimes misaligned by a
    # few bytes, with and without a mask: the cases where a shortcut for ordered rows would miscount
    rng = np.random.default_rng(seed)
    for _ in range(60):
        n = int(rng.choice([32, 64, 96, 40]))
        width = int(rng.choice([1, 2, 4, 8, 16]))
        base = np.sort(rng.integers(0, 8, n)) * int(rng.choice([4, 16, 32, 64]))
        for i in rng.integers(0, n - 1, int(rng.integers(0, 4))):
            base[i], base[i + 1] = base[i + 1], base[i]
        addr = base * width // 4 + (int(rng.integers(0, width)) if rng.random() < 0.3 else 0)
        active = rng.random(n) < 0.8 if rng.random() < 0.4 else np.ones(n, bool)
        acc = Access.from_lanes(addr, active=active, width=width)
        assert access.sectors(acc) == oracle(addr, active, width, 32), (addr.tolist(), active.tolist(), width)
        assert access.lines(acc) == oracle(addr, active, width, 128), (addr.tolist(), active.tolist(), width)
        assert access.requests(acc) == sum(bool(active[w:w + 32].any()) for w in range(0, n, 32))


def test_inactive_lanes_take_no_bank():
    # one active lane reading word 33 (byte 132, bank 1): 1 wavefront, ideal 1. The 31 inactive lanes of the warp
    # must not count as a word of their own, or bank 1 would hold words 1 and 33 and take 2 wavefronts
    acc = Access.from_lanes([132], width=4)
    assert (access.shared_wavefronts(acc), access.shared_ideal_wavefronts(acc), access.bank_conflicts(acc)) == (1, 1, 0)
    # two active lanes on words 1 and 33 (both bank 1): a 2-way conflict, 2 wavefronts
    two = Access.from_lanes([4, 132], width=4)
    assert (access.shared_wavefronts(two), access.bank_conflicts(two)) == (2, 1)
    # a warp with no active lane takes no wavefront at all
    none = Access.from_lanes(4 * np.arange(32), active=np.zeros(32, bool), width=4)
    assert (access.shared_wavefronts(none), access.shared_ideal_wavefronts(none)) == (0, 0)
