"""Launches written to fool the replay (kernellab.triton.replay.cache): each is launched again with the same
signature after something the kernel's Python reads has changed, and must give what a fresh launch gives
(replay off) — a miss, a refusal or a right replay, never the values of the recorded launch — or, where what a
recording captured (a global, a closure cell, a helper, a builtin) has changed, raise a ReplayError that names
it, writing nothing, after which ``kernel.replay_reset()`` records again and gives the fresh launch's values."""

import dataclasses
import sys
import types

import numpy as np
import numpy.random.mtrand as mtrand
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import ReplayError
from kernellab.triton.replay import cache as replay

N = 64


@pytest.fixture(autouse=True)
def _replay_on():
    with replay.replaying():  # (replay is opt-in: these tests ask for it around every launch)
        yield


def _fields(c) -> dict:
    return {f.name: getattr(c, f.name) for f in dataclasses.fields(c) if f.name not in ("per_program", "by_line")}


def _same_as_fresh(kernel, args, meta, grid=(1,)):
    """Launch ``kernel`` on ``args`` and on copies with replay off: bitwise the same arrays, the same counts;
    the launch's replay status."""
    fresh = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got = kernel[grid](*args, **meta)
    status = replay.status(kernel)
    with replay.disabled():
        want = kernel[grid](*fresh, **meta)
    for a, b in zip(args, fresh):
        if isinstance(a, np.ndarray):
            assert a.tobytes() == b.tobytes(), status
    assert _fields(got) == _fields(want)
    return status


def _refused_as_changed(kernel, args, meta, changed, old, new, grid=(1,)):
    """The launch raises ReplayError naming the kernel and the place whose value changed, from ``old`` to
    ``new`` (reprs), and writes nothing."""
    before = [a.copy() for a in args if isinstance(a, np.ndarray)]
    with pytest.raises(ReplayError) as err:
        kernel[grid](*args, **meta)
    assert isinstance(err.value, RuntimeError)  # what Triton raises for a changed global
    assert err.value.details == {"kernel": kernel.__name__, "changed": changed, "old": old, "new": new}
    assert f"{kernel.__name__}.replay_reset()" in str(err.value)
    jit = kernel.fn if isinstance(kernel.fn, type(apply_kernel)) else kernel  # (the kernel a wrapper launches)
    assert replay.status(jit) == "changed: " + changed  # it ran nothing
    assert [a.tobytes() for a in args if isinstance(a, np.ndarray)] == [a.tobytes() for a in before]


def _after_reset(kernel, args, meta, grid=(1,)):
    """``kernel.replay_reset()``, then a launch: recorded anew, the fresh launch's arrays and counts."""
    kernel.replay_reset()
    status = _same_as_fresh(kernel, args, meta, grid)
    assert status == "recorded", status


@triton.jit
def apply_kernel(x_ptr, out_ptr, F: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, F(tl.load(x_ptr + offs)))


def _scaled_by(k):
    return lambda x: x * k


def test_a_new_closure_at_a_freed_ones_address_is_a_miss():
    # each launch passes a new lambda; the last one is freed, and CPython often puts the next at its
    # address: a key holding id(F) replayed 0·x for every k (the first launch's closure)
    replay.clear(apply_kernel)
    x = np.ones(N, np.float32)
    for k in range(5):
        out = np.zeros(N, np.float32)
        _same_as_fresh(apply_kernel, [x, out, _scaled_by(float(k))], {"BLOCK": N})
        assert out[0] == k  # 1·k


BOX = [1.0]
LAM = lambda x: x * BOX[0]  # noqa: E731  (its global BOX is a list: not a constant)
G = 2.0


def _times_g(x):
    return x * G


@triton.jit
def _times_g_jit(x):
    return x * G


