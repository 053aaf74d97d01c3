"""per_fma and scale_counts: which counts grow as n³ and which as n², checked against real simulations."""

import numpy as np
import pytest

from kernellab import KERNELS, Counts, per_fma, run_kernel, scale_counts


def sim(k, n):
    A = np.ones((n, n), np.float32)
    return run_kernel(KERNELS[k], A, A)[1]


@pytest.mark.parametrize("k, small, big", [(0, 32, 64), (1, 32, 96), (2, 32, 64), (4, 128, 256)])
def test_scaling_matches_simulation(k, small, big):
    # blocks all do the same work at both sizes, so scaling the small run must give the big run exactly
    assert scale_counts(sim(k, small), big) == sim(k, big)


def test_rectangular_scaling():
    A, B = np.ones((64, 32), np.float32), np.ones((32, 96), np.float32)
    small = run_kernel(KERNELS[1], A, B)[1]
    A2, B2 = np.ones((128, 64), np.float32), np.ones((64, 96), np.float32)
    assert scale_counts(small, (128, 96, 64)) == run_kernel(KERNELS[1], A2, B2)[1]


def test_n2_and_n3_by_hand():
    # doubling n: FMAs and loads × 8, stores × 4; DRAM sectors of each matrix × 4
    c = sim(1, 32)
    big = scale_counts(c, 64)
    assert big.fma == 8 * c.fma and big.gld_sectors == 8 * c.gld_sectors and big.barriers == 8 * c.barriers
    assert big.gst_instr == 4 * c.gst_instr and big.instr_by_kind["st.global"] == 4 * c.instr_by_kind["st.global"]
    assert big.dram_sectors == {name: 4 * v for name, v in c.dram_sectors.items()}
    assert big.simt_efficiency() == c.simt_efficiency()


def test_counts_without_instructions_scale_to_none():
    # no warp instruction (counts made by hand, with DRAM traffic only): none at 8× the FMAs either, and the
    # lanes per instruction are not divided by zero; A at (32, 32, 32) → (64, 64, 64): its 4 sectors × 2 × 2
    big = scale_counts(Counts(dram_sectors={"A": 4}, shape=(32, 32, 32)), 64)
    assert (big.warp_instr, big.thread_instr, big.dram_sectors) == (0, 0, {"A": 16})


def test_scale_needs_a_shape():
    with pytest.raises(ValueError, match="counts.shape"):
        scale_counts(Counts(fma=1), 4)


def test_per_fma():
    c = sim(0, 32)
    pf = per_fma(c)
    assert pf["fma"] == 1 and pf["gld_lines"] == c.gld_lines / c.fma
    assert pf["dram_bytes"] == c.dram_bytes / c.fma
    with pytest.raises(ValueError, match="FMA"):
        per_fma(Counts())
