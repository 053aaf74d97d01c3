"""Sphinx configuration, one file for both languages.

nox stages ``docs/`` into ``build/src/<lang>`` and builds each language from its own copy
(``-c docs -D language=<lang>``), so sphinx-gallery's cache and outputs never cross languages.
"""

import os
from pathlib import Path

import kernellab

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

project = "kernellab"
author = "the kernellab developers"
copyright = "2026, the kernellab developers"
release = version = kernellab.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.doctest",
    "sphinx.ext.napoleon",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "locale", "**/GALLERY_HEADER.rst"]
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3

# --- languages: English source, Simplified-Chinese catalogs (one per document) ---
language = "en"  # overridden per build with -D language=zh_CN
locale_dirs = ["locale/"]  # relative to the staged srcdir, so compiled .mo files stay out of docs/
gettext_compact = False
gettext_uuid = False
gettext_location = False
LANGUAGES = [("en", "English"), ("zh_CN", "简体中文")]

# --- doctests: the prose pages' {doctest} blocks only (docstring examples run under pytest) ---
doctest_test_doctest_blocks = ""

# --- API reference ---
autosummary_generate = True
autodoc_typehints = "none"
autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_member_order = "bysource"
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_rtype = False
nitpicky = True
nitpick_ignore = [("py:class", t) for t in (
    "array_like", "optional", "sequence", "callable", "numpy.ndarray", "np.ndarray", "ndarray",
    "dtype", "numpy.dtype", "Path", "default", "Sequence", "collections.abc.Sequence",
)]
nitpick_ignore_regex = [("py:class", r"(numpy|np|collections|typing|matplotlib)\..*")]

# --- gallery ---
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "gallery"),  # absolute: the srcdir is a staged copy
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/\d\d_",  # execute every numbered script
    "ignore_pattern": r"__init__\.py|/_",
    "within_subsection_order": "sphinx_gallery.sorting.FileNameSortKey",
    "capture_repr": ("_repr_html_", "__repr__"),
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "min_reported_time": 10**9,  # no "Total running time" line: it would change the catalogs every build
    "write_computation_times": False,
    "show_signature": False,
    "remove_config_comments": True,
    "backreferences_dir": "generated/backreferences",
    "doc_module": ("kernellab",),
    "image_scrapers": ("matplotlib",),
}

# --- HTML ---
html_theme = "pydata_sphinx_theme"
html_title = "kernellab"
templates_path = ["_templates"]
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_js_files = ["sphinx9-zh-search-fix.js", ("gallery-i18n.js", {"defer": "defer"})]
html_context = {"languages": LANGUAGES}
html_theme_options = {
    "navbar_end": ["lang-switcher", "theme-switcher", "navbar-icon-links"],
    "secondary_sidebar_items": ["page-toc", "sg_download_links"],
    "show_toc_level": 2,
}
html_show_sourcelink = False


def _runtime_language(app, config):
    """Give gallery scripts and notebooks the page's language (``-D language`` is set after conf.py runs)."""
    lang = config.language or "en"
    os.environ["KERNELLAB_LANG"] = lang
    if lang != "en":
        config.sphinx_gallery_conf["first_notebook_cell"] = (
            f'import os\nos.environ["KERNELLAB_LANG"] = "{lang}"')


def setup(app):
    app.connect("config-inited", _runtime_language, priority=5)  # before sphinx-gallery's handler (10)
