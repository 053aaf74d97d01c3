"""Gallery cards in the page's language: a Sphinx extension.

sphinx-gallery writes each card of a gallery index as raw HTML, its title (the script's first
docstring line) and tooltip (the paragraph after it) taken from the English script, out of
gettext's reach. On a translated build this extension rewrites both in the index page's source,
before Sphinx parses it, from the example's own catalog
(``locale/<lang>/LC_MESSAGES/auto_examples/<example>.po``): the page's HTML then carries the
translation, with or without JavaScript.

The same goes for the cards sphinx-gallery includes into each example: its "Related examples" (its
recommender's ``<example>.recommendations``, whose heading this extension also translates). The
gettext build leaves them out: they are links to other pages, not text to translate. On the API
pages, sphinx-gallery's mini-gallery ("Examples using ``X``") is translated too: its heading and its cards.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from docutils import nodes
from sphinx.locale import get_translation

from kernellab.i18n import parse_po

_ = get_translation("sphinx")  # the theme's catalog: docs/locale/<lang>/LC_MESSAGES/sphinx.po
RELATED = re.compile(r"^\.\. rubric:: Related examples$", re.M)

CARD = re.compile(
    r'(?P<open><div class="sphx-glr-thumbcontainer" (?:[^\n>]*? )?tooltip=")(?P<intro>[^"]*)(?P<mid>".*?'
    r":doc:`(?P<doc>[^`]+)`.*?"
    r'<div class="sphx-glr-thumbnail-title">)(?P<title>.*?)(?P<close></div>)',
    re.S,
)


def _plain(text: str) -> str:
    """Card text as sphinx-gallery makes it from reST (markup removed, one line)."""
    try:
        from sphinx_gallery.gen_rst import _sanitize_rst
    except ImportError:  # pragma: no cover - sphinx-gallery renamed its helper
        def _sanitize_rst(s):
            return s
    text = " ".join(text.replace("\\ ", "").split())
    text = re.sub(r":[\w:+-]+:`([^`<]*?)\s*(<[^>`]*>)?`", r"\1", text)  # roles, also next to Chinese
    text = re.sub(r"``(.+?)``", r"\1", text)
    return _sanitize_rst(text)


def translate_cards(source: str, catalog_of) -> str:
    """``source`` (a gallery index's reST) with each card's title and tooltip translated.

    ``catalog_of(doc)`` returns the msgid → msgstr catalog of the example ``doc``
    (``/auto_examples/x/01_y``); a card whose texts it lacks stays as it is.

    >>> src = ('<div class="sphx-glr-thumbcontainer" tooltip="You will learn.">\\n'
    ...        ':doc:`/auto_examples/a/01_b`\\n<div class="sphx-glr-thumbnail-title">Title</div>')
    >>> zh = {"Title": "标题", "You will *learn*.": "你将\\\\ *学到*\\\\ 。"}
    >>> print(translate_cards(src, lambda doc: zh))
    <div class="sphx-glr-thumbcontainer" tooltip="你将学到。">
    :doc:`/auto_examples/a/01_b`
    <div class="sphx-glr-thumbnail-title">标题</div>
    """

    def card(m):
        plain = {_plain(msgid): msgstr for msgid, msgstr in catalog_of(m["doc"]).items()}
        intro = plain.get(html.unescape(m["intro"]))
        title = plain.get(html.unescape(m["title"]).strip())
        return (m["open"] + (html.escape(_plain(intro)) if intro else m["intro"]) + m["mid"]
                + (html.escape(_plain(title), quote=False) if title else m["title"]) + m["close"])

    return CARD.sub(card, source)


def _catalogs(app):
    base = Path(app.srcdir, "locale", app.config.language or "en", "LC_MESSAGES")

    def catalog_of(doc):
        path = base / (doc.lstrip("/") + ".po")
        return parse_po(path.read_text(encoding="utf-8")) if path.is_file() else {}

    return catalog_of


def _source_read(app, docname, source):
    lang = app.config.language or "en"
    if lang == "en" or not docname.startswith("auto_examples/") or not docname.endswith("index"):
        return
    source[0] = translate_cards(source[0], _catalogs(app))


def _include_read(app, relative_path, parent_docname, content):
    name = Path(relative_path).name
    if name.endswith(".recommendations"):
        if app.builder.name == "gettext":
            content[0] = ""
            return
        content[0] = RELATED.sub(lambda m: ".. rubric:: " + _("Related examples"), content[0])
        if (app.config.language or "en") != "en":
            content[0] = translate_cards(content[0], _catalogs(app))


def _doctree_read(app, doctree):
    """The mini-gallery's heading on an API page, "Examples using ``X``", in the page's language."""
    if (app.config.language or "en") == "en":
        return
    before, sep, after = _("Examples using {name}").partition("{name}")
    for title in doctree.findall(nodes.title):
        first = title.children[0] if title.children else None
        if isinstance(first, nodes.Text) and str(first) == "Examples using " and len(title.children) == 2:
            title.replace(first, nodes.Text(before))
            title.append(nodes.Text(after))


def _translated_minigallery(app):
    """sphinx-gallery's ``minigallery`` directive (the "Examples using X" cards of an API page), its cards'
    titles and tooltips in the page's language: the directive writes them from the English scripts."""
    from docutils import statemachine
    from sphinx_gallery.directives import MiniGallery

    class TranslatedMiniGallery(MiniGallery):
        def run(self):
            if (app.config.language or "en") == "en":
                return super().run()
            insert = self.state_machine.insert_input

            def translated(lines, source):
                text = translate_cards("\n".join(lines), _catalogs(app))
                return insert(statemachine.string2lines(text, convert_whitespace=True), source)

            self.state_machine.insert_input = translated
            try:
                return super().run()
            finally:
                del self.state_machine.insert_input  # the instance attribute: back to the class's method

    return TranslatedMiniGallery


def setup(app):
    app.add_directive("minigallery", _translated_minigallery(app), override=True)
    app.connect("source-read", _source_read)
    app.connect("include-read", _include_read)
    app.connect("doctree-read", _doctree_read, priority=400)  # before the table of contents is collected
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": 4}  # 4: the mini-galleries' cards