def test_a_function_constexprs_global_changed_is_an_error(monkeypatch):
    # F's code reads G: 2.0 recorded, then 3.0. The replay keyed F by identity alone gave 2·x; a new
    # recording per value hid the change. Now the launch raises, and after the reset gives 3·x.
    x = np.ones(N, np.float32)
    for F, name in ((_times_g, "_times_g"), (_times_g_jit, "_times_g_jit")):
        replay.clear(apply_kernel)
        monkeypatch.setattr(sys.modules[__name__], "G", 2.0)
        out = np.zeros(N, np.float32)
        assert [_same_as_fresh(apply_kernel, [x, out, F], {"BLOCK": N}) for _ in range(2)] == ["recorded", "replayed"]
        assert out[0] == 2.0  # 1·2
        monkeypatch.setattr(sys.modules[__name__], "G", 3.0)
        out = np.full(N, -1, np.float32)
        _refused_as_changed(apply_kernel, [x, out, F], {"BLOCK": N}, f"global G (read by {name})", "2.0", "3.0")
        _after_reset(apply_kernel, [x, out, F], {"BLOCK": N})
        assert out[0] == 3.0  # 1·3
    assert _same_as_fresh(apply_kernel, [x, np.zeros(N, np.float32), LAM], {"BLOCK": N}).startswith("unsupported")


def _helper(x):
    return x * G + _helper.offset


_helper.offset = 0.0


@triton.jit
def plain_helper_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, _helper(tl.load(x_ptr + offs)))


def test_a_plain_helpers_global_or_attribute_changed_is_an_error(monkeypatch):
    replay.clear(plain_helper_kernel)
    x = np.ones(N, np.float32)
    monkeypatch.setattr(sys.modules[__name__], "G", 2.0)
    monkeypatch.setattr(_helper, "offset", 0.0)
    for want in ("recorded", "replayed"):
        assert _same_as_fresh(plain_helper_kernel, [x, np.zeros(N, np.float32)], {"BLOCK": N}) == want
    for change, changed, old, new, value in (
            (lambda: monkeypatch.setattr(sys.modules[__name__], "G", 5.0), "global G (read by _helper)", "2.0",
             "5.0", 5.0),  # 1·5 + 0
            (lambda: monkeypatch.setattr(_helper, "offset", 1.0), "attribute _helper.offset", "0.0", "1.0",
             6.0)):  # 1·5 + 1
        change()
        out = np.full(N, -1, np.float32)
        _refused_as_changed(plain_helper_kernel, [x, out], {"BLOCK": N}, changed, old, new)
        _after_reset(plain_helper_kernel, [x, out], {"BLOCK": N})
        assert out[0] == value


def _times_default(x, k=1.0):
    return x * k


@triton.jit
def default_helper_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, _times_default(tl.load(x_ptr + offs)))


def test_a_plain_helpers_defaults_changed_is_an_error(monkeypatch):
    replay.clear(default_helper_kernel)
    x = np.ones(N, np.float32)
    for want in ("recorded", "replayed"):
        assert _same_as_fresh(default_helper_kernel, [x, np.zeros(N, np.float32)], {"BLOCK": N}) == want
    monkeypatch.setattr(_times_default, "__defaults__", (3.0,))
    out = np.full(N, -1, np.float32)
    _refused_as_changed(default_helper_kernel, [x, out], {"BLOCK": N}, "defaults of _times_default", "(1.0,)", "(3.0,)")
    _after_reset(default_helper_kernel, [x, out], {"BLOCK": N})
    assert out[0] == 3.0  # 1·3


OFFSETS = tuple(range(40))


@triton.jit
def long_global_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) + OFFSETS[1])


def test_a_long_value_is_shown_shortened(monkeypatch):
    # a value's repr past 60 characters is cut to 59 and an ellipsis: the message stays one readable line
    replay.clear(long_global_kernel)
    x = np.zeros(N, np.float32)
    long_global_kernel[(1,)](x, np.zeros(N, np.float32), BLOCK=N)
    monkeypatch.setattr(sys.modules[__name__], "OFFSETS", tuple(range(1, 41)))
    old, new = repr(tuple(range(40))), repr(tuple(range(1, 41)))  # 150 and 151 characters
    _refused_as_changed(long_global_kernel, [x, np.zeros(N, np.float32)], {"BLOCK": N}, "global OFFSETS",
                        old[:59] + "…", new[:59] + "…")


settings = types.ModuleType("kernellab.settings_for_a_test")  # a library's module: its settings are read
settings.SCALE = 1.0


@triton.jit
def module_setting_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * settings.SCALE)


