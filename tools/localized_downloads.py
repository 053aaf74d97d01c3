"""Gallery downloads in the page's language, which say how to get kernellab (a Sphinx extension).

sphinx-gallery writes each example's ``.py``, ``.ipynb`` and ``.zip`` (and the gallery's two
download-all zips) from the English script. After it, on every build of every language, this
extension rewrites them:

- on a translated build, every text block (the docstring and each ``# %%`` comment block) is
  translated paragraph by paragraph with the page's own catalog
  (``locale/<lang>/LC_MESSAGES/auto_examples/.../<name>.po``, the one Sphinx translates the page with);
  code, and comments inside code, stay as they are; the text loses reST's escaped spaces (``\\ ``, which a
  notebook shows as a backslash) and, in the ``.py``, its paragraphs (one line each in a catalog) are
  wrapped at :data:`WRAP` display columns;
- every ``.py`` starts with a comment header, in the page's language, saying how to install kernellab
  and run the script; a translated ``.py`` also sets ``KERNELLAB_LANG`` (unless the reader did);
- every notebook's first cell installs kernellab when it is not importable, from the site's wheel
  when the site's URL is known (``html_baseurl``), else it prints what to run, in the page's language;
  a translated notebook's first cell also sets ``KERNELLAB_LANG``.

Nothing here is specific to one page: it works from whatever the catalogs hold. Rewritten files keep
the English script's modification time, so Sphinx does not re-read the pages that link them.
"""

from __future__ import annotations

import ast
import functools
import os
import re
import unicodedata
from pathlib import Path

# Text this extension writes into downloads, per language ({wheel}, {script} and {url} are filled in).
MESSAGES = {
    "en": {
        "header": "This script is a page of the kernellab documentation: {page}",
        "install_url": "It needs kernellab. Install it with:\n    pip install {url}",
        "install_local": ("It needs kernellab. Download {wheel} from the site (beside each gallery page's\n"
                          "downloads) and install it with:\n    pip install {wheel}\n"
                          "or, in a clone of the kernellab repository:\n    pip install -e ."),
        "run": "Then run it with:\n    python {script}",
        "lang": "",
        "cell_comment": "kernellab must be importable: install it if it is not.",
        "missing": ("kernellab is not installed. Download {wheel} from the site (beside each gallery "
                    "page's downloads) and run `pip install {wheel}` (or `pip install -e .` in a clone of "
                    "the kernellab repository), then restart the kernel."),
    },
    "zh_CN": {
        "header": "本脚本是 kernellab 文档中的一页：{page}",
        "install_url": "运行它需要 kernellab。安装方法：\n    pip install {url}",
        "install_local": ("运行它需要 kernellab。请从网站下载 {wheel}（在每个示例页的下载链接旁），然后安装：\n"
                          "    pip install {wheel}\n或者在 kernellab 仓库的克隆目录中运行：\n    pip install -e ."),
        "run": "然后这样运行：\n    python {script}",
        "lang": "表格和图中的文字用中文（KERNELLAB_LANG=zh_CN）；设置 KERNELLAB_LANG=en 可改为英文。",
        "cell_comment": "需要能导入 kernellab：没有安装时先安装。",
        "missing": ("没有安装 kernellab。请从网站下载 {wheel}（在每个示例页的下载链接旁），运行 "
                    "`pip install {wheel}`（或在 kernellab 仓库的克隆目录中运行 `pip install -e .`），"
                    "然后重启内核。"),
    },
}


def messages(lang: str) -> dict[str, str]:
    return MESSAGES.get(lang, MESSAGES["en"])


# --- translating reST text blocks -------------------------------------------------------------------

_PREFIX = r"(?P<prefix>^[ \t]*(?:(?:[-*+•]|\d+[.)]|#\.)[ \t]+)?)"


