"""``[docs]`` links of the highlighted source pages that land on the object (a Sphinx extension).

sphinx.ext.viewcode links each object of a source page (``_modules/kernellab/tables.html``) back to
the object's entry in the API, at ``<page>#<refname>.<name>``, with one ``refname`` per *module*: the
module name under which its first object was documented. kernellab documents the names it re-exports
as ``kernellab.X`` and the others as ``kernellab.module.Y``, so in a module with both, one kind of
link pointed to an id that does not exist (``kernellab.tables.html#kernellab.display_width``; the
entry's id is ``kernellab.display_width`` on its own page) and landed at the top of the page.

This extension records, for every Python object a page documents, the id of its entry, keyed as
viewcode keys it (the module that defines the object, and its name), and rewrites each back link of
the source pages to that page and id.
"""

from __future__ import annotations

import html
import posixpath
import re

from docutils import nodes
from sphinx import addnodes
from sphinx.ext.viewcode import OUTPUT_DIRNAME, _get_full_modname

BACK = re.compile(r'(<div class="viewcode-block" id="(?P<name>[^"]+)">\n<a class="viewcode-back" href=")[^"]*(")')


def _doctree_read(app, doctree: nodes.document) -> None:
    env = app.env
    found = env.__dict__.setdefault("kernellab_viewcode_ids", {})
    docname = env.current_document.docname
    for objnode in doctree.findall(addnodes.desc):
        if objnode.get("domain") != "py":
            continue
        for signode in objnode.findall(addnodes.desc_signature):
            modname, fullname, ids = signode.get("module"), signode.get("fullname"), signode.get("ids")
            if not (modname and fullname and ids):
                continue
            home = _get_full_modname(modname, fullname) if env.config.viewcode_follow_imported_members else modname
            if home:
                found[home, fullname] = (docname, ids[0])


def _purge(app, env, docname) -> None:
    found = getattr(env, "kernellab_viewcode_ids", {})
    for key in [k for k, (doc, _) in found.items() if doc == docname]:
        del found[key]


def _merge(app, env, docnames, other) -> None:
    env.__dict__.setdefault("kernellab_viewcode_ids", {}).update(getattr(other, "kernellab_viewcode_ids", {}))


def _page_context(app, pagename, templatename, context, doctree) -> None:
    if not pagename.startswith(OUTPUT_DIRNAME + "/") or "body" not in context:
        return
    modname = pagename[len(OUTPUT_DIRNAME) + 1:].replace("/", ".")
    found = getattr(app.env, "kernellab_viewcode_ids", {})

    def link(m):
        target = found.get((modname, html.unescape(m["name"])))
        if target is None:
            return m[0]
        docname, anchor = target
        href = posixpath.relpath(app.builder.get_target_uri(docname), posixpath.dirname(pagename))
        return m[1] + html.escape(f"{href}#{anchor}") + m[3]

    context["body"] = BACK.sub(link, context["body"])


def setup(app):
    app.setup_extension("sphinx.ext.viewcode")
    app.connect("doctree-read", _doctree_read)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("html-page-context", _page_context)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": 1}