def test_a_library_modules_setting_changed_is_an_error(monkeypatch):
    replay.clear(module_setting_kernel)
    x = np.ones(N, np.float32)
    monkeypatch.setattr(settings, "SCALE", 1.0)
    for want in ("recorded", "replayed"):
        assert _same_as_fresh(module_setting_kernel, [x, np.zeros(N, np.float32)], {"BLOCK": N}) == want
    monkeypatch.setattr(settings, "SCALE", 4.0)
    out = np.full(N, -1, np.float32)
    _refused_as_changed(module_setting_kernel, [x, out], {"BLOCK": N},
                        "setting kernellab.settings_for_a_test.SCALE", "1.0", "4.0")
    _after_reset(module_setting_kernel, [x, out], {"BLOCK": N})
    assert out[0] == 4.0  # 1·4


@triton.jit
def flat_read_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * x_ptr.flat[0])  # memory read past tl.load


@triton.jit
def private_data_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    first = int((x._data if x._data is not None else x._lazy()).argmax())  # the values, past .data
    tl.store(out_ptr + offs + first, x, mask=offs < 1)



@triton.jit
def assigns_global_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    global COUNT
    COUNT = n
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))


@triton.jit
def numpy_random_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) + np.random.random())  # noqa: NPY002  (the legacy module: the point)


@triton.jit
def globals_dict_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * globals()["G"])  # G by a string: not in the code's names


@triton.jit
def getattr_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * getattr(settings, "SCALE"))  # noqa: B009  (by a string: the point)


@pytest.mark.parametrize("kernel,extra,out_size", [(flat_read_kernel, [], N), (private_data_kernel, [], 2 * N),
                                                   (assigns_global_kernel, [5], N), (globals_dict_kernel, [], N),
                                                   (getattr_kernel, [], N)])
def test_python_a_replay_would_skip_runs_fresh(kernel, extra, out_size, monkeypatch):
    replay.clear(kernel)
    rng = np.random.default_rng(0)
    for g in (2.0, 3.0, 4.0):  # what globals_dict_kernel and getattr_kernel read changes each launch
        monkeypatch.setattr(sys.modules[__name__], "G", g)
        monkeypatch.setattr(settings, "SCALE", g)
        x = rng.standard_normal(N).astype(np.float32)
        status = _same_as_fresh(kernel, [x, np.zeros(out_size, np.float32), *extra], {"BLOCK": N})
        assert status.startswith("unsupported"), status


@triton.jit
def mtrand_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) + mtrand.rand())


@pytest.mark.parametrize("kernel", [numpy_random_kernel, mtrand_kernel])
def test_numpy_random_in_a_kernel_runs_fresh(kernel):
    replay.clear(kernel)
    x = np.zeros(N, np.float32)
    outs = []
    for _ in range(3):
        outs.append(np.zeros(N, np.float32))
        kernel[(1,)](x, outs[-1], BLOCK=N)
        assert replay.status(kernel).startswith("unsupported")
    assert len({o[0] for o in outs}) == 3  # a new random number each launch (a replay kept the first)


def _outcome(kernel, args, meta, grid):
    try:
        kernel[grid](*args, **meta)
        return None
    except Exception as exc:  # what a launch raised is the point
        return type(exc), str(exc)


def _errors_as_fresh(kernel, make, meta, grid=(1,)):
    """Record on good data, then launch on data that makes the kernel raise: the same error as a fresh
    launch's, and the same arrays after it; the status of the recording."""
    replay.clear(kernel)
    rng = np.random.default_rng(1)
    kernel[grid](*make(rng, False), **meta)
    recorded = replay.status(kernel)
    args = make(rng, True)
    fresh = [a.copy() for a in args]
    got = _outcome(kernel, args, meta, grid)
    with replay.disabled():
        want = _outcome(kernel, fresh, meta, grid)
    assert want is not None and got == want
    for a, b in zip(args, fresh):
        assert a.tobytes() == b.tobytes()
    return recorded


@triton.jit
def unused_gather_kernel(x_ptr, i_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    _unused = tl.gather(x, tl.load(i_ptr + offs), 0)  # checks its index, though nothing stores it
    tl.store(out_ptr + offs, x * 2)


@triton.jit
def gather_each_row_kernel(x_ptr, i_ptr, out_ptr, BLOCK: tl.constexpr):
    for k in range(3):  # each program stores a row, then gathers the next
        offs = (tl.program_id(0) * 3 + k) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.gather(tl.load(x_ptr + offs), tl.load(i_ptr + offs), 0))