@functools.cache  # a page's catalog is applied to each of its text blocks
def _pattern(msgid: str) -> re.Pattern:
    """A paragraph whose lines, joined with spaces, are ``msgid`` (Sphinx's own msgid rule)."""
    words = r"\s+".join(re.escape(word) for word in msgid.split(" "))
    return re.compile(_PREFIX + words + r"(?P<tail>:?)[ \t]*$", re.M)


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


_ADORNMENT = re.compile(r"^([=\-^~\"'`#*+.:_])\1{2,}[ \t]*$")


def fix_underlines(text: str) -> str:
    """Make each section title's underline (and overline) as wide as the title, which translation changed.

    >>> print(fix_underlines("标题\\n==="))
    标题
    ====
    """
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if i and _ADORNMENT.match(line) and lines[i - 1].strip() and not _ADORNMENT.match(lines[i - 1]):
            width = max(_width(lines[i - 1].rstrip()), 3)
            lines[i] = line[0] * width
            if i >= 2 and _ADORNMENT.match(lines[i - 2]) and lines[i - 2][0] == line[0]:
                lines[i - 2] = line[0] * width
    return "\n".join(lines)


def translate_rst(text: str, catalog: dict[str, str]) -> str:
    """``text`` (reST) with every paragraph and title the catalog translates replaced by its translation.

    A paragraph matches when its lines, joined by spaces, are a msgid (bullets, enumerators and
    indentation are kept); longer messages are replaced first, so a short msgid never replaces part
    of a longer paragraph. Title adornments are widened to fit.

    >>> print(translate_rst("Title\\n=====\\n\\n- one line,\\n  two lines.\\n", {"Title": "标题", "one line, two lines.": "一行，两行。"}))
    标题
    ====
    <BLANKLINE>
    - 一行，两行。
    <BLANKLINE>
    """
    for msgid in sorted(catalog, key=len, reverse=True):
        msgstr = catalog[msgid]
        if not msgid.strip() or msgstr == msgid or not all(word in text for word in msgid.split(" ")):
            continue  # (the pattern matches each word of the msgid as it is: one missing, no match)
        # "text::" (a literal block follows) has the msgid "text:"; " ::" keeps the block literal
        text = _pattern(msgid).sub(lambda m, s=msgstr: m["prefix"] + s + (" ::" if m["tail"] else ""), text)
    return fix_underlines(text)


# --- plain text for the downloads: no reST escapes, lines a reader can read ----------------------------------

ESCAPED_SPACE = re.compile(r"(?<!\\)\\ ")
WRAP = 100  # display columns of a downloaded script's prose line (a Chinese character is two)
# what a line is never broken inside: an inline literal, a role or a link, a URL, a run of non-space
_ATOM = re.compile(r"``.+?``(?:\\ )?|:[\w:+-]+:`[^`]*`|`[^`]*`_{0,2}|https?://\S+|[\u3000-\u303f\uff00-\uffef]|"
                   r"[\u3400-\u9fff\uf900-\ufaff]|[^\s\u3400-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]+|\s+")
_NO_BREAK_BEFORE = set("，。；：、！？）》」』】,.;:!?)")  # punctuation that closes: stays with what it follows
_NO_BREAK_AFTER = set("（《「『【(")


def plain(text: str) -> str:
    r"""Text without reST's escaped space, which only separates inline markup from a Chinese character: a
    notebook's Markdown shows it as a literal backslash, a script's reader as noise.

    >>> plain(r"``tl.tanh``\ （tanh 来自 libdevice），*数据*\ 带宽")
    '``tl.tanh``（tanh 来自 libdevice），*数据*带宽'
    """
    return ESCAPED_SPACE.sub("", text)


def _atoms(text: str) -> list[str]:
    """``text`` cut where a line may break: inline markup whole, punctuation glued to what it closes or opens."""
    atoms: list[str] = []
    for atom in _ATOM.findall(text):
        if atoms and (atom[0] in _NO_BREAK_BEFORE or atoms[-1][-1] in _NO_BREAK_AFTER) and not atoms[-1].isspace():
            atoms[-1] += atom
        else:
            atoms.append(atom)
    return atoms


