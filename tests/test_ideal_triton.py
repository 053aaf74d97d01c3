"""Ideal sectors of mini-Triton loads and stores (totals and rows), hand-derived and against the reference.

Ideal sectors are :func:`kernellab.access.ideal_sectors` of each request: ⌈distinct bytes its active lanes
access / 32⌉. A ``@triton.jit`` access's requests are the warp instructions of its compiled layout
(:mod:`kernellab.triton.compiler.layout`), a lane moving ``vec`` elements as one access; the lecture form's are
warps of 32 lanes, one element a lane.
"""

import linecache

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import TritonCounts, triton_launch
from kernellab.access import Access, affine_ideal, ideal_sectors, packed_sectors, prefix_ideal
from kernellab.profile import (
    findings as memory_findings,  # the memory rules alone (no GPU: no launch findings)
)
from kernellab.triton.executor.policy import Policy, using

WARP = 32


def row_of(by_line, text):
    """The one row whose source line starts with ``text``."""
    keys = [k for k in by_line if linecache.getline(*k).strip().startswith(text)]
    assert len(keys) == 1, (text, [linecache.getline(*k).strip() for k in by_line])
    return by_line[keys[0]]


def by_lanes(launch):
    """``launch()`` under the reference policy: every lane's address counted through kernellab.access."""
    with using(Policy.reference()):
        return launch()


def load_store(c):
    return (c.load_requests, c.load_sectors, c.load_ideal_sectors, c.store_requests, c.store_sectors,
            c.store_ideal_sectors)


# --- the closed forms against the definition, on random patterns ---------------------------------------

@pytest.mark.parametrize("seed", range(20))
def test_prefix_and_affine_ideal_equal_ideal_sectors(seed):
    rng = np.random.default_rng(seed)
    width = int(rng.choice([1, 2, 4, 8, 16]))
    # rows of consecutive elements, a prefix active: prefix_ideal against the built record
    lanes = int(rng.integers(1, 200))
    k = rng.integers(0, lanes + 1, size=int(rng.integers(1, 6)))
    starts = rng.integers(0, 1000, size=k.size) * width
    pad = -lanes % WARP
    addr = (starts[:, None] + np.arange(lanes + pad) * width)
    act = np.arange(lanes + pad) < k[:, None]
    assert prefix_ideal(k, width) == ideal_sectors(Access(addr.reshape(-1, WARP), act.reshape(-1, WARP), width))
    # affine warps (strides 0, ±width, larger), random masks: affine_ideal against the built record
    warps = int(rng.integers(1, 50))
    stride = rng.choice([0, width, -width, 3 * width, 128], size=warps).astype(np.int64)
    first = rng.integers(200, 2000, size=warps) * width
    active = rng.random((warps, WARP)) < rng.random()
    acc = Access(first[:, None] + stride[:, None] * np.arange(WARP), active, width)
    assert affine_ideal(stride, active, width) == ideal_sectors(acc)
    full = Access(first[:, None] + stride[:, None] * np.arange(WARP), np.ones((warps, WARP), bool), width)
    assert affine_ideal(stride, None, width) == ideal_sectors(full)


def test_packed_sectors_by_hand():
    # 32 floats = 128 B: 4; 31 floats = 124 B: 4; 1 float: 1; 32 int8 = 32 B: 1; 32 × 16 B = 512 B: 16; none: 0
    assert [packed_sectors([n], w) for n, w in ((32, 4), (31, 4), (1, 4), (32, 1), (32, 16), (0, 4))] == \
        [4, 4, 1, 1, 16, 0]


@triton.jit
def _copy(x_ptr, out_ptr, n, SHIFT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs + SHIFT, mask=offs < n), mask=offs < n)


@triton.jit
def _tile(x_ptr, out_ptr, M, N, SM, SN, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    keep = (rm[:, None] < M) & (rn[None, :] < N)
    t = tl.load(x_ptr + rm[:, None] * SM + rn[None, :] * SN, mask=keep, other=0)
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], t, mask=keep)


