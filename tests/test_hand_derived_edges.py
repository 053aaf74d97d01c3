"""Behaviours a one-line bug could change unnoticed, each pinned by a pattern whose answer is derived by hand.

Sector and line counts of misaligned records, the 64-bit and 128-bit pairing rules of shared memory,
kernel 1's integer overhead at a K that its unrolled loop does not divide, and a second angle on areas
that had one test each (vector bounds, masked-off loads, reductions, atomics, DRAM sectors, occupancy,
the roofline, the wave model, write-after-write in one instruction).
"""

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import OutOfBoundsError, RaceError
from kernellab.access import (
    Access,
    affine_counts,
    bank_conflicts,
    lines,
    phase_lanes,
    prefix_counts,
    sectors,
    shared_ideal_wavefronts,
    shared_wavefronts,
)
from kernellab.counters import instr_mix
from kernellab.model import attainable_flops, occupancy, resource_events
from kernellab.model.l2waves import dram_bytes_tiled
from kernellab.sgemm import KERNELS
from kernellab.sgemm.kernels import run_kernel
from kernellab.simt import launch
from kernellab.specs import A6000, H100, PERF_A6000
from kernellab.triton import TritonCounts
from kernellab.triton.executor.counts import Touched

LANES = np.arange(32)


# --- 1. misaligned records: every lane's last byte counts --------------------------------------------
def test_lane_zero_moved_to_byte_one():
    # Lanes 1–31 at 4·l (bytes 4–127); lane 0 moved to byte 1 covers bytes 1–4. Lane 7 (bytes 28–31) is
    # aligned and ends exactly on the boundary of sector 0: it must not spill into sector 1 twice.
    # Bytes 1–127 lie in sectors 0–3 and line 0: 4 sectors, 1 line.
    addr = LANES * 4
    addr[0] = 1
    acc = Access.from_lanes(addr, width=4)
    assert (sectors(acc), lines(acc)) == (4, 1)


def test_last_lane_straddles_into_the_next_line():
    # Lane 31 moved from byte 124 to 125 covers bytes 125–128: byte 128 is sector 4 and line 1.
    # Sectors 0–4 = 5, lines 0–1 = 2. A counter that looked only at each lane's first byte says 4 and 1.
    addr = LANES * 4
    addr[31] = 125
    acc = Access.from_lanes(addr, width=4)
    assert (sectors(acc), lines(acc)) == (5, 2)


def test_misaligned_float2_ending_on_a_sector_boundary():
    # 8-byte lanes at 8·l + 24 for l < 1, then 8·l: lane 0 at byte 24 covers 24–31 (ends on the sector-0
    # boundary); lanes 1–31 cover 8–255. Bytes 8–255: sectors 0–7 (8), lines 0–1 (2). The record is not
    # ordered (24 > 8), so the general path counts it.
    addr = LANES * 8
    addr[0] = 24
    acc = Access.from_lanes(addr, width=8)
    assert (sectors(acc), lines(acc)) == (8, 2)


