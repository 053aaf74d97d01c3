"""Chinese search that finds the glossary's terms and the synonyms students type (a Sphinx extension).

Sphinx indexes Chinese text in words cut by jieba, and the browser looks a query up whole: a term
jieba cuts in two (合并访存 → 合并 + 访存, 线程块 → 线程 + 块) was never found. This extension

- gives jieba a user dictionary (``html_search_options["dict"]``) of every Chinese term of
  docs/glossary.md and of :data:`EXTRA_TERMS`, so each is indexed whole (jieba's search mode still
  indexes its parts too: 合并 and 访存 keep finding their pages);
- gives the browser's search (docs/_static/kernellab-search.js, which also cuts any Chinese query into the
  index's own terms: this list makes terms whole, it is not what a query needs to be found) the synonyms a
  reader may type instead, each standing for its term: the renderings the glossary rejects (线程束 for
  warp, 核函数 for 内核, …; these also rank the glossary first) and :data:`EXTRA_SYNONYMS` (合并访问,
  存储体冲突, …), written into the built ``searchindex.js`` beside Sphinx's tables (:func:`search_data`).

:func:`glossary_terms` and :func:`synonyms` are what tests/site/test_search.py checks the built index
against.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

GLOSSARY = Path(__file__).resolve().parents[1] / "glossary.md"
CJK = re.compile(r"[\u4e00-\u9fff]")
# Terms the pages use that the glossary does not list (the zh review's searches among them).
EXTRA_TERMS = ("全局内存", "线程块", "竞争检测器", "寄存器", "访存", "显存带宽", "流水线", "调度器",
               "写后读", "读后写", "写后写", "性能模型", "指令发射", "波次", "分块", "向量化")
# What a student may type for a term (left) that the site spells otherwise (right: its terms, a query
# of several words reading as all of them).
EXTRA_SYNONYMS = {
    "合并访问": ("合并访存",), "访存合并": ("合并访存",), "内存合并": ("合并访存",), "合并内存访问": ("合并访存",),
    "存储体冲突": ("bank conflict",), "bank冲突": ("bank conflict",), "内存库冲突": ("bank conflict",),
    "共享存储器": ("共享内存",), "全局存储器": ("全局内存",), "线程网格": ("网格",),
    "核函数": ("内核",), "屋顶模型": ("roofline",), "占有率": ("占用率",), "计算强度": ("算术强度",),
    "运算强度": ("算术强度",), "屋顶线模型": ("roofline",), "栅栏": ("屏障",), "同步屏障": ("屏障",), "算子融合": ("融合",), "内核融合": ("融合",),
    "竞态条件": ("冒险",), "数据竞争": ("冒险",), "张量核": ("Tensor Core",), "张量核心": ("Tensor Core",), "内存带宽": ("显存带宽",), "流式多处理器": ("SM",),
}


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _rows() -> list[tuple[str, str, str, str]]:
    """The glossary's term rows: (section, term, rendering, rejected); rejected is empty in "Other terms"."""
    rows, section = [], ""
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
        if section == "Typography" or not line.startswith("|") or set(line) <= set("|-: "):
            continue
        cells = _cells(line)
        if cells[0] != "term" and len(cells) >= 2:
            rows.append((section, cells[0], cells[1], cells[2] if len(cells) > 2 else ""))
    return rows


def _renderings(section: str, rendering: str) -> list[str]:
    """The terms a rendering cell names: ``线程块 / 块`` → 线程块, 块; ``波次（wave）`` → 波次;
    ``bank conflict（简称冲突，…）`` → bank conflict. The "Other terms" cells are prose: each Chinese word
    of two characters or more there, glosses included (性能剖析 in ``profiling（性能剖析）``)."""
    if section == "Other terms":
        return [w.removeprefix("即") for w in re.findall(r"[\u4e00-\u9fff]{2,}", rendering)]
    plain = re.sub(r"（[^）]*）|\([^)]*\)|`[^`]*`", "", rendering)
    return [part.strip() for part in re.split(r"\s*/\s*|,\s*", plain) if part.strip()]


