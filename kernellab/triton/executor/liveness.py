"""The registers a program's values hold: the largest set of floating-point block values live at once.

A compiler keeps a value in registers from the instruction that makes it to its last use; an elementwise
result may take the registers of an operand used there for the last time. The engine follows this as the
program runs: every floating-point block or scalar the program makes is *born* at the next tick of the
step's clock (one tick a value), and each time an operation reads it (its shape, which every operation
that takes a block reads) its *last use* moves to the current tick. A value is live from its birth up to,
but not including, its last use; one never used again is live at its birth only. The peak over the ticks
of the words per thread of the live values is what the residency rule (:mod:`kernellab.model.persm`) adds
to a program's fixed registers.

A value of ``n`` elements spreads over the program's ``32 × num_warps`` threads: each thread holds
``⌈n ÷ (32 × num_warps)⌉`` of them (at least one: a scalar, or a block smaller than the program, is held
by every thread), of ``bits ÷ 32`` words each. Integer blocks (offsets, which the compiler folds into
addresses), masks (predicates) and pointers are not counted: the rule's fixed part stands for them.

Examples
--------
Tutorial 02's softmax of a 1024-element row on 4 warps: each thread holds 1024 ÷ 128 = 8 elements of a
block. ``row`` dies where ``row - max`` is made, which takes its registers; so does each later result:
one block, 8 words, is live at a time, and the two fp32 scalars (the max, the sum) one word each beside it.

>>> import numpy as np
>>> import kernellab.triton as triton
>>> import kernellab.triton.language as tl
>>> @triton.jit
... def softmax(out, x, BLOCK: tl.constexpr):
...     cols = tl.arange(0, BLOCK)
...     row = tl.load(x + cols)
...     num = tl.exp(row - tl.max(row, axis=0))
...     tl.store(out + cols, num / tl.sum(num, axis=0))
>>> c = softmax[(1,)](np.zeros(1024, np.float32), np.ones(1024, np.float32), BLOCK=1024)
>>> c.launch["live_words"]                     # 8 (a block) + 1 (the sum) + 1 (the quotient's operand)
9.0
"""

from __future__ import annotations

import math

import numpy as np


class Live:
    """The values one step's programs made and their last uses (see the module): value ``i`` was born at tick
    ``i`` (one tick a value), last used at tick ``lasts[i]``, and holds ``words[i]`` words per thread. A value keeps
    its step's ``Live`` and its index, and at each use sets ``live.lasts[index] = live.clock``."""

    __slots__ = ("threads", "lasts", "words", "_sizes")

    def __init__(self, num_warps: int):
        self.threads = 32 * num_warps  # threads a program has
        self.lasts: list[int] = []
        self.words: list[float] = []
        self._sizes: dict = {}  # (shape, bits) → words per thread

    @property
    def clock(self) -> int:
        """The number of values made so far, which is the tick the next one is born at."""
        return len(self.lasts)

    def born(self, shape: tuple, bits: int) -> int:
        """A floating-point value of ``shape`` and ``bits`` bits an element is made now: its index (its birth tick)."""
        words = self._sizes.get((shape, bits))
        if words is None:
            words = self._sizes[shape, bits] = -(-math.prod(shape) // self.threads) * bits / 32  # ⌈n ÷ threads⌉ ≥ 1
        lasts = self.lasts
        tick = len(lasts)
        lasts.append(tick)
        self.words.append(words)
        return tick

    def peak(self) -> float:
        """The most words per thread live at one tick: a value counts from its birth up to, not including,
        its last use (at its birth alone when never used after it).

        Each value adds its words at its birth tick and takes them away at its end; the running sum's largest
        value is the peak. Words are multiples of 1/32 (⌈n ÷ threads⌉ × bits ÷ 32), so every partial sum is exact in
        float64 and the order of the additions cannot change it.

        >>> live = Live(num_warps=1)
        >>> a = live.born((64,), 32); b = live.born((64,), 32)     # 2 words a thread each
        >>> live.lasts[a] = live.clock; c = live.born((64,), 32)   # c = f(a, ...): a's last use, c takes its place
        >>> live.lasts[b] = live.clock; live.lasts[c] = live.clock + 1
        >>> live.peak()                                           # b and c at tick 2 (a and b at tick 1)
        4.0
        """
        n = len(self.lasts)
        if not n:
            return 0.0
        if n <= _PYTHON_PEAK:  # a few values: the same sums in Python, without numpy's fixed cost a call
            return _peak(self.lasts, self.words)
        births = np.arange(n)
        ends = np.maximum(np.array(self.lasts), births + 1)
        words = np.array(self.words)
        ticks = int(ends.max()) + 1
        change = np.bincount(births, words, minlength=ticks)  # births: one a tick
        change -= np.bincount(ends, words, minlength=ticks)
        return max(0.0, float(np.cumsum(change).max()))


_PYTHON_PEAK = 64  # values: up to this many a step, :meth:`Live.peak` adds them up in Python


def _peak(lasts: list, words: list) -> float:
    """:meth:`Live.peak` of the values born at ticks 0, 1, … with these last uses and words, in Python: the same
    changes at the same ticks and the same running sums, each exact (multiples of 1/32), so the same float.

    >>> _peak([2, 2, 3], [2.0, 2.0, 0.5])    # a and b last used at c's birth (tick 2): both live at tick 1
    4.0
    """
    ticks = 0
    for i, last in enumerate(lasts):
        end = last if last > i else i + 1
        if end > ticks:
            ticks = end
    change = [0.0] * (ticks + 1)
    for i, (last, w) in enumerate(zip(lasts, words)):
        change[i] += w
        change[last if last > i else i + 1] -= w
    run = best = 0.0
    for c in change:
        run += c
        if run > best:
            best = run
    return best
