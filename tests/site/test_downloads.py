"""Checks of the built site's downloads (run by `nox -s docs`; `nox -s downloads` then executes them).

Each example's .py, .ipynb and .zip, and the gallery's two download-all zips, carry the page's
language; every notebook's first cell installs kernellab (from the site's wheel when the site's URL
is known, else it says what to run, in the page's language); every .py says how to install it; the
site publishes kernellab's wheel and sdist beside the two languages.
"""

import ast
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from check_downloads import english_paragraphs  # tools/, on the path by conftest.py
from site_common import CJK, LANGS, SITE
from site_publish import site_url

import kernellab

LETTERS = re.compile(r"[A-Za-z]{3,}")
WHEEL = f"kernellab-{kernellab.__version__}-py3-none-any.whl"


def _downloads(lang, suffix):
    files = sorted((SITE / lang / "_downloads").rglob(f"*{suffix}"))
    assert files, f"no {suffix} downloads in {lang}"
    return files


def _notebook(path):
    return json.loads(path.read_text(encoding="utf-8"))


def _source(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _text_blocks(script: str) -> list[str]:
    """The docstring and every ``# %%`` comment block of a sphinx-gallery script, as plain text."""
    tree = ast.parse(script)
    blocks = [ast.get_docstring(tree) or ""]
    for match in re.finditer(r"^# ?%%.*\n((?:#.*\n?)*)", script, re.M):
        blocks.append(re.sub(r"^# ?", "", match[1], flags=re.M))
    return blocks


def test_the_site_publishes_kernellab():
    dist = SITE / "dist"
    assert (dist / WHEEL).is_file() and (dist / f"kernellab-{kernellab.__version__}.tar.gz").is_file()
    with zipfile.ZipFile(dist / WHEEL) as wheel:
        names = wheel.namelist()
    assert "kernellab/fonts/NotoSansCJKsc-Subset.otf" in names
    assert not any(n.endswith(".ttc") for n in names), "the full CJK font must stay out of the wheel"
    for lang in LANGS:  # every gallery page's sidebar links it
        page = (SITE / lang / "auto_examples" / "lecture10" / "01_naive_and_coalescing.html").read_text(encoding="utf-8")
        assert f"../../../dist/{WHEEL}" in page


def test_the_site_was_drawn_with_the_font_subset():
    """The build turns a missing glyph into an error (docs/conf.py); building without the full font
    proves that the subset kernellab ships draws every gallery figure."""
    from kernellab.figures import SUBSET_FAMILY, cjk_font

    assert cjk_font()[1] == SUBSET_FAMILY, "the docs environment has kernellab[cjk]: the subset goes untested"


@pytest.mark.parametrize("lang", LANGS)
def test_notebooks_read_in_the_page_language(lang):
    for path in _downloads(lang, ".ipynb"):
        cells = _notebook(path)["cells"]
        text = [_source(c) for c in cells if c["cell_type"] == "markdown"]
        assert text, path.name
        if lang == "zh_CN":
            english = [para[:80] for t in text for para in english_paragraphs(t)]
            assert not english, f"{path.name}: paragraphs left in English: {english}"
        else:
            assert not any(CJK.search(t) for t in text), f"{path.name}: Chinese on the English site"


@pytest.mark.parametrize("lang", LANGS)
def test_scripts_read_in_the_page_language(lang):
    for path in _downloads(lang, ".py"):
        script = path.read_text(encoding="utf-8")
        blocks = [b for b in _text_blocks(script) if LETTERS.search(b)]
        assert len(blocks) >= 2, f"{path.name}: no text blocks found"
        if lang == "zh_CN":
            english = [para[:80] for b in blocks for para in english_paragraphs(b)]
            assert not english, f"{path.name}: paragraphs left in English: {english}"
            assert 'os.environ.setdefault("KERNELLAB_LANG", "zh_CN")' in script
        else:
            assert not any(CJK.search(b) for b in blocks), f"{path.name}: Chinese on the English site"
        header = script.split('"""')[0]
        assert header.startswith("#") and "pip install" in header, f"{path.name}: no install header"
        assert bool(CJK.search(header)) == (lang == "zh_CN"), f"{path.name}: header not in the page's language"
        compile(script, path.name, "exec")  # still a valid script, with no invalid escape (warnings are errors)


@pytest.mark.parametrize("lang", LANGS)
def test_every_download_is_in_the_zips(lang):
    """The per-page downloads, the per-page zips and the two download-all zips hold the same files."""
    singles = {p.name: p.read_bytes() for suffix in (".py", ".ipynb") for p in _downloads(lang, suffix)}
    all_zips = [p for p in _downloads(lang, ".zip") if p.name.startswith("auto_examples_")]
    assert {p.name for p in all_zips} == {"auto_examples_python.zip", "auto_examples_jupyter.zip"}
    zipped = {}
    for path in _downloads(lang, ".zip"):
        with zipfile.ZipFile(path) as z:
            for name in z.namelist():
                data = z.read(name)
                assert zipped.setdefault(Path(name).name, data) == data, f"{lang}: {name} differs between zips"
    assert zipped == singles


@pytest.mark.parametrize("lang", LANGS)
def test_first_cell_sets_the_language_and_installs_kernellab(lang):
    url = site_url()
    for path in _downloads(lang, ".ipynb"):
        first = _notebook(path)["cells"][0]
        source = _source(first)
        assert first["cell_type"] == "code"
        assert ('os.environ["KERNELLAB_LANG"] = "zh_CN"' in source) == (lang == "zh_CN"), path.name
        wheel = re.search(r"^KERNELLAB_WHEEL = (.*)$", source, re.M)
        assert wheel, f"{path.name}: no KERNELLAB_WHEEL"
        assert ast.literal_eval(wheel[1]) == (f"{url}dist/{WHEEL}" if url else None)


def _run_first_cell(source, wheel_url):
    """Run a first cell as if kernellab were not installed, with pip replaced by a recorder."""
    source = re.sub(r"^KERNELLAB_WHEEL = .*$", f"KERNELLAB_WHEEL = {wheel_url!r}", source, flags=re.M)
    prelude = (
        "import importlib.util, subprocess\n"
        "_find = importlib.util.find_spec\n"
        "importlib.util.find_spec = lambda name, *a: None if name == 'kernellab' else _find(name, *a)\n"
        "subprocess.check_call = lambda cmd: print('PIP', cmd[1:])\n"
    )
    return subprocess.run([sys.executable, "-c", prelude + source], capture_output=True, text=True, encoding="utf-8")


@pytest.mark.parametrize("lang", LANGS)
def test_first_cell_without_kernellab(lang):
    source = _source(_notebook(_downloads(lang, ".ipynb")[0])["cells"][0])
    # the site's URL unknown: a message in the page's language saying what to run, and a stop
    done = _run_first_cell(source, None)
    assert done.returncode != 0 and "ModuleNotFoundError: kernellab" in done.stderr
    assert f"pip install {WHEEL}" in done.stdout and bool(CJK.search(done.stdout)) == (lang == "zh_CN")
    # the site's URL known: pip installs the site's wheel
    done = _run_first_cell(source, f"https://example.org/kl/dist/{WHEEL}")
    assert done.returncode == 0, done.stderr
    assert f"'-m', 'pip', 'install', 'https://example.org/kl/dist/{WHEEL}'" in done.stdout


# --- what a reader opens: no reST escapes, no over-long prose lines (issue 36) ------------------------------

ESCAPE = re.compile(r"(?<!\\)\\ ")  # reST's escaped space: Markdown shows it as a backslash
PROSE_COLUMNS = 120  # display columns (a Chinese character is two) of a downloaded script's prose line


def escapes_in_notebook(notebook: dict) -> list[str]:
    """The markdown cells' stretches around a reST escaped space (``*数据*\\ 带宽``), which Jupyter shows as "\\"."""
    return [_source(c)[max(0, m.start() - 12): m.end() + 12] for c in notebook["cells"] if c["cell_type"] == "markdown"
            for m in ESCAPE.finditer(_source(c))]


def long_prose_lines(script: str, columns: int = PROSE_COLUMNS) -> list[str]:
    """The lines of a script's text blocks wider than ``columns`` that a reader could have had broken (a single
    unbreakable word, a URL, is left alone)."""
    from wcwidth import wcswidth

    return [line for block in _text_blocks(script) for line in block.split("\n")
            if wcswidth(line) > columns and len(line.split()) > 1]


@pytest.mark.parametrize("lang", LANGS)
def test_notebooks_hold_no_rest_escapes(lang):
    found = {nb.name: escapes_in_notebook(_notebook(nb))[:2] for nb in _downloads(lang, ".ipynb")}
    found = {k: v for k, v in found.items() if v}
    assert not found, f"{lang}: reST escapes in notebooks (shown as a backslash): {found}"


@pytest.mark.parametrize("lang", LANGS)
def test_scripts_hold_no_over_long_prose_lines(lang):
    found = {py.name: long_prose_lines(py.read_text(encoding="utf-8")) for py in _downloads(lang, ".py")}
    found = {k: f"{len(v)} lines, e.g. {v[0][:60]!r}" for k, v in found.items() if v}
    assert not found, f"{lang}: prose lines wider than {PROSE_COLUMNS} columns: {found}"
    for py in _downloads(lang, ".py"):
        assert not ESCAPE.search("\n".join(_text_blocks(py.read_text(encoding="utf-8")))), f"{lang}/{py.name}: reST escapes"


def test_the_download_checks_find_what_the_chinese_downloads_held():
    """The Chinese downloads before issue 36: an escape in a notebook, a 712-character paragraph in a script."""
    notebook = {"cells": [{"cell_type": "markdown", "source": ["用 ``tl.tanh``\\ （tanh 来自 libdevice）"]},
                          {"cell_type": "code", "source": ["x = '\\\\ '"]}]}
    found = escapes_in_notebook(notebook)
    assert len(found) == 1 and "``tl.tanh``\\ （" in found[0], found
    script = '"""\n标题\n====\n"""\n# %%\n# ' + "每个请求碰到 32 个 sector，" * 20 + "\n# https://" + "x" * 150 + "\n"
    assert len(long_prose_lines(script)) == 1
