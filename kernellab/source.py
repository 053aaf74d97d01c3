"""The source view: a kernel's source with its counts per line beside it, as Nsight Compute's Source page.

``counts.source()`` of a launch made with ``lines=True`` returns a :class:`SourceView`: aligned text in
a terminal, an HTML table in the gallery or Jupyter (``_repr_html_``) with the costliest lines marked.
Lines of a called helper follow the kernel's, each with the kernel line that called it.

Examples
--------
>>> import numpy as np
>>> from kernellab import launch
>>> def copy(blk, x, y):
...     v = blk.load(x, blk.tx * 2)
...     blk.store(y, blk.tx, v)
>>> c = launch(copy, 1, 32, args=(np.ones(64, np.float32), np.empty(32, np.float32)), lines=True)
>>> print(c.source(columns=["Requests", "Sectors", "Excess sectors"]))   # stride 2: 8 sectors, ideally 4
   Line  Requests  Sectors  Excess sectors  Source
-  ----  --------  -------  --------------  -------------------------------
      1                                     def copy(blk, x, y):
●     2         1        8               4      v = blk.load(x, blk.tx * 2)
●     3         1        4               0      blk.store(y, blk.tx, v)
"""

from __future__ import annotations

import html
import textwrap

from . import metrics
from .counters import member
from .i18n import _
from .tables import display_width

#: The columns the view shows by default (those all zero for the launch are left out).
SIMT_COLUMNS = ("Warp instructions", "SIMT efficiency", "Requests", "Sectors", "Sectors/request", "Ideal sectors",
                "Excess sectors", "Shared wavefronts", "Ideal wavefronts", "Bank conflicts", "FLOPs", "DRAM bytes")
TRITON_COLUMNS = ("Requests", "Sectors", "Sectors/request", "Ideal sectors", "Excess sectors", "Lines", "Bytes",
                  "FLOPs", "Atomics", "DRAM bytes")
MARK = "●"  # the costliest lines' mark
# A marked row's colours where no stylesheet overrides them (a notebook; the site's light theme):
# #1f2328 on #fde2e2 is 12.9:1 (WCAG AA asks 4.5:1); tests/site/test_contrast.py holds both themes to it.
HOT_BACKGROUND, HOT_TEXT = "#fde2e2", "#1f2328"
# The source cell's code: the row's own colour, no inline-code box, every space kept.
_CODE_STYLE = ("white-space:pre;color:inherit;background:transparent;border:0;padding:0;"
               "font-family:SFMono-Regular,Menlo,Consolas,'Liberation Mono',monospace")
_RATIO_OF = {"SIMT efficiency": lambda c: c.warp_instr, "Sectors/request": lambda c: c.requests}  # blank at 0


def cost(counts) -> int:
    """What the view ranks lines by: the L1 data-path work of a line, its sectors (global and atomic)
    plus its shared-memory wavefronts; its FLOPs when no line touches memory."""
    return counts.sectors + getattr(counts, "atomic_sectors", 0) + getattr(counts, "shld_wavefronts", 0) \
        + getattr(counts, "shst_wavefronts", 0)


