"""The translations check's glossary and typography rules, on small synthetic catalogs."""

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
try:
    import po_tools
finally:
    sys.path.pop(0)

from po_tools import GLOSSARY, glossary_problems, runtime_conflicts  # noqa: E402

from tests.reference import every_case, failing_cases  # noqa: E402


def _po(path: Path, entries: dict[str, str], fuzzy: tuple[str, ...] = ()) -> Path:
    """Write a gettext catalog with these msgid → msgstr entries (``fuzzy`` ones flagged)."""
    blocks = ['msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n']
    for msgid, msgstr in entries.items():
        esc = [t.replace("\\", "\\\\").replace('"', '\\"') for t in (msgid, msgstr)]
        blocks.append(("#, fuzzy\n" if msgid in fuzzy else "") + f'msgid "{esc[0]}"\nmsgstr "{esc[1]}"\n')
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(blocks), encoding="utf-8")
    return path


# --- the glossary ---------------------------------------------------------------------------------

# msgstr, the glossary term it renders wrongly, and the rendering found
REJECTED = [
    ("每个程序实例算一个分片", "tile", "分片"),
    ("用掩码挡住越界的 lane", "mask", "掩码"),
    ("一个线程束有 32 个 lane", "warp", "线程束"),
    ("32 个存储体", "bank", "存储体"),
    ("读取 4 个扇区", "sector", "扇区"),
    ("每个缓存行 128 字节", "line", "缓存行"),
    ("Boehm 在 kernel 10 上试过", "kernel", "kernel"),
    ("这个核函数很慢", "kernel", "核函数"),
    ("每个 SM 放 2 个 block", "thread block", "block"),
    ("整个 grid 分成几波", "grid", "grid"),
    ("一个 wave 跑 108 个块", "wave", "wave"),
    ("每个 Block 一个", "thread block", "Block"),  # case does not save it
    ("两个 barrier 之间", "barrier", "barrier"),
    ("占有率是 50%", "occupancy", "占有率"),
    ("计算强度很低", "arithmetic intensity", "计算强度"),
    ("conflict 数", "bank conflict", "conflict"),
    ("屋顶线模型", "roofline", "屋顶线"),
    ("Roofline 图", "roofline", "Roofline"),
    # issue 26: the terms the zh review found rendered two ways
    ("没有 bank 冲突时", "bank conflict", "bank 冲突"),
    ("一条 128 字节缓存 line", "line", "缓存 line"),
    ("一次加载 tile", "load / store", "加载"),
    ("这次存储浪费了流量", "load / store", "存储"),
    ("给 tile 加 padding", "padding", "padding"),
    ("每个 phase 两个 wavefront", "phase", "phase"),
    ("性能模型计费的 L1 查找", "charge (the model charges a resource)", "计费"),
    ("更新运行最大值", "running max / sum", "运行最大值"),
]


def rejected_problems(msgstr: str, term: str, found: str) -> list[str]:
    """What is wrong with the glossary check of one rejected rendering: ``[]`` when ``msgstr`` gives exactly the one
    problem naming ``term`` and ``found``."""
    problems = glossary_problems("(English)", msgstr)
    want = [f"rejected rendering of {term!r}: {found!r} (use {GLOSSARY[term][0]})"]
    return [] if problems == want else [f"problems {problems}, expected {want}"]


def test_a_rejected_rendering_fails():
    # 26 renderings, each checked; a failure lists every one the check gets wrong by the id it had as a parametrized
    # test ([屋顶线模型-roofline-屋顶线]; pytest wrote it escaped). One case: rejected_problems("屋顶线模型", "roofline",
    # "屋顶线")
    checked = every_case({"-".join(case): case for case in REJECTED}, rejected_problems)
    assert checked[0] == 26
    assert not checked[1], failing_cases(checked, "checked wrongly")


@pytest.mark.parametrize("msgstr", [
    "每个程序实例算一个 tile，超出的 lane 被 mask 掉",           # the kept terms, in English
    "内核 10 的线程块在网格里按波次（wave）执行",                  # the translated terms, with a gloss
    "用 ``BLOCK_SIZE`` 和 ``grid`` 调用 ``kernel[grid](x)``",     # code is not prose
    "网格有 {blocks} 个块，见\\ :ref:`sphx_glr_grid`\\ 与《{doc}`kernel`》",  # placeholders and references
    "共有 8 个 bank conflict，冲突数为 8",                          # "bank conflict" stays English
    "*临界强度*\\ （ridge point）",                               # markup, and an English gloss
    "存储层次和片上存储，保存的 mask",                              # 存储 as storage is no store
    "参数 padding 必须是 'zero'，一个阶段（phase）",                 # a parameter's name, a gloss
    "写后读（RAW）冒险",
])
def test_the_glossary_renderings_and_code_pass(msgstr):
    assert glossary_problems("(English)", msgstr) == []


