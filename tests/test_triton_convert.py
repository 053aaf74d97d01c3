"""Shared-memory traffic of layout conversions and cross-warp reductions (kernellab.triton.compiler.convert),
derived by hand; tests/test_compiled_counts.py holds the same counts to real Triton's PTX."""

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab.triton.compiler import banks as B
from kernellab.triton.compiler import convert as C
from kernellab.triton.tools.tensor_descriptor import TensorDescriptor


def test_blocked_bases_by_hand():
    # (32, 32) under size_per_thread (1, 4), threads (4, 8), warps (4, 1), order (1, 0):
    # registers 1, 2 along a row; lanes 4, 8, 16 along it, then rows 1, 2; warps rows 4, 8;
    # the tile is 16 rows, so one more register moves 16 rows down.
    lay = C.blocked((32, 32), (1, 4), (4, 8), (4, 1), (1, 0))
    assert lay.registers == ((0, 1), (0, 2), (16, 0))
    assert lay.lanes == ((0, 4), (0, 8), (0, 16), (1, 0), (2, 0))
    assert lay.warps == ((4, 0), (8, 0))
    # 64 elements, 32 lanes, 4 warps: warp bit 1 would move 64 elements, off the block: a copy
    assert C.blocked((64,), (1,), (32,), (4,), (0,)).warps == ((32,), (0,))


def test_transpose_conversion_by_hand():
    # rows of 4 floats a thread → columns of 4 floats a thread: 1024 floats / 128 threads = 8
    # registers each side; register bases (0,1),(0,2),(16,0) against (1,0),(2,0),(0,16) share no
    # leading basis, so each register is its own st.shared.b32 and ld.shared.b32: 8 and 8.
    row = C.blocked((32, 32), (1, 4), (4, 8), (4, 1), (1, 0))
    col = C.blocked((32, 32), (4, 1), (8, 4), (1, 4), (0, 1))
    assert C.conversion(row, col, 32) == (8, 8)
    assert C.conversion(row, row, 32) == (0, 0)
    # fp16 (16, 64): rows of 8 a thread, bases (0,1),(0,2),(0,4); against rows of 4 a thread whose
    # 8-row tile repeats once, bases (0,1),(0,2),(8,0). Two leading bases common: vectors of 4,
    # 8 registers / 4 = 2 stores and 8 / 4 = 2 loads a thread.
    a = C.blocked((16, 64), (1, 8), (4, 8), (4, 1), (1, 0))
    b = C.blocked((16, 64), (1, 4), (2, 16), (4, 1), (1, 0))
    assert a.registers == ((0, 1), (0, 2), (0, 4)) and b.registers == ((0, 1), (0, 2), (8, 0))
    assert C.conversion(a, b, 16) == (2, 2)


def test_one_sided_vectors():
    # A reduction's 4 partial column sums per thread (sliced away the rows) to one element a lane:
    # the source stores its 4 registers as one st.v4.b32, each destination thread loads 1 element.
    a = C.blocked((16, 32), (1, 4), (4, 8), (4, 1), (1, 0))
    one = C.blocked((32,), (1,), (32,), (4,), (0,))
    assert C.sliced(a, 0).registers == ((1,), (2,))
    assert C.conversion(C.sliced(a, 0), one, 32) == (1, 1)
    assert C.conversion(one, C.sliced(a, 0), 32) == (1, 1)
    # both sides with several registers and no common basis (1, 2, 4 against the repetitions 128,
    # 256, 512): one at a time, 8 and 8, were it not for ldmatrix: the destination's lanes 0, 1
    # (elements 1, 2) are source registers, so 8 / 4 = 2 st.v4 and 8 words / 4 = 2 ldmatrix.x4
    eight = C.blocked((1024,), (8,), (32,), (4,), (0,))
    assert C.conversion(eight, C.blocked((1024,), (1,), (32,), (4,), (0,)), 32) == (2, 2)
    # fp64 has no ldmatrix: 8 and 8
    assert C.conversion(eight, C.blocked((1024,), (1,), (32,), (4,), (0,)), 64) == (8, 8)


