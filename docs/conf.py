"""Sphinx configuration, one file for both languages.

nox stages ``docs/`` into ``build/src/<lang>`` and builds each language from its own copy
(``-c docs -D language=<lang>``), so sphinx-gallery's cache and outputs never cross languages.
"""

import os
import sys
import warnings
from pathlib import Path

import kernellab

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tools"))
import localized_downloads  # noqa: E402  (tools/: the downloads in the page's language)
import site_publish  # noqa: E402  (tools/: the site's URL, the files at its root)

project = "kernellab"
author = "the kernellab developers"
copyright = "2026, the kernellab developers"
release = version = kernellab.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.doctest",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",  # "[source]" links from the API pages to highlighted source pages
    "viewcode_anchors",  # docs/_ext: the source pages' "[docs]" links land on the object's entry
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "gallery_cards",  # docs/_ext: gallery cards' titles and tooltips in the page's language
    "gallery_page",  # docs/_ext: a gallery page ends on what it checks and its running time
    "sphinx_copybutton",
    "localized_downloads",
    "zh_search",  # docs/_ext: Chinese search finds the glossary's terms whole, and their synonyms
    "site_weight",  # docs/_ext: no sourcemaps, one copy of the highlighted source pages for both languages
    "edit_links",  # docs/_ext: "Edit this page" opens the file a reader changes (script, Markdown, catalog)
    "build_gc",  # docs/_ext: the garbage collector skips what the build keeps alive (it spent a fifth of the CPU)
]
sys.path.insert(0, str(HERE / "_ext"))
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
if os.environ.get("KERNELLAB_DOCS_WITHOUT_API"):  # message extraction: the API reference stays English
    autosummary_generate = False
    exclude_patterns.append("generated")
autodoc_typehints = "none"
# kernellab writes no ``# type:`` comments (tests/test_docs_config.py checks), and with no type hints shown
# they would change nothing: Sphinx reads none, instead of parsing every documented function's source again
# for them (about 2 s of CPU a language).
autodoc_use_type_comments = False
# A default of True replaces an explicit ``:members: a, b`` list (Sphinx 9), so the module template
# documents its members one directive each.
autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_member_order = "bysource"
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_rtype = False
nitpicky = True
nitpick_ignore = [("py:class", t) for t in (
    "array_like", "optional", "sequence", "callable", "numpy.ndarray", "np.ndarray", "ndarray",
    "dtype", "numpy.dtype", "Path", "default", "Sequence", "collections.abc.Sequence",
    "1–3 ints", "namespace",  # generic type words of numpy-style "Parameters" sections
)]
nitpick_ignore_regex = [("py:class", r"(numpy|np|collections|contextvars|typing|matplotlib)\..*")]


def _analyses(names):
    """For each module of ``names``: the ``(scope, name)`` keys of its attribute comments and its
    definitions' source order, as Sphinx's ``ModuleAnalyzer`` finds them.

    Parsing the ~100 modules takes about a second in every Sphinx process, and the doctest build (on the
    English site's doctrees) and the message extraction document no API: the result is kept in
    ``build/api-analysis.json``, under a digest of Sphinx's version and every module's source, and a
    process that finds it there parses nothing (autodoc parses what it documents itself).
    """
    import hashlib
    import json

    import sphinx
    from sphinx.pycode import ModuleAnalyzer

    digest = hashlib.sha256(f"{sphinx.__version__} {sys.version}".encode())
    for path in sorted(Path(kernellab.__file__).parent.rglob("*.py")):
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    cache = ROOT / os.environ.get("KERNELLAB_BUILD", "build") / "api-analysis.json"
    try:
        kept = json.loads(cache.read_text(encoding="utf-8"))
        if kept["digest"] == digest.hexdigest() and set(kept["modules"]) >= set(names):
            return {name: ([tuple(key) for key in attr_docs], tagorder)
                    for name, (attr_docs, tagorder) in kept["modules"].items()}
    except (OSError, ValueError, KeyError):
        pass
    found = {}
    for name in names:
        analyzer = ModuleAnalyzer.for_module(name)
        found[name] = (list(analyzer.find_attr_docs()), dict(analyzer.tagorder))
    try:  # written whole, then renamed: the two languages' builds start together
        cache.parent.mkdir(parents=True, exist_ok=True)
        part = cache.with_suffix(f".{os.getpid()}.part")
        part.write_text(json.dumps({"digest": digest.hexdigest(), "modules": found}), encoding="utf-8")
        os.replace(part, cache)
    except OSError:
        pass
    return found


