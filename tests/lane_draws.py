"""Hypothesis strategies for a warp's worth of lane values, drawn as one block of bytes.

``st.lists(st.integers(...), min_size=32, max_size=32)`` draws each lane on its own: about 30 µs of
Hypothesis bookkeeping a lane, which made drawing cost more than the counting under test (about a third
of the fast-path properties' time). One ``st.binary`` of the same lanes is one draw: the values are the
same range, it shrinks the same way (towards zero bytes: address 0, every lane off) and replays from
Hypothesis's database as before.
"""

import numpy as np
from hypothesis import strategies as st


def int_lanes(n: int, hi: int):
    """``n`` integers in ``0 .. hi`` (both included), as an int64 array."""
    return st.binary(min_size=4 * n, max_size=4 * n).map(
        lambda b: (np.frombuffer(b, "<u4") % (hi + 1)).astype(np.int64))


def bool_lanes(n: int):
    """``n`` booleans, as a bool array (one byte a lane, its low bit)."""
    return st.binary(min_size=n, max_size=n).map(lambda b: (np.frombuffer(b, np.uint8) & 1).astype(bool))
