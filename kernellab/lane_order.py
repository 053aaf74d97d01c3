"""Read-modify-writes applied lane by lane in launch order, in a few numpy steps: what both engines' atomics do.

A GPU's atomics on one address take effect one after another. Both the SIMT simulator (``blk.atomic_add``)
and mini-Triton (``tl.atomic_*``) apply their lanes in order (row-major within a program or block, programs
in launch order), so the final values and the old value each lane gets back are those of a sequential loop.
"""

from __future__ import annotations

import numpy as np


def _plain_read(flat, idx):
    return flat[idx]


def _plain_write(flat, idx, v):
    flat[idx] = v


def in_lane_order(flat: np.ndarray, addr: np.ndarray, vals: list, fn, dtype, read=_plain_read,
                  write=_plain_write) -> np.ndarray:
    """Apply ``flat[a] = fn(flat[a], *v)`` for each lane in order; return the old value each lane saw.

    Lanes are grouped by their rank among the lanes on the same element; each group has distinct elements
    and runs as one numpy step, so every result (floating-point rounding included) is the sequential
    loop's. An integer add (``fn is np.add`` on an integer ``dtype`` with plain ``read``/``write``) takes
    one step: the old values are the exclusive prefix sums per element (exact, modular). ``read`` and
    ``write`` convert stored codes (a float8 element's bytes) to values and back.

    Examples
    --------
    >>> h = np.zeros(2, np.int32)
    >>> in_lane_order(h, np.array([1, 0, 1, 1]), [np.array([5, 1, 2, 3])], np.add, np.int32).tolist(), h.tolist()
    ([0, 0, 5, 7], [1, 10])
    """
    n = addr.size
    if n == 0:
        return np.zeros(0, dtype)
    order = np.argsort(addr, kind="stable")
    sa = addr[order]
    first = np.ones(n, bool)
    first[1:] = sa[1:] != sa[:-1]
    start = np.maximum.accumulate(np.where(first, np.arange(n), 0))
    old = np.empty(n, dtype)
    if fn is np.add and np.dtype(dtype).kind in "iu" and read is _plain_read and write is _plain_write:
        sv = vals[0][order].astype(dtype)
        excl = np.cumsum(sv, dtype=dtype) - sv
        old_sorted = flat[sa] + (excl - excl[start])
        old[order] = old_sorted
        last = np.ones(n, bool)
        last[:-1] = sa[1:] != sa[:-1]
        flat[sa[last]] = old_sorted[last] + sv[last]
        return old
    rank = np.empty(n, np.int64)
    rank[order] = np.arange(n) - start
    if rank.max() == 0:  # every lane on its own element: one step
        old[:] = read(flat, addr)
        write(flat, addr, fn(old, *vals))
        return old
    by_rank = np.argsort(rank, kind="stable")
    for group in np.split(by_rank, np.cumsum(np.bincount(rank))[:-1]):
        a = addr[group]
        o = read(flat, a)
        old[group] = o
        write(flat, a, fn(o, *(v[group] for v in vals)))
    return old
