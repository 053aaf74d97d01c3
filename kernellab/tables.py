"""Tables: the lecture scripts' console API and a table that renders as HTML on a page and as text in a terminal.

Scripts make the same calls everywhere: in a terminal ``print_table`` prints aligned text (columns
measured in display width, so Chinese lines up); in the gallery or a notebook it returns a
:class:`~kernellab.Table` whose ``_repr_html_`` the page shows as a real HTML table.
"""

from __future__ import annotations

import html
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from wcwidth import wcswidth

from .i18n import _


def display_width(text: str) -> int:
    """Columns ``text`` takes in a terminal: CJK characters count two.

    Examples
    --------
    >>> display_width("GPU"), display_width("显存带宽")
    (3, 8)
    """
    width = wcswidth(text)
    return width if width >= 0 else len(text)


def _cell(value) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


@dataclass
class Table:
    """A table of strings: HTML for a page (every cell escaped), aligned text for a terminal.

    Examples
    --------
    >>> t = Table(["GPU", "SMs"], [["A6000", 84], ["<b>", 1]])
    >>> print(t.to_text())
    GPU    SMs
    -----  ---
    A6000   84
    <b>      1
    >>> "&lt;b&gt;" in t._repr_html_()
    True
    """

    headers: Sequence[str]
    rows: Sequence[Sequence] = field(default_factory=list)

    def __post_init__(self):
        self.headers = [_cell(h) for h in self.headers]
        self.rows = [[_cell(c) for c in row] for row in self.rows]
        for i, row in enumerate(self.rows):
            if len(row) != len(self.headers):
                raise ValueError(_("table row {i} has {n_row} cells, the header has {n_headers}").format(
                    i=i, n_row=len(row), n_headers=len(self.headers)))

    def _numeric(self, j: int) -> bool:
        cells = [row[j] for row in self.rows]
        return bool(cells) and all(_looks_numeric(c) for c in cells)

    def to_text(self) -> str:
        """Aligned text: numeric columns right-aligned, widths in display columns."""
        widths = [max([display_width(h)] + [display_width(r[j]) for r in self.rows]) for j, h in enumerate(self.headers)]
        right = [self._numeric(j) for j in range(len(self.headers))]

        def line(cells):
            out = []
            for c, w, r in zip(cells, widths, right):
                pad = " " * (w - display_width(c))
                out.append(pad + c if r else c + pad)
            return "  ".join(out).rstrip()

        return "\n".join([line(self.headers), "  ".join("-" * w for w in widths)] + [line(r) for r in self.rows])

    def _repr_html_(self) -> str:
        """An HTML table: numeric columns right-aligned (``class=num``), text and headers left-aligned.

        The left alignment is inline: a notebook never sees the site's stylesheet, and JupyterLab (as
        sphinx-gallery's own stylesheet) right-aligns every cell.
        """
        numeric = [self._numeric(j) for j in range(len(self.headers))]

        def cells(tag, row):
            return "".join(
                f'<{tag}{" class=num" if tag == "td" and numeric[j] else _LEFT}>{html.escape(c)}</{tag}>'
                for j, c in enumerate(row)
            )

        body = "".join(f"<tr>{cells('td', r)}</tr>" for r in self.rows)
        return (f'<table class="kernellab-table"><thead><tr>{cells("th", self.headers)}</tr></thead>'
                f"<tbody>{body}</tbody></table>")

    def __repr__(self) -> str:
        return self.to_text()


_LEFT = ' style="text-align:left"'


def _looks_numeric(text: str) -> bool:
    t = text.replace(",", "").replace("%", "").replace("×", "").strip()
    try:
        float(t.split()[0] if t else "x")
    except ValueError:
        return False
    return True


def rich_display() -> bool:
    """True where tables should be returned for HTML display rather than printed as text.

    That is inside a sphinx-gallery build or a Jupyter kernel; ``KERNELLAB_DISPLAY=text`` or ``html``
    overrides the guess.
    """
    forced = os.environ.get("KERNELLAB_DISPLAY")
    if forced in ("text", "html"):
        return forced == "html"
    if "sphinx_gallery.gen_rst" in sys.modules:
        return True
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None and hasattr(ipython, "get_ipython") else None
    return shell is not None and hasattr(shell, "kernel")


def show(table: Table) -> Table | None:
    """Print ``table`` as text in a terminal; return it where a page or notebook renders HTML.

    End a gallery cell on ``show(table)`` (or ``print_table(...)``) so the page captures the HTML.
    """
    if rich_display():
        return table
    print(table.to_text() + "\n")
    return None


def print_table(headers: Sequence[str], rows: Sequence[Sequence]) -> Table | None:
    """Show a table made of ``headers`` and ``rows`` (the lecture scripts' call): text in a terminal, HTML on a page."""
    return show(Table(headers, rows))


def print_header(title: str) -> None:
    """Print a section title framed by rules, as the lecture scripts open each demo."""
    rule = "=" * max(20, display_width(title))
    print(f"\n{rule}\n{title}\n{rule}")


def print_observations(items: Sequence[str]) -> None:
    """Print numbered observations under an "Observations" heading, in the current language."""
    print("\n" + _("Observations:"))  # the colon is the language's: 要点：
    for i, item in enumerate(items, 1):
        print(f"  {i}. {item}")


_SI = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def fmt_num(x: float) -> str:
    """A count with an SI prefix and four significant digits.

    Examples
    --------
    >>> fmt_num(2 * 4096**3), fmt_num(950), fmt_num(1.5e13)
    ('137.4 G', '950', '15 T')
    """
    for scale, prefix in _SI:
        if abs(x) >= scale:
            return f"{x / scale:.4g} {prefix}"
    return f"{x:.4g}"


def fmt_bytes(n: float) -> str:
    """Bytes in decimal units (kB, MB, GB: powers of 1000, as bandwidths are quoted).

    Examples
    --------
    >>> fmt_bytes(3 * 4096**2 * 4), fmt_bytes(512), fmt_bytes(2.5e9)
    ('201.3 MB', '512 B', '2.5 GB')
    """
    for scale, unit in ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if abs(n) >= scale:
            return f"{n / scale:.4g} {unit}"
    return f"{n:.4g} B"


def fmt_time(seconds: float) -> str:
    """A duration with three significant digits in s, ms, µs or ns.

    Examples
    --------
    >>> fmt_time(0.4691), fmt_time(3.55e-3), fmt_time(2.6e-4), fmt_time(5e-9)
    ('469 ms', '3.55 ms', '260 µs', '5 ns')
    """
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if abs(seconds) >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"
