"""The registers a mini-Triton program's values hold (kernellab.triton.executor.liveness): the most words per thread
of floating-point values live at once, ``counts.launch["live_words"]``, and the residency rule built on it
(kernellab.model.persm.triton_resources). Every expectation is derived by hand in its comment."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kernellab.triton as triton
import kernellab.triton.language as tl
from benchmarks.validation.kernels_triton import layer_norm_bwd_dx
from kernellab import specs
from kernellab.model.persm import FIXED_REGS, launch_of, triton_resources
from kernellab.triton.executor import liveness
from kernellab.triton.executor.liveness import Live


@triton.jit
def chain(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    y = tl.exp(tl.load(x_ptr + offs))
    z = y * 2.0
    tl.store(out_ptr + offs, z + 1.0)


@triton.jit
def add(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(out_ptr + offs, x + y)


@triton.jit
def doubled(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * 2)


@triton.jit
def loop_sum(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        acc += tl.load(x_ptr + off + tl.arange(0, BLOCK))
    tl.store(out_ptr + tl.arange(0, BLOCK), acc)


@triton.jit
def ints_only(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, (v * 3) % 7, mask=offs < 100)


def test_an_operand_used_for_the_last_time_gives_its_registers_to_the_result():
    x = np.zeros(1024, np.float32)
    c = chain[(1,)](x, np.zeros_like(x), BLOCK=1024)
    # 1024 ÷ (32 × 4 threads) = 8 fp32 words a thread; load → exp → ×2 → +1, each operand dying where the next
    # value is made: one block live at a time, 8 words (the four blocks at once would be 32)
    assert c.launch["live_words"] == 8.0


def test_two_loaded_blocks_are_live_together_until_their_sum():
    x = np.ones(2048, np.float32)
    c = add[(2,)](x, x, np.zeros_like(x), BLOCK=1024, num_warps=4)
    # x (8 words) is still needed when y is loaded: 8 + 8 = 16; the sum takes their place
    assert c.launch["live_words"] == 16.0
    c8 = add[(2,)](x, x, np.zeros_like(x), BLOCK=1024, num_warps=8)
    # 8 warps: 1024 ÷ 256 = 4 words a block, 4 + 4 = 8
    assert c8.launch["live_words"] == 8.0


def test_sub_word_types_and_small_blocks():
    h = np.ones(1024, np.float16)
    c = doubled[(1,)](h, np.zeros_like(h), BLOCK=1024)
    # fp16 (the product too: an int literal keeps fp16): 8 elements a thread × 16 bits ÷ 32 = 4 words
    assert c.launch["live_words"] == 4.0
    s = np.ones(32, np.float32)
    c = chain[(1,)](s, np.zeros_like(s), BLOCK=32)
    # 32 elements on 128 threads: each thread holds one (a block smaller than the program is replicated)
    assert c.launch["live_words"] == 1.0


def test_a_loop_holds_its_accumulator_and_one_iteration_not_all_of_them():
    x = np.ones(8 * 1024, np.float32)
    c = loop_sum[(1,)](x, np.zeros(1024, np.float32), 8 * 1024, BLOCK=1024)
    # acc (8 words) and the iteration's load (8) are live when acc + load is made; 8 iterations still 16
    assert c.launch["live_words"] == 16.0


def test_integers_masks_and_pointers_are_not_counted():
    x = np.arange(128, dtype=np.int32)
    c = ints_only[(1,)](x, np.zeros_like(x), BLOCK=128)
    # no floating-point value: nothing recorded, and the residency keeps its default
    assert "live_words" not in c.launch
    assert triton_resources(c.launch, 4, specs.A100) == (0, None)
    assert launch_of(c, specs.A100).resources == "default"


def test_a_vectorised_step_records_what_one_program_holds():
    x = np.ones(64 * 1024, np.float32)
    batched = add[(64,)](x, x, np.zeros_like(x), BLOCK=1024)
    alone = add[(64,)](x, x, np.zeros_like(x), BLOCK=1024, vectorize=False)
    # the program axis of a batch is not part of a value's shape: 16 words either way
    assert batched.launch["live_words"] == alone.launch["live_words"] == 16.0


def test_layer_norm_backward_dx_holds_four_blocks_at_its_peak():
    n, group = 4096, 4
    x, dy, dx = (np.ones(n, np.float16) for _ in range(3))
    w, mean, rstd = np.ones(n, np.float16), np.zeros(1, np.float32), np.ones(1, np.float32)
    part = np.zeros((group, n), np.float16)
    locks = np.zeros(2 * group, np.int32)
    c = layer_norm_bwd_dx[(1,)](dx, dy, part, part.copy(), x, w, mean, rstd, locks, n, n, GROUP_SIZE_M=group,
                                BLOCK_SIZE_N=n, num_warps=8)
    # 4096 ÷ 256 = 16 words a fp32 block. The peak is where xhat · c1 is made (c1 used for the last time): dy,
    # xhat (both needed for the partial sums), wdy, the new block (4 × 16 = 64) and the scalars c2 and rstd (2)
    assert c.launch["live_words"] == 66.0
    # 10 + 66 = 76 registers: ⌈76 × 32 ÷ 256⌉ × 256 = 2560 a warp, 65536 ÷ 2560 = 25 warps = 3 programs of 8
    # (real Triton 3.9: 80 registers for sm_80, 3 programs; the flat 32 gave 8)
    assert triton_resources(c.launch, 8, specs.A100) == (0, FIXED_REGS + 66)
    assert launch_of(c, specs.A100).occupancy.blocks_per_sm == 3


@pytest.mark.parametrize("live,regs", [(0.5, 11), (66.0, 76), (400.0, 255)])
def test_the_rule_rounds_up_and_caps_at_255(live, regs):
    # 10 + ⌈live⌉, at most the 255 registers a thread may have
    assert triton_resources({"live_words": live}, 4, specs.H100) == (0, regs)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.sampled_from([(1,), (64,), (4096,), (32, 64)]),
                          st.sampled_from([4, 8, 16, 32, 64])), min_size=1, max_size=40),
       st.sampled_from([1, 4, 8]))
def test_the_peak_is_the_largest_sum_of_words_live_at_one_tick(values, num_warps):
    """Live.peak (a running sum of births and ends) against the definition tick by tick: at tick t, the values born
    at or before t whose end (their last use, or their birth + 1 when never used after it) is after t."""
    live = Live(num_warps)
    for i, (_, shape, bits) in enumerate(values):
        assert live.born(shape, bits) == i == live.clock - 1
    for i, (later, _, _) in enumerate(values):
        live.lasts[i] = i + later  # used last `later` ticks after its birth (0: never used after it)
    words = [-(-int(np.prod(shape)) // (32 * num_warps)) * bits / 32 for _, shape, bits in values]
    ends = [max(i + later, i + 1) for i, (later, _, _) in enumerate(values)]
    by_tick = [sum(w for i, (w, e) in enumerate(zip(words, ends)) if i <= t < e) for t in range(len(values))]
    assert live.peak() == max(by_tick)


# --- Live.peak of a few values in Python (liveness._peak), against the numpy sums ---------------------------
@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.sampled_from([8, 16, 32, 64]), st.integers(1, 8)),
                min_size=1, max_size=100))
def test_the_peak_of_a_few_values_is_the_numpy_sums(values):
    # value i born at tick i, last used at tick `last` (an end at or before its birth counts at birth + 1),
    # words ⌈n ÷ threads⌉ × bits ÷ 32: the Python sums and numpy's are exact, so equal as floats
    live = Live(num_warps=4)
    for last, bits, per_thread in values:
        i = live.born((128 * per_thread,), bits)
        live.lasts[i] = last
    python = liveness._peak(live.lasts, live.words)
    saved = liveness._PYTHON_PEAK
    liveness._PYTHON_PEAK = 0  # numpy's path for any number of values
    try:
        numpy_sums = live.peak()
    finally:
        liveness._PYTHON_PEAK = saved
    assert python == numpy_sums and type(python) is float
    assert live.peak() == numpy_sums  # the method's own choice


def test_the_peak_by_hand():
    live = Live(num_warps=1)  # 32 threads
    a = live.born((64,), 32)  # 2 words a thread
    b = live.born((64,), 32)
    live.lasts[a] = 1          # a last used at b's birth: gone from tick 1
    live.lasts[b] = 3          # b until tick 3
    c = live.born((32,), 16)   # 0.5 word a thread, born at tick 2, never used
    assert c == 2
    # tick 0: a (2); tick 1: b (2); tick 2: b + c (2.5); tick 3: nothing
    assert live.peak() == 2.5 == liveness._peak(live.lasts, live.words)
