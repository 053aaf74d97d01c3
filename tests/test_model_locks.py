"""Spin locks (issue 32, item 6): what the engine records of each lock, and the chain the model charges.

The engine (kernellab.triton.executor.locks): a scalar ``tl.atomic_cas`` that swaps takes a lock, the same
program's scalar ``tl.atomic_xchg`` of that address releases it; a section's round trips are the rounds it
waits for loaded data, plus one when it stored (the release waits for its stores); its bytes are the active
lanes × element size of its loads and stores. The model (kernellab.model.locks): a lock's chain is
(acquisitions + round trips) × L + bytes ÷ (l2_bw ÷ SMs), L = Perf.l2_latency_cycles ÷ clock (RRZE
gpu-latency: A100 205 cycles, A6000 as the A40 250), l2_bw (RRZE gpu-l2-cache: A100 5.4 TB/s, 108 SMs).
"""

import functools
import warnings
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import predict
from kernellab.errors import ModelWarning
from kernellab.triton.executor import engine, locks, sampling
from kernellab.triton.executor.policy import Policy, using

A100 = "A100 SXM 80GB"
L_A100 = 205 / 1.41e9  # one L2 round trip on the A100, seconds (145.39 ns)
SM_L2_A100 = 5.4e12 / 108  # one SM's share of the A100's L2 bandwidth, 50 GB/s


def quiet(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        return predict(*args, **kwargs)


@triton.jit
def locked_rows(Lock, Buf, N, G: tl.constexpr, BLOCK: tl.constexpr):
    # program p adds 1 to row p % G of Buf under lock p % G: one load used (1 round trip), one store (+1)
    g = tl.program_id(0) % G
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    while tl.atomic_cas(Lock + g, 0, 1) == 1:
        pass
    row = tl.load(Buf + g * BLOCK + cols, mask=mask, other=0.0)
    tl.store(Buf + g * BLOCK + cols, row + 1.0, mask=mask)
    tl.atomic_xchg(Lock + g, 0)


@triton.jit
def first_or_add(Lock, Count, Buf, X, BLOCK: tl.constexpr):
    # tutorial 05's partial sums: the first program stores its row, the later ones add theirs to the buffer;
    # the program waits for its own row before it takes the lock (a round trip outside the section)
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + tl.program_id(0) * BLOCK + cols) * 2.0
    while tl.atomic_cas(Lock, 0, 1) == 1:
        pass
    count = tl.load(Count)
    if count == 0:
        tl.atomic_xchg(Count, 1)
    else:
        x += tl.load(Buf + cols)
    tl.store(Buf + cols, x)
    tl.atomic_xchg(Lock, 0)


def test_each_lock_its_acquisitions_round_trips_and_bytes():
    # 6 programs, 2 locks (p % 2): 3 acquisitions each. A section: 40 of 64 lanes active, loaded (160 B)
    # and used (1 round trip), stored (160 B; the release waits for it: +1) → 2 round trips, 320 B;
    # a lock: 3 sections → 6 round trips, 960 B
    lock, buf = np.zeros(2, np.int32), np.zeros(2 * 64, np.float32)
    c = locked_rows[(6,)](lock, buf, 40, G=2, BLOCK=64)
    assert c.launch["locks"] == {("Lock", 0): (3, 6, 960), ("Lock", 1): (3, 6, 960)}
    assert buf.reshape(2, 64)[:, :40].tolist() == [[3.0] * 40] * 2 and not buf.reshape(2, 64)[:, 40:].any()
    assert lock.tolist() == [0, 0]


def test_programs_of_one_step_that_take_different_locks():
    # 2 programs, 2 locks: a vectorised step would take both at once; each section is its own program's
    # (the step reruns one by one): 1 acquisition, 2 round trips, 320 B a lock
    lock, buf = np.zeros(2, np.int32), np.zeros(2 * 64, np.float32)
    c = locked_rows[(2,)](lock, buf, 40, G=2, BLOCK=64)
    assert c.launch["locks"] == {("Lock", 0): (1, 2, 320), ("Lock", 1): (1, 2, 320)}