def _gather_args(rows, bad_row):
    def make(rng, bad):
        idx = rng.integers(0, N, rows * N).astype(np.int32)
        if bad:
            idx[bad_row * N + 5] = N  # one index out of [0, 64)
        return [rng.standard_normal(rows * N).astype(np.float32), idx, np.zeros(rows * N, np.float32)]
    return make


def test_an_unused_gather_still_raises_on_a_bad_index():
    # the replay dropped the gather nothing stores, and stored 2·x where a fresh launch raises IndexError
    assert _errors_as_fresh(unused_gather_kernel, _gather_args(1, 0), {"BLOCK": N}) == "recorded"


def test_a_gather_after_a_store_is_refused():
    # the replay raised at program 1's second row having stored both programs' first rows; a fresh launch
    # leaves other rows stored
    status = _errors_as_fresh(gather_each_row_kernel, _gather_args(6, 4), {"BLOCK": N}, grid=(2,))  # row 4: program 1's second
    assert status.startswith("refused"), status


def _made_kernel():
    @triton.jit
    def made(x_ptr, out_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs) * 2)

    return made


def test_kernels_a_program_drops_are_not_kept_by_the_total():
    # each trace of a tiny kernel counts a few bytes against TOTAL: the list of kept traces held every
    # kernel ever made (about 9 kB each), however many the program had dropped
    import gc
    import weakref

    x, out = np.ones(N, np.float32), np.zeros(N, np.float32)
    refs = []
    for _ in range(20):
        k = _made_kernel()
        k[(1,)](x, out, BLOCK=N)
        assert replay.status(k) == "recorded"
        refs.append(weakref.ref(k))
        del k
    gc.collect()
    assert sum(r() is not None for r in refs) == 0
    assert not any(ref() is None for ref, _n in list(replay._KEPT.values())[:-1])  # the dead ones' entries dropped


@triton.jit
def scalar_in_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs * 0) + offs)


def test_check_mode_compares_a_0d_array(monkeypatch):
    # KERNELLAB_REPLAY=check compared arrays as .view(np.uint8), which a 0-d array refuses (ValueError)
    monkeypatch.setattr(replay, "CHECK", True)
    replay.clear(scalar_in_kernel)
    checked = replay.CHECKED[0]
    for v in (1.5, 2.5):
        out = np.zeros(N, np.float32)
        scalar_in_kernel[(1,)](np.array(v, np.float32), out, BLOCK=N)
        assert out[3] == v + 3
    assert replay.status(scalar_in_kernel) == "replayed" and replay.CHECKED[0] == checked + 1


@triton.jit
def closure_over_data_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    total = tl.sum(tl.load(x_ptr + offs), 0)

    def combine(a, b):
        return a + b + total  # data, though the reduce is given only a static block

    tl.store(out_ptr + offs, tl.reduce(offs.to(tl.float32), 0, combine) + offs * 0)


@triton.jit
def closure_reassigned_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    shift = 1.0

    def combine(a, b):
        return a + b + shift

    reduced = tl.reduce(tl.load(x_ptr + offs), 0, combine)
    shift = 100.0  # the cell a replay's call would read
    tl.store(out_ptr + offs, reduced + offs * 0)


@pytest.mark.parametrize("kernel", [closure_over_data_kernel, closure_reassigned_kernel])
def test_a_nested_combine_function_is_refused(kernel, monkeypatch):
    # Triton 3.9 refuses a function defined inside a kernel at its def (kernellab too, before any replay: its
    # UnsupportedLanguageConstruct, writing nothing); with that check off, the replay still refuses the closure.
    # It called the recorded launch's function: the first one's sum of x (a static reduce, its result kept), or
    # the cell as the body left it (100 where the reduce saw 1)
    from kernellab.triton.compiler import limits
    from kernellab.triton.compiler.errors import UnsupportedLanguageConstruct

    replay.clear(kernel)
    x, out = np.ones(N, np.float32), np.zeros(N, np.float32)
    with pytest.raises(UnsupportedLanguageConstruct, match="nested function definitions are not allowed"):
        kernel[(1,)](x, out, BLOCK=N)
    assert not out.any()
    monkeypatch.setattr(limits, "control_flow", lambda *a: None)
    rng = np.random.default_rng(2)
    for _ in range(3):
        x = rng.standard_normal(N).astype(np.float32)
        status = _same_as_fresh(kernel, [x, np.zeros(N, np.float32)], {"BLOCK": N})
        assert status.startswith("refused"), status


