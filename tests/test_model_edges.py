"""What a program pays outside its steady-state loop (kernellab.model.edges): the Triton engine's count of a
program's first-round and last-store bytes, and the term, derived by hand.

Rates used (kernellab.specs): H100 132 SMs, L2 loads 9.9 TB/s [RRZE gpu-l2-cache, H200], L2 stores 4.5 TB/s
[RRZE gpu-l2-stream, GH200]. An SM's share when all are busy:
9.9e12 ÷ 132 = 75 GB/s of loads, 4.5e12 ÷ 132 = 34.09 GB/s of stores.
"""

import warnings
from dataclasses import replace

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import H100, predict
from kernellab.errors import ModelWarning
from kernellab.model.edges import edges
from kernellab.model.persm import distribute
from kernellab.specs import PERF_H100
from kernellab.triton.executor.locks import active_bytes_of_lanes
from kernellab.triton.executor.policy import Policy, using
from kernellab.triton.executor.rounds import edge_bytes
from kernellab.triton.executor.view import Base, View

READ, WRITE = 9.9e12 / 132, 4.5e12 / 132  # B/s an SM


@triton.jit
def _k_loop(a, b, c, K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        x = tl.load(a + rm[:, None] * K + (k + rk)[None, :])
        y = tl.load(b + (k + rk)[:, None] * BN + rn[None, :])
        acc += tl.dot(x, y)
    tl.store(c + rm[:, None] * BN + rn[None, :], acc.to(tl.float16))


@triton.jit
def _passes(x, y, total, N: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    s = tl.zeros((BLOCK,), tl.float32)
    for i in range(0, N, BLOCK):
        v = tl.load(x + i + offs)
        tl.store(y + i + offs, v * 2, mask=offs < 48)  # stored inside the loop, 48 of the 64 lanes
        s += v
    tl.atomic_add(total + offs, s)


@triton.jit
def _uneven(x, y, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    s = tl.zeros((BLOCK,), tl.float32)
    for i in range(0, pid + 2):  # program p makes p + 2 trips: its programs diverge
        s += tl.load(x + i * BLOCK + offs)
    tl.store(y + pid * BLOCK + offs, s)


def _k_loop_counts(programs, trips=4):
    a = np.ones((16, 16 * trips), np.float16)
    b = np.ones((16 * trips, 16), np.float16)
    return _k_loop[(programs,)](a, b, np.zeros((16, 16), np.float16), K=16 * trips, BM=16, BN=16, BK=16)


@pytest.mark.parametrize("policy", [Policy(), Policy.reference()], ids=["batched", "one-by-one"])
def test_the_engine_counts_the_first_round_and_the_stores_after_the_last_wait(policy):
    with using(policy):
        # a K loop of 4 trips: the first wait is the first dot's, on a 16×16 A tile and a 16×16 B tile of halves,
        # 2 × 256 × 2 B = 1024 B (not the 4 × 1024 B of every trip); the C tile is stored after the last wait,
        # 16 × 16 × 2 B = 512 B
        info = _k_loop_counts(3).launch
        assert (info["rounds"], info["first_round_bytes"], info["last_store_bytes"]) == (4.0, 1024.0, 512.0)
        # four passes of 64 floats: the first round is one pass's load, 64 × 4 B = 256 B. After the last wait (the
        # fourth pass's load, used by v * 2) come that pass's store of 48 lanes, 48 × 4 B = 192 B, and the atomic
        # add of 64 floats, 256 B: 448 B, not the 4 × 192 + 256 = 1024 B of every store, nor 64 × 4 + 256 = 512 B
        # with the masked-off lanes; the same in each of the 3 programs (their atomic's lanes do not depend on the
        # program: a row shared by a batched step)
        x = np.ones(256, np.float32)
        info = _passes[(3,)](x, np.zeros(256, np.float32), np.zeros(64, np.float32), N=256, BLOCK=64).launch
        assert (info["rounds"], info["first_round_bytes"], info["last_store_bytes"]) == (4.0, 256.0, 448.0)
        # programs that diverge (2, 3 and 4 trips: run in groups that agree, their counts merged): each loads 64
        # floats before its first wait, 256 B, and stores 64 floats after its last, 256 B; rounds (2 + 3 + 4) ÷ 3
        info = _uneven[(3,)](np.ones(4 * 64, np.float32), np.zeros(3 * 64, np.float32), BLOCK=64).launch
        assert (info["rounds"], info["first_round_bytes"], info["last_store_bytes"]) == (3.0, 256.0, 256.0)


def test_edge_bytes_count_the_kept_lanes_as_the_reference_does():
    # edge_bytes' shortcut for a view that keeps every lane against locks.active_bytes_of_lanes (every offset and
    # mask built); rows of 8 lanes of 4 B: one row shared by 3 programs, 3 rows, and masks of each kind
    base, rows = Base.consecutive(0, (8,)), np.array([0, 8, 16])
    views = [View(base), View(base, rows), View(base, rows, np.array([8, 5, 0])),
             View(base, rows, np.arange(8)[None, :] < np.array([[3], [8], [0]])),  # a mask for each program
             View(base, rows, (np.arange(8) < 5)[None, :]),  # one mask the 3 programs share
             View(base, 0, (np.arange(8) < 5)[None, :])]  # one row and one mask the 3 programs share
    # 3 × 8 × 4; 3 × 8 × 4; (8 + 5 + 0) × 4; (3 + 8 + 0) × 4; 3 × 5 × 4; 3 × 5 × 4
    for view, expected in zip(views, (96, 96, 52, 44, 60, 60)):
        assert edge_bytes([(view, 4)], 3) == int(active_bytes_of_lanes(view, 4, 3).sum()) == expected
    # a 2 × 8 block whose mask is one row of 8 lanes, broadcast down its 2 rows: 2 × 5 lanes × 4 B in each of the
    # 3 programs, 120 B
    block = View(Base.consecutive(0, (2, 8)), rows, (np.arange(8) < 5)[None, None, :])
    assert edge_bytes([(block, 4)], 3) == int(active_bytes_of_lanes(block, 4, 3).sum()) == 120


def test_edges_of_the_first_wave_and_the_last_turn_only():
    info = {"first_round_bytes": 1024.0, "last_store_bytes": 512.0}
    # 5 programs an SM, 2 at a time (3 turns: 2, 2, 1): the first two's first rounds, 2 × 1024 B ÷ 75 GB/s =
    # 27.307 ns, and the last turn's one program's stores, 512 B ÷ 34.09 GB/s = 15.019 ns: 42.326 ns
    d = distribute(H100, 5 * 132, threads=128, regs=64, smem=100_000)
    assert (d.per_sm, d.resident) == (5, 2)
    assert edges(info, PERF_H100, d) == pytest.approx(2 * 1024 / READ + 512 / WRITE, rel=1e-12)
    assert edges(info, PERF_H100, d) * 1e9 == pytest.approx(42.326, abs=1e-3)
    # one at a time (200 KB each), 2 an SM: the first one's first round and the second one's last stores, 13.653
    # + 15.019 = 28.672 ns; the hand-over between them is not charged (kernellab.model.edges: charged at an SM's
    # share of a busy L2, it would add 15.019 + 13.653 ns of bytes and an L2 round trip, 141.414 ns, 198.758 ns in all)
    d = distribute(H100, 2 * 132, threads=128, regs=64, smem=200_000)
    assert (d.per_sm, d.resident) == (2, 1)
    assert edges(info, PERF_H100, d) == pytest.approx(1024 / READ + 512 / WRITE, rel=1e-12)
    assert edges(info, PERF_H100, d) * 1e9 == pytest.approx(28.672, abs=1e-3)
    # 4 programs on 4 SMs pay what one program on a busy GPU pays: an SM never draws more than its share of the
    # rate measured with every SM busy (13.653 + 15.019 ns), whatever the others do
    d = distribute(H100, 4, threads=128, regs=64, smem=100_000)
    assert edges(info, PERF_H100, d) * 1e9 == pytest.approx(28.672, abs=1e-3)
    # counts without the engine's record of both edges (made by hand, or by the SIMT engine) pay nothing, whichever
    # half is missing
    for partial in ({}, {"first_round_bytes": 1024.0}, {"last_store_bytes": 512.0}):
        assert edges(partial, PERF_H100, d) == 0.0


def _quiet(counts):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        return predict(counts, H100)


def test_the_estimate_adds_the_edges_of_a_loop_and_none_to_a_one_round_program():
    # the K loop on 264 programs: 2 an SM, both resident (4 KB of shared memory each), so no hand-over; its
    # edges are the first two programs' rounds and the last two's stores, 2 × (13.653 + 15.019) = 57.344 ns
    cnt = _k_loop_counts(264)
    p = _quiet(cnt)
    assert (p["per_sm"], p["resident"]) == (2, 2)
    assert p["t_edges"] * 1e9 == pytest.approx(57.344, abs=1e-3)
    # the counts without the record: the same launch 57.344 ns faster (its latency path binds either way)
    bare = _quiet(replace(cnt, launch={k: v for k, v in cnt.launch.items()
                                       if k not in ("first_round_bytes", "last_store_bytes")}))
    assert bare["t_edges"] == 0.0 and p["estimate_bound"] == bare["estimate_bound"] == "latency"
    assert p["estimate_time"] == pytest.approx(bare["estimate_time"] + p["t_edges"], rel=1e-12)
    # a program of one round has no loop to be outside of: its round is its work, priced by the latency path
    # and the L2 queue, so it pays no edges though it records them (here 256 B loaded, 448 B stored)
    one = _passes[(3,)](np.ones(64, np.float32), np.zeros(64, np.float32), np.zeros(64, np.float32), N=64, BLOCK=64)
    assert one.launch["rounds"] == 1.0 and one.launch["last_store_bytes"] == 448.0
    assert _quiet(one)["t_edges"] == 0.0
    # two rounds are a loop: the K loop of 2 trips (K 32, BK 16) pays its edges, as the 4-trip one does
    two = _k_loop_counts(264, trips=2)
    assert two.launch["rounds"] == 2.0 and _quiet(two)["t_edges"] > 0.0
