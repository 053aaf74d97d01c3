"""Checks of the output tables on the built site (run by `nox -s docs`): no text cell right-aligned, and the
source view's marked rows readable in both themes.

Both are computed from the pages' own stylesheets by tests/site/cascade.py, as a browser would: the theme's
light and dark variables, sphinx-gallery's styles (``.rendered_html td { text-align: right }``) and
kernellab's (docs/_static/custom.css, and the inline styles of kernellab.report and kernellab.source). Each
check is also run on a page made to fail it.
"""

import functools
import html
import re

import pytest
from cascade import THEMES, Page, contrast, page_sheets
from site_common import LANGS, SITE

# The pages with output tables: every gallery page, and the prose pages (their tables are Markdown's)
PAGES = sorted({p.relative_to(SITE / "en").as_posix() for p in (SITE / "en" / "auto_examples").glob("*/[0-9]*.html")}
               | {p.name for p in (SITE / "en").glob("*.html") if p.name not in ("genindex.html", "search.html",
                                                                                  "py-modindex.html")})
MIN_CONTRAST = 4.5  # WCAG 2 AA, normal text


def _number(text: str) -> bool:
    """A cell that reads as a number (with its unit: "38.7 TFLOP/s", "1,024", "33 %"), as kernellab.report
    decides which columns to right-align."""
    first = text.replace(",", "").replace("%", "").replace("×", "").replace("−", "-").split()
    try:
        float(first[0])
    except (ValueError, IndexError):
        return False
    return True


def _text(el) -> str:
    return " ".join(el.get_text(" ").split())


@functools.cache
def _article(lang: str, rel: str) -> tuple[str, Page]:
    """A page's text, and the page for the cascade with its highlighted code blocks emptied (thousands of
    spans, no table: a quarter of the time the checks took)."""
    path = SITE / lang / rel
    text = path.read_text(encoding="utf-8")
    return text, Page(re.sub(r"(<pre\b[^>]*>).*?</pre>", r"\1</pre>", text, flags=re.S), page_sheets(path, text))


def right_aligned_text_cells(page: Page) -> list[str]:
    """The text cells (not a number, not empty) of ``page``'s article whose computed alignment is right."""
    article = page.soup.find("article") or page.soup
    found = []
    for td in article.find_all("td"):
        text = _text(td)
        if text and not _number(text) and page.value(td, "text-align") in ("right", "end", "-webkit-right"):
            found.append(text[:40])
    return found


def low_contrast_rows(page: Page) -> list[str]:
    """Each text of a highlighted table row (``tr.kernellab-hot``, or a row with its own background) whose
    contrast with what lies behind it is under MIN_CONTRAST, in either theme."""
    found = []
    article = page.soup.find("article") or page.soup
    for tr in article.find_all("tr"):
        if "kernellab-hot" not in (tr.get("class") or []) and "background" not in (tr.get("style") or ""):
            continue
        for el in [tr, *tr.find_all(True)]:
            if not any(isinstance(c, str) and c.strip() for c in el.children):
                continue
            for theme in THEMES:
                ratio = contrast(page.color(el, theme), page.background(el, theme))
                if ratio < MIN_CONTRAST:
                    found.append(f"{theme}: {ratio:.2f}:1 on {_text(el)[:30]!r}")
    return found


def test_pages_with_tables_found():
    assert len(PAGES) >= 20 and any("01_naive" in p for p in PAGES), PAGES


@pytest.mark.parametrize("lang", LANGS)
def test_no_text_cell_is_right_aligned(lang):
    """Kernel names, units and words read from the left, under their left-aligned headers (issue 36: 496 text
    cells in 64 tables were right-aligned by sphinx-gallery's stylesheet)."""
    cells, wrong = 0, {}
    for rel in PAGES:
        text, page = _article(lang, rel)
        if "<td" not in text:
            continue
        cells += text.count("<td")
        found = right_aligned_text_cells(page)
        if found:
            wrong[rel] = f"{len(found)}, e.g. {found[:3]}"
    assert cells > 1000, f"only {cells} table cells found"
    assert not wrong, f"{lang}: right-aligned text cells:\n" + "\n".join(f"{r}: {w}" for r, w in wrong.items())


@pytest.mark.parametrize("lang", LANGS)
def test_source_view_rows_readable_in_both_themes(lang):
    rows, low = 0, {}
    for rel in PAGES:
        text, page = _article(lang, rel)
        if "kernellab-hot" not in text:
            continue
        rows += text.count("kernellab-hot")
        found = low_contrast_rows(page)
        if found:
            low[rel] = found[:3]
    assert rows >= 5, f"only {rows} marked source-view rows found"
    assert not low, f"{lang}: highlighted rows under {MIN_CONTRAST}:1: {low}"


def test_source_view_is_code():
    """The source column of the source view keeps its indentation and reads left to right in a monospaced font."""
    text, page = _article("en", "auto_examples/lecture10/01_naive_and_coalescing.html")
    cells = page.soup.select("table.kernellab-source td.kernellab-code")
    assert len(cells) > 20
    for td in cells:
        assert page.value(td, "text-align") == "left"
        code = td.find("code")
        assert "monospace" in (page.value(code, "font-family") or "") or "monospace" in code.get("style", "")
        assert "white-space:pre" in code.get("style", "").replace(" ", "")
    indented = [c.get_text() for c in cells if c.get_text().startswith("    ")]
    assert indented, "no indented source line: the view lost its indentation"


# --- each check on a page made to fail it ---------------------------------------------------------------

def _made_page(body: str) -> Page:
    """A page with a real gallery page's head (its stylesheets) and ``body`` as its article."""
    path = SITE / "en" / "auto_examples" / "lecture10" / "01_naive_and_coalescing.html"
    real = path.read_text(encoding="utf-8")
    head = real[: real.index("<body")]
    return Page(f'{head}<body><article class="bd-article"><div class="rendered_html">{body}</div></article></body></html>',
                page_sheets(path, real))


def test_the_alignment_check_finds_a_right_aligned_text_cell():
    """sphinx-gallery's table style, unopposed: a table without kernellab's class, as the site had it."""
    page = _made_page("<table><thead><tr><th>kernel</th><th>FLOPs</th></tr></thead>"
                      "<tbody><tr><td>sgemm_naive</td><td>2.1 G</td></tr></tbody></table>")
    assert right_aligned_text_cells(page) == ["sgemm_naive"]


def test_the_contrast_check_finds_the_old_marked_row():
    """A marked row as the source view had it before issue 36: an inline light background, and the dark theme's
    light text on it (the table lacks the kernellab-source class, which custom.css darkens)."""
    row = ('<table class="kernellab-table"><tbody><tr class="kernellab-hot" style="background:#fde2e2">'
           "<td>●</td><td class=num>11</td><td><code>x = blk.load(A, i)</code></td></tr></tbody></table>")
    found = low_contrast_rows(_made_page(row))
    assert found and all(f.startswith("dark: ") for f in found), found
    assert any(html.unescape("1.2") in f for f in found), found  # white on #fde2e2 is 1.22:1
