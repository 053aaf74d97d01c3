"""Sessions for testing kernellab and building its bilingual site (``nox -l`` lists them).

A bare ``nox`` runs the default set: lint, tests, doctests, docs (which checks the built site) and
the translations check — everything CI runs.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import nox

nox.options.sessions = ["lint", "tests", "doctests", "docs", "translations-check"]
nox.options.reuse_venv = "yes"
nox.options.error_on_missing_interpreters = True

ROOT = Path(__file__).resolve().parent
DOCS = ROOT / "docs"
BUILD = ROOT / os.environ.get("KERNELLAB_BUILD", "build")  # another folder for a private build
LANGS = ("en", "zh_CN")
GENERATED = ("auto_examples", "generated")  # written by the build inside a staged srcdir, never copied
PYPROJECT = nox.project.load_toml("pyproject.toml")
# The engines multiply many tiny matrices: OpenBLAS threads only add overhead there, and on a busy
# machine their spin-waiting made a 0.05 s launch take 7 s. One BLAS thread keeps timings honest.
ENV = {"MPLBACKEND": "Agg", "OPENBLAS_NUM_THREADS": "1"}


def _install(session: nox.Session, *groups: str) -> None:
    deps = [d for g in groups for d in nox.project.dependency_groups(PYPROJECT, g)]
    session.install("-e", ".", *deps)


def _stage(name: str) -> Path:
    """Mirror ``docs/`` into ``build/src/<name>``, copying only changed files and keeping mtimes.

    Each language builds from its own copy, so sphinx-gallery's outputs and cache (which ignore the
    language) never serve one language's output in the other.
    """
    dest = BUILD / "src" / name
    wanted = set()
    for src in DOCS.rglob("*"):
        rel = src.relative_to(DOCS)
        if rel.parts[0] in GENERATED or rel.name == "conf.py" or src.suffix == ".mo" or "__pycache__" in rel.parts:
            continue
        wanted.add(rel)
        out = dest / rel
        if src.is_dir():
            out.mkdir(parents=True, exist_ok=True)
            continue
        st = src.stat()
        if not out.exists() or out.stat().st_size != st.st_size or out.stat().st_mtime != st.st_mtime:
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, out)
    for out in sorted(dest.rglob("*"), reverse=True):
        rel = out.relative_to(dest)
        if rel.parts[0] in GENERATED or out.suffix == ".mo" or rel in wanted or rel.name.startswith(".kernellab"):
            continue
        shutil.rmtree(out) if out.is_dir() else out.unlink()
    return dest


def _library_fingerprint() -> str:
    """A hash of what gallery output depends on besides the scripts: kernellab's code and catalogs, conf.py."""
    digest = hashlib.sha256()
    for path in sorted([*(ROOT / "kernellab").rglob("*.py"), *(ROOT / "kernellab").rglob("*.po"), DOCS / "conf.py"]):
        digest.update(str(path.relative_to(ROOT)).encode() + path.read_bytes())
    return digest.hexdigest()


def _drop_stale_gallery(src: Path) -> None:
    """sphinx-gallery re-runs a script only when the script changes; re-run all when the library changed."""
    stamp = src / ".kernellab-fingerprint"
    fingerprint = _library_fingerprint()
    if not stamp.exists() or stamp.read_text() != fingerprint:
        shutil.rmtree(src / "auto_examples", ignore_errors=True)
        stamp.write_text(fingerprint)


def _sphinx(session: nox.Session, builder: str, name: str, lang: str, out: Path, *extra: str) -> None:
    src = _stage(name)
    if builder == "html":
        _drop_stale_gallery(src)
    strict = () if builder == "gettext" else ("-W", "-n", "--keep-going")  # the html build is the strict one
    session.run(
        "sphinx-build", "-b", builder, *strict, "-c", str(DOCS),
        "-D", f"language={lang}", "-d", str(BUILD / "doctrees" / name), str(src), str(out), *extra,
        env={**ENV, "KERNELLAB_LANG": lang},
    )


REDIRECT = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>kernellab</title>
<script>
  var zh = (navigator.languages || [navigator.language || ""]).some(function (l) { return /^zh/i.test(l); });
  location.replace(zh ? "zh_CN/index.html" : "en/index.html");
</script>
<noscript><meta http-equiv="refresh" content="0; url=en/index.html"></noscript>
</head><body>
<p><a href="en/index.html" hreflang="en">English</a> · <a href="zh_CN/index.html" hreflang="zh-CN">简体中文</a></p>
</body></html>
"""


@nox.session
def tests(session: nox.Session) -> None:
    """Run the unit tests and the doctests in kernellab's docstrings (pytest; pass pytest options after --)."""
    _install(session, "test")
    session.run("pytest", *session.posargs, env={**ENV, "KERNELLAB_LANG": "en"})


@nox.session
def doctests(session: nox.Session) -> None:
    """Run the testable examples in the prose pages with Sphinx's doctest builder (English, no gallery)."""
    _install(session, "docs")
    _sphinx(session, "doctest", "doctest", "en", BUILD / "doctest", "-D", "plot_gallery=0", *session.posargs)


