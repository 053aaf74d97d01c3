"""Counts per source line (``lines=True``): hand-derived rows, and rows that sum to the launch's totals."""

import linecache
from dataclasses import fields, replace

import numpy as np
import pytest

import kernellab as kl
import kernellab.record
import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import KERNELS, Counts, TritonCounts, launch, run_kernel, triton_launch
from kernellab.lines import LineFinder

from . import triton_kernels as K


def row_of(by_line, text):
    """The one row whose source line starts with ``text``."""
    keys = [k for k in by_line if linecache.getline(*k).strip().startswith(text)]
    assert len(keys) == 1, (text, [linecache.getline(*k).strip() for k in by_line])
    return by_line[keys[0]]


def assert_rows_sum(on, off):
    """``on`` (lines=True) equals ``off`` (lines=False), and its rows add up to it on every line field."""
    assert on == off
    # atomic_same_address is a maximum over addresses, not a sum: the launch's lies between the largest
    # row's and the rows' sum (two lines updating one address add up)
    rows = [r.atomic_same_address for r in on.by_line.values()]
    assert max(rows, default=0) <= off.atomic_same_address <= sum(rows)
    if isinstance(off, Counts):
        total = on.by_line.total(Counts(shape=off.shape))
        assert replace(total, atomic_same_address=off.atomic_same_address) == off  # every other field too
    else:
        total = on.by_line.total(TritonCounts())
        for f in fields(TritonCounts):
            if f.name not in ("programs", "per_program", "by_line", "atomic_same_address", "launch", "specialization"):
                assert getattr(total, f.name) == getattr(off, f.name), f.name  # the others are launch-level
        # DRAM: each sector charged to the line that touched it first, so the rows' sectors add up to the union
        assert {k: v for k, v in total.dram_sectors.items() if v} == off.dram_sectors
    assert len(on.by_line) >= 1


# --- SIMT ------------------------------------------------------------------------------------------

