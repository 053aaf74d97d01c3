"""A kernel that stores to an array it loaded from, in place, and then uses the loaded block again or
loads the array again: every launch gives what the GPU gives, the same counts, on every route of an access.

On a GPU a loaded block is in registers: a store to the memory it came from changes the memory, never
the block, and a load after the store (in the same program, same addresses) reads what was stored.
The mini-Triton may hand a load a view of the array, defer a step's stores and replay a recorded launch;
none of that may show. Each kernel below runs four times on new data (the first launch, the ones that
learn hints and record, the ones that reuse what was learnt) through each route of an access: rows of
consecutive offsets with the grid's tail masked, a 2-D tile of a wider array, a permuted gather and a
block pointer; in the ``@triton.jit`` form and in the lecture form. The values are checked against
numpy and the counts against the first launch's and a hand derivation; the ``@triton.jit`` kernels once
fresh and once replaying what they recorded (``triton.replaying()``): those 54 cases run in one test (one pytest
item each cost about 1.4 ms of pytest's own CPU), which lists every failing case by the id it had as a parametrized
test (``reuse-rows-fresh``); one case alone: ``jit_in_place("reuse", "rows", False)``.
"""

from contextlib import nullcontext

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import triton_launch
from tests.reference import every_case, failing_cases

ROWS, COLS, WIDE = 36, 16, 24  # the array is ROWS × WIDE; every program covers an 8 × COLS tile of it
N = ROWS * WIDE  # 864: the 1-D routes treat the same array as 864 elements
GRID = {"rows": 7, "rows_full": 27, "strided": 36, "single": 1, "gather": 9, "tile": 5, "block_ptr": 5}
ROUTES = list(GRID)


@triton.jit
def _offsets(pid, n, ROUTE: tl.constexpr):
    """The offsets and mask of program ``pid``'s block on one route (see the module)."""
    if ROUTE == "rows":  # consecutive, the last program's tail masked off: 864 = 6 · 128 + 96
        offs = pid * 128 + tl.arange(0, 128)
        mask = offs < n
    elif ROUTE == "rows_full":  # consecutive, no mask: 864 = 27 · 32
        offs = pid * 32 + tl.arange(0, 32)
        mask = None
    elif ROUTE == "strided":  # the first 16 of each row's 24 elements: rows 24 apart
        offs = pid * 24 + tl.arange(0, 16)
        mask = None
    elif ROUTE == "single":  # one program, one block every program would share: elements 352 … 863
        offs = tl.arange(0, 512) + 352
        mask = None
    elif ROUTE == "gather":  # a permutation of the program's own 96-element span (5 · l mod 128, then < 96)
        lane = (tl.arange(0, 128) * 5) % 128
        offs = pid * 96 + lane
        mask = lane < 96
    else:  # "tile": rows pid·8 … pid·8 + 7, columns 0 … 15 of the 36 × 24 array
        rows = pid * 8 + tl.arange(0, 8)
        cols = tl.arange(0, 16)
        offs = rows[:, None] * 24 + cols[None, :]
        mask = (rows[:, None] < 36) & (cols[None, :] < 16)
    return offs, mask


@triton.jit
def reuse_kernel(p_ptr, out_ptr, n, ROUTE: tl.constexpr):
    """x = p; p = 2·x + 1; out = x (the block loaded before the store)."""
    pid = tl.program_id(0)
    if ROUTE == "block_ptr":
        src = tl.make_block_ptr(p_ptr, (36, 24), (24, 1), (pid * 8, 0), (8, 16), (1, 0))
        dst = tl.make_block_ptr(out_ptr, (36, 24), (24, 1), (pid * 8, 0), (8, 16), (1, 0))
        x = tl.load(src, boundary_check=(0, 1))
        tl.store(src, x * 2 + 1, boundary_check=(0, 1))
        tl.store(dst, x, boundary_check=(0, 1))
    else:
        offs, mask = _offsets(pid, n, ROUTE)
        x = tl.load(p_ptr + offs, mask=mask)
        tl.store(p_ptr + offs, x * 2 + 1, mask=mask)
        tl.store(out_ptr + offs, x, mask=mask)


@triton.jit
def reload_kernel(p_ptr, out_ptr, n, ROUTE: tl.constexpr):
    """x = p; p = 2·x + 1; y = p (loaded again); out = 2·(x + y) = 6·x + 2 (a value computed from y, not y)."""
    pid = tl.program_id(0)
    if ROUTE == "block_ptr":
        src = tl.make_block_ptr(p_ptr, (36, 24), (24, 1), (pid * 8, 0), (8, 16), (1, 0))
        dst = tl.make_block_ptr(out_ptr, (36, 24), (24, 1), (pid * 8, 0), (8, 16), (1, 0))
        x = tl.load(src, boundary_check=(0, 1))
        tl.store(src, x * 2 + 1, boundary_check=(0, 1))
        y = tl.load(src, boundary_check=(0, 1))
        tl.store(dst, (x + y) * 2, boundary_check=(0, 1))
    else:
        offs, mask = _offsets(pid, n, ROUTE)
        x = tl.load(p_ptr + offs, mask=mask)
        tl.store(p_ptr + offs, x * 2 + 1, mask=mask)
        y = tl.load(p_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, (x + y) * 2, mask=mask)