@nox.session
def docs(session: nox.Session) -> None:
    """Build the site in English and Chinese into build/html/<lang> (strict), then check the built site.

    Arguments after ``--`` go to sphinx-build, e.g. ``nox -s docs -- -D plot_gallery=0`` or
    ``nox -s docs -- -D sphinx_gallery_conf.filename_pattern=01_`` (one example), or
    ``-D sphinx_gallery_conf.run_stale_examples=True`` to re-run examples whose source did not change.
    """
    _install(session, "docs", "test")
    for lang in LANGS:
        _sphinx(session, "html", lang, lang, BUILD / "html" / lang, *session.posargs)
    (BUILD / "html" / "index.html").write_text(REDIRECT, encoding="utf-8")
    session.run("pytest", "-p", "no:cacheprovider", "tests/site", "-q", env={"KERNELLAB_SITE": str(BUILD / "html")})
    session.log(f"site: {BUILD / 'html' / 'index.html'}")


def _gettext(session: nox.Session, name: str = "gettext") -> Path:
    """Extract the English messages of every page (gallery not executed; API pages left out)."""
    out = BUILD / name
    shutil.rmtree(out, ignore_errors=True)
    _sphinx(session, "gettext", name, "en", out, "-D", "plot_gallery=0", "-q")
    shutil.rmtree(out / "generated", ignore_errors=True)  # the API reference stays English
    return out


@nox.session(name="translations-update")
def translations_update(session: nox.Session) -> None:
    """Merge new English messages into docs/locale/zh_CN and fill sphinx-gallery's boilerplate entries.

    With arguments, only the catalogs of the documents matching them are touched, e.g.
    ``nox -s translations-update -- "auto_examples/lecture10/02_*"`` (safe beside other such runs).
    """
    _install(session, "docs")
    if session.posargs:
        key = hashlib.sha256(" ".join(session.posargs).encode()).hexdigest()[:8]
        full = _gettext(session, f"gettext-{key}")
        pot = BUILD / f"gettext-{key}-only"
        shutil.rmtree(pot, ignore_errors=True)
        for path in full.rglob("*.pot"):
            rel = path.relative_to(full)
            if any(rel.with_suffix("").match(pattern) for pattern in session.posargs):
                (pot / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, pot / rel)
        if not any(pot.rglob("*.pot")):
            session.error(f"no document matches {session.posargs}")
    else:
        pot = _gettext(session)
    session.run("sphinx-intl", "update", "-p", str(pot), "-d", str(DOCS / "locale"), "-l", "zh_CN",
                "-w", "0", "--no-obsolete")
    session.run("python", "tools/po_tools.py", "autofill", str(DOCS / "locale" / "zh_CN"))


@nox.session(name="translations-check")
def translations_check(session: nox.Session) -> None:
    """Fail on any untranslated, fuzzy or unmerged Chinese entry, in the site's and kernellab's catalogs."""
    _install(session, "docs")
    pot = _gettext(session, f"gettext-check-{os.getpid()}")
    session.run("python", "tools/po_tools.py", "check", str(pot), str(DOCS / "locale" / "zh_CN"))
    session.run("python", "tools/po_tools.py", "check-runtime", "kernellab", "gallery")


@nox.session
def lint(session: nox.Session) -> None:
    """Check the code with ruff (rules and the reason for each family are in pyproject.toml)."""
    _install(session, "lint")
    session.run("ruff", "check", ".", *session.posargs)


@nox.session
def bench(session: nox.Session) -> None:
    """Time the engines against their targets, and each gallery page run as a script (not in CI)."""
    _install(session, "test")
    for script in sorted((ROOT / "benchmarks").glob("bench_*.py")):
        session.run("python", str(script), *session.posargs,
                    env={**ENV, "KERNELLAB_LANG": "en"})


@nox.session
def conformance(session: nox.Session) -> None:
    """Run the real-Triton-syntax kernels under real Triton's interpreter and compare (optional, not in CI).

    Installs ``triton`` and the CPU build of ``torch==2.13.0`` (pinned: an unpinned torch pulls a
    multi-GB CUDA build).
    """
    _install(session, "test")
    session.install("torch==2.13.0", "triton")
    session.run("pytest", "tests/conformance", *session.posargs,
                env={**ENV, "TRITON_INTERPRET": "1", "KERNELLAB_LANG": "en", "KERNELLAB_CONFORMANCE": "1"})



# The CUDA toolkit from PyPI (no GPU, no system CUDA): nvcc, ptxas, cuobjdump and the nvdisasm that
# cuobjdump -sass calls. Pinned: SASS differs between compiler versions (fidelity.md §2.1).
CUDA_PACKAGES = ("nvidia-cuda-nvcc==13.5.37", "nvidia-cuda-cuobjdump==13.5.37", "nvidia-cuda-nvdisasm==13.5.37")


@nox.session
def sass(session: nox.Session) -> None:
    """Compile the CUDA twins in cuda/ for sm_86 and rewrite kernellab/sgemm/sass_mix.json (optional, not in CI).

    Installs nvcc and cuobjdump from PyPI (needs a host C++ compiler, e.g. g++); no GPU. Writes each
    kernel's K-loop instruction mix; ``tests/test_sass_mix.py`` then checks the simulator against it.
    """
    session.install(*CUDA_PACKAGES)
    venv = Path(session.virtualenv.location)
    bins = sorted(venv.glob("lib/python*/site-packages/nvidia/cu*/bin"))
    if not bins:
        session.error("no nvidia/cu*/bin folder in the session's site-packages")
    path = os.pathsep.join([str(bins[-1]), os.environ.get("PATH", "")])
    session.run("python", "cuda/sass_mix.py", "kernellab/sgemm/sass_mix.json", *session.posargs, env={"PATH": path})
