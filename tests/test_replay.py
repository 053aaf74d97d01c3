"""Record once, replay per signature (kernellab.triton.replay.cache): a replayed launch gives bitwise the values
and exactly the counts of a fresh launch on the same (new) data; data-dependent launches are refused;
a changed signature is a miss, never a wrong hit."""

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import errors as kernellab_errors
from kernellab import record as klrecord
from kernellab.triton.replay import cache as replay
from tests.reference import fresh_module


@pytest.fixture(autouse=True)
def _replay_on():
    with replay.replaying():  # (replay is opt-in: these tests ask for it around every launch)
        yield


ROOT = Path(__file__).resolve().parents[1]
K = fresh_module(ROOT / "tests" / "triton_kernels.py", "kl_triton_kernels_replay")
S = fresh_module(ROOT / "benchmarks" / "speed_kernels.py", "kl_speed_kernels_replay")


def _fields(c) -> dict:
    d = {f.name: getattr(c, f.name) for f in dataclasses.fields(c) if f.name not in ("per_program", "by_line")}
    return d


def _bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).view(np.uint8).tobytes()


def _launch(kernel, grid, args, meta):
    return kernel[grid](*args, **meta)


def check_replay(kernel, grid, make, seed=0, **meta):
    """Record on one set of random arrays, replay on another of the same signature; the replay's arrays and
    counts must equal a fresh launch's (replay off) on a copy of that second set."""
    rng = np.random.default_rng(seed)
    replay.clear(kernel)
    for _ in range(3):  # the first launch may learn hints (a split tail) and record on the next
        _launch(kernel, grid, make(rng), meta)
        if replay.status(kernel) == "recorded":
            break
    assert replay.status(kernel) == "recorded", replay.status(kernel)
    args = make(rng)
    fresh_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with klrecord.recording() as seen:
        got = _launch(kernel, grid, args, meta)
    assert replay.status(kernel) == "replayed"
    with replay.disabled():
        want = _launch(kernel, grid, fresh_args, meta)
    for a, b in zip(args, fresh_args):
        if isinstance(a, np.ndarray):
            assert _bits(a) == _bits(b)
    assert _fields(got) == _fields(want)
    assert got.specialization == want.specialization and got.launch == want.launch
    assert [ln.counts for ln in seen] == [got]  # the recorder heard of the replayed launch
    return got


