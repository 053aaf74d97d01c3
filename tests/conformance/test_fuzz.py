"""A differential fuzz (hypothesis) of kernellab against Triton's interpreter: load/store with random
masks, strides and dtypes; reductions over every axis, negative ones included; broadcasting between
ranks with Python scalars of mixed precision; and ``tl.dot``. Integers compare bit for bit, floats to
a tolerance. Skipped unless triton and torch are importable (``nox -s conformance``)."""

import os
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("TRITON_INTERPRET", "1")
torch = pytest.importorskip("torch", reason="the conformance session installs torch (CPU) and triton")
pytest.importorskip("triton", reason="the conformance session installs triton")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

SOURCE = Path(__file__).with_name("fuzz_kernels.py")
FUZZ = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def mods(load_pair):
    return load_pair(SOURCE)




DTYPES = [np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8]


@FUZZ
@given(dtype=st.sampled_from(DTYPES), n=st.integers(1, 300), stride=st.integers(1, 4), seed=st.integers(0, 2**16))
def test_masked_strided_loads(mods, dtype, n, stride, seed):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n * stride) * 50).astype(dtype)
    m = (rng.random(n) < 0.6).astype(np.int32)
    ours, theirs = mods.run("masked_strided_copy", ((n + 63) // 64,), [x, m, np.zeros(n, dtype)],
                            (stride, n), BLOCK=64)
    np.testing.assert_array_equal(ours[2], theirs[2])


@FUZZ
@given(axis=st.sampled_from([-2, -1, 0, 1]), R=st.sampled_from([1, 2, 8, 16]), C=st.sampled_from([1, 4, 32]),
       dtype=st.sampled_from([np.float32, np.int32]), seed=st.integers(0, 2**16))
def test_reductions_every_axis(mods, axis, R, C, dtype, seed):
    x = (np.random.default_rng(seed).standard_normal((R, C)) * 20).astype(dtype)
    n = C if axis % 2 == 0 else R
    arrays = [x] + [np.zeros(n, dtype) for _ in range(3)]
    ours, theirs = mods.run("reduce_axis", (1,), arrays, R=R, C=C, AXIS=axis)
    for o, t in zip(ours[1:], theirs[1:]):
        if dtype == np.int32:
            np.testing.assert_array_equal(o, t)
        else:
            np.testing.assert_allclose(o, t, rtol=1e-5, atol=1e-4)


@FUZZ
@given(R=st.sampled_from([1, 4, 16]), C=st.sampled_from([1, 8, 32]),
       da=st.sampled_from([np.float16, np.float32, np.int32]), db=st.sampled_from([np.float16, np.float32, np.int16]),
       s=st.one_of(st.integers(-5, 5), st.floats(-4, 4, width=32)), t=st.one_of(st.integers(-3, 3), st.floats(-2, 2, width=32)),
       seed=st.integers(0, 2**16))
def test_broadcasting_and_mixed_precision_scalars(mods, R, C, da, db, s, t, seed):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(R) * 3).astype(da)
    b = (rng.standard_normal(C) * 3).astype(db)
    ours, theirs = mods.run("broadcast_mixed", (1,), [a, b, np.zeros((R, C), np.float32)], (s, t), R=R, C=C)
    np.testing.assert_allclose(ours[2], theirs[2], rtol=2e-3, atol=2e-3)


@FUZZ
@given(M=st.sampled_from([16, 32]), N=st.sampled_from([16, 32]), K=st.sampled_from([16, 64]),
       dtype=st.sampled_from([np.float16, np.float32]), seed=st.integers(0, 2**16))
def test_dot(mods, M, N, K, dtype, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((M, K)).astype(dtype)
    b = rng.standard_normal((K, N)).astype(dtype)
    ours, theirs = mods.run("dot_kernel", (1,), [a, b, np.zeros((M, N), np.float32)], M=M, N=N, K=K)
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-4, atol=1e-4)