def test_reductions_by_hand():
    # 1024 floats, 4 a thread, 32 lanes, 4 warps: the warps' 4 partials meet in shared memory,
    # one st and one ld a thread (the 32 lanes along the axis take the 4 partials).
    assert C.reduction(C.blocked((1024,), (4,), (32,), (4,), (0,)), 0, 32) == (1, 1)
    # along the row of a (16, 32) block with 8 lanes along it and warps down the rows: no warp
    # meets another, no shared memory
    a = C.blocked((16, 32), (1, 4), (4, 8), (4, 1), (1, 0))
    assert C.reduction(a, 1, 32) == (0, 0)
    # down the columns: 4 lanes and 4 warps along the axis; each thread's 4 column partials: 1 st.v4, 1 ld.v4;
    # tl.argmax reduces values and indices: twice that
    assert C.reduction(a, 0, 32) == (1, 1)
    assert C.reduction(a, 0, 32, operands=2, used=1) == (2, 2)
    # one lane along the axis, 4 warps: the older scheme. Partials 1 per thread (store 1), the buffer
    # 4 × 32 = 128 elements over 128 threads: 1 round of (load, combine, store), then 1 load of the
    # result: 2 stores, 2 loads; argmax's value is never read: 2·2 stores, 2·1 + 1 loads.
    b = C.blocked((16, 32), (1, 1), (1, 32), (4, 1), (1, 0))
    assert C.reduction(b, 0, 32) == (2, 2)
    assert C.reduction(b, 0, 32, operands=2, used=1) == (4, 3)
    # a 64-element row over 4 warps: warps 2 and 3 hold copies, 2 warps meet: still 1 st, 1 ld
    assert C.reduction(C.blocked((64,), (1,), (32,), (4,), (0,)), 0, 32) == (1, 1)
    # every dimension at once reduces as one
    assert C.reduction(a, None, 32) == (1, 1)


@triton.jit
def _transpose(x_ptr, y_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + r[None, :])
    tl.store(y_ptr + r[None, :] * N + r[:, None], x)


