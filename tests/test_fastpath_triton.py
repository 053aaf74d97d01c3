"""mini-Triton's memory route (kernellab.triton.executor.memory) gives exactly the reference path's numbers.

A view whose base says its offsets are consecutive is checked from its rows and loaded and stored through
slices. The same access as built offsets (``View.of``) takes the reference path (every lane checked, a
gather or a scatter): values, counts and errors must agree, on random shapes, shifts, masks and dtypes.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kernellab import OutOfBoundsError
from kernellab.triton.executor import memory
from kernellab.triton.executor.counts import Tally
from kernellab.triton.executor.program import Program, pid_table
from kernellab.triton.executor.view import Base, View


def run(op, flat, offs, mask, lineage, shift, value=None, programs=1):
    """The access of ``offs`` (built, when ``lineage`` is None) or of ``lineage + shift``, kept by ``mask``."""
    prog = Program("k", (programs, 1, 1), pid_table((programs, 1, 1)), Tally(), {})
    if lineage is None:
        view = memory.lanes_view(offs, mask)
    else:
        shift = shift.reshape(-1) if isinstance(shift, np.ndarray) else shift
        view = View(Base.of(lineage), shift).masked(mask)
    try:
        if op == "load":
            out = memory.load(prog, flat, view, other=-1)
        else:
            memory.store(prog, flat, view, value)
            out = flat.copy()
    except OutOfBoundsError as exc:
        return "error", str(exc)
    return out, prog.tally.result()


def assert_paths_agree(op, size, dtype, offs, mask, value, programs, lineage, shift, reference_shift):
    """The access on ``np.arange(size)`` without a lineage (the reference path) and with ``lineage``
    and ``shift`` (the fast path) gives the same values, counts or error."""
    results = []
    for lin, sh in ((None, reference_shift), (lineage, shift)):
        flat = np.arange(size).astype(dtype)
        results.append(run(op, flat, offs, mask, lin, sh, value, programs=programs))
    (a, ca), (b, cb) = results
    assert ca == cb
    if isinstance(a, str):
        assert b == a
    else:
        assert a.dtype == b.dtype and np.array_equal(a, b)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 3), st.sampled_from([1, 7, 32, 48, 64]), st.integers(-40, 300), st.integers(40, 400),
       st.sampled_from([np.float32, np.float16, np.int8, np.float64]), st.sampled_from(["prefix", "random", "none"]),
       st.sampled_from(["load", "store"]), st.integers(0, 2**32 - 1))
def test_consecutive_masked_access_equals_the_reference(rows, lanes, start, size, dtype, kind, op, seed):
    rng = np.random.default_rng(seed)
    base = np.arange(rows * lanes, dtype=np.int64).reshape(rows, lanes)
    offs = base + start
    n_valid = rng.integers(0, rows * lanes + 1)
    if kind == "prefix":  # the usual `offs < n`
        mask = (base < n_valid) & (offs >= 0) & (offs < size)
    elif kind == "random":
        mask = rng.random(offs.shape) < 0.7
    else:
        mask = np.ones(offs.shape, bool)
    value = rng.integers(0, 100, offs.shape).astype(dtype)
    assert_paths_agree(op, size, dtype, offs, mask, value, rows, base, start, reference_shift=start)


def test_a_masked_tail_counts_by_hand(monkeypatch):
    # 2 programs × 64 floats from offset 0, n = 100: program 0 reads floats 0–63 (2 warps × 4 sectors);
    # program 1 reads 64–99: warp 0 is floats 64–95 (4 sectors), warp 1 floats 96–99 (16 B, 1 sector)
    base = np.arange(128, dtype=np.int64).reshape(2, 64)
    monkeypatch.setattr(memory, "check", lambda *a: 1 / 0)  # the rows' check, not the lanes'
    _, counts = run("load", np.zeros(100, np.float32), base, base < 100, base, 0, programs=2)
    assert (counts["loads"], counts["load_requests"], counts["load_sectors"], counts["load_bytes"]) == (
        2, 4, 13, 400)


def test_an_unmasked_lane_outside_the_array_is_still_an_error():
    base = np.arange(64, dtype=np.int64)[None]
    err, message = run("load", np.zeros(60, np.float32), base, base < 62, base, 0)
    assert err == "error" and "[60]" in message and "lane 60" in message


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 4), st.sampled_from([1, 16, 32, 40, 64]), st.integers(60, 400),
       st.sampled_from([np.float32, np.float16, np.float64]), st.sampled_from(["prefix", "random", "none"]),
       st.sampled_from(["load", "store"]), st.integers(0, 2**32 - 1))
def test_a_row_start_per_program_equals_the_reference(rows, lanes, size, dtype, kind, op, seed):
    # x_ptr + row * stride + cols: one shift per program (shape (P, 1)) on a shared block of columns
    rng = np.random.default_rng(seed)
    cols = np.arange(lanes, dtype=np.int64)[None]
    shift = rng.integers(-20, size, (rows, 1))
    offs = cols + shift
    mask = {"prefix": np.broadcast_to(cols < rng.integers(0, lanes + 1), offs.shape) & (offs >= 0) & (offs < size),
            "random": rng.random(offs.shape) < 0.6, "none": np.ones(offs.shape, bool)}[kind]
    value = rng.integers(0, 100, offs.shape).astype(dtype)
    assert_paths_agree(op, size, dtype, offs, mask, value, rows, cols, shift, reference_shift=0)