@triton.jit
def grouped_partials(Lock, Count, Buf, X, G: tl.constexpr, BLOCK: tl.constexpr):
    # tutorial 05's pattern with G groups: program p adds its row into buffer p % G under lock p % G
    pid = tl.program_id(0)
    g = pid % G
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + pid * BLOCK + cols) * 2.0
    while tl.atomic_cas(Lock + g, 0, 1) == 1:
        pass
    count = tl.load(Count + g)
    if count == 0:
        tl.atomic_xchg(Count + g, 1)
    else:
        x += tl.load(Buf + g * BLOCK + cols)
    tl.store(Buf + g * BLOCK + cols, x)
    tl.atomic_xchg(Lock + g, 0)


def test_steps_split_where_programs_share_a_lock_as_one_by_one():
    # 40 programs on 16 locks: vectorised, the step of 40 splits where program 16 finds lock 0 taken, then runs
    # in steps of 16 (16, 16, 8), each of distinct locks. The values, the counts and every lock's record are
    # those of the programs run one after another (Policy.reference()). Locks 0–7 get 3 programs, 8–15 two:
    # 2 + 3 + 3 = 8 or 2 + 3 = 5 round trips, 260 + 2 × 516 = 1292 or 260 + 516 = 776 bytes (64 fp32 a row)
    def run(policy):
        lock, count, buf = np.zeros(16, np.int32), np.zeros(16, np.int32), np.zeros(16 * 64, np.float32)
        x = np.arange(40 * 64, dtype=np.float32)
        with using(policy):
            c = grouped_partials[(40,)](lock, count, buf, x, G=16, BLOCK=64)
        return c, buf, x

    (fast, buf, x), (exact, buf_exact, _) = run(Policy()), run(Policy.reference())
    want = {("Lock", g): (3, 8, 1292) if g < 8 else (2, 5, 776) for g in range(16)}
    assert fast.launch["locks"] == exact.launch["locks"] == want
    assert fast == exact
    sums = np.zeros((16, 64), np.float32)
    for p in range(40):
        sums[p % 16] += 2 * x.reshape(40, 64)[p]
    np.testing.assert_array_equal(buf, sums.reshape(-1))
    np.testing.assert_array_equal(buf_exact, buf)


def test_a_kernel_whose_step_split_at_its_locks_starts_its_later_launches_in_steps_of_that_size():
    # 12 programs on 4 locks (p % 4). The first launch's step of 12 computes every program up to its lock,
    # splits where program 4 finds lock 0 taken (k = 4) and runs again as 4 + 4 + 4; the kernel remembers 4,
    # so the next launch runs steps of 4 from the start (the 12-program step, tutorial 05's 4096 programs,
    # is not computed again). A launch with 3 locks then splits its first step of 4 at 3 and runs the other 9
    # programs in steps of 3 (not each later step of 4 split again: 3 + 1 three times).
    # Values, counts and every lock's record are those of the programs run one after another
    seen = []  # programs of each vectorised step, in the order they ran (undone ones included)

    def step(launch, chunk):
        seen.append(len(chunk))
        return real_step(launch, chunk)

    def run(policy, groups):
        lock, count, buf = np.zeros(groups, np.int32), np.zeros(groups, np.int32), np.zeros(groups * 32, np.float32)
        x = np.arange(12 * 32, dtype=np.float32)
        with using(policy), mock.patch.object(engine, "_batch", step):
            c = grouped_partials[(12,)](lock, count, buf, x, G=groups, BLOCK=32)
        sums = np.zeros((groups, 32), np.float32)
        for p in range(12):
            sums[p % groups] += 2 * x.reshape(12, 32)[p]
        np.testing.assert_array_equal(buf, sums.reshape(-1))
        return c

    real_step = engine._batch
    grouped_partials._hints.clear()
    try:
        exact4, exact3 = run(Policy.reference(), 4), run(Policy.reference(), 3)
        assert seen == []  # one program at a time: no vectorised step
        first = run(Policy(), 4)
        assert seen == [12, 4, 4, 4] and grouped_partials._hints["locks"] == 4
        seen.clear()
        assert run(Policy(), 4) == first == exact4 and seen == [4, 4, 4]
        seen.clear()
        assert run(Policy(), 3) == exact3 and seen == [4, 3, 3, 3, 3] and grouped_partials._hints["locks"] == 3
    finally:
        grouped_partials._hints.clear()
    # 3 programs a lock, 32 fp32 a row: the first section 2 round trips and 4 + 128 B, the others 3 and 260 B
    assert exact3.launch["locks"] == {("Lock", g): (4, 2 + 3 * 3, 132 + 3 * 260) for g in range(3)}


