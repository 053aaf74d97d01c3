"""predict: per-resource times from counts, the binding resource, GFLOP/s (seed 002 demo 3, by hand)."""

import pytest

from kernellab.counters import Counts
from kernellab.model import RESOURCES, predict, resource_events
from kernellab.specs import A100, A6000, PERF_A6000, PERF_H100

# these tests predict small counts on purpose: the launch-overhead warning is checked in test_model_terms.py
pytestmark = pytest.mark.filterwarnings("ignore::kernellab.errors.ModelWarning")

N = 4096
SM_CYCLES = 84 * 1.8e9  # A6000 SM-cycles per second


def _gemm_counts(lines_per_step, instr_per_step, **kw):
    """Counts of an SGEMM at 4096³ whose warps, per K step (32 FMAs), touch/issue the given numbers."""
    steps = N**3 // 32
    return Counts(fma=N**3, warp_instr=steps * instr_per_step, gld_lines=steps * lines_per_step, **kw)


def test_seed002_naive_is_l1_bound_near_290():
    # 33 lines per 32 FMAs: 4096³ × 33/32 = 7.087e10 lines ÷ (1 × 84 × 1.8e9) = 0.4687 s
    # 2 × 4096³ / 0.4687 s = 293.2 GFLOP/s (measured 309)
    p = predict(None, _gemm_counts(33, 3), N, PERF_A6000, A6000)
    assert p["t_l1"] == pytest.approx(N**3 * 33 / 32 / SM_CYCLES)
    assert p["bound"] == "L1" and p["time"] == p["t_l1"]
    assert p["gflops"] == pytest.approx(2 * N**3 / (N**3 * 33 / 32 / SM_CYCLES) / 1e9)
    assert round(p["gflops"]) == 293
    assert 309.0 / p["gflops"] == pytest.approx(1.054, abs=1e-3)


def test_seed002_coalesced_is_about_4_8_tflops():
    # 2 lines per 32 FMAs: 4096³ / 16 lines ÷ 1.512e11 = 0.02841 s → 4838 GFLOP/s (measured 1986.5, 41 %)
    p = predict(None, _gemm_counts(2, 3), N, PERF_A6000, A6000)
    assert p["bound"] == "L1"
    assert p["gflops"] == pytest.approx(2 * 16 * SM_CYCLES / 1e9)
    assert f"{p['gflops'] / 1e3:.1f}" == "4.8"
    assert f"{1986.5 / p['gflops']:.0%}" == "41%"


