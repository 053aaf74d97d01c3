"""Claims a page makes, checked where they are made: each raises the moment it does not hold.

A gallery page states numbers in its prose ("4 sectors per request", "about 1.07 µs"). A
:class:`Claims` records each one next to the value the page computed and raises
:class:`~kernellab.ClaimError` naming the claim the moment the two disagree, so a page whose prose
has gone stale fails the build.

What a reader sees of them depends on where the script runs. In a terminal ``show()`` prints the
rows as aligned text. In a notebook a cell ending on its claims shows one collapsed "What this cell
checks" line. On the site nothing shows mid-page: the docs build collects every claim a page's
script checks (:func:`begin_page`, :func:`end_page`) and shows them once, in a collapsed "What this
page checks" block at the end of the page (:func:`checks_html`), in the reader's language.
"""

from __future__ import annotations

import html
import math
import numbers
from dataclasses import dataclass

import numpy as np

from .errors import ClaimError
from .i18n import _
from .tables import Table, rich_display


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

    def shown(self) -> str:
        """The claim as the end-of-page block reads it: the stated value, and the computed one and
        the tolerance where the prose rounds (a true statement reads as the statement alone).

        Examples
        --------
        >>> Claim("sectors per request", 4, 4).shown(), Claim("coalesced", True, True).shown()
        ('sectors per request: 4', 'coalesced')
        >>> Claim("time in µs", 1.0713, 1.07, sig=3).shown()
        'time in µs: 1.07 (computed 1.0713, 3 significant digits)'
        """
        if self.stated is True and self.computed is True:
            return self.claim
        text = _("{claim}: {value}").format(claim=self.claim, value=_fmt(self.stated))
        computed, tolerance = _fmt(self.computed), self.tolerance_text()
        if computed != _fmt(self.stated):
            detail = (_("computed {computed}, {tolerance}") if tolerance else _("computed {computed}")).format(
                computed=computed, tolerance=tolerance)
            text += _(" ({detail})").format(detail=detail)
        return text

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


# The claims the gallery page being built has checked so far: a list between begin_page() and end_page()
# (the docs build calls them around each script, docs/_ext/gallery_page.py), None otherwise.
_page: list[Claim] | None = None


def begin_page() -> None:
    """Start collecting every claim checked from now on, for one page's "What this page checks" block.

    While collecting, :meth:`kernellab.Claims.show` shows nothing: the claims appear once, at the end of the page.
    """
    global _page
    _page = []


def end_page() -> list[Claim]:
    """Stop collecting; return the claims checked since :func:`begin_page` (none if it was not called).

    Examples
    --------
    >>> begin_page(); _ = check("warps per block", 256 // 32, 8); [c.claim for c in end_page()]
    ['warps per block']
    >>> end_page()
    []
    """
    global _page
    rows, _page = _page or [], None
    return rows


def checks_html(rows, title: str | None = None) -> str:
    """``rows`` (claims) as one collapsed block: the page's, unless ``title`` names another scope.

    A ``<details>`` element whose summary line is the title and the number of claims; opened, it says
    where they come from (for a page) and lists each claim as the prose states it
    (:meth:`Claim.shown`), every text escaped. Empty when there are no rows.

    Examples
    --------
    >>> block = checks_html([Claim("sectors per request", 4, 4), Claim("a < b", True, True)])
    >>> block.startswith('<details class="kernellab-checks">') and "<li>sectors per request: 4</li>" in block
    True
    >>> "<li>a &lt; b</li>" in block, "(2)" in block
    (True, True)
    >>> checks_html([])
    ''
    """
    rows = list(rows)
    if not rows:
        return ""
    note = "" if title else "<p>" + html.escape(_(
        "The numbers and statements of this page's prose, each computed by its script: the site's build "
        "fails when one of them does not hold.")) + "</p>"
    title = title or _("What this page checks")
    items = "".join(f"<li>{html.escape(row.shown())}</li>" for row in rows)
    count = _(" ({detail})").format(detail=len(rows))
    return (f'<details class="kernellab-checks"><summary>{html.escape(title)}'
            f'<span class="kernellab-checks-count">{html.escape(count)}</span></summary>{note}'
            f"<ul>{items}</ul></details>")


class Claims:
    """The claims of one page or cell, each checked as it is added.

    ``add`` raises :class:`~kernellab.errors.ClaimError` (an ``AssertionError``) naming the claim
    when the computed value does not match the stated one. ``show()`` prints the rows in a terminal;
    in a notebook the cell shows one collapsed line; on the site the page lists them at its end. Numbers match exactly unless a tolerance
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
        if _page is not None:
            _page.append(row)
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
        """One collapsed "What this cell checks" line (a notebook); nothing while a page collects them."""
        return "" if _page is not None else checks_html(self.rows, _("What this cell checks"))

    def __repr__(self) -> str:
        return self.to_text()

    def show(self) -> Claims | None:
        """Print the rows in a terminal; return ``self`` in a notebook (one collapsed line).

        While the docs build collects a page's claims (:func:`~kernellab.claims.begin_page`) it returns None and shows
        nothing: the page lists every claim once, at its end.
        """
        if _page is not None:
            return None
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


__all__ = ["Claim", "ClaimError", "Claims", "begin_page", "check", "checks_html", "end_page"]
