"""The launch path's fixed-cost shortcuts (issue 23) give exactly the numbers of the path without them.

Two shortcuts, each checked against its reference (a one-program step's structured offsets are in
``tests/test_policy.py``'s corpus):

- the shared-memory traffic of a recorded conversion, reduction or ``tl.dot`` is looked up by its
  layout tags once over every launch (``counts._moves_by_target``): against computing it each time;
- a step starts knowing the launch arguments' addresses (``Program(addresses=…)``): each equals the
  address read from the flat view itself, whatever the array's layout.

And ``_bind``'s arguments equal those made the general way, for 224 cases in one test (one test item each cost
about 1.4 ms of pytest's own CPU); a failure names every case that differs by its old parametrized id
(``opts1-4-16``). One case alone: ``bound_mismatches(16, 4, {"do_not_specialize": ["n"]})``.
"""

from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab.triton.executor import counts, memory
from kernellab.triton.executor.program import Program
from kernellab.triton.runtime.jit import _argument
from tests.reference import every_case, failing_cases, fresh_module, placed

K = fresh_module(Path(__file__).with_name("triton_kernels.py"), "kl_triton_kernels_overhead")


@contextmanager
def uncached_moves(monkeypatch):
    """Every recorded move's shared-memory traffic computed afresh (the path for a tag that is no key)."""
    def no_key(kind, src, dst):
        raise TypeError("not a key")

    with monkeypatch.context() as m:
        m.setattr(counts, "_move_key", no_key)
        yield


def _kernels():
    rng = np.random.default_rng(11)
    x = rng.standard_normal((37, 100)).astype(np.float32)
    a = rng.standard_normal((64, 48)).astype(np.float16)
    b = rng.standard_normal((48, 80)).astype(np.float16)
    v = rng.random(3001, dtype=np.float32)
    return [
        lambda: K.add_kernel.run(v, v, np.empty_like(v), v.size, BLOCK_SIZE=1024, grid=(3,)),
        lambda: K.softmax_kernel.run(np.empty_like(x), x, 100, 100, 100, BLOCK_SIZE=128, grid=(37,)),
        lambda: K.matmul_kernel.run(a, b, np.empty((64, 80), np.float16), 64, 80, 48, 48, 1, 80, 1, 80, 1,
                                    BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=16, GROUP_SIZE_M=2,
                                    ACTIVATION="", grid=(2 * 3,)),
        lambda: K.reduce_kernel.run(x, np.empty(37, np.float32), np.empty(37, np.float32),
                                    np.empty(37, np.float32), np.empty(37, np.int32), 37, 100, AXIS=1,
                                    BR=64, BC=128, grid=(1,)),
    ]


@pytest.mark.parametrize("which", range(4))
def test_shared_memory_counts_looked_up_are_those_computed(which, monkeypatch):
    launch = _kernels()[which]
    with uncached_moves(monkeypatch):
        ref = launch()
    counts._moves_by_target.cache_clear()
    cold, warm = launch(), launch()  # a key made, then found
    assert cold == ref and warm == ref
    assert any(getattr(ref, f"shared_{w}_sm{t}") for w in ("stores", "loads") for t in (80, 90)) or which == 0


def test_frozen_tags_resolve_to_the_same_layouts():
    from kernellab.triton.compiler import axis, convert

    cols = axis.to_shape(axis.arange(0, 32), (32,), (64, 32))  # a row of 32 consecutive elements, 64 times
    ptr = axis.add(axis.splat(axis.argument(4), (64, 32)), cols, (64, 32), elem_bytes=4)  # 4-byte aligned
    order, own = counts.layout.own_width(ptr, (64, 32), 4)
    assert own == 1  # alone, one float a lane; another access of its shape and order asked for 4 (v4)
    wanted = {((64, 32), order): 4, ((8,), (0,)): 2}  # the launch's widths: one for this shape, one not
    load = ("load", (ptr, None, (64, 32)), 4, 4, wanted)
    for tag in (load, ("slice", load, 1), ("expand", ("slice", load, 0), 0), ("store", (ptr, None, (64, 32)), 4, 4, None),
                ("default", (64, 32), 4)):
        key = counts._frozen(tag)
        hash(key)
        for target in ("sm80", "sm90"):
            assert convert.resolve(counts._thawed(key), target) == convert.resolve(tag, target)
    # a load whose shape and order the launch never widened: no width, as the dict lookup gives
    bare = ("load", (ptr, None, (64, 32)), 4, 4, {})
    assert convert.resolve(counts._thawed(counts._frozen(bare))) == convert.resolve(bare) != convert.resolve(load)


@pytest.mark.parametrize("make", [
    lambda: np.arange(12, dtype=np.float32),
    lambda: np.asfortranarray(np.arange(12.0, dtype=np.float32).reshape(3, 4)),
    lambda: np.arange(24, dtype=np.int16).reshape(2, 3, 4).transpose(0, 2, 1),
    lambda: np.arange(40, dtype=np.float32)[8:20],
    lambda: np.zeros(0, np.float32),
    lambda: np.zeros((5, 0), np.float16),
])
def test_seeded_addresses_are_the_flat_views(make):
    arr = make()
    ptr = _argument("x", arr)
    assert ptr._address == memory.address(ptr.flat)
    prog = Program("k", (1, 1, 1), np.zeros((1, 3), np.int32), counts.Tally(), {},
                   addresses={id(ptr.flat): (ptr.flat, ptr._address)})
    fresh = Program("k", (1, 1, 1), np.zeros((1, 3), np.int32), counts.Tally(), {})
    assert prog.address(ptr.flat) == fresh.address(ptr.flat) == memory.address(ptr.flat)
    other = ptr.flat[1:] if ptr.flat.size else ptr.flat.copy()  # another view: looked up, not seeded
    assert prog.address(other) == memory.address(other)


