"""The SIMT engine's special functions: one MUFU warp instruction on the XU pipe per element and active warp."""

import numpy as np
import pytest

from kernellab import H100, launch, predict
from kernellab.counters import sass_class
from kernellab.simt.special import SPECIAL, XU_KINDS


def _apply(name, n_threads=48, blocks=2, arity=1):
    def k(blk, x, out):
        i = blk.bx * blk.bdx + blk.tx
        v = blk.load(x, i)
        f = getattr(blk, name)
        blk.store(out, i, f(v, v) if arity == 2 else f(v))
    x = np.linspace(0.5, 2.0, blocks * n_threads).astype(np.float32)
    out = np.empty_like(x)
    return x, out, launch(k, blocks, n_threads, args=(x, out))


@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_each_special_function_is_one_mufu_per_warp_and_its_fmuls_per_lane(name):
    # 2 blocks of 48 threads: 2 warps each (32 + 16 lanes), 4 warps in all, 96 active lanes
    _cuda, fn, kind, fmuls = SPECIAL[name]
    x, out, c = _apply(name)
    np.testing.assert_allclose(out, fn(x.astype(np.float64)), rtol=1e-6)
    assert c.xu_instr == 4 and c.instr_by_kind[kind] == 4
    assert c.fmul == 96 * fmuls and c.flops == 96 * fmuls          # the FMULs are FP32 FLOPs; MUFU is not
    assert sass_class(kind) == "MUFU." + kind.split(".")[1].upper()


def test_fdividef_is_a_reciprocal_and_a_multiply():
    x, out, c = _apply("fdividef", arity=2)
    np.testing.assert_allclose(out, 1.0, rtol=1e-6)
    assert (c.xu_instr, c.instr_by_kind["mufu.rcp"], c.fmul) == (4, 4, 96)


def test_masked_lanes_compute_nothing_but_a_predicated_warp_still_issues():
    def k(blk, x, out):
        i = blk.bx * blk.bdx + blk.tx
        with blk.where(i < 40):        # warp 0: 32 lanes; warp 1: 8 lanes; warp 2: none
            blk.store(out, i, blk.expf(blk.load(x, i)))
    x = np.zeros(96, np.float32)
    out = np.full_like(x, -1.0)
    c = launch(k, 1, 96, args=(x, out))
    # the short body is predicated (simt.block.PREDICATE_MAX): warp 2 issues it with no lane on, as NCU's
    # sm__inst_executed_pipe_xu counts it; 3 MUFU warp instructions; 40 active lanes multiply
    assert c.xu_instr == 3 and c.fmul == 40
    assert (out[:40] == 1.0).all() and (out[40:] == -1.0).all()


def test_xu_kinds_are_the_mufu_opcodes():
    assert XU_KINDS == ("mufu.cos", "mufu.ex2", "mufu.lg2", "mufu.rcp", "mufu.rsq", "mufu.sin", "mufu.sqrt",
                        "mufu.tanh")


def test_one_warp_of_expf_runs_at_a_quarter_of_the_sms_xu_rate():
    # 1 warp, 128 independent __expf per lane (the chains of MB-03): 128 MUFU warp instructions on ONE
    # sub-partition, whose XU does 4 results a cycle: 128 × 32 / 4 = 1024 cycles, 8 per instruction.
    # The FMULs beside them: 128 × 32 lanes ÷ 32 FP32 lanes of one sub-partition = 128 cycles.
    def k(blk, x, out):
        v = blk.load(x, blk.tx)
        for _ in range(128):
            v = blk.expf(v)
        blk.store(out, blk.tx, v)
    x = np.zeros(32, np.float32)
    c = launch(k, 1, 32, args=(x, np.empty_like(x)), gpu=H100)
    assert c.xu_instr == 128
    p = predict(c, H100, timer="kernel")
    assert p["t_xu"] * H100.clock_hz == pytest.approx(128 * 32 / 4)
    assert p["t_fma"] * H100.clock_hz == pytest.approx(128 * 32 / 32)
    assert p["bound"] == "XU" and p["subpartitions"] == 1
