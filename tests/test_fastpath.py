"""The counting fast path of kernellab.access gives exactly the reference path's numbers.

Random pointer families (affine, contiguous, broadcast, negative and huge strides, piecewise, random),
random masks (full, none, prefix, suffix, one run, random), every width and aligned or misaligned
bases: sectors, lines and shared wavefronts from the fast path equal the exact ones, warp by warp.
"""

import sys
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import kernellab.access as access
from kernellab.access import (
    LINE_BYTES,
    SECTOR_BYTES,
    WARP_SIZE,
    Access,
    _chunks,
    _chunks_affine,
    _chunks_exact,
    _shared,
    _shared_exact,
    affine_counts,
    bytes_requested,
    lines,
    requests,
    sectors,
    shared_wavefronts,
)

sys.path.insert(0, str(Path(__file__).parent))
from lane_draws import bool_lanes, int_lanes

LANES = np.arange(WARP_SIZE)


# Strategies built once: built inside a draw, each is validated again at every draw (a fifth of the time)
FAMILIES = st.sampled_from(["affine", "contiguous", "broadcast", "halves", "random"])
FIRSTS = st.integers(0, 1 << 16)
STRIDES = st.sampled_from([0, 1, -1, 2, 3, 4, 8, 31, 32, 33, 64, 127, 128, 129, 1000, -33])
HALF_GAPS = st.integers(0, 512)
RANDOM_ADDRESSES = int_lanes(WARP_SIZE, 1 << 14)
MASK_KINDS = st.sampled_from(["full", "none", "prefix", "suffix", "run", "random"])
LANE_PAIRS = st.lists(st.integers(0, WARP_SIZE), min_size=2, max_size=2)
RANDOM_MASKS = bool_lanes(WARP_SIZE)
WIDTHS = (1, 2, 4, 8, 16)


