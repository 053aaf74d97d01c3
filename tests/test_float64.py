"""numpy's default float64 reaching a kernel is said once per launch (issue 26, "silent dtypes").

``np.random.rand(n)`` into a kernel meant for float32 doubled every byte count and predicted time
without a word. Each launch now warns once, a ``Float64Warning`` at the user's launch line naming every
float64 array, in all three launch forms; ``with kernellab.allow_float64():`` says float64 is meant.
"""

import warnings

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import Float64Warning, allow_float64, launch, triton_launch


def simt_axpy(blk, x, y, a, n):
    i = blk.bx * blk.bdx + blk.tx
    with blk.where(i < n):
        blk.store(y, i, blk.fma(a, blk.load(x, i), blk.load(y, i)))


@triton.jit
def jit_axpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, a * tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


def seed_axpy(tl, x, y, a, n, BLOCK):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y, offs, a * tl.load(x, offs, mask=m) + tl.load(y, offs, mask=m), mask=m)


LAUNCHES = {
    "simt": lambda x, y, a: launch(simt_axpy, 4, 32, args=(x, y, a, 100)),
    "jit": lambda x, y, a: jit_axpy[(4,)](x, y, a, 100, BLOCK=32),
    "seed": lambda x, y, a: triton_launch(seed_axpy, 4, x, y, a, 100, BLOCK=32),
}


def _caught(run, allow=False):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if allow:
            with allow_float64():
                result = run()
        else:
            result = run()
    return result, [w for w in caught if issubclass(w.category, Float64Warning)]


@pytest.mark.parametrize("form", sorted(LAUNCHES))
def test_one_warning_per_launch_naming_every_float64_array(form):
    # np.ones / np.arange without a dtype are float64: two arrays, four accesses, one launch → one warning
    x, y = np.ones(100), np.arange(100.0)
    counts, caught = _caught(lambda: LAUNCHES[form](x, y, 2.0))
    assert len(caught) == 1
    message = str(caught[0].message)
    names = ("x", "y") if form != "jit" else ("x_ptr", "y_ptr")
    assert message.startswith(f"kernel {form}_axpy: ")
    assert f"float64 arrays (numpy's default dtype): {names[0]}, {names[1]}." in message
    assert "allow_float64" in message and f"{names[0]}.astype(np.float32)" in message
    assert caught[0].filename == __file__   # at the launch line, not inside kernellab
    np.testing.assert_array_equal(y, 2.0 + np.arange(100.0))  # the launch still ran, in float64


@pytest.mark.parametrize("form", sorted(LAUNCHES))
def test_float32_arrays_and_float64_scalars_do_not_warn(form):
    x, y = np.ones(100, np.float32), np.arange(100, dtype=np.float32)
    _, caught = _caught(lambda: LAUNCHES[form](x, y, np.float64(2.0)))   # a float64 scalar is no array
    assert caught == []


@pytest.mark.parametrize("form", sorted(LAUNCHES))
def test_allow_float64_says_float64_is_meant(form):
    x, y = np.ones(100), np.arange(100.0)
    counts, caught = _caught(lambda: LAUNCHES[form](x, y, 2.0), allow=True)
    assert caught == []
    # why the warning matters: 100 float64 elements per array load 800 bytes each, float32 400
    c32 = LAUNCHES[form](x.astype(np.float32), y.astype(np.float32), 2.0)
    assert (counts.load_bytes, c32.load_bytes) == (2 * 800, 2 * 400)


def test_a_warnings_filter_works_too_and_other_warnings_still_show():
    x, y = np.ones(100), np.arange(100.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=Float64Warning)
        LAUNCHES["simt"](x, y, 2.0)
        warnings.warn("another warning", stacklevel=1)
    assert [str(w.message) for w in caught] == ["another warning"]
    with allow_float64(), warnings.catch_warnings(record=True) as caught:   # allow_float64 hides nothing else
        warnings.simplefilter("always")
        warnings.warn("still shown", UserWarning, stacklevel=1)
    assert len(caught) == 1


def test_under_strict_warnings_the_launch_fails_at_its_own_line():
    # pytest runs with filterwarnings=error: the warning is an error, as in the downloads session
    for form in sorted(LAUNCHES):
        with pytest.raises(Float64Warning, match=f"kernel {form}_axpy: float64 arrays") as info:
            LAUNCHES[form](np.ones(100), np.ones(100, np.float32), 2.0)
        last = info.traceback[-1]
        assert str(last.path) == __file__ and "LAUNCHES" in str(last.statement), last   # the launch line


def test_the_warning_in_chinese(monkeypatch):
    monkeypatch.setenv("KERNELLAB_LANG", "zh_CN")
    _, caught = _caught(lambda: LAUNCHES["simt"](np.ones(100), np.ones(100), 2.0))
    assert str(caught[0].message).startswith("内核 simt_axpy：float64 数组（numpy 的默认类型）：x, y。")
