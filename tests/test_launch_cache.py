"""What the launch path keeps across launches never goes stale: every launch counts as a cold one would.

A launch of a ``@triton.jit`` kernel reuses what earlier launches worked out (axis facts, layout plans,
the counts of a row under a plan, ``tl.arange`` blocks and their pointer lineages, the kernel's launch
hints), keyed by what they depend on. Each test relaunches one kernel object with arguments that change
what the counts depend on — a pointer no longer 16-byte aligned, or 32 bytes into a 128-byte line, a
dtype, ``n`` no longer a multiple of 16, ``num_warps``, a constexpr, ``lines=True``, two arguments that
are one array — and compares every launch with the same launch made cold: every ``functools`` cache of
kernellab emptied and a fresh ``@triton.jit`` object. A cache keyed on too little would hand a later
launch an earlier one's numbers.
"""

import copy
import dataclasses
import functools
import sys
from contextlib import nullcontext
from pathlib import Path

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import allow_float64, cdiv
from tests.reference import fresh_module, placed

K = fresh_module(Path(__file__).with_name("triton_kernels.py"), "kl_triton_kernels_cache")


def _clear_caches():
    """Empty every functools cache of kernellab's modules (lru_cache and cache alike)."""
    for name, mod in list(sys.modules.items()):
        if name == "kernellab" or name.startswith("kernellab."):
            for obj in list(vars(mod).values()):
                if isinstance(obj, functools._lru_cache_wrapper):
                    obj.cache_clear()


def _seen(counts):
    """Everything a launch's counts say, the fields equality skips included."""
    lines = None
    if counts.by_line is not None:
        lines = sorted((key[1], row) for key, row in counts.by_line.items())
    return counts, counts.dram_sectors, counts.specialization, lines



def _launch(kernel, case):
    """Run one case on ``kernel``: what its counts say (the output checked against numpy)."""
    dtype, size, at, n, meta, opts = case
    rng = np.random.default_rng(7)
    x = placed(rng.random(size).astype(dtype), at)
    y = placed(rng.random(size).astype(dtype), 0)
    out = placed(np.zeros(size, dtype), 0)
    other = x if opts.get("alias") else y
    grid = (cdiv(n, meta["BLOCK_SIZE"]),)
    with allow_float64():
        c = kernel[grid](x, other, out, n, **meta, **{k: v for k, v in opts.items() if k != "alias"})
    np.testing.assert_array_equal(out[:n], (x + other)[:n])
    return _seen(c)


def _cold(kernel, case):
    _clear_caches()
    return _launch(triton.jit(kernel.fn), case)


def _cases():
    f32, base = np.float32, {"BLOCK_SIZE": 1024}
    return {  # (dtype, array size, x's first element past a 256-byte boundary, n, constexprs, options)
        "aligned": (f32, 4096, 0, 4096, base, {}),
        "x 4 bytes off (not 16-byte aligned)": (f32, 4096, 1, 4096, base, {}),
        "x 32 bytes into a line (16-byte aligned)": (f32, 4096, 8, 4096, base, {}),
        "float16": (np.float16, 4096, 0, 4096, base, {}),
        "float64": (np.float64, 4096, 0, 4096, base, {}),
        "n 4097 (not a multiple of 16)": (f32, 4097, 0, 4097, base, {}),
        "n 4000 (a multiple of 16, masked tail)": (f32, 4000, 0, 4000, base, {}),
        "n 4095, arrays of 4096": (f32, 4096, 0, 4095, base, {}),
        "BLOCK_SIZE 256": (f32, 4096, 0, 4096, {"BLOCK_SIZE": 256}, {}),
        "BLOCK_SIZE 256, num_warps 8": (f32, 4096, 0, 4096, {"BLOCK_SIZE": 256}, {"num_warps": 8}),
        "BLOCK_SIZE 256, num_warps 1": (f32, 4096, 0, 4096, {"BLOCK_SIZE": 256}, {"num_warps": 1}),
        "lines=True": (f32, 4097, 0, 4097, base, {"lines": True}),
        "x and y one array": (f32, 4096, 0, 4096, base, {"alias": True}),
    }


