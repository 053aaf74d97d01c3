"""Bank conflicts and wavefronts of the shared memory Triton 3.9 adds (``shared_wavefronts_*``,
``shared_bank_conflicts_*``), and the other fields of issue 35 the timing model reads (``wgmma_sm90``,
``dot_flops_*``, ``tma_bytes_sm90``), on cases worked out by hand below. The buffers' swizzles are the ones
Triton 3.9's TTGIR shows for the kernels of tests/shared_kernels.py (``nox -s compiled`` compiles them)."""

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab.triton.compiler import banks as shared_banks
from kernellab.triton.compiler import convert, mma
from kernellab.triton.compiler.swizzle import Flat, banks
from kernellab.triton.executor import counts

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "conformance"))
from compiled_cases import CASES, source  # noqa: E402

from conftest import load_source  # noqa: E402  (tests/conformance/conftest.py)

REFERENCE = json.loads((HERE.parent / "kernellab" / "compiled_counts.json").read_text())["cases"]


def test_operand_buffers_swizzle_as_the_ttgir_says():
    # kloop_s3_k4 (fp16, A 64 × 32, B 32 × 64, row-major), its TTGIR:
    #   #shared  = #ttg.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>   (A)
    #   #shared1 = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>   (B)
    # kWidth = 32 / 16 = 2. A: perPhase = 128 / (32 · 4 / 2) = 2, vec = 4 · kWidth = 8 (contiguous along
    # K), maxPhase = 8 / 2 = 4. B: perPhase = 128 / (64 · 2) = 1, vec = 8 (along N), maxPhase = 4 · 2 / 1 = 8.
    assert shared_banks.operand_swizzle((64, 32), (1, 0), 0, 16) == (8, 2, 4)
    assert shared_banks.operand_swizzle((32, 64), (1, 0), 1, 16) == (8, 1, 8)
    # kloop32 (fp32 → tf32, kWidth 1): #ttg.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8}> for A
    # (perPhase = 128 / (32 · 4) = 1, vec = 4, maxPhase = 8), {vec = 8, perPhase = 1, maxPhase = 4} for B
    # (perPhase = max(128 / 256, 1) = 1, vec = 8, maxPhase = 4 · 1 / 1 = 4)
    assert shared_banks.operand_swizzle((64, 32), (1, 0), 0, 32) == (4, 1, 8)
    assert shared_banks.operand_swizzle((32, 64), (1, 0), 1, 32) == (8, 1, 4)
    # bp_matmul_fp8 (8-bit, A 64 × 64 taken in wgmma's registers): {vec = 16, perPhase = 2, maxPhase = 4}
    # (kWidth 4: perPhase = 128 / (64 · 4 / 4) = 2, vec = 16, maxPhase = 8 / 2 = 4); its B, 64 K-bytes
    # contiguous: #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = true, elementBitWidth = 8}>
    assert shared_banks.operand_swizzle((64, 64), (1, 0), 0, 8) == (16, 2, 4)
    assert shared_banks.nvmma_swizzle((64, 64), 0, 8) == 64
    assert shared_banks.nvmma_swizzle((64, 128), 1, 16) == 128


def test_an_operand_store_under_the_swizzle_is_conflict_free():
    # A 64 × 32 fp16 under #blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1]}>:
    # a thread stores its 8 halves (16 bytes) at once, 2 rows of the 64-byte rows per warp-quarter (8
    # lanes: rows 2j, 2j + 1, 4 column groups g each). Row r's group g lands at group g ^ ((r / 2) mod 4):
    # rows 0 and 1 share phase 0, so their 8 chunks are bytes 0, 16, …, 112: every bank once, one
    # wavefront a quarter, 4 an instruction (512 bytes), no conflict. 2 instructions a thread × 4 warps.
    a = convert.blocked((64, 32), (1, 8), (8, 4), (4, 1), (1, 0))
    assert shared_banks.operand_banks(a, 0, 16, 1, False) == (32, 32)