def test_programs_of_one_step_on_one_lock_see_it_free_as_one_after_another():
    # 4 programs take one lock without a spin loop and store what their compare-and-swap read: run one after
    # another, each finds the word released (0). A vectorised step would have programs 1–3 read the 1 that
    # program 0 wrote; the step splits instead. Each section: a 4 B store (1 round trip): (4, 4, 16)
    @triton.jit
    def read_then_release(Lock, Out):
        old = tl.atomic_cas(Lock, 0, 1)
        tl.store(Out + tl.program_id(0), old)
        tl.atomic_xchg(Lock, 0)

    out = np.full(4, 7, np.int32)
    c = read_then_release[(4,)](np.zeros(1, np.int32), out)
    assert out.tolist() == [0, 0, 0, 0] and c.launch["locks"] == {("Lock", 0): (4, 4, 16)}


def test_programs_of_one_step_move_their_own_bytes():
    # 4 programs, 4 locks, one vectorised step: program p loads and stores the first 8·(p + 1) floats of its row,
    # 2 × 4 B × 8·(p + 1) = 64·(p + 1) bytes, in 2 round trips
    @triton.jit
    def locked_prefix(Lock, Buf, BLOCK: tl.constexpr):
        p = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        mask = cols < 8 * (p + 1)
        while tl.atomic_cas(Lock + p, 0, 1) == 1:
            pass
        tl.store(Buf + p * BLOCK + cols, tl.load(Buf + p * BLOCK + cols, mask=mask) + 1.0, mask=mask)
        tl.atomic_xchg(Lock + p, 0)

    buf = np.zeros(4 * 32, np.float32)
    c = locked_prefix[(4,)](np.zeros(4, np.int32), buf, BLOCK=32)
    assert c.launch["locks"] == {("Lock", p): (1, 2, 64 * (p + 1)) for p in range(4)}
    assert buf.reshape(4, 32).sum(1).tolist() == [8.0, 16.0, 24.0, 32.0]


def test_programs_of_one_step_move_the_bytes_of_a_tile_mask_of_their_own():
    # 3 programs, 3 locks, one vectorised step over a 4 × 16 fp32 tile: program p keeps rows r < p + 1 and
    # columns c < 10 (a bool mask, no prefix): (p + 1) × 10 lanes × 4 B, loaded and stored = 80·(p + 1) bytes
    @triton.jit
    def locked_tile(Lock, Buf):
        p = tl.program_id(0)
        r, c = tl.arange(0, 4), tl.arange(0, 16)
        offs = p * 64 + r[:, None] * 16 + c[None, :]
        mask = (r[:, None] < p + 1) & (c[None, :] < 10)
        while tl.atomic_cas(Lock + p, 0, 1) == 1:
            pass
        tl.store(Buf + offs, tl.load(Buf + offs, mask=mask) + 1.0, mask=mask)
        tl.atomic_xchg(Lock + p, 0)

    buf = np.zeros(3 * 64, np.float32)
    c = locked_tile[(3,)](np.zeros(3, np.int32), buf)
    assert c.launch["locks"] == {("Lock", p): (1, 2, 80 * (p + 1)) for p in range(3)}
    assert buf.reshape(3, 64).sum(1).tolist() == [10.0, 20.0, 30.0]


_VIEW_SHAPES = st.lists(st.integers(1, 5), min_size=1, max_size=2)
_VIEW_ROWS = st.sampled_from([1, 2, 5])
_KEEP_KINDS = st.sampled_from(["all", "prefix", "prefix one", "bool"])


@functools.cache
def _sized(kind: str, n: int, size: int):
    """The strategies _views draws whose bounds depend on what it drew before, each built once (a strategy built
    inside a draw is validated again at every draw; these are the same draws)."""
    if kind == "prefix":  # a prefix per program: `size` programs, each −2 … n + 2
        return st.lists(st.integers(-2, n + 2), min_size=size, max_size=size)
    if kind == "prefix one":
        return st.integers(-2, n + 2)
    return st.lists(st.booleans(), min_size=size, max_size=size)  # a bool block of `size` elements