def _api_layout():
    """Where each public object of kernellab is documented, for the module template.

    The names ``kernellab`` re-exports have their own pages (``kernellab.X``, listed on api.rst: the
    canonical, indexed targets that sphinx-gallery's backreferences attach to). A module page documents
    (with index entries) only the members defined in it that are *not* re-exported at the top level,
    and links the others: its re-exported members to their ``kernellab.X`` pages, and the names a
    package exports from its submodules (``tl.load``, ``triton.jit``) to the page that documents them.

    Returns ``(elsewhere, links, data_docs, order)``: the ``module.name`` paths documented on another
    page than their module's; for each module, the link targets its page lists; for each documented
    constant ``(id, name)``, the module whose ``#:`` comment documents it; and each ``module.name``'s
    position in its source file (a module page documents its members in source order).
    """
    import importlib
    import inspect
    import pkgutil

    def public(name):
        return not name.startswith("_")

    top = {id(obj): f"kernellab.{name}" for name, obj in vars(kernellab).items()
           if public(name) and not inspect.ismodule(obj)}
    modules = [importlib.import_module(info.name)
               for info in pkgutil.walk_packages(kernellab.__path__, "kernellab.")]
    data_docs, order = {}, {}
    analyses = _analyses([module.__name__ for module in modules])
    for module in modules:
        attr_docs, tagorder = analyses[module.__name__]
        for scope, name in attr_docs:
            if not scope and public(name) and hasattr(module, name):
                data_docs.setdefault((id(getattr(module, name)), name), module.__name__)
        order.update({f"{module.__name__}.{name}": i for name, i in tagorder.items()})

    def home(name, obj):
        """The path of the entry documenting ``obj`` (found as ``name``) on a module page, or None."""
        if inspect.isfunction(obj) or inspect.isclass(obj):
            modname = getattr(obj, "__module__", "") or ""
            module = sys.modules.get(modname)
            if not modname.startswith("kernellab.") or not obj.__doc__ or module is None:
                return None
            for attr in (name, obj.__name__):  # an alias (view = reshape) is documented under its own name
                if getattr(module, attr, None) is obj:
                    return f"{modname}.{attr}"
            return None
        modname = data_docs.get((id(obj), name))
        return modname and f"{modname}.{name}"

    elsewhere, links = set(), {}
    for module in modules:
        exported = getattr(module, "__all__", None)
        targets = set()
        for name in exported or dir(module):
            obj = getattr(module, name, None)
            path = f"{module.__name__}.{name}"
            if not public(name) or inspect.ismodule(obj):
                continue
            if exported is None and home(name, obj) != path:
                continue  # without __all__, a module's imports are not its API
            target = top.get(id(obj)) or home(name, obj)
            if target and target != path:
                elsewhere.add(path)
                targets.add(target)
        links[module.__name__] = sorted(targets, key=lambda t: (t.rsplit(".", 1)[-1].lower(), t))
    return elsewhere, links, data_docs, order


# The message extraction reads no API page (KERNELLAB_DOCS_WITHOUT_API): it needs no layout.
API_ELSEWHERE, API_LINKS, DATA_DOCS, API_ORDER = (set(), {}, {}, {}) if not autosummary_generate else _api_layout()
# Sorted, so the configuration is identical from one run to the next and Sphinx keeps its cache.
autosummary_context = {key: dict(sorted(value.items())) if isinstance(value, dict) else sorted(value)
                       for key, value in {"api_elsewhere": API_ELSEWHERE, "api_links": API_LINKS,
                                          "api_order": API_ORDER}.items()}


def _skip_foreign(app, what, name, obj, skip, options):
    """Leave out members that are re-bound numpy or builtin callables (``where = staticmethod(np.where)``):
    their docstrings are numpy's, with numpy's references."""
    modname = getattr(obj, "__module__", None)
    if callable(obj) and isinstance(modname, str) and modname.split(".")[0] != "kernellab":
        return True
    return None


