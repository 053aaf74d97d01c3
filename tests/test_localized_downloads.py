"""tools/localized_downloads.py: gallery text translated paragraph by paragraph, code left alone."""

import ast
import doctest
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import check_downloads  # noqa: E402
import localized_downloads as ld  # noqa: E402

CATALOG = {
    "Title of the page": "页面标题",
    "A paragraph that spans two lines.": "跨两行的段落。",
    "A paragraph": "一个段落",  # a prefix of the one above: must not replace part of it
    "Item one, continued.": "第一项，续。",
    "Here is code:": "代码如下：",
}


def test_docstring_examples():
    assert doctest.testmod(ld).failed == 0
    assert doctest.testmod(check_downloads).failed == 0


def test_paragraphs_bullets_and_literal_intros():
    text = ("Title of the page\n=================\n\nA paragraph that spans\ntwo lines.\n\n"
            "* Item one,\n  continued.\n\nHere is code::\n\n    A paragraph\n")
    out = ld.translate_rst(text, CATALOG)
    assert out == ("页面标题\n========\n\n跨两行的段落。\n\n* 第一项，续。\n\n代码如下： ::\n\n    一个段落\n")


def test_a_paragraph_with_no_entry_stays_english():
    text = "A paragraph that spans\ntwo lines, and more.\n"
    assert ld.translate_rst(text, CATALOG) == text


def test_script_code_and_its_comments_stay_as_they_are():
    source = ('"""\nTitle of the page\n=================\n"""\n\n# %%\n# A paragraph that spans\n# two lines.\n\n'
              'x = "A paragraph"  # A paragraph\n# A paragraph\ny = 2\n')
    out = ld.translate_script(source, CATALOG)
    assert out.endswith('x = "A paragraph"  # A paragraph\n# A paragraph\ny = 2\n')
    assert "# 跨两行的段落。\n" in out and ast.get_docstring(ast.parse(out)) == "页面标题\n========"


def test_header_and_language_line():
    script = '"""\nTitle\n=====\n"""\n\nfrom __future__ import annotations\n\nx = 1\n'
    header = ld.script_header("zh_CN", "x.py", "https://s/zh_CN/x.html", "k.whl", "https://s/dist/k.whl")
    out = ld._with_header(script, header, "zh_CN")
    tree = ast.parse(out)
    assert out.startswith("# 本脚本") and "pip install https://s/dist/k.whl" in header
    assert isinstance(tree.body[1], ast.ImportFrom) and tree.body[1].module == "__future__"
    assert ast.unparse(tree.body[3]) == "os.environ.setdefault('KERNELLAB_LANG', 'zh_CN')"
    assert ld._with_header(script, "# h\n", "en") == "# h\n" + script


def test_first_cell_is_valid_python_in_both_languages():
    for lang in ("en", "zh_CN"):
        for url in (None, "https://s/dist/k.whl"):
            cell = ld.first_cell(lang, "k.whl", url)
            ast.parse(cell)
            assert f"KERNELLAB_WHEEL = {url!r}" in cell
            assert ("KERNELLAB_LANG" in cell) == (lang != "en")


def test_the_quickstart_installs_the_wheel_the_site_publishes():
    # issue 26: the quickstart opens with the site's wheel; its file name must follow the version
    import re

    import kernellab

    wheel = ld.wheel_name(kernellab.__version__)
    for page in (ROOT / "docs" / "quickstart.md", ROOT / "docs" / "locale" / "zh_CN" / "LC_MESSAGES" / "quickstart.po"):
        text = page.read_text(encoding="utf-8")
        named = set(re.findall(r"kernellab-[\w.]+?-py3-none-any\.whl", text))
        assert named == {wheel}, f"{page.name}: {named}"
        assert f"href=\\\"../dist/{wheel}" in text or f'href="../dist/{wheel}"' in text  # beside en/, zh_CN/
    # the one-line install from the site's URL (a code block: the same on both sites)
    assert f"pip install <site>/dist/{wheel}" in (ROOT / "docs" / "quickstart.md").read_text(encoding="utf-8")