CASES = _cases()


@pytest.mark.parametrize("order", ["forward", "backward"])
def test_a_relaunched_kernel_counts_as_a_cold_launch(order):
    names = list(CASES)
    if order == "backward":
        names.reverse()
    kernel = triton.jit(K.add_kernel.fn)  # one kernel object, warm after its first launch
    warm = {}
    for name in [*names, names[0]]:  # the first case again, after every other one
        warm[name] = _launch(kernel, CASES[name])
    for name in names:
        assert warm[name] == _cold(K.add_kernel, CASES[name]), name


def test_the_cases_differ_where_the_counts_depend_on_them():
    """The relaunches above would catch a stale cache only if the cases count differently (a mutant that
    kept the first launch's counts): check they do, each from the aligned case, by hand where easy."""
    cold = {name: _cold(K.add_kernel, case)[0] for name, case in CASES.items()}
    a = cold["aligned"]
    # aligned fp32, 4 warps: each thread 4 floats (ld.global.v4), 1024 / (128 · 4) = 2 per thread → 8 per
    # program and load, 4 programs, 2 loads: 64 load instructions
    assert a.load_instructions == 64 and a.specialization == {"x_ptr": "D", "y_ptr": "D", "output_ptr": "D",
                                                              "n_elements": "D"}
    # x 4 bytes off: its loads one float an instruction, 8 per thread × 4 warps = 32 per program; y's stay
    # 8 per program: 4 × (32 + 8)
    assert cold["x 4 bytes off (not 16-byte aligned)"].load_instructions == 4 * (32 + 8)
    for name in CASES:  # counts take every array to start 256-byte aligned: 32 bytes in changes nothing
        if name not in ("aligned", "x and y one array", "lines=True", "x 32 bytes into a line (16-byte aligned)"):
            assert cold[name] != a, name
    # 256 floats a program: 4 warps, 2 floats a thread (one ld.global.v2), 4 instructions; 8 warps, one
    # float a thread, 8; one warp, 8 floats a thread in 2 × ld.global.v4, 2. Times 16 programs, 2 loads
    assert [cold[f"BLOCK_SIZE 256{w}"].load_instructions for w in ("", ", num_warps 8", ", num_warps 1")] == \
        [16 * 2 * 4, 16 * 2 * 8, 16 * 2 * 2]
    assert cold["x and y one array"].dram_sectors != a.dram_sectors
    assert cold["n 4097 (not a multiple of 16)"].specialization.get("n_elements") is None
    # n not divisible by 16: the mask may change at every element, so one float an instruction:
    # 1024 / 128 = 8 per thread, 4 warps → 32 instructions per program and access
    assert cold["n 4097 (not a multiple of 16)"].store_instructions == 32 * cdiv(4097, 1024)


def _shifted(kernel, shift: int, n: int = 3000, block: int = 1024):
    x = np.arange(n + shift, dtype=np.float32)
    out = np.zeros(n, np.float32)
    c = kernel[(cdiv(n, block),)](x, out, n, shift, BLOCK=block)
    np.testing.assert_array_equal(out, x[shift:])
    return _seen(c)


def test_a_shift_into_the_array_relaunched_counts_as_cold():
    """``x_ptr + shift``: the rows start ``shift`` floats into a 128-byte line, which changes the lines and
    sectors each request touches (the counts of a row are kept per plan and start within a line)."""
    kernel = triton.jit(K.shifted_copy_kernel.fn)
    shifts = [0, 8, 1, 32, 16, 0, 31]
    warm = [_shifted(kernel, s) for s in shifts]
    cold = []
    for s in shifts:
        _clear_caches()
        cold.append(_shifted(triton.jit(K.shifted_copy_kernel.fn), s))
    assert warm == cold
    # shift 0 and 8 differ (a warp of ld.global.v4 from 32 bytes into a line spans 5 lines, not 4);
    # 0 and 32 (128 bytes: a whole line) count alike
    assert cold[0][0].load_lines != cold[1][0].load_lines and cold[0] == cold[3]


