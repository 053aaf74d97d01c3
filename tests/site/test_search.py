"""Checks of the site's full-text search (run by `nox -s docs`), made by running the shipped search itself.

tests/site/search_node.js loads, with node, the scripts the built search page loads (Sphinx's searchtools.js and
language_data.js, the index, docs/_static/kernellab-search.js) in the page's order, and runs each query as the
page does. The checks then read what a reader would see first:

- the review's queries (reference/site-review.md §3): the right page first for at least 15 of the 17 Chinese
  ones, and a lesson or guide first for at least 9 of the 11 English ones, each expected page named here;
- a lesson or guide first on 10 concept queries per language;
- at least one result, the page it comes from among them, for 40 Chinese terms taken from the pages'
  headings (not from the glossary: the search cuts a query into the index's own terms, not a fixed list);
- every glossary term finds every Chinese page using it, and every synonym the pages of its term.

Each check also runs on an index made to fail it.
"""

import functools
import html
import json
import os
import re
import shutil
import subprocess

import pytest
from site_common import SITE
from zh_search import CJK, glossary_terms, search_data, synonyms

HERE = os.path.dirname(__file__)
NODE = shutil.which("node") or shutil.which("nodejs")
API = re.compile(r"^(generated/|api$|genindex$|py-modindex$|_modules/)")
HUB = re.compile(r"^(index|auto_examples/(.+/)?index)$")  # the landing page, the gallery's indexes
L10, TN = "auto_examples/lecture10/", "auto_examples/triton_notes/"

# reference/site-review.md §3, Chinese: query → the pages that are the right first result
ZH_REVIEW = {
    "合并访存": (L10 + "01_naive_and_coalescing",),
    "存储体冲突": (TN + "05_bank_conflicts", L10 + "04_vectorize_banks_tensor_cores"),  # both titled by it
    "线程束": ("glossary", "simulation"),  # the rejected rendering of warp: the glossary says so, simulation explains warps
    "共享内存": ("shared-memory",),
    "占用率": (TN + "04_waves_and_occupancy",),
    "性能模型": ("model",),
    "自动调优": (L10 + "05_autotuning_warptiling",),
    "屋顶线": ("model", "glossary"),  # a rendering the glossary rejects: the glossary says the site writes roofline
    "线程块": ("shared-memory", "simulation", TN + "04_waves_and_occupancy"),
    "寄存器": (L10 + "03_blocktiling",),
    "合并访问": (L10 + "01_naive_and_coalescing",),
    "bank 冲突": (TN + "05_bank_conflicts", L10 + "04_vectorize_banks_tensor_cores"),
    "分支发散": ("simulation", "errors", "profiling"),
    "算术强度": ("model",),
    "矩阵乘法": (L10 + "01_naive_and_coalescing", L10 + "index"),
    "边界检查": (L10 + "01_naive_and_coalescing",),
    "基准测试": (TN + "03_benchmarking",),
}
# the same table, English: a lesson or guide first, these ones
EN_REVIEW = {
    "bank conflict": (TN + "05_bank_conflicts", L10 + "04_vectorize_banks_tensor_cores"),
    "coalescing": (L10 + "01_naive_and_coalescing",),
    "occupancy": (TN + "04_waves_and_occupancy",),
    "tl.dot": (TN + "06_flash_attention", L10 + "06_triton_style", "triton"),
    "predict": ("model", "quickstart"),
    "roofline": ("model",),
    "shared memory": ("shared-memory",),
    "warp divergence": ("simulation", "errors", "profiling"),
    "autotune": (L10 + "05_autotuning_warptiling", "triton"),
    "flash attention": (TN + "06_flash_attention",),
    "L2 wave": ("model", L10 + "06_triton_style"),  # the wave model of L2: model.md, and L10/06 demo 2
}
# concept queries: a lesson or guide (not the API reference, not a list of pages) first, every one
CONCEPTS = {
    "en": ["coalesced access", "bank conflicts", "occupancy", "arithmetic intensity", "launch overhead", "race",
           "excess sectors", "warm-up", "tensor cores", "online softmax"],
    "zh_CN": ["合并访存", "存储体冲突", "占用率", "算术强度", "启动开销", "屋顶线", "多余 sector", "预热", "寄存器",
              "分块"],
}
# Chinese terms from the pages' headings (docname: terms), none of them needed in a fixed list
PAGE_TERMS = {
    L10 + "01_naive_and_coalescing": ["矩阵乘法", "边界检查", "合并访存", "朴素版"],
    L10 + "02_shared_memory_caching": ["共享内存", "缓存"],
    L10 + "03_blocktiling": ["分块", "寄存器"],
    L10 + "04_vectorize_banks_tensor_cores": ["向量化", "手算"],
    L10 + "05_autotuning_warptiling": ["自动调优"],
    L10 + "06_triton_style": ["启动顺序", "融合", "测试"],
    TN + "01_gelu": ["陷阱", "实测"],
    TN + "02_softmax": ["循环", "对比"],
    TN + "03_benchmarking": ["基准测试", "预热", "同步"],
    TN + "04_waves_and_occupancy": ["波次", "占用率"],
    TN + "05_bank_conflicts": ["按行", "按列", "填充"],
    TN + "06_flash_attention": ["注意力", "在线"],
    "model": ["性能模型", "吞吐", "延迟", "频率"],
    "errors": ["越界", "竞争", "屏障"],
    "profiling": ["性能剖析", "源码", "结论"],
    "quickstart": ["快速上手", "安装", "预测"],
    "shared-memory": ["转置"],
    "simulation": ["模拟", "指令"],
    "counts": ["计数"],
    "glossary": ["术语表"],
    "triton": ["教程"],
    "layout": ["布局"],
}