def test_naive_sgemm_a_line_32_sectors_a_request_b_line_1():
    M = N = 32
    Kd = 8
    A = np.random.default_rng(0).standard_normal((M, Kd)).astype(np.float32)
    B = np.random.default_rng(1).standard_normal((Kd, N)).astype(np.float32)
    C, c = run_kernel(KERNELS[0], A, B, lines=True)
    np.testing.assert_allclose(C, A.astype(np.float64) @ B, rtol=1e-5, atol=1e-5)
    a, b = row_of(c.by_line, "a = blk.load(A"), row_of(c.by_line, "b = blk.load(B")
    # block (32, 32): 32 warps, a warp is 32 values of x (threadIdx.x) at one y; K = 8 passes.
    # A[x·K + i]: lanes 8 floats = 32 B apart, one sector each: 32 sectors a request, ideal 32·4 B = 4.
    assert (a.gld_instr, a.gld_sectors, a.gld_ideal_sectors) == (32 * 8, 32 * 8 * 32, 32 * 8 * 4)
    # B[y + i·N]: the same float for the whole warp: 1 sector a request, ideally 1.
    assert (b.gld_instr, b.gld_sectors, b.gld_ideal_sectors) == (32 * 8, 32 * 8, 32 * 8)
    # DRAM: all of A (32·8·4 B = 32 sectors) and all of B (32 sectors), each charged to its line
    assert a.dram_sectors == {"A": 32} and b.dram_sectors == {"B": 32}
    # the FMA line: 1024 threads × 8 FMAs; the store line: 32 warps, 1 request each, 32 × 32 floats of C
    fma = row_of(c.by_line, "acc = blk.fma(a, b, acc)")
    assert fma.fma == 1024 * 8 and fma.gld_instr == 0
    st = row_of(c.by_line, "blk.store(C")
    assert (st.gst_instr, st.gst_sectors, st.dram_sectors) == (32, 32 * 32, {"C": 32 * 32 * 4 // 32})


def test_coalesced_sgemm_b_line_4_sectors_a_request():
    M = N = 32
    Kd = 4
    A, B = np.ones((M, Kd), np.float32), np.ones((Kd, N), np.float32)
    _, c = run_kernel(KERNELS[1], A, B, lines=True)
    # block 1024 threads, one block: 32 warps × 4 passes; a warp is one row, 32 consecutive columns
    a, b = row_of(c.by_line, "a = blk.load(A"), row_of(c.by_line, "b = blk.load(B")
    assert (a.gld_instr, a.gld_sectors) == (128, 128)  # A[row·K + i]: one float for the warp
    assert (b.gld_instr, b.gld_sectors, b.gld_ideal_sectors) == (128, 4 * 128, 4 * 128)  # 128 B: 4 sectors


@pytest.mark.parametrize("k", range(10))
def test_sgemm_k1_to_k10_rows_sum_to_totals(k):
    spec = KERNELS[k]
    M, N, Kd = (64, 64, 64) if k < 3 else (128, 128, 64) if k < 5 else (128, 128, 32)
    rng = np.random.default_rng(k)
    A = rng.standard_normal((M, Kd)).astype(np.float32)
    B = rng.standard_normal((Kd, N)).astype(np.float32)
    C0, off = run_kernel(spec, A, B)
    C1, on = run_kernel(spec, A, B, lines=True)
    np.testing.assert_array_equal(C0, C1)
    assert_rows_sum(on, off)
    # the loads sit on lines of the kernel's own source (or its helpers' in the same file)
    assert all(file == spec.kernel.__code__.co_filename for file, _ in on.by_line)


def axpy(blk, x, y, out, a, n):  # the quick start's first kernel
    i = blk.bx * blk.bdx + blk.tx
    with blk.where(i < n):
        blk.store(out, i, blk.fma(a, blk.load(x, i), blk.load(y, i)))


def _helper_sum(blk, s, v):
    blk.store(s, blk.tx, v)  # a device function in the kernel's file: its own row


def shared_kernel(blk, x, out):
    s = blk.shared(64, np.float32, name="s")
    v = blk.load(x, blk.tx)
    _helper_sum(blk, s, v)
    blk.syncthreads()
    out_v = blk.load(s, (blk.tx * 2) % 64)  # 2-way conflicts
    blk.store(out, blk.tx, out_v)


def test_quickstart_axpy_and_a_helper_rows():
    n = 1000
    x, y = np.ones(n, np.float32), np.arange(n, dtype=np.float32)
    off = launch(axpy, 4, 256, args=(x, y, np.zeros(n, np.float32), 2.0, n))
    on = launch(axpy, 4, 256, args=(x, y, np.zeros(n, np.float32), 2.0, n), lines=True)
    assert_rows_sum(on, off)
    row = row_of(on.by_line, "blk.store(out, i, blk.fma")
    # 1000 active lanes over 32 warps (the last block: 232 of 256): 2 loads, 1 store, 1 FMA each, and the
    # 64-bit address of each access (an IMAD.WIDE, counted automatically): 7 instructions a lane
    assert (row.gld_instr, row.gst_instr, row.fma, row.thread_instr) == (2 * 32, 32, 1000, 7 * 1000)
    assert row.dram_sectors == {"x": 125, "y": 125, "out": 125}  # 4000 B each = 125 sectors
    x = np.arange(64, dtype=np.float32)
    off = launch(shared_kernel, 1, 64, args=(x, np.zeros(64, np.float32)))
    on = launch(shared_kernel, 1, 64, args=(x, np.zeros(64, np.float32)), lines=True)
    assert_rows_sum(on, off)
    helper = row_of(on.by_line, "blk.store(s, blk.tx, v)")
    assert helper.shst_instr == 2 and helper.shst_wavefronts == 2  # 2 warps, 32 banks each: 1 wavefront
    site = [k for k in on.by_line.sites[next(k for k in on.by_line if on.by_line[k] is helper)]]
    assert [linecache.getline(*s).strip() for s in site] == ["_helper_sum(blk, s, v)"]
    conflict = row_of(on.by_line, "out_v = blk.load(s,")
    # lanes 0–15 hit banks 0, 2, …, 30 and lanes 16–31 the same banks again: 2 wavefronts a warp, ideal 1
    assert (conflict.shld_wavefronts, conflict.shld_ideal, conflict.shld_conflicts) == (4, 2, 2)
    assert row_of(on.by_line, "blk.syncthreads()").barriers == 1


def test_a_loop_adds_up_per_line():
    def loop(blk, x, out):
        acc = np.zeros(blk.n_threads, np.float32)
        for k in range(5):
            acc = blk.fadd(acc, blk.load(x, blk.tx + 32 * k))
        blk.store(out, blk.tx, acc)

    x = np.ones(160, np.float32)
    c = launch(loop, 1, 32, args=(x, np.zeros(32, np.float32)), lines=True)
    row = row_of(c.by_line, "acc = blk.fadd(acc, blk.load(x")
    assert (row.gld_instr, row.fadd, row.dram_sectors) == (5, 5 * 32, {"x": 20})  # 5 × 128 B = 20 sectors


def test_unreadable_source_one_row_with_a_note():
    x = np.ones(32, np.float32)
    c = launch(lambda blk, x: blk.load(x, blk.tx), 1, 32, args=(x,), lines=True)
    assert len(c.by_line) == 1 and "lambda" in c.by_line.note
    scope = {}
    exec("def gen(blk, x):\n    blk.load(x, blk.tx)\n    blk.load(x, blk.tx)\n", scope)
    c = launch(scope["gen"], 1, 32, args=(x,), lines=True)
    assert len(c.by_line) == 1 and c.by_line.note and next(iter(c.by_line.values())).gld_instr == 2
    nothing = LineFinder(object())  # no Python code at all: a note, and no line of its own (0)
    assert nothing.note and (nothing.first, nothing.last, nothing.whole) == (0, 0, ("<unknown>", 0))


def test_lines_off_is_the_default():
    x = np.ones(32, np.float32)
    assert launch(axpy, 1, 32, args=(x, x, np.zeros(32, np.float32), 1.0, 32)).by_line is None


# --- mini-Triton ------------------------------------------------------------------------------------

@triton.jit
def _twice(p, offs, mask):
    return tl.load(p + offs, mask=mask) * 2.0


@triton.jit
def helper_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = _twice(x_ptr, offs, mask)
    b = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a + b, mask=mask)


@pytest.mark.parametrize("vectorize", [True, False])
def test_triton_helper_lines_with_call_site(vectorize):
    n = 1000
    x = np.arange(n, dtype=np.float32)
    out = np.empty_like(x)
    c = helper_kernel[(16,)](x, x, out, n, BLOCK=64, lines=True, vectorize=vectorize)
    assert_rows_sum(c, helper_kernel[(16,)](x, x, out, n, BLOCK=64, vectorize=vectorize))
    inner = row_of(c.by_line, "return tl.load(p + offs")
    # 16 programs × 64 lanes: 1000 active floats = 4000 B; 1024 multiplies; 4 warps a program load (a
    # block of 64 over 4 warps: warps 2 and 3 hold copies of warps 0 and 1's elements, compiled: copy_small)
    assert (inner.loads, inner.load_bytes, inner.load_requests, inner.flops) == (16, 4000, 64, 1024)
    key = next(k for k in c.by_line if c.by_line[k] is inner)
    assert [linecache.getline(*s).strip() for s in c.by_line.sites[key]] == ["a = _twice(x_ptr, offs, mask)"]
    assert row_of(c.by_line, "tl.store(out_ptr").flops == 1024  # a + b


def test_triton_gallery_and_tutorial_kernels_rows_sum():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((7, 100)).astype(np.float32)
    y = np.empty_like(x)
    soft = [K.softmax_kernel[(7,)](y, x, 100, 100, 100, BLOCK_SIZE=128, lines=lines) for lines in (False, True)]
    assert_rows_sum(soft[1], soft[0])
    a = rng.standard_normal((40, 33)).astype(np.float16)
    b = rng.standard_normal((33, 50)).astype(np.float16)
    cs = []
    for lines in (False, True):
        cc = np.empty((40, 50), np.float16)
        cs.append(K.matmul_kernel[(4,)](a, b, cc, 40, 50, 33, 33, 1, 50, 1, 50, 1, BLOCK_SIZE_M=32, BLOCK_SIZE_N=32,
                                        BLOCK_SIZE_K=32, GROUP_SIZE_M=4, ACTIVATION="leaky_relu", lines=lines))
    assert_rows_sum(cs[1], cs[0])
    assert row_of(cs[1].by_line, "accumulator = tl.dot(").dot_flops == cs[0].dot_flops
    xi = rng.integers(0, 16, 1000).astype(np.int32)
    res = []
    for lines in (False, True):
        bins = np.zeros(32, np.int32)
        res.append(K.histogram_kernel[(8,)](xi, bins, 1000, NUM_BINS=16, BLOCK=128, lines=lines))
    assert_rows_sum(res[1], res[0])
    assert sum(r.atomics for r in res[1].by_line.values()) == res[0].atomics > 0


def test_undone_batch_keeps_only_the_rerun_rows():
    # branchy_kernel's programs take different Python paths: the vectorised step is undone and rerun
    # program by program; the rows must be those of the rerun alone (as the totals are)
    x = np.arange(100, dtype=np.float32)
    on = K.branchy_kernel[(4,)](x, np.zeros_like(x), 100, BLOCK=32, lines=True)
    one = K.branchy_kernel[(4,)](x, np.zeros_like(x), 100, BLOCK=32, vectorize=False, lines=True)
    assert_rows_sum(on, K.branchy_kernel[(4,)](x, np.zeros_like(x), 100, BLOCK=32))
    assert dict(on.by_line) == dict(one.by_line)


def copy_seed(tl, x, y, n, BLOCK):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x, offs, mask=offs < n)
    tl.store(y, offs, v, mask=offs < n)