def test_english_only_entries_are_not_checked():
    # a code listing or a proper name kept in English has no Chinese, so it is no prose
    assert glossary_problems("GMEM Coalescing", "GMEM Coalescing") == []
    assert glossary_problems('print("a grid of blocks")', 'print("a grid of blocks")') == []
    assert glossary_problems("Warps", "warps") == []  # a term kept in English


@pytest.mark.parametrize("msgstr,term", [("grid", "grid"), ("Blocks", "thread block"), (" waves ", "wave"),
                                         ("Kernel", "kernel"), ("occupancy", "occupancy")])
def test_an_english_term_that_must_be_translated_fails_alone(msgstr, term):
    # TN/04's runtime entry "Grid" → "grid" put English in the header of another page's table
    assert glossary_problems("(English)", msgstr) == [
        f"rejected rendering of {term!r}: {msgstr.strip()!r} (use {GLOSSARY[term][0]})"]


def test_a_gloss_in_full_width_parentheses_is_allowed():
    assert glossary_problems("wave", "波次（wave）") == []
    assert glossary_problems("wave", "波次 (wave)") == ["rejected rendering of 'wave': 'wave' (use 波次（wave）)"]


# --- typography -----------------------------------------------------------------------------------

@pytest.mark.parametrize("msgstr,rule,found", [
    ('相对"每个数读一遍"', "straight quotes", '"'),
    ("只达到峰值的 60 %", "a space before %", "0 %"),
    ("效率是 12.5 %", "a space before %", "5 %"),
    ("流量少 4.0 倍", "a reduction as '少 N 倍'", "少 4.0 倍"),
    ("全局 load 少了 32 倍", "a reduction as '少 N 倍'", "少了 32 倍"),
    ("访存减少了四倍", "a reduction as '少 N 倍'", "减少了四倍"),
    ("按列读取慢 32 倍", "a reduction as '少 N 倍'", "慢 32 倍"),
    ("块 (行,列)", "a half-width comma or semicolon between Chinese", "行,列"),
    ("每次 128B line", "a unit glued to its number", "128B"),
])
def test_a_typography_slip_fails(msgstr, rule, found):
    problems = glossary_problems("(English)", msgstr)
    assert len(problems) == 1 and problems[0].startswith(f"{rule}: {found!r}"), problems


@pytest.mark.parametrize("msgstr", [
    "相对“每个数读一遍”",
    "只达到峰值的 60%，占 69%–77%",
    "全局 load 减少到 1/32，快了 6 倍",
    "块 (行, 列) 与 (bx, by)",
    "每次 128 字节 line，``x = \"a\"`` 是代码",
])
def test_chinese_typography_passes(msgstr):
    assert glossary_problems("(English)", msgstr) == []


@pytest.mark.parametrize("msgstr,rule,found", [
    ("上的写后读（read-after-write）冒险", "rejected gloss of 'read-after-write'", "（read-after-write）"),
    ("就写入 *下一个* tile", "a space around an emphasised Chinese word", "入 *下一个*"),
    ("一个线程会\\ *读* 另一个", "a space around an emphasised Chinese word", "*读* 另"),
    ("见 {doc}`counts`。", "a space around a Chinese cross-reference title", "见 {doc}`counts`"),
    ("{doc}`model` 解释了", "a space around a Chinese cross-reference title", "{doc}`model` 解"),
    (":ref:`跳到页末 <x>` 下载完整示例代码", "a space around a Chinese cross-reference title", ":ref:`跳到页末 <x>` 下"),
])
def test_a_spacing_or_gloss_slip_fails(msgstr, rule, found):
    # zh review §2 T10 and §4: the slips a reader sees as stray spaces or English in a gloss
    problems = glossary_problems("(English)", msgstr)
    assert len(problems) == 1 and problems[0].startswith(f"{rule}: {found!r}"), problems


@pytest.mark.parametrize("msgstr", [
    "就写入\\ *下一个* tile，SM 上的\\ *所有* warp",
    "见《{doc}`counts`》，{doc}`API <api>` 和 `x`",
    ":ref:`跳到页末 <x>`\\ 下载完整示例代码",
    "see {doc}`counts` for each",
])
def test_chinese_spacing_passes(msgstr):
    assert glossary_problems("(English)", msgstr) == []


# --- runtime catalogs -----------------------------------------------------------------------------

def test_one_runtime_message_translated_two_ways_fails(tmp_path):
    a = _po(tmp_path / "locale" / "zh_CN.po", {"Conflicts": "冲突", "Kernel": "内核"})
    b = _po(tmp_path / "locale" / "zh_CN-waves.po", {"Conflicts": "conflict 数", "Kernel": "内核"})
    assert runtime_conflicts([a, b]) == [
        "'Conflicts' is translated differently in two runtime catalogs: zh_CN-waves.po: 'conflict 数'; "
        "zh_CN.po: '冲突'"]