def wrap_line(line: str, width: int = WRAP) -> list[str]:
    """``line`` of reST prose cut into lines of at most ``width`` display columns: between words, or between two
    Chinese characters, never inside inline markup, before closing punctuation or after opening punctuation; a
    bullet's or an enumerator's continuation lines are indented under its text (a single atom wider than
    ``width``, a URL, stays whole).

    >>> for part in wrap_line("- 每个请求碰到 32 个 sector（``blk.load``），合并访存版只碰到 4 个。", 30):
    ...     print(part)
    - 每个请求碰到 32 个 sector
      （``blk.load``），合并访存版
      只碰到 4 个。
    """
    if _width(line) <= width:
        return [line]
    prefix = re.match(_PREFIX, line)["prefix"]
    indent = " " * len(prefix)
    lines, current = [], prefix
    for atom in _atoms(line[len(prefix):]):
        if atom.isspace():
            if current.strip():
                current += atom
            continue
        if current.strip() and _width(current + atom) > width:
            lines.append(current.rstrip())
            current = indent
        current += atom
    lines.append(current.rstrip())
    return lines


def wrap_text(text: str, width: int = WRAP) -> str:
    """Every line of ``text`` (reST prose) wrapped by :func:`wrap_line`, except in literal blocks and tables."""
    out, literal = [], False
    for line in text.split("\n"):
        stripped = line.strip()
        if literal and stripped and not line[:1].isspace():
            literal = False
        if literal or stripped.startswith(("|", "+-", "+=", ".. ")) or not stripped:
            out.append(line)
        else:
            out += wrap_line(line, width)
        if stripped.endswith("::"):
            literal = True
    return "\n".join(out)


def map_text_blocks(source: str, edit) -> str:
    """A sphinx-gallery script with ``edit`` applied to its docstring and to each ``# %%`` text block (as reST,
    without the comment marks); code, and comments inside code, untouched."""
    lines = source.split("\n")
    tree = ast.parse(source)
    first = tree.body[0] if tree.body else None
    out: list[str] = []
    start = 0
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        doc = edit(ast.get_docstring(tree, clean=True) or "")
        quote = 'r"""' if "\\" in doc else '"""'
        out += lines[: first.lineno - 1] + [quote, *doc.split("\n"), '"""']
        start = first.end_lineno
    i = start
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if re.match(r"^(#{20,}|# ?%%)", line):  # a text block: the comment lines that follow
            block = []
            while i < len(lines) and lines[i].startswith("#"):
                block.append(lines[i][2:] if lines[i].startswith("# ") else lines[i][1:])
                i += 1
            out += _comment_block(edit("\n".join(block)).split("\n"))
    return "\n".join(out)


def _comment_block(lines: list[str]) -> list[str]:
    return [("# " + line).rstrip() if line else "#" for line in lines]


def translate_script(source: str, catalog: dict[str, str]) -> str:
    """A sphinx-gallery script with its docstring and ``# %%`` text blocks translated; code untouched.

    >>> src = '\"\"\"\\nTitle\\n=====\\n\"\"\"\\n# %%\\n# Some text.\\n\\nx = 1  # Some text.\\n'
    >>> print(translate_script(src, {"Title": "标题", "Some text.": "一些文字。"}), end="")
    \"\"\"
    标题
    ====
    \"\"\"
    # %%
    # 一些文字。
    <BLANKLINE>
    x = 1  # Some text.
    """
    return map_text_blocks(source, lambda text: translate_rst(text, catalog))


# --- install instructions ---------------------------------------------------------------------------

def wheel_name(version: str) -> str:
    return f"kernellab-{version}-py3-none-any.whl"


