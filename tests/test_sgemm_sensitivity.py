"""What the study's agreement owes to its calibrated constants (issue 25, "Overstated": η, the latency).

Each number the pages state about the fit — leave-one-out range, points in and out of sample, the
latency window, the base-clock ratio — is checked here against its definition, worked by hand.
"""

import math
from dataclasses import replace

import pytest

from kernellab.sgemm.sensitivity import (
    estimate_ratios,
    latency_window,
    leave_one_out,
    own_eta,
    ratio_at_base_clock,
    sample_split,
)
from kernellab.sgemm.study import MEASURED, PERFS, study
from kernellab.specs import PERF_A100, PERF_A6000, PERF_H100


def test_leave_one_out_is_the_ratio_over_the_geometric_mean_of_the_others():
    # η₋ₖ = (Π_{j≠k} rⱼ)^(1/6) over the seven η kernels; the estimate of an η kernel bound by a scheduler
    # pipe (shared, issue, FMA) is bound × η, so measured ÷ estimate = rₖ ÷ η₋ₖ
    boost = {r["number"]: r["ratio_boost"] for r in study(PERF_A6000)}
    loo = leave_one_out(PERF_A6000)
    for k in range(4, 11):
        others = [boost[j] for j in range(4, 11) if j != k]
        by_hand = boost[k] / math.prod(others) ** (1 / 6)
        assert loo[k] == pytest.approx(by_hand, rel=1e-12), k
    # the stated range, and it is wider than the in-sample one (0.86–1.16): leaving a point out can only
    # move its ratio away from 1
    assert f"{min(loo.values()):.2f}–{max(loo.values()):.2f}" == "0.85–1.19"
    in_sample = [r["estimate_ratio"] for r in study(PERF_A6000) if 4 <= r["number"] <= 10]
    assert min(loo.values()) < min(in_sample) and max(loo.values()) > max(in_sample)


def test_leave_one_out_skips_unmeasured_kernels():
    # the H100 has no k7/k8 measurement: five kernels, each η fitted on the other four
    assert sorted(leave_one_out(PERF_H100)) == [4, 5, 6, 9, 10]


def test_sample_split_by_hand():
    # A6000 and A100: k4–k10 measured, 7 + 7 = 14 in the fits; H100: k4, k5, k6, k9, k10 = 5 out of them;
    # all measured pairs: 10 + 10 + 8 = 28
    assert sample_split() == {"in_sample": 14, "out_of_sample": 5, "total": 28}
    assert sample_split(fitted=("RTX A6000",)) == {"in_sample": 7, "out_of_sample": 12, "total": 28}
    assert sum(v is not None for row in MEASURED.values() for v in row.values()) == 28


def test_latency_window_edges():
    lo, hi = latency_window()
    assert (round(lo * 1e9), round(hi * 1e9)) == (125, 200)
    # inside at both edges, outside one step beyond each, on at least one GPU
    for inside in (lo, hi):
        assert all(0.8 <= r <= 1.25 for r in estimate_ratios(3, inside).values())
    assert any(r < 0.8 for r in estimate_ratios(3, lo - 5e-9).values())   # the A6000 falls below
    assert any(r > 1.25 for r in estimate_ratios(3, hi + 5e-9).values())  # the H100 rises above
    # the shipped 175 ns is inside; the audit's 300–400 ns is not
    assert lo <= PERF_A6000.latency_s <= hi
    assert not latency_window(span_ns=(300, 400))


def test_estimate_ratios_match_the_study():
    # at the shipped latency the per-kernel path gives the study's own k3 ratios
    direct = estimate_ratios(3, PERF_A6000.latency_s)
    for perf in PERFS:
        assert direct[perf.name] == pytest.approx(study(perf)[2]["estimate_ratio"], rel=1e-12)
    # and with another latency, the study run on a Perf carrying it
    other = estimate_ratios(3, 300e-9)
    assert other[PERF_A100.name] == pytest.approx(study(replace(PERF_A100, latency_s=300e-9))[2]["estimate_ratio"])


def test_ratio_at_base_clock_scales_by_the_clock_ratio():
    # k10 on the A6000 is issue-bound: the bound scales with the clock, so the ratio at 1.41 GHz is the
    # ratio at 1.8 GHz × 1.8 / 1.41 = 0.657 × 1.277 = 0.839
    r = study(PERF_A6000)[9]
    base, _ = PERF_A6000.gpu.clock_band
    assert ratio_at_base_clock(PERF_A6000, 10) == pytest.approx(r["ratio_boost"] * PERF_A6000.clock_hz / base)
    assert round(ratio_at_base_clock(PERF_A6000, 10), 2) == 0.84
    with pytest.raises(ValueError, match="kernel 7 has no measurement on the H100"):
        ratio_at_base_clock(PERF_H100, 7)


def test_own_eta_of_the_h100_is_the_a6000s_to_two_hundredths():
    assert round(own_eta(PERF_H100), 3) == 0.638 and round(own_eta(PERF_A6000), 3) == 0.657


def test_each_kernel_is_simulated_once_per_seed_and_equals_a_fresh_simulation():
    # the leave-one-out refits and the latency scan run the study many times: the simulation of a
    # (spec, seed) is kept, and what is kept is what a new simulation gives
    from kernellab import KERNELS
    from kernellab.sgemm import study as st

    spec = KERNELS[4]
    first = st._simulate(spec)
    assert st._simulate(spec) is first
    assert st._simulate_once(spec, 0) == first
    assert st._simulate(spec, seed=1) is not first and st._simulate(spec, seed=1).fma == first.fma
    assert st._simulate(KERNELS[5]) != first  # another kernel is another entry


def test_inside_a_recording_every_simulation_launches():
    # `kernellab profile` and counts per line record the launches a script makes: a study run twice in
    # one process must launch its kernels both times there (the cache would hand back counts without
    # rows per line, and the second run would record no launch at all)
    from kernellab import KERNELS, record
    from kernellab.sgemm import study as st

    spec = KERNELS[2]
    st._simulate(spec)  # kept
    with record.recording(lines=True) as launches:
        counts = st._simulate(spec)
    assert len(launches) == 1 and counts is not st._simulate(spec) and counts == st._simulate(spec)
    assert counts.by_line is not None
