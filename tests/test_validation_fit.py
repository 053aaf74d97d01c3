"""The efficiencies fitted on rows of validation.csv (benchmarks/validation/fit.py): the constants in
kernellab.specs are what the fit gives, the fitted rows are in-sample, and the bisection is exact on a
launch whose time is derived by hand."""

import math

import pytest

from benchmarks.validation import fit, in_sample
from kernellab.specs import ETA_WGMMA, PERF_H100, PERF_H200
from kernellab.triton import TritonCounts


def test_eta_wgmma_is_the_fit_of_its_named_rows_with_leave_one_out():
    f = fit.fit("eta_wgmma")
    assert round(f["value"], 2) == ETA_WGMMA == PERF_H100.eta_wgmma == PERF_H200.eta_wgmma
    assert set(f["rows"]) == set(fit.FITS["eta_wgmma"]) == {r for r, c in in_sample.IN_SAMPLE.items()
                                                             if c == "eta_wgmma"}
    for r in f["rows"].values():
        # the geometric mean of two rows' own values: each row's left-out η is the other's
        assert math.isclose(f["value"], math.sqrt(r["eta"] * r["loo_eta"]), rel_tol=1e-12)
        assert 0.8 <= r["loo_ratio"] <= 1.25


def test_row_eta_inverts_the_tensor_term_by_hand():
    # One program of 4 warps, a 128×128×4096 fp16 dot: 2·128·128·4096 = 134 217 728 FLOPs = 32 768 mma.sync
    # m16n8k16 (4096 FLOPs each) and, on sm_90, wgmma (per warp: 16 rows × 128 × 16 → 8192 instructions).
    # On one H100 SM: 989.4e12 / 132 = 7.4955e12 FLOP/s → 17.906 µs at η = 1 (its issue, 8192 wgmma ÷ 4 a
    # cycle ÷ 1.98 GHz ÷ η_SIMT 0.66 = 1.57 µs, binds nothing); it loads nothing, so waits no round trip; the
    # estimate adds do_bench's cold launch, 4.28 µs.
    c = TritonCounts(flops=134_217_728, dot_flops=134_217_728, mma_sm80=32_768, mma_sm90=8_192, wgmma_sm90=8_192,
                     launch={"grid": (1, 1, 1), "num_warps": 4})
    t_tensor = 134_217_728 / (989.4e12 / 132)
    for eta in (0.5, 0.81):
        measured = t_tensor / eta + 4.28e-6
        assert fit.row_eta("eta_wgmma", [c], PERF_H100, measured) == pytest.approx(eta, rel=1e-9)
    with pytest.raises(ValueError, match="eta_wgmma"):
        fit.row_eta("eta_wgmma", [c], PERF_H100, 1e-6)  # faster than η = 2 allows