@pytest.mark.parametrize("per_program", [False, True])
def test_lecture_form_rows(per_program):
    x = np.arange(1000, dtype=np.float32)
    on = triton_launch(copy_seed, 16, x, np.zeros_like(x), 1000, BLOCK=64, lines=True, per_program=per_program)
    assert_rows_sum(on, triton_launch(copy_seed, 16, x, np.zeros_like(x), 1000, BLOCK=64))
    load = row_of(on.by_line, "v = tl.load(x")
    assert (load.loads, load.load_bytes, load.stores) == (16, 4000, 0)  # 1000 floats
    assert row_of(on.by_line, "tl.store(y").store_bytes == 4000


def test_recording_lines_and_launches():
    x = np.ones(64, np.float32)
    with kl.record.recording(lines=True) as launches:
        launch(axpy, 1, 64, args=(x, x, np.zeros(64, np.float32), 1.0, 64))
        triton_launch(copy_seed, 1, x, np.zeros_like(x), 64, BLOCK=64)
    assert [(r.name, r.engine, r.grid) for r in launches] == [("axpy", "simt", (1, 1, 1)),
                                                               ("copy_seed", "triton", (1, 1, 1))]
    assert all(r.counts.by_line is not None for r in launches)
    assert launch(axpy, 1, 64, args=(x, x, np.zeros(64, np.float32), 1.0, 64)).by_line is None  # recording over