@triton.jit
def _fp8(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :]).to(tl.float8e4nv, bitcast=True)
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :]).to(tl.float8e4nv, bitcast=True)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b))


def test_fp8_b_stored_k_major_one_byte_at_a_time_conflicts_four_ways():
    # B, 64 × 64 bytes loaded along N (16 bytes a thread, 4 lanes along N, 8 along K, 4 warps along K),
    # goes K-major into wgmma's buffer (64 K-bytes a row: 64-byte swizzle), one byte a st.shared: 32 a
    # thread, 128 a program. In one instruction a warp's lanes write element (k, n) for k = 8w + 0…7 and
    # n = i, 16 + i, 32 + i, 48 + i: byte n · 64 + k, chunk XORed with (n / 2) mod 4 — the same for the
    # four n (they differ by multiples of 16), and n · 64 mod 128 the same too (n all of one parity).
    # So the four n fall on the same two banks, different words: 4 wavefronts where 1 would do, 3
    # conflicts an instruction, 128 × 3 = 384 a program. Everything else here (A's store and ldmatrix,
    # the accumulator's conversion) is conflict-free.
    a = np.ones((64, 64), np.uint8)
    cnt = _fp8[(1,)](a, a, np.zeros((64, 64), np.float32), M=64, N=64, K=64)
    assert cnt.shared_bank_conflicts_sm90 == 128 * 3
    assert cnt.shared_bank_conflicts_sm80 == 0


def test_a_reductions_copied_lanes_conflict_two_ways():
    # tl.sum over the 32 rows of a 32 × 128 fp32 block (4 columns a thread, lanes along the columns,
    # warps along the rows): no lane lies along the rows, so the partials are reduced in two steps. The
    # second stores the 128 column sums from a layout whose lanes 0 and 1 are copies (columns 4w₀ + 8w₁
    # + 16l₂ + 32l₃ + 64l₄ … + 3, w the warp) to an unswizzled buffer (offset = column): a 16-byte store,
    # lanes paired on one address, is served in 2 phases of 16 lanes; a phase's 4 addresses are 64 bytes
    # apart (l₂, l₃), 0, 64, 128, 192: two chunks on each bank group, 2 wavefronts where 1 would do. Per
    # warp 4 against 2, 4 warps: 16 against 8. Its loads (4 consecutive floats a lane, 8 lanes a phase
    # over 128 bytes) and the first step's stores and loads are conflict-free.
    src = Flat(regs=(1, 2), lanes=(0, 0, 16, 32, 64), warps=(4, 8))
    dst = Flat(regs=(1, 2), lanes=(4, 8, 16, 32, 64), warps=(0, 0))
    (st_wf, st_ideal), (ld_wf, ld_ideal) = banks(src, dst, 32, "sm80")
    assert (st_wf, st_ideal) == (16, 8)
    assert ld_wf == ld_ideal == 16


@triton.jit
def _chained(q_ptr, k_ptr, v_ptr, o_ptr, D: tl.constexpr):
    r = tl.arange(0, 64)
    d = tl.arange(0, D)
    q = tl.load(q_ptr + r[:, None] * D + d[None, :])
    kt = tl.load(k_ptr + r[None, :] * D + d[:, None])
    p = tl.dot(q, kt).to(tl.float16)
    tl.store(o_ptr + r[:, None] * D + d[None, :], tl.dot(p, tl.load(v_ptr + r[:, None] * D + d[None, :])))


def test_the_fields_the_timing_model_reads():
    # two 64 × 64 × 64 fp16 dots, 4 warps: each 2 · 64³ FLOPs, all in dot_flops_f16. On sm_90 both are
    # wgmma (m64n64k16, K 64: 4 a warpgroup instruction, counted per warp: 16 each): wgmma_sm90 = mma_sm90
    x = np.ones((64, 64), np.float16)
    cnt = _chained[(1,)](x, x, x, np.zeros((64, 64), np.float32), D=64)
    assert cnt.dot_flops == cnt.dot_flops_f16 == 2 * 2 * 64 ** 3
    assert cnt.wgmma_sm90 == cnt.mma_sm90 == 32
    assert cnt.dot_flops_tf32 == cnt.dot_flops_fp8 == cnt.dot_flops_int8 == cnt.dot_flops_fma == 0