def _f32(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


CASES = {
    "add": lambda: check_replay(K.add_kernel, (4,), lambda r: [_f32(r, 1000), _f32(r, 1000), np.zeros(1000, np.float32),
                                                                  1000], BLOCK_SIZE=256),
    "add_full": lambda: check_replay(K.add_kernel, (4,), lambda r: [_f32(r, 1024), _f32(r, 1024),
                                                                       np.zeros(1024, np.float32), 1024], BLOCK_SIZE=256),
    "softmax": lambda: check_replay(K.softmax_kernel, (7,), lambda r: [np.zeros((7, 100), np.float32), _f32(r, 7, 100),
                                                                          100, 100, 100], BLOCK_SIZE=128),
    "softmax_strided": lambda: check_replay(K.softmax_kernel, (7,), lambda r: [np.zeros((7, 130), np.float32),
                                                                                  _f32(r, 7, 120), 120, 130, 100],
                                            BLOCK_SIZE=128),  # rows 120 and 130 apart, the first 100 lanes kept
    "matmul": lambda: check_replay(
        K.matmul_kernel, (4,), lambda r: [r.standard_normal((128, 128)).astype(np.float16),
                                          r.standard_normal((128, 128)).astype(np.float16),
                                          np.zeros((128, 128), np.float16), 128, 128, 128, 128, 1, 128, 1, 128, 1],
        BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, GROUP_SIZE_M=8, ACTIVATION=""),
    "matmul_masked": lambda: check_replay(
        K.matmul_kernel, (6,), lambda r: [r.standard_normal((100, 72)).astype(np.float16),
                                          r.standard_normal((72, 90)).astype(np.float16),
                                          np.zeros((100, 90), np.float16), 100, 90, 72, 72, 1, 90, 1, 90, 1],
        BLOCK_SIZE_M=64, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32, GROUP_SIZE_M=2, ACTIVATION="leaky_relu"),
    "layer_norm_tutorial": lambda: check_replay(
        K._layer_norm_fwd_fused, (5,), lambda r: [_f32(r, 5, 300), np.zeros((5, 300), np.float32), _f32(r, 300),
                                                  _f32(r, 300), np.zeros(5, np.float32), np.zeros(5, np.float32),
                                                  300, 300, 1e-5], BLOCK_SIZE=128),
    "reduce": lambda: check_replay(K.reduce_kernel, (1,), lambda r: [_f32(r, 6, 10), np.zeros(16, np.float32),
                                                                     np.zeros(16, np.float32), np.zeros(16, np.float32),
                                                                     np.zeros(16, np.int32), 6, 10],
                                   AXIS=1, BR=8, BC=16),
    "math": lambda: check_replay(K.math_kernel, (3,), lambda r: [_f32(r, 300), np.zeros(300, np.float32), 300], BLOCK=128),
    "intdiv": lambda: check_replay(K.intdiv_kernel, (2,), lambda r: [r.integers(-50, 50, 200).astype(np.int32),
                                                                     r.integers(1, 9, 200).astype(np.int32),
                                                                     np.zeros(200, np.int32), np.zeros(200, np.int32), 200],
                                   BLOCK=128),
    "transpose": lambda: check_replay(K.transpose_kernel, (3, 2), lambda r: [_f32(r, 40, 30), np.zeros((30, 40), np.float32),
                                                                             40, 30], BM=16, BN=16),
    "half": lambda: check_replay(K.half_kernel, (2,), lambda r: [r.standard_normal(200).astype(np.float16),
                                                                 np.zeros(200, np.float16), 200], BLOCK=128),
    "shifted_copy": lambda: check_replay(K.shifted_copy_kernel, (2,), lambda r: [_f32(r, 300), np.zeros(200, np.float32),
                                                                                 200, 7], BLOCK=128),
    "dropout": lambda: check_replay(K.seeded_dropout_kernel, (2,), lambda r: [_f32(r, 200), np.zeros(200, np.float32),
                                                                              200, 0.5, 123], BLOCK_SIZE=128),
    "scan": lambda: check_replay(K.scan_kernel, (1,), lambda r: [
        _f32(r, 8, 16), r.integers(-50, 50, (8, 16)).astype(np.int32), np.zeros(3 * 128 + 16, np.float32),
        np.zeros(3 * 128 + 6 * 16, np.int32)], R=8, C=16, AXIS=1, L=8),
    "math2": lambda: check_replay(K.math2_kernel, (2,), lambda r: [_f32(r, 100), np.zeros(800, np.float32), 100],
                                  BLOCK=64),
    "intmath": lambda: check_replay(K.intmath_kernel, (1,), lambda r: [
        r.integers(-2**31, 2**31, 16).astype(np.int32), r.integers(-2**31, 2**31, 16).astype(np.int32),
        np.zeros(48, np.int32)], BLOCK=16),
    "convert": lambda: check_replay(K.convert_kernel, (1,), lambda r: [(_f32(r, 64) * 10).astype(np.float32),
                                                                       np.zeros(256, np.float32),
                                                                       np.zeros(128, np.int32)], BLOCK=64),
    "random_streams": lambda: check_replay(K.random_streams_kernel, (4,), lambda r: [
        np.zeros(4 * 256, np.uint32), np.zeros(5 * 256, np.float32), np.zeros(3 * 256, np.float32), 123], BLOCK=64),
    "grid3": lambda: check_replay(K.grid3_kernel, (2, 3, 4), lambda r: [r.integers(0, 9, 80).astype(np.int32)]),
    "add_relu": lambda: check_replay(S.add_relu_kernel, (4,), lambda r: [_f32(r, 1000), _f32(r, 1000),
                                                                         np.zeros(1000, np.float32), 1000], BLOCK_SIZE=256),
    "gelu": lambda: check_replay(S.gelu_kernel, (4,), lambda r: [_f32(r, 1000), np.zeros(1000, np.float32), 1000],
                                 BLOCK_SIZE=256),
    "row_softmax": lambda: check_replay(S.row_softmax_kernel, (5,), lambda r: [np.zeros((5, 300), np.float32),
                                                                               _f32(r, 5, 300), 300, 300, 300], BLOCK=128),
    "layer_norm": lambda: check_replay(S.layer_norm_kernel, (4,), lambda r: [
        r.standard_normal((4, 300)).astype(np.float16), np.zeros((4, 300), np.float16),
        r.standard_normal(300).astype(np.float16), r.standard_normal(300).astype(np.float16),
        np.zeros(4, np.float32), np.zeros(4, np.float32), 300, 300, 1e-5], BLOCK=128),
    "attention": lambda: check_replay(S.attention_fwd_kernel, (2, 2), lambda r: [
        *(r.standard_normal((2, 128, 64)).astype(np.float16) for _ in range(3)), np.zeros((2, 128, 64), np.float16),
        128, 0.125], HEAD_DIM=64, BLOCK_M=64, BLOCK_N=64),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_replay_equals_fresh_launch_on_new_data(case):
    CASES[case]()


# --- data-dependent launches: refused, and still right --------------------------------------------------


@triton.jit
def gather_kernel(x_ptr, idx_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + tl.load(idx_ptr + offs)))


@triton.jit
def flag_kernel(x_ptr, flag_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    if tl.load(flag_ptr):
        x = x * 2
    tl.store(out_ptr + offs, x)


@triton.jit
def loop_kernel(x_ptr, n_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for _i in range(tl.load(n_ptr)):
        acc += tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, acc)


@triton.jit
def positive_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, x, mask=x > 0)  # the sectors stored depend on the data


@triton.jit
def numpy_branch_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    if x.data.sum() > 0:  # the kernel's own numpy on loaded values: a branch no tensor method sees
        x = x * 2
    tl.store(out_ptr + offs, x)


@triton.jit
def atomic_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_add(out_ptr + offs, tl.load(x_ptr + offs))


def _refused(kernel, make, meta, grid=(1,)):
    rng = np.random.default_rng(1)
    replay.clear(kernel)
    for _ in range(3):
        args = make(rng)
        fresh = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        got = kernel[grid](*args, **meta)
        assert replay.status(kernel).startswith("refused"), replay.status(kernel)
        with replay.disabled():
            want = kernel[grid](*fresh, **meta)
        for a, b in zip(args, fresh):
            if isinstance(a, np.ndarray):
                assert _bits(a) == _bits(b)
        assert _fields(got) == _fields(want)


def test_gather_through_loaded_indices_is_refused():
    _refused(gather_kernel, lambda r: [_f32(r, 64), r.integers(0, 64, 32).astype(np.int32),
                                       np.zeros(32, np.float32)], {"BLOCK": 32})


def test_control_flow_on_loaded_flag_is_refused():
    _refused(flag_kernel, lambda r: [_f32(r, 32), np.array([r.integers(0, 2)], np.int32),
                                     np.zeros(32, np.float32)], {"BLOCK": 32})


def test_loop_bound_loaded_from_memory_is_refused():
    _refused(loop_kernel, lambda r: [_f32(r, 32), np.array([r.integers(1, 4)], np.int32),
                                     np.zeros(32, np.float32)], {"BLOCK": 32})


def test_mask_from_data_is_refused():
    # the store's sectors depend on which x are positive: a cached count would be stale
    _refused(positive_kernel, lambda r: [_f32(r, 64), np.zeros(64, np.float32)], {"BLOCK": 64})


def test_numpy_on_loaded_values_is_refused():
    _refused(numpy_branch_kernel, lambda r: [(_f32(r, 32) + r.choice([-1, 1])).astype(np.float32), np.zeros(32, np.float32)],
             {"BLOCK": 32})


def test_programs_that_diverge_are_refused():
    # each program loops over its own rows (tl.range from its program id): the batch reruns one by one
    _refused(K.softmax_persistent_kernel, lambda r: [np.zeros((7, 100), np.float32), _f32(r, 7, 100), 100, 100, 7,
                                                     100], {"BLOCK_SIZE": 128, "num_stages": 2}, grid=(3,))
    _refused(K.branchy_kernel, lambda r: [_f32(r, 300), np.zeros(300, np.float32), 300], {"BLOCK": 128}, grid=(3,))


def test_atomics_are_refused():
    _refused(atomic_kernel, lambda r: [_f32(r, 32), np.zeros(32, np.float32)], {"BLOCK": 32})


def test_histogram_kernel_is_refused():
    _refused(K.histogram_kernel, lambda r: [r.integers(0, 8, 100).astype(np.int32), np.zeros(16, np.int32), 100],
             {"NUM_BINS": 8, "BLOCK": 128})


# --- a changed signature is a miss ---------------------------------------------------------------------


def _add(n, x=None, y=None, out=None, grid=None, block=256):
    rng = np.random.default_rng(n)
    x = _f32(rng, n) if x is None else x
    y = _f32(rng, n) if y is None else y
    out = np.zeros(n, np.float32) if out is None else out
    return K.add_kernel[grid or (triton.cdiv(n, block),)](x, y, out, n, BLOCK_SIZE=block), out


def _placed_copy(a: np.ndarray) -> np.ndarray:
    """A copy of ``a`` whose address has the same remainder modulo 64 bytes."""
    want = a.ctypes.data % 64
    buf = np.empty(a.nbytes + 64, np.uint8)
    k = (want - buf.ctypes.data) % 64
    out = buf[k:k + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    assert out.ctypes.data % 64 == want
    return out


def _warm(n=1024):
    replay.clear(K.add_kernel)
    _add(n)
    _add(n)
    assert replay.status(K.add_kernel) in ("recorded", "replayed")


@pytest.mark.parametrize("change", ["scalar", "grid", "block", "stride", "unaligned", "alias", "dtype"])
def test_signature_change_is_a_miss(change):
    _warm()
    rng = np.random.default_rng(5)
    x, y = _f32(rng, 1024), _f32(rng, 1024)
    out = np.zeros(1024, np.float32)
    if change == "scalar":  # fewer elements: the mask and counts change
        kw = dict(n=1000, x=x, y=y, out=out, grid=(4,))
    elif change == "grid":
        kw = dict(n=1024, x=x, y=y, out=out, grid=(2,))
    elif change == "block":
        kw = dict(n=1024, x=x, y=y, out=out, block=128)
    elif change == "stride":
        big = _f32(rng, 2048)
        kw = dict(n=1024, x=big[::2].copy(), y=y, out=out)
        kw["x"] = np.lib.stride_tricks.as_strided(big, (1024,), (8,))  # not contiguous: an error either way
    elif change == "unaligned":
        raw = np.zeros(1024 + 1, np.float32)[1:]  # 4 bytes off a 16-byte boundary
        raw[:] = x
        kw = dict(n=1024, x=raw, y=y, out=out)
    elif change == "alias":
        kw = dict(n=1024, x=x, y=x, out=out)
    else:
        kw = dict(n=1024, x=x, y=y, out=np.zeros(1024, np.float16))
    copies = {}  # a copy per array, aliasing and alignment kept
    args = {k: (copies.setdefault(id(v), _placed_copy(v)) if isinstance(v, np.ndarray) and v.flags.c_contiguous else v)
            for k, v in kw.items()}
    try:
        got, got_out = _add(**kw)
    except Exception as exc:  # the fresh launch's error, not a replay's
        assert change == "stride"
        assert replay.status(K.add_kernel) != "replayed"
        assert "contiguous" in str(exc)
        return
    assert replay.status(K.add_kernel) != "replayed"
    with replay.disabled():
        want, want_out = _add(**args)
    assert _bits(got_out) == _bits(want_out)
    assert _fields(got) == _fields(want)


def test_same_signature_hits_and_counts_follow_the_record():
    _warm()
    got, out = _add(1024)
    assert replay.status(K.add_kernel) == "replayed"
    assert got.programs == 4 and got.load_bytes == 2 * 1024 * 4 and got.store_bytes == 1024 * 4


def test_off_switch():
    _warm()
    with replay.disabled():
        _add(1024)
        assert replay.status(K.add_kernel) == "off"
    assert replay.wants(K.add_kernel)


def test_launch_that_raises_is_not_cached():
    replay.clear(K.add_kernel)
    x = np.zeros(100, np.float32)
    for _ in range(2):
        with pytest.raises(kernellab_errors.OutOfBoundsError):
            K.add_kernel[(4,)](x, x, x, 1024, BLOCK_SIZE=256)  # reads past the arrays' end
        assert replay.status(K.add_kernel) != "replayed"
    assert not any(isinstance(e, replay.Entry) for e in getattr(K.add_kernel, "_replays", {}).values())


def test_a_global_the_kernel_reads_changed_is_an_error():
    global SCALE
    SCALE = 2.0
    rng = np.random.default_rng(3)
    x = _f32(rng, 64)
    out = np.zeros(64, np.float32)
    replay.clear(scaled_kernel)
    for _ in range(2):
        scaled_kernel[(1,)](x, out, BLOCK=64)
    assert replay.status(scaled_kernel) == "replayed"
    SCALE = 3.0
    with pytest.raises(kernellab_errors.ReplayError, match="global SCALE has changed since replay recorded this "
                                                           "kernel, from 2.0 to 3.0"):
        scaled_kernel[(1,)](x, out, BLOCK=64)
    assert _bits(out) == _bits(x * np.float32(2.0))  # the refused launch wrote nothing
    scaled_kernel.replay_reset()
    scaled_kernel[(1,)](x, out, BLOCK=64)
    assert replay.status(scaled_kernel) == "recorded"
    assert _bits(out) == _bits(x * np.float32(3.0))
    SCALE = 2.0


SCALE = 2.0


@triton.jit
def scaled_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * SCALE)


def test_check_mode_finds_a_stale_count(monkeypatch):
    # KERNELLAB_REPLAY=check runs every replay fresh too; a cached count made wrong on purpose is found
    _warm()
    entry = next(e for e in K.add_kernel._replays.values() if isinstance(e, replay.Entry))
    entry.counts = dataclasses.replace(entry.counts, load_bytes=entry.counts.load_bytes + 4)
    monkeypatch.setattr(replay, "CHECK", True)
    with pytest.raises(replay.ReplayMismatch, match="load_bytes"):
        _add(1024)


# the pages that launch a Triton kernel's signature more than once (the others' launches are sampled or
# each of its own signature)
GALLERY_TRITON = [ROOT / "gallery" / "triton_notes" / "01_gelu.py", ROOT / "gallery" / "triton_notes" /
                  "06_flash_attention.py", ROOT / "gallery" / "lecture10" / "06_triton_style.py"]
RUN_CHECKED = """
import runpy, sys
from kernellab.triton.replay import cache as replay
runpy.run_path(sys.argv[1], run_name="__main__")
print("replays checked:", replay.CHECKED[0])
"""


@pytest.mark.gallery
@pytest.mark.parametrize("script", GALLERY_TRITON, ids=[p.name for p in GALLERY_TRITON])
def test_gallery_pages_replay_as_fresh_launches(script, tmp_path):
    # KERNELLAB_REPLAY=check: each replayed launch of the page is compared, bitwise and count for count,
    # with a fresh launch on its data and on other random data of the same signature
    (tmp_path / "run.py").write_text(RUN_CHECKED)
    env = {**os.environ, "MPLBACKEND": "Agg", "KERNELLAB_LANG": "en", "KERNELLAB_DISPLAY": "text",
           "OPENBLAS_NUM_THREADS": "1", "KERNELLAB_REPLAY": "check"}
    proc = subprocess.run([sys.executable, "run.py", str(script)], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    checked = int(proc.stdout.rsplit("replays checked:", 1)[1])
    assert checked >= 1, proc.stdout[-2000:]


def test_traces_are_kept_within_the_total(monkeypatch):
    monkeypatch.setattr(replay, "TOTAL", 1)  # room for one trace: a new one makes the oldest forgotten
    replay.clear(K.add_kernel)
    _add(1024)
    _add(1024)
    assert replay.status(K.add_kernel) == "replayed"
    _add(2048)  # another signature, recorded
    _add(1024)  # forgotten: recorded again, not replayed
    assert replay.status(K.add_kernel) == "recorded"
    assert len(replay._KEPT) <= 1


@triton.jit
def register_gather_kernel(x_ptr, idx_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.gather(x, tl.load(idx_ptr + offs), 0))  # registers only: no address from data


def test_gather_in_registers_replays_and_a_bad_index_raises_as_fresh():
    rng = np.random.default_rng(7)
    replay.clear(register_gather_kernel)
    check_replay(register_gather_kernel, (1,), lambda r: [_f32(r, 32), r.integers(0, 32, 32).astype(np.int32),
                                                          np.zeros(32, np.float32)], BLOCK=32)
    x, out = _f32(rng, 32), np.zeros(32, np.float32)
    bad = rng.integers(0, 32, 32).astype(np.int32)
    bad[5] = 40  # outside the block: tl.gather raises, on data the record never saw
    with pytest.raises(Exception) as got:
        register_gather_kernel[(1,)](x, bad, out, BLOCK=32)
    assert replay.status(register_gather_kernel) == "off"  # the replay stopped, the launch reran fresh
    with replay.disabled(), pytest.raises(Exception) as want:
        register_gather_kernel[(1,)](x, bad, out.copy(), BLOCK=32)
    assert type(got.value) is type(want.value) and str(got.value) == str(want.value)
    assert "gather" in str(got.value)


# --- the switch: replay is opt-in (issue 33) ---


@pytest.mark.parametrize("value", ["disable", "none", "disabled", "yes", "true"])
def test_a_replay_setting_it_does_not_know_is_an_error_naming_the_switch(value):
    with pytest.raises(ValueError) as err:
        replay._setting(value)
    assert str(err.value).startswith(f"KERNELLAB_REPLAY={value!r} is not a setting of replay: unset")
    assert "0 or off" in str(err.value) and "1 or on" in str(err.value) and "check" in str(err.value)


def test_the_environment_sets_where_launches_replay():
    assert [replay._setting(v) for v in ("", "0", "OFF", " off ", "1", "on", "check")] == \
        ["asked", "never", "never", "never", "always", "always", "always"]
    # a bad value stops the mini-Triton's import (kernellab loads it on first use), before any launch could
    # replay or not (as KERNELLAB_GPU's stops kernellab's)
    proc = subprocess.run([sys.executable, "-c", "import kernellab.triton"], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "KERNELLAB_REPLAY": "disable", "KERNELLAB_LANG": "en"}, timeout=120)
    assert proc.returncode != 0
    assert "ValueError: KERNELLAB_REPLAY='disable' is not a setting of replay" in proc.stderr


@triton.jit(replay=True)
def asked_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) + 1)