@pytest.mark.parametrize("seed", range(16))
def test_closed_forms_count_the_ideal_sectors_of_the_lanes(seed):
    """Every closed form of count_planned (prefix rows, masked chunks, affine layouts) gives the ideal
    sectors of the lanes' addresses counted one by one; and the rows of lines=True sum to them."""
    rng = np.random.default_rng(seed)
    dtype = rng.choice([np.float32, np.float16, np.int8, np.int16])
    block = int(rng.choice([16, 64, 128, 256, 1024, 2048]))
    n = int(rng.choice([block, 4 * block, block - 1, block + 1, 3 * block + 7, int(rng.integers(1, 5000))]))
    shift = int(rng.choice([0, 1, 3, 16]))
    warps = int(rng.choice([1, 2, 4, 8]))
    x = np.arange(n + shift).astype(dtype)
    out = np.zeros(n, dtype)
    grid = (triton.cdiv(n, block),)
    c = _copy[grid](x, out, n, SHIFT=shift, BLOCK=block, num_warps=warps)
    np.testing.assert_array_equal(out, x[shift:])
    assert c == by_lanes(lambda: _copy[grid](x, out, n, SHIFT=shift, BLOCK=block, num_warps=warps))
    on = _copy[grid](x, out, n, SHIFT=shift, BLOCK=block, num_warps=warps, lines=True)
    total = on.by_line.total(TritonCounts())
    assert (total.load_ideal_sectors, total.store_ideal_sectors) == (c.load_ideal_sectors, c.store_ideal_sectors)
    assert 0 < c.load_ideal_sectors <= c.load_sectors and 0 < c.store_ideal_sectors <= c.store_sectors
    # a 2-D tile, strides random (1: the layout follows the contiguous dimension)
    M, N = int(rng.integers(1, 70)), int(rng.integers(1, 70))
    sm, sn = [(N, 1), (1, M), (2 * N, 2), (N + 3, 1)][seed % 4]
    src = np.arange(max(M * sm + N * sn, 1)).astype(dtype)
    dst = np.zeros(M * N, dtype)
    bm, bn = int(rng.choice([8, 16, 32])), int(rng.choice([8, 16, 64]))
    g2 = (triton.cdiv(M, bm), triton.cdiv(N, bn))
    c2 = _tile[g2](src, dst, M, N, sm, sn, BM=bm, BN=bn, num_warps=warps)
    np.testing.assert_array_equal(dst.reshape(M, N), src[np.arange(M)[:, None] * sm + np.arange(N)[None, :] * sn])
    assert c2 == by_lanes(lambda: _tile[g2](src, dst, M, N, sm, sn, BM=bm, BN=bn, num_warps=warps))


# --- hand-derived ---------------------------------------------------------------------------------------

def test_coalesced_fp32_load_ideal_equals_actual():
    x, out = np.arange(4096, dtype=np.float32), np.zeros(4096, np.float32)
    c = _copy[(4,)](x, out, 4096, SHIFT=0, BLOCK=1024, lines=True)
    # n = 4096 is divisible by 16 (specialised): the mask is constant over 16 elements, so each thread
    # moves 4 floats an instruction (ld.v4): 1024 / (128 threads × 4) = 2 instructions a thread, 8 a
    # program. An instruction: 32 lanes × 16 B = 512 B = 16 sectors, ideally ⌈512 / 32⌉ = 16.
    # 4 programs: 32 requests, 512 sectors, 512 ideal; the same for the store.
    assert load_store(c) == (32, 512, 512, 32, 512, 512)
    load = row_of(c.by_line, "tl.store(out_ptr + offs, tl.load")
    assert (load.load_ideal_sectors, load.store_ideal_sectors) == (512, 512)
    assert memory_findings(c) == []


@triton.jit
def _strided(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs * 2)
    tl.store(out_ptr + offs, v)


def test_stride2_load_both_forms():
    x, out = np.arange(1024, dtype=np.float32), np.zeros(512, np.float32)
    c = _strided[(1,)](x, out, BLOCK=512, lines=True)
    np.testing.assert_array_equal(out, x[::2])
    v = row_of(c.by_line, "v = tl.load")
    # jit, 4 warps: the store's pointers ask 4 floats a thread, so the load takes 4 a thread too, one an
    # instruction (offs·2 has contiguity 1): 4 instructions a thread, 16 a program. Instruction r, lane l
    # of warp w reads element 4·(32w + l) + r at byte 8·(4·(32w + l) + r) = 32·(32w + l) + 8r: every lane
    # its own sector, 32 a request; ideally 32 × 4 B = 128 B, 4 sectors.
    assert (v.load_requests, v.load_sectors, v.load_ideal_sectors) == (16, 16 * 32, 16 * 4)
    (f,) = memory_findings(c)
    # excess 16 × (32 − 4) = 448, all the load's, of 512 + 64 sectors: the store is one st.v4 a thread
    # (4 requests of 512 B, 16 sectors each, ideally 16)
    assert (f.rule, f.line, f.value) == ("uncoalesced", _line(c, "v = tl.load"), 1.0)
    assert "448 of 576 sectors; 32.0 sectors per request, ideally 4.0" in f.message

    def seed(tl, x, out, BLOCK):
        offs = tl.arange(0, BLOCK)
        tl.store(out, offs, tl.load(x, offs * 2))

    s = triton_launch(seed, 1, x, out, BLOCK=512)
    # lecture form: one float a lane, warps of 32: lane l at byte 8l, 32 lanes over 256 B = 8 sectors,
    # ideally 128 B = 4; 16 warps. The store: 4 sectors, ideally 4.
    assert load_store(s) == (16, 16 * 8, 16 * 4, 16, 16 * 4, 16 * 4)