def test_an_array_registered_before_is_found_again_at_its_own_address():
    """register_array finds an array it saw before by identity; a new array at a dead one's id is
    registered afresh, and the region lookup follows. (A registered array's memory cannot move: numpy
    refuses to resize an array a weak reference points to.)"""
    from kernellab.triton.executor.addresses import region_of, register_array

    x = np.zeros(16, np.float32)
    assert register_array(x) == register_array(x) == x.ctypes.data
    assert region_of(x.ctypes.data + 4 * 15)[2] is x
    with pytest.raises(ValueError):
        x.resize(1 << 20, refcheck=False)
    for _ in range(50):  # ids of dead arrays are reused by new ones
        y = np.ones(8, np.float32)
        assert register_array(y) == y.ctypes.data and region_of(y.ctypes.data + 28)[2] is y
        del y


@pytest.mark.parametrize("other", ["A100", "A6000"])
def test_a_launch_after_the_modelled_gpu_changed_counts_as_cold(other):
    """The counts are the compiled code's for sm_80 and sm_90 alike (both columns), so the modelled GPU
    changes none of them; a cache that kept something of the GPU without it in its key would show here."""
    from kernellab.triton.runtime.driver import set_gpu

    kernel = triton.jit(K.add_kernel.fn)
    case = CASES["n 4097 (not a multiple of 16)"]
    before = _launch(kernel, case)
    previous = set_gpu(other)
    try:
        warm = _launch(kernel, case)
        cold = _cold(K.add_kernel, case)
    finally:
        set_gpu(previous)
    assert warm == cold == before


# --- arguments that compare equal but differ in bits, counts a caller changes, dtypes under one key ---------

def _f32_bits(bits: int) -> np.float32:
    return np.array([bits], np.uint32).view(np.float32)[0]


def _f64_bits(bits: int) -> float:
    return float(np.array([bits], np.uint64).view(np.float64)[0])


@triton.jit
def _select_kernel(x_ptr, out_ptr, s, n, C: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, tl.where(x > 0, s, C), mask=offs < n)  # s's bits where x > 0, C's elsewhere


# (a scalar, its bits as fp32): Triton passes a Python float as fp32, and a NaN keeps its top payload bits
SCALARS = [
    (0.0, 0x00000000),
    (-0.0, 0x80000000),
    (_f64_bits(0x7FF8_1000_0000_0000), 0x7FC0_8000),  # quiet NaNs: mantissa bits 51, 44 → fp32 bits 22, 15
    (_f64_bits(0x7FF8_2000_0000_0000), 0x7FC1_0000),  # … bits 51, 45 → 22, 16
    (np.float32(0.0), 0x00000000),  # numpy float32 scalars: their own bits
    (np.float32(-0.0), 0x80000000),
    (_f32_bits(0x7FC0_0001), 0x7FC0_0001),
    (_f32_bits(0x7FC0_0002), 0x7FC0_0002),
]


@pytest.mark.parametrize("replay", [False, True], ids=["fresh", "replaying"])
@pytest.mark.parametrize("which", ["argument", "constexpr"])
def test_scalars_equal_but_for_their_bits_are_launches_of_their_own(which, replay):
    """+0.0 and −0.0 compare equal, and NaNs with different payloads are all NaN to a key by value. Each
    launch must give the bits of its own scalar, whatever launches came before with the others (a first
    launch, one that learns, records, replays), as a scalar argument and as a ``tl.constexpr``."""
    x = np.array([1.0, -2.0] * 128, np.float32)  # the scalar at even lanes, 5.0 at odd ones (or the other way)
    kernel = triton.jit(_select_kernel.fn)  # a kernel of its own: its records are this test's
    for _round in range(3):
        for value, bits in SCALARS:
            out = np.zeros_like(x)
            s, c = (value, 5.0) if which == "argument" else (5.0, value)
            with triton.replaying() if replay else nullcontext():
                kernel[(2,)](x, out, s, x.size, C=c, BLOCK=128)
            mine, fixed = (out[0::2], out[1::2]) if which == "argument" else (out[1::2], out[0::2])
            assert (mine.view(np.uint32) == bits).all(), (value, hex(int(mine.view(np.uint32)[0])))
            assert (fixed == 5.0).all()


