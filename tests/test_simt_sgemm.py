"""Every SGEMM kernel against a float64 oracle on the shapes it supports; shape limits; shared-memory figures."""

from dataclasses import replace
from functools import partial

import numpy as np
import pytest

from kernellab import KERNELS, LaunchError, run_kernel


def check(spec, M, N, K, seed=0):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((M, K)).astype(np.float32)
    B = rng.standard_normal((K, N)).astype(np.float32)
    C, st = run_kernel(spec, A, B)
    ref = A.astype(np.float64) @ B.astype(np.float64)
    # float32 accumulation error grows like √K (a random walk of roundings); 1e-6·√K·max|ref| with margin
    tol = 4e-6 * np.sqrt(K) * max(1.0, np.abs(ref).max())
    assert np.abs(C - ref).max() < tol
    assert st.fma == M * N * K
    assert st.shape == (M, N, K)
    return st


EDGE = [(1, 1, 1), (31, 33, 32), (33, 31, 1), (7, 13, 17), (32, 32, 32), (64, 1, 5), (97, 61, 53)]


@pytest.mark.parametrize("shape", EDGE)
@pytest.mark.parametrize("k", [0, 1])
def test_k1_k2_any_shape(k, shape):
    st = check(KERNELS[k], *shape)
    M, N, _ = shape
    # exactly one store per C element
    assert st.gst_bytes == 4 * M * N


@pytest.mark.parametrize("k", range(2, 10))
def test_tiled_kernels_at_128(k):
    check(KERNELS[k], 128, 128, 128, seed=k)


@pytest.mark.parametrize("k, shape", [(2, (64, 96, 32)), (3, (64, 128, 16)), (4, (64, 64, 8)), (4, (256, 128, 24)),
                                      (5, (256, 128, 16)), (9, (128, 256, 32))])
def test_tiled_kernels_other_shapes(k, shape):
    check(KERNELS[k], *shape, seed=k)


@pytest.mark.parametrize("k, shape, dim", [(2, (33, 32, 32), "M"), (3, (64, 64, 4), "K"), (5, (128, 64, 8), "N"),
                                          (9, (128, 128, 8), "K")])
def test_shape_constraints(k, shape, dim):
    rng = np.random.default_rng(0)
    M, N, K = shape
    with pytest.raises(LaunchError, match=f"needs {dim} to be a positive multiple"):
        run_kernel(KERNELS[k], rng.standard_normal((M, K)), rng.standard_normal((K, N)))


def test_inner_dimensions_must_agree():
    with pytest.raises(ValueError, match="inner dimensions"):
        run_kernel(KERNELS[0], np.zeros((2, 3)), np.zeros((4, 2)))


def test_k3_counts_by_hand():
    # 128³, 16 blocks of 1024 threads (32 warps), 4 K tiles of 32:
    # per tile per warp: 2 global loads, 2 shared stores, 2 barriers; the 32 dot steps read As[row·32 + dot]
    # as 8 LDS.128 (nvcc vectorises the thread's As row across the unrolled dot loop) and Bs[dot·32 + col]
    # as 32 LDS
    st = check(KERNELS[2], 128, 128, 128)
    warps, tiles = 16 * 32, 4
    assert st.gld_instr == warps * tiles * 2
    assert st.shst_instr == warps * tiles * 2
    assert st.shld_instr == warps * tiles * (8 + 32)
    assert st.instr_by_kind["ld.shared.v4"] == warps * tiles * 8
    # As: the whole warp reads one 16-B chunk → pairs share → 2 half-warp phases, 1 wavefront each;
    # Bs: a row of 32 words, 1 wavefront. No conflicts: 8·2 + 32 = 48 wavefronts per tile per warp
    assert st.shld_wavefronts == st.shld_ideal == warps * tiles * 48
    assert st.barriers == 16 * tiles * 2
    assert st.instr_by_kind["bar.sync"] == warps * tiles * 2
    # overhead per tile per warp, as in the SASS of cuda/k03: 7 integer/address instructions, 1 branch
    assert (st.instr_by_kind["int"], st.instr_by_kind["ctrl"]) == (warps * tiles * 7, warps * tiles)


def test_smem_declared_matches_boehm():
    # the shared arrays each kernel declares add up to Boehm's static shared memory (facts.md §1.3)
    seen = {}

    def spy(blk, *args, _k, **kw):
        _k(blk, *args, **kw)
        seen[_k.__name__] = blk.smem_bytes

    for spec in KERNELS:
        wrapped = partial(spy, _k=spec.kernel)
        wrapped.__name__ = spec.name
        run_kernel(replace(spec, kernel=wrapped), np.ones((128, 128), np.float32), np.ones((128, 128), np.float32))
        assert seen[spec.kernel.__name__] == spec.smem_bytes, spec.name


def test_bank_conflict_layouts():
    # 128³: one block of 8 warps, 16 K tiles × 8 dot steps = 128 dot steps per warp, 1024 for the block.
    # As (all three): 2 LDS.128 at As[dot·128 + t_row·8 + {0,4}], t_row = tid/16: lanes 0-15 on one
    #   address, 16-31 on another → pairs share → 2 half-warp phases, 1 wavefront each → 4 per dot step (= ideal).
    # k6 Bs: 2 LDS.128 at Bs[dot·128 + t_col·8 + {0,4}], t_col = 0..7 in a quarter-warp (no pair shares) →
    #   banks 8·t_col mod 32: t_col and t_col+4 collide → 2 wavefronts per phase, 8 per load → 16 (ideal 8).
    # k7 Bs: 8 scalar loads at Bs[(dot·8 + i)·16 + t_col]: 16 consecutive words → 1 wavefront each → 8.
    # k8 Bs: rows of 133 floats start o = dot mod 4 floats past a 16-B boundary (Bs at float 1024), and
    #   nvcc reads the 8 floats at dot·133 + t_col·8 with (o=0) 2 LDS.128, (o=1, 3) 2 LDS.128 + 1 LDS,
    #   (o=2) 1 LDS.128 + 2 LDS.64. 16 lanes' runs 8 words apart → an LDS: 16 words on 4 banks, 4 each → 4;
    #   an LDS.64 half-warp: 16 lanes × 2 words on 8 banks, 4 each → 4, × 2 halves = 8; an LDS.128 as k6 → 8.
    #   Per 4 dots: 16 + 20 + 24 + 20 = 80 wavefronts; ideal 8 + 9 + 8 + 9 = 34 (LDS 1, LDS.64 2, LDS.128 4).
    steps = 8 * 128
    st = {k: check(KERNELS[k - 1], 128, 128, 128) for k in (6, 7, 8)}
    assert st[6].shld_wavefronts == steps * (4 + 16) and st[6].shld_ideal == steps * (4 + 8)
    assert st[7].shld_wavefronts == st[7].shld_ideal == steps * (4 + 8)
    assert st[8].shld_wavefronts == steps * 4 + steps // 4 * 80 and st[8].shld_ideal == steps * 4 + steps // 4 * 34
    assert st[8].instr_by_kind["ld.shared.v2"] == steps // 4 * 2 and st[8].instr_by_kind["ld.shared"] == steps // 4 * 2
    assert st[7].shld_conflicts == 0 < st[6].shld_conflicts < st[8].shld_conflicts