@st.composite
def warp(draw, width):
    """One warp's addresses and mask."""
    family = draw(FAMILIES)
    first = draw(FIRSTS)
    stride = draw(STRIDES) * width
    if family == "affine":
        addr = first + 4096 * 32 + LANES * stride
    elif family == "contiguous":
        addr = first + LANES * width
    elif family == "broadcast":
        addr = np.full(WARP_SIZE, first)
    elif family == "halves":  # affine on each half-warp, not on the warp
        addr = first + (LANES % 16) * stride + (LANES // 16) * draw(HALF_GAPS)
    else:
        addr = draw(RANDOM_ADDRESSES)
    if draw(st.booleans()):  # aligned to the width, as real accesses are; otherwise as drawn
        addr = addr // width * width
    kind = draw(MASK_KINDS)
    a, b = sorted(draw(LANE_PAIRS))
    mask = {"full": LANES >= 0, "none": LANES < 0, "prefix": LANES < b, "suffix": LANES >= a,
            "run": (LANES >= a) & (LANES < b)}.get(kind)
    if mask is None:
        mask = draw(RANDOM_MASKS)
    return addr, mask


WARP_LISTS = {width: st.lists(warp(width), min_size=1, max_size=6) for width in WIDTHS}
WIDTH_DRAWS = st.sampled_from(WIDTHS)


@st.composite
def accesses(draw):
    width = draw(WIDTH_DRAWS)
    warps = draw(WARP_LISTS[width])
    addr = np.concatenate([w[0] for w in warps])
    mask = np.concatenate([w[1] for w in warps])
    return Access.from_lanes(addr, mask, width)


@settings(max_examples=400, deadline=None)
@given(accesses())
def test_fast_equals_exact(acc):
    access._shared_seen.cache_clear()  # the content memo would answer a repeated record without the paths under test
    for unit in (SECTOR_BYTES, LINE_BYTES):
        assert _chunks(acc, unit) == _chunks_exact(acc, unit)
        if acc.aligned:  # the analytic count is for aligned records (the others take the exact path)
            assert _chunks_affine(acc, unit) == _chunks_exact(acc, unit)
    assert _shared(acc) == _shared_exact(acc)
    assert access._shared_affine(acc) == _shared_exact(acc)  # the class path, whatever the memo holds
    # warp by warp too: a sum can hide two errors that cancel
    for w in range(acc.addresses.shape[0]):
        one = acc.rows(np.arange(acc.addresses.shape[0]) == w)
        assert (sectors(one), lines(one), _shared(one)) == (
            _chunks_exact(one, SECTOR_BYTES), _chunks_exact(one, LINE_BYTES), _shared_exact(one))


def test_the_fast_path_is_taken_for_affine_warps(monkeypatch):
    # 4000 warps reading 32 consecutive floats from a sector boundary: 4 sectors, 1 line, 1 wavefront each
    acc = Access.from_lanes(np.arange(32 * 4000) * 4, width=4)
    monkeypatch.setattr(access, "_chunks_exact", lambda *a: 1 / 0)
    monkeypatch.setattr(access, "_shared_exact", lambda *a: 1 / 0)
    access._shared_class.cache_clear()
    monkeypatch.setattr(access, "_shared_class", lambda *a: (1, 1))  # the class of a coalesced warp, by hand
    assert (sectors(acc), lines(acc), shared_wavefronts(acc)) == (16000, 4000, 4000)


def test_the_content_memo_answers_a_repeated_record(monkeypatch):
    # 2 warps, lanes 64 B (16 words) apart: lane l in bank 16·l mod 32, so banks 0 and 16 serve 16
    # distinct words each → 16 wavefronts per warp
    def rec():
        return Access.from_lanes(np.arange(64) * 64, width=4)
    access._shared_seen.cache_clear()
    first = shared_wavefronts(rec())
    monkeypatch.setattr(access, "_shared_affine", lambda *a: 1 / 0)
    assert shared_wavefronts(rec()) == first == 2 * 16


def test_a_masked_tail_is_one_run():
    # 64 lanes on consecutive floats from byte 0, lanes ≥ 37 masked off. Warp 0: bytes 0–127, 4 sectors,
    # 1 line. Warp 1: active lanes 0–4 are bytes 128–147, 1 sector, 1 line. Total 5 sectors, 2 lines.
    acc = Access.from_lanes(np.arange(64) * 4, np.arange(64) < 37, width=4)
    assert (sectors(acc), lines(acc)) == (_chunks_affine(acc, SECTOR_BYTES), _chunks_affine(acc, LINE_BYTES)) == (5, 2)


AFFINE_STRIDES = st.sampled_from([0, 1, -1, 2, 7, 8, 33, 128])
ROW_MASK_KINDS = st.sampled_from(["run", "random"])
AFFINE_ROWS = st.integers(1, 5)
# per number of rows, built once (as above): the same draws as building them in affine_warps, without the cost
FIRST_LANES = {rows: int_lanes(rows, 1 << 14) for rows in range(1, 6)}
STRIDE_LISTS = {rows: st.lists(AFFINE_STRIDES, min_size=rows, max_size=rows) for rows in range(1, 6)}


@st.composite
def affine_warps(draw):
    width = draw(WIDTH_DRAWS)
    rows = draw(AFFINE_ROWS)
    first = draw(FIRST_LANES[rows]) * width
    stride = np.array(draw(STRIDE_LISTS[rows])) * width
    first = first + 40 * 128 * width  # keeps negative strides at non-negative addresses
    if draw(st.booleans()):
        return first, stride, None, width
    lanes = np.arange(WARP_SIZE)
    masks = []
    for _ in range(rows):
        a, b = sorted(draw(LANE_PAIRS))
        kind = draw(ROW_MASK_KINDS)
        masks.append((lanes >= a) & (lanes < b) if kind == "run" else draw(RANDOM_MASKS))
    return first, stride, np.array(masks), width


@settings(max_examples=300, deadline=None)
@given(affine_warps())
def test_affine_counts_equal_the_record(w):
    first, stride, active, width = w
    acc = Access.from_lanes((first[:, None] + stride[:, None] * LANES).ravel(),
                            None if active is None else active.ravel(), width)
    assert affine_counts(first, stride, active, width) == (
        requests(acc), _chunks_exact(acc, SECTOR_BYTES), _chunks_exact(acc, LINE_BYTES), bytes_requested(acc))


def test_masked_affine_warps_are_counted_by_class(monkeypatch):
    # 3000 warps, lanes 128 B apart (every lane in bank 0), every other lane active (Harris's `tid % 2 == 0`):
    # 16 distinct words in bank 0 → 16 wavefronts a warp, 1 ideal; 48000 and 3000. Counted by class: the exact
    # path runs once, for the class, not for the 3000 warps
    addr = (np.arange(32 * 3000) % 32) * 128 + (np.arange(32 * 3000) // 32) * 4096
    acc = Access.from_lanes(addr, np.arange(32 * 3000) % 2 == 0, width=4, aligned=True)
    access._shared_class.cache_clear()
    real, calls = access._shared_exact, []
    monkeypatch.setattr(access, "_shared_exact", lambda a: calls.append(a.addresses.shape[0]) or real(a))
    assert access._shared_affine(acc) == (48000, 3000)
    assert calls == [1]
    monkeypatch.undo()
    assert access._shared_exact(acc) == (48000, 3000)