SHIFT = tl.constexpr(0)


@triton.jit
def constexpr_global_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs + SHIFT, tl.load(x_ptr + offs))


def test_a_global_constexprs_value_set_again_is_an_error(monkeypatch):
    # the key of a global is kept with the object it was made from, for the next launch; a constexpr
    # object's .value may be set (Triton's test_cache_closure): the replay stored at the first launch's shift
    replay.clear(constexpr_global_kernel)
    x = np.arange(N, dtype=np.float32)
    monkeypatch.setattr(SHIFT, "value", 0)
    for want in ("recorded", "replayed"):
        assert _same_as_fresh(constexpr_global_kernel, [x, np.zeros(N + 4, np.float32)], {"BLOCK": N}) == want
    monkeypatch.setattr(SHIFT, "value", 3)
    out = np.zeros(N + 4, np.float32)
    _refused_as_changed(constexpr_global_kernel, [x, out], {"BLOCK": N}, "global SHIFT", "constexpr[0]",
                        "constexpr[3]")
    _after_reset(constexpr_global_kernel, [x, out], {"BLOCK": N})
    assert out[3 + 1] == 1.0  # x[1] at 1 + shift


@triton.jit
def loop_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    acc = x
    for _ in range(n):
        acc = acc * 0.5 + x  # two nodes an iteration
    tl.store(out_ptr + offs, acc)


def test_a_traces_nodes_count_against_its_budget(monkeypatch):
    # a loop's trace keeps its nodes (about 0.6 kB each: 40 000 kept 23.6 MB), which counted nothing:
    # a few bytes of offsets stood for the whole trace against BUDGET and TOTAL
    from kernellab.triton.replay import trace

    monkeypatch.setattr(replay, "BUDGET", 100 * trace.NODE_BYTES)
    replay.clear(loop_kernel)
    x = np.ones(N, np.float32)
    for n, want in ((10, "recorded"), (60, "refused: the trace would keep more than")):  # 22, 122 nodes
        status = _same_as_fresh(loop_kernel, [x, np.zeros(N, np.float32), n], {"BLOCK": N})
        assert status.startswith(want), status
    assert max(b for _r, b in replay._KEPT.values()) >= 22 * trace.NODE_BYTES


# --- issue 33: what a recording captured is read again at every miss; where it no longer holds, a ReplayError ---


@triton.jit
def late_global_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * LATE_SCALE)  # noqa: F821 (defined by the test, later)


def test_the_notebook_sequence_a_constant_defined_after_the_first_launch():
    # launched before LATE_SCALE exists (NameError), then LATE_SCALE = 2.0, launch, 3.0, launch: the replay
    # made the missing name no part of its key and gave 2·x for every later value
    replay.clear(late_global_kernel)
    x, out = np.arange(N, dtype=np.float32), np.zeros(N, np.float32)
    g = globals()
    try:
        with pytest.raises(NameError):
            late_global_kernel[(1,)](x, out, BLOCK=N)
        g["LATE_SCALE"] = 2.0
        assert [_same_as_fresh(late_global_kernel, [x, out], {"BLOCK": N}) for _ in range(2)] == ["recorded", "replayed"]
        assert out.tolist() == (x * np.float32(2.0)).tolist()
        for old, scale in ((2.0, 3.0), (3.0, 5.0)):
            g["LATE_SCALE"] = scale
            out = np.full(N, -1, np.float32)
            _refused_as_changed(late_global_kernel, [x, out], {"BLOCK": N}, "global LATE_SCALE", repr(old), repr(scale))
            _after_reset(late_global_kernel, [x, out], {"BLOCK": N})
            assert out.tolist() == (x * np.float32(scale)).tolist()
    finally:
        g.pop("LATE_SCALE", None)


@triton.jit
def branch_global_kernel(x_ptr, out_ptr, F: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs)
    if F:
        v = v * BRANCH_SCALE  # noqa: F821 (read only in the branch the first launch does not take)
    tl.store(out_ptr + offs, v)


