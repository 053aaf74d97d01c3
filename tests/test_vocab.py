"""One counts vocabulary (issue 16): the same quantity has the same name in both engines, every FLOP is
counted, compulsory DRAM bytes sit beside the bytes requested, and the model takes either engine's
counts and either object for a GPU."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import (
    A6000,
    H100,
    PERF_H100,
    Counts,
    TritonCounts,
    as_gpu,
    as_perf,
    cdiv,
    launch,
    occupancy,
    predict,
    roofline,
)
from kernellab.triton.executor.numerics import tf32_truncate

# these tests predict small counts on purpose: the launch-overhead warning is checked in test_model_terms.py
pytestmark = pytest.mark.filterwarnings("ignore::kernellab.errors.ModelWarning")

SHARED = ("load_requests", "load_sectors", "load_lines", "load_bytes", "store_requests", "store_sectors",
          "store_lines", "store_bytes", "requests", "sectors", "lines", "bytes", "flops", "dram_sectors",
          "dram_bytes")


# --- the same kernel in both engines --------------------------------------------------------------
def simt_axpy(blk, x, y, a, start, n):
    i = blk.bx * blk.bdx + blk.tx
    with blk.where(i < n):
        blk.store(y, start + i, blk.fma(a, blk.load(x, start + i), blk.load(y, start + i)))


@triton.jit
def triton_axpy(x_ptr, y_ptr, a, start, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + start + offs, mask=m)
    y = tl.load(y_ptr + start + offs, mask=m)
    tl.store(y_ptr + start + offs, a * x + y, mask=m)


_plain_axpy = triton.jit(triton_axpy.fn, do_not_specialize=["x_ptr", "y_ptr", "a", "start", "n"],
                         do_not_specialize_on_alignment=["x_ptr", "y_ptr", "a", "start", "n"])


def _both(n, start, block, dtype):
    rng = np.random.default_rng(n + start)
    x = rng.standard_normal(start + n).astype(dtype)
    y1 = rng.standard_normal(start + n).astype(dtype)
    ref = 2.0 * x.astype(np.float64) + y1
    ref[:start] = y1[:start]
    y2 = y1.copy()
    c_simt = launch(simt_axpy, cdiv(n, block), block, args=(x, y1, 2.0, start, n))
    # the Triton kernel with nothing known of its arguments and one warp per 32 elements: its layout is
    # then one element a thread, the block's elements row-major over the warps, as the SIMT block's threads
    c_tri = _plain_axpy[(cdiv(n, block),)](x, y2, 2.0, start, n, BLOCK=block, num_warps=block // 32)
    tol = 2e-3 if dtype == np.float16 else 1e-6
    np.testing.assert_allclose(y1, ref, rtol=tol, atol=tol)
    np.testing.assert_allclose(y2, ref, rtol=tol, atol=tol)
    return x, y1, y2, c_simt, c_tri


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 700), start=st.integers(0, 40), log_block=st.integers(5, 8),
       dtype=st.sampled_from([np.float32, np.float16]))
def test_both_engines_count_the_same_memory_under_the_same_names(n, start, log_block, dtype):
    # a block of 2^k ≥ 32 threads (SIMT) and a block of 2^k lanes (Triton) split into the same warps
    _, _, _, cs, ct = _both(n, start, 1 << log_block, dtype)
    for name in SHARED[:12]:  # requests, sectors, lines and bytes, loads and stores
        assert getattr(cs, name) == getattr(ct, name), name
    # compulsory traffic: x and y each touched once over [start, start + n) elements
    w = np.dtype(dtype).itemsize
    sectors = (start + n) * w // 32 - start * w // 32 + ((start + n) * w % 32 != 0)
    assert sorted(cs.dram_sectors.values()) == sorted(ct.dram_sectors.values()) == [sectors, sectors]
    assert cs.dram_bytes == ct.dram_bytes == 64 * sectors


def test_lines_by_hand_both_engines():
    # 64 floats from float 8 (byte 32): warp 0 bytes 32..159 → lines 0, 1; warp 1 bytes 160..287 → lines 1, 2
    _, _, _, cs, ct = _both(64, 8, 64, np.float32)
    assert (cs.load_lines, ct.load_lines) == (2 * 4, 2 * 4)  # x and y: 4 lines each
    assert (cs.store_lines, ct.store_lines) == (4, 4)
    assert ct.lines == ct.load_lines + ct.store_lines == 12
    # 64 halves from half 48 (byte 96): warp 0 bytes 96..159 → lines 0, 1; warp 1 bytes 160..223 → line 1
    _, _, _, cs, ct = _both(64, 48, 64, np.float16)
    assert (cs.store_lines, ct.store_lines) == (3, 3)


def test_flops_same_name_both_engines():
    # n = 256 = 2 blocks of 128, nothing masked: SIMT 256 FMAs = 512 FLOPs; Triton a*x (1) + y (1) per element
    _, _, _, cs, ct = _both(256, 0, 128, np.float32)
    assert cs.flops == 2 * cs.fma == 512
    assert ct.flops == 2 * 256 == 512
    # 200 elements in blocks of 128: SIMT counts active lanes (200); Triton every lane of the block (256)
    _, _, _, cs, ct = _both(200, 0, 128, np.float32)
    assert (cs.flops, ct.flops) == (400, 512)


# --- FLOPs, operation by operation ------------------------------------------------------------------
@triton.jit
def _ops(x_ptr, out_ptr, BLOCK: tl.constexpr, OP: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    if OP == "add":
        r = x + x
    elif OP == "div":
        r = x / 3.0
    elif OP == "fma":
        r = tl.fma(x, x, x)
    elif OP == "sum":
        r = x * 0 + tl.sum(x, axis=0)
    elif OP == "cmp":
        r = tl.where(x < 0.5, x, -x)
    elif OP == "exp":
        r = tl.exp(x)
    elif OP == "max":
        r = tl.maximum(x, 1.0)
    else:  # integers
        r = (tl.arange(0, BLOCK) * 3 + 1).to(tl.float32)
    tl.store(out_ptr + tl.arange(0, BLOCK), r)


@pytest.mark.parametrize(("op", "per_element"), [("add", 1), ("div", 1), ("fma", 2), ("cmp", 0), ("exp", 0),
                                                 ("max", 0), ("int", 0)])
def test_triton_flops_per_operation(op, per_element):
    x, out = np.linspace(0, 1, 64, dtype=np.float32), np.zeros(64, np.float32)
    c = _ops[(3,)](x, out, BLOCK=64, OP=op)       # 3 programs × 64 elements
    assert c.flops == 3 * 64 * per_element
    assert c.dot_flops == 0


def test_triton_sum_counts_n_minus_one_adds():
    x, out = np.linspace(0, 1, 64, dtype=np.float32), np.zeros(64, np.float32)
    c = _ops[(2,)](x, out, BLOCK=64, OP="sum")
    # per program: tl.sum 63 adds, x * 0 64 multiplies, + 64 adds
    assert c.flops == 2 * (63 + 64 + 64)
    np.testing.assert_allclose(out, x.astype(np.float64).sum(), rtol=1e-6)


@triton.jit
def _mm(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b) * 2.0)


def test_triton_dot_flops_are_in_flops():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((16, 32)).astype(np.float32), rng.standard_normal((32, 64)).astype(np.float32)
    c = np.zeros((16, 64), np.float32)
    cnt = _mm[(1,)](a, b, c, M=16, N=64, K=32)
    # fp32 dots read TF32 inputs (Triton 3.9's default): the reference multiplies the truncated inputs
    ref = tf32_truncate(a).astype(np.float64) @ tf32_truncate(b).astype(np.float64)
    np.testing.assert_allclose(c, 2 * ref, rtol=1e-4, atol=1e-4)
    assert cnt.dot_flops == 2 * 16 * 64 * 32
    assert cnt.flops == cnt.dot_flops + 16 * 64  # and the × 2.0 on each of the 16 × 64 results


def test_simt_fadd_fmul_and_count_instr_flops():
    def k(blk, x, n):
        i = blk.bx * blk.bdx + blk.tx
        with blk.where(i < n):
            v = blk.load(x, i)
            v = blk.fadd(blk.fmul(v, 2.0), -1.0)
            blk.store(x, i, v)
            blk.count_instr("fadd", 2)  # e.g. two FADDs the kernel did in numpy
    x = np.arange(50, dtype=np.float32)
    c = launch(k, 2, 32, args=(x, 50))
    np.testing.assert_array_equal(x, 2 * np.arange(50, dtype=np.float32) - 1)
    # 50 active lanes: FMUL 50, FADD 50 + 2 × 50
    assert (c.fmul, c.fadd, c.flops) == (50, 150, 200)
    assert c.instr_by_kind["fadd"] == 2 * 3 and c.instr_by_kind["fmul"] == 2  # 2 active warps (32 + 18 lanes)


# --- compulsory bytes beside requested bytes --------------------------------------------------------
@triton.jit
def _scale_rows(x_ptr, w_ptr, y_ptr, N: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, N)
    tl.store(y_ptr + row * N + offs, tl.load(x_ptr + row * N + offs) * tl.load(w_ptr + offs))


def test_weight_reread_by_every_program_is_compulsory_once():
    rows, n = 300, 64
    x, w = np.ones((rows, n), np.float32), np.full(n, 2.0, np.float32)
    y = np.zeros_like(x)
    c = _scale_rows[(rows,)](x, w, y, N=n)
    assert (y == 2).all()
    # requested: x and w by every program (2 × 300 × 256 B); compulsory: x once, w once (256 B = 8 sectors)
    assert c.load_bytes == 2 * rows * n * 4
    assert c.dram_sectors == {"x_ptr": rows * n * 4 // 32, "w_ptr": 8, "y_ptr": rows * n * 4 // 32}
    assert c.dram_bytes == (2 * rows * n + n) * 4
    assert c.bytes == c.load_bytes + c.store_bytes


def test_per_program_and_vectorised_launches_count_the_same_dram():
    x, w = np.ones((5, 32), np.float32), np.ones(32, np.float32)
    y = np.zeros_like(x)
    c1 = _scale_rows[(5,)](x, w, y, N=32)
    c2 = _scale_rows[(5,)](x, w, y, N=32, per_program=True)
    assert c1 == c2 and c1.dram_bytes == (5 * 32 * 2 + 32) * 4


# --- one access style ------------------------------------------------------------------------------
def test_attributes_on_both_and_dict_style_kept_for_triton():
    cs = Counts(gld_instr=3, gld_sectors=12, gld_lines=3, gld_bytes=384, gst_instr=1, gst_sectors=4, gst_lines=1,
                gst_bytes=128, fma=5, dram_sectors={"a": 2})
    assert (cs.load_requests, cs.load_sectors, cs.load_lines, cs.load_bytes) == (3, 12, 3, 384)
    assert (cs.requests, cs.sectors, cs.lines, cs.bytes, cs.flops, cs.dram_bytes) == (4, 16, 4, 512, 10, 64)
    ct = TritonCounts(load_requests=3, store_requests=1, load_lines=2, dram_sectors={"x": 1})
    for name in SHARED:
        assert hasattr(cs, name) and hasattr(ct, name), name
        assert ct[name] == getattr(ct, name)
    assert set(SHARED) <= set(ct.keys())
    with pytest.raises(KeyError):
        ct["gld_instr"]


def test_sums_merge_dram_sectors():
    a = TritonCounts(flops=3, load_lines=1, dram_sectors={"x": 2})
    b = TritonCounts(flops=4, dram_sectors={"x": 1, "y": 5})
    s = a + b
    assert (s.flops, s.load_lines, s.dram_sectors) == (7, 1, {"x": 3, "y": 5})


# --- the model takes either ------------------------------------------------------------------------
def test_predict_takes_triton_counts_and_either_gpu_object():
    rows, n = 300, 1024
    x, w = np.ones((rows, n), np.float32), np.ones(n, np.float32)
    c = _scale_rows[(rows,)](x, w, np.zeros_like(x), N=n)
    p1, p2 = predict(c, H100), predict(c, PERF_H100)
    assert p1 == p2
    # DRAM-bound: (2 · 300 · 1024 + 1024) × 4 B ÷ 3.35e12 B/s
    assert p1["bound"] == "DRAM"
    assert p1["time"] == pytest.approx((2 * rows * n + n) * 4 / 3.35e12)
    assert p1["flops"] == c.flops == rows * n
    r = roofline(c, H100)
    assert r.bound == "DRAM" and r.intensity == pytest.approx(c.flops / c.dram_bytes)
    assert r.time == pytest.approx(p1["t_dram"])
    assert roofline(c, H100, traffic="requested").bytes == c.bytes


def test_predict_simt_counts_any_shape_and_gemm_convenience():
    x, y = np.ones(4096, np.float32), np.ones(4096, np.float32)
    c = launch(simt_axpy, 32, 128, args=(x, y, 2.0, 0, 4096))
    p = predict(c, H100)
    assert p["flops"] == 2 * 4096 and p["bound"] == "DRAM"
    # the GEMM convenience keeps 2·n³ for gflops
    g = predict(Counts(fma=64**3, warp_instr=64**3 // 32, dram_sectors={"A": 512}), 64, PERF_H100)
    assert g["flops"] == 2 * 64**3


def test_gpu_and_perf_accepted_everywhere_with_a_clear_error_otherwise():
    assert as_perf(H100) is PERF_H100 and as_gpu(PERF_H100) is H100
    assert H100.peak_flops() == PERF_H100.peak_flops() and H100.ridge() == PERF_H100.ridge()
    assert occupancy(PERF_H100, 256).blocks_per_sm == occupancy(H100, 256).blocks_per_sm
    x = np.ones(64, np.float32)
    assert launch(simt_axpy, 1, 64, args=(x, x.copy(), 1.0, 0, 64), gpu=PERF_H100).fma == 64
    with pytest.raises(TypeError, match="expected a GPU"):
        predict(Counts(fma=1), 2.5)
    # a name is its GPU (kernellab.specs.gpu_named); an unknown one is an error that names it
    assert roofline(Counts(fma=1), A6000.name) == roofline(Counts(fma=1), A6000)
    with pytest.raises(ValueError, match="unknown GPU 'V100'"):
        predict(Counts(fma=1), "V100")
    with pytest.raises(TypeError, match="Counts or kernellab.triton.TritonCounts"):
        predict({"fma": 1}, H100)
    with pytest.raises(TypeError, match="expected a GPU"):
        roofline(Counts(fma=1), 3.0)


def test_model_errors_name_what_was_expected():
    c = Counts(fma=64, dram_sectors={"x": 1})
    with pytest.raises(ValueError, match="traffic must be 'dram' or 'requested'"):
        roofline(c, H100, traffic="l2")
    with pytest.raises(TypeError, match="roofline needs the counts of a launch"):
        roofline({"flops": 1}, H100)
    from kernellab.model import LoopShape

    with pytest.raises(TypeError, match="a LoopShape needs the GEMM size"):
        predict(c, H100, shape=LoopShape(threads=256, regs=32, smem=0, tile=(64, 64), k_step=8))
