"""Runtime translation: language choice, the catalog, and every string the code uses translated."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from kernellab import i18n
from kernellab.i18n import _, _unquote, current_language, parse_po

sys.path.insert(0, str(Path(__file__).parent))
from source_trees import tree as parsed

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("env,expected", [({"KERNELLAB_LANG": "zh_CN"}, "zh_CN"), ({"KERNELLAB_LANG": "zh-CN"}, "zh_CN"),
                                          ({"KERNELLAB_LANG": "en"}, "en"),
                                          ({"KERNELLAB_LANG": "", "LC_ALL": "zh_CN.UTF-8"}, "zh_CN"),
                                          ({"KERNELLAB_LANG": "", "LC_ALL": "", "LC_MESSAGES": "", "LANG": "de_DE.UTF-8"}, "en")])
def test_language_from_env_then_locale(monkeypatch, env, expected):
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert current_language() == expected


def test_translation_follows_the_language_at_call_time(monkeypatch):
    monkeypatch.setenv("KERNELLAB_LANG", "zh_CN")
    assert _("DRAM bandwidth") == "显存带宽"
    monkeypatch.setenv("KERNELLAB_LANG", "en")
    assert _("DRAM bandwidth") == "DRAM bandwidth"


def test_unknown_message_falls_back_to_english(monkeypatch):
    monkeypatch.setenv("KERNELLAB_LANG", "zh_CN")
    assert _("no such message") == "no such message"


def test_parse_po_handles_continuation_lines_escapes_and_fuzzy():
    po = 'msgid ""\nmsgstr "header"\n\nmsgid "a "\n"b"\nmsgstr "甲\\"乙"\n\n#, fuzzy\nmsgid "c"\nmsgstr "丙"\n'
    assert parse_po(po) == {"a b": '甲"乙'}


def test_every_runtime_string_has_a_chinese_entry():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import po_tools
    finally:
        sys.path.pop(0)
    # each file parsed once per process, the trees shared with test_layers and test_vocab_errors
    used = po_tools.runtime_messages([str(ROOT / "kernellab"), str(ROOT / "gallery")], parse=parsed)
    zh = i18n.catalog("zh_CN")
    assert used, "no _() strings found"
    assert not [m for m in used if m not in zh]


# A gallery script in a subprocess: the default nox run executes every script in Chinese in the docs
# build (whose site checks hold its tables to Chinese) and runs every Chinese download; `-m gallery` runs it here.
@pytest.mark.gallery
def test_a_gallery_script_prints_chinese_when_asked():
    script = ROOT / "gallery" / "lecture10" / "01_naive_and_coalescing.py"
    env = {"KERNELLAB_LANG": "zh_CN", "MPLBACKEND": "Agg", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, check=True).stdout
    assert "显存带宽" in out and "DRAM bandwidth" not in out


def test_language_from_the_system_locale_when_no_variable_is_set(monkeypatch):
    for var in ("KERNELLAB_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.setenv(var, "")
    monkeypatch.setattr(i18n.locale, "getlocale", lambda: ("zh_CN", "UTF-8"))
    assert current_language() == "zh_CN"
    monkeypatch.setattr(i18n.locale, "getlocale", lambda: (None, None))
    assert current_language() == "en"


def test_parse_po_keeps_flagged_entries_and_ignores_stray_comments():
    # a "#, python-format" flag is not "fuzzy"; a comment after an entry is not part of it
    po = '#, python-format\nmsgid "{n} lanes"\nmsgstr "{n} 个 lane"\n#~ msgid "old"\n'
    assert parse_po(po) == {"{n} lanes": "{n} 个 lane"}


def _quoted_lines(text):
    """Every quoted string of a catalog as it is written: a msgid/msgstr's own and each continuation line's."""
    for line in text.splitlines():
        if line.startswith(("msgid ", "msgstr ")):
            yield line.partition(" ")[2]
        elif line.startswith('"'):
            yield line


def test_a_quoted_line_reads_as_python_reads_its_literal():
    # _unquote takes a line without a backslash or an inner quote as its text (no ast.literal_eval): every quoted
    # line of every catalog in the repository, and the escapes, must read as the literal does
    lines = [q for path in sorted((ROOT / "kernellab" / "locale").glob("*.po")) + sorted((ROOT / "docs" / "locale").rglob("*.po"))
             for q in _quoted_lines(path.read_text(encoding="utf-8"))]
    crafted = ['"a\\nb"', '"tab\\there"', '"C:\\\\dir"', '"\\"quoted\\""', '"x" ', '""', '"内核 \\u5185"', ' "lead"']
    escaped = [q for q in lines if "\\" in q]
    assert len(lines) > 5_000 and escaped  # the catalogs' own lines, some with escapes
    assert [_unquote(q) for q in lines + crafted] == [ast.literal_eval(q) for q in lines + crafted]
    # by hand: a backslash-n is a newline (2 characters → 1), a doubled backslash one backslash
    assert _unquote('"a\\nb"') == "a\nb" and _unquote('"C:\\\\dir"') == "C:\\dir"