@st.composite
def _views(draw):
    """A View of ``rows`` programs over a block of 1–2 axes: every lane kept, a prefix per program (from below 0
    to past the block), or a bool block broadcasting to the programs and the block."""
    from kernellab.triton.executor.view import Base, View
    shape = tuple(draw(_VIEW_SHAPES))
    rows = draw(_VIEW_ROWS)
    n = int(np.prod(shape))
    base = Base.of(np.arange(rows * n, dtype=np.int64).reshape((rows, *shape)))
    kind = draw(_KEEP_KINDS)
    if kind == "all":
        keep = None
    elif kind == "prefix":
        keep = np.array(draw(_sized("prefix", n, rows)), np.int64)
    elif kind == "prefix one":
        keep = np.array([draw(_sized("prefix one", n, 1))], np.int64)
    else:  # each axis of the bool block: its full length or 1 (broadcast)
        kshape = tuple(d if draw(st.booleans()) else 1 for d in (rows, *shape))
        keep = np.array(draw(_sized("bool", 0, int(np.prod(kshape)))), bool).reshape(kshape)
    return View(base, 0, keep), rows


@settings(max_examples=300, deadline=None)
@given(_views(), st.sampled_from([1, 2, 4]))
def test_active_bytes_from_the_view_equal_those_of_its_lanes(drawn, itemsize):
    # the kept lanes counted from keep (every lane, a prefix clipped to 0 … numel, a bool block's count × its
    # broadcast) equal the count of the built mask, for each of the step's programs
    view, rows = drawn
    programs = rows if rows > 1 else 3
    got = locks.active_bytes(view, itemsize, programs)
    want = locks.active_bytes_of_lanes(view, itemsize, programs)
    assert got.shape == want.shape == (programs,) and got.tolist() == want.tolist()


def test_sections_that_differ_are_summed():
    # one lock, 3 programs of 64 fp32. The first: Count loaded (4 B) and used (1), its row stored (256 B, +1):
    # 2 round trips, 260 B. Each later one: Count (4 B, 1), the buffer loaded (256 B) and used (1), stored
    # (256 B, +1): 3 round trips, 516 B. Sum: 2 + 3 + 3 = 8 round trips, 260 + 2 × 516 = 1292 B
    lock, count, buf = np.zeros(1, np.int32), np.zeros(1, np.int32), np.zeros(64, np.float32)
    x = np.arange(3 * 64, dtype=np.float32)
    c = first_or_add[(3,)](lock, count, buf, x, BLOCK=64)
    assert c.launch["locks"] == {("Lock", 0): (3, 8, 1292)}
    np.testing.assert_array_equal(buf, 2 * x.reshape(3, 64).sum(0))
    # the programs' rounds: 1 for the row, then the section's waits (1, 2, 2; a store is no wait): 8 ÷ 3
    assert c.launch["rounds"] == 8 / 3