def test_a_global_read_only_in_a_constexpr_branch_the_first_launch_skips():
    # recorded with F=False while BRANCH_SCALE did not exist; defined later, it is a capture that changed
    replay.clear(branch_global_kernel)
    x, out = np.arange(N, dtype=np.float32), np.zeros(N, np.float32)
    g = globals()
    try:
        assert _same_as_fresh(branch_global_kernel, [x, out], {"F": False, "BLOCK": N}) == "recorded"
        g["BRANCH_SCALE"] = 2.0
        out = np.full(N, -1, np.float32)
        _refused_as_changed(branch_global_kernel, [x, out], {"F": True, "BLOCK": N}, "global BRANCH_SCALE",
                            "<undefined>", "2.0")
        _after_reset(branch_global_kernel, [x, out], {"F": True, "BLOCK": N})
        assert out.tolist() == (x * np.float32(2.0)).tolist()
        g["BRANCH_SCALE"] = 5.0
        _refused_as_changed(branch_global_kernel, [x, out], {"F": True, "BLOCK": N}, "global BRANCH_SCALE",
                            "2.0", "5.0")
        _after_reset(branch_global_kernel, [x, out], {"F": True, "BLOCK": N})
        assert out.tolist() == (x * np.float32(5.0)).tolist()
    finally:
        g.pop("BRANCH_SCALE", None)


@triton.jit
def _scale_helper(v):
    return v * HELPER_SCALE  # noqa: F821 (defined by the test, after the first launch)


@triton.jit
def helper_global_kernel(x_ptr, out_ptr, F: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs)
    if F:
        v = _scale_helper(v)
    tl.store(out_ptr + offs, v)


def test_a_global_read_inside_a_jit_helper():
    replay.clear(helper_global_kernel)
    x, out = np.arange(N, dtype=np.float32), np.zeros(N, np.float32)
    g = globals()
    try:
        g["HELPER_SCALE"] = 2.0
        for want in ("recorded", "replayed"):
            assert _same_as_fresh(helper_global_kernel, [x, out], {"F": True, "BLOCK": N}) == want
        assert out.tolist() == (x * np.float32(2.0)).tolist()
        g["HELPER_SCALE"] = 7.0
        out = np.full(N, -1, np.float32)
        _refused_as_changed(helper_global_kernel, [x, out], {"F": True, "BLOCK": N},
                            "global HELPER_SCALE (read by _scale_helper)", "2.0", "7.0")
        _after_reset(helper_global_kernel, [x, out], {"F": True, "BLOCK": N})
        assert out.tolist() == (x * np.float32(7.0)).tolist()
    finally:
        g.pop("HELPER_SCALE", None)


@triton.jit
def builtin_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, abs(tl.load(x_ptr + offs) - 3))


def _times_100(v):
    return v * 100


def test_a_builtin_shadowed_later_in_the_module():
    replay.clear(builtin_kernel)
    x, out = np.arange(N, dtype=np.float32), np.zeros(N, np.float32)
    g = globals()
    assert [_same_as_fresh(builtin_kernel, [x, out], {"BLOCK": N}) for _ in range(2)] == ["recorded", "replayed"]
    assert out.tolist() == np.abs(x - 3).tolist()
    try:
        g["abs"] = _times_100  # the module's own abs, defined after the kernel ran
        out = np.full(N, -1, np.float32)
        _refused_as_changed(builtin_kernel, [x, out], {"BLOCK": N}, "global abs", "builtins.abs", repr(_times_100))
        _after_reset(builtin_kernel, [x, out], {"BLOCK": N})
        assert out.tolist() == ((x - 3) * 100).tolist()
    finally:
        g.pop("abs", None)


def _kernel_over_a_cell():
    scale = 2.0

    @triton.jit
    def cell_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs) * scale)

    def set_scale(v):
        nonlocal scale
        scale = v

    return cell_kernel, set_scale


def test_a_closure_cell_set_again():
    # a kernel made by a factory reads its scale from a closure cell; the cell set to 4.0 after the recording
    kernel, set_scale = _kernel_over_a_cell()
    x = np.arange(N, dtype=np.float32)
    for want in ("recorded", "replayed"):
        out = np.zeros(N, np.float32)
        assert _same_as_fresh(kernel, [x, out], {"BLOCK": N}) == want
    assert out.tolist() == (x * np.float32(2.0)).tolist()
    set_scale(4.0)
    out = np.full(N, -1, np.float32)
    _refused_as_changed(kernel, [x, out], {"BLOCK": N}, "closure cell scale", "2.0", "4.0")
    _after_reset(kernel, [x, out], {"BLOCK": N})
    assert out.tolist() == (x * np.float32(4.0)).tolist()


