"""The model on the simulator's own counts: seed 002 demo 3, scaling, and ``compare_kernels`` over Boehm's table."""

from dataclasses import replace

import numpy as np
import pytest

from kernellab import compare_kernels
from kernellab.counters import scale_counts
from kernellab.model import peak_flops, predict
from kernellab.sgemm import KERNELS, KernelSpec, run_kernel
from kernellab.specs import A6000, PERF_A6000, PERF_H100

# these tests predict small counts on purpose: the launch-overhead warning is checked in test_model_terms.py
pytestmark = pytest.mark.filterwarnings("ignore::kernellab.errors.ModelWarning")

N_SIM, N_BIG = 128, 4096
SM_CYCLES = 84 * 1.8e9  # A6000 SM-cycles per second
RESOURCE_NAMES = {"FMA", "issue", "L1", "shared", "MIO", "DRAM"}


def _matrices(n, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n, n)).astype(np.float32), rng.standard_normal((n, n)).astype(np.float32))


@pytest.fixture(scope="module")
def seed002():
    """Seed 002 demo 3: k1 and k2 simulated at 128³, scaled to 4096³, predicted on the A6000."""
    A, B = _matrices(N_SIM)
    out = {}
    for spec in KERNELS[:2]:
        _, st = run_kernel(spec, A, B)
        out[spec.name] = (st, predict(spec, scale_counts(st, N_BIG), N_BIG, PERF_A6000, A6000))
    return out


