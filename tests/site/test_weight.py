"""Checks of what the built site weighs (run by `nox -s docs`): a budget for the whole site, the search index
loaded by the search page only, no sourcemaps and no copied reST sources (docs/_ext/site_weight.py).

Each check is a function of a site folder or a page, also run on one made to fail it.
"""

import re
from pathlib import Path

import pytest
from site_common import LANGS, SITE

# The whole site, both languages and dist/ (53.6 MB at issue 36, 39 MB the round before; 42.2 MB after it):
# a new page or asset that needs more says so here.
BUDGET_BYTES = 45_000_000
SEARCH_FILES = ("searchindex.js", "searchtools.js", "language_data.js")
UNUSED_SCRIPTS = ("sg-tags.js",)  # sphinx-gallery's tag filter: no example has tags, its list was empty


def site_bytes(site: Path) -> int:
    return sum(p.stat().st_size for p in site.rglob("*") if p.is_file())


def over_budget(site: Path, budget: int = BUDGET_BYTES) -> str | None:
    """None, or what the site weighs and which folders weigh most, when it is over ``budget``."""
    total = site_bytes(site)
    if total <= budget:
        return None
    parts = sorted(((site_bytes(p) if p.is_dir() else p.stat().st_size, p.relative_to(site).as_posix())
                    for lang in site.iterdir() if lang.is_dir() for p in lang.iterdir()), reverse=True)
    return f"{total / 1e6:.1f} MB > {budget / 1e6:.1f} MB; largest: " + ", ".join(f"{r} {n / 1e6:.1f} MB" for n, r in parts[:6])


def search_scripts(page: str) -> list[str]:
    """The search files a page loads (searchindex.js, searchtools.js, language_data.js)."""
    return [src for src in re.findall(r'<script\b[^>]*\bsrc="([^"]+)"', page)
            if src.split("?")[0].rsplit("/", 1)[-1] in SEARCH_FILES]


def _pages(lang):
    return sorted(p for p in (SITE / lang).rglob("*.html") if "_static" not in p.parts)


def test_the_site_is_within_its_budget():
    problem = over_budget(SITE)
    assert problem is None, problem


@pytest.mark.parametrize("lang", LANGS)
def test_the_search_index_loads_on_the_search_page_only(lang):
    loading = [p.relative_to(SITE / lang).as_posix() for p in _pages(lang)
               if p.name != "search.html" and search_scripts(p.read_text(encoding="utf-8"))]
    assert not loading, f"{lang}: {len(loading)} pages load the search index, e.g. {loading[:3]}"
    search = (SITE / lang / "search.html").read_text(encoding="utf-8")
    assert {s.split("?")[0].rsplit("/", 1)[-1] for s in search_scripts(search)} == set(SEARCH_FILES)


@pytest.mark.parametrize("lang", LANGS)
def test_no_page_loads_a_script_that_does_nothing(lang):
    loading = [p.relative_to(SITE / lang).as_posix() for p in _pages(lang)
               if any(s in p.read_text(encoding="utf-8") for s in UNUSED_SCRIPTS)]
    assert not loading, f"{lang}: {len(loading)} pages load {UNUSED_SCRIPTS}, e.g. {loading[:3]}"


@pytest.mark.parametrize("lang", LANGS)
def test_no_sourcemaps_and_no_copied_sources(lang):
    root = SITE / lang
    maps = [p.name for p in root.rglob("*.map")]
    pointing = [p.name for p in (root / "_static").rglob("*") if p.suffix in (".js", ".css")
                and b"sourceMappingURL" in p.read_bytes()]
    assert not maps and not pointing, f"{lang}: sourcemaps {maps}, files naming one {pointing}"
    assert not (root / "_sources").exists(), f"{lang}: _sources/ is copied, and nothing links it"


# --- each check on a site or page made to fail it ---------------------------------------------------------

def test_the_budget_check_names_what_weighs(tmp_path):
    (tmp_path / "en" / "generated").mkdir(parents=True)
    (tmp_path / "en" / "generated" / "page.html").write_bytes(b"x" * 1200)
    (tmp_path / "en" / "index.html").write_bytes(b"x" * 100)
    assert over_budget(tmp_path, budget=1300) is None
    problem = over_budget(tmp_path, budget=1000)
    assert problem and problem.startswith("0.0 MB > 0.0 MB") and "en/generated" in problem, problem


def test_the_search_check_finds_a_page_loading_the_index():
    page = ('<head><script src="../_static/searchtools.js"></script><script src="../_static/kernellab.js"></script>'
            '<script src="../searchindex.js"></script></head>')
    assert search_scripts(page) == ["../_static/searchtools.js", "../searchindex.js"]