@triton.jit
def _small_dots(a_ptr, b_ptr, c_ptr):
    r = tl.arange(0, 16)
    a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])
    b = tl.load(b_ptr + r[:, None] * 16 + r[None, :])
    tl.store(c_ptr + r[:, None] * 16 + r[None, :], tl.dot(a, b) + tl.dot(a, b, input_precision="ieee"))


def test_dot_flops_by_operand_kind_and_mma_sync_on_sm90():
    # 16 × 16 fp32 dots: tf32 on the tensor cores, "ieee" on FMAs; 2 · 16³ FLOPs each. A 16-row block is
    # too small for wgmma (64 rows a warpgroup): mma.sync on sm_90 too, no wgmma
    x = np.ones((16, 16), np.float32)
    cnt = _small_dots[(1,)](x, x, np.zeros((16, 16), np.float32))
    assert cnt.dot_flops_tf32 == cnt.dot_flops_fma == 2 * 16 ** 3
    assert cnt.mma_sm90 > 0 and cnt.wgmma_sm90 == 0


@triton.jit
def _descriptor_copy(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN])
    dst = tl.make_tensor_descriptor(y_ptr, [M, N], [N, 1], [BM, BN])
    dst.store([tl.program_id(0) * BM, 0], src.load([tl.program_id(0) * BM, 0]))


def test_tma_bytes_are_the_tiles_elements_inside_the_tensor():
    # a 10 × 8 fp32 array in 4 × 8 tiles, 3 programs: the last tile has 2 rows inside. Loads and stores
    # each move (4 + 4 + 2) · 8 · 4 = 320 bytes: 640, as the masked sm_80 accesses' bytes
    x = np.ones((10, 8), np.float32)
    cnt = _descriptor_copy[(3,)](x, np.zeros_like(x), 10, 8, BM=4, BN=8)
    assert cnt.tma_bytes_sm90 == 640 == cnt.load_bytes + cnt.store_bytes


def _operand_buffers(case, kernel, monkeypatch) -> dict:
    """The shared encodings kernellab stores each ``tl.dot`` operand under in ``case``'s launch, by target
    (``"sm80"``, ``"sm90"``): what :func:`kernellab.triton.compiler.banks.operand_banks` is asked for,
    written as the TTGIR prints it."""
    seen, target = {"sm80": set(), "sm90": set()}, []
    staged, operand_banks = shared_banks.staged.__wrapped__, shared_banks.operand_banks.__wrapped__

    def staging(*args):
        target.append(args[5])
        try:
            return staged(*args)
        finally:
            target.pop()

    def stored(x, slot, bits, d, nvmma):
        seen[target[-1]].add(shared_banks.operand_encoding(x.shape, d, slot, bits, nvmma))
        return operand_banks(x, slot, bits, d, nvmma)

    with monkeypatch.context() as m:
        m.setattr(shared_banks, "staged", staging)
        m.setattr(shared_banks, "operand_banks", stored)
        counts._moves_by_target.cache_clear()  # every move worked out again, under the recorders
        try:
            kernel[case.grid](*case.arrays(), **case.meta, **case.options())
        finally:
            counts._moves_by_target.cache_clear()
    return seen


@pytest.mark.filterwarnings("ignore::kernellab.errors.BlockPointerWarning")  # the reference's block-pointer kernels: Triton 3.9 removed them
def test_operand_buffers_are_the_compiled_codes(monkeypatch, tmp_path):
    """Every buffer kernellab stores a dot operand in (and counts the bank conflicts of) is one Triton 3.9's
    TTGIR declares for that launch (``nox -s compiled`` records each launch's layouts), on each target."""
    cases = [c for c in CASES if any(r.get("mma") for k, r in REFERENCE[c.id].items() if k.endswith("/jit"))]
    assert len(cases) >= 40  # every launch with an MMA instruction in the committed reference
    modules, checked = {}, 0
    for case in cases:
        ref = REFERENCE[case.id]
        if case.source not in modules:
            modules[case.source] = load_source(f"kl_banks_{len(modules)}", source(case, ours=True), tmp_path)
        kernel = getattr(modules[case.source], case.ours or case.kernel)
        seen = _operand_buffers(case, kernel, monkeypatch)
        for target, encodings in seen.items():
            row = ref.get(f"sm_{target[2:]}/jit")
            if row is None:
                continue
            assert encodings <= set(row["layouts"]), (case.id, target, encodings - set(row["layouts"]))
            checked += len(encodings)
    assert checked >= 60


