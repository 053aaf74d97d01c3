"""Runtime strings in the reader's language: kernellab's own message catalog.

Table headers, row labels and figure labels go through ``_``. The language is read at call
time: ``KERNELLAB_LANG`` if set (the docs build sets it per language), else the locale. The catalog
is a set of gettext ``.po`` files inside the package, ``kernellab/locale/<lang>*.po`` (one for the
library, one per sub-gallery), parsed at first use so no compile step is needed.
"""

from __future__ import annotations

import ast
import locale
import os
from functools import cache
from pathlib import Path

LANGUAGES = ("en", "zh_CN")
CATALOG_DIR = Path(__file__).with_name("locale")


def current_language() -> str:
    """The runtime language: ``KERNELLAB_LANG``, else the locale, as one of ``LANGUAGES``.

    Examples
    --------
    >>> os.environ["KERNELLAB_LANG"] = "zh_CN"; current_language()
    'zh_CN'
    >>> os.environ["KERNELLAB_LANG"] = "en"; current_language()
    'en'
    """
    lang = os.environ.get("KERNELLAB_LANG") or _locale_language()
    return "zh_CN" if lang.lower().replace("-", "_").startswith("zh") else "en"


def _locale_language() -> str:
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        if os.environ.get(var):
            return os.environ[var]
    return locale.getlocale()[0] or "en"


def parse_po(text: str) -> dict[str, str]:
    """The translated entries of a gettext catalog, msgid → msgstr (fuzzy and empty ones left out).

    Examples
    --------
    >>> parse_po('msgid "Kernel"\\nmsgstr "内核"\\n\\n#, fuzzy\\nmsgid "GPU"\\nmsgstr "显卡"\\n')
    {'Kernel': '内核'}
    """
    entries: dict[str, str] = {}
    for block in text.split("\n\n"):
        fuzzy, field, parts = False, None, {"msgid": [], "msgstr": []}
        for line in block.strip().splitlines():
            if line.startswith("#,") and "fuzzy" in line:
                fuzzy = True
            elif line.startswith(("msgid ", "msgstr ")):
                field, _, rest = line.partition(" ")
                parts[field].append(_unquote(rest))
            elif line.startswith('"') and field:
                parts[field].append(_unquote(line))
        msgid, msgstr = "".join(parts["msgid"]), "".join(parts["msgstr"])
        if msgid and msgstr and not fuzzy:
            entries[msgid] = msgstr
    return entries


def _unquote(literal: str) -> str:
    r"""The text of a catalog's quoted string: its characters as they are when it holds no backslash and no inner
    quote (most do), else as Python reads the literal (``\n``, ``\"``, ``\\``: the same escapes as C's).

    Reading every line with ``ast.literal_eval`` made loading the zh_CN catalog (1,278 entries) four times
    slower: 13 ms against 3.2.

    Examples
    --------
    >>> _unquote('"内核"'), _unquote(r'"a \"b\"\n"')
    ('内核', 'a "b"\n')
    """
    if len(literal) >= 2 and literal[0] == literal[-1] == '"' and "\\" not in literal and '"' not in literal[1:-1]:
        return literal[1:-1]
    return ast.literal_eval(literal)


@cache
def catalog(lang: str) -> dict[str, str]:
    """The message catalog of ``lang``: all its ``.po`` files merged (empty for English, the source)."""
    if lang == "en":
        return {}
    entries: dict[str, str] = {}
    for path in sorted(CATALOG_DIR.glob(f"{lang}*.po")):
        entries.update(parse_po(path.read_text(encoding="utf-8")))
    return entries


def _(message: str) -> str:
    """``message`` in the current language; English if the catalog has no entry for it.

    Examples
    --------
    >>> os.environ["KERNELLAB_LANG"] = "zh_CN"; _("Kernel")
    '内核'
    >>> os.environ["KERNELLAB_LANG"] = "en"; _("Kernel")
    'Kernel'
    """
    return catalog(current_language()).get(message, message)