@triton.jit
def swap_kernel(p_ptr, q_ptr, n, ROUTE: tl.constexpr):
    """a = p; b = q; p = b; q = a: each store writes a block loaded from memory an earlier store changed."""
    pid = tl.program_id(0)
    if ROUTE == "block_ptr":
        pb = tl.make_block_ptr(p_ptr, (36, 24), (24, 1), (pid * 8, 0), (8, 16), (1, 0))
        qb = tl.make_block_ptr(q_ptr, (36, 24), (24, 1), (pid * 8, 0), (8, 16), (1, 0))
        a = tl.load(pb, boundary_check=(0, 1))
        b = tl.load(qb, boundary_check=(0, 1))
        tl.store(pb, b, boundary_check=(0, 1))
        tl.store(qb, a, boundary_check=(0, 1))
    else:
        offs, mask = _offsets(pid, n, ROUTE)
        a = tl.load(p_ptr + offs, mask=mask)
        b = tl.load(q_ptr + offs, mask=mask)
        tl.store(p_ptr + offs, b, mask=mask)
        tl.store(q_ptr + offs, a, mask=mask)


@triton.jit
def atomic_kernel(p_ptr, out_ptr, n, ROUTE: tl.constexpr):
    """x = p; p += 1 by an atomic (applied at once, never deferred); out = x."""
    offs, mask = _offsets(tl.program_id(0), n, ROUTE)
    x = tl.load(p_ptr + offs, mask=mask)
    tl.atomic_add(p_ptr + offs, 1.0, mask=mask)
    tl.store(out_ptr + offs, x, mask=mask)


def _covered(route: str) -> np.ndarray:
    """The elements a route's programs cover, as a mask over the 36 × 24 array."""
    m = np.zeros((ROWS, WIDE), bool)
    if route in ("tile", "block_ptr", "strided"):
        m[:, :COLS] = True
    elif route == "single":
        m.reshape(-1)[352:] = True
    else:
        m[:] = True  # rows, rows_full: 864 elements, all; gather: 9 programs × 96 = 864, all
    return m


def _expected(name: str, p: np.ndarray, q: np.ndarray, route: str):
    """What the GPU leaves in the two arrays (``q`` is ``out`` for reuse and reload)."""
    cov = _covered(route)
    p2, q2 = p.copy(), q.copy()
    if name == "reuse":
        p2[cov], q2[cov] = 2 * p[cov] + 1, p[cov]
    elif name == "reload":
        p2[cov], q2[cov] = 2 * p[cov] + 1, 6 * p[cov] + 2  # out = 2·(x + y), y = 2x + 1
    elif name == "atomic":
        p2[cov], q2[cov] = p[cov] + 1, p[cov]
    else:
        p2[cov], q2[cov] = q[cov], p[cov]
    return p2, q2


KERNELS = {"reuse": reuse_kernel, "reload": reload_kernel, "swap": swap_kernel, "atomic": atomic_kernel}


# an atomic takes a block of pointers, not a block pointer (as in Triton)
JIT_CASES = [(name, route) for name in KERNELS for route in ROUTES if (name, route) != ("atomic", "block_ptr")]


def jit_in_place(name: str, route: str, replay: bool) -> None:
    """One case of :func:`test_jit_kernels_storing_in_place_see_what_a_gpu_sees`: the ``@triton.jit`` kernel ``name``
    through ``route``, fresh or replaying; raises AssertionError at the first difference."""
    rng = np.random.default_rng(7)
    kernel = triton.jit(KERNELS[name].fn)  # a kernel of its own: what it learns and records is this test's
    counts = []
    for _launch in range(4):  # the first launch, then ones that learn, record and reuse what was learnt
        # small integers in float32: every result is exact
        p = rng.integers(-50, 50, (ROWS, WIDE)).astype(np.float32)
        q = rng.integers(-50, 50, (ROWS, WIDE)).astype(np.float32)
        want_p, want_q = _expected(name, p, q, route)
        with triton.replaying() if replay else nullcontext():
            counts.append(kernel[(GRID[route],)](p, q, N, ROUTE=route))
        np.testing.assert_array_equal(p, want_p)
        np.testing.assert_array_equal(q, want_q)
    assert counts[1:] == counts[:1] * 3
    # every access moves the covered elements once, 4 bytes each: reuse 1 load + 2 stores, reload 2 + 2,
    # swap 2 + 2, atomic 1 + 1 and an atomic
    loads, stores = {"reuse": (1, 2), "reload": (2, 2), "swap": (2, 2), "atomic": (1, 1)}[name]
    covered = int(_covered(route).sum())  # 864; 36 × 16 = 576 for the tiles and strided rows; 512 for one block
    assert (counts[0].load_bytes, counts[0].store_bytes) == (4 * covered * loads, 4 * covered * stores)
    assert counts[0].atomic_bytes == (4 * covered if name == "atomic" else 0)


