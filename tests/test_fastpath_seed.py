"""Seed-form kernels run in batches: the same results, errors and counts as one program after another.

``triton_launch`` runs a batch of programs at once through :mod:`kernellab.triton.executor.perprogram` and
reruns the batch one by one whenever it cannot reproduce that exactly. The seed's own kernels are compared
with the reference policy's launch in ``tests/test_policy.py``; these tests compare the two bit for bit on
edge cases, and check that a uniform batch really runs vectorised (the kernel is called once for the whole
batch), rather than silently falling back.
"""

import importlib.util
from pathlib import Path
from unittest import mock

import numpy as np
import pytest

from kernellab import OutOfBoundsError, triton_launch
from kernellab.triton.executor import engine
from kernellab.triton.executor.perprogram import NotBatchable, PerProgram

_spec = importlib.util.spec_from_file_location("kl_seed_kernels_batch", Path(__file__).with_name("seed_kernels.py"))
seed = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(seed)


def copy_kernel(calls):
    def kernel(tl, x, y, n, BLOCK):
        calls.append(1)
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(y, offs, tl.load(x, offs, mask=offs < n), mask=offs < n)
    return kernel


def test_a_uniform_batch_runs_vectorised():
    calls = []
    x, y = np.arange(1000, dtype=np.float32), np.zeros(1000, np.float32)
    cnt = triton_launch(copy_kernel(calls), 63, x, y, 1000, BLOCK=16)  # 63 programs, the last one masked
    assert len(calls) == 1  # one call of the kernel ran all 63 programs
    assert np.array_equal(x, y) and cnt["programs"] == 63 and cnt["load_bytes"] == cnt["store_bytes"] == 4000
    calls.clear()
    y[:] = 0
    assert triton_launch(copy_kernel(calls), 63, x, y, 1000, BLOCK=16, vectorize=False) == cnt
    assert len(calls) == 63


def test_a_divergent_batch_reruns_one_by_one_with_the_same_result():
    calls = []

    def branchy(tl, x, y, BLOCK):
        calls.append(1)
        pid = tl.program_id(0)
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        if pid % 3 == 0:  # programs take different Python paths: the batch cannot run together
            tl.store(y, offs, tl.load(x, offs) * 2)
        else:
            tl.store(y, offs, tl.load(x, offs) + 1)

    x = np.arange(64, dtype=np.float32)
    outs = []
    for vectorize in (False, True):
        y = np.zeros(64, np.float32)
        outs.append((y, triton_launch(branchy, 8, x, y, BLOCK=8, vectorize=vectorize)))
    assert len(calls) == 8 + 1 + 8  # one by one; then a batch that diverged, rerun one by one
    assert np.array_equal(outs[0][0], outs[1][0]) and outs[0][1] == outs[1][1]


def test_an_error_is_the_one_by_one_error():
    def unmasked(tl, x, y, BLOCK):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(y, offs, tl.load(x, offs))

    messages = []
    for vectorize in (False, True):
        x, y = np.arange(20, dtype=np.float32), np.zeros(20, np.float32)
        with pytest.raises(OutOfBoundsError) as exc:
            triton_launch(unmasked, 3, x, y, BLOCK=8, vectorize=vectorize)  # program 2 reads x[16..23]
        messages.append((str(exc.value), y.copy()))
    assert messages[0][0] == messages[1][0] and "program (2,0,0)" in messages[0][0]
    assert np.array_equal(messages[0][1], messages[1][1])  # programs 0 and 1 stored before program 2 failed


def test_python_numbers_keep_numpy_promotion():
    pid = PerProgram(np.arange(3), weak=True)
    block = np.arange(4, dtype=np.int32)
    assert (pid * 4 + block).dtype == np.int32  # as 2 * 4 + int32 block is int32 in one program
    assert (pid * 0.5).weak and (pid * 0.5).data.tolist() == [0.0, 0.5, 1.0]
    assert (pid + np.float32(1)).dtype == np.float32
    with pytest.raises(NotBatchable):  # 2^40 does not fit int32: one program raises OverflowError
        PerProgram(np.array([0, 1 << 40]), weak=True) + block
    with pytest.raises(NotBatchable):
        np.asarray(pid)  # a plain array would mix the programs


PROGRAMS_SEEN = 0


