"""Laws that hold for every input: per-line rows (``lines=True``) add up to the launch's totals, on random
access patterns in both engines (random strides, offsets, masks, widths, shared memory and atomics)."""

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import launch

from .test_lines import assert_rows_sum


def _simt_kernel(s1, s2, shift, limit, vec):
    def kernel(blk, x, y, out, hist):
        t = blk.bx * blk.bdx + blk.tx
        a = blk.load(x, (t * s1 + shift) % 1024)                      # a strided, shifted load
        with blk.where(t % 3 != 0):
            b = blk.load(y, (t * s2) % 1000, mask=t < limit)            # masked inside a branch
        sm = blk.shared(256, np.float32, name="sm")
        blk.store(sm, (blk.tx * s2) % 256, a)                          # shared store, conflicts by s2
        blk.syncthreads()
        c = blk.load(sm, blk.tx)
        if vec > 1:
            v = blk.load(x, (t % 64) * vec, vec=vec)                  # a vector load
            c = c + v.sum(axis=-1)
        blk.atomic_add(hist, t % 7, 1)                                  # colliding atomics
        blk.store(out, t, a + b + c)
    return kernel


@pytest.mark.parametrize("seed", range(12))
def test_simt_rows_sum_to_the_totals_on_random_patterns(seed):
    rng = np.random.default_rng(seed)
    s1, s2 = int(rng.integers(1, 40)), int(rng.integers(1, 9))
    shift, limit = int(rng.integers(0, 100)), int(rng.integers(0, 300))
    vec = int(rng.choice([1, 2, 4]))
    blocks, threads = int(rng.integers(1, 4)), int(rng.choice([32, 64, 96, 256]))
    kernel = _simt_kernel(s1, s2, shift, limit, vec)

    def run(lines):
        x = np.arange(1024, dtype=np.float32)
        y = np.ones(1000, np.float32)
        out = np.zeros(blocks * threads, np.float32)
        hist = np.zeros(7, np.int32)
        c = launch(kernel, blocks, threads, args=(x, y, out, hist), racecheck=False, lines=lines)
        return c, out, hist

    off, out0, h0 = run(False)
    on, out1, h1 = run(True)
    np.testing.assert_array_equal(out0, out1)
    np.testing.assert_array_equal(h0, h1)
    assert_rows_sum(on, off)


@triton.jit
def _tri_kernel(x_ptr, y_ptr, out_ptr, hist_ptr, n, stride, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    b = tl.load(y_ptr + (offs * stride) % n, mask=offs % 3 != 0, other=1.0)
    rows = tl.arange(0, 8)[:, None] * stride + tl.arange(0, BLOCK // 8)[None, :]
    t = tl.load(x_ptr + rows % n)
    tl.atomic_add(hist_ptr + offs % 5, 1, mask=offs < n)
    tl.store(out_ptr + offs, a * b + tl.sum(t), mask=offs < n)


@pytest.mark.parametrize("seed", range(10))
def test_triton_rows_sum_to_the_totals_on_random_patterns(seed):
    rng = np.random.default_rng(100 + seed)
    n, stride = int(rng.integers(1, 3000)), int(rng.integers(1, 70))
    block = int(rng.choice([16, 64, 256]))
    grid = (-(-n // block),)

    def run(lines):
        x = rng_x.standard_normal(n).astype(np.float32)
        y = np.linspace(-1, 1, n, dtype=np.float32)
        out, hist = np.zeros(n, np.float32), np.zeros(5, np.int32)
        c = _tri_kernel[grid](x, y, out, hist, n, stride, BLOCK=block, lines=lines)
        return c, out, hist

    rng_x = np.random.default_rng(seed)
    off, out0, h0 = run(False)
    rng_x = np.random.default_rng(seed)
    on, out1, h1 = run(True)
    np.testing.assert_array_equal(out0, out1)
    np.testing.assert_array_equal(h0, h1)
    assert_rows_sum(on, off)