@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):  # the quick start's Triton kernel
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a * x + y, mask=mask)


def test_quickstart_triton_axpy_rows_sum():
    n = 10_000
    x, y = np.ones(n, np.float32), np.arange(n, dtype=np.float32)
    grid = (triton.cdiv(n, 1024),)
    off = axpy_kernel[grid](x, y, np.zeros(n, np.float32), 2.0, n, BLOCK=1024)
    on = axpy_kernel[grid](x, y, np.zeros(n, np.float32), 2.0, n, BLOCK=1024, lines=True)
    assert_rows_sum(on, off)
    # 10 programs × 1024 lanes compute a·x + y: 2 FLOPs each, masked lanes too; 10 000 floats loaded per line
    assert row_of(on.by_line, "tl.store(out_ptr").flops == 10 * 1024 * 2
    assert row_of(on.by_line, "x = tl.load").load_bytes == row_of(on.by_line, "y = tl.load").load_bytes == 4 * n


def test_sampled_launch_rows_sum_to_its_scaled_totals():
    """A sampled launch (benchmarks, kernellab.triton.executor.sampling) scales its totals; its rows scale with them.

    The softmax runs 8 of its 37 rows: every count is scaled by 37/8 = 4.625 and rounded once for the launch,
    so each line's share is rounded to add up to that total (one program's 100 floats, 400 bytes, load and
    store: 8 × 400 × 4.625 = 14800 load bytes, split between the lines that load).
    """
    from kernellab.triton.executor import sampling
    rng = np.random.default_rng(1)
    x = rng.standard_normal((37, 100)).astype(np.float32)
    runs = []
    for lines in (False, True):
        y = np.empty_like(x)
        with sampling.sampled(programs=8):
            runs.append(K.softmax_kernel[(37,)](y, x, 100, 100, 100, BLOCK_SIZE=128, lines=lines))
    off, on = runs
    assert off.programs == 37 and off.load_bytes == 14800  # 37 rows of 400 bytes, from 8 of them scaled
    assert_rows_sum(on, off)