def _line(c, text):
    return next(k[1] for k in c.by_line if linecache.getline(*k).strip().startswith(text))


@triton.jit
def _transpose(x_ptr, out_ptr, N: tl.constexpr, B: tl.constexpr):
    j = tl.arange(0, B)
    i = tl.arange(0, B)
    t = tl.load(x_ptr + j[:, None] + i[None, :] * N)      # t[j, i] = x[i, j]
    tl.store(out_ptr + j[:, None] * B + i[None, :], t)


def test_transposed_2d_load_is_coalesced_by_its_layout():
    x, out = np.arange(64 * 64, dtype=np.float32).reshape(64, 64), np.zeros((32, 32), np.float32)
    c = _transpose[(1,)](x, out, N=64, B=32, lines=True)
    np.testing.assert_array_equal(out, x[:32, :32].T)
    t = row_of(c.by_line, "t = tl.load")
    # The pointers are contiguous along dimension 0 (j), so Triton's coalescing pass orders the layout
    # (0, 1): 4 floats a thread along j, 8 threads along j (32 floats of row i), 4 along i; 4 warps along
    # i. An instruction (ld.v4): 4 rows i × 128 B = 16 sectors on 4 lines, ideally 512 B / 32 = 16. 32 × 32
    # floats / (128 threads × 4) = 2 instructions a thread, 8 in all: 128 sectors, ideal 128, 32 lines.
    assert (t.load_requests, t.load_sectors, t.load_ideal_sectors, t.load_lines) == (8, 128, 128, 32)
    st = row_of(c.by_line, "tl.store")  # the store is contiguous along i: its own layout, coalesced too
    assert (st.store_requests, st.store_sectors, st.store_ideal_sectors) == (8, 128, 128)
    assert memory_findings(c) == []


@pytest.mark.parametrize(("n", "expected"), [
    # BLOCK 128 over 4 warps: one float a thread, a warp 32 consecutive floats (4 sectors, ideally 4)
    (127, (4, 16, 16)),    # one program; warp 3 keeps 31 lanes: floats 96–126, bytes 384–507, sectors 12–15: 4;
    #                        ideally ⌈31 × 4 / 32⌉ = 4
    (129, (5, 17, 17)),    # program 0 full (4, 16, 16); program 1 keeps float 128 alone: 1 request, 1 sector, 1
    (131, (5, 17, 17)),    # program 1 keeps floats 128–130 (12 B): 1 request, 1 sector, ideally ⌈12/32⌉ = 1
    (1021, (32, 128, 128)),  # 1021 = 7 · 128 + 125: 7 full programs (28, 112, 112); the last: warps 0–2
    #                          full (12, 12), warp 3 keeps 29 lanes, bytes 3968–4083: sectors 124–127, ideally
    #                          ⌈116 / 32⌉ = 4
])
def test_masked_tail_block_plus_minus_one_and_primes(n, expected):
    x, out = np.arange(n, dtype=np.float32), np.zeros(n, np.float32)
    c = _copy[(triton.cdiv(n, 128),)](x, out, n, SHIFT=0, BLOCK=128)
    np.testing.assert_array_equal(out, x)
    assert (c.load_requests, c.load_sectors, c.load_ideal_sectors) == expected
    assert (c.store_requests, c.store_sectors, c.store_ideal_sectors) == expected