# --- byte offsets in the operand buffers, and the wavefronts of storing into them --------------------------
def test_byte_offsets_in_the_operand_buffers_by_hand():
    # #ttg.swizzled_shared {vec 8, perPhase 1, maxPhase 8}, fp16, a (2, 16, 16) batched operand contiguous along
    # its last dimension: element (b, r, c) at b·16·16 + r·16 + ((c / 8) ^ (r mod 8))·8 + c mod 8 halves
    sw = shared_banks._swizzled_bytes(np.array([[1, 0, 0], [0, 3, 5], [0, 2, 9]]), (2, 16, 16), 2, 16, (8, 1, 8))
    # (1,0,0): 256 halves = 512 B; (0,3,5): 48 + (0 ^ 3)·8 + 5 = 77 → 154 B; (0,2,9): 32 + (1 ^ 2)·8 + 1 = 57 → 114 B
    assert sw.tolist() == [512, 154, 114]
    # #ttg.nvmma_shared, 128-byte swizzle (32 fp32 along K = 128 B a row, n the row): byte n·128 + 4k, its 16-byte
    # chunk (bits 4–6) XORed with n mod 8 (bits 7–9)
    nv = shared_banks._nvmma_bytes(np.array([[1, 0], [0, 1], [5, 9], [31, 63]]), (32, 64), 0, 32)
    # (k 1, n 0): 4; (0, 1): 128 ^ 16 = 144; (5, 9): 1152 + (20 ^ 16) = 1156; (31, 63): 8064 + (124 ^ 112) = 8076
    assert nv.tolist() == [4, 144, 1156, 8076]
    # batched, fp16 (2, 16, 64): 64 halves = 128 B a row, swizzled; batch 1 at 16 rows · 128 B = 2048; (0, 3, 5):
    # 3·128 + 10 = 394, chunk 0 ^ 3 → 394 + 48 = 442. (2, 8, 8): 16 B a row, below 32 B: no swizzle (width 0),
    # batch 1 at 8 · 16 = 128 B, (0, 3, 5) at 3 · 16 + 10 = 58
    assert shared_banks._nvmma_bytes(np.array([[1, 0, 0], [0, 3, 5]]), (2, 16, 64), 2, 16).tolist() == [2048, 442]
    assert shared_banks._nvmma_bytes(np.array([[1, 0, 0], [0, 3, 5]]), (2, 8, 8), 2, 16).tolist() == [128, 58]


def test_a_tf32_b_stored_k_major_one_word_at_a_time_conflicts_eight_ways_under_the_swizzle(monkeypatch):
    # wgmma reads a tf32 B K-major: B (K 32 × N 64 fp32) loaded along N (4 columns a thread, 16 lanes along N, 2
    # along K, 4 warps along K; 16 elements a thread) goes into #ttg.nvmma_shared (32 floats = 128 B a row, one row
    # per n) one 4-byte element a st.shared: 16 a thread, 64 warp instructions a program. In one, lane (l_k, l_n)
    # writes k = k0 + l_k, n = 4·l_n + j (j fixed): byte n·128 + (4k ^ 16·(n mod 8)), bank k ^ 4·(n mod 8) (mod
    # 32). n mod 8 takes 2 values (j, j + 4), k 2: 4 banks, 8 lanes each, each lane its own word: 8 wavefronts
    # where 1 would do (32 × 4 B = 128 B). 64 × 8 = 512 against 64. Without the swizzle (rows at n·128 + 4k)
    # every n falls on the same bank: 2 banks of 16 words, 16 wavefronts an instruction.
    b = convert.blocked((32, 64), (1, 4), (2, 16), (4, 1), (1, 0))
    assert shared_banks.operand_encoding(b.shape, 0, 1, 32, True) == \
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 32}>"
    assert shared_banks.operand_banks(b, 1, 32, 0, True) == (512, 64)
    monkeypatch.setattr(shared_banks, "nvmma_swizzle", lambda *args: 0)  # the same buffer, unswizzled
    assert shared_banks.operand_banks.__wrapped__(b, 1, 32, 0, True) == (64 * 16, 64)


