"""The seed lecture's use of the simulator (seed 002, lecture 10): its kernel, its calls, its figures."""


import numpy as np
import pytest

from kernellab import KERNELS, per_fma, run_kernel, scale_counts

N_SIM = 128


@pytest.fixture(scope="module")
def demo2():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((N_SIM, N_SIM)).astype(np.float32)
    B = rng.standard_normal((N_SIM, N_SIM)).astype(np.float32)
    ref = A.astype(np.float64) @ B.astype(np.float64)
    return {spec.number: (run_kernel(spec, A, B), ref) for spec in KERNELS[:2]}


def per_warp_step(st):
    warps_iters = st.fma / 32  # as the seed computes it: one warp, one K step = 32 FMAs
    return st.gld_instr / warps_iters, st.gld_lines / warps_iters, st.gld_sectors / warps_iters


def test_demo2_naive(demo2):
    (C, st), ref = demo2[1]
    assert np.abs(C - ref).max() < 1e-4
    # per warp per K step: 2 loads; A strided by K·4 = 512 B → 32 lines, 32 sectors; B broadcast → 1 and 1
    assert per_warp_step(st) == (2, 33, 33)
    assert st.fma == N_SIM**3


def test_demo2_coalesced(demo2):
    (C, st), ref = demo2[2]
    assert np.abs(C - ref).max() < 1e-4
    # A broadcast → 1 line, 1 sector; B 32 consecutive floats → 1 line, 4 sectors
    assert per_warp_step(st) == (2, 2, 5)


def test_demo2_ratios(demo2):
    st1, st2 = demo2[1][0][1], demo2[2][0][1]
    assert st1.gld_lines / st2.gld_lines == 16.5
    # bytes through L1 per FMA: 33 sectors × 32 B / 32 FMAs = 33; 5 × 32 / 32 = 5
    assert st1.gld_sectors * 32 / st1.fma == 33 and st2.gld_sectors * 32 / st2.fma == 5
    # warp instructions per FMA: per warp step 2 loads + 1 FMA, plus one store per warp at the end, plus
    # the K loop's overhead as nvcc compiles it (cuda/k01, k02): k1 unrolls by 4, 20 int + 1 branch per
    # pass; k2 (signed indices) by 16, 25 int + 1 branch per pass
    warps = N_SIM * N_SIM // 32
    for st, unroll, overhead in ((st1, 4, 21), (st2, 16, 26)):
        assert per_fma(st)["warp_instr"] == (3 * N_SIM * warps + N_SIM // unroll * overhead * warps + warps) / st.fma
        assert st.warp_instr - st.overhead_instr == 3 * N_SIM * warps + warps


def test_scaled_counts_keep_l1_bound(demo2):
    # at 4096³ the per-step figures do not change: k2 needs 2 lines (2 L1 cycles) per warp step
    # and issues 3 warp instructions (0.75 cycles at 4 per cycle): L1-bound
    big = scale_counts(demo2[2][0][1], 4096)
    assert big.fma == 4096**3
    assert big.gld_lines / (big.fma / 32) == 2
    assert big.warp_instr / 4 < big.gld_lines


def test_spec_fields():
    assert (KERNELS[0].boehm, KERNELS[1].boehm) == (309.0, 1986.5)
    assert [k.number for k in KERNELS] == list(range(1, 11))
    assert KERNELS[0].name == "sgemm_naive"