@triton.jit
def _two_masked_loads(x_ptr, y_ptr, out_ptr, n_x, n_y, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n_x, other=0)
    y = tl.load(y_ptr + offs, mask=offs < n_y, other=0)
    tl.store(out_ptr + offs, x + y, mask=offs < n_x)


def test_sampled_rows_give_the_rounding_remainder_to_the_largest_remainder():
    """A sampled launch's line rows are each scaled and rounded so that they add up to the scaled total:
    the units the rounding down leaves go to the rows whose remainders are largest.

    11 programs of 128 int8 lanes, 4 sampled: programs 1, 4, 6 and 9 (strata of 2.75 ids), scale 11 / 4 =
    2.75. Program 9 keeps 3 lanes of x and 1 of y (n_x = 9·128 + 3, n_y = 9·128 + 1). Sampled load bytes:
    x 3·128 + 3 = 387, y 3·128 + 1 = 385; the launch's 772 × 2.75 = 2123. The rows: x 387 × 2.75 = 1064.25,
    y 385 × 2.75 = 1058.75, rounded down 1064 + 1058 = 2122: the one byte left goes to y, the second row
    (remainder 0.75 > 0.25), so x 1064, y 1059. The store (masked as x) has the launch's 1064.25 → 1064 alone.
    """
    from kernellab.triton.executor import sampling
    x = np.ones(11 * 128, np.int8)
    with sampling.sampled(programs=4):
        c = _two_masked_loads[(11,)](x, x.copy(), np.zeros_like(x), 9 * 128 + 3, 9 * 128 + 1, BLOCK=128, lines=True)
    assert (c.programs, c.load_bytes, c.store_bytes) == (11, 2123, 1064)
    lx, ly = row_of(c.by_line, "x = tl.load"), row_of(c.by_line, "y = tl.load")
    assert (lx.load_bytes, ly.load_bytes) == (1064, 1059)
    assert row_of(c.by_line, "tl.store(out_ptr").store_bytes == 1064
    assert lx.loads == ly.loads == 11  # one tl.load a program: 4 sampled × 2.75


def _copy_lanes(blk, x, y):
    v = blk.load(x, blk.tx)
    blk.store(y, blk.tx, v)


class _Callable:
    def __call__(self, blk, x, y):
        _copy_lanes(blk, x, y)

    def method(self, blk, x, y):
        v = blk.load(x, blk.tx)
        blk.store(y, blk.tx, v)


def test_lines_of_a_kernel_given_as_a_partial_a_method_or_a_callable_object():
    import functools

    x, y = np.arange(32, dtype=np.float32), np.zeros(32, np.float32)
    for kernel in (functools.partial(_copy_lanes, y=y), _Callable().method):
        args = (x,) if isinstance(kernel, functools.partial) else (x, y)
        c = launch(kernel, 1, 32, args=args, lines=True)
        assert y.tolist() == x.tolist() and c.by_line.note is None
        load = row_of(c.by_line, "v = blk.load(x, blk.tx)")
        assert (load.gld_instr, load.dram_sectors) == (1, {"x": 4})  # one warp, 128 B: 4 sectors
        line = next(key for key in c.by_line if c.by_line[key] is load)[1]
        assert c.by_line[line] is load  # a line number of the kernel's own file
        assert c.by_line.line((c.by_line.file, line)) == "v = blk.load(x, blk.tx)"
        assert repr(c.by_line) == f"<ByLine {c.by_line.kernel}: 2 lines>"
    assert LineFinder(_Callable()).root is _Callable.__call__.__code__  # a callable object: its __call__
    c = launch(_Callable(), 1, 32, args=(x, y), lines=True)
    assert row_of(c.by_line, "v = blk.load(x, blk.tx)").gld_instr == 1  # the helper's row, called from __call__
    assert c.by_line.text((c.by_line.file, 10**6)) == ""  # no such line


@triton.jit
def _kernel_calling_another_file(x_ptr, out_ptr):
    offs = tl.arange(0, 32)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, K._add_combine(x, x))  # a @triton.jit helper of another file: the sum counted there


def test_rows_in_source_order_the_kernel_s_own_file_first():
    x = np.ones(32, np.float32)
    out = np.zeros(32, np.float32)
    c = _kernel_calling_another_file[(1,)](x, out, lines=True)
    assert (out == 2).all()
    files = [key[0] for key in c.by_line]
    assert files[0] == c.by_line.file and files[-1] == K.__file__  # the kernel's rows, then the helper's
    own = [key[1] for key in c.by_line if key[0] == c.by_line.file]
    assert own == sorted(own) and row_of(c.by_line, "return a + b").flops == 32