def test_replay_is_opt_in():
    x, out = np.arange(64, dtype=np.float32), np.zeros(64, np.float32)
    with replay._where("asked"):  # the default (KERNELLAB_REPLAY unset), whatever the fixture asked
        for _ in range(2):
            K.add_kernel[(1,)](x, x, out, 64, BLOCK_SIZE=64)
            assert replay.status(K.add_kernel) == "off"  # not asked: fresh, every launch
        replay.clear(asked_kernel)
        statuses = []
        for _ in range(2):
            asked_kernel[(1,)](x, out, BLOCK=64)
            statuses.append(replay.status(asked_kernel))
        assert statuses == ["recorded", "replayed"] and out.tolist() == (x + 1).tolist()
        with replay.replaying():  # asked around the launch
            K.add_kernel[(1,)](x, x, out, 64, BLOCK_SIZE=64)
            assert replay.status(K.add_kernel) in ("recorded", "replayed")
        with replay.disabled():
            asked_kernel[(1,)](x, out, BLOCK=64)
            assert replay.status(asked_kernel) == "off"
    with replay._where("never"), replay.replaying():  # KERNELLAB_REPLAY=0 wins over a block that asks
        asked_kernel[(1,)](x, out, BLOCK=64)
        assert replay.status(asked_kernel) == "off"
