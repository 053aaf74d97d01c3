"""``tl.max`` / ``tl.min`` of a batch of blocks along their last axis through ``numerics.block_max`` /
``block_min`` (a transposed copy reduced across rows, issue 23) equal numpy's reduction bit for bit: on
random blocks, rows whose extreme is −0 beside +0, rows holding NaN or infinities, every keepdims."""

import numpy as np
import pytest

from kernellab.triton.executor.numerics import block_max, block_min


def bits(a):
    return np.ascontiguousarray(a).view(np.uint32 if a.dtype == np.float32 else np.uint64)


@pytest.mark.parametrize("fast,whole", [(block_max, np.max), (block_min, np.min)])
@pytest.mark.parametrize("shape", [(32, 64, 64), (3, 64, 16), (1, 33, 128), (2, 64, 128), (5, 17, 48)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_block_extremes_equal_numpy_bit_for_bit(fast, whole, shape, dtype):
    rng = np.random.default_rng(sum(shape))
    a = rng.standard_normal(shape).astype(dtype)
    for keep in (False, True):
        assert np.array_equal(bits(fast(a, axis=2, keepdims=keep)), bits(whole(a, axis=2, keepdims=keep)))
    b = -np.abs(a) if fast is block_max else np.abs(a)  # extremes of 0: −0 and +0 in one row
    b[:, 0, :] = 0.0
    b[:, 0, ::2] = -0.0
    b[:, 1, 3] = np.nan
    b[:, 2, :] = -np.inf if fast is block_max else np.inf
    b[:, 3, 5] = np.inf if fast is block_max else -np.inf
    for keep in (False, True):
        assert np.array_equal(bits(fast(b, axis=2, keepdims=keep)), bits(whole(b, axis=2, keepdims=keep)))


def test_other_shapes_are_numpys_own():
    a = np.arange(4096, dtype=np.float32).reshape(64, 64)  # 2-D, or another axis: np.max itself
    assert np.array_equal(block_max(a, axis=1), np.max(a, axis=1))
    c = np.arange(4 * 64 * 64, dtype=np.int32).reshape(4, 64, 64)
    assert np.array_equal(block_max(c, axis=2), np.max(c, axis=2)) and block_min(c, axis=1).shape == (4, 64)