@triton.jit
def _row_sums(x_ptr, out_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    x = tl.load(x_ptr + tl.program_id(0) * N + r)
    tl.store(out_ptr + tl.program_id(0), tl.sum(tl.exp(x) * 2.0, axis=0))


@triton.jit
def _copy(x_ptr, y_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    tl.store(y_ptr + r, tl.load(x_ptr + r) + 1.0)


def test_launches_count_them():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((32, 32)).astype(np.float32)
    y = np.zeros_like(x)
    cnt = _transpose[(1,)](x, y, N=32)
    np.testing.assert_array_equal(y, x.T)
    # aligned: the load takes rows of 4 (ld.v4), the store columns of 4: 8 st + 8 ld a thread × 4 warps
    assert (cnt.shared_stores_sm90, cnt.shared_loads_sm90) == (32, 32) == (cnt.shared_stores_sm80, cnt.shared_loads_sm80)
    rows = rng.standard_normal((3, 1024)).astype(np.float32)
    out = np.zeros(3, np.float32)
    cnt = _row_sums[(3,)](rows, out, N=1024, num_warps=8)
    np.testing.assert_allclose(out, (np.exp(rows.astype(np.float64)) * 2).sum(axis=1), rtol=1e-5)
    # 1 st + 1 ld a thread, 8 warps, 3 programs: 24 each
    assert (cnt.shared_stores_sm90, cnt.shared_loads_sm90) == (24, 24)
    cnt = _copy[(1,)](x.reshape(-1), y.reshape(-1), N=1024)
    assert (cnt.shared_stores_sm90, cnt.shared_loads_sm90) == (0, 0)   # one layout: no conversion


def test_counts_add():
    x = np.ones((32, 32), np.float32)
    a = _transpose[(1,)](x, np.zeros_like(x), N=32)
    assert (a + a).shared_stores_sm80 == 64 and a["shared_loads_sm90"] == 32


@pytest.mark.parametrize("bits,stores", [(8, 16), (16, 16), (32, 4), (64, 8)])
def test_vector_cap(bits, stores):
    # a (16, 8) block: 16 elements a thread down a column (lanes beyond column 8 and every warp
    # hold copies) to one element a thread. The layouts share no register, so the buffer's vector is
    # what fills a 32-bit bank word: for 32 and 64 bits nothing, and the bank bases that are the
    # source's registers go first, so its 16 registers leave in 128-bit vectors (16 / 4 = 4 st.v4,
    # 16 / 2 = 8 st.v2.b64); for 8 and 16 bits the word is filled with the destination's first warp
    # basis (element 32, a lane of the source), so the source cannot vectorise: 16 scalar stores. The
    # destination's one element: one load. All four checked against Triton 3.9's PTX of this
    # conversion (a Gluon convert_layout, sm_80).
    a = C.blocked((16, 8), (16, 1), (1, 32), (1, 4), (0, 1))
    one = C.blocked((16, 8), (1, 1), (16, 2), (1, 4), (0, 1))
    assert len(a.registers) == 4 and one.registers == ()
    assert C.conversion(a, one, bits) == (stores, 1)


def test_mma_accumulators_by_hand():
    # mma.sync, 64×64, 4 warps: warpsPerTileV2 gives 2 × 2 warps (64/16 = 4 row tiles ≥ 64/8/2 = 4
    # column tiles per warp... then along N). A thread: columns c, c+1 in rows r, r+8 of each 16×8
    # tile; the 4 warps cover 32 × 16, so the block repeats it 4 times along N (16, 32) and twice
    # along M (32): 2 · 2 · 4 · 2 = 32 registers (64·64 / 128 threads).
    a = C.accumulator(64, 64, "fp16", 4, "sm80")
    assert a.registers == ((0, 1), (8, 0), (0, 16), (0, 32), (32, 0))
    # wgmma m64n64: one warpgroup, each warp 16 rows × 64 columns, 2 · 2 · 8 = 32 registers
    h = C.accumulator(64, 64, "fp16", 4, "sm90")
    assert h.registers == ((0, 1), (8, 0), (0, 8), (0, 16), (0, 32)) and h.warps == ((16, 0), (32, 0))
    # M = 32 is too small for wgmma: mma.sync on sm_90 too
    assert C.accumulator(32, 32, "fp16", 4, "sm90") == C.accumulator(32, 32, "fp16", 4, "sm80")


def test_accumulator_to_store_by_hand():
    # the 64×64 fp32 result stored 4 floats a thread (size_per_thread (1, 4), threads (2, 16), warps
    # (4, 1)): register bases (0,1),(0,2),(8,0),(16,0),(32,0). Shared with mma.sync's: (0,1), (8,0),
    # (32,0): 3, capped at 128 bits = 4 floats: 32 / 4 = 8 st.v4 and 8 ld.v4 a thread.
    # With wgmma's, (0,1) and (8,0): vectors of 4 again: 8 and 8.
    store = C.blocked((64, 64), (1, 4), (2, 16), (4, 1), (1, 0))
    assert C.conversion(C.accumulator(64, 64, "fp16", 4, "sm80"), store, 32) == (8, 8)
    assert C.conversion(C.accumulator(64, 64, "fp16", 4, "sm90"), store, 32) == (8, 8)
    # stored one float a thread (warps (2, 2)): register bases are rows 2…32; wgmma shares only (8,0):
    # vectors of 2, 16 and 16; mma.sync shares (8,0) and (32,0): vectors of 4, 8 and 8
    one = C.blocked((64, 64), (1, 1), (1, 32), (2, 2), (1, 0))
    assert C.conversion(C.accumulator(64, 64, "fp16", 4, "sm90"), one, 32) == (16, 16)
    assert C.conversion(C.accumulator(64, 64, "fp16", 4, "sm80"), one, 32) == (8, 8)


def test_dot_staging_by_hand():
    # fp16 A 64×32 and B 32×64 loaded 8 halves a thread: 2048 / 128 = 16 each, 2 st.v4 each: 4 stores.
    # sm_80: warps 2 × 2, each loads its 32 rows × 32 of A and 32 × 32 columns of B with ldmatrix.x4,
    # 16 × 16 halves (512 bytes) each: 32·32·2 / 512 = 4 + 4 = 8 loads. sm_90: wgmma reads shared memory.
    a = C.blocked((64, 32), (1, 8), (8, 4), (4, 1), (1, 0))
    b = C.blocked((32, 64), (1, 8), (4, 8), (4, 1), (1, 0))
    assert B.staging(a, b, "fp16", 16, 4, "sm80") == (4, 8)
    assert B.staging(a, b, "fp16", 16, 4, "sm90") == (4, 0)
    # unaligned: one half a thread, 16 st.shared.b16 each
    a1 = C.blocked((64, 32), (1, 1), (1, 32), (4, 1), (1, 0))
    b1 = C.blocked((32, 64), (1, 1), (1, 32), (2, 2), (1, 0))
    assert B.staging(a1, b1, "fp16", 16, 4, "sm80") == (32, 8)
    # tf32 64×32 · 32×64, 4 floats a thread: 16 / 4 = 4 st.v4 each. sm_80: A by ldmatrix,
    # 32·32·4 / 512 = 8; B one float a lane: 32·32 / 32 = 32 ld.shared.b32. sm_90: wgmma reads B
    # K-major, down the columns, where a thread holds one float: 16 st.shared.b32 for B.
    a4 = C.blocked((64, 32), (1, 4), (4, 8), (4, 1), (1, 0))
    b4 = C.blocked((32, 64), (1, 4), (2, 16), (4, 1), (1, 0))
    assert B.staging(a4, b4, "tf32", 32, 4, "sm80") == (8, 40)
    assert B.staging(a4, b4, "tf32", 32, 4, "sm90") == (4 + 16, 0)


@triton.jit
def _dot(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b))


def test_a_dot_launch_counts_its_staging():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((64, 32)).astype(np.float16)
    b = rng.standard_normal((32, 64)).astype(np.float16)
    c = np.zeros((64, 64), np.float32)
    cnt = _dot[(1,)](a, b, c, M=64, N=64, K=32)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-2, atol=1e-2)
    # staging (4 st, 8 ld on sm_80; 4 st on sm_90) + the accumulator's conversion (8 st, 8 ld): × 4 warps
    assert (cnt.shared_stores_sm80, cnt.shared_loads_sm80) == (4 * (4 + 8), 4 * (8 + 8))
    assert (cnt.shared_stores_sm90, cnt.shared_loads_sm90) == (4 * (4 + 8), 4 * 8)


