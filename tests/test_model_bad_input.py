"""The model's refusals: each bad argument raises a clear error that names it (the model's bad-input paths)."""

import pytest

from kernellab import H100, predict
from kernellab.counters import Counts
from kernellab.model import LoopShape, dram_bytes_lru, resource_events, resource_label

C = Counts(fma=64, warp_instr=2, gld_instr=1, gld_lines=1, dram_sectors={"x": 4})


def test_predict_refuses_arguments_it_cannot_place():
    with pytest.raises(TypeError, match="got 5 positional arguments"):
        predict(C, 128, H100, H100, 1)
    with pytest.raises(TypeError, match="predict got 'gpu' twice"):
        predict(C, 128, H100, H100, gpu=H100)
    with pytest.raises(TypeError, match=r"unexpected keyword arguments \['speed', 'warmup'\]"):
        predict(C, H100, warmup=1, speed=2)


def test_counts_of_neither_engine_are_refused_by_name():
    with pytest.raises(TypeError, match="got a dict"):
        resource_events({"fma": 64})


def test_an_unknown_resource_has_no_label():
    assert resource_label("DRAM") == "DRAM"
    with pytest.raises(ValueError, match="unknown resource 'dram'"):
        resource_label("dram")


@pytest.mark.parametrize(("field", "value", "message"), [
    ("tile", (128, 0), "tile must be"), ("tile", (128,), "tile must be"),
    ("k_step", 0, "k_step and elem must be positive"), ("elem", 0, "k_step and elem must be positive"),
])
def test_a_loop_shape_with_a_zero_or_missing_size_is_refused(field, value, message):
    ok = {"threads": 256, "regs": None, "smem": 8192, "tile": (128, 128), "k_step": 8}
    with pytest.raises(ValueError, match=message):
        LoopShape(**{**ok, field: value})


def test_a_loop_shape_of_the_smallest_sizes_is_accepted():
    # positive sizes: a 1 × 1 tile and a K step of 1 element (1 byte) are the smallest allowed
    s = LoopShape(threads=32, regs=None, smem=0, tile=(1, 1), k_step=1, elem=1)
    assert (s.tile, s.k_step, s.elem) == ((1, 1), 1, 1)


@pytest.mark.parametrize("bad", ["n", "BK", "l2_bytes", "elem"])
def test_the_lru_wave_model_refuses_a_size_below_one(bad):
    args = {"n": 256, "BM": 64, "BN": 64, "BK": 32, "ctas_per_sm": 1, "n_sm": 4, "l2_bytes": 1 << 20, "elem": 2}
    with pytest.raises(ValueError, match=f"{bad} must be a positive int, got 0"):
        dram_bytes_lru(**{**args, bad: 0})
    with pytest.raises(ValueError, match="must be a multiple of BM, BN and BK"):
        dram_bytes_lru(**{**args, "n": 250})
    with pytest.raises(ValueError, match="must be a multiple of BM, BN and BK"):
        dram_bytes_lru(**{**args, "BM": 96})  # 256 = 2 × 96 + 64, while 64 and 32 divide it: BM alone fails