def test_a_kernel_wrapped_many_times_and_a_wrapper_that_wraps_itself():
    import functools

    kernel = _copy_lanes
    for _ in range(12):
        kernel = functools.partial(kernel)  # as deep as one likes: the function is found
    assert LineFinder(kernel).root is _copy_lanes.__code__

    class Loop:
        def __init__(self):
            self.fn = self  # a kernel whose function is itself: no Python code of its own

    assert LineFinder(Loop()).note == "no Python source: one row for the whole kernel"


def test_a_helpers_line_keeps_the_text_it_had_when_the_launch_returned(tmp_path):
    # a @triton.jit helper of another file has its own row (its file, its line); its text is read when the launch
    # returns, so editing the file afterwards (a notebook re-running a cell that rewrites it) changes nothing
    import importlib.util

    path = tmp_path / "helper_of_another_file.py"
    path.write_text("import kernellab.triton as triton\n\n\n@triton.jit\ndef twice(x):\n    return x * 2.0\n")
    spec = importlib.util.spec_from_file_location("helper_of_another_file", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)

    @triton.jit
    def k(x_ptr, y_ptr):
        offs = tl.arange(0, 32)
        tl.store(y_ptr + offs, mod.twice(tl.load(x_ptr + offs)))

    y = np.zeros(32, np.float32)
    c = k[(1,)](np.ones(32, np.float32), y, lines=True)
    assert (y == 2).all() and (str(path), 6) in list(c.by_line)
    path.write_text("# rewritten\n" * 8)
    linecache.checkcache()
    assert c.by_line.line((str(path), 6)) == "return x * 2.0"


