"""Checks of the Chinese site's full-text search (run by `nox -s docs`).

The browser looks a Chinese query up whole in ``searchindex.js``: every term of docs/glossary.md (and
the few the pages use beside them) must be an index term of its own that finds the pages using it,
and every synonym a student may type (zh_search.synonyms: 合并访问, 存储体冲突, 线程束, …) must find
the pages of the term it stands for.
"""

import html
import re

import pytest
from site_common import SITE
from zh_search import CJK, _docs, glossary_terms, read_index, synonyms

INDEX = read_index(SITE / "zh_CN" / "searchindex.js")
DOCNAMES = INDEX["docnames"]


def _stem(word):
    import snowballstemmer

    return snowballstemmer.stemmer("english").stemWord(word)


def _found(term):
    return {DOCNAMES[i] for i in _docs(INDEX, term, _stem)}


def _pages_with(term):
    """The Chinese pages whose lesson text (code and the API reference left out) holds ``term``."""
    found = set()
    for docname in DOCNAMES:
        if docname.startswith(("generated/", "api")):
            continue
        page = (SITE / "zh_CN" / f"{docname}.html").read_text(encoding="utf-8")
        article = page[page.find('<article class="bd-article">'):page.find("</article>")]
        article = re.sub(r'<div class="highlight.*?</pre>|<script\b.*?</script>', " ", article, flags=re.S)
        if term in html.unescape(re.sub(r"<[^>]+>", "", article)):
            found.add(docname)
    return found


CHINESE_TERMS = [t for t in glossary_terms() if CJK.search(t) and not re.search(r"[A-Za-z\s]", t)]


def test_the_review_s_searches_are_among_the_checked():
    assert {"合并访存", "线程块", "全局内存", "算术强度", "临界强度", "程序实例", "写后读", "读后写", "竞争检测器"} <= set(CHINESE_TERMS)
    assert {"合并访问", "存储体冲突", "线程束"} <= set(synonyms())


@pytest.mark.parametrize("term", CHINESE_TERMS)
def test_a_glossary_term_finds_every_page_that_uses_it(term):
    pages = _pages_with(term)
    assert pages, f"no Chinese page uses {term!r}: a stale entry of zh_search.EXTRA_TERMS or the glossary"
    missing = pages - _found(term)
    assert not missing, f"searching {term!r} misses {len(missing)} of its {len(pages)} pages: {sorted(missing)[:8]}"


@pytest.mark.parametrize("term", [t for t in glossary_terms() if t not in CHINESE_TERMS])
def test_an_english_term_finds_pages_on_the_chinese_site(term):
    assert _found(term), f"searching {term!r} on the Chinese site finds nothing"


@pytest.mark.parametrize("word", sorted(synonyms()))
def test_a_synonym_finds_the_pages_of_its_term(word):
    terms = synonyms()[word]
    expected = set().union(*(_found(t) for t in terms))
    assert expected, f"{word!r} stands for {terms}, which find nothing"
    assert expected <= _found(word), f"searching {word!r} misses pages of {terms}"