def script_header(lang: str, script: str, page_url: str, wheel: str, wheel_url: str | None) -> str:
    """The comment lines a downloaded ``.py`` starts with: where it comes from, how to install and run."""
    m = messages(lang)
    parts = [m["header"].format(page=page_url),
             (m["install_url"].format(url=wheel_url) if wheel_url else m["install_local"].format(wheel=wheel)),
             m["run"].format(script=script)]
    if m["lang"]:
        parts.append(m["lang"])
    return "\n".join(_comment_block("\n\n".join(parts).split("\n"))) + "\n"


def first_cell(lang: str, wheel: str, wheel_url: str | None) -> str:
    """The notebook's first cell: the runtime language, then kernellab installed if it is missing."""
    m = messages(lang)
    lines = []
    if lang != "en":
        lines += ["import os", "", f'os.environ["KERNELLAB_LANG"] = "{lang}"', ""]
    lines += [f"# {m['cell_comment']}", "import importlib.util", "",
              f"KERNELLAB_WHEEL = {wheel_url!r}", 'if importlib.util.find_spec("kernellab") is None:',
              "    if KERNELLAB_WHEEL:",
              "        import subprocess",
              "        import sys",
              "",
              '        subprocess.check_call([sys.executable, "-m", "pip", "install", KERNELLAB_WHEEL])',
              "    else:",
              f"        print({m['missing'].format(wheel=wheel)!r})",
              '        raise ModuleNotFoundError("kernellab")']
    return "\n".join(lines)


def _with_header(script_text: str, header: str, lang: str) -> str:
    """``header`` on top; on a translated page, ``KERNELLAB_LANG`` set right after the docstring."""
    if lang == "en":
        return header + script_text
    tree = ast.parse(script_text)
    body = tree.body
    at = body[0].end_lineno if body and isinstance(body[0], ast.Expr) else 0
    for node in body[1:] if at else body:  # after any __future__ import
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            at = node.end_lineno
    lines = script_text.split("\n")
    code = ["", "import os", "", f'os.environ.setdefault("KERNELLAB_LANG", "{lang}")']
    return header + "\n".join(lines[:at] + code + lines[at:])


# --- the Sphinx side --------------------------------------------------------------------------------

def _page_catalog(srcdir: Path, lang: str, docname: str) -> dict[str, str]:
    from kernellab.i18n import parse_po

    po = srcdir / "locale" / lang / "LC_MESSAGES" / f"{docname}.po"
    return parse_po(po.read_text(encoding="utf-8")) if po.is_file() else {}