def test_masked_tail_narrows_the_vector_to_one_element():
    n = 1021  # prime: not divisible by 16, so the mask may change at every element
    x, out = np.arange(n, dtype=np.float32), np.zeros(n, np.float32)
    c = _copy[(1,)](x, out, n, SHIFT=0, BLOCK=1024, lines=True)
    # BLOCK 1024: 4 floats a thread (8 a thread would do, 16 B is the most), but the mask keeps an
    # instruction to 1 float: 4 × 2 = 8 instructions a thread, 32 a program. Instruction r, lane l reads
    # float 4t + r (t = 32w + l), the lanes 16 B apart: 32 lanes span 512 B = 16 sectors, ideally 128 B = 4.
    # Only floats 1021–1023 are masked off: lane 31 of warp 3 in its last three instructions (r = 1, 2, 3
    # of its second register group, floats 512 + 4·127 + r). Those requests keep 31 lanes, ⌈31 × 4 / 32⌉ =
    # 4 ideal sectors still, and 16 sectors (lane 30 alone in its sector): 32 × 4 ideal, 32 × 16 sectors.
    assert (c.load_requests, c.load_sectors, c.load_ideal_sectors) == (32, 32 * 16, 32 * 4)
    (f,) = memory_findings(c)
    assert "16.0 sectors per request, ideally 4.0" in f.message


@pytest.mark.parametrize(("dtype", "block", "n", "expected"), [
    # fp16, aligned: 8 halves = 16 B a lane (1024 / 128 threads = 8): one instruction a thread, 4 a program,
    # 32 × 16 B = 512 B: 16 sectors, ideally 16
    (np.float16, 1024, 1024, (4, 64, 64)),
    # fp16, n = 1023: one half an instruction, 8 a thread: 32 requests of lanes 16 B apart (512 B: 16
    # sectors), ideally 32 × 2 B = 64 B = 2 sectors; the last request keeps 31 lanes: ⌈62 / 32⌉ = 2
    (np.float16, 1024, 1023, (32, 512, 64)),
    # int8, aligned: 16 bytes a lane (2048 / 128 = 16): 4 instructions of 512 B, 16 sectors each
    (np.int8, 2048, 2048, (4, 64, 64)),
    # int8, n = 2047: one byte an instruction, 16 a thread: 64 requests of lanes 16 B apart: 16 sectors each,
    # ideally 32 B = 1 sector
    (np.int8, 2048, 2047, (64, 1024, 64)),
])
def test_fp16_and_int8_widths(dtype, block, n, expected):
    x, out = (np.arange(n) % 100).astype(dtype), np.zeros(n, dtype)
    c = _copy[(1,)](x, out, n, SHIFT=0, BLOCK=block)
    np.testing.assert_array_equal(out, x)
    assert (c.load_requests, c.load_sectors, c.load_ideal_sectors) == expected
    assert c == by_lanes(lambda: _copy[(1,)](x, out, n, SHIFT=0, BLOCK=block))


@triton.jit
def _column_sums(x_ptr, out_ptr, M, N, BLOCK: tl.constexpr):
    col = tl.program_id(0)
    rows = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + rows * N + col, mask=rows < M, other=0.0)   # one column of a row-major matrix
    tl.store(out_ptr + col, tl.sum(v))


def test_uncoalesced_finding_names_the_column_load():
    M, N = 64, 48
    x, out = np.random.default_rng(0).standard_normal((M, N)).astype(np.float32), np.zeros(N, np.float32)
    c = _column_sums[(N,)](x, out, M, N, BLOCK=64, lines=True)
    np.testing.assert_allclose(out, x.astype(np.float64).sum(axis=0), rtol=1e-5, atol=1e-5)
    v = row_of(c.by_line, "v = tl.load")
    # a block of 64 over 4 warps: one row a thread, warps 2–3 holding copies of warps 0–1: 4 requests a
    # program. A lane reads row r's float at byte 4·(r·48 + col): lanes 192 B apart, 32 sectors a request,
    # ideally 32 × 4 B = 4. 48 programs: 192 requests, 6144 sectors, 768 ideal: 5376 excess.
    assert (v.load_requests, v.load_sectors, v.load_ideal_sectors) == (192, 6144, 768)
    # the scalar store: one request a program, one sector, ideally one
    st = row_of(c.by_line, "tl.store")
    assert (st.store_requests, st.store_sectors, st.store_ideal_sectors) == (48, 48, 48)
    (f,) = memory_findings(c)
    assert (f.rule, f.line) == ("uncoalesced", _line(c, "v = tl.load")) and f.value == 1.0
    assert str(f) == (f"uncoalesced global accesses: line {f.line} causes 100 % of the excess sectors (5376 of 6192 "
                      "sectors; 32.0 sectors per request, ideally 4.0)")
    text = str(c.report())
    assert "Excess sectors %" in text and "86.8 %" in text  # 5376 / 6192
    # without lines=True the finding speaks of the kernel as a whole
    (whole,) = memory_findings(_column_sums[(N,)](x, out, M, N, BLOCK=64))
    assert whole.line is None and "87 % of the 6192 sectors are excess, ideally 816" in whole.message