def _counts_snapshot(c):
    """Every field of ``c``, dicts copied."""
    return {f.name: copy.deepcopy(getattr(c, f.name)) for f in dataclasses.fields(c)}


@pytest.mark.parametrize("replay", [False, True], ids=["fresh", "replaying"])
def test_counts_a_caller_changes_are_not_seen_by_the_next_launch(replay):
    """The counts a launch returns are the caller's: changing their dicts in place (dram_sectors, launch,
    specialization) changes no later launch's counts, fresh, recorded or replayed."""
    x = np.arange(1000, dtype=np.float32)
    kernel = triton.jit(K.add_kernel.fn)
    first = None
    for _launch in range(5):
        out = np.zeros_like(x)
        with triton.replaying() if replay else nullcontext():
            c = kernel[(4,)](x, x + 1, out, 1000, BLOCK_SIZE=256)
        np.testing.assert_array_equal(out, 2 * x + 1)
        seen = _counts_snapshot(c)
        if first is None:
            first = seen
        assert seen == first
        # 1000 floats of each array: 4000 B = 125 sectors each
        assert c.dram_sectors == {"x_ptr": 125, "y_ptr": 125, "output_ptr": 125}
        c.dram_sectors["x_ptr"] = -1  # the caller's own business from here on
        c.dram_sectors.clear()
        c.launch["grid"] = (0, 0, 0)
        c.specialization["n_elements"] = "changed"


def test_counts_a_caller_changes_per_line_are_not_seen_by_the_next_launch():
    x = np.arange(1000, dtype=np.float32)
    rows = []
    for _launch in range(4):
        c = K.add_kernel[(4,)](x, x.copy(), np.zeros_like(x), 1000, BLOCK_SIZE=256, lines=True)
        rows.append(sorted((key[1], row, dict(row.dram_sectors)) for key, row in c.by_line.items()))
        for row in c.by_line.values():
            row.dram_sectors.clear()
    assert rows[1:] == rows[:1] * 3
    # each load line touches its array's 1000 floats first: 125 sectors; the store line its output's; the
    # line of the sum touches no memory
    assert sorted(sum(r[2].values()) for r in rows[0]) == [0, 125, 125, 125]


def test_one_autotuned_kernel_with_two_dtypes_and_the_same_key_tunes_each_dtype():
    """Triton keys its autotuning cache on the ``key`` arguments' values and the dtypes of every array
    argument: the same ``n`` in float32 and then float16 is tuned again, and each keeps its own config."""
    seen = []

    def prune(configs, named_args, **kwargs):  # fp32 keeps BLOCK 256, fp16 BLOCK 512 (as a dtype rule might)
        dtype = named_args["x_ptr"].dtype
        seen.append(dtype)
        return [c for c in configs if c.kwargs["BLOCK_SIZE"] == (256 if dtype == np.float32 else 512)]

    tuned = triton.autotune(configs=[triton.Config({"BLOCK_SIZE": 256}), triton.Config({"BLOCK_SIZE": 512})],
                            key=["n_elements"], prune_configs_by={"early_config_prune": prune})(triton.jit(K.add_kernel.fn))
    programs = {}
    for dtype in (np.float32, np.float16, np.float32, np.float16):
        x = np.ones(4096, dtype)
        out = np.zeros_like(x)
        c = tuned[lambda meta: (cdiv(4096, meta["BLOCK_SIZE"]),)](x, x, out, 4096)
        np.testing.assert_array_equal(out, 2 * x)
        programs.setdefault(np.dtype(dtype).name, set()).add(c.programs)
    assert seen == [np.float32, np.float16]  # each dtype tuned once
    assert programs == {"float32": {4096 // 256}, "float16": {4096 // 512}}  # 16 and 8 programs