def _data_docstring(app, what, name, obj, options, lines):
    """A re-exported constant (``kernellab.A100``) has no comment where it is imported, and autodoc
    would show its type's docstring: show the comment from the module that defines it, or nothing."""
    if what != "data":
        return
    modname, _, attr = name.rpartition(".")
    source = DATA_DOCS.get((id(obj), attr))
    if source == modname:
        return
    if source is None:
        lines[:] = []
        return
    from sphinx.pycode import ModuleAnalyzer

    lines[:] = list(ModuleAnalyzer.for_module(source).find_attr_docs()[("", attr)])


# --- gallery ---
# A Chinese label drawn without a CJK font is a missing-glyph warning: make it fail the example.
warnings.filterwarnings("error", message=r"Glyph .* missing from font")

sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "gallery"),  # absolute: the srcdir is a staged copy
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/\d\d_",  # execute every numbered script
    "ignore_pattern": r"__init__\.py|/_",
    "within_subsection_order": "sphinx_gallery.sorting.FileNameSortKey",
    "capture_repr": ("_repr_html_", "__repr__"),
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    # sphinx-gallery's "Total running time" line would change the catalogs every build: gallery_page
    # writes it instead, translated, out of gettext's reach
    "min_reported_time": 10**9,
    "write_computation_times": False,
    "show_signature": False,
    "remove_config_comments": True,
    "backreferences_dir": "generated/backreferences",
    "doc_module": ("kernellab",),
    "image_scrapers": ("figure_alt.matplotlib_scraper",),  # docs/_ext: alt texts joined with "；" in Chinese
    # Before and after each script: matplotlib's defaults restored, and the claims it checks collected
    # for the block at the end of its page (gallery_page); a cell ending on claims shows nothing mid-page.
    "reset_modules": ("matplotlib", "gallery_page.collect"),
    "reset_modules_order": "both",
    "ignore_repr_types": r"kernellab\.claims\.Claims\b",
    # "Related examples" at the end of each example (cards and heading translated by gallery_cards)
    "recommender": {"enable": True, "n_examples": 3},
}

# --- publishing: the site's URL is known only where it is published ---
# KERNELLAB_BASEURL is the site's root (where index.html, en/, zh_CN/ and dist/ live), e.g.
# "https://example.github.io/kernellab/"; Read the Docs gives READTHEDOCS_CANONICAL_URL. When set,
# every page gets a canonical URL and hreflang alternates, the site a sitemap, and the notebooks
# install kernellab from <root>dist/. Unset (a local build), links stay relative and nothing points
# to a host.
SITE_URL = site_publish.site_url()
WHEEL = localized_downloads.wheel_name(release)
import edit_links  # noqa: E402  (docs/_ext: where the site's repository is, when it is known)

REPOSITORY = edit_links.repository()  # "" in a local build: no repository link, no "Edit this page"

# --- HTML ---
html_theme = "pydata_sphinx_theme"
html_title = "kernellab"
templates_path = ["_templates"]
html_static_path = ["_static"]
html_favicon = "_static/favicon.svg"
html_css_files = ["custom.css"]
html_js_files = ["sphinx9-zh-search-fix.js", "kernellab.js"]
html_context = {"languages": LANGUAGES, "site_url": SITE_URL, "wheel": WHEEL, "repository": REPOSITORY,
                "repository_branch": os.environ.get("KERNELLAB_REPOSITORY_BRANCH", "main")}
html_theme_options = {
    "navbar_end": ["lang-switcher", "theme-switcher", "navbar-icon-links"],
    "secondary_sidebar_items": ["page-toc", "edit-this-page", "sg_download_links"],
    "icon_links": [{"name": "Repository", "url": REPOSITORY, "icon": "fa-solid fa-code-branch"}] if REPOSITORY else [],
    "show_toc_level": 2,
    # one header row at desktop widths (five long titles wrapped it into three rows, 136 px): the rest
    # of the pages are under "More"
    "header_links_before_dropdown": 3,
    # the left navigation shows the open page's branch only: the API pages' full tree was 3.9 MB a language
    "collapse_navigation": True,
}
# Gallery pages give their width to the code (the section's pages are one click away: the gallery's
# index, and the previous/next links at the end of each page).
# API pages likewise (the API index is one click away: the breadcrumb, and the previous/next links); their
# section navigation listed every API page on each of them, 11 kB a page, 4 MB over both languages.
html_sidebars = {"*": [], "auto_examples/*/*": [], "generated/*": []}  # "*": the top-level pages, whose section
# navigation is empty
html_show_sourcelink = False
html_copy_source = False  # no _sources/: nothing links them (1.3 MB)