@pytest.mark.filterwarnings("ignore::kernellab.errors.BlockPointerWarning")  # block pointers: Triton 3.9 removed them
def test_jit_kernels_storing_in_place_see_what_a_gpu_sees():
    # 27 kernel × route pairs (JIT_CASES), each fresh and replaying: 54 cases, each checked; a failure lists every
    # failing case by the id it had as a parametrized test ([reuse-rows-fresh]). One case: jit_in_place("reuse",
    # "rows", False)
    cases = {f"{name}-{route}-{'replaying' if replay else 'fresh'}": (name, route, replay)
             for name, route in JIT_CASES for replay in (False, True)}
    checked = every_case(cases, jit_in_place)
    assert checked[0] == 54
    assert not checked[1], failing_cases(checked, "differ from what a GPU gives")


@pytest.mark.parametrize("replay", [False, True], ids=["fresh", "replaying"])
def test_jit_kernel_with_one_array_passed_twice_adds_in_place(replay):
    """``add(x, y, x)``: output and input one array, as ``x += y`` is written in Triton."""
    @triton.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, x + tl.load(y_ptr + offs, mask=mask), mask=mask)
        tl.store(y_ptr + offs, x, mask=mask)  # y = the x loaded before out (= x) was stored

    rng = np.random.default_rng(3)
    for _launch in range(4):
        x = rng.integers(-50, 50, 1000).astype(np.float32)
        y = rng.integers(-50, 50, 1000).astype(np.float32)
        x0, y0 = x.copy(), y.copy()
        with triton.replaying() if replay else nullcontext():
            add[(8,)](x, y, x, 1000, BLOCK=128)
        np.testing.assert_array_equal(x, x0 + y0)
        np.testing.assert_array_equal(y, x0)


# --- the lecture form: blocks are numpy arrays, offsets are numpy arrays ------------------------------

def _seed_offsets(tl, n, route):
    pid = tl.program_id(0)
    if route == "rows":
        offs = pid * 128 + tl.arange(0, 128)
        return np.minimum(offs, n - 1), offs < n
    if route == "gather":
        lane = (tl.arange(0, 128) * 5) % 128
        return pid * 96 + np.minimum(lane, 95), lane < 96
    rows = pid * 8 + tl.arange(0, 8)
    cols = tl.arange(0, 16)
    return np.minimum(rows, 35)[:, None] * 24 + cols[None, :], (rows < 36)[:, None] & (cols < 16)[None, :]


def seed_reuse(tl, p, out, n, route):
    offs, mask = _seed_offsets(tl, n, route)
    x = tl.load(p, offs, mask=mask)
    tl.store(p, offs, x * 2 + 1, mask=mask)
    tl.store(out, offs, x, mask=mask)


def seed_reload(tl, p, out, n, route):
    offs, mask = _seed_offsets(tl, n, route)
    x = tl.load(p, offs, mask=mask)
    tl.store(p, offs, x * 2 + 1, mask=mask)
    y = tl.load(p, offs, mask=mask)
    tl.store(out, offs, (x + y) * 2, mask=mask)


def seed_swap(tl, p, q, n, route):
    offs, mask = _seed_offsets(tl, n, route)
    a = tl.load(p, offs, mask=mask)
    b = tl.load(q, offs, mask=mask)
    tl.store(p, offs, b, mask=mask)
    tl.store(q, offs, a, mask=mask)


SEED = {"reuse": seed_reuse, "reload": seed_reload, "swap": seed_swap}


@pytest.mark.parametrize("route", ["rows", "gather", "tile"])
@pytest.mark.parametrize("name", list(SEED))
def test_lecture_form_kernels_storing_in_place_see_what_a_gpu_sees(name, route):
    rng = np.random.default_rng(11)
    counts = []
    for _launch in range(3):
        p = rng.integers(-50, 50, (ROWS, WIDE)).astype(np.float32)
        q = rng.integers(-50, 50, (ROWS, WIDE)).astype(np.float32)
        want_p, want_q = _expected(name, p, q, route)
        counts.append(triton_launch(SEED[name], GRID[route], p.reshape(-1), q.reshape(-1), N, route))
        np.testing.assert_array_equal(p, want_p)
        np.testing.assert_array_equal(q, want_q)
    assert counts[1:] == counts[:1] * 2
