"""mini-Triton's structured fast path gives exactly the numbers, values and errors of the plain path.

``pid * BLOCK + tl.arange(0, BLOCK)`` is kept as a row start per program plus a shared block, and
``offs < n`` as a prefix of each program's lanes (kernellab.triton.executor.tensor); the memory layer then
checks, counts (kernellab.access.prefix_counts) and moves such rows as slices, and a vectorised step
defers its stores and lends views of arrays instead of copies (kernellab.triton.executor.program). Each test
runs a kernel both ways: as written, and with those optimisations switched off (``plain``), which
materialises every offset and mask and copies every load.
"""

from contextlib import nullcontext

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import OutOfBoundsError, allow_float64
from kernellab.access import Access, bytes_requested, lines, prefix_counts, requests, sectors
from tests.reference import plain_path


def both(launch, *arrays):
    """``launch(*copies)`` twice, fast and plain, on fresh copies of ``arrays``: (counts or error, arrays) each."""
    out = []
    for ctx in (nullcontext(), plain_path()):
        copies = [a.copy() for a in arrays]
        with ctx:
            try:
                result = launch(*copies)
            except OutOfBoundsError as exc:
                result = ("error", str(exc), exc.details)
        out.append((result, copies))
    return out


def assert_same(results):
    (fast, fa), (ref, ra) = results
    assert fast == ref
    if not isinstance(fast, tuple):
        assert fast.dram_sectors == ref.dram_sectors
    for a, b in zip(fa, ra):
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)


# --- prefix_counts against the record, by hand and at random ----------------------------------------
def exact_rows(starts, active, width, lanes):
    """The record of rows of ``lanes`` lanes (each starting a warp), row r's first active[r] lanes active."""
    pad = -(-lanes // 32) * 32
    lane = np.arange(pad)
    addr = np.concatenate([s + lane * width for s in starts]).reshape(-1, 32)
    act = np.concatenate([lane < k for k in active]).reshape(-1, 32)
    acc = Access(addr, act, width, known_aligned=True)
    return requests(acc), sectors(acc), lines(acc), bytes_requested(acc)


def test_prefix_counts_by_hand():
    # 100 fp16 from byte 64: warp 0 = bytes 64–127 (2 sectors, line 0), warp 1 = 128–191 (2 sectors,
    # line 1), warp 2 = 192–255 (2, line 1), warp 3 = 4 lanes, bytes 256–263 (1 sector, line 2):
    # 4 requests, 7 sectors, 4 lines (warp 2 shares line 1 with warp 1 but each request counts its own), 200 B
    assert prefix_counts([64], [100], 2) == (4, 7, 4, 200)
    # 33 floats from byte 4: warp 0 spans bytes 4–131 (5 sectors, 2 lines), warp 1 one float at 132 (1, 1)
    assert prefix_counts([4], [33], 4) == (2, 6, 3, 132)
    # no active lane: nothing
    assert prefix_counts([0, 128], [0, 0], 4) == (0, 0, 0, 0)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([1, 2, 4, 8, 16]), st.integers(1, 600), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_prefix_counts_equal_the_record(width, lanes, rows, seed):
    rng = np.random.default_rng(seed)
    starts = rng.integers(0, 5000, rows) * width
    active = rng.integers(0, lanes + 1, rows)
    if rng.random() < 0.3:
        active[:] = lanes
    assert prefix_counts(starts, active, width) == exact_rows(starts, active, width, lanes)


# --- kernels: fast path against plain path ---------------------------------------------------------
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def shifted_kernel(x_ptr, out_ptr, n, start, BLOCK: tl.constexpr, LE: tl.constexpr):
    offs = start + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = (offs <= n) if LE else (offs < n)
    v = tl.load(x_ptr + offs, mask=mask, other=-1)
    tl.store(out_ptr + offs, v * 2 + tl.sum(v, axis=0), mask=mask)  # masked-off lanes count in the sum


@triton.jit
def rows_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    v = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * out_stride + cols, v - tl.max(v, axis=0), mask=mask)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3000), st.sampled_from([1, 2, 16, 32, 64, 128]), st.sampled_from(
    [np.float32, np.float16, np.int8, np.float64, np.int32]), st.integers(0, 2))