def test_ldmatrix_conversion_by_hand():
    # fp32 loaded 4 a thread (registers 1, 2, then 512 apart) to one a thread (32 lanes over 32
    # consecutive floats: lanes 1, 2, 4, …), as an sm_80 atomic_add wants it. The plain way shares only
    # basis 512: 8 / 2 = 4 and 4. ldmatrix.x4: the destination's lanes 0 and 1 (elements 1 and 2) are
    # the source's registers, so each thread stores its 4 floats as one st.v4 (8 / 4 = 2) and gets
    # 4 words an ldmatrix.x4 (8 / 4 = 2): 2 and 2.
    src = C.blocked((1024,), (4,), (32,), (4,), (0,))
    dst = C.blocked((1024,), (1,), (32,), (4,), (0,))
    assert C._distinct(src.registers) == ((1,), (2,), (512,)) and dst.lanes[:2] == ((1,), (2,))
    assert C.conversion(src, dst, 32) == (2, 2)
    # fp16 (64, 64) from the wgmma accumulator to 8 halves a thread: the destination's register 0
    # (0,1) and lanes 0, 1 ((0,8), (0,16)) are all accumulator registers: 32 / 8 = 4 st.v4 and
    # 32 halves / 2 a word / 4 words an ldmatrix.x4 = 4 loads (the plain way: vectors of 2, 16 and 16)
    acc = C.accumulator(64, 64, "fp16", 4, "sm90")
    store = C.blocked((64, 64), (1, 8), (4, 8), (4, 1), (1, 0))
    assert C.conversion(acc, store, 16) == (4, 4)
    # fp32 the same way: the destination's lanes 0, 1 are (0,8), (0,16), registers of the
    # accumulator; but (0,2), its register 1, is not... for 32 bits only the lanes count: 32 / 4 = 8
    # st.v4 and 32 / 4 = 8 ldmatrix.x4, no better than plain (common (0,1): vectors of 2, 16 + 16)
    store32 = C.blocked((64, 64), (1, 4), (2, 16), (4, 1), (1, 0))
    assert C.conversion(acc, store32, 32) == (8, 8)


def test_atomic_widths_by_hand():
    from kernellab.triton.compiler import axis

    # an aligned fp32 block of 1024, 4 warps: on sm_90 atom.add.v4.f32, 1024 / 128 / 4 = 2 a thread,
    # 8 a program; on sm_80 one float each, 8 a thread, 32 a program
    ptr = axis.add(axis.splat(axis.argument(16), (1024,)), axis.arange(0, 1024), (1024,), elem_bytes=4)
    how = (ptr, None, (1024,))
    assert C.atomic_instructions(how, 4, 4, "atomic_add", True, "sm90") == 8
    assert C.atomic_instructions(how, 4, 4, "atomic_add", True, "sm80") == 32
    # fp16: 8 halves an instruction on sm_90 (but a thread holds 8: 1), f16x2 on sm_80 (4)
    ptr2 = axis.add(axis.splat(axis.argument(16), (1024,)), axis.arange(0, 1024), (1024,), elem_bytes=2)
    assert C.atomic_instructions((ptr2, None, (1024,)), 2, 4, "atomic_add", True, "sm90") == 4
    assert C.atomic_instructions((ptr2, None, (1024,)), 2, 4, "atomic_add", True, "sm80") == 16
    # fp32 atomic_max: atom.max.s32 and atom.min.u32 for each element: 2 × 8 a thread
    assert C.atomic_instructions(how, 4, 4, "atomic_max", True, "sm90") == 2 * 32
    assert C.atomic_instructions(how, 4, 4, "atomic_xchg", True, "sm90") == 32