def test_a_kernels_lines_keep_the_text_of_the_code_that_ran(tmp_path):
    # the kernel's source is read once per code object (its first launch): launched again after its file was
    # rewritten (a notebook re-running a cell that rewrites it, the module not reloaded), its rows show the code
    # that runs, not the file's new text. Lines: 5 the decorator, 6 def, 7 offs, 8 the store
    import importlib.util

    path = tmp_path / "kernel_of_another_file.py"
    path.write_text("import kernellab.triton as triton\nimport kernellab.triton.language as tl\n\n\n@triton.jit\n"
                    "def k(x_ptr, y_ptr):\n    offs = tl.arange(0, 32)\n"
                    "    tl.store(y_ptr + offs, tl.load(x_ptr + offs) * 2.0)\n")
    spec = importlib.util.spec_from_file_location("kernel_of_another_file", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    x, y = np.ones(32, np.float32), np.zeros(32, np.float32)
    mod.k[(1,)](x, y, lines=True)
    path.write_text("# rewritten\n" * 9)
    linecache.checkcache()
    x[:] = 3  # other values: a launch of its own
    c = mod.k[(1,)](x, y, lines=True)
    assert (y == 6).all()
    assert [c.by_line.line((str(path), n)) for n in (7, 8)] == [
        "offs = tl.arange(0, 32)", "tl.store(y_ptr + offs, tl.load(x_ptr + offs) * 2.0)"]


def test_a_finders_name_is_the_one_given_else_the_kernels_else_its_functions():
    def body(blk):
        return None

    class Kernel:  # a callable object: no __name__ of its own, its function's is "__call__"
        def __call__(self, blk):
            return body(blk)

    assert LineFinder(body, name="shown as").name == "shown as"  # a name given wins over the kernel's
    assert LineFinder(body).name == "body" and LineFinder(Kernel()).name == "__call__"


def test_the_kernels_own_rows_come_first_then_other_files(tmp_path):
    # a kernel in b_kernel.py calling a helper of a_helper.py, which sorts first by path: the kernel's rows
    # first, in line order (7 the load, 8 the store), then the helper's line (5, its multiply)
    import importlib.util
    import sys

    (tmp_path / "a_helper.py").write_text("import kernellab.triton as triton\n\n@triton.jit\ndef twice(x):\n"
                                          "    return x * 2.0\n")
    (tmp_path / "b_kernel.py").write_text("import kernellab.triton as triton\nimport kernellab.triton.language as tl\n"
                                          "from a_helper import twice\n\n@triton.jit\ndef k(x_ptr, y_ptr):\n"
                                          "    x = tl.load(x_ptr + tl.arange(0, 32))\n    tl.store(y_ptr + tl.arange(0, 32), twice(x))\n")
    sys.path.insert(0, str(tmp_path))
    try:
        spec = importlib.util.spec_from_file_location("b_kernel", tmp_path / "b_kernel.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("a_helper", None)
    y = np.zeros(32, np.float32)
    c = mod.k[(1,)](np.ones(32, np.float32), y, lines=True)
    assert (y == 2).all()
    assert list(c.by_line) == [(str(tmp_path / "b_kernel.py"), 7), (str(tmp_path / "b_kernel.py"), 8),
                               (str(tmp_path / "a_helper.py"), 5)]


def _loads_a_lane(scale):
    """A factory of kernels: every kernel it makes is a closure of one code object."""
    def kernel(blk, x):
        blk.load(x, blk.tx * scale)
    return kernel


def _loop_to_report(blk, x):
    for k in range(3):
        blk.load(x, blk.tx + k)


def test_closures_of_one_code_share_its_source_and_a_wrapper_reads_the_function_it_wraps(monkeypatch):
    import kernellab.lines as lines_mod

    read = []  # the code objects whose source is read
    real = lines_mod._read
    monkeypatch.setattr(lines_mod, "_read", lambda code: read.append(code) or real(code))
    first = LineFinder(_loads_a_lane(1))
    before = len(read)  # 1, or 0 where this code's source was read earlier in the session
    second = LineFinder(_loads_a_lane(2))  # another closure of the same code: its source is not read again
    assert len(read) == before and second.text == first.text
    assert [t.strip() for t in second.text.values()] == ["def kernel(blk, x):", "blk.load(x, blk.tx * scale)"]
    # a closure of that code wrapping another function (functools.wraps sets __wrapped__): inspect reads the function
    # it wraps, 3 lines (def, for, load), under this file's name from _loop_to_report's first line
    wrapper = _loads_a_lane(3)
    wrapper.__wrapped__ = _loop_to_report
    third = LineFinder(wrapper)
    start = _loop_to_report.__code__.co_firstlineno
    assert list(third.text) == [(__file__, start + i) for i in range(3)]
    assert [t.strip() for t in third.text.values()] == ["def _loop_to_report(blk, x):", "for k in range(3):",
                                                        "blk.load(x, blk.tx + k)"]
    # and the kernel's last line, once per code: the factory's kernel ends on its load, a line after its def
    assert second.last == second.first + 1 == first.last and third.last == third.first + 1


def test_one_reader_by_code_object_serves_lines_and_triton_whatever_the_code_compares_equal_to(tmp_path, monkeypatch):
    # kernellab.lines.source_lines is the one reader of a kernel's source: per-line rows and the mini-Triton's
    # compile-time checks (limits._source: the kernel's text from its def, as Triton shows it) read through it, once
    # per code object. Two files whose kernels differ only in a comment hold code objects that compare and hash equal
    # (same bytecode, names, constants, first line: the file is not compared), so a cache keyed by the code itself
    # gave the second file's kernel the first's text; keyed by identity each has its own. Lines: 4 the decorator,
    # 5 the def, 6 the store
    import gc
    import importlib.util

    import kernellab.lines as lines_mod
    from kernellab.triton.compiler import limits

    kernels = []
    for name, note in (("kl_one_reader_a", "# from a"), ("kl_one_reader_b", "# from b")):
        path = tmp_path / f"{name}.py"
        path.write_text("import kernellab.triton as triton\nimport kernellab.triton.language as tl\n\n@triton.jit\n"
                        f"def k(x_ptr):\n    tl.store(x_ptr + tl.arange(0, 32), 1.0)  {note}\n")
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        kernels.append((path, mod.k))
    (pa, ka), (pb, kb) = kernels
    assert ka.fn.__code__ == kb.fn.__code__ and ka.fn.__code__ is not kb.fn.__code__
    read = []
    real = lines_mod._read
    monkeypatch.setattr(lines_mod, "_read", lambda code: read.append(code) or real(code))
    assert ka.src.endswith("1.0)  # from a\n") and kb.src.endswith("1.0)  # from b\n")
    assert LineFinder(kb).text == {(str(pb), 4): "@triton.jit\n", (str(pb), 5): "def k(x_ptr):\n",
                                   (str(pb), 6): "    tl.store(x_ptr + tl.arange(0, 32), 1.0)  # from b\n"}
    x = np.zeros(32, np.float32)
    c = kb[(1,)](x, lines=True)  # a launch: the control-flow check and the rows read it again, from the cache
    assert (x == 1).all() and c.by_line.line((str(pb), 6)).endswith("# from b")
    assert limits._source(kb.fn.__code__) == ("def k(x_ptr):\n    tl.store(x_ptr + tl.arange(0, 32), 1.0)  # from b\n", 5)
    assert [code is ka.fn.__code__ or code is kb.fn.__code__ for code in read] == [True, True]  # once each
    # an entry leaves with its code object
    key = id(ka.fn.__code__)
    assert key in lines_mod._READ
    del ka, kernels, read[:]  # (the list held the code objects read)
    gc.collect()
    assert key not in lines_mod._READ


def test_a_named_source_is_read_as_inspect_reads_it(tmp_path, monkeypatch):
    # code named <…> (exec'd, a doctest's example, a notebook cell) is read from linecache.getlines alone, as inspect
    # reads it (no module holds such a file): no lines there, None where inspect raises OSError; lines there (a cell
    # linecache holds, a doctest's example served by its patched getlines), inspect's block from the def; an entry
    # that is stale (a time stamp and no file) is dropped first, as inspect's checkcache drops it; a file of that
    # very name in the working directory is not read (linecache reads no file named <…>): None both ways
    import inspect

    from kernellab.lines import _read

    def made(name, text="def f(x):\n    y = x + 1\n    return y\n\nz = 1\n"):
        scope: dict = {}
        exec(compile(text, name, "exec"), scope)
        return scope["f"].__code__

    def inspects(code):
        try:
            return inspect.getsourcelines(code)
        except OSError:
            return None

    def asked(code):
        raise AssertionError(f"inspect asked for {code.co_filename}")

    def reads(code):  # _read, which asks inspect nothing for such code (its search of sys.modules: ≈ 0.4 ms a read)
        real = inspect.getsourcelines
        inspect.getsourcelines = asked
        try:
            return _read(code)
        finally:
            inspect.getsourcelines = real

    code = made("<kl exec'd>")
    assert reads(code) is None is inspects(code)
    code = made("<kl cell>")
    monkeypatch.setitem(linecache.cache, "<kl cell>", (3, None, ["def f(x):\n", "    y = x + 1\n", "    return y\n"],
                                                       "<kl cell>"))
    assert reads(code) == inspects(code) == (["def f(x):\n", "    y = x + 1\n", "    return y\n"], 1)
    monkeypatch.setitem(linecache.cache, "<kl cell>", (3, 1.0, ["def f(x):\n"], "<kl cell>"))  # stale: dropped
    assert reads(code) is None is inspects(code)
    code = made("<kl doctest[0]>")
    served = linecache.getlines
    monkeypatch.setattr(linecache, "getlines", lambda name, module_globals=None: (
        ["def f(x):\n", "    y = x + 1\n", "    return y\n", "\n", "z = 1\n"] if name == "<kl doctest[0]>" else
        served(name, module_globals)))
    assert reads(code) == inspects(code) == (["def f(x):\n", "    y = x + 1\n", "    return y\n"], 1)
    monkeypatch.setattr(linecache, "getlines", served)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "<kl file>").write_text("def f(x):\n    y = x + 1\n    return y  # from the file\n")
    code = made("<kl file>")
    assert reads(code) is None is inspects(code)


def test_a_file_cut_short_after_its_kernel_was_compiled_has_no_source(tmp_path):
    # a .py file rewritten after its code was compiled, now ending just before the code's first line: the def was
    # line 4 (co_firstlineno 4, index 3), the file now holds 3 lines, so there is no line 4 to open the function.
    # inspect raises OSError ("lineno is out of bounds"); the reader gives None, as where inspect raises, not an
    # IndexError from looking at line 4 itself
    import inspect

    from kernellab.lines import _read

    path = tmp_path / "kl_cut_short.py"
    text = "\n\n\ndef f(x):\n    return x\n"
    scope: dict = {}
    exec(compile(text, str(path), "exec"), scope)
    code = scope["f"].__code__
    assert code.co_firstlineno == 4
    path.write_text("a = 1\nb = 2\nc = 3\n")
    with pytest.raises(OSError):
        inspect.getsourcelines(code)
    assert _read(code) is None