# --- copy buttons: prompts and output are not copied; the labels follow the page's <html lang> ---
copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True
copybutton_only_copy_prompt_lines = True
copybutton_exclude = ".linenos, .gp, .go"


def _runtime_language(app, config):
    """Give gallery scripts and notebooks the page's language (``-D language`` is set after conf.py runs),
    and the page its URL where the site's URL is known."""
    lang = config.language or "en"
    os.environ["KERNELLAB_LANG"] = lang
    if lang == "zh_CN":  # the footer's "© Copyright 2026, the kernellab developers.", the search box's hint
        config.copyright = "2026，kernellab 开发者"
        config.html_theme_options = {**config.html_theme_options, "search_bar_text": "搜索文档……",
                                     "icon_links": [{**link, "name": "代码仓库"}
                                                    for link in config.html_theme_options.get("icon_links", [])]}
    if SITE_URL:
        config.html_baseurl = f"{SITE_URL}{lang}/"
    config.sphinx_gallery_conf["first_notebook_cell"] = localized_downloads.first_cell(
        lang, WHEEL, f"{SITE_URL}dist/{WHEEL}" if SITE_URL else None)


def _resolves(name: str) -> bool:
    """Whether ``kernellab.x.y`` names a module or an attribute of one."""
    import importlib

    module, attrs = name, []
    while module:
        try:
            obj = importlib.import_module(module)
            break
        except ImportError:
            module, _, attr = module.rpartition(".")
            attrs.insert(0, attr)
    else:
        return False
    for attr in attrs:
        if not hasattr(obj, attr):
            return False
        obj = getattr(obj, attr)
    return True


def _drop_stale_api_pages(app):
    """Start the API pages afresh when one documents an object that no longer exists (a module deleted
    or renamed): autosummary never removes a page, and it reads the stale ones (and their parents'
    tables, which still list the object) before writing the new ones, failing on the import."""
    folder = Path(app.srcdir, "generated")
    if folder.is_dir() and not all(_resolves(page.stem) for page in folder.glob("kernellab*.rst")):
        import shutil

        shutil.rmtree(folder)


def _api_pages_current(app):
    """No API pages generated again by the doctest build that follows the English HTML build.

    noxfile's ``_html_in_parallel`` starts that build, on the HTML build's doctrees and staged sources,
    with ``KERNELLAB_API_PAGES_CURRENT`` set: autosummary's pages are the ones the HTML build has just
    written from the same sources, and the doctest builder tests the prose pages' {doctest} blocks only
    (``doctest_test_doctest_blocks``), so generating them again (every module parsed: about 1.5 s) changed
    nothing. Off for autosummary's handler only (priority 500), back on after it: the environment keeps
    the HTML build's configuration.
    """
    if app.builder.name == "doctest" and os.environ.get("KERNELLAB_API_PAGES_CURRENT"):
        app.config.autosummary_generate = False


def _api_generation_back(app):
    app.config.autosummary_generate = autosummary_generate


def _say_imported(app):
    """Tell the docs session that this build has imported all it runs (``KERNELLAB_IMPORTED`` names a file to
    create): noxfile's ``_html_in_parallel`` starts the other language's build then, which finds every module
    compiled (build/pycache) instead of compiling them all beside this one, at the same time."""
    if os.environ.get("KERNELLAB_IMPORTED"):
        Path(os.environ["KERNELLAB_IMPORTED"]).touch()


def setup(app):
    app.connect("builder-inited", _say_imported, priority=0)  # the extensions loaded, nothing built yet
    app.connect("builder-inited", _api_pages_current, priority=400)  # before autosummary's handler (500)
    app.connect("builder-inited", _api_generation_back, priority=600)
    app.connect("config-inited", _runtime_language, priority=5)  # before sphinx-gallery's handler (10)
    app.connect("builder-inited", _drop_stale_api_pages, priority=100)  # before autosummary generates
    app.connect("autodoc-skip-member", _skip_foreign)
    app.connect("autodoc-process-docstring", _data_docstring)
