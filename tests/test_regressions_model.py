"""Counters, the model and reporting: behaviours no test exercised before issue 15, answers derived by hand.

``Counts.__add__``, the wave model with more than one block per SM, misaligned full-warp access
records, and a table whose header is wider than its cells or a title wider than the rule.
"""

import dataclasses

import numpy as np
import pytest

from kernellab import (
    A6000,
    Access,
    Counts,
    LaunchError,
    Table,
    compare_kernels,
    dram_bytes_tiled,
    occupancy,
    print_header,
    wave_footprints,
    waves,
)
from kernellab.access import bytes_requested, lines, requests, sectors, shared_wavefronts
from kernellab.sgemm import KERNELS, KernelSpec

# --- Counts.__add__ -------------------------------------------------------------------------------

INT_FIELDS = [f.name for f in dataclasses.fields(Counts) if f.type in ("int", int)]


def test_counts_add_every_integer_field():
    # field i holds i + 1 on the left and 100 · (i + 1) on the right: the sum must be 101 · (i + 1) in
    # every field, so a field left out, doubled or taken from one side only shows
    a = Counts(**{n: i + 1 for i, n in enumerate(INT_FIELDS)})
    b = Counts(**{n: 100 * (i + 1) for i, n in enumerate(INT_FIELDS)})
    total = a + b
    assert {n: getattr(total, n) for n in INT_FIELDS} == {n: 101 * (i + 1) for i, n in enumerate(INT_FIELDS)}
    assert len(INT_FIELDS) >= 18  # every counter of the dataclass is an int field


def test_counts_add_merges_dicts_by_key_and_keeps_the_shape():
    a = Counts(fma=4, dram_sectors={"A": 2, "C": 1}, instr_by_kind={"fma": 1}, shape=(64, 64, 64))
    b = Counts(fma=6, dram_sectors={"A": 3, "B": 5}, instr_by_kind={"ld.global": 2})
    total = a + b
    assert total.dram_sectors == {"A": 5, "B": 5, "C": 1}  # A: 2 + 3; B and C from one side each
    assert total.instr_by_kind == {"fma": 1, "ld.global": 2}
    assert total.dram_bytes == 11 * 32  # 11 sectors × 32 B
    assert total.shape == (64, 64, 64) and (b + a).shape == (64, 64, 64)  # the known shape wins
    assert a.dram_sectors == {"A": 2, "C": 1}  # the operands are left as they were


def test_counts_add_derived_fields():
    a = Counts(warp_instr=2, thread_instr=64, shld_wavefronts=8, shld_ideal=2, shst_wavefronts=3, shst_ideal=3)
    b = Counts(warp_instr=2, thread_instr=0, shld_wavefronts=1, shld_ideal=1, shst_wavefronts=5, shst_ideal=1)
    total = a + b
    # efficiency: 64 active lanes of 4 × 32 = 0.5; conflicts: (8 + 1) − (2 + 1) = 6 and (3 + 5) − (3 + 1) = 4
    assert (total.simt_efficiency(), total.shld_conflicts, total.shst_conflicts) == (0.5, 6, 4)


# --- the wave model with more than one block per SM -----------------------------------------------

def test_waves_with_several_blocks_per_sm():
    # 30 blocks, 3 per SM on 4 SMs: 12 per wave → ⌈30/12⌉ = 3 waves, the last with 30 − 24 = 6,
    # efficiency 30 / 36 = 5/6
    w = waves(30, 3, 4)
    assert (w.per_wave, w.waves, w.tail) == (12, 3, 6) and w.efficiency == pytest.approx(5 / 6, abs=1e-15)
    # a full last wave: 24 blocks = 2 × 12, tail 12, efficiency 1
    w = waves((4, 6), 3, 4)
    assert (w.blocks, w.waves, w.tail, w.efficiency) == (24, 2, 12, 1.0)


def test_occupancy_with_several_blocks_per_sm():
    # A6000, 256 threads = 8 warps, 64 registers, 16 KB shared: threads 48 // 8 = 6; registers 64 × 32 = 2048
    # per warp, 65536 // 2048 = 32 warps // 8 = 4; shared 102400 // (16384 + 1024) = 5; blocks 16 → 4 by registers
    occ = occupancy(A6000, 256, regs_per_thread=64, smem_per_block=16384)
    assert (occ.by_threads, occ.by_registers, occ.by_shared, occ.blocks_per_sm) == (6, 4, 5, 4)
    assert occ.limiters == ("registers",) and occ.warps_per_sm == 32 and occ.occupancy == 32 / 48


