"""Checks of the built site (run by `nox -s docs` after it builds both languages).

Every page exists in both languages; every language-switcher link leads to the same page in the
other language; every internal link and image resolves; gallery pages hold real HTML tables and,
on the Chinese site, Chinese runtime output; Chinese full-text search has Chinese terms.
"""

import functools
import html
import json
import os
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from kernellab.i18n import catalog

SITE = Path(os.environ["KERNELLAB_SITE"])
LANGS = ("en", "zh_CN")
ZH_RUNTIME = catalog("zh_CN")
CJK = re.compile(r"[\u4e00-\u9fff]")


class _Links(HTMLParser):
    """The reference reading of a page: its ``<html lang>``, every href/src of a/img/link/script, and the
    links inside the language switcher."""

    def __init__(self):
        super().__init__()
        self.links, self.switcher, self.lang, self._in_switcher = [], [], None, 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "html":
            self.lang = a.get("lang")
        if tag == "div" and "kernellab-lang-switcher" in (a.get("class") or ""):
            self._in_switcher = 1
        elif tag == "div" and self._in_switcher:
            self._in_switcher += 1
        for key in ("href", "src"):
            if a.get(key) and tag in ("a", "img", "link", "script"):
                self.links.append(a[key])
                if self._in_switcher and tag == "a":
                    self.switcher.append(a[key])

    def handle_endtag(self, tag):
        if tag == "div" and self._in_switcher:
            self._in_switcher -= 1


# The same reading, ten times faster: only the tags it looks at are parsed (html.parser spends most of its
# time on the thousands of <span>s of highlighted code). Script bodies and comments are dropped first, as
# html.parser does not look for tags in them; test_fast_reading_equals_html_parser checks the two agree.
_SKIP = re.compile(r"<!--.*?-->|(<script\b[^>]*>).*?</script\s*>", re.S | re.I)
_TAG = re.compile(r"<(html|div|a|img|link|script)\b([^>]*)>|</div\s*>", re.I)
_ATTR = re.compile(r"""([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?""")


class _FastLinks(_Links):
    def feed(self, text):
        for m in _TAG.finditer(_SKIP.sub(lambda m: m.group(1) or "", text)):
            if m.group(1) is None:
                self.handle_endtag("div")
                continue
            attrs = [(k.lower(), html.unescape(next((v for v in vals if v is not None), "")))
                     for k, *vals in _ATTR.findall(m.group(2))]
            self.handle_starttag(m.group(1).lower(), attrs)


def _pages(lang):
    root = SITE / lang
    return sorted(p.relative_to(root) for p in root.rglob("*.html") if "_static" not in p.parts)


@functools.cache  # two tests read every page: parsed once
def _parse(path, reader=_FastLinks):
    parser = reader()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