def test_seed002_naive_from_simulator_counts(seed002):
    st, p = seed002["sgemm_naive"]
    # simulated: 128³ × 33/32 = 2,162,688 lines loaded, 128² = 16,384 stored (one line per lane)
    assert (st.gld_lines, st.gst_lines) == (128**3 * 33 // 32, 128**2)
    # scaled: (4096³ × 33/32 + 4096²) lines ÷ (1 line × 84 SMs × 1.8e9 Hz) = 0.4688 s
    t_l1 = (N_BIG**3 * 33 / 32 + N_BIG**2) / SM_CYCLES
    assert p["t_l1"] == pytest.approx(t_l1, rel=1e-12)
    assert p["bound"] == "L1" and p["name"] == "sgemm_naive"
    # 2 × 4096³ / 0.4688 s = 293.2 GFLOP/s: the seed's "≈ 290", beside Boehm's 309
    assert p["gflops"] == pytest.approx(2 * N_BIG**3 / t_l1 / 1e9, rel=1e-12)
    assert abs(p["gflops"] - 290) < 5
    assert f"{309.0 / p['gflops']:.2f}" == "1.05"


def test_seed002_coalesced_from_simulator_counts(seed002):
    st, p = seed002["sgemm_global_mem_coalesce"]
    # 2 lines per 32 FMAs (A broadcast, B 128 contiguous bytes), C stores 1 line per warp
    assert (st.gld_lines, st.gst_lines) == (128**3 // 16, 128**2 // 32)
    t_l1 = (N_BIG**3 / 16 + N_BIG**2 / 32) / SM_CYCLES  # 0.02842 s
    assert p["t_l1"] == pytest.approx(t_l1, rel=1e-12) and p["bound"] == "L1"
    # 2 × 4096³ / 0.02842 s = 4836 GFLOP/s: "≈ 4.8 TFLOP/s"; measured 1986.5 is "about 40 %" of it
    assert f"{p['gflops'] / 1e3:.1f}" == "4.8"
    assert round(1986.5 / p["gflops"], 1) == 0.4
    # L1's load drops 16.5× from the naive kernel: 33 lines per 32 FMAs → 2
    assert seed002["sgemm_naive"][1]["t_l1"] / p["t_l1"] == pytest.approx(16.5, rel=1e-3)


def test_seed002_other_resources_by_hand(seed002):
    _, p = seed002["sgemm_naive"]
    # FMA: 4096³ ÷ (128 × 84 × 1.8e9) = 3.55 ms; DRAM: 3 × 4096² × 4 B ÷ 768 GB/s = 0.262 ms
    assert p["t_fma"] == pytest.approx(N_BIG**3 / (128 * SM_CYCLES), rel=1e-12)
    assert p["t_dram"] == pytest.approx(3 * N_BIG**2 * 4 / 768e9, rel=1e-12)
    # issue: per 32 FMAs a warp issues ld A, ld B, fma (3) and, per 4 of them, the unrolled loop's 20 integer
    # instructions and a branch (cuda/k01's SASS); plus one st per warp: ÷ (4 × 84 × 1.8e9)
    assert p["t_issue"] == pytest.approx(((3 + 21 / 4) * N_BIG**3 / 32 + N_BIG**2 / 32) / (4 * SM_CYCLES), rel=1e-12)


@pytest.mark.parametrize("spec, n_small", [(k, 64) for k in KERNELS[:4]] + [(KERNELS[4], 128), (KERNELS[9], 128)],
                         ids=lambda v: getattr(v, "name", str(v)))
def test_scaled_counts_predict_what_a_simulation_gives(spec, n_small):
    # the scaling assumption, checked: counts at n scaled to 2n predict exactly what simulating 2n gives
    _, small = run_kernel(spec, *_matrices(n_small))
    _, big = run_kernel(spec, *_matrices(2 * n_small))
    p_scaled = predict(spec, scale_counts(small, 2 * n_small), 2 * n_small, PERF_A6000)
    p_sim = predict(spec, replace(big, launch={}), 2 * n_small, PERF_A6000)  # scaled counts carry no launch
    assert p_scaled == p_sim


@pytest.fixture(scope="module")
def table():
    return compare_kernels()


def test_compare_covers_boehms_table(table):
    assert [r["name"] for r in table] == [k.name for k in KERNELS]
    assert [r["measured"] for r in table] == [k.boehm for k in KERNELS]
    assert len(table) == 10  # k1–k10: every kernel with a row in Boehm's table (facts.md §1.1)
    for r in table:
        assert r["bound"] in RESOURCE_NAMES
        assert r["ratio"] == pytest.approx(r["measured"] / r["predicted"])
        assert r["max_error"] < 1e-3
        # FMAs alone take 4096³ ÷ (128 × 84 × 1.8e9): no prediction beats the FP32 peak
        assert r["predicted"] * 1e9 <= peak_flops(PERF_A6000)


def test_compare_first_rows_are_the_seed_numbers(table):
    naive, coalesced, smem = table[:3]
    assert (naive["bound"], round(naive["predicted"])) == ("L1", 293)
    assert (coalesced["bound"], f"{coalesced['predicted'] / 1e3:.1f}") == ("L1", "4.8")
    # k3 moves A and B through shared memory: L1 no longer binds. As nvcc compiles it (the simulator
    # follows), per 512 warp FFMAs: 640 LDS (128 LDS.128 of As + 512 of Bs) + 32 LDG + 32 STS = 704 LSU
    # instructions, against 768 load + 32 store = 800 wavefronts: shared memory binds
    assert smem["bound"] == "shared"
    t = smem["prediction"]
    assert t["t_smem"] / t["t_mio"] == pytest.approx(800 / 704, rel=1e-3)
    assert t["t_l1"] < coalesced["prediction"]["t_l1"] / 10
    assert {r["bound"] for r in table[2:]} <= {"shared", "issue", "MIO"}


def test_compare_on_another_gpu():
    rows = compare_kernels(kernels=KERNELS[:1], perf=PERF_H100, gpu=PERF_H100.gpu)
    # naive on the H100: (4096³ × 33/32 + 4096²) lines ÷ (132 × 1.98e9)
    t_l1 = (N_BIG**3 * 33 / 32 + N_BIG**2) / (132 * 1.98e9)
    assert rows[0]["predicted"] == pytest.approx(2 * N_BIG**3 / t_l1 / 1e9, rel=1e-12)


def _naive_missing_last_k(blk, A, B, C, M, N, K):
    """The naive kernel with an off-by-one K loop: its C is wrong, so its counts must not be used."""
    x = blk.bx * blk.bdx + blk.tx
    y = blk.by * blk.bdy + blk.ty
    acc = np.zeros(blk.n_threads, np.float32)
    for i in range(K - 1):
        acc = blk.fma(blk.load(A, x * K + i), blk.load(B, i * N + y), acc)
    blk.store(C, x * N + y, acc)


def test_compare_refuses_a_wrong_kernel():
    k1 = KERNELS[0]
    bad = KernelSpec("sgemm_off_by_one", 0, "0: wrong", None, _naive_missing_last_k, k1.block, k1.grid_fn, 0)
    with pytest.raises(RuntimeError, match="sgemm_off_by_one computed a wrong C"):
        compare_kernels(kernels=[bad])
