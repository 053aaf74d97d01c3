"""``view.spread`` (kernellab/triton/executor/view.py) is ``np.broadcast_to`` made without numpy's iterator for a
C-contiguous array: the mini-Triton's memory layer spreads one row of offsets or a mask to a step's programs with it.
It must give what ``np.broadcast_to`` gives in every respect a caller can see: values, shape, strides (0 along every
broadcast dimension and every dimension of one element), dtype, the flags, the data it points at, and the same
error for a shape that does not broadcast."""

import itertools

import numpy as np
import pytest

from kernellab.triton.executor.view import spread

_SOURCES = [(), (1,), (3,), (0,), (1, 3), (2, 1), (2, 3), (1, 1), (2, 0), (3, 1, 2), (1, 2, 1)]


def _targets(shape):
    """Targets of up to two more leading dimensions (0 or 2 each), each of the source's dimensions kept, spread
    (1 → 3), or one that does not broadcast (2 → 1 or 3, 1 → 0, 0 → 1)."""
    out = []
    for lead in ((), (0,), (2,), (2, 0), (0, 2), (2, 2)):
        for dims in itertools.product(*({m, 1, 3, 0 if m == 1 else 1} for m in shape)):
            out.append(lead + tuple(dims))
    return out


def _seen(v):
    return (v.shape, v.strides, v.dtype, v.flags.writeable, v.flags.c_contiguous, v.flags.f_contiguous,
            v.flags.owndata, v.__array_interface__["data"][0], v.tolist())


def _outcome(fn, a, shape):
    try:
        return _seen(fn(a, shape))
    except Exception as exc:  # the same class and words as numpy's
        return type(exc), str(exc)


@pytest.mark.parametrize("source", _SOURCES, ids=str)
def test_spread_is_broadcast_to_in_every_visible_respect(source):
    rng = np.random.default_rng(len(source))
    n = int(np.prod(source))
    arrays = [np.arange(n, dtype=np.int64).reshape(source), (rng.random(source) < 0.5),
              np.arange(n, dtype=np.float32).reshape(source)]
    if len(source) >= 1 and source[-1] > 1:
        arrays.append(np.arange(2 * n, dtype=np.int64).reshape(*source[:-1], 2 * source[-1])[..., ::2])  # strided
    ro = np.arange(n, dtype=np.int8).reshape(source)
    ro.flags.writeable = False
    arrays.append(ro)
    for a in arrays:
        negative = [source[:i] + (-1,) + source[i + 1:] for i in range(len(source))]  # numpy's error, not ours
        for shape in _targets(source) + [(-1,) + source, source[:-1]] + negative:
            assert _outcome(spread, a, shape) == _outcome(np.broadcast_to, a, shape), (a.shape, a.strides, shape)


def test_spread_by_hand():
    a = np.arange(4, dtype=np.int64).reshape(1, 4)  # one row of 4 offsets for 3 programs: 8-byte steps along
    v = spread(a, (3, 4))                          # the row, none down the programs
    assert v.strides == (0, 8) and v.tolist() == [[0, 1, 2, 3]] * 3 and not v.flags.writeable
    assert v.__array_interface__["data"][0] == a.__array_interface__["data"][0]   # a view of a, not a copy
    m = np.array([[True], [False]])                # a column: stride 0 along the 2 columns, 1 byte down
    assert spread(m, (2, 2)).strides == (1, 0) and spread(m, (2, 2)).tolist() == [[True, True], [False, False]]
    assert spread(np.int64(5), (2,)).tolist() == [5, 5]  # not an array: numpy's own broadcast_to