def localize_downloads(app) -> None:
    """Rewrite every example's downloads under ``<srcdir>/<gallery_dir>`` and re-zip them."""
    from sphinx_gallery import py_source_parser as parser
    from sphinx_gallery.downloads import generate_zipfiles
    from sphinx_gallery.notebook import jupyter_notebook, save_notebook
    from sphinx_gallery.utils import zip_files

    conf = app.config.sphinx_gallery_conf
    if app.builder.format != "html":  # the gettext and doctest builds publish no downloads
        _keep_times(Path(app.srcdir), conf)
        return
    lang = app.config.language or "en"
    srcdir = Path(app.srcdir)
    base = app.config.html_baseurl or ""
    site_root = base[: -len(lang) - 1] if base.endswith(f"/{lang}/") else ""
    wheel = wheel_name(app.config.release)
    wheel_url = f"{site_root}dist/{wheel}" if site_root else None
    for examples_dir, out_dir in _gallery_folders(srcdir, conf):
        gallery_dir = out_dir.relative_to(srcdir).as_posix()
        for source in sorted(examples_dir.rglob("*.py")):
            rel = source.relative_to(examples_dir)
            target = out_dir / rel
            if not target.with_suffix(".ipynb").is_file():
                continue  # not an example sphinx-gallery rendered (helpers, filtered out)
            docname = (Path(gallery_dir) / rel.with_suffix("")).as_posix()
            text = source.read_text(encoding="utf-8")
            if lang != "en":  # (the English scripts are written as they are published)
                text = map_text_blocks(translate_script(text, _page_catalog(srcdir, lang, docname)), plain)
            # the notebook, from the (translated) script's blocks, by sphinx-gallery itself
            tmp = target.with_suffix(".localized.py")
            tmp.write_text(text, encoding="utf-8")
            try:
                blocks = parser.split_code_and_text_blocks(str(tmp))[1]
            finally:
                tmp.unlink()
            # what sphinx-gallery does to the blocks before it writes a notebook (gen_rst._clean_script_blocks)
            blocks = [parser.Block(label, parser.remove_ignore_blocks(content), line) for label, content, line in blocks]
            if conf["remove_config_comments"]:
                blocks = [parser.Block(label, parser.remove_config_comments(content), line)
                          for label, content, line in blocks]
            if blocks[-1].content.isspace():
                blocks = blocks[:-1]
            notebook = target.with_suffix(".ipynb")
            save_notebook(jupyter_notebook(blocks, conf, str(target.parent)), notebook)
            page = f"{base}{docname}.html" if base else f"{docname}.html"
            header = script_header(lang, target.name, page, wheel, wheel_url)
            script = map_text_blocks(text, wrap_text) if lang != "en" else text  # a catalog's paragraph is one line
            target.write_text(_with_header(script, header, lang), encoding="utf-8")
            stamp = source.stat().st_mtime
            for path in (target, notebook):  # before zipping: the zip entries carry these times, so an
                os.utime(path, (stamp, stamp))  # unchanged example zips to the same bytes, build after build
            zip_files([str(target), str(notebook)], target.with_suffix(".zip"), str(target.parent))
            os.utime(target.with_suffix(".zip"), (stamp, stamp))
        if conf.get("download_all_examples", True):
            generate_zipfiles(str(out_dir), str(srcdir), conf)
            newest = max(p.stat().st_mtime for p in examples_dir.rglob("*.py"))
            for path in out_dir.glob("*.zip"):  # the download-all zips
                os.utime(path, (newest, newest))


def _gallery_folders(srcdir: Path, conf: dict) -> list[tuple[Path, Path]]:
    """(examples folder, gallery folder under ``srcdir``) for each of sphinx-gallery's galleries."""
    examples_dirs = conf["examples_dirs"] if isinstance(conf["examples_dirs"], list) else [conf["examples_dirs"]]
    gallery_dirs = conf["gallery_dirs"] if isinstance(conf["gallery_dirs"], list) else [conf["gallery_dirs"]]
    return [(Path(e), srcdir / g) for e, g in zip(examples_dirs, gallery_dirs)]


def _keep_times(srcdir: Path, conf: dict) -> None:
    """On a build that publishes no downloads, the times of the downloads sphinx-gallery wrote again.

    sphinx-gallery copies the English script over each example's ``.py`` whenever the two differ, which
    after an HTML build (whose ``.py`` carries the header) is every time, and writes the download-all zips
    again: with new modification times, and a page's downloads are its dependencies, so the doctest
    build on the HTML build's doctrees read all the gallery's pages again (13 pages; their doctrees are
    the same, a download's contents is not part of a page). Their times go back to what the HTML build
    left, the English script's, as there; the next HTML build writes the header again.
    """
    for examples_dir, out_dir in _gallery_folders(srcdir, conf):
        sources = sorted(examples_dir.rglob("*.py"))
        for source in sources:
            target = out_dir / source.relative_to(examples_dir)
            if target.is_file() and target.with_suffix(".ipynb").is_file():
                stamp = source.stat().st_mtime
                os.utime(target, (stamp, stamp))
        if sources:
            newest = max(p.stat().st_mtime for p in sources)
            for path in out_dir.glob("*.zip"):
                os.utime(path, (newest, newest))


def setup(app):
    app.connect("builder-inited", localize_downloads, priority=900)  # after sphinx-gallery's (500)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