class SourceView:
    """A kernel's lines with their counts; see the module's example.

    Parameters
    ----------
    counts : Counts or TritonCounts
        of a launch made with ``lines=True``.
    columns : list of str, optional
        the English headers of the metrics to show (:data:`kernellab.metrics.METRICS`); by default
        ``SIMT_COLUMNS`` or ``TRITON_COLUMNS``, less those zero everywhere.
    top : int
        how many of the costliest lines to mark (those with at least 5 % of the launch's cost).
    """

    def __init__(self, counts, columns=None, top: int = 3):
        by_line = counts.by_line
        if by_line is None:
            raise ValueError(_("these counts have no lines: launch with lines=True"))
        simt = hasattr(counts, "warp_instr")
        names = {m.header: m for m in metrics.METRICS}
        unknown = [c for c in columns or () if c not in names]
        if unknown:
            raise ValueError(_("unknown column {name!r}; the columns are: {names}").format(
                name=unknown[0], names=", ".join(names)))
        wanted = [names[c] for c in (columns or (SIMT_COLUMNS if simt else TRITON_COLUMNS))]
        if columns is None:
            wanted = [m for m in wanted if any(m.value(r) for r in by_line.values())]
        self.metrics = [m for m in wanted if m.value(counts) is not None]
        self.by_line = by_line
        self.note = by_line.note
        costs = {k: cost(r) for k, r in by_line.items()}
        if not any(costs.values()):
            costs = {k: r.flops for k, r in by_line.items()}
        total = sum(costs.values())
        ranked = sorted((k for k in costs if costs[k] and costs[k] >= 0.05 * total), key=lambda k: -costs[k])
        self.hot = set(ranked[:top])
        self.share = {k: (costs[k] / total if total else 0.0) for k in costs}
        self.rows = self._rows()

    def _cells(self, key) -> list[str]:
        row = self.by_line.get(key)
        if row is None:
            return [""] * len(self.metrics)
        vals = metrics.values(row, row=True)
        return ["" if m.name not in vals or (m.header in _RATIO_OF and not _RATIO_OF[m.header](row))
                else metrics.fmt(m, vals[m.name]) for m in self.metrics]

    def _rows(self) -> list[tuple]:
        """``(mark, line number, cells, source text)`` for the kernel's lines, then each helper's."""
        bl = self.by_line
        out = []
        own = [(bl.file, n) for n in range(bl.first, bl.last + 1)] if not bl.note else list(bl)
        texts = textwrap.dedent("".join(bl.text(k) or "\n" for k in own)).splitlines()
        for k, text in zip(own, texts):
            out.append((MARK if k in self.hot else "", str(k[1]), self._cells(k), text.rstrip()))
        others = [k for k in bl if k not in set(own)]
        for k in others:
            sites = ", ".join(str(line) for _f, line in bl.sites.get(k, ()))
            where = _("called from line {lines}").format(lines=sites) if sites else ""
            text = bl.line(k)
            out.append((MARK if k in self.hot else "", f"{k[1]}", self._cells(k),
                        f"{text}    # {where}" if where else text))
        return out

    def headers(self) -> list[str]:
        return ["", _("Line"), *[metrics.header(m) for m in self.metrics], _("Source")]

    def to_text(self) -> str:
        """Aligned text: the numbers right-aligned, the source as written."""
        head = self.headers()
        body = [[mark, line, *cells, text] for mark, line, cells, text in self.rows]
        widths = [max(display_width(r[j]) for r in [head, *body]) for j in range(len(head) - 1)]

        def fmt(cells):
            parts = [cells[0] + " " * (widths[0] - display_width(cells[0]))]
            parts += [" " * (w - display_width(c)) + c for c, w in zip(cells[1:-1], widths[1:])]
            return ("  ".join(parts) + "  " + cells[-1]).rstrip()

        rule = ["-" * w for w in widths] + ["-" * max(display_width(r[-1]) for r in [head, *body])]
        lines = [fmt(head), "  ".join(rule)] + [fmt(r) for r in body]
        if self.note:
            lines.append(_("Note: {note}").format(note=self.note))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    __repr__ = __str__

    def _repr_html_(self) -> str:
        """An HTML table whose source column reads as code: left-aligned, monospaced, indentation kept.

        The alignment and the marked rows' colours are inline, for notebooks, which never see the site's
        stylesheet (JupyterLab right-aligns table cells): the marked rows are dark text on a light red in
        any theme; the site's dark theme darkens them (docs/_static/custom.css).
        """
        left = ' style="text-align:left"'
        head = "".join(f"<th{left}>{html.escape(h)}</th>" for h in self.headers())
        body = []
        for mark, line, cells, text in self.rows:
            hot = f' class="kernellab-hot" style="background:{HOT_BACKGROUND};color:{HOT_TEXT}"' if mark else ""
            tds = "".join(f"<td class=num>{html.escape(c)}</td>" for c in cells)
            body.append(f"<tr{hot}><td{left}>{mark}</td><td class=num>{line}</td>{tds}"
                        f'<td class="kernellab-code"{left}><code style="{_CODE_STYLE}">{html.escape(text)}</code></td>'
                        "</tr>")
        note = f"<p>{html.escape(_('Note: {note}').format(note=self.note))}</p>" if self.note else ""
        return (f'<table class="kernellab-table kernellab-source"><thead><tr>{head}</tr></thead>'
                f"<tbody>{''.join(body)}</tbody></table>{note}")


def source_view(counts, columns=None, top: int = 3) -> SourceView:
    """The source view of ``counts`` (see :class:`~kernellab.source.SourceView`): ``counts.source(columns, top)``, the kernel's
    source with the counts of a launch made with ``lines=True`` beside each line."""
    return SourceView(counts, columns, top)


member(source_view, "source")
