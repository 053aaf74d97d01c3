"""Occupancy and waves: Boehm's kernel 3 figures (facts.md §1.5) and seed 001's waves."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kernellab.errors import LaunchError
from kernellab.model import occupancy, waves
from kernellab.specs import A100, A6000, H100


def test_boehm_k3_on_a6000():
    # 1024 threads, 37 registers, 8192 B shared (facts.md §1.5)
    occ = occupancy(A6000, 1024, regs_per_thread=37, smem_per_block=8192)
    assert occ.by_threads == 1  # 1536 threads = 48 warps per SM // 32 warps per block
    # 37 × 32 = 1184 → rounded up to 1280 per warp; 65536 // 1280 = 51 warps // 32 = 1 block
    # (Boehm's notes: 1280 × 32 = 40960 per block, 65536 // 40960 = 1)
    assert occ.by_registers == 1
    assert occ.by_shared == 11  # 8192 + 1024 reserved = 9216 B; 102400 // 9216 = 11
    assert occ.by_blocks == 16
    assert occ.blocks_per_sm == 1
    assert occ.limiters == ("threads", "registers")
    assert occ.warps_per_sm == 32
    assert occ.occupancy == pytest.approx(32 / 48)


def test_cs336_register_example():
    # 128 threads × 160 registers = 20480 per block; 65536 // 20480 = 3 blocks = 12 warps; 12 / 64 = 0.1875
    occ = occupancy(A100, 128, regs_per_thread=160)
    assert (occ.blocks_per_sm, occ.limiters, occ.warps_per_sm) == (3, ("registers",), 12)
    assert occ.occupancy == 0.1875


def test_shared_memory_limits_boehm_k11():
    # k11 on the A6000: 256 threads, 49152 B; (49152 + 1024) = 50176; 102400 // 50176 = 2
    # threads: 48 // 8 = 6; so shared memory limits, to 2 blocks = 16 warps
    occ = occupancy(A6000, 256, smem_per_block=49152)
    assert (occ.blocks_per_sm, occ.limiters, occ.by_threads, occ.by_registers) == (2, ("shared",), 6, None)


def test_block_limit_and_partial_warps():
    # 32 threads = 1 warp: threads allow 64, shared (0 + 1024 B) 228 KiB // 1 KiB = 228; 32 resident blocks
    occ = occupancy(H100, 32)
    assert (occ.blocks_per_sm, occ.limiters, occ.by_shared) == (32, ("blocks",), 228)
    # 33 threads take 2 warps: 64 // 2 = 32 too — a tie of threads and blocks
    assert occupancy(H100, 33).limiters == ("threads", "blocks")
    # register rounding: 33 regs × 32 = 1056 → 1280 per warp, 65536 // 1280 = 51 warps // 2 = 25 blocks
    assert occupancy(H100, 64, regs_per_thread=33).by_registers == 25


def test_launches_the_hardware_refuses():
    with pytest.raises(LaunchError, match="1025 threads"):
        occupancy(A6000, 1025)
    with pytest.raises(LaunchError, match="shared memory"):
        occupancy(A6000, 128, smem_per_block=99 * 1024 + 1)
    with pytest.raises(LaunchError, match="registers"):
        occupancy(A6000, 128, regs_per_thread=256)
    # 1024 threads × 255 registers: 8160 → 8192 per warp, 65536 // 8192 = 8 warps < 32: no block fits
    with pytest.raises(LaunchError, match="fits"):
        occupancy(A6000, 1024, regs_per_thread=255)


def test_seed001_one_wave_runs_only_what_the_sms_hold():
    # 84 SMs × 1 block: 84 blocks fit in one wave; an 85th needs a second wave holding just it
    assert (waves(84, 1, 84).waves, waves(84, 1, 84).tail, waves(84, 1, 84).efficiency) == (1, 84, 1.0)
    w = waves(85, 1, 84)
    assert (w.waves, w.tail) == (2, 1)
    assert w.efficiency == pytest.approx(85 / 168)


def test_boehm_k3_grid_at_4096():
    # (128, 128) = 16384 blocks, 84 per wave: 16384 = 195 × 84 + 4 → 196 waves, tail 4
    w = waves((128, 128), occupancy(A6000, 1024, 37, 8192).blocks_per_sm, A6000.sms)
    assert (w.blocks, w.per_wave, w.waves, w.tail) == (16384, 84, 196, 4)
    assert w.efficiency == pytest.approx(16384 / (196 * 84))


def test_waves_reject_empty():
    with pytest.raises(ValueError):
        waves(0, 1, 84)


@given(st.integers(1, 10**6), st.integers(1, 32), st.integers(1, 200))
def test_waves_law(blocks, per_sm, sms):
    w = waves(blocks, per_sm, sms)
    assert (w.waves - 1) * w.per_wave + w.tail == blocks
    assert 1 <= w.tail <= w.per_wave
    assert 0 < w.efficiency <= 1
