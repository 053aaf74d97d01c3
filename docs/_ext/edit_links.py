"""Where a page comes from: a link to the repository in the header and "Edit this page" beside each page's
contents (a Sphinx extension).

The repository is known only where the site is built from one: ``KERNELLAB_REPOSITORY`` (a URL), or GitHub
Actions' ``GITHUB_SERVER_URL``/``GITHUB_REPOSITORY``, or Read the Docs' ``READTHEDOCS_GIT_CLONE_URL``
(:func:`repository`). Without it (a local build) there is nothing to link, and the site shows neither.

"Edit this page" opens the file a reader would change, not the file Sphinx read: a gallery page's script
(``gallery/…/NN_name.py``), a prose page's Markdown (``docs/name.md``); on a translated site, the page's
catalog (``docs/locale/<lang>/LC_MESSAGES/….po``). The API pages (generated from docstrings), the source
pages and the indexes have none.
"""

from __future__ import annotations

import os
import re
from pathlib import Path


def repository() -> str:
    """The repository's web address, without a trailing slash, or ``""``.

    >>> os.environ["KERNELLAB_REPOSITORY"] = "https://example.org/kl/kernellab.git/"; repository()
    'https://example.org/kl/kernellab'
    >>> del os.environ["KERNELLAB_REPOSITORY"]
    """
    url = os.environ.get("KERNELLAB_REPOSITORY") or ""
    if not url and os.environ.get("GITHUB_REPOSITORY"):
        url = f"{os.environ.get('GITHUB_SERVER_URL', 'https://github.com')}/{os.environ['GITHUB_REPOSITORY']}"
    url = (url or os.environ.get("READTHEDOCS_GIT_CLONE_URL") or "").strip().rstrip("/")
    return re.sub(r"\.git$", "", url)


def source_path(docname: str, suffix: str, language: str, gallery_dirs: dict[str, str]) -> str | None:
    """The repository path of what a reader edits to change page ``docname``, or None.

    >>> source_path("quickstart", ".md", "en", {"auto_examples": "gallery"})
    'docs/quickstart.md'
    >>> source_path("auto_examples/lecture10/01_naive", ".rst", "en", {"auto_examples": "gallery"})
    'gallery/lecture10/01_naive.py'
    >>> source_path("auto_examples/lecture10/01_naive", ".rst", "zh_CN", {"auto_examples": "gallery"})
    'docs/locale/zh_CN/LC_MESSAGES/auto_examples/lecture10/01_naive.po'
    >>> source_path("generated/kernellab.launch", ".rst", "en", {}), source_path("auto_examples/index", ".rst", "en", {"auto_examples": "gallery"})
    (None, None)
    """
    top = docname.split("/", 1)[0]
    if top in ("generated", "_modules") or docname in ("genindex", "search", "py-modindex", "api"):
        return None
    if language != "en":
        return f"docs/locale/{language}/LC_MESSAGES/{docname}.po"
    if top in gallery_dirs:
        if docname.endswith("index"):
            return None  # sphinx-gallery writes it from every GALLERY_HEADER.rst
        return f"{gallery_dirs[top]}/{docname.split('/', 1)[1]}.py"
    return f"docs/{docname}{suffix}"


def _page_context(app, pagename, templatename, context, doctree) -> None:
    url = app.config.html_context.get("repository")
    if not url or doctree is None or pagename not in app.env.all_docs:
        return
    conf = app.config.sphinx_gallery_conf
    dirs = dict(zip([conf["gallery_dirs"]] if isinstance(conf["gallery_dirs"], str) else conf["gallery_dirs"],
                    [Path(d).name for d in ([conf["examples_dirs"]] if isinstance(conf["examples_dirs"], str)
                                            else conf["examples_dirs"])]))
    path = source_path(pagename, Path(app.env.doc2path(pagename)).suffix, app.config.language or "en", dirs)
    if path:
        context["edit_url"] = f"{url}/edit/{app.config.html_context.get('repository_branch', 'main')}/{path}"


def setup(app):
    app.connect("html-page-context", _page_context)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
