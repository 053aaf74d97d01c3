"""Helpers several test modules share: arrays placed at a chosen alignment, float64 references, the
mini-Triton's reference policy, and many cases checked in one test (``every_case``)."""

import importlib.util
from pathlib import Path

import numpy as np


def fresh_module(path: Path, name: str):
    """The Python file ``path`` executed as a new module ``name``: each test module gets kernels of its own
    (their launch caches, learnt hints and replays are not another module's)."""
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def placed(values: np.ndarray, at: int) -> np.ndarray:
    """A copy of ``values`` starting ``at`` elements past a 256-byte boundary (numpy's own alignment varies)."""
    w = values.itemsize
    buf = np.zeros(values.size + (256 + at * w) // w + 1, values.dtype)
    lo = (-buf.ctypes.data % 256) // w + at
    out = buf[lo:lo + values.size]
    out[:] = values
    return out


def attention_float64(q, k, v, scale: float) -> np.ndarray:
    """softmax(q·kᵀ · scale)·v per head (axis 0), in float64: the reference of the FlashAttention tests."""
    q64, k64, v64 = (a.astype(np.float64) for a in (q, k, v))
    s = q64 @ k64.transpose(0, 2, 1) * scale
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v64


def plain_path():
    """Launches under the reference policy (:meth:`~kernellab.triton.executor.policy.Policy.reference`): programs
    one after another, no structured offsets, no closed-form counts, no deferred stores: the reference every
    shortcut equals."""
    from kernellab.triton.executor.policy import Policy, using

    return using(Policy.reference())


def every_case(cases: dict, one) -> tuple[int, dict]:
    """Check every case of a test that holds many (one pytest item each cost about 1.4 ms of pytest's own CPU):
    ``cases`` maps a case's id (the id it had as a parametrized test) to the arguments of ``one``, which returns
    what is wrong with that case, one line each (``[]`` or ``None`` when nothing is), or raises: an assertion that
    fails (its message) or any other error is that case's line, and the others are still checked. Returns the
    number of cases checked and ``{id: lines}`` of those that failed."""
    failing = {}
    for cid, args in cases.items():
        try:
            what = one(*args)
        except AssertionError as e:  # a check of that case failed; the other cases are still checked
            what = [f"failed: {e}"]
        except Exception as e:  # that case's error; the other cases are still checked
            what = [f"raised {type(e).__name__}: {e}"]
        if what:
            failing[cid] = [what] if isinstance(what, str) else list(what)
    return len(cases), failing


def failing_cases(checked: tuple[int, dict], what: str = "fail") -> str:
    """The message of :func:`every_case`'s result: how many cases failed of how many, then each by its id."""
    total, failing = checked
    return "\n".join([f"{len(failing)} of {total} cases {what}:"] +
                     [f"[{cid}] " + "; ".join(lines) for cid, lines in failing.items()])