def search(lang: str, queries: list[str], root=None) -> dict[str, dict]:
    """query → {"words": what the page looked up, "results": [(docname, title, kind, score), ...] first to last}."""
    if NODE is None:
        if os.environ.get("CI"):
            pytest.fail("node is not installed: the search checks run the site's search with it (apt-get install nodejs)")
        pytest.skip("node is not installed: the search checks run the site's search with it (apt-get install nodejs)")
    done = subprocess.run([NODE, os.path.join(HERE, "search_node.js"), str(root or SITE / lang)],
                          input=json.dumps(queries, ensure_ascii=False), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert [s.rsplit("/", 1)[-1] for s in found["scripts"]][-2:] == ["searchindex.js", "kernellab-search.js"]
    return {o["query"]: o for o in found["out"]}


def _cached():
    cache = {}

    def get(lang):
        if lang not in cache:
            queries = {"zh_CN": [*ZH_REVIEW, *CONCEPTS["zh_CN"], *(t for ts in PAGE_TERMS.values() for t in ts),
                                 *glossary_terms(), *synonyms(), *(t for ts in synonyms().values() for t in ts)],
                       "en": [*EN_REVIEW, *CONCEPTS["en"]]}[lang]
            cache[lang] = search(lang, list(dict.fromkeys(queries)))
        return cache[lang]

    return get


RESULTS = _cached()


def first(lang: str, query: str) -> str | None:
    results = RESULTS(lang)[query]["results"]
    return results[0][0] if results else None


def first_right(expected: dict, lang: str) -> dict[str, str | None]:
    """query → the first result, for the queries whose first result is not one of the expected pages."""
    return {q: first(lang, q) for q, pages in expected.items() if first(lang, q) not in pages}


def lesson_or_guide(docname: str | None) -> bool:
    return docname is not None and not API.match(docname) and not HUB.match(docname)


def test_the_review_s_chinese_queries_find_the_right_page_first():
    wrong = first_right(ZH_REVIEW, "zh_CN")
    assert len(ZH_REVIEW) == 17 and len(wrong) <= 2, f"{17 - len(wrong)} of 17 right; first results: {wrong}"


def test_the_review_s_english_queries_find_a_lesson_or_guide_first():
    wrong = first_right(EN_REVIEW, "en")
    assert len(EN_REVIEW) == 11 and len(wrong) <= 2, f"{11 - len(wrong)} of 11 right; first results: {wrong}"


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_concept_queries_find_a_lesson_or_guide_first(lang):
    firsts = {q: first(lang, q) for q in CONCEPTS[lang]}
    assert len(firsts) == 10
    wrong = {q: f for q, f in firsts.items() if not lesson_or_guide(f)}
    assert not wrong, f"{lang}: an API page, an index or nothing first: {wrong}"


@functools.cache  # each glossary term's check reads every page: read once
def _article_text(lang: str, docname: str) -> str:
    """The text of page ``docname``'s article, code left out."""
    page = (SITE / lang / f"{docname}.html").read_text(encoding="utf-8")
    article = page[page.find('<article class="bd-article">'):page.find("</article>")]
    article = re.sub(r'<div class="highlight.*?</pre>|<script\b.*?</script>', " ", article, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", article))


def _pages_with(lang: str, docname: str, term: str) -> bool:
    """Whether the article of page ``docname`` holds ``term`` (code left out)."""
    return term in _article_text(lang, docname)


def test_forty_chinese_terms_from_the_pages_find_their_page():
    terms = [(doc, t) for doc, ts in PAGE_TERMS.items() for t in ts]
    assert len(terms) >= 40 and len({t for _, t in terms}) == len(terms)
    stale = [(doc, t) for doc, t in terms if not _pages_with("zh_CN", doc, t)]
    assert not stale, f"terms no longer on their page: {stale}"
    missing = {t: doc for doc, t in terms if doc not in {r[0] for r in RESULTS("zh_CN")[t]["results"]}}
    assert not missing, f"searching these misses the page they come from: {missing}"


@functools.cache
def _lesson_docnames() -> tuple[str, ...]:
    """The Chinese search index's pages, the API reference left out."""
    index = json.loads(re.fullmatch(r"Search\.setIndex\((.*)\)\s*",
                                    (SITE / "zh_CN" / "searchindex.js").read_text(encoding="utf-8"), re.S)[1])
    return tuple(d for d in index["docnames"] if not d.startswith(("generated/", "api")))


def _glossary_pages(term):
    """The Chinese pages whose lesson text (code and the API reference left out) holds ``term``."""
    return {d for d in _lesson_docnames() if _pages_with("zh_CN", d, term)}


CHINESE_TERMS = [t for t in glossary_terms() if CJK.search(t) and not re.search(r"[A-Za-z\s]", t)]


def test_the_review_s_searches_are_among_the_checked():
    assert {"合并访存", "线程块", "全局内存", "算术强度", "临界强度", "程序实例", "写后读", "读后写", "竞争检测器"} <= set(CHINESE_TERMS)
    assert {"合并访问", "存储体冲突", "线程束"} <= set(synonyms())


@pytest.mark.parametrize("term", CHINESE_TERMS)
def test_a_glossary_term_finds_every_page_that_uses_it(term):
    pages = _glossary_pages(term)
    assert pages, f"no Chinese page uses {term!r}: a stale entry of zh_search.EXTRA_TERMS or the glossary"
    missing = pages - {r[0] for r in RESULTS("zh_CN")[term]["results"]}
    assert not missing, f"searching {term!r} misses {len(missing)} of its {len(pages)} pages: {sorted(missing)[:8]}"


@pytest.mark.parametrize("term", [t for t in glossary_terms() if t not in CHINESE_TERMS])
def test_an_english_term_finds_pages_on_the_chinese_site(term):
    assert RESULTS("zh_CN")[term]["results"], f"searching {term!r} on the Chinese site finds nothing"


@pytest.mark.parametrize("word", sorted(synonyms()))
def test_a_synonym_finds_the_pages_of_its_term(word):
    terms = [t for t in synonyms()[word] if t.lower() in search_data()["kernellab_synonyms"][word]]  # the one it stands for
    expected = set().union(*({r[0] for r in RESULTS("zh_CN")[t]["results"]} for t in terms))
    found = {r[0] for r in RESULTS("zh_CN")[word]["results"]}
    assert expected, f"{word!r} stands for {terms}, which find nothing"
    assert expected <= found, f"searching {word!r} misses pages of {terms}: {sorted(expected - found)[:5]}"


# --- the checks on a search made to fail them ----------------------------------------------------------------

def _made_site(tmp_path, lang, index_edit=None, script_edit=None):
    """A copy of the built search page of ``lang``, its index or kernellab's script changed."""
    root = tmp_path / lang
    (root / "_static").mkdir(parents=True)
    shutil.copy(SITE / lang / "search.html", root / "search.html")
    for name in ("searchtools.js", "language_data.js", "sphinx9-zh-search-fix.js", "kernellab-search.js"):
        shutil.copy(SITE / lang / "_static" / name, root / "_static" / name)
    text = (SITE / lang / "searchindex.js").read_text(encoding="utf-8")
    (root / "searchindex.js").write_text(index_edit(text) if index_edit else text, encoding="utf-8")
    if script_edit:
        script = root / "_static" / "kernellab-search.js"
        script.write_text(script_edit(script.read_text(encoding="utf-8")), encoding="utf-8")
    return root


def test_the_checks_fail_on_sphinx_s_search_alone(tmp_path):
    """Without kernellab's script (an empty one in its place) the page looks 矩阵乘法 up whole and finds nothing,
    knows no synonym, and ranks the API reference first: the review's findings."""
    root = _made_site(tmp_path, "zh_CN", script_edit=lambda s: "")
    zh = search("zh_CN", ["矩阵乘法", "自动调优", "合并访问"], root)
    assert zh["矩阵乘法"]["results"] == [] and zh["自动调优"]["results"] == [] and zh["合并访问"]["results"] == []
    en = search("en", ["occupancy"], _made_site(tmp_path, "en", script_edit=lambda s: ""))
    assert not lesson_or_guide(en["occupancy"]["results"][0][0]), en["occupancy"]["results"][:3]


def test_the_segmentation_reads_the_index_not_a_list(tmp_path):
    """Take 乘法 out of the index: 矩阵乘法 is then cut into 矩阵 and two characters no term covers, and finds
    the pages holding 矩阵."""
    root = _made_site(tmp_path, "zh_CN", index_edit=lambda t: t.replace('"乘法":', '"乘法x":'))
    zh = search("zh_CN", ["矩阵乘法"], root)
    assert zh["矩阵乘法"]["words"] == ["矩阵"] and zh["矩阵乘法"]["results"]