def test_the_same_translation_twice_and_fuzzy_entries_pass(tmp_path):
    a = _po(tmp_path / "zh_CN.po", {"Grid": "网格", "Waves": "波次"})
    b = _po(tmp_path / "zh_CN-x.po", {"Grid": "网格", "Waves": "wave"}, fuzzy=("Waves",))
    assert runtime_conflicts([a, b]) == []  # a fuzzy entry is not used at run time


def test_the_glossary_command_reports_every_file(tmp_path, capsys):
    locale = tmp_path / "kernellab" / "locale"
    _po(locale / "zh_CN.po", {"Grid": "网格", "Tile": "分片"})
    _po(locale / "zh_CN-notes.po", {"Grid": "网格大小", "Grid size": "grid 大小", "Peak": "峰值的 60 %"})
    _po(tmp_path / "docs" / "page.po", {"A tile.": "一个 tile。"})
    assert po_tools.glossary(str(tmp_path / "docs"), str(locale)) == 1
    out = capsys.readouterr().out
    assert "zh_CN.po: rejected rendering of 'tile': '分片'" in out
    assert "zh_CN-notes.po: rejected rendering of 'grid': 'grid'" in out
    assert "zh_CN-notes.po: a space before %" in out
    assert "'Grid' is translated differently" in out
    assert out.rstrip().endswith("glossary check: 3 catalogs, 4 problems")
    _po(locale / "zh_CN.po", {"Grid": "网格", "Tile": "tile"})
    _po(locale / "zh_CN-notes.po", {"Grid": "网格", "Grid size": "网格大小", "Peak": "峰值的 60%"})
    assert po_tools.glossary(str(tmp_path / "docs"), str(locale)) == 0


def test_check_runtime_fails_on_a_conflict_and_a_rejected_rendering(tmp_path, monkeypatch, capsys):
    code = tmp_path / "code"
    code.mkdir()
    (code / "page.py").write_text('from kernellab.i18n import _\n_("Grid")\n_("Tile")\n', encoding="utf-8")
    locale = tmp_path / "locale"
    _po(locale / "zh_CN.po", {"Grid": "网格", "Tile": "tile"})
    monkeypatch.setattr(po_tools, "RUNTIME_CATALOGS", locale)
    assert po_tools.check_runtime(str(code)) == 0
    _po(locale / "zh_CN-more.po", {"Grid": "grid", "Tile": "分片"})
    assert po_tools.check_runtime(str(code)) == 1
    out = capsys.readouterr().out
    assert "'Grid' is translated differently" in out and "'分片'" in out
    _po(locale / "zh_CN-more.po", {"Grid": "网格", "Tile": "tile"}, fuzzy=("Tile",))
    assert po_tools.check_runtime(str(code)) == 0  # zh_CN.po still translates Tile
    (locale / "zh_CN.po").unlink()
    assert po_tools.check_runtime(str(code)) == 1
    assert "fuzzy Chinese for 'Tile'" in capsys.readouterr().out


# --- the glossary page and the check agree --------------------------------------------------------

def test_the_glossary_page_lists_every_term_with_its_rendering():
    page = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    rows = {m[0].strip(): m[1].strip() for m in re.findall(r"^\| *([^|]+?) *\| *([^|]+?) *\|", page, re.M)}
    for term, (use, _rejected) in GLOSSARY.items():
        assert rows.get(term) == use, f"docs/glossary.md: {term!r} should read {use!r}, not {rows.get(term)!r}"


def test_the_glossary_page_itself_is_not_checked(tmp_path):
    # it quotes the rejected renderings on purpose
    _po(tmp_path / "LC_MESSAGES" / "glossary.po", {"tile": "分片", "percent": "60 %"})
    assert po_tools.glossary(str(tmp_path)) == 0
    _po(tmp_path / "LC_MESSAGES" / "other.po", {"tile": "分片"})
    assert po_tools.glossary(str(tmp_path)) == 1


def test_runtime_messages_finds_the_gallery_tr_alias_too(tmp_path, monkeypatch, capsys):
    # The gallery imports the runtime `_` as `tr`; a `tr("...")` without Chinese must still fail.
    code = tmp_path / "code"
    code.mkdir()
    (code / "page.py").write_text('from kernellab.i18n import _ as tr\ntr("Grid")\ntr("Wave")\nother("Not")\n',
                                  encoding="utf-8")
    assert sorted(po_tools.runtime_messages([str(code)])) == ["Grid", "Wave"]
    locale = tmp_path / "locale"
    _po(locale / "zh_CN.po", {"Grid": "网格"})
    monkeypatch.setattr(po_tools, "RUNTIME_CATALOGS", locale)
    assert po_tools.check_runtime(str(code)) == 1
    assert "no Chinese for 'Wave'" in capsys.readouterr().out
    _po(locale / "zh_CN.po", {"Grid": "网格", "Wave": "波次（wave）"})
    assert po_tools.check_runtime(str(code)) == 0