# fp16 64 × 64 operands of 4 warps: A under #blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8]}> (8 halves
# a thread a row, 8 lanes a 128-byte row), the same for a B; their dot on sm_90 is wgmma m64n64 with warps (4, 1)
_A64 = convert.blocked((64, 64), (1, 8), (4, 8), (4, 1), (1, 0))


def test_a_b_stored_with_stmatrix_is_four_wavefronts_an_instruction():
    # B under #blocked<{sizePerThread = [1, 2], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1]}>: a thread's first
    # two halves and its first two lanes are the first 8 halves of a row (16 bytes), as stmatrix wants; 32 halves a
    # thread = 16 words = 4 stmatrix.x4 (plain: 16 st.shared.b32). Each .x4 writes 4 matrices of 8 16-byte rows,
    # one phase each, apart under the swizzle: 4 wavefronts, 4 × 4 a thread × 4 warps = 64. A is a TMA tile: no store
    b = convert.blocked((64, 64), (1, 2), (8, 4), (4, 1), (1, 0))
    assert shared_banks.staged(_A64, b, "fp16", 16, 4, "sm90", (True, False)) == (4, 0, 64, 64)


def test_a_hoisted_a_operand_of_wgmma_is_stored_and_read_back_with_ldmatrix():
    # A (M 128 × K 64 fp16) widened from a load ("hoist") is wgmma's register operand: stored to a dot-operand
    # buffer (#ttg.swizzled_shared {vec 8, perPhase 1, maxPhase 8}) in 16-byte vectors, 128·64 / 128 threads = 64
    # halves = 8 st.shared.v4 a thread; a phase (8 lanes) is one 128-byte row, its chunks permuted: 4 wavefronts an
    # instruction, 8 × 4 × 4 warps = 128. Read back with ldmatrix.x4 (16 × 16 halves, 512 B): each warp's 128 / 4 =
    # 32 rows = 2 tiles of 16 rows × K 64 → 2 · 64 · 16 · 2 / 512 = 8 a thread, 4 wavefronts each: 128. B: TMA
    a = convert.blocked((128, 64), (1, 8), (4, 8), (4, 1), (1, 0))
    assert shared_banks.staged(a, _A64, "fp16", 16, 4, "sm90", (False, True), None, (False, False), None,
                               ("hoist", True)) == (8, 8, 256, 256)


def test_a_copied_operand_computed_after_the_copy_is_read_back_then_stored():
    # B copied by the pipeliner (cp.async) but computed from the copy (loaded False): read back into its load's
    # layout, 32 halves a thread in 4 ld.shared.v4 (a warp 512 B: 4 wavefronts), then stored as an operand not
    # copied: 4 st.shared.v4 into the 128-byte-swizzled buffer (a phase one row: 4 wavefronts). 4 warps:
    # 16 + 16 instructions × 4 = 128 wavefronts, none a conflict. A: a TMA tile
    assert shared_banks.staged(_A64, _A64, "fp16", 16, 4, "sm90", (True, False), None, (False, True), None,
                               (True, False)) == (4, 4, 128, 128)