def _naive_counts(addresses, active, width):
    """Sectors and lines by listing every byte of every active lane, warp by warp."""
    s = ln = 0
    for a_row, m_row in zip(addresses.reshape(-1, 32), active.reshape(-1, 32)):
        touched = {b for a, m in zip(a_row.tolist(), m_row.tolist()) if m for b in range(a, a + width)}
        s += len({b // 32 for b in touched})
        ln += len({b // 128 for b in touched})
    return s, ln


def test_sectors_and_lines_equal_the_bytes_of_the_lanes():
    # Property: for any addresses (aligned or not), widths and masks, sectors and lines are the distinct
    # 32-byte and 128-byte chunks of the active lanes' byte ranges, per warp, summed.
    rng = np.random.default_rng(27)
    for trial in range(400):
        width = int(rng.choice([1, 2, 4, 8, 16]))
        warps = int(rng.integers(1, 4))
        kind = trial % 4
        if kind == 0:  # affine, any first byte and stride (misaligned included)
            first = rng.integers(0, 300, warps)[:, None]
            stride = rng.integers(-3, 40, warps)[:, None]
            addr = first + stride * LANES + 4096
        elif kind == 1:  # random within a few lines
            addr = rng.integers(0, 512, (warps, 32))
        elif kind == 2:  # consecutive with one lane moved by a byte
            addr = np.tile(LANES * width, (warps, 1)) + 128 * np.arange(warps)[:, None]
            addr[:, rng.integers(32)] += 1
        else:  # aligned to the width
            addr = rng.integers(0, 1024 // width, (warps, 32)) * width
        active = rng.random((warps, 32)) < rng.choice([1.0, 0.7, 0.2])
        acc = Access.from_lanes(addr.ravel(), active.ravel(), width=width)
        assert (sectors(acc), lines(acc)) == _naive_counts(addr, active, width), (width, kind, addr, active)


def test_affine_and_prefix_closed_forms_equal_the_bytes_of_the_lanes():
    # The same law for the two closed forms the engines use on their fast paths.
    rng = np.random.default_rng(5)
    for _ in range(300):
        width = int(rng.choice([1, 2, 4, 8, 16]))
        first = int(rng.integers(0, 200)) * width
        stride = int(rng.integers(0, 6)) * width
        k = int(rng.integers(1, 33))
        active = LANES < k
        addr = first + stride * LANES
        _, s, ln, _ = affine_counts(np.array([first]), np.array([stride]), active[None], width)
        assert (s, ln) == _naive_counts(addr, active, width)
        # prefix_counts: one row of k consecutive elements from byte `first` (k > 32 spans several warps)
        k2 = int(rng.integers(1, 100))
        lanes = np.arange(-(-k2 // 32) * 32)
        _, s2, ln2, _ = prefix_counts(np.array([first]), np.array([k2]), width)
        assert (s2, ln2) == _naive_counts(first + width * lanes, lanes < k2, width)


# --- 2./3. shared-memory pairing rules ----------------------------------------------------------------
def test_64bit_lanes_paired_as_n_xor_2_are_not_merged():
    # Lane l reads the 8-byte word at (l & ~2)·8: lanes n and n^2 share an address, n and n^1 do not.
    # The merge rule for 64-bit accesses looks at (n, n^1) only, so the warp is two half-warp phases.
    # Half 0: addresses (0,1,4,5,8,9,12,13)·8 → banks {0,1},{2,3},{8,9},{10,11},{16,17},{18,19},{24,25},
    # {26,27}: no bank twice → 1 wavefront. Half 1: (16,17,20,21,…)·8 = bytes 128+… → the same banks → 1.
    # Wavefronts 2, ideal 2, conflicts 0. (Merging by n^2 would give one phase: 2 wavefronts, ideal 1.)
    acc = Access.from_lanes((LANES & ~2) * 8, width=8)
    assert int(phase_lanes(acc)[0]) == 16
    assert (shared_wavefronts(acc), shared_ideal_wavefronts(acc), bank_conflicts(acc)) == (2, 2, 0)


def test_128bit_lanes_paired_as_n_xor_2_are_merged():
    # The same pairing for 16-byte lanes does merge: (l & ~2)·16. Two phases of 16 lanes instead of four of
    # 8. Phase 0 (lanes 0–15): distinct addresses (0,1,4,5,8,9,12,13)·16 = 8 × 16 B = 128 B over banks
    # 0–3, 4–7, 16–19, 20–23, 32→0–3?  Byte 64 is word 16 (banks 16–19), byte 128 is word 32 (banks 0–3):
    # addresses 0,16,64,80,128,144,192,208 → words 0,4,16,20,32,36,48,52 → bank groups 0,4,16,20,0,4,16,20:
    # each bank holds 2 distinct words → 2 wavefronts; phase 1 the same → 4 wavefronts, ideal 2.
    acc = Access.from_lanes((LANES & ~2) * 16, width=16)
    assert int(phase_lanes(acc)[0]) == 16
    assert (shared_wavefronts(acc), shared_ideal_wavefronts(acc)) == (4, 2)


def test_pair_rule_with_inactive_partners():
    # 64-bit access, stride 8 B, only even lanes active. Every active lane's partner (n^1, odd) is
    # inactive, so each pair counts as sharing and the warp is one phase of 32 lanes.
    # Active lanes 0, 2, …, 30 at bytes 0, 16, …, 240: words 0–1, 4–5, …, 60–61. Banks: words w and w+32
    # fall into the same bank, so banks 0,1,4,5,…,28,29 each hold 2 distinct words (w < 32 and w + 32):
    # 2 wavefronts; ideal 1 (one phase) → 1 conflict.
    # Were inactive partners not merged: two half-warp phases, each 8 lanes over 16 distinct banks,
    # 1 wavefront each → 2 wavefronts, ideal 2.
    acc = Access.from_lanes(LANES * 8, LANES % 2 == 0, width=8)
    assert int(phase_lanes(acc)[0]) == 32
    assert (shared_wavefronts(acc), shared_ideal_wavefronts(acc), bank_conflicts(acc)) == (2, 1, 1)


# --- 6. kernel 1's integer overhead at K = 6 -----------------------------------------------------------
def test_naive_kernel_charges_one_unrolled_pass_at_k6():
    # k1 at 32×32×6: one 32×32 block = 32 warps. nvcc unrolls the K loop by 4: K = 6 is one full pass
    # (k = 0–3) plus a remainder of 2 that the simulator charges no integer overhead (the module says so).
    # Per warp: 6 FFMA, 6 + 6 = 12 LDG, 20 INT and 1 BRA for the one pass; × 32 warps:
    # FFMA 192, INT 640, CTRL 32. Charging the pass at k % 4 == 0 instead would count 2 passes (1280).
    rng = np.random.default_rng(0)
    A = rng.standard_normal((32, 6)).astype(np.float32)
    B = rng.standard_normal((6, 32)).astype(np.float32)
    C, c = run_kernel(KERNELS[0], A, B)
    np.testing.assert_allclose(C, A.astype(np.float64) @ B, rtol=1e-5, atol=1e-5)
    mix = instr_mix(c)
    assert (mix["FFMA"], mix["INT"], mix["CTRL"]) == (192, 640, 32)
    # K = 4 and K = 8 bracket it: 1 and 2 passes
    for k, passes in ((4, 1), (8, 2), (3, 0)):
        _, ck = run_kernel(KERNELS[0], A[:, :1].repeat(k, 1), B[:1].repeat(k, 0))
        assert instr_mix(ck).get("INT", 0) == 32 * 20 * passes, k


# --- thin margins: a second angle ---------------------------------------------------------------------
def test_float4_straddling_the_end_is_out_of_bounds():
    # 10 floats; thread t loads a float4 at 4·t. Thread 2 reads floats 8–11: 8 and 9 exist, 10 and 11 do
    # not, so it is out of bounds although its first index (8) is inside.
    def k(blk, x, out):
        with blk.where(blk.tx < 3):
            v = blk.load(x, blk.tx * 4, vec=4)
            blk.store(out, blk.tx, v.sum(axis=-1))

    x, out = np.arange(10, dtype=np.float32), np.zeros(3, np.float32)
    with pytest.raises(OutOfBoundsError, match=r"thread \(2,0,0\).*float4.*x\[8\]"):
        launch(k, 1, 32, args=(x, out))
    # 12 floats: thread 2 reads 8–11, all inside → sums 0+1+2+3, 4+…+7, 8+…+11
    x = np.arange(12, dtype=np.float32)
    launch(k, 1, 32, args=(x, out))
    assert out.tolist() == [6.0, 22.0, 38.0]


def test_float2_at_the_last_element_is_out_of_bounds():
    # 9 floats, float2 at 2·t for t < 5: thread 4 reads floats 8–9; float 9 is past the end.
    def k(blk, x):
        with blk.where(blk.tx < 5):
            blk.load(x, blk.tx * 2, vec=2)

    with pytest.raises(OutOfBoundsError, match=r"thread \(4,0,0\)"):
        launch(k, 1, 32, args=(np.zeros(9, np.float32),))


def test_masked_off_lanes_of_blk_load_read_zero():
    # Lanes ≥ 5 are masked off and index far outside the array: no error, and their value is 0
    # (the result of a predicated-off load that the kernel then stores unmasked into out).
    def k(blk, x, out):
        v = blk.load(x, blk.tx * 1000, mask=blk.tx < 5)
        blk.store(out, blk.tx, v)

    x = np.arange(1, 5001, dtype=np.float32)  # x[1000·t] = 1000·t + 1
    out = np.full(32, -1.0, np.float32)
    c = launch(k, 1, 32, args=(x, out))
    assert out.tolist() == [1.0, 1001.0, 2001.0, 3001.0, 4001.0] + [0.0] * 27
    # 5 active lanes on 5 different lines: 1 request, 5 sectors
    assert (c.load_requests, c.load_sectors) == (1, 5)


@triton.jit
def _row_sums_col_max(x_ptr, rs_ptr, cm_ptr):
    v = tl.load(x_ptr + tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :])
    tl.store(rs_ptr + tl.arange(0, 4), tl.sum(v, axis=-1))
    tl.store(cm_ptr + tl.arange(0, 8), tl.max(v, axis=-2))


def test_negative_reduction_axes_match_numpy():
    # tl.sum over axis=-1 and tl.max over axis=-2 of a 4×8 block equal numpy's over axes 1 and 0.
    x = np.random.default_rng(3).standard_normal(32).astype(np.float32)
    rs, cm = np.zeros(4, np.float32), np.zeros(8, np.float32)
    c = _row_sums_col_max[(1,)](x, rs, cm)
    np.testing.assert_allclose(rs, x.reshape(4, 8).astype(np.float64).sum(axis=1), rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(cm, x.reshape(4, 8).max(axis=0))
    # FLOPs: the sums of 4 rows of 8 are 4 × 7 = 28 adds; a max is not a FLOP
    assert c.flops == 28


@triton.jit
def _sum_1d(x_ptr, out_ptr, n):
    offs = tl.arange(0, 1024)
    tl.store(out_ptr, tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0), axis=0))


@triton.jit
def _sum_columns(x_ptr, out_ptr):
    v = tl.load(x_ptr + tl.arange(0, 16)[:, None] * 8 + tl.arange(0, 8)[None, :])
    tl.store(out_ptr + tl.arange(0, 8), tl.sum(v, axis=0))


def test_sum_counts_n_minus_one_flops_per_result():
    # A 1-D block of 1024 (1000 loaded, 24 masked-off lanes filled with 0.0): one sum of 1024 = 1023 adds.
    out = np.zeros(1, np.float32)
    c = _sum_1d[(1,)](np.ones(1000, np.float32), out, 1000)
    assert out[0] == 1000.0 and c.flops == 1023
    # 16×8 over axis 0, 3 programs: 3 × 8 sums of 16 = 3 × 8 × 15 = 360
    out8 = np.zeros(8, np.float32)
    c2 = _sum_columns[(3,)](np.arange(128, dtype=np.float32), out8)
    assert c2.flops == 360
    np.testing.assert_array_equal(out8, np.arange(128, dtype=np.float64).reshape(16, 8).sum(axis=0))


@triton.jit
def _collide(cnt_ptr, old_ptr, ADD_LANE: tl.constexpr):
    lanes = tl.arange(0, 8)
    inc = lanes + 1 if ADD_LANE else lanes * 0 + 1
    tl.store(old_ptr + tl.program_id(0) * 8 + lanes, tl.atomic_add(cnt_ptr + lanes * 0, inc))


def test_colliding_integer_atomics_return_the_running_sums():
    # One program, 8 lanes all adding lane + 1 to cnt[0]: lanes take effect in lane order, so lane l gets
    # the old value 1 + 2 + … + l = l(l+1)/2, and the final value is 1 + … + 8 = 36.
    cnt, old = np.zeros(1, np.int32), np.full(8, -1, np.int32)
    _collide[(1,)](cnt, old, ADD_LANE=True)
    assert cnt[0] == 36
    assert old.tolist() == [lane * (lane + 1) // 2 for lane in range(8)]
    # Two programs of 8 lanes adding 1: program 1's lanes follow program 0's, so the old values are
    # 0 … 15 in launch order and the final count 16.
    cnt[:] = 0
    old2 = np.full(16, -1, np.int32)
    _collide[(2,)](cnt, old2, ADD_LANE=False)
    assert cnt[0] == 16 and old2.tolist() == list(range(16))


def test_dram_sectors_of_a_consecutive_run_end_on_the_last_byte():
    # 8 floats from element 8: bytes 32–63, exactly sector 1. An end computed as (end·4) // 32 + 1
    # instead of (end·4 − 1) // 32 + 1 would add sector 2.
    x = np.zeros(64, np.float32)
    t = Touched()
    t.mark_run("x", x, 8, 8)
    assert t.sectors() == {"x": 1}
    # 9 floats from element 8: bytes 32–67 → sectors 1 and 2
    t2 = Touched()
    t2.mark_run("x", x, 8, 9)
    assert t2.sectors() == {"x": 2}
    # fp16: 16 halves from element 16 are bytes 32–63 → 1 sector; from 15, bytes 30–61 → 2
    h = np.zeros(64, np.float16)
    for start, want in ((16, 1), (15, 2)):
        th = Touched()
        th.mark_rows("h", h, [start], [16])
        assert th.sectors() == {"h": want}


def test_register_allocation_rounds_per_warp_to_256():
    # A6000: 65536 registers per SM, allocated per warp in units of 256. 1 block of 256 threads (8 warps):
    # 64 regs/thread → 64 × 32 = 2048 per warp (already a multiple) → 65536 // 2048 = 32 warps → 4 blocks.
    # 65 regs/thread → 2080, rounded up to 2304 → 65536 // 2304 = 28 warps → 3 blocks (28 // 8).
    # Without the rounding it would be 65536 // 2080 = 31 warps → still 3; 57 regs show it:
    # 57 × 32 = 1824 → 2048 → 32 warps → 4 blocks; unrounded 65536 // 1824 = 35 → 4 as well, so use 1 warp:
    # 1 thread per block (1 warp): 57 regs → 32 warps → 32 blocks, capped by the 16-block limit.
    assert occupancy(A6000, 256, regs_per_thread=64).by_registers == 4
    assert occupancy(A6000, 256, regs_per_thread=65).by_registers == 3
    # 32 threads (1 warp), 72 regs: 72 × 32 = 2304 (a multiple of 256) → 28 warps; 73 regs: 2336 → 2560 →
    # 65536 // 2560 = 25 warps. Unrounded, 65536 // 2336 = 28: the rounding costs 3 blocks.
    assert occupancy(A6000, 32, regs_per_thread=72).by_registers == 28
    assert occupancy(A6000, 32, regs_per_thread=73).by_registers == 25


def test_attainable_flops_with_the_tensor_core_peak():
    # A6000: 768 GB/s; the FP16 Tensor Core peak is 154.8 TFLOP/s, so its ridge is 154.8e12 / 768e9 ≈ 201.6.
    # At 100 FLOP/B the FP32 peak (38.7 TFLOP/s) binds, the tensor peak does not: 100 × 768e9 = 76.8e12.
    peak16 = PERF_A6000.peak_flops("fp16_tensor")
    assert attainable_flops(100, PERF_A6000, peak="fp16_tensor") == pytest.approx(100 * PERF_A6000.dram_bw)
    assert attainable_flops(100, PERF_A6000) == PERF_A6000.peak_flops()
    assert attainable_flops(1000, PERF_A6000, peak="fp16_tensor") == peak16
    assert peak16 / PERF_A6000.dram_bw == pytest.approx(201.6, abs=0.1)


def test_dram_bytes_of_a_rectangular_problem_scale_a_with_m():
    # M = 256, N = 128, K = 64, 64×64 tiles, fp32, one wave holding every tile (8 programs ≤ 108 × 1):
    # A is read once: M × K × 4 = 65536 B; B once: K × N × 4 = 32768 B; C written: M × N × 4 = 131072 B.
    got = dram_bytes_tiled(0, 64, 64, 1, 108, elem=4, M=256, N=128, K=64)
    assert got == 256 * 64 * 4 + 64 * 128 * 4 + 256 * 128 * 4
    # Waves of 1 program (1 SM): each of the 4 × 2 tiles reads its A block-row and B block-col again:
    # 8 × (64 + 64) × 64 × 4 B of reads, plus C.
    one = dram_bytes_tiled(0, 64, 64, 1, 1, elem=4, M=256, N=128, K=64)
    assert one == 8 * (64 + 64) * 64 * 4 + 256 * 128 * 4
    # A partial last tile (M = 200: tiles of 64, 64, 64, 8 rows) reads only its rows: A is 200 × 64 × 4.
    part = dram_bytes_tiled(0, 64, 64, 1, 108, elem=4, M=200, N=128, K=64)
    assert part == 200 * 64 * 4 + 64 * 128 * 4 + 200 * 128 * 4


def test_write_after_write_within_one_instruction():
    # Threads 2t and 2t+1 store different values to s[t] in the same instruction: thread 1 writes what
    # thread 0 wrote (a write-after-write hazard, as racecheck reports it).
    def k(blk):
        s = blk.shared(16, np.float32, name="s")
        blk.store(s, blk.tx // 2, blk.tx.astype(np.float32))

    # In one instruction the last lane's value is the one stored (thread 1 wins s[0]); the hazard is reported
    # at the first lane whose write was lost, thread 0, against the winner.
    with pytest.raises(RaceError, match=r"thread \(0,0,0\): write-after-write hazard on shared s\[0\] \(byte 0\)"
                                        r": thread \(0,0,0\) writes what thread \(1,0,0\) wrote"):
        launch(k, 1, 32)

    # distinct addresses in one instruction are no hazard
    def ok(blk, out):
        s = blk.shared(32, np.float32, name="s")
        blk.store(s, 31 - blk.tx, blk.tx.astype(np.float32))
        blk.syncthreads()
        blk.store(out, blk.tx, blk.load(s, blk.tx))

    out = np.zeros(32, np.float32)
    launch(ok, 1, 32, args=(out,))
    assert out.tolist() == [31.0 - t for t in range(32)]


def test_h100_register_file_matches_the_a6000s():
    # Both have 65536 registers per SM and 256-register units: the same kernel (128 threads, 128 regs)
    # gets 65536 // (128 × 32) = 16 warps → 4 blocks on each (the block limits are higher).
    assert occupancy(H100, 128, regs_per_thread=128).by_registers == 4
    assert occupancy(A6000, 128, regs_per_thread=128).by_registers == 4


# --- laws against a naive shared-memory reference ----------------------------------------------------
def _naive_shared(addresses, active, width):
    """Wavefronts and ideal wavefronts by the documented rule, lane by lane in plain Python."""
    wave = ideal = 0
    for a_row, m_row in zip(addresses.reshape(-1, 32).tolist(), active.reshape(-1, 32).tolist()):
        share = {x: all(a_row[n] == a_row[n ^ x] or not m_row[n] or not m_row[n ^ x] for n in range(32))
                 for x in (1, 2)}
        lanes = 32 if width <= 4 else 128 // width
        if width == 8 and share[1] or width == 16 and (share[1] or share[2]):
            lanes *= 2
        for p in range(0, 32, lanes):
            banks: dict[int, set] = {}
            for n in range(p, p + lanes):
                if m_row[n]:
                    for w in range(a_row[n] // 4, a_row[n] // 4 + max(1, width // 4)):
                        banks.setdefault(w % 32, set()).add(w)
            if banks:
                wave += max(len(v) for v in banks.values())
                ideal += 1
    return wave, ideal


def test_shared_wavefronts_equal_a_naive_reference():
    # Property: for aligned random and structured accesses of every width, the counters equal the rule
    # applied lane by lane, and wavefronts ≥ ideal wavefronts ≥ phases with an active lane ≥ 0.
    rng = np.random.default_rng(8)
    for trial in range(300):
        width = int(rng.choice([1, 2, 4, 8, 16]))
        kind = trial % 3
        if kind == 0:
            addr = rng.integers(0, 256, 32) * width
        elif kind == 1:  # strides, with pairs sharing an address half the time
            lane = LANES // 2 * 2 if rng.random() < 0.5 else (LANES & ~2 if rng.random() < 0.5 else LANES)
            addr = lane * width * int(rng.integers(1, 9))
        else:
            addr = np.repeat(rng.integers(0, 64, 4), 8) * width
        active = rng.random(32) < rng.choice([1.0, 0.5, 0.1])
        acc = Access.from_lanes(addr, active, width=width)
        w, i = _naive_shared(addr, active, width)
        assert (shared_wavefronts(acc), shared_ideal_wavefronts(acc)) == (w, i), (width, addr, active)
        assert w >= i


def test_a_record_built_directly_is_not_assumed_aligned():
    # Access(...) without from_lanes: known_aligned defaults to False, so a misaligned lane is seen.
    # Lanes at 4·l + 2: each float spans bytes 4l+2 … 4l+5, so the 32 lanes cover bytes 2–129:
    # sectors 0–4 (5) and lines 0–1 (2). Were the record taken as aligned, only first bytes would count:
    # bytes 2–126 → 4 sectors, 1 line.
    addr = (LANES * 4 + 2).reshape(1, 32)
    acc = Access(addr, np.ones((1, 32), bool), 4)
    assert not acc.aligned
    assert (sectors(acc), lines(acc)) == (5, 2)


@triton.jit
def _reversed_copy(x_ptr, y_ptr, N, BLOCK: tl.constexpr, FORM: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if FORM == "N - 1 - offs":
        x = tl.load(x_ptr + (N - 1 - offs))
    elif FORM == "BLOCK - 1 - offs":  # a constexpr left operand, one program
        x = tl.load(x_ptr + (BLOCK - 1 - offs))
    else:  # "N - offs": the first lane's element N, a multiple of 16 elements (64 B): aligned
        x = tl.load(x_ptr + (N - offs))
    tl.store(y_ptr + offs, x)


@pytest.mark.parametrize("form", ["N - 1 - offs", "BLOCK - 1 - offs", "N - offs"])
def test_offsets_reversed_by_a_subtraction_are_not_contiguous(form):
    # Triton's rule for c − offs: contiguity gcd(c's contiguity, offs's constancy) = gcd(1, 1) = 1 (descending
    # offsets are no run), where c + offs has offs's 512. So even "N - offs", whose divisibility (N is
    # specialised to a multiple of 16: 64 B) would allow 16-byte vectors, loads one element at a time. The
    # store's y_ptr + offs asks 4 elements a thread (16 B), and Triton's coalescing gives the load of the same
    # shape that layout too, at vector width 1: 512 elements / 128 threads = 4 scalar loads a thread, 4 × 4
    # warps = 16 warp instructions a program. Load j of warp w: lane l reads offset 4·(32w + l) + j, lanes
    # 16 B apart over 512 B: 16 sectors and 4 lines, when the run is placed inside 16 sectors. N − 1 − offs:
    # byte 4·(N − 1 − 128w − j) − 16l, the top lane's the last 4 bytes of a sector and line (N − 128w is a
    # multiple of 32 elements): 16 and 4. N − offs: byte 4·(N − 128w − j) − 16l; for j = 0 the top lane is the
    # first 4 bytes of a sector and line, apart from the other 31 lanes' 16 sectors and 4 lines: 17 and 5, a
    # warp 17 + 3·16 = 65 sectors and 5 + 3·4 = 17 lines. The store: one 16-byte vector a thread, 1 instruction
    # a warp, 4 a program, each 32 × 16 B = 512 B: 16 sectors.
    programs = 1 if form.startswith("BLOCK") else 2
    n = 512 * programs
    x = np.arange(n + 1, dtype=np.float32)
    y = np.zeros(n, np.float32)
    c = _reversed_copy[(programs,)](x, y, n, BLOCK=512, FORM=form)
    assert np.array_equal(y, x[n:0:-1] if form == "N - offs" else x[n - 1::-1])
    sectors, lines = (65, 17) if form == "N - offs" else (4 * 16, 4 * 4)  # a warp's four loads
    assert (c.load_instructions, c.load_requests) == (16 * programs, 16 * programs)
    assert (c.load_sectors, c.load_lines) == (4 * sectors * programs, 4 * lines * programs)
    assert (c.store_instructions, c.store_requests, c.store_sectors) == (4 * programs, 4 * programs, 4 * 16 * programs)


@pytest.mark.parametrize(("flops", "fp32_instructions"), [(1, 1), (31, 1), (32, 1), (33, 2), (64, 2), (65, 3)])
def test_issue_pipe_charges_whole_warp_instructions_for_the_flops(flops, fp32_instructions):
    # FP32 operations issue 32 lanes a warp instruction: n FLOPs are ⌈n / 32⌉ instructions (33 = 32 + 1 → 2,
    # the last one with one lane busy), plus one instruction a memory request (3 loads, 1 store here)
    events = resource_events(TritonCounts(flops=flops, load_requests=3, store_requests=1))
    assert events["FMA"] == flops
    assert events["issue"] == fp32_instructions + 3 + 1