def test_masked_vector_kernels_equal_the_plain_path(n, block, dtype, extra):
    # a block ± 1, primes and 1 all come up: n is any size, the grid covers it (plus `extra` idle programs)
    rng = np.random.default_rng(n)
    x = (rng.random(n) * 100).astype(dtype)
    y = (rng.random(n) * 100).astype(dtype)
    grid = (triton.cdiv(n, block) + extra,)
    with allow_float64():  # float64 is one of the dtypes under test
        res = both(lambda x, y, o: add_kernel[grid](x, y, o, n, BLOCK=block), x, y, np.zeros(n, dtype))
    assert_same(res)
    np.testing.assert_array_equal(res[0][1][2], x + y)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 700), st.sampled_from([8, 32, 64]), st.integers(-40, 40), st.booleans(),
       st.integers(0, 3))
def test_shifted_rows_and_errors_equal_the_plain_path(n, block, start, le, extra):
    # a start that is not a multiple of the block, `<=`, and starts before the array (an error unless masked)
    x = np.arange(n, dtype=np.float32) + 1
    grid = (triton.cdiv(n, block) + extra,)
    res = both(lambda x, o: shifted_kernel[grid](x, o, n, start, BLOCK=block, LE=le), x, np.zeros(n, np.float32))
    assert_same(res)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.integers(1, 70), st.integers(0, 9), st.integers(0, 9), st.sampled_from([16, 64, 128]))
def test_strided_rows_equal_the_plain_path(m, n_cols, in_pad, out_pad, block):
    # rows `in_stride` apart, a prefix of each loaded; output rows packed or padded; n_cols may exceed BLOCK
    in_stride, out_stride = n_cols + in_pad, n_cols + out_pad
    a = np.random.default_rng(m * 1000 + n_cols).standard_normal(m * in_stride).astype(np.float32)
    res = both(lambda a, o: rows_kernel[(m,)](o, a, in_stride, out_stride, n_cols, BLOCK=block),
               a, np.zeros(m * out_stride, np.float32))
    assert_same(res)