def test_l2_wave_model_with_two_blocks_per_sm():
    # 4×4 output tiles of 1×1 (M = N = K = 4, elem 2 B), 2 SMs × 2 blocks = waves of 4 programs.
    # row-major: each wave is one block-row and 4 block-cols: (1 + 4) per wave × 4 waves = 20 blocks;
    # reads 20 × K 4 × 2 B = 160 B, plus C 16 × 2 B = 32 B → 192
    assert dram_bytes_tiled(4, 1, 1, 2, 2) == 192
    # 1 block per SM: waves of 2, each 1 row + 2 cols = 3, × 8 waves = 24 → 24 × 8 + 32 = 224
    assert dram_bytes_tiled(4, 1, 1, 1, 2) == 224
    # grouped by 2 rows, waves of 4: (0,0) (1,0) (0,1) (1,1) → 2 rows + 2 cols = 4, × 4 waves = 16 → 128 + 32 = 160
    assert dram_bytes_tiled(4, 1, 1, 2, 2, group=2) == 160
    # the order of the factors does not matter, only their product: 2 SMs × 2 = 4 SMs × 1
    assert dram_bytes_tiled(4, 1, 1, 1, 4) == 192


# --- misaligned full-warp access records ---------------------------------------------------------

def test_misaligned_full_warp_8_byte_access():
    # lane l reads 8 B at byte 4 + 8l: bytes 4 … 259. Sectors 0 (bytes 0–31) … 8 (256–287) → 9 sectors;
    # lines 0, 1, 2 → 3; one request of 32 × 8 = 256 B. Lane 3 (bytes 28–35) straddles sectors 0 and 1.
    acc = Access.from_lanes(4 + 8 * np.arange(32), width=8)
    assert not acc.aligned
    assert (requests(acc), sectors(acc), lines(acc), bytes_requested(acc)) == (1, 9, 3, 256)


def test_misaligned_full_warp_4_byte_access_spanning_two_warps():
    # two warps, lanes at byte 2 + 4t (t = 0 … 63): warp 0 covers bytes 2–129 → sectors 0–4 (5), lines 0–1 (2);
    # warp 1 covers 130–257 → sectors 4–8 (5), lines 1–2 (2). Per-request counts add: 10 sectors, 4 lines
    acc = Access.from_lanes(2 + 4 * np.arange(64), width=4)
    assert (requests(acc), sectors(acc), lines(acc)) == (2, 10, 4)


def test_misaligned_partial_warp_access():
    # only even lanes, 4 B at byte 30 + 8k (k = 0 … 15): 30–33 straddles sectors 0, 1; the last, 150–153,
    # sector 4. Bytes 30 … 153 → sectors 0–4 = 5, lines 0–1 = 2
    addr = 30 + 4 * np.arange(32)
    acc = Access.from_lanes(addr, active=np.arange(32) % 2 == 0, width=4)
    assert (requests(acc), sectors(acc), lines(acc), bytes_requested(acc)) == (1, 5, 2, 64)


def test_shared_wavefronts_of_a_32_bit_column_and_row():
    # a row of 32 floats: banks 0 … 31 once each → 1 wavefront; a column of a 32×33 padded tile:
    # word 33l → bank (33l) mod 32 = l → 1 wavefront; unpadded 32l → bank 0 for all 32 → 32 wavefronts
    assert shared_wavefronts(Access.from_lanes(4 * np.arange(32), width=4)) == 1
    assert shared_wavefronts(Access.from_lanes(4 * 33 * np.arange(32), width=4)) == 1
    assert shared_wavefronts(Access.from_lanes(4 * 32 * np.arange(32), width=4)) == 32


# --- tables and titles ----------------------------------------------------------------------------

def test_table_header_wider_than_its_cells():
    t = Table(["Kernel", "Sectors per request"], [["naive", 32], ["coalesced", 4]])
    lines_ = t.to_text().splitlines()
    # column widths: max(6, 5, 9) = 9 and max(19, 2, 1) = 19; two spaces between columns
    assert lines_[1] == "-" * 9 + "  " + "-" * 19
    assert lines_[2] == "naive" + " " * 4 + "  " + " " * 17 + "32"  # numbers right-aligned under the header
    assert lines_[3] == "coalesced  " + " " * 18 + "4"
    assert lines_[0] == "Kernel     Sectors per request"


def test_table_chinese_header_wider_than_its_cells():
    # "每个请求的 sector 数" is 5 CJK characters (10 columns) + " sector " (8) + "数" (2) = 20 columns
    t = Table(["内核", "每个请求的 sector 数"], [["朴素", 32]])
    head, rule, row = t.to_text().splitlines()
    assert rule == "-" * 4 + "  " + "-" * 20
    assert row == "朴素  " + " " * 18 + "32"


def test_print_header_rule_grows_with_a_wide_title(capsys):
    print_header("Demo 1")  # narrower than 20: the rule stays 20
    # 演示 (4) + space (1) + 1 (1) + ： (2) + 目标 (4) + —— (2: the em dash is one column) + 4096³ (5)
    # + space (1) + 的 (2) + 矩阵乘法 (8) = 30 columns
    print_header("演示 1：目标——4096³ 的矩阵乘法")
    out = capsys.readouterr().out.split("\n")
    assert out[1] == "=" * 20 and out[3] == "=" * 20
    assert out[5] == "=" * 30 and out[7] == "=" * 30