def test_tf32_mma_sync_reads_a_with_ldmatrix_and_b_a_word_at_a_time():
    # 64 × 32 · 32 × 64 tf32 on sm_80, warps (2, 2), both operands copied by the pipeliner (no stores). Each warp:
    # 32 rows of A × K 32 × 4 B = 4096 B = 8 ldmatrix.x4 (4 wavefronts each); 32 columns of B × K 32 = 1024 words
    # one ld.shared.b32 a lane: 32 loads of 1 wavefront. (8·4 + 32) × 4 warps = 256, conflict-free
    a = convert.blocked((64, 32), (1, 4), (4, 8), (4, 1), (1, 0))
    b = convert.blocked((32, 64), (1, 4), (2, 16), (4, 1), (1, 0))
    assert shared_banks.staged(a, b, "tf32", 32, 4, "sm80", (False, False), None, (True, True)) == (0, 40, 256, 256)


def test_a_chained_dots_a_in_registers_costs_nothing_when_the_warps_agree():
    # wgmma: the first dot 64 × 128 (warps 4 × 1, instruction n128), the second 64 × 64 (warps 4 × 1, n64): the
    # same warps, so A needs no conversion (the instruction's N does not matter); B a TMA tile: nothing at all
    first, second = mma.dot_plan(64, 128, "fp16", 4), mma.dot_plan(64, 64, "fp16", 4)
    assert first.sm90 == ("wgmma", 4, 1, 128) and second.sm90 == ("wgmma", 4, 1, 64)
    assert shared_banks.staged(_A64, _A64, "fp16", 16, 4, "sm90", (False, True), second, (False, False),
                               first) == (0, 0, 0, 0)
    # mma.sync with one warp (16 × 64, warps 1 × 1 on both targets): A is the earlier accumulator register for
    # register; B (64 × 64 halves = 8192 B, copied) is read with 16 ldmatrix.x4.trans of 512 B, 4 wavefronts each
    one = mma.dot_plan(16, 64, "fp16", 1)
    assert one.sm80 == (1, 1) and one.sm90 == ("mma", 1, 1)
    a = convert.blocked((16, 64), (1, 8), (4, 8), (1, 1), (1, 0))
    b = convert.blocked((64, 64), (1, 8), (4, 8), (1, 1), (1, 0))
    for target in ("sm80", "sm90"):
        assert shared_banks.staged(a, b, "fp16", 16, 1, target, (False, False), one, (False, True), one) == \
            (0, 16, 64, 64)


def test_a_reduction_of_two_operands_and_its_conversions_both_ways():
    # tl.sum-like reduce of 2 operands (a value and an index) over the 32 rows of a 32 × 128 fp32 block (4 columns
    # a thread, lanes along the columns, warps along the rows). Step 1: each warp's 128 partials go to a layout
    # with lanes 0, 1 along the 4 warps' rows: st.shared.v4 and ld.shared.v4 of 512 B a warp, conflict-free under
    # the buffer's swizzle, 4 wavefronts each, 16 a program each way. Step 2: the (16, 8) stores and (16, 16)
    # loads of test_a_reductions_copied_lanes_conflict_two_ways. Each operand stored and loaded at each step:
    # 2 · (16 + 16) + 2 · (16 + 16) = 128 wavefronts; ideal 2 · (16 + 16) + 2 · (8 + 16) = 112; with only one
    # result used, step 2 loads once: 128 − 16 = 112 and 112 − 16 = 96
    src = convert.blocked((32, 128), (1, 4), (1, 32), (4, 1), (1, 0))
    assert shared_banks.reduction_banks(src, 0, 32, 2) == (128, 112)
    assert shared_banks.reduction_banks(src, 0, 32, 2, 1) == (112, 96)
    # step 2's conversion alone, and back: the layout with copied lanes conflicts on whichever side it is
    (_a, _b, _s, _l), (copies, spread, _s2, _l2) = convert._reduction_steps(src, 0, 1, None)
    assert shared_banks.conversion_sides(copies, spread, 32) == ((16, 8), (16, 16))
    assert shared_banks.conversion_banks(copies, spread, 32) == (32, 24)
    assert shared_banks.conversion_sides(spread, copies, 32) == ((16, 16), (16, 8))
    assert shared_banks.conversion_banks(spread, copies, 32) == (32, 24)