def test_a_wrapped_kernel_is_reset_through_its_wrapper():
    # @triton.heuristics around the kernel: the error names the jit kernel; the wrapper's replay_reset is its
    kernel, set_scale = _kernel_over_a_cell()
    wrapped = triton.heuristics({"BLOCK": lambda args: N})(kernel)
    x = np.arange(N, dtype=np.float32)
    wrapped[(1,)](x, np.zeros(N, np.float32))
    set_scale(5.0)
    out = np.full(N, -1, np.float32)
    _refused_as_changed(wrapped, [x, out], {}, "closure cell scale", "2.0", "5.0")
    wrapped.replay_reset()
    wrapped[(1,)](x, out)
    assert replay.status(kernel) == "recorded" and out[1] == 5.0  # 1·5


def test_a_changed_capture_is_an_error_only_where_replay_is_asked(monkeypatch):
    # without replay every launch is fresh: the new value, no error; in the reader's language, the message
    kernel, set_scale = _kernel_over_a_cell()
    x = np.arange(N, dtype=np.float32)
    kernel[(1,)](x, np.zeros(N, np.float32), BLOCK=N)
    set_scale(3.0)
    out = np.zeros(N, np.float32)
    with replay.disabled():
        kernel[(1,)](x, out, BLOCK=N)
    assert replay.status(kernel) == "off" and out[1] == 3.0  # 1·3
    monkeypatch.setenv("KERNELLAB_LANG", "zh_CN")
    with pytest.raises(ReplayError, match=r"^内核 cell_kernel：外层函数的变量 scale 自重放记录该内核以来已改变，从 2.0 变为 3.0；"
                                          r".*cell_kernel\.replay_reset\(\)"):
        kernel[(1,)](x, out, BLOCK=N)


@triton.jit
def private_read_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs)
    if float(object.__getattribute__(v, "_data").reshape(-1)[0]) > 0:  # the block's numpy, around the check
        v = v + 100
    tl.store(out_ptr + offs, v)


def test_object_getattribute_around_the_private_state_check():
    replay.clear(private_read_kernel)
    out = np.zeros(N, np.float32)
    x = np.arange(N, dtype=np.float32)  # x[0] = 0: no + 100
    for _ in range(2):
        assert _same_as_fresh(private_read_kernel, [x, out], {"BLOCK": N}).startswith("unsupported")
    x = x + 1  # x[0] = 1: + 100, as a fresh launch gives
    _same_as_fresh(private_read_kernel, [x, out], {"BLOCK": N})
    assert out.tolist() == (x + 100).tolist()


@triton.jit
def gather_in_place_kernel(x_ptr, i_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(x_ptr + offs, tl.gather(x, tl.load(i_ptr + offs), 0))


def test_a_replay_that_raises_leaves_memory_as_a_fresh_launch():
    # in place, an index out of range in program 3: a fresh launch runs programs 0-2 (they store) before
    # program 3 raises; the replay raised before storing anything, and left the array as it was
    replay.clear(gather_in_place_kernel)
    idx = np.tile(np.int32([3, 2, 1, 0]), 4)
    statuses = [_same_as_fresh(gather_in_place_kernel, [np.arange(16, dtype=np.float32), idx], {"BLOCK": 4},
                               grid=(4,)) for _ in range(2)]
    assert statuses == ["recorded", "replayed"]
    bad = idx.copy()
    bad[13] = 99
    got, want = np.arange(16, dtype=np.float32), np.arange(16, dtype=np.float32)
    with pytest.raises(IndexError) as replayed:
        gather_in_place_kernel[(4,)](got, bad, BLOCK=4)
    with replay.disabled(), pytest.raises(IndexError) as fresh:
        gather_in_place_kernel[(4,)](want, bad, BLOCK=4)
    assert str(replayed.value) == str(fresh.value)
    assert got.tolist() == want.tolist() == [3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 12, 13, 14, 15]