def glossary_terms() -> list[str]:
    """Every term of the glossary's renderings (English and Chinese) and the extra terms, in order."""
    found = [t for section, _, rendering, _ in _rows() for t in _renderings(section, rendering)] + list(EXTRA_TERMS)
    return list(dict.fromkeys(t for t in found if len(t) > 1))


def synonyms() -> dict[str, tuple[str, ...]]:
    """Chinese synonym → the site's terms it stands for: the glossary's rejected Chinese renderings
    (those the pages do not use for something else) and EXTRA_SYNONYMS."""
    found = {}
    keep = {"存储", "加载", "块"}  # rejected for one meaning but the site's word for another (存储层次, 加载器)
    for section, _, rendering, rejected in _rows():
        terms = tuple(t for t in _renderings(section, rendering) if t)
        for word in re.split(r",\s*", re.sub(r"\([^)]*\)|（[^）]*）", "", rejected)):
            word = word.strip()
            if CJK.search(word) and " " not in word and word not in keep and word not in terms:
                found.setdefault(word, terms)
    found.update(EXTRA_SYNONYMS)
    return found


def user_dictionary(known=lambda word: False) -> str:
    """jieba's user dictionary: each Chinese term and synonym that jieba's own dictionary lacks
    (``known(word)``), one a line, with a frequency that keeps it whole (a two-character word, which
    could otherwise swallow a neighbour's character, a lower one)."""
    words = [t for t in [*glossary_terms(), *synonyms()] if CJK.search(t) and not re.search(r"[A-Za-z\s]", t)]
    return "".join(f"{w} {200000 if len(w) > 2 else 20000} n\n" for w in dict.fromkeys(words) if not known(w))


def _docs(index: dict, term: str, stem) -> set[int]:
    """The documents a browser query ``term`` finds in ``index``: every word of it (AND), as the page's
    search splits and stems it, in ``terms`` or ``titleterms``."""
    found = None
    for word in re.findall(r"[\w]+", term.lower()):
        word = word if CJK.search(word) else stem(word)
        docs = set()
        for table in ("terms", "titleterms"):
            hit = index[table].get(word, [])
            docs |= {hit} if isinstance(hit, int) else set(hit)
        found = docs if found is None else found & docs
    return found or set()


def read_index(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    return json.loads(re.fullmatch(r"Search\.setIndex\((.*)\)\s*", text, re.S)[1])


def _config_inited(app, config):
    if not (config.language or "").startswith("zh"):
        return
    path = Path(app.doctreedir, "kernellab-jieba-dict.txt")
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        import jieba

        jieba.initialize()  # its dictionary, loaded: what it knows needs no entry
        known = jieba.get_FREQ
    except ImportError:  # Sphinx's Chinese search then cuts nothing: the dictionary is moot
        def known(word):
            return None
    text = user_dictionary(known)
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    config.html_search_options = {**(config.html_search_options or {}), "dict": str(path)}


def search_data() -> dict:
    """What the browser's search (docs/_static/kernellab-search.js) reads beside Sphinx's index: each synonym
    and the term it stands for (lower case; the query looks it up instead), and the renderings the
    glossary rejects (a query holding one ranks the glossary first: it says what the site writes instead).
    Kept out of Sphinx's own tables, which an incremental build reads back and would keep stale."""
    def term(word, terms):  # of several (运行和 → 当前最大值 / 累加和): the one sharing most characters with it
        return max(terms, key=lambda t: (len(set(t) & set(word)), -terms.index(t))).lower()

    return {"kernellab_synonyms": {word: [term(word, terms)] for word, terms in sorted(synonyms().items())},
            "kernellab_rejected": sorted(w for w in synonyms() if w not in EXTRA_SYNONYMS)}


def _build_finished(app, exception):
    if exception or app.builder.format != "html" or not (app.config.language or "").startswith("zh"):
        return
    path = Path(app.outdir, "searchindex.js")
    if not path.is_file():
        return
    index = {**read_index(path), **search_data()}
    path.write_text("Search.setIndex(" + json.dumps(index, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
                    + ")", encoding="utf-8")


def setup(app):
    app.connect("config-inited", _config_inited)
    app.connect("build-finished", _build_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