def _bound_by_reference(kernel, args):
    """What ``_bind`` gives, made the general way: ``_argument`` then ``_specialise`` for every argument."""
    values, names, marks = [], {}, {}
    for name, v in zip(kernel.arg_names, args):
        arg = _argument(name, v)
        if isinstance(arg, triton.language.core.tensor) and not arg._shape:
            kernel._specialise(name, arg, ("pointer", arg._address) if arg.__class__.__name__ == "pointer" else v, marks)
            if arg.__class__.__name__ == "pointer":
                names[arg._address] = name
        values.append(arg)
    return values, names, marks


N_VALUES = [0, 1, 2, 8, 15, 16, 17, 24, 32, -16, 2 ** 31, 2 ** 40, True, np.int32(16)]
OFFSETS = [0, 1, 2, 4]  # where the data starts past a 16-byte boundary, in elements (placed())
OPTIONS = [{}, {"do_not_specialize": ["n"]}, {"do_not_specialize_on_alignment": ["x", "n"]}, {"do_not_specialize": ["x"]}]


def bound_mismatches(n, at, opts) -> list[str]:
    """What differs, for one case, between the arguments ``_bind`` gives a copy kernel made with ``triton.jit(…,
    **opts)`` (x placed ``at`` elements past a 16-byte boundary, ``n`` its scalar) and those made the general way
    (:func:`_bound_by_reference`), and between the launch's specialisation and the reference's marks: one line a
    difference, ``[]`` when they are the same."""
    def copy(x, y, n, B: tl.constexpr):
        offs = tl.arange(0, B)
        tl.store(y + offs, tl.load(x + offs, mask=offs < n), mask=offs < n)

    kernel = triton.jit(copy, **opts)
    x, y = placed(np.arange(64, dtype=np.float32), at), np.zeros(64, np.float32)
    _grid, values, names, marks = kernel._bind((x, y, n, 64), {}, (1,))
    ref_values, ref_names, ref_marks = _bound_by_reference(kernel, (x, y, n))
    out = []
    if marks != ref_marks or names != ref_names:
        out.append(f"marks {marks} and names {names}, the general way {ref_marks} and {ref_names}")
    for name, got, want in zip(kernel.arg_names, values, ref_values):
        if not (got.__class__ is want.__class__ and got.dtype == want.dtype and got._ax == want._ax):
            out.append(f"{name}: {got.__class__.__name__} {got.dtype} {got._ax}, the general way "
                       f"{want.__class__.__name__} {want.dtype} {want._ax}")
        if not (np.array_equal(got.data, want.data) and got.data.dtype == want.data.dtype):
            out.append(f"{name}: data {got.data!r}, the general way {want.data!r}")
        if want.__class__.__name__ == "pointer" and not (
                got._address == want._address and got.flat is not None and np.shares_memory(got.flat, want.flat)):
            out.append(f"{name}: address {got._address} (its flat view shares the array's memory: "
                       f"{got.flat is not None and np.shares_memory(got.flat, want.flat)}), the general way {want._address}")
    launched = kernel[(1,)](x, y, n, B=64).specialization
    if launched != ref_marks:
        out.append(f"the launch's specialisation {launched}, the general way {ref_marks}")
    return out


def _case_id(values: list, i: int, name: str) -> str:
    """pytest's id of the ``i``-th value of a parametrized argument ``name`` (how the cases were named when each
    was a test of its own): numbers and booleans as written, anything else the name and its index."""
    v = values[i]
    return str(v) if type(v) in (int, bool, float) else f"{name}{i}"


def test_bound_arguments_are_the_general_ones():
    # 4 options × 4 offsets × 14 scalars = 224 cases, each checked; a failure lists every case that differs, by
    # the id it had as a parametrized test (opts{i}-{at}-{n}), and how. One case: bound_mismatches(n, at, opts)
    checked = every_case({f"{_case_id(OPTIONS, oi, 'opts')}-{at}-{_case_id(N_VALUES, ni, 'n')}": (n, at, opts)
                          for oi, opts in enumerate(OPTIONS) for at in OFFSETS for ni, n in enumerate(N_VALUES)},
                         bound_mismatches)
    assert checked[0] == 224
    assert not checked[1], failing_cases(checked, "differ")


def test_frozen_counts_hold_every_field_in_order():
    v = np.arange(100, dtype=np.float32)
    c = K.add_kernel.run(v, v, np.empty_like(v), 100, BLOCK_SIZE=64, grid=(2,))
    assert list(vars(c)) == list(counts._FIELDS)
    # 2 programs of 64 lanes, 100 active: 2 × 2 loads, 2 stores; 300 floats · 4 bytes moved
    assert (c.programs, c.loads, c.stores, c.load_bytes + c.store_bytes) == (2, 4, 2, 1200)
    base = {k: 0 for k in counts._NAMES}
    rest = dict(per_program=None, dram_sectors={}, specialization={}, launch={}, by_line=None)
    assert counts._counts(base, **rest) == counts.TritonCounts()
    with pytest.raises(KeyError):  # a field missing is an error, not a default
        counts._counts({k: 0 for k in counts._NAMES[1:]}, **rest)
    extra = counts._counts({**base, "not_a_field": 3}, **rest)  # one too many: dropped, as before
    assert not hasattr(extra, "not_a_field") and list(vars(extra)) == list(counts._FIELDS)