def test_other_times_by_hand():
    c = _gemm_counts(2, 3, dram_sectors={"A": N * N // 8, "B": N * N // 8, "C": N * N // 8})
    p = predict(None, c, N, PERF_A6000, A6000)
    # FMA: 4096³ ÷ (128 × 84 × 1.8e9) = 3.551 ms
    assert p["t_fma"] == pytest.approx(N**3 / (128 * SM_CYCLES))
    # issue: 3 × 4096³/32 warp instructions ÷ (4 × 84 × 1.8e9) = 10.65 ms
    assert p["t_issue"] == pytest.approx(3 * N**3 / 32 / (4 * SM_CYCLES))
    # DRAM: 3 × 4096²/8 sectors × 32 B = 3 × 4096² × 4 B = 201 MB ÷ 768 GB/s = 0.262 ms
    assert p["t_dram"] == pytest.approx(3 * N * N * 4 / 768e9)
    assert p["t_smem"] == 0


@pytest.mark.parametrize("bound, counts", [
    ("FMA", Counts(fma=128 * 10, warp_instr=39, gld_lines=9)),
    ("issue", Counts(fma=128 * 10, warp_instr=41, gld_lines=9)),
    ("L1", Counts(fma=128 * 10, warp_instr=1, gld_lines=5, gst_lines=6)),
    ("shared", Counts(fma=128 * 10, shld_wavefronts=8, shst_wavefronts=3)),
    ("DRAM", Counts(fma=1, dram_sectors={"A": 10**6})),
])
def test_each_resource_can_bind(bound, counts):
    # 1280 FMAs at 128 per SM-cycle = 10 SM-cycles; 41 instructions at 4 = 10.25; 11 lines or wavefronts = 11
    p = predict(None, counts, 8, PERF_A6000)
    assert p["bound"] == bound
    assert p["time"] == max(p[key] for key, _, _ in RESOURCES.values())


def test_ties_go_to_the_first_resource():
    # 128 FMAs and 4 instructions: 1 SM-cycle each → "FMA", listed first
    assert predict(None, Counts(fma=128, warp_instr=4), 1, PERF_A6000)["bound"] == "FMA"


def test_loads_and_stores_both_charge_l1_and_shared():
    c = Counts(gld_instr=1, gst_instr=1, shld_instr=2, shst_instr=1, gld_lines=2, gst_lines=3, shld_wavefronts=4,
               shst_wavefronts=5, dram_sectors={"A": 1, "C": 2})
    # MIO: every load/store instruction, global and shared, 1 + 1 + 2 + 1 = 5; DRAM: 3 sectors × 32 B; no atomics
    assert resource_events(c) == {"FMA": 0, "tensor": 0, "XU": 0, "issue": 0, "L1": 5, "shared": 9, "MIO": 5, "DRAM": 96,
                                  "atomic": 0}


def test_spec_name_and_non_square_flops():
    class Spec:
        name = "k1"
    # (M, N, K) = (64, 32, 16): 2 × 64 × 32 × 16 = 65536 FLOP; 32768 FMAs ÷ (128 × 84 × 1.8e9)
    p = predict(Spec(), Counts(fma=32768), (64, 32, 16), PERF_A6000, A6000)
    assert p["name"] == "k1"
    assert p["gflops"] == pytest.approx(65536 / (32768 / (128 * SM_CYCLES)) / 1e9)


def test_a_spec_with_some_counts_fields_is_still_the_spec():
    # counts are what has dot_flops, load_lines and dram_bytes, all three: a spec that carries a DRAM figure
    # of its own is still the spec, and the counts follow it. 32768 FMAs as above.
    class Spec:
        name = "k1"
        dram_bytes = 4096 * 4096 * 12  # a lecture's own estimate, not counts

    p = predict(Spec(), Counts(fma=32768), (64, 32, 16), PERF_A6000, A6000)
    assert p["name"] == "k1"
    assert p["gflops"] == pytest.approx(65536 / (32768 / (128 * SM_CYCLES)) / 1e9)


def test_counts_of_the_triton_kind_without_the_optional_fields():
    # resource_events takes any object with the mini-Triton counts' fields; mma_sm80, mma_sm90,
    # tensor_flops_sm90, xu_instructions, the shared wavefronts and atomic_same_address may be absent (0):
    # no MMA, so the dot's 4096 FLOPs run on the FMA pipe as 2048 FMAs: 6400 − 4096 + 2048 = 4352;
    # issue = ⌈4352 ÷ 32⌉ + (10 + 4 + 2) requests = 136 + 16 = 152; L1 = 20 + 8 + 2 lines.
    from types import SimpleNamespace

    c = SimpleNamespace(flops=6400, dot_flops=4096, load_requests=10, store_requests=4, atomic_requests=2,
                        load_lines=20, store_lines=8, atomic_lines=2, dram_bytes=1024)
    want = {"FMA": 4352, "tensor": 0, "XU": 0, "issue": 152, "L1": 30, "shared": 0, "MIO": 16, "DRAM": 1024,
            "atomic": 0}
    assert resource_events(c, "sm_80") == want
    assert resource_events(c, "sm_90") == want  # no tensor_flops_sm90 either: no Tensor Core work


def test_mismatched_gpu_and_empty_counts_raise():
    with pytest.raises(ValueError, match="A100"):
        predict(None, Counts(fma=1), 1, PERF_H100, A100)
    with pytest.raises(ValueError, match="nothing to predict"):
        predict(None, Counts(), 1, PERF_A6000)