@triton.jit
def _accumulate(x_ptr, out_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    tl.atomic_add(out_ptr + r, tl.load(x_ptr + r))


def test_an_atomic_launch_counts_them():
    x = np.arange(1024, dtype=np.float32)
    out = np.ones(1024, np.float32)
    cnt = _accumulate[(2,)](x, out, N=1024)
    np.testing.assert_array_equal(out, 1 + 2 * x)
    # 2 programs × (8 v4 atomics on sm_90, 32 scalar ones on sm_80); on sm_80 the loaded value is
    # converted to the atomic's layout through ldmatrix: 2 st + 2 ld a thread, × 4 warps × 2 programs
    assert (cnt.atomic_instructions_sm90, cnt.atomic_instructions_sm80) == (16, 64)
    assert (cnt.shared_stores_sm80, cnt.shared_loads_sm80, cnt.shared_stores_sm90) == (16, 16, 0)


@triton.jit
def _desc_copy(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    dst = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    dst.store([tl.program_id(0) * BM, 0], src.load([tl.program_id(0) * BM, 0]))


def test_descriptor_tiles_take_the_vector_width():
    from kernellab.triton.compiler.specialize import nothing_known

    # a 16×64 fp32 tile, 4 warps: 1024 / 128 = 8 floats a thread. N = 64 is divisible by 16, so the
    # column mask (idx < N) is constant over runs of 16 and the rows start 16-byte aligned: 2 ld.v4
    # and 2 st.v4 a thread, 8 a program. N unknown (nothing known): one float at a time, 32.
    for m, n, spec, want in ((64, 64, "jit", 8), (64, 64, "none", 32), (64, 60, "jit", 32)):
        k = _desc_copy if spec == "jit" else nothing_known(_desc_copy)
        x = np.arange(m * n, dtype=np.float32).reshape(m, n)
        y = np.zeros_like(x)
        cnt = k[(4,)](x, y, m, n, BM=16, BN=64)
        np.testing.assert_array_equal(y, x)
        assert cnt.load_instructions / cnt.programs == want == cnt.store_instructions / cnt.programs, (n, spec)


@triton.jit
def _mul(a, b):
    return a * b


@triton.jit
def _products(x_ptr, out_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    tl.store(out_ptr + tl.program_id(0), tl.reduce(tl.load(x_ptr + tl.program_id(0) * N + r), 0, _mul))


def test_a_generic_reduction_counts_its_shared_memory():
    x = np.full((2, 1024), 1.0005, np.float32)
    out = np.zeros(2, np.float32)
    cnt = _products[(2,)](x, out, N=1024)
    np.testing.assert_allclose(out, 1.0005 ** 1024, rtol=1e-3)
    # like tl.sum over 1024 floats, 4 warps: 1 st + 1 ld a thread, × 4 warps × 2 programs
    assert (cnt.shared_stores_sm90, cnt.shared_loads_sm80) == (8, 8)


@triton.jit
def _desc_scale(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    dst = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    dst.store([tl.program_id(0) * BM, 0], src.load([tl.program_id(0) * BM, 0]) * 2)


def test_tma_copies_by_hand():
    # boxes of at most 128 bytes along the last dimension, 256 elements along the others, over the warps
    assert C.tma_copies((16, 64), 4, 4) == 1    # 64 floats = 256 B: 2 boxes of 16 × 32, warps 0 and 1 one each
    assert C.tma_copies((16, 256), 4, 4) == 2   # 8 boxes over 4 warps: 2 each
    assert C.tma_copies((16, 512), 4, 8) == 2   # 16 boxes over 8 warps
    assert C.tma_copies((2048, 32), 4, 4) == 2  # 2048 / 256 = 8 boxes of 256 × 32 over 4 warps
    assert C.tma_copies((16, 256), 2, 4) == 1   # 256 halves = 512 B: 4 boxes of 64
    assert C.tma_copies((8, 8), 4, 4) == 1      # one box, one warp issues it
    assert C.tma_copies((2, 2048, 32), 4, 4) == 2  # every leading dimension: 1 × 8 × 1 = 8 boxes over 4 warps
    # the tile between shared memory and registers: a thread's share in 128-bit vectors, at least one
    assert C.tma_shared((64, 64), 32, 4) == 8   # 4096 / 128 threads = 32 floats = 8 × v4
    assert C.tma_shared((1024, 32), 16, 4) == 32  # 256 halves a thread = 32 × v4 (8 halves each)
    assert C.tma_shared((32, 8), 32, 4) == 1    # 2 floats a thread: one vector


def test_descriptors_are_tma_on_sm90():
    """A 16×64 fp32 tile, 4 warps, 4 programs, as Triton 3.9's PTX for sm_90 has it (compiled on this
    machine: 1 cp.async.bulk.tensor load, 1 store; 2 st.shared for the two descriptors; x·2 adds 2
    ld.shared.v4 and 2 st.shared.v4 a thread)."""
    x = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    y = np.zeros_like(x)
    cnt = _desc_scale[(4,)](x, y, 64, 64, BM=16, BN=64)
    np.testing.assert_array_equal(y, 2 * x)
    p = cnt.programs
    # sm_80: the pointer rewrite, 2 ld.v4 + 2 st.v4 a thread (8 floats) × 4 warps; no TMA on sm_90 and no ld/st.global
    assert (cnt.load_instructions / p, cnt.store_instructions / p) == (8, 8)
    assert (cnt.load_instructions_sm90, cnt.store_instructions_sm90) == (0, 0)
    # 1 TMA load + 1 TMA store a thread (2 boxes, warps 0 and 1) × 4 warps
    assert cnt.tma_instructions_sm90 / p == 8
    # sm_90: (2 descriptors + 2 st.v4 of x·2) × 4 warps = 16 stores; 2 ld.v4 of the loaded tile × 4 = 8 loads
    assert (cnt.shared_stores_sm90 / p, cnt.shared_loads_sm90 / p) == (16, 8)
    # sm_80: the load's and the store's layouts agree: no conversion
    assert (cnt.shared_stores_sm80, cnt.shared_loads_sm80) == (0, 0)
    # stored unchanged (tests/compiled_kernels.py's desc_copy_kernel): the tile stays in shared memory
    cnt = _desc_copy[(4,)](x, y, 64, 64, BM=16, BN=64)
    np.testing.assert_array_equal(y, x)
    assert (cnt.shared_stores_sm90 / cnt.programs, cnt.shared_loads_sm90) == (2 * 4, 0)  # the 2 descriptors only
    # descriptors made on the host: nothing written to shared memory for them, x·2's 2 st.v4 × 4 warps remain
    cnt = _host_scale[(4,)](TensorDescriptor.from_tensor(x, [16, 64]), TensorDescriptor.from_tensor(y, [16, 64]))
    np.testing.assert_array_equal(y, 2 * x)
    assert (cnt.shared_stores_sm90 / cnt.programs, cnt.shared_loads_sm90 / cnt.programs) == (8, 8)
    assert cnt.tma_instructions_sm90 / cnt.programs == 8 and cnt.load_instructions_sm90 == 0


@triton.jit
def _host_scale(src, dst):
    dst.store([tl.program_id(0) * 16, 0], src.load([tl.program_id(0) * 16, 0]) * 2)


def test_fma_dot_by_hand():
    # Triton's FMA dot layout: 32×32 over 128 threads = 8 a thread ≥ 4: 2 × 2 a thread, lanes 2 × 16
    # (32 columns / 2), warps 4 × 1; 64×64 = 32 a thread ≥ 16: 4 × 4
    p = C.fma_layout(32, 32, 4)
    assert p.registers == ((0, 1), (1, 0), (16, 0)) and p.warps == ((4, 0), (8, 0))  # rows 0-1 + 16: 4 rows
    assert C.fma_layout(64, 64, 4).registers[:4] == ((0, 1), (0, 2), (1, 0), (2, 0))
    # aligned loads (4 floats a thread along a row): A and B each 2 st.v4; loads: A 4 rows × 32 K / 4 (v4)
    # = 32, B 32 K × 2 columns / 2 (v2) = 32
    row = C.blocked((32, 32), (1, 4), (4, 8), (4, 1), (1, 0))
    assert B.staging(row, row, "fma", 32, 4, "sm80") == (4, 64) == B.staging(row, row, "fma", 32, 4, "sm90")
    # one float a lane (nothing known): 8 st.shared an operand on sm_80; on sm_90 lanes 0, 1 are columns
    # 1, 2 (the buffer's lowest words): stmatrix.x4, 8 words / 4 = 2 an operand
    one = C.blocked((32, 32), (1, 1), (1, 32), (4, 1), (1, 0))
    assert B.staging(one, one, "fma", 32, 4, "sm80") == (16, 64)
    assert B.staging(one, one, "fma", 32, 4, "sm90") == (4, 64)
    # B = tl.trans(k) of a row-major k: its buffer is contiguous along K, so a thread loads each of its
    # 2 columns' 32 K in 8 v4: 16; A as above 32
    assert B.staging(row, C.transposed(row), "fma", 32, 4, "sm80") == (4, 48)


def test_warp_shuffles_need_no_shared_memory():
    # the FMA dot's 32×32 result to a row-major store layout: both keep rows 4w … 4w + 3 (and + 16) in
    # warp w, no copies: the lanes swap them by shuffles, no shared memory
    row = C.blocked((32, 32), (1, 4), (4, 8), (4, 1), (1, 0))
    assert C.conversion(C.fma_layout(32, 32, 4), row, 32) == (0, 0)
    # a store layout with one row a warp: rows change warps, 8 registers of which registers 16 rows
    # apart (the one basis in common) pair: 4 st.v2 and 4 ld.v2
    one = C.blocked((32, 32), (1, 1), (1, 32), (4, 1), (1, 0))
    assert C.conversion(C.fma_layout(32, 32, 4), one, 32) == (4, 4)


def test_tf32_wgmma_stores_a_with_stmatrix():
    # tf32 wgmma (sm_90), nothing known: A 64×32 one float a lane along K: 16 floats a thread, whose lanes
    # 0, 1 are K 1, 2: 16 words / 4 = 4 stmatrix.x4 (st.shared would take 16); B K-major, its lanes along
    # N: one float at a time, 16
    a = C.blocked((64, 32), (1, 1), (1, 32), (4, 1), (1, 0))
    b = C.blocked((32, 64), (1, 1), (1, 32), (4, 1), (1, 0))
    assert B.staging(a, b, "tf32", 32, 4, "sm90") == (4 + 16, 0)
    assert B.staging(a, b, "tf32", 32, 4, "sm80")[0] == 16 + 16


@triton.jit
def _ieee(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b, input_precision="ieee"))


def test_an_ieee_dot_counts_its_operands():
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((32, 32)).astype(np.float32), rng.standard_normal((32, 32)).astype(np.float32)
    c = np.zeros((32, 32), np.float32)
    cnt = _ieee[(1,)](a, b, c, M=32, N=32, K=32)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-4)
    # aligned: (2 + 2) st.v4 and 64 loads a thread (test_fma_dot_by_hand), the result by shuffles; × 4 warps
    assert (cnt.shared_stores_sm80, cnt.shared_loads_sm80) == (16, 256) == (cnt.shared_stores_sm90, cnt.shared_loads_sm90)


def test_fma_operands_through_ldmatrix():
    # 16×16 = 2 elements a thread < 4: the FMA layout keeps 1 a thread, lanes 16 along N then 2 along M,
    # 4 warps × 2 rows, twice (rows 0 and 8): a thread needs 2 rows of A and 1 column of B
    p = C.fma_layout(16, 16, 4)
    assert p.registers == ((8, 0),) and p.lanes[:2] == ((0, 1), (0, 2))
    one = C.blocked((16, 16), (1, 1), (2, 16), (4, 1), (1, 0))   # nothing known: one float a lane
    # stores: 2 floats a thread an operand, one at a time: 2 + 2; loads: A 2 rows × 16 K / 4 (v4) = 8;
    # B's column: lanes 0, 1 are its buffer's first two words, so ldmatrix.x4, 16 K × 1 / 4 = 4
    assert B.staging(one, one, "fma", 32, 4, "sm80") == (4, 12)


def test_wgmma_reads_tma_tiles_in_place():
    # fp16 64×32 @ 32×64, 4 warps, aligned loads (8 halves a thread, one st.v4 each): on sm_90 wgmma reads
    # both operands from shared memory; a tensor descriptor's tile is there already: no store at all
    a = C.blocked((64, 32), (1, 8), (8, 4), (4, 1), (1, 0))
    b = C.blocked((32, 64), (1, 8), (4, 8), (4, 1), (1, 0))
    assert B.staging(a, b, "fp16", 16, 4, "sm90") == (4, 0)                       # 2 + 2 st.v4
    assert B.staging(a, b, "fp16", 16, 4, "sm90", (True, False)) == (2, 0)        # B's only
    assert B.staging(a, b, "fp16", 16, 4, "sm90", (True, True)) == (0, 0)
    assert B.staging(a, b, "fp16", 16, 4, "sm80", (True, True)) == B.staging(a, b, "fp16", 16, 4, "sm80")


@triton.jit
def _desc_dot(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    a = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[M, K])
    b = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[K, N])
    rm, rn = tl.arange(0, M), tl.arange(0, N)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a.load([0, 0]), b.load([0, 0])))


