"""Claims a page makes, checked where they are made: a "claim / computed / stated" table that raises.

A gallery page states numbers in its prose ("4 sectors per request", "about 1.07 µs"). A
:class:`Claims` records each one next to the value the page computed, raises :class:`~kernellab.ClaimError`
naming the claim the moment the two disagree, and shows every row: an HTML table on a page or in a
notebook, aligned text in a terminal, headers in the reader's language.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from .errors import ClaimError
from .i18n import _
from .report import Table, rich_display


@dataclass(frozen=True)
class Claim:
    """One checked row: what is claimed, the value computed, the value stated and the tolerance used."""

    claim: str
    computed: object
    stated: object
    rtol: float = 0.0  # relative tolerance, a fraction of |stated|
    atol: float = 0.0  # absolute tolerance, in the claim's own unit
    sig: int | None = None  # significant digits the stated value was rounded to

    def holds(self) -> bool:
        """Whether ``computed`` matches ``stated`` within the tolerance (exactly for text and booleans)."""
        c, s = self.computed, self.stated
        if isinstance(c, (str, bool)) or isinstance(s, (str, bool)) or c is None or s is None:
            return type(c) is type(s) and c == s
        if not (isinstance(c, numbers.Real) and isinstance(s, numbers.Real)):
            raise TypeError(_("claim {claim!r}: compare numbers, text or booleans, not {type} "
                              "and {type2}").format(
                claim=self.claim, type=type(c).__name__, type2=type(s).__name__))
        c, s = float(c), float(s)
        if math.isnan(c) or math.isnan(s):
            return False
        if self.sig is not None:
            return _round_sig(c, self.sig) == _round_sig(s, self.sig)
        return abs(c - s) <= self.atol + self.rtol * abs(s)

    def tolerance_text(self) -> str:
        """The tolerance as the table shows it: empty for an exact match."""
        if self.sig is not None:
            return _("{n} significant digits").format(n=self.sig)
        parts = ([f"± {self.rtol * 100:.3g}%"] if self.rtol else []) + ([f"± {_fmt(self.atol)}"] if self.atol else [])
        return " ".join(parts)


def _round_sig(x: float, sig: int) -> float:
    return 0.0 if x == 0 else round(x, sig - 1 - math.floor(math.log10(abs(x))))


def _fmt(value) -> str:
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        v = float(value)
        return str(int(v)) if v.is_integer() and abs(v) < 1e15 else f"{v:.6g}"
    return str(value)


class Claims:
    """The claims of one page or cell, each checked as it is added; shows itself as a table.

    ``add`` raises :class:`~kernellab.errors.ClaimError` (an ``AssertionError``) naming the claim
    when the computed value does not match the stated one. Numbers match exactly unless a tolerance
    is given: ``rtol`` (relative), ``atol`` (absolute) or ``sig`` (equal once both are rounded to
    ``sig`` significant digits, for a number the prose rounds). Text and booleans match exactly.

    Examples
    --------
    >>> claims = Claims()
    >>> _ = claims.add("sectors per request", 128 // 32, 4)
    >>> _ = claims.add("time in µs", 1.0713, 1.07, sig=3)
    >>> print(claims.to_text())
    Claim                Computed  Stated  Tolerance
    -------------------  --------  ------  --------------------
    sectors per request         4       4
    time in µs             1.0713    1.07  3 significant digits
    >>> claims.add("bank conflicts", 31, 0)
    Traceback (most recent call last):
      ...
    kernellab.errors.ClaimError: claim "bank conflicts" does not hold: computed 31, stated 0
    """

    def __init__(self) -> None:
        self.rows: list[Claim] = []

    def add(self, claim: str, computed, stated, *, rtol: float = 0.0, atol: float = 0.0,
            sig: int | None = None) -> Claims:
        """Check one claim and record it; return ``self`` so calls chain and a cell can end on one.

        Raises :class:`~kernellab.errors.ClaimError` if ``computed`` does not match ``stated``.
        """
        if rtol < 0 or atol < 0 or (sig is not None and sig < 1):
            raise ValueError(_("claim {claim!r}: tolerances must be ≥ 0 and sig ≥ 1, got "
                               "rtol={rtol}, atol={atol}, sig={sig}").format(
                claim=claim, rtol=rtol, atol=atol, sig=sig))
        computed, stated = (bool(v) if isinstance(v, np.bool_) else v for v in (computed, stated))
        row = Claim(str(claim), computed, stated, rtol, atol, sig)
        if not row.holds():
            tolerance = row.tolerance_text()
            raise ClaimError(_('claim "{claim}" does not hold: computed {computed}, stated {stated}').format(
                claim=row.claim, computed=_fmt(computed), stated=_fmt(stated))
                + (f" ({tolerance})" if tolerance else ""), claim=row.claim, computed=computed, stated=stated)
        self.rows.append(row)
        return self

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    def table(self) -> Table:
        """The rows as a :class:`~kernellab.Table` with headers in the current language."""
        headers = [_("Claim"), _("Computed"), _("Stated")]
        rows = [[r.claim, _fmt(r.computed), _fmt(r.stated)] for r in self.rows]
        if any(r.tolerance_text() for r in self.rows):  # a tolerance column only where one is used
            headers.append(_("Tolerance"))
            rows = [row + [r.tolerance_text()] for row, r in zip(rows, self.rows)]
        return Table(headers, rows)

    def to_text(self) -> str:
        """Aligned text, as a terminal shows it."""
        return self.table().to_text()

    def _repr_html_(self) -> str:
        return self.table()._repr_html_().replace('class="kernellab-table"', 'class="kernellab-table kernellab-claims"', 1)

    def __repr__(self) -> str:
        return self.to_text()

    def show(self) -> Claims | None:
        """Print the table in a terminal; return ``self`` where a page or notebook renders HTML.

        End a gallery cell on ``claims.show()`` so the page shows the table.
        """
        if rich_display():
            return self
        print(self.to_text() + "\n")
        return None


def check(claim: str, computed, stated, **tolerance) -> Claims:
    """One claim, checked and returned as a one-row :class:`Claims` (raises on a mismatch).

    Examples
    --------
    >>> len(check("warps per block", 256 // 32, 8))
    1
    """
    return Claims().add(claim, computed, stated, **tolerance)


__all__ = ["Claim", "ClaimError", "Claims", "check"]