@pytest.mark.parametrize("lang", LANGS)
def test_fast_reading_equals_html_parser(lang):
    pages = _pages(lang)
    for rel in pages[:: max(1, len(pages) // 12)]:  # a dozen pages of every kind
        fast, reference = _parse(SITE / lang / rel), _parse(SITE / lang / rel, _Links)
        assert (fast.lang, fast.links, fast.switcher) == (reference.lang, reference.links, reference.switcher), rel


def _shared(rel) -> bool:
    """A highlighted source page: the English site's, shared by both languages (docs/_ext/site_weight.py)."""
    return Path(rel).parts[0] == "_modules"


def test_every_page_exists_in_both_languages():
    en, zh = {p for p in _pages("en") if not _shared(p)}, set(_pages("zh_CN"))
    assert en, "no pages built"
    assert en == zh, f"only in en: {sorted(en - zh)[:5]}; only in zh_CN: {sorted(zh - en)[:5]}"
    assert sum(map(_shared, _pages("en"))) > 50, "the English site has no highlighted source pages"


def _switch_target(lang, rel) -> Path:
    """Where the language switch of ``rel`` leads: the same page, or from a shared source page the module's
    API page (the API reference, for a module without a page of its own and for the source pages' index)."""
    other = "zh_CN" if lang == "en" else "en"
    if not _shared(rel):
        return SITE / other / rel
    module = Path(rel).relative_to("_modules").with_suffix("").as_posix().replace("/", ".")
    page = SITE / other / f"generated/{module}.html"
    return page if page.is_file() else SITE / other / "api.html"


def test_root_sends_readers_to_their_language():
    text = (SITE / "index.html").read_text(encoding="utf-8")
    assert "en/index.html" in text and "zh_CN/index.html" in text


@pytest.mark.parametrize("lang", LANGS)
def test_switcher_leads_to_the_same_page_in_the_other_language(lang):
    other = "zh_CN" if lang == "en" else "en"
    for rel in _pages(lang):
        parser = _parse(SITE / lang / rel)
        # pydata-sphinx-theme renders the navbar twice (header, and the sidebar on narrow screens)
        assert parser.switcher and len(set(parser.switcher)) == 1, f"{lang}/{rel}: switcher links {parser.switcher}"
        target = (SITE / lang / rel).parent / unquote(urlsplit(parser.switcher[0]).path)
        assert target.resolve() == _switch_target(lang, rel).resolve(), f"{lang}/{rel} switches to {target}"
        assert target.exists(), f"{lang}/{rel} switches to {target}, which does not exist"
        assert other in target.resolve().relative_to(SITE.resolve()).parts[0]


@pytest.mark.parametrize("lang", LANGS)
def test_internal_links_and_images_resolve(lang):
    broken = []
    for rel in _pages(lang):
        page = SITE / lang / rel
        parser = _parse(page)
        assert parser.lang in ("en", "zh-CN"), f"{lang}/{rel}: html lang {parser.lang!r}"
        for link in parser.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or not parts.path or link.startswith(("#", "mailto:", "javascript:")):
                continue
            target = page.parent / unquote(parts.path)
            if not target.exists():
                broken.append(f"{lang}/{rel} -> {link}")
    assert not broken, "\n".join(broken[:20])


@pytest.mark.parametrize("lang", LANGS)
def test_gallery_pages_hold_html_tables(lang):
    pages = [p for p in _pages(lang) if p.parts[0] == "auto_examples" and p.name != "index.html"]
    assert pages, "no gallery pages"
    for rel in pages:
        text = (SITE / lang / rel).read_text(encoding="utf-8")
        tables = re.findall(r'<table class="kernellab-table">.*?</table>', text, re.S)
        assert tables, f"{lang}/{rel} has no HTML table"
        assert "&lt;table" not in text, f"{lang}/{rel} shows a table as escaped text"
        headers = [html.unescape(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", " ".join(tables))]
        if lang == "zh_CN":
            # a header the runtime catalog translates must not reach the Chinese page in English
            # (that is stale output from the English build, or a missed _())
            english = [h for h in headers if ZH_RUNTIME.get(h, h) != h]
            assert not english, f"{rel}: English headers on the Chinese page: {english}"
            assert any(CJK.search(h) for h in headers), f"{rel}: no Chinese table header"
        else:
            assert not any(CJK.search(h) for h in headers), f"{rel}: English page with Chinese table headers"


def test_chinese_pages_are_translated():
    text = (SITE / "zh_CN" / "index.html").read_text(encoding="utf-8")
    assert "三个引擎" in text and "English" in text


def test_chinese_search_index_has_chinese_terms():
    text = (SITE / "zh_CN" / "searchindex.js").read_text(encoding="utf-8")
    index = json.loads(text[text.index("(") + 1 : text.rindex(")")])
    chinese = [term for term in index["terms"] if CJK.search(term)]
    # jieba segments words: without it Sphinx indexes no Chinese terms at all
    assert len(chinese) > 50 and "显存" in index["terms"], f"{len(chinese)} Chinese terms"
    shim = SITE / "zh_CN" / "_static" / "sphinx9-zh-search-fix.js"
    assert shim.exists()