def counting_kernel(tl, x, y, BLOCK):
    global PROGRAMS_SEEN
    PROGRAMS_SEEN += 1  # state kept across programs: such a kernel runs one program at a time
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y, offs, tl.load(x, offs) + PROGRAMS_SEEN)


def test_a_kernel_that_assigns_a_module_name_runs_one_by_one():
    global PROGRAMS_SEEN
    outs = []
    for vectorize in (False, True):
        PROGRAMS_SEEN = 0
        x, y = np.zeros(32, np.float32), np.zeros(32, np.float32)
        triton_launch(counting_kernel, 4, x, y, BLOCK=8, vectorize=vectorize)
        outs.append((PROGRAMS_SEEN, y.tolist()))
    assert outs[0] == outs[1] and outs[0][0] == 4 and outs[0][1][8:16] == [2.0] * 8  # program 1 adds 2


SCALE = 1.0


def scaled(tl, x, y, BLOCK):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y, offs, tl.load(x, offs) * SCALE)


def test_a_batched_kernel_reads_module_names_live():
    global SCALE
    x = np.ones(16, np.float32)
    for SCALE in (2.0, 3.0):  # the batched copy sees each new value, as the kernel itself would
        y = np.zeros(16, np.float32)
        triton_launch(scaled, 2, x, y, BLOCK=8)
        assert (y == SCALE).all()


def test_programs_that_exchange_data_through_an_array_run_in_order():
    def chain(tl, a):  # program p adds a[p] to a[p + 1]: one by one, a running sum
        p = tl.program_id(0)
        tl.store(a, np.array(p + 1), tl.load(a, np.array(p + 1)) + tl.load(a, np.array(p)))

    def twice(tl, a, b):  # every program writes a[0] twice: the last program's second store must win
        p = tl.program_id(0)
        tl.store(a, np.array(0), tl.load(b, np.array(p)) * 0 + p)
        tl.store(a, np.array(0), tl.load(b, np.array(p)) * 0 + 10 * p)

    def after(tl, a, b):  # program p writes a[p], then reads a[p + 1], written only by a later program
        p = tl.program_id(0)
        tl.store(a, np.array(p), tl.load(b, np.array(p)) * 0 + 10 * p + 100)
        tl.store(b, np.array(p), tl.load(a, np.array((p + 1) % 6)))

    def stencil(tl, a, out):  # reads and writes different arrays: batched
        p = tl.program_id(0)
        tl.store(out, np.array(p), tl.load(a, np.array(p)) + tl.load(a, np.array((p + 1) % 6)))

    results = {}
    for kernel, grid, arrays, batches in ((chain, 5, 1, False), (twice, 6, 2, False), (after, 6, 2, False),
                                              (stencil, 6, 2, True)):
        outs = []
        for vectorize in (False, True):
            a = [np.arange(1, 7, dtype=np.float32), np.zeros(6, np.float32)][:arrays]
            with mock.patch.object(engine, "_one_by_one", wraps=engine._one_by_one) as fallback:
                triton_launch(kernel, grid, *a, vectorize=vectorize)
            outs.append([v.tolist() for v in a])
        assert outs[0] == outs[1], kernel.__name__
        assert (fallback.call_count == 0) == batches, kernel.__name__
        results[kernel.__name__] = outs[0]
    assert results["chain"][0] == [1.0, 3.0, 6.0, 10.0, 15.0, 21.0]  # running sums of 1…6
    assert results["twice"][0][0] == 50.0  # program 5's second store: 10·5
    assert results["after"][1] == [2.0, 3.0, 4.0, 5.0, 6.0, 100.0]  # only program 5 reads a new value
    assert results["stencil"][1] == [3.0, 5.0, 7.0, 9.0, 11.0, 7.0]  # a[p] + a[p+1 mod 6]


def test_the_lecture_form_counts_a_warp_instruction_per_32_lanes():
    # the lecture form lays a block out row-major in warps of 32 lanes: 64 lanes are ⌈64 ÷ 32⌉ = 2 warp
    # instructions a program, for the load and the store alike; 3 programs: 6 each
    def k(tl, x, y):
        offs = tl.program_id(0) * 64 + tl.arange(0, 64)
        tl.store(y, offs, tl.load(x, offs) * 2)
    x = np.arange(192, dtype=np.float32)
    y = np.zeros_like(x)
    c = triton_launch(k, (3,), x, y)
    assert (y == 2 * x).all()
    assert (c.load_instructions, c.store_instructions) == (6, 6)