def test_a_dot_of_descriptor_tiles():
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal((64, 32)).astype(np.float16), rng.standard_normal((32, 64)).astype(np.float16)
    c = np.zeros((64, 64), np.float32)
    cnt = _desc_dot[(1,)](a, b, c, M=64, N=64, K=32)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-2, atol=1e-2)
    # sm_90: 2 descriptors (1 st.shared a thread each) and the accumulator's way to the store layout;
    # no ld.shared of the tiles, no operand stores: the PTX's 10 st / 8 ld a thread, × 4 warps
    assert (cnt.shared_stores_sm90, cnt.shared_loads_sm90) == (40, 32)
    assert cnt.tma_instructions_sm90 == 2 * 4 and cnt.load_instructions_sm90 == 0


@triton.jit
def _desc_copy_two_lines(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    dst = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    tile = src.load([tl.program_id(0) * BM, 0])
    dst.store([tl.program_id(0) * BM, 0], tile)


def test_a_tile_stored_unchanged_takes_its_loads_back_on_its_own_line():
    """With lines=True, the ld.shared a desc.load counts for its tile (16×64 fp32, 4 warps: 8 floats a
    thread = 2 ld.v4, × 4 warps = 8 a program) are taken back on the load's line when the tile is stored
    unchanged: no line shows a negative count, and the rows still add up to the launch (0 loads)."""
    x = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    y = np.zeros_like(x)
    off = _desc_copy_two_lines[(4,)](x, y, 64, 64, BM=16, BN=64)
    on = _desc_copy_two_lines[(4,)](x, y, 64, 64, BM=16, BN=64, lines=True)
    np.testing.assert_array_equal(y, x)
    assert on == off and off.shared_loads_sm90 == 0
    assert len(on.by_line) >= 2  # the load's and the store's lines (and the descriptors')
    rows = [r.shared_loads_sm90 for r in on.by_line.values()]
    assert min(rows) == 0 and sum(rows) == 0, rows
    assert sum(r.shared_stores_sm90 for r in on.by_line.values()) == off.shared_stores_sm90


def _positions(lay):
    """Every element a layout's registers, lanes and warps reach (their bases combined by XOR, as LinearLayout's)."""
    seen = {tuple(0 for _ in lay.shape)}
    for b in (*lay.registers, *lay.lanes, *lay.warps):
        seen |= {tuple(p ^ q for p, q in zip(s, b)) for s in seen}
    return seen


def test_a_batched_accumulator_and_a_tall_wgmma_a_operand_hold_each_element_once():
    # batched mma.sync accumulator, 2 × 64 × 64 over 4 warps along M: registers 2 bits (column pair, row + 8), 3 along
    # N (8 → 64) and 1 along the batch; 5 lane bits; 2 warp bits (rows 16, 32): 13 bits for 2 × 64 × 64 = 2^13
    # elements, each reached once; the registers in that order: the warps' 16 × 8 tile repeats along N at 8, 16, 32
    # (8 × 1 warp), not along M (16 × 4 warps = 64 rows already), then along the batch
    acc = C._mma3(2, 64, 64, 1, 4, 1)
    assert len(acc.registers) + len(acc.lanes) + len(acc.warps) == 13 and len(_positions(acc)) == 2 * 64 * 64
    assert acc.registers == ((0, 0, 1), (0, 8, 0), (0, 0, 8), (0, 0, 16), (0, 0, 32), (1, 0, 0))
    # wgmma's A in registers, 128 × 64 fp16 over one warpgroup of 4 warps (64 rows), repeated once down M at row
    # 64: registers 6 bits (a word's pair, row + 8, 3 along K, row + 64), 5 lanes, 2 warps: 2^13 = 128 × 64
    a = C.wgmma_a_operand(128, 64, 4, 1)
    assert (64, 0) in a.registers and len(_positions(a)) == 128 * 64


def test_ideal_wavefronts_are_one_per_128_bytes_a_warp_moves():
    # a warp of 32 lanes moving a run of 4 floats each (16 B) moves 512 B: 4 wavefronts; 2 floats (8 B): 256 B, 2;
    # one float (4 B): 128 B, 1
    for per, want in ((4, 4), (2, 2), (1, 1)):
        assert B.ideal_wavefronts(C.blocked((32 * per,), (per,), (32,), (1,), (0,)), 0, 32) == want
@triton.jit
def _desc_copy_after_loads(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr, EXTRA: tl.constexpr):
    src = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    dst = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    tile = src.load([tl.program_id(0) * BM, 0])
    for _ in tl.static_range(EXTRA):
        src.load([0, 0])  # a tile read into the registers and never used
    dst.store([tl.program_id(0) * BM, 0], tile)


@pytest.mark.parametrize("extra", [0, 1, 65])
def test_a_tile_stored_unchanged_stays_in_shared_memory_whatever_was_loaded_between(extra):
    # each unused 16×64 fp32 tile: 2 ld.shared.v4 a thread × 4 warps = 8 (test_descriptors_are_tma_on_sm90); the
    # stored tile none, however many tiles came between (a table of 64 notes once forgot it after the 65th)
    x = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    y = np.zeros_like(x)
    cnt = _desc_copy_after_loads[(4,)](x, y, 64, 64, BM=16, BN=64, EXTRA=extra)
    np.testing.assert_array_equal(y, x)
    assert cnt.shared_loads_sm90 / cnt.programs == 8 * extra


