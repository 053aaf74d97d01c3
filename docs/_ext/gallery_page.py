"""The end of a gallery page: what the page checks, and how long its script ran (a Sphinx extension).

A gallery script states its numbers in its prose and checks each with :class:`kernellab.Claims`,
which raises (and fails the build) on a mismatch. A reader should not meet those checks as tables
in mid-lesson, so while a script runs the docs build collects them (:func:`collect`, called by
sphinx-gallery before and after each script as one of its ``reset_modules``) and writes them, in the
page's language, beside the generated page as ``<example>.checks.html``. When Sphinx then reads the
page, this extension puts that block, collapsed, and the script's running time (sphinx-gallery's
own measurement, ``<example>.cost.json``) at the end of the lesson, before the download buttons.

Both are raw HTML, out of gettext's reach: the running time changes with every run and would
otherwise change the catalogs, and the claims are already in the page's language.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from sphinx.locale import get_translation

_ = get_translation("sphinx")  # the theme's catalog: docs/locale/<lang>/LC_MESSAGES/sphinx.po
DOWNLOAD_LABEL = re.compile(r"^\.\. _sphx_glr_download_", re.M)


def _target(gallery_conf: dict, fname) -> Path | None:
    """The generated page (``<srcdir>/auto_examples/x/01_y.rst``) of the script just run, ``fname``.

    sphinx-gallery gives the hook the script's file name alone; of the gallery folders' pages of that
    name, the one just written (it writes the page before the hook runs) is the script's.
    """
    gallery_dirs = gallery_conf["gallery_dirs"]
    pages = [page for folder in ([gallery_dirs] if isinstance(gallery_dirs, str) else gallery_dirs)
             for page in Path(gallery_conf["src_dir"], folder).rglob(Path(fname).with_suffix(".rst").name)]
    return max(pages, key=lambda page: page.stat().st_mtime_ns, default=None)


def collect(gallery_conf, fname, when) -> None:
    """sphinx-gallery's reset hook: collect the claims a script checks; afterwards write its block."""
    from kernellab import claims

    if fname is None:  # entering a folder of examples
        return
    if when == "before":
        claims.begin_page()
        return
    target = _target(gallery_conf, fname)
    block = claims.checks_html(claims.end_page())
    if target is None:
        return
    path = target.with_suffix(".checks.html")
    if block:
        if not path.is_file() or path.read_text(encoding="utf-8") != block + "\n":
            path.write_text(block + "\n", encoding="utf-8")
    else:
        path.unlink(missing_ok=True)


def running_time(seconds: float) -> str:
    """sphinx-gallery's "Total running time of the script" line, translated, as HTML.

    >>> running_time(75.25)
    '<p class="sphx-glr-timing"><strong>Total running time of the script:</strong> (1 minutes 15.250 seconds)</p>'
    """
    minutes, rest = divmod(seconds, 60)
    when = _("({minutes} minutes {seconds} seconds)").format(minutes=f"{minutes:.0f}", seconds=f"{rest:.3f}")
    gap = "" if when.startswith("（") else " "  # a full-width parenthesis brings its own space
    return (f'<p class="sphx-glr-timing"><strong>{html.escape(_("Total running time of the script:"))}</strong>{gap}'
            f"{html.escape(when)}</p>")


def page_end(folder: Path, stem: str) -> str:
    """The reST that ends the example ``stem`` (its files in ``folder``): its checks and its running time."""
    parts = []
    if (folder / f"{stem}.checks.html").is_file():
        parts.append(f".. raw:: html\n   :file: {stem}.checks.html\n")
    cost = folder / f"{stem}.cost.json"
    if cost.is_file():
        try:
            seconds = float(json.loads(cost.read_text(encoding="utf-8"))["time"])
        except (ValueError, KeyError, TypeError):
            seconds = None
        if seconds:  # 0: the example was not run (plot_gallery=0)
            parts.append(".. raw:: html\n\n   " + running_time(seconds) + "\n")
    return "\n".join(parts)


def _source_read(app, docname, source):
    if app.builder.name == "gettext" or not docname.startswith("auto_examples/") or docname.endswith("index"):
        return
    path = Path(app.srcdir, docname)
    end = page_end(path.parent, path.name)
    match = DOWNLOAD_LABEL.search(source[0])
    if end and match:
        source[0] = source[0][:match.start()] + end + "\n" + source[0][match.start():]


def setup(app):
    app.connect("source-read", _source_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