# --- DRAM bytes per line ----------------------------------------------------------------------------------

@triton.jit
def _in_place(x_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(x_ptr + offs)
    tl.store(x_ptr + offs, a * 2)


def test_dram_sectors_go_to_the_line_that_touches_them_first():
    x = np.arange(4096, dtype=np.float32)
    c = _in_place[(4,)](x, BLOCK=1024, lines=True)
    np.testing.assert_array_equal(x, 2 * np.arange(4096, dtype=np.float32))
    load, store = row_of(c.by_line, "a = tl.load"), row_of(c.by_line, "tl.store")
    # 4096 floats = 16384 B = 512 sectors, read by the load line first; the store writes them again: none new
    assert load.dram_sectors == {"x_ptr": 512} and store.dram_sectors.get("x_ptr", 0) == 0
    assert c.dram_sectors == {"x_ptr": 512} and load.dram_bytes == 512 * 32
    assert "DRAM bytes" in str(c.source())


@triton.jit
def _diverge(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(x_ptr + offs)
    if pid % 2 == 0:  # Python control flow on the program id: a vectorised step diverges here, is undone
        a = a + tl.load(y_ptr + offs)
    tl.store(out_ptr + offs, a)


@pytest.mark.parametrize("vectorize", [True, False])
def test_dram_rows_of_an_undone_step_are_charged_again(vectorize):
    x, y = np.ones(6 * 64, np.float32), np.full(6 * 64, 2.0, np.float32)
    out = np.zeros_like(x)
    c = _diverge[(6,)](x, y, out, BLOCK=64, lines=True, vectorize=vectorize)
    np.testing.assert_array_equal(out, np.tile(np.repeat([3.0, 1.0], 64), 3))
    # the step of 6 programs loads x, then diverges and reruns program by program: its first touches are
    # unmarked with it. x: 384 floats = 48 sectors; y: programs 0, 2, 4, 64 floats = 8 sectors each: 24
    assert row_of(c.by_line, "a = tl.load").dram_sectors == {"x_ptr": 48}
    assert row_of(c.by_line, "a = a + tl.load").dram_sectors == {"y_ptr": 24}
    assert row_of(c.by_line, "tl.store").dram_sectors == {"out_ptr": 48}
    assert c.dram_sectors == {"x_ptr": 48, "y_ptr": 24, "out_ptr": 48}


def test_lecture_form_rows_carry_dram_and_ideal_sectors():
    def seed(tl, x, y, n, BLOCK):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        v = tl.load(x, offs * 2, mask=offs < n)
        tl.store(y, offs, v, mask=offs < n)

    n = 100
    x, y = np.arange(2 * n, dtype=np.float32), np.zeros(n, np.float32)
    c = triton_launch(seed, 2, x, y, n, BLOCK=64, lines=True)
    np.testing.assert_array_equal(y, x[::2])
    v = row_of(c.by_line, "v = tl.load")
    # floats 0, 2, …, 198 of x: lane l at byte 8l. Program 0: 2 warps of 256 B, 8 sectors each, ideally 4;
    # program 1 keeps 36 lanes: a full warp (8, 4) and 4 lanes, bytes 768–792: 1 sector, ideally ⌈16/32⌉ = 1
    assert (v.load_requests, v.load_sectors, v.load_ideal_sectors) == (4, 25, 13)
    # DRAM: every sector of x's first 199 floats (796 B): 25 sectors, the load line's
    assert v.dram_sectors == {"x": 25}


def test_first_touch_rollback_restores_exactly_what_a_step_marked():
    from kernellab.triton.executor.counts import Touched

    x = np.zeros(256, np.float32)  # 8 floats a sector
    t = Touched(first_touch=True)
    assert t.mark_run("x", x, 0, 16) == 2  # floats 0–15: sectors 0–1, both new
    mark = t.checkpoint()
    assert t.mark_run("x", x, 8, 32) == 3  # floats 8–39: sectors 1–4, sector 1 already marked
    assert t.mark_rows("x", x, [64, 60], [8, 8]) == 2  # floats 64–71 (sector 8), 60–67 (sectors 7, 8)
    assert t.mark("x", x, np.array([[200, 201, 33]]), None) == 1  # sector 25 new; sector 4 marked above
    assert t.sectors() == {"x": 8}
    t.rollback(mark)  # back to sectors 0–1: the partly new run restores sector 1 as it was (marked)
    assert t.sectors() == {"x": 2}
    assert t.mark_run("x", x, 8, 32) == 3 and t.mark_run("x", x, 0, 8) == 0
