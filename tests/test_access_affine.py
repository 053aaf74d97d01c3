"""``access._affine`` looks at a record's warps a pass at a time (``_AFFINE_WARPS`` of them, its scratch reused):
each warp's first address, stride and whether every lane sits at ``first + lane·stride`` are the per-warp
definition's, whichever pass holds the warp and however many passes there are."""

import numpy as np
import pytest

import kernellab.access as access
from kernellab.access import WARP_SIZE, Access


def by_definition(addresses):
    """Per warp, straight from the definition: lane 0's address, lane 1 − lane 0, every lane at first + l·stride."""
    first, stride = addresses[:, 0], addresses[:, 1] - addresses[:, 0]
    lanes = np.arange(WARP_SIZE)
    return first, stride, (addresses == first[:, None] + lanes * stride[:, None]).all(axis=1)


def records(rng, warps):
    """Warps at random starts and strides (0, ±4, 8, 128, −36, …), some with one lane moved by one byte: lane 0,
    lane 30, lane 31 or a lane between (lane 31 is the one the flat pass does not compare with its neighbour)."""
    first = rng.integers(0, 1 << 40, warps)
    stride = rng.choice([0, 4, -4, 8, 16, 128, -36, 4096], warps)
    addresses = first[:, None] + np.arange(WARP_SIZE) * stride[:, None]
    broken = rng.random(warps) < 0.3
    lanes = rng.choice([0, 1, 15, 30, 31], warps)
    addresses[broken, lanes[broken]] += 1
    return addresses


@pytest.mark.parametrize("per", [1, 2, 3, 7, 4096])
@pytest.mark.parametrize("warps", [0, 1, 2, 5, 14, 21])
def test_each_warp_is_the_definitions_whatever_pass_holds_it(per, warps, monkeypatch):
    # 0–21 warps in passes of 1, 2, 3, 7 or 4096 warps: exact multiples, a short last pass, a single pass
    monkeypatch.setattr(access, "_AFFINE_WARPS", per)
    addresses = records(np.random.default_rng(per * 100 + warps), warps)
    got = access._affine(Access(addresses, np.ones(addresses.shape, bool), 4))
    want = by_definition(addresses)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.tolist() == w.tolist()


def test_the_warps_either_side_of_a_pass_boundary():
    # 4096 + 4 warps (131 200 lanes, over one pass at the default 4096 warps): every warp 4 consecutive floats
    # apart, lane l of warp w at 128·w + 4·l (affine, stride 4), except lane 31 of warp 4095 (the last of the
    # first pass) and lane 0 of warp 4096 (the first of the second) moved by 4 bytes: those two only are not affine
    warps = access._AFFINE_WARPS + 4
    addresses = (np.arange(warps * WARP_SIZE) * 4).reshape(warps, WARP_SIZE)
    addresses[4095, 31] += 4
    addresses[4096, 0] += 4
    first, stride, affine = access._affine(Access(addresses, np.ones(addresses.shape, bool), 4))
    assert np.flatnonzero(~affine).tolist() == [4095, 4096]
    assert stride[4095] == 4 and stride[4096] == 0  # lane 1 − lane 0: 4, and (128·4096 + 4) − (128·4096 + 4) = 0
    assert first[4096] == 128 * 4096 + 4
    assert (stride[:4095] == 4).all() and (stride[4097:] == 4).all()