def test_what_is_not_a_lock_is_not_recorded():
    @triton.jit
    def never_released(Lock, Out):
        tl.atomic_cas(Lock, 0, 1)  # swaps, but nothing releases it
        tl.store(Out, 1)

    @triton.jit
    def block_cas(Words, Out, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.atomic_cas(Words + offs, offs * 0, offs * 0 + 1)  # one compare-and-swap per lane: values, not a lock
        tl.atomic_xchg(Words + offs, offs * 0)
        tl.store(Out, 1)

    @triton.jit
    def other_word(Lock, Out):
        while tl.atomic_cas(Lock, 0, 1) == 1:
            pass
        tl.atomic_xchg(Lock + 1, 0)  # another address: the section stays open
        tl.store(Out, 1)

    @triton.jit
    def released_twice(Lock, Out):
        while tl.atomic_cas(Lock, 0, 1) == 1:
            pass
        tl.store(Out, 1)
        tl.atomic_xchg(Lock, 0)
        tl.atomic_xchg(Lock, 0)  # the program no longer holds it: no second section

    out = np.zeros(1, np.int32)
    # one section: a 4 B store, the release waiting for it (1 round trip)
    assert released_twice[(1,)](np.zeros(1, np.int32), out).launch["locks"] == {("Lock", 0): (1, 1, 4)}
    assert "locks" not in never_released[(1,)](np.zeros(1, np.int32), out).launch
    assert "locks" not in block_cas[(2,)](np.zeros(32, np.int32), out, BLOCK=32).launch
    assert "locks" not in other_word[(1,)](np.zeros(2, np.int32), out).launch


def test_a_sampled_launch_that_takes_a_lock_runs_in_full():
    # 64 programs on 4 locks (p % 4): 16 acquisitions each. A sample of 8 would see a few of them and could
    # not tell how many share a lock; the launch runs every program instead, so its counts are the full run's
    def counts(sampled):
        lock, buf = np.zeros(4, np.int32), np.zeros(4 * 32, np.float32)
        with sampling.sampled(programs=8, enabled=sampled):
            return locked_rows[(64,)](lock, buf, 32, G=4, BLOCK=32), buf

    (full, buf_full), (sample, buf_sample) = counts(False), counts(True)
    # each section: 32 lanes × 4 B loaded and stored = 256 B, 2 round trips; 16 sections a lock
    assert sample.launch["locks"] == full.launch["locks"] == {("Lock", g): (16, 32, 4096) for g in range(4)}
    assert sample == full and buf_sample.tolist() == buf_full.tolist() == [16.0] * 128


def test_the_chain_by_hand_on_the_a100_and_the_a6000():
    # the first test's launch: each lock (3 + 6) × L + 960 B ÷ 50 GB/s = 9 × 145.39 ns + 19.2 ns = 1327.7 ns
    lock, buf = np.zeros(2, np.int32), np.zeros(2 * 64, np.float32)
    c = locked_rows[(6,)](lock, buf, 40, G=2, BLOCK=64)
    assert quiet(c, A100)["t_lock"] == pytest.approx(9 * L_A100 + 960 / SM_L2_A100, rel=1e-12)
    # the A6000 has no measured L2 bandwidth: round trips alone, 9 × 250 cycles ÷ 1.8 GHz = 1250 ns
    assert quiet(c, "RTX A6000")["t_lock"] == pytest.approx(9 * 250 / 1.8e9, rel=1e-12)


def test_a_long_chain_sets_the_estimate():
    # 256 programs take one lock and store one float each: a section of 1 round trip and 4 B. The chain:
    # (256 + 256) × 145.39 ns + 1024 B ÷ 50 GB/s = 74.44 µs + 0.02 µs = 74.46 µs, far above the launch's
    # other terms (256 programs of one store each: well under a microsecond of DRAM and pipes)
    @triton.jit
    def one_lock(Lock, Out):
        while tl.atomic_cas(Lock, 0, 1) == 1:
            pass
        tl.store(Out + tl.program_id(0), 1.0)
        tl.atomic_xchg(Lock, 0)

    out = np.zeros(256, np.float32)
    c = one_lock[(256,)](np.zeros(1, np.int32), out)
    p = quiet(c, A100)
    assert c.launch["locks"] == {("Lock", 0): (256, 256, 1024)}
    assert p["t_lock"] == pytest.approx(512 * L_A100 + 1024 / SM_L2_A100, rel=1e-12)
    assert p["estimate_bound"] == "lock" and p["estimate_time"] == p["t_lock"]
    assert out.sum() == 256


def test_a_launch_without_locks_charges_none():
    @triton.jit
    def copy(X, Y, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(Y + offs, tl.load(X + offs))

    x = np.ones(256, np.float32)
    assert quiet(copy[(2,)](x, np.zeros_like(x), BLOCK=128), A100)["t_lock"] == 0.0


def test_the_longest_of_several_locks_chains_sets_the_term():
    # Two locks on the A100 (L2 round trip 205 cycles at 1.41 GHz; l2_bw 5.4 TB/s over 108 SMs = 50 GB/s an SM):
    # lock a, 2 acquisitions, 1 round trip, 0 bytes: (2 + 1) × 205 = 615 cycles;
    # lock b, 5 acquisitions, 1 round trip, 5,000 bytes: (5 + 1) × 205 = 1,230 cycles + 5,000 B ÷ 50 GB/s = 100 ns.
    # The chains run in parallel over locks, so the term is the longer one, b's, not the shorter (a's).
    from kernellab.model.locks import lock_chain
    from kernellab.specs import A100, PERF_A100

    trip = 205 / A100.clock_hz
    assert PERF_A100.l2_latency_cycles == 205 and PERF_A100.l2_bw / PERF_A100.sms == pytest.approx(50e9)
    chain = lock_chain({"a": (2, 1, 0), "b": (5, 1, 5000)}, PERF_A100, A100.clock_hz)
    assert chain == pytest.approx(6 * trip + 100e-9, rel=1e-12)
    assert chain > 3 * trip