def test_an_empty_counts_is_zero_and_the_identity_of_add():
    empty = Counts()
    assert all(getattr(empty, n) == 0 for n in INT_FIELDS)
    assert (empty.dram_sectors, empty.instr_by_kind, empty.shape, empty.dram_bytes) == ({}, {}, (), 0)
    c = Counts(**{n: 3 * i + 1 for i, n in enumerate(INT_FIELDS)}, dram_sectors={"A": 2}, shape=(8,))
    assert empty + c == c and c + empty == c


# --- the model beside the measurement: its correctness check ---------------------------------------

def _off_at_c00(delta):
    """Boehm's naive kernel, then C[0, 0] += delta: a kernel wrong by exactly ``delta`` (± its own rounding)."""
    def kernel(blk, A, B, C, M, N, K):
        KERNELS[0].kernel(blk, A, B, C, M, N, K)
        with blk.where((blk.bx == 0) & (blk.by == 0) & (blk.tx == 0) & (blk.ty == 0)):
            blk.store(C, 0, blk.load(C, 0) + np.float32(delta))
    return kernel


@pytest.mark.parametrize("factor,accepted", [(0.5, True), (1.1, False)])
def test_compare_accepts_errors_within_4_ulp_per_k_step(factor, accepted):
    # compare_kernels allows K × 4 ulp of the largest product: tol = 4 · n_sim · eps(fp32) · max|A| · max|B|,
    # with A and B drawn from the default seed 0, as compare_kernels draws them
    n_sim = 32
    rng = np.random.default_rng(0)
    A = rng.standard_normal((n_sim, n_sim)).astype(np.float32)
    B = rng.standard_normal((n_sim, n_sim)).astype(np.float32)
    tol = 4 * n_sim * float(np.finfo(np.float32).eps) * float(np.abs(A).max()) * float(np.abs(B).max())
    k1 = KERNELS[0]
    spec = KernelSpec("sgemm_slightly_off", 0, "0: off", None, _off_at_c00(factor * tol), k1.block, k1.grid_fn, 0)
    if accepted:
        row, = compare_kernels(n_sim=n_sim, kernels=[spec])
        assert row["max_error"] == pytest.approx(factor * tol, rel=0.05)
    else:
        with pytest.raises(RuntimeError, match="sgemm_slightly_off computed a wrong C at 32³"):
            compare_kernels(n_sim=n_sim, kernels=[spec])


def test_compare_draws_its_matrices_from_seed_0_by_default():
    from kernellab import compare_kernels
    default, = compare_kernels(n_sim=32, kernels=KERNELS[:1])
    seed0, = compare_kernels(n_sim=32, kernels=KERNELS[:1], seed=0)
    seed1, = compare_kernels(n_sim=32, kernels=KERNELS[:1], seed=1)
    assert default["max_error"] == seed0["max_error"] != seed1["max_error"]


def test_wave_footprints_with_one_program_per_wave():
    # waves of 1 program: each touches 1 block-row and 1 block-column, 2 × 3 = 6 waves
    assert wave_footprints(2, 3, 1) == [(1, 1)] * 6
    with pytest.raises(ValueError, match="at least one program"):
        wave_footprints(2, 3, 0)


@pytest.mark.parametrize("threads,regs,smem,expected", [
    # 1 thread = 1 warp: threads 48 // 1 = 48, shared 102400 // 1024 = 100, blocks 16 → 16, by the block limit
    (1, None, 0, (16, ("blocks",))),
    # 1024 threads = 32 warps: 48 // 32 = 1 → 1, by threads
    (1024, None, 0, (1, ("threads",))),
    # 255 registers (the most a thread may have): ⌈255 × 32 / 256⌉ × 256 = 8192 per warp, 65536 // 8192 = 8 → 8
    (32, 255, 0, (8, ("registers",))),
    # 1 register: 256 per warp (one allocation unit), 65536 // 256 = 256 → the block limit, 16
    (32, 1, 0, (16, ("blocks",))),
    # the whole opt-in shared memory, 101376 B: 102400 // (101376 + 1024) = 1 → 1, by shared memory
    (32, None, 101376, (1, ("shared",))),
])
def test_occupancy_at_the_edges_of_each_limit(threads, regs, smem, expected):
    occ = occupancy(A6000, threads, regs_per_thread=regs, smem_per_block=smem)
    assert (occ.blocks_per_sm, occ.limiters) == expected


@pytest.mark.parametrize("threads,regs,smem,what", [
    (0, None, 0, "a block of 0 threads"), (1025, None, 0, "a block of 1025 threads"),
    (32, 0, 0, "0 registers"), (32, 256, 0, "256 registers"), (32, None, 101377, "101377 B of shared memory"),
    (32, None, -1, "-1 B of shared memory"),
])
def test_occupancy_refuses_what_cannot_launch(threads, regs, smem, what):
    with pytest.raises(LaunchError, match=what):
        occupancy(A6000, threads, regs_per_thread=regs, smem_per_block=smem)
