"""A site that ships what its readers load, once (a Sphinx extension).

- **No sourcemaps.** The theme's bundles come with ``.map`` files (3.7 MB over both languages) that only a
  browser's developer tools ask for; they are deleted from ``_static/`` and the bundles' ``sourceMappingURL``
  comments dropped, so those tools ask for nothing that is missing.
- **No script that does nothing.** sphinx-gallery's tag filter (``sg-tags.js``) is left out: no example has tags.
- **One copy of the highlighted source.** viewcode's ``_modules/`` pages (6 MB a language) show kernellab's
  code, which is the same in every language: only the English site (:data:`SOURCE_LANGUAGE`) writes them,
  and on every other language the API pages' ``[source]`` links lead there. On those shared pages the
  language switch leads to the module's API page in the other language (docs/_templates/lang-switcher.html;
  kernellab.js keeps the object the reader was looking at).

The search index loads on the search page only (docs/_templates/layout.html) and the reST sources are not
copied (``html_copy_source = False`` in conf.py); tests/site/test_weight.py holds the whole site to its budget.
"""

from __future__ import annotations

import posixpath
import re
import shutil
from pathlib import Path

from docutils import nodes
from sphinx.ext import viewcode

SOURCE_LANGUAGE = "en"  # the language whose site holds the highlighted source pages
SOURCE_MAP = re.compile(rb"\n?(?://|/\*)# sourceMappingURL=[^\n]*?(?:\*/)?[ \t]*(?=\n|$)")


def _shares_source(app) -> bool:
    """Whether this build links the source pages of :data:`SOURCE_LANGUAGE`'s site instead of writing its own."""
    return app.builder.format == "html" and (app.config.language or "en") != SOURCE_LANGUAGE


def shared_source_link(refuri: str, docname: str, language: str = SOURCE_LANGUAGE) -> str:
    """A link of page ``docname`` to this site's ``_modules/`` page, made to lead to the same page of the
    ``language`` site, a sibling folder.

    >>> shared_source_link("../_modules/kernellab/report.html#Table", "generated/kernellab.Table")
    '../../en/_modules/kernellab/report.html#Table'
    >>> shared_source_link("_modules/index.html", "api")
    '../en/_modules/index.html'
    """
    path, sep, fragment = refuri.partition("#")
    here = posixpath.dirname(docname)
    target = posixpath.normpath(posixpath.join(here, path))  # relative to this language's root
    return posixpath.relpath(posixpath.join("..", language, target), here or ".") + sep + fragment


def _chrome_fingerprint(app) -> str:
    """What the source pages' chrome is made from besides their module: the templates, the theme's options and
    the versions that render them."""
    import hashlib

    import sphinx

    digest = hashlib.sha256(f"{sphinx.__version__} {sorted(app.config.html_theme_options.items())!r}".encode())
    for folder in app.config.templates_path:
        for path in sorted(Path(app.confdir, folder).rglob("*")):
            if path.is_file():
                digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()


def _builder_inited(app) -> None:
    if app.builder.format != "html":
        return
    if not _shares_source(app):
        # viewcode writes a source page again only when its module changed: a page written under other
        # templates (the language switch) would keep them. Written afresh when the chrome changed.
        stamp = Path(app.doctreedir, "kernellab-source-chrome")
        fingerprint = _chrome_fingerprint(app)
        if not stamp.is_file() or stamp.read_text(encoding="utf-8") != fingerprint:
            shutil.rmtree(Path(app.outdir, viewcode.OUTPUT_DIRNAME), ignore_errors=True)
            app.kernellab_chrome = fingerprint
        return
    for listener in list(app.events.listeners.get("html-collect-pages", [])):
        if listener.handler is viewcode.collect_pages:
            app.disconnect(listener.id)


def _doctree_resolved(app, doctree, docname: str) -> None:
    if not _shares_source(app):
        return
    prefix = viewcode.OUTPUT_DIRNAME + "/"
    for ref in doctree.findall(nodes.reference):
        uri = ref.get("refuri", "")
        if prefix in uri and not re.match(r"[a-z]+:", uri):
            ref["refuri"] = shared_source_link(uri, docname)


def switch_target(pagename: str, docnames) -> str:
    """The page the language switch of ``pagename`` leads to in the other language: the same page, or from a
    shared source page the module's API page (the API reference when the module has none of its own).

    >>> switch_target("_modules/kernellab/report", {"generated/kernellab.report", "api"})
    'generated/kernellab.report'
    >>> switch_target("_modules/kernellab/float64", {"api"}), switch_target("quickstart", {"api"})
    ('api', 'quickstart')
    """
    prefix = viewcode.OUTPUT_DIRNAME + "/"
    if not pagename.startswith(prefix):
        return pagename
    page = "generated/" + pagename[len(prefix):].replace("/", ".")
    return page if page in docnames else "api"


def _page_context(app, pagename, templatename, context, doctree) -> None:
    context["switch_target"] = switch_target(pagename, app.env.all_docs)
    # sphinx-gallery's tag filter on every page: kernellab's examples carry no tags, and the gallery's index
    # showed an empty list of them
    context["script_files"] = [js for js in context.get("script_files", [])
                               if not str(getattr(js, "filename", js)).endswith("sg-tags.js")]


def stale_pages(out: Path, current: set[str]) -> list[Path]:
    """The pages under ``out`` that no current document or generated page (``current``: page names) writes: a
    page of a document since renamed or removed, which Sphinx never deletes (the folder move of issue 33 left
    4 MB of them in an incremental build)."""
    skip = {"_static", "_images", "_downloads", "_sources"}
    return [p for p in out.rglob("*.html") if not (set(p.relative_to(out).parts) & skip)
            and p.relative_to(out).with_suffix("").as_posix() not in current]


def _current_pages(app) -> set[str]:
    env = app.env
    pages = set(env.all_docs) | {"genindex", "search", "py-modindex", *app.config.html_additional_pages}
    if not _shares_source(app):
        modules = getattr(env, "_viewcode_modules", {})
        pages |= {f"{viewcode.OUTPUT_DIRNAME}/index"}
        pages |= {f"{viewcode.OUTPUT_DIRNAME}/{name.replace('.', '/')}" for name, entry in modules.items() if entry}
    return pages


def _build_finished(app, exception) -> None:
    if exception or app.builder.format != "html":
        return
    out = Path(app.outdir)
    for page in stale_pages(out, _current_pages(app)):
        page.unlink()
    for path in (out / "_static").rglob("*.map"):
        path.unlink()
    for path in [*(out / "_static").rglob("*.js"), *(out / "_static").rglob("*.css")]:
        data = path.read_bytes()
        if b"sourceMappingURL" in data:
            path.write_bytes(SOURCE_MAP.sub(b"", data))
    if not app.config.html_copy_source:
        shutil.rmtree(out / "_sources", ignore_errors=True)  # left by an earlier build
    if _shares_source(app):
        shutil.rmtree(out / viewcode.OUTPUT_DIRNAME, ignore_errors=True)  # left by an earlier build
    elif getattr(app, "kernellab_chrome", None):
        Path(app.doctreedir, "kernellab-source-chrome").write_text(app.kernellab_chrome, encoding="utf-8")


def setup(app):
    app.setup_extension("sphinx.ext.viewcode")
    app.connect("builder-inited", _builder_inited)
    app.connect("doctree-resolved", _doctree_resolved)
    app.connect("html-page-context", _page_context)
    app.connect("build-finished", _build_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
