"""predict's ``t_latency`` and ``estimate_band`` on a launch whose every term is counted by hand (mutants of bounds.py)."""
import warnings

import numpy as np
import pytest

from kernellab import launch, predict
from kernellab.errors import ModelWarning
from kernellab.specs import H100


def fma_chain(blk, y):
    v = blk.tx * 1.0
    for _ in range(64):
        v = blk.fma(v, 1.0, 1.0)
    blk.store(y, blk.bx * blk.bdx + blk.tx, v)


@pytest.fixture(scope="module")
def pipe_bound():
    y = np.empty(132 * 1024, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        return predict(launch(fma_chain, 132, 1024, args=(y,)), H100, timer="kernel")


def test_t_latency_is_what_the_estimate_adds_to_the_pipes(pipe_bound):
    # 132 blocks × 1024 threads, 64 dependent FMAs each, one block an SM of the H100: the issue slots bind, and
    # the estimate is the pipes plus the first round trip, estimate_time = t_pipes + t_fill (model.estimate);
    # t_latency = estimate_time − t_pipes is therefore t_fill, and lies between 0 and estimate_time.
    p = pipe_bound
    assert p["estimate_bound"] == "issue"
    assert p["t_fill"] > 0
    assert p["t_latency"] == pytest.approx(p["t_fill"], rel=1e-9)
    assert 0 < p["t_latency"] < p["estimate_time"]


def test_estimate_band_scales_with_the_clock(pipe_bound):
    # Every term of this launch is counted in SM cycles (issue slots; the round trip's cycles), so its time is
    # cycles ÷ clock: at the band's ends f_lo, f_hi the GFLOP/s are estimate_gflops × f / clock_hz. The H100's band
    # is 1.59–1.98 GHz and it is rated at 1.98: the band is (estimate_gflops × 1.59/1.98, estimate_gflops).
    p = pipe_bound
    f_lo, f_hi = H100.clock_band
    assert (f_lo, f_hi, H100.clock_hz) == (1.59e9, 1.98e9, 1.98e9)
    lo, hi = p["estimate_band"]
    assert lo == pytest.approx(p["estimate_gflops"] * 1.59 / 1.98, rel=1e-9)
    assert hi == pytest.approx(p["estimate_gflops"], rel=1e-9)