# --- the fast path is really taken ------------------------------------------------------------------
def test_a_uniform_batch_keeps_offsets_and_masks_by_structure_and_lends_views():
    seen = {}

    @triton.jit
    def probe(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        v = tl.load(x_ptr + offs, mask=mask)
        seen.update(offs=offs._data is None, mask=mask._view.keep.tolist(), rows=v.data.shape[0], view=v.data.base)
        tl.store(out_ptr + offs, v + 1, mask=mask)

    x = np.arange(256, dtype=np.float32)
    out = np.zeros_like(x)
    probe[(4,)](x, out, 256, BLOCK=64)
    # four programs in one vectorised step; offsets never built; every lane kept; the load a view of x
    assert seen["offs"] and seen["mask"] == [64, 64, 64, 64] and seen["rows"] == 4
    assert seen["view"] is x or seen["view"] is x.base or np.shares_memory(seen["view"], x)
    np.testing.assert_array_equal(out, x + 1)


# --- deferred stores: a step that would see the difference reruns storing at once ----------------
@triton.jit
def store_then_load(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # each program doubles its block of x in place, reads it back and writes it to out
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)


@triton.jit
def swap_halves(x_ptr, n_half, BLOCK: tl.constexpr):
    # program p writes x[p-block of the first half] into the second half, then the second into the first:
    # the second store reads a view of memory the first store changes
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_half
    lo = tl.load(x_ptr + offs, mask=mask)
    hi = tl.load(x_ptr + n_half + offs, mask=mask)
    tl.store(x_ptr + n_half + offs, lo, mask=mask)
    tl.store(x_ptr + offs, hi, mask=mask)


@pytest.mark.parametrize("n", [1, 63, 64, 65, 257])
def test_a_load_after_a_store_to_the_same_array_reads_the_stored_values(n):
    x = np.arange(n, dtype=np.float32)
    res = both(lambda x, o: store_then_load[(triton.cdiv(n, 64),)](x, o, n, BLOCK=64), x, np.zeros(n, np.float32))
    assert_same(res)
    np.testing.assert_array_equal(res[0][1][1], 2 * x + 1)  # 2x + 1, computed by hand


@pytest.mark.parametrize("half", [1, 31, 32, 100])
def test_a_store_reading_memory_an_earlier_store_changed_sees_the_old_values(half):
    x = np.arange(2 * half, dtype=np.float32)
    res = both(lambda x: swap_halves[(triton.cdiv(half, 32),)](x, half, BLOCK=32), x)
    assert_same(res)
    np.testing.assert_array_equal(res[0][1][0], np.concatenate([x[half:], x[:half]]))  # the halves swapped


@triton.jit
def same_address_kernel(out_ptr, BLOCK: tl.constexpr):
    # every program stores its id to the same block: a race on a GPU; here the last program's values stay
    cols = tl.arange(0, BLOCK)
    tl.store(out_ptr + cols, tl.program_id(0) + cols * 0)


@pytest.mark.parametrize("programs", [1, 2, 7])
def test_programs_storing_to_one_block_keep_the_last_programs_values(programs):
    results = both(lambda o: same_address_kernel[(programs,)](o, BLOCK=32), np.zeros(32, np.int32))
    assert_same(results)
    np.testing.assert_array_equal(results[0][1][0], programs - 1)  # launch order: the last program wins
    assert results[0][0].store_requests == programs  # 32 ints per program: one request each


def test_a_kernel_that_reorders_stops_deferring_for_its_later_launches():
    x = np.arange(100, dtype=np.float32)
    out = np.zeros_like(x)
    store_then_load._hints.clear()
    store_then_load[(2,)](x, out, 100, BLOCK=64)
    assert store_then_load._hints["defer"] is False  # learnt on the first launch: it loads what it stored
    store_then_load[(2,)](x, out, 100, BLOCK=64)
    np.testing.assert_array_equal(out, 4 * np.arange(100) + 1)  # x doubled twice, then + 1


def test_a_short_last_program_runs_on_its_own_and_the_kernel_remembers_it():
    seen = []

    @triton.jit
    def rows_seen(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        v = tl.load(x_ptr + offs, mask=mask)
        seen.append(v.data.shape[0])  # programs in this step
        tl.store(out_ptr + offs, v + 1, mask=mask)

    x = np.arange(4 * 64 + 5, dtype=np.float32)  # 4 full blocks of 64 and a block with 5 lanes kept
    out = np.zeros_like(x)
    cnt = rows_seen[(5,)](x, out, x.size, BLOCK=64)
    # the step of 5 stopped at its load and ran again as 4 + 1; the next launch splits at once
    assert seen == [4, 1] and rows_seen._hints["split"]
    seen.clear()
    assert rows_seen[(5,)](x, out, x.size, BLOCK=64) == cnt and seen == [4, 1]
    np.testing.assert_array_equal(out, x + 1)
    assert cnt.programs == 5 and cnt.load_bytes == x.size * 4  # 261 floats, each loaded once


@triton.jit
def bounded_rows_kernel(x_ptr, out_ptr, n_ptr, stride, BLOCK: tl.constexpr, WIDE: tl.constexpr):
    row = tl.program_id(1)
    n = tl.load(n_ptr + row)  # a bound per program, loaded from memory
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if WIDE:
        offs = offs.to(tl.int64)
    mask = offs < n
    v = tl.load(x_ptr + row * stride + offs, mask=mask, other=7)  # masked-off lanes hold 7, and count in the sum
    tl.store(out_ptr + row * stride + offs, v * 3 + tl.sum(v, axis=0), mask=mask)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([1, 2, 32, 64]), st.integers(1, 5), st.integers(1, 300), st.integers(1, 5), st.booleans(),
       st.integers(0, 2**32 - 1))
def test_two_dimensional_grids_and_loaded_bounds_equal_the_plain_path(block, rows, stride, gx, wide, seed):
    # a 2-D grid, a row start per program from program_id(1), a bound per row read from memory, int64 offsets
    rng = np.random.default_rng(seed)
    bounds = rng.integers(0, stride + 1, rows).astype(np.int32)
    x = rng.integers(0, 100, rows * stride).astype(np.float32)
    assert_same(both(lambda x, o, nn: bounded_rows_kernel[(gx, rows)](x, o, nn, stride, BLOCK=block, WIDE=wide),
                     x, np.zeros_like(x), bounds))
