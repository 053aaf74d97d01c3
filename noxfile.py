"""Sessions for testing kernellab and building its bilingual site (``nox -l`` lists them).

A bare ``nox`` runs the default set: lint, tests, doctests, docs (which checks the built site),
downloads (which runs the built site's downloads in a fresh environment) and the translations check —
everything CI runs. In that run the gallery scripts run in docs (executed by the strict build) and in
downloads (each English download, which is the script under a header, run with warnings as errors), so
the tests session leaves them out; ``nox -s tests -- -m gallery`` runs them there.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nox
import nox.command
import nox.virtualenv

nox.options.sessions = ["lint", "tests", "docs", "doctests", "downloads", "translations-check"]
nox.options.reuse_venv = "yes"
nox.options.default_venv_backend = "uv|virtualenv"  # uv (``pip install "nox[uv]"``) installs in seconds
nox.options.error_on_missing_interpreters = True

ROOT = Path(__file__).resolve().parent
# tools/ by its path: ``python3 -m nox`` puts the working directory on sys.path, the ``nox`` console
# script its own bin folder, so ``from tools.stamps import ...`` worked in one form only.
sys.path.insert(0, str(ROOT / "tools"))
import stamps  # noqa: E402  (tools/stamps.py)

DOCS = ROOT / "docs"
BUILD = ROOT / os.environ.get("KERNELLAB_BUILD", "build")  # another folder for a private build
LANGS = ("en", "zh_CN")
GENERATED = ("auto_examples", "generated")  # written by the build inside a staged srcdir, never copied
PYPROJECT = nox.project.load_toml("pyproject.toml")
# The engines multiply many tiny matrices: OpenBLAS threads only add overhead there, and on a busy
# machine their spin-waiting made a 0.05 s launch take 7 s. One BLAS thread keeps timings honest.
ENV = {"MPLBACKEND": "Agg", "OPENBLAS_NUM_THREADS": "1"}
# Where PYTHONDONTWRITEBYTECODE is set, every Python process nox starts compiled numpy, matplotlib,
# sphinx and kernellab from source again (about 0.5 s a process; the downloads alone start about a
# hundred). Their bytecode goes to build/pycache instead, out of the source tree.
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None):
    os.environ.setdefault("PYTHONPYCACHEPREFIX", str(BUILD / "pycache"))


def _uv_offline(session: nox.Session, uv: str, python: str, *requirements: str) -> bool:
    """Try ``uv pip install`` from uv's cache alone (``--offline``), quietly; True when it installed.

    With a warm cache uv then installs in under a second instead of re-reading every package's index
    page (about 3 s an environment, six environments a run). On a fresh machine the cache lacks the
    packages and uv says ``error: No solution found``: that try is expected to fail, so its output is
    kept out of the log (it read as a failure) and the caller installs online.
    """
    done = subprocess.run([uv, "pip", "install", "--offline", "--quiet", "--python", python, *requirements],
                          cwd=ROOT, capture_output=True, text=True)
    if done.returncode == 0:
        session.log("installed from uv's cache (offline)")
        return True
    session.log("uv's cache lacks some packages: installing online")
    return False


def _no_install(session: nox.Session) -> bool:
    """Whether nox installs nothing in this session: ``-R``/``--no-install`` on a reused environment."""
    config = getattr(getattr(session, "_runner", None), "global_config", None)
    return bool(getattr(config, "no_install", False) and getattr(session.virtualenv, "_reused", False))


def _install_only(session: nox.Session) -> bool:
    """Whether nox runs with ``--install-only``: it then skips ``session.run``, not the sessions' own
    subprocesses (the docs session's builds)."""
    config = getattr(getattr(session, "_runner", None), "global_config", None)
    return bool(getattr(config, "install_only", False))


def _install(session: nox.Session, *groups: str) -> None:
    deps = [d for g in groups for d in nox.project.dependency_groups(PYPROJECT, g)]
    if getattr(session.virtualenv, "venv_backend", None) != "uv" or _no_install(session):
        session.install("-e", ".", *deps)  # pip; or nothing at all under ``-R`` (``--no-install``)
        return
    python = str(Path(session.bin) / "python")
    if not _uv_offline(session, nox.virtualenv.UV, python, "-e", ".", *deps):
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
    """A hash of what gallery output depends on besides the scripts: kernellab's code and catalogs, conf.py
    and the extensions that take part in running the scripts (docs/_ext: the scraper, the claims' block)."""
    digest = hashlib.sha256()
    for path in sorted([*(ROOT / "kernellab").rglob("*.py"), *(ROOT / "kernellab").rglob("*.po"), DOCS / "conf.py",
                        *(DOCS / "_ext").rglob("*.py")]):
        digest.update(str(path.relative_to(ROOT)).encode() + path.read_bytes())
    return digest.hexdigest()


def _drop_stale_gallery(src: Path) -> None:
    """sphinx-gallery re-runs a script only when the script changes; re-run all when the library changed."""
    stamp = src / ".kernellab-fingerprint"
    fingerprint = _library_fingerprint()
    if not stamp.exists() or stamp.read_text() != fingerprint:
        shutil.rmtree(src / "auto_examples", ignore_errors=True)
        stamp.write_text(fingerprint)


def _sphinx_argv(builder: str, name: str, lang: str, out: Path, *extra: str) -> list[str]:
    """Stage ``docs/`` for ``name`` and return the sphinx-build command line that builds it."""
    src = _stage(name)
    if builder == "html":
        _drop_stale_gallery(src)
    strict = () if builder == "gettext" else ("-W", "-n", "--keep-going")  # the html build is the strict one
    return ["sphinx-build", "-b", builder, *strict, "-c", str(DOCS),
            "-D", f"language={lang}", "-d", str(BUILD / "doctrees" / name), str(src), str(out), *extra]


def _sphinx(session: nox.Session, builder: str, name: str, lang: str, out: Path, *extra: str) -> None:
    session.run(*_sphinx_argv(builder, name, lang, out, *extra), env={**ENV, "KERNELLAB_LANG": lang})


def _html_in_parallel(session: nox.Session, site: Path, *extra: str, doctests: bool = False,
                      after_english=None) -> bool | None:
    """Build every language's HTML at once (one sphinx-build each; they share nothing but the staged
    sources' parent and the compiled modules, so the second starts once the first has imported what it runs),
    printing each log in turn when it ends; fails if any build failed.

    With ``doctests``, Sphinx's doctest builder runs on the English doctrees as soon as the English
    build ends, while the Chinese one (the longer) still runs: on two cores it then costs no time.
    Returns whether the doctests passed (None when they did not run). A failure there does not fail
    the site: ``nox -s doctests`` runs them again and fails, with the log. ``after_english`` (a function)
    runs here once the English build has passed, beside the rest (the docs session builds the wheel so).
    """
    env = {**os.environ, **ENV, "PATH": os.pathsep.join([session.bin, os.environ.get("PATH", "")]),
           "VIRTUAL_ENV": session.virtualenv.location}
    logs = BUILD / "logs"
    logs.mkdir(parents=True, exist_ok=True)

    def start(name: str, argv: list[str], lang: str, **more: str) -> tuple[subprocess.Popen, object]:
        session.log(" ".join(argv) + f"  (log: {logs / name}.log)")
        log = open(logs / f"{name}.log", "w", encoding="utf-8")  # closed below, once the build ends
        return subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                env={**env, "KERNELLAB_LANG": lang, **more}), log

    def finish(name: str, proc: subprocess.Popen, log) -> int:
        proc.wait()
        log.close()
        print((logs / f"{name}.log").read_text(encoding="utf-8"), end="", flush=True)
        return proc.returncode

    # The first language's build starts alone; the others once it has imported everything it runs (docs/conf.py
    # creates ``imported``), so that Python compiles kernellab, Sphinx and the extensions once, into
    # build/pycache, and not in every build at the same time (about 3.5 s of CPU a build on a fresh tree).
    imported = logs / "imported"
    imported.unlink(missing_ok=True)
    running = {}
    for lang in LANGS:
        running[lang] = start(lang, _sphinx_argv("html", lang, lang, site / lang, *extra), lang,
                              **({"KERNELLAB_IMPORTED": str(imported)} if lang == LANGS[0] else {}))
        while lang == LANGS[0] and not imported.exists() and running[lang][0].poll() is None:
            time.sleep(0.1)
    failed, passed = [], None
    doctest = None
    for lang, (proc, log) in running.items():
        if finish(lang, proc, log):
            failed.append(lang)
        elif lang == "en":
            if doctests:
                # the API pages are the ones this English build has just written (docs/conf.py)
                doctest = start("doctest", _sphinx_argv("doctest", "en", "en", BUILD / "doctest", *extra), "en",
                                KERNELLAB_API_PAGES_CURRENT="1")
            if after_english:
                try:
                    after_english()
                except BaseException:  # the builds still running would outlive the session
                    for proc, _log in [*running.values(), *([doctest] if doctest else [])]:
                        proc.kill()
                    raise
    if doctest:
        passed = finish("doctest", *doctest) == 0
        if not passed:
            session.warn(f"the prose doctests failed (log: {logs / 'doctest.log'}); `nox -s doctests` runs them again")
    if failed:
        # Sphinx warns about a page only while reading or writing it, and after a failed build the page is
        # written and up to date: the next build would skip it and pass. Without its environment the next
        # build reads and writes every page again (the gallery stays cached) and fails again.
        for lang in failed:
            (BUILD / "doctrees" / lang / "environment.pickle").unlink(missing_ok=True)
        session.error(f"sphinx-build failed for {', '.join(failed)} (logs in {logs}; the next build reads every page again)")
    return passed


# pytest-xdist's workers, and sphinx-build's reading processes (the builds without the gallery), one a
# core, where there are two cores or more
XDIST = ("-n", "auto") if (os.cpu_count() or 1) >= 2 else ()
JOBS = ("-j", "auto") if (os.cpu_count() or 1) >= 2 else ()


@nox.session
def tests(session: nox.Session) -> None:
    """Run the unit tests and the doctests in kernellab's docstrings (pytest; pass pytest options after --).

    Without arguments, one worker a core (pytest-xdist), and the gallery scripts left out
    (``-m "not gallery"``): the default run executes each in the strict docs build and runs its English
    download as a plain script with warnings as errors (the downloads session), which is what
    tests/test_gallery.py checks. ``nox -s tests -- -m gallery`` runs them here.

    ``nox -s tests -- --cov`` (with or without other options) measures branch coverage of kernellab/ with
    coverage.py, in the tests' processes and the Python processes they start, and reports it per module;
    then again for the modules that decide a number, with every line and branch no test runs.
    """
    _install(session, "test")
    cov = [a for a in session.posargs if a.startswith("--cov")]
    args = [a for a in session.posargs if not a.startswith("--cov")] or [*XDIST, "-m", "not gallery"]
    env = {**ENV, "KERNELLAB_LANG": "en"}
    if not cov:
        session.run("pytest", *args, env=env)
        return
    # --cov: branch coverage of kernellab/ ([tool.coverage] in pyproject.toml), the rest of the options as
    # without it; then the modules that decide a number (tools/mutants.py's) again, each missing line and branch
    (BUILD / "coverage").mkdir(parents=True, exist_ok=True)
    session.run("pytest", *args, *cov, "--cov-report=term", env=env)
    import mutants  # tools/mutants.py

    focus = sorted({str(p.relative_to(ROOT)) for t in mutants.TARGETS for p in ROOT.glob(t)})
    session.log("the modules that decide a number (the mutation tests' targets): every line and branch no test runs")
    session.run("coverage", "report", "--skip-covered", "--include", ",".join(focus), env=env)


@nox.session
def doctests(session: nox.Session) -> None:
    """Run the testable examples in the prose pages with Sphinx's doctest builder (English).

    ``nox -s docs`` runs them too, on the English doctrees, while its Chinese build still runs; when they
    passed there on exactly the inputs there are now (``build/docs.stamp``), this session says so and
    stops. Otherwise, after ``nox -s docs`` it tests the English site's own doctrees, which are read
    already (the doctrees folder every builder shares, as in Sphinx's own Makefile); without them it reads
    the pages itself, the gallery not executed.
    """
    docs_venv = Path(session.virtualenv.location).parent / "docs"
    if not session.posargs and docs_venv.is_dir() and _docs_current(session, _docs_inputs(docs_venv, ())).get("doctests"):
        session.log(f"the prose doctests passed in the docs build of exactly these inputs ({DOCS_STAMP})")
        return
    _install(session, "docs")
    if (BUILD / "doctrees" / "en" / "environment.pickle").exists():
        _sphinx(session, "doctest", "en", "en", BUILD / "doctest", *session.posargs)
    else:
        _sphinx(session, "doctest", "doctest", "en", BUILD / "doctest", "-D", "plot_gallery=0", *JOBS, *session.posargs)


@nox.session
def docs(session: nox.Session) -> None:
    """Build the site in English and Chinese into build/html/<lang> (strict), then check the built site.

    kernellab's wheel and sdist go to build/html/dist, beside the languages; the root gets index.html,
    404.html and, when ``KERNELLAB_BASEURL`` gives the site's URL, a sitemap (tools/site_publish.py).
    Without arguments it also runs the prose doctests and the translations check (for the doctests and
    translations-check sessions, see there). When the
    last docs session passed on exactly the inputs there are now — every file of the source tree, the
    environment's packages, the environment variables and the arguments — and build/html is still what
    it wrote, it does nothing (``build/docs.stamp``).

    Arguments after ``--`` go to sphinx-build, e.g. ``nox -s docs -- -D plot_gallery=0`` or
    ``nox -s docs -- -D sphinx_gallery_conf.filename_pattern=01_`` (one example), or
    ``-D sphinx_gallery_conf.run_stale_examples=True`` to re-run examples whose source did not change.
    """
    _install(session, "docs", "test")
    if _install_only(session):
        return
    site = BUILD / "html"
    venv = Path(session.virtualenv.location)
    inputs = _docs_inputs(venv, session.posargs)  # before building: an edit made meanwhile is a miss next time
    if _docs_current(session, inputs, rewrite=True):
        session.log(f"the site was built and checked from exactly these inputs ({DOCS_STAMP}): nothing to do")
        session.log(f"site: {site / 'index.html'}")
        return
    DOCS_STAMP.unlink(missing_ok=True)
    # the languages at once (~1.8× on two cores); once the English build is done, beside the Chinese one
    # (the longer), the prose doctests and kernellab's wheel and sdist (into dist/, beside the languages)
    doctests = _html_in_parallel(session, site, *session.posargs, doctests=not session.posargs,
                                 after_english=lambda: _dist(session, site / "dist", isolated=False))
    # The translations check reads the sources only: it runs on the other core while the site checks
    # (one process) run on this one, so the default run's translations-check session has nothing to do.
    translations = None if session.posargs else _translations_in_background(session)
    try:
        session.run("python", "tools/site_publish.py", str(site))  # index, 404, sitemap (with a site URL)
        _check_site(session, site)
    finally:
        translated = translations and translations()
    stamps.write_stamp(DOCS_STAMP, inputs=inputs, site=_site_fingerprint(site), doctests=bool(doctests),
                       translations=bool(translated))
    session.log(f"site: {site / 'index.html'}")


DOCS_STAMP = BUILD / "docs.stamp"


def _docs_inputs(venv: Path, posargs: list[str] | tuple[str, ...]) -> dict[str, str]:
    """The fingerprints of everything the docs session reads, by part: every file of the source tree (by
    top-level entry; the session's own code, noxfile.py, included), the docs environment's packages, and
    the environment variables (all but the shell's own) with the arguments after ``--``."""
    groups: dict[str, list[Path]] = {}
    for path in stamps.source_files(ROOT, outputs=[BUILD]):
        groups.setdefault(path.relative_to(ROOT).parts[0], []).append(path)
    groups["(packages)"] = stamps.installed_packages(venv)
    env = {**stamps.stable_environment(os.environ), "(arguments)": json.dumps(list(posargs))}
    return stamps.fingerprint_parts(ROOT, groups, env)


def _site_fingerprint(site: Path) -> str:
    return stamps.fingerprint(site, [site], {})


def _docs_current(session: nox.Session, inputs: dict[str, str], rewrite: bool = False) -> dict:
    """build/docs.stamp's fields when the last docs session passed on exactly ``inputs`` and the built site
    is still the one it wrote; else an empty dict (then everything runs), and the log says what changed.

    With ``rewrite``, a site that is not the one the stamp's session wrote (a page edited or removed in
    build/html) is deleted: Sphinx rewrites only pages older than their sources, and would keep the edit.
    """
    stamp = stamps.read_stamp(DOCS_STAMP)
    if not stamp:
        return {}
    changed = stamps.changed_parts(stamp.get("inputs") or {}, inputs)
    if stamp.get("site") != _site_fingerprint(BUILD / "html"):
        changed.append("build/html")
        if rewrite:
            shutil.rmtree(BUILD / "html", ignore_errors=True)
            session.log("build/html is not the site the last docs session wrote: it is written again")
    if changed:
        session.log(f"changed since the last docs session ({DOCS_STAMP}): {', '.join(changed)}")
        return {}
    return stamp


# What the built-site checks read besides the site: their code, kernellab, tools/, pytest's settings, and
# docs/_ext (zh_search's term lists), conf.py, the glossary and the theme's catalog
SITE_CHECK_INPUTS = ("tests/conftest.py", "tests/site", "kernellab", "tools", "pyproject.toml", "noxfile.py",
                     "docs/_ext", "docs/conf.py", "docs/glossary.md", "docs/locale/zh_CN/LC_MESSAGES/sphinx.po")
SITE_CHECK_ENV = ("KERNELLAB_", "READTHEDOCS", "LANG", "LC_", "PYTHON")


def _check_site(session: nox.Session, site: Path) -> None:
    """Run tests/site on the built site, unless they passed on exactly these inputs: the site's files,
    SITE_CHECK_INPUTS, the session's installed packages and the environment variables they read."""
    env = {"KERNELLAB_SITE": str(site)}
    packages = stamps.installed_packages(Path(session.virtualenv.location))
    key = stamps.fingerprint(ROOT, [site, *(ROOT / p for p in SITE_CHECK_INPUTS), *packages],
                      {k: v for k, v in {**os.environ, **env}.items() if k.startswith(SITE_CHECK_ENV)})
    stamp = BUILD / "site-checks.stamp"
    if stamps.passed_on(stamp, key):
        session.log(f"the built-site checks passed on exactly this site and its inputs ({stamp})")
        return
    stamp.unlink(missing_ok=True)
    session.run("pytest", "-p", "no:cacheprovider", "tests/site", "-q", env=env)
    stamp.write_text(key, encoding="utf-8")


DIST_INPUTS = ("kernellab", "tests", "tools", "pyproject.toml", "README.md", "CHANGELOG.md", "LICENSE")


def _dist_is_current(out: Path) -> bool:
    """Whether ``out`` holds a wheel and an sdist newer than every file they are built from."""
    built = [p.stat().st_mtime for p in out.glob("kernellab-*")] if out.is_dir() else []
    if len(built) != 2:
        return False
    sources = [p for name in DIST_INPUTS for p in ([ROOT / name] if (ROOT / name).is_file() else (ROOT / name).rglob("*"))
               if p.is_file() and "__pycache__" not in p.parts]
    return max(p.stat().st_mtime for p in sources) < min(built)


def _dist(session: nox.Session, out: Path, isolated: bool = True) -> None:
    """Build kernellab's wheel and sdist into an emptied ``out`` (the sdist first, the wheel from it)."""
    if not isolated and _dist_is_current(out):
        session.log(f"kernellab's wheel and sdist in {out} are up to date")
        return
    shutil.rmtree(out, ignore_errors=True)
    session.run("python", "-m", "build", "--outdir", str(out), *(() if isolated else ("--no-isolation",)),
                silent=True)
    session.run("python", "tools/check_dist.py", str(out))


@nox.session(venv_backend="virtualenv")  # python -m build's isolated build needs pip in the venv
def build(session: nox.Session) -> None:
    """Build kernellab's wheel and sdist into build/dist and check them (``twine check``); publishes nothing."""
    session.install(*nox.project.dependency_groups(PYPROJECT, "build"))
    out = BUILD / "dist"
    _dist(session, out)
    session.run("twine", "check", "--strict", *sorted(str(p) for p in out.iterdir()))


def _fresh_venv(session: nox.Session, path: Path, *requirements: str) -> Path:
    """A new virtual environment at ``path`` holding only ``requirements``: made by uv when it is
    installed (``pip install "nox[uv]"``, much faster), else by venv and pip. Returns its Python."""
    shutil.rmtree(path, ignore_errors=True)
    python = path / "bin" / "python"
    try:
        import uv

        uv_bin = uv.find_uv_bin()
    except (ImportError, FileNotFoundError):
        uv_bin = shutil.which("uv")
    if uv_bin:
        session.run(uv_bin, "venv", "--quiet", "--python", shutil.which("python3") or "python3", str(path),
                    external=True)
        if not _uv_offline(session, uv_bin, str(python), *requirements):
            session.run(uv_bin, "pip", "install", "--quiet", "--python", str(python), *requirements, external=True)
    else:
        session.run("python3", "-m", "venv", str(path), external=True)
        session.run(str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    *requirements, external=True)
    return python


@nox.session(python=False)
def downloads(session: nox.Session) -> None:
    """Run the built site's downloads (every .py and .ipynb, both languages) in a fresh environment.

    Needs ``nox -s docs`` first. The environment holds only the site's wheel and a notebook runner
    (nbclient + ipykernel); tools/check_downloads.py also checks that each download speaks its page's
    language.
    """
    site = BUILD / "html"
    wheels = sorted((site / "dist").glob("kernellab-*.whl"))
    if not wheels or not (site / "zh_CN" / "_downloads").is_dir():
        session.error(f"no built site with a wheel in {site}: run `nox -s docs` first")
    venv = BUILD / "downloads-venv"
    python = _fresh_venv(session, venv, str(wheels[-1]), *nox.project.dependency_groups(PYPROJECT, "downloads"))
    freeze = subprocess.run([str(python), "-I", "-c", "import kernellab; print(kernellab.__file__)"],
                            capture_output=True, text=True, check=True).stdout.strip()
    if not freeze.startswith(str(venv)):
        session.error(f"kernellab imported from {freeze}, not from the site's wheel")
    session.run(str(python), "tools/check_downloads.py", str(site), str(BUILD / "downloads"), external=True)


@nox.session(name="font-subset")
def font_subset(session: nox.Session) -> None:
    """Regenerate kernellab's CJK font subset (kernellab/fonts) from the full Noto Sans CJK font.

    Needed after a runtime catalog gained characters (tests/test_fonts.py says when); commit the result.
    """
    session.install(*nox.project.dependency_groups(PYPROJECT, "font"))
    session.run("python", "tools/make_font_subset.py")


GETTEXT_ENV = {**ENV, "KERNELLAB_LANG": "en", "KERNELLAB_DOCS_WITHOUT_API": "1"}


def _gettext_argv(name: str, *jobs: str) -> tuple[Path, list[str]]:
    """The emptied output folder and the sphinx-build command line that extracts the English messages of
    every page into it (gallery not executed; the API reference, which stays English, neither generated
    nor read: its pages' links then dangle, so the log shows only on failure)."""
    out = BUILD / name
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(BUILD / "doctrees" / name, ignore_errors=True)  # read afresh, as on a fresh clone
    return out, _sphinx_argv("gettext", name, "en", out, "-D", "plot_gallery=0", "-q", *jobs)


def _gettext(session: nox.Session, name: str = "gettext") -> Path:
    """Extract the English messages of every page into ``build/<name>`` (see ``_gettext_argv``)."""
    out, argv = _gettext_argv(name, *JOBS)
    session.run(*argv, silent=True, env=GETTEXT_ENV)
    return out


def _translations_commands(pot: Path) -> list[list[str]]:
    """The translations check on extracted messages ``pot``: the site's catalogs against them, then
    kernellab's runtime catalogs against the code (the same commands in translations-check and docs)."""
    return [["python", "tools/po_tools.py", "check", str(pot), str(DOCS / "locale" / "zh_CN")],
            ["python", "tools/po_tools.py", "check-runtime", "kernellab", "gallery"]]


def _translations_in_background(session: nox.Session):
    """Start the whole translations check (message extraction, then ``_translations_commands``) in a
    thread, with the docs environment, logging to build/logs/translations.log; return a function that
    waits for it and returns whether it passed. A failure does not fail the site:
    ``nox -s translations-check`` then runs the check again and fails, with its output."""
    import threading

    env = {**os.environ, **GETTEXT_ENV, "PATH": os.pathsep.join([session.bin, os.environ.get("PATH", "")]),
           "VIRTUAL_ENV": session.virtualenv.location}
    log_path = BUILD / "logs" / "translations.log"
    out, argv = _gettext_argv("gettext-docs")  # one reading process: the site checks use the other core
    commands = [argv, *_translations_commands(out)]
    session.log(" && ".join(" ".join(c) for c in commands) + f"  (log: {log_path})")
    passed = []

    def run() -> None:
        with open(log_path, "w", encoding="utf-8") as log:
            passed.append(all(subprocess.run(c, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT).returncode == 0
                              for c in commands))  # all(): stops at the first failure

    thread = threading.Thread(target=run, daemon=True)
    thread.start()

    def wait() -> bool:
        thread.join()
        ok = bool(passed and passed[0])
        if not ok:
            print(log_path.read_text(encoding="utf-8"), end="", flush=True)
            session.warn(f"the translations check failed (log: {log_path}); `nox -s translations-check` runs it again")
        return ok

    return wait


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
    """Fail on any untranslated, fuzzy or unmerged Chinese entry, in the site's and kernellab's catalogs.

    ``nox -s docs`` runs the same check beside its site checks; when it passed there on exactly the
    inputs there are now (``build/docs.stamp``: every file of the source tree, the docs environment's
    packages, the environment variables), this session says so and stops.
    """
    docs_venv = Path(session.virtualenv.location).parent / "docs"
    if not session.posargs and docs_venv.is_dir() and _docs_current(session, _docs_inputs(docs_venv, ())).get("translations"):
        session.log(f"the translations check passed in the docs build of exactly these inputs ({DOCS_STAMP})")
        return
    _install(session, "docs")
    pot = _gettext(session, f"gettext-check-{os.getpid()}")
    for command in _translations_commands(pot):
        session.run(*command)


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


@nox.session(venv_backend="virtualenv")  # pip, as this session was checked with
def conformance(session: nox.Session) -> None:
    """Run the real-Triton-syntax kernels under real Triton's interpreter and compare (optional, not in CI).

    Installs the pinned ``triton`` and the CPU build of ``torch==2.13.0`` (pinned: an unpinned torch pulls
    a multi-GB CUDA build), runs tests/conformance (every kernel of tests/triton_kernels.py in both, and a
    hypothesis differential fuzz) and the torch-interop tests, then regenerates docs/triton_coverage.md
    and the compiled-code excerpts of the gallery (commit both when they change).
    """
    _install(session, "test")
    session.install("torch==2.13.0", "triton==3.9.0")
    env = {**ENV, "TRITON_INTERPRET": "1", "KERNELLAB_LANG": "en", "KERNELLAB_CONFORMANCE": "1"}
    session.run("pytest", "tests/conformance", "tests/test_triton_language.py", "tests/test_runner_torch.py",
                *session.posargs, env=env)
    session.run("python", "tests/conformance/coverage.py", env=env)
    session.run("python", "tests/conformance/compiled.py", env={**ENV, "KERNELLAB_LANG": "en"})
    session.run("python", "tests/conformance/compiled_counts.py", env={**ENV, "KERNELLAB_LANG": "en"})


@nox.session(venv_backend="virtualenv")  # pip, as the conformance session
def compiled(session: nox.Session) -> None:
    """Compile every case of tests/compiled_cases.py with real Triton for sm_80 and sm_90 (no GPU) and
    rewrite kernellab/compiled_counts.json and compiled_metadata.json (optional, not in CI; commit the JSON when it
    changes).

    Each row holds the PTX's static counts (every block once: a loop's body as if it ran once) and, where
    the launch's arguments fix the trip counts, ``executed``: every block weighted by how often the
    program's warps run it (tests/conformance/ptx_trips.py interprets the PTX's integer code per warp),
    warp instructions per program as the GPU executes them, a predicated-off instruction included. The
    unit test tests/test_compiled_counts.py holds kernellab's counts to that JSON without Triton, to the
    executed counts where a row has them. ``nox -s compiled -- CASE_ID ...`` compiles only those cases
    again and keeps the others.
    """
    _install(session, "test")
    session.install("torch==2.13.0", "triton==3.9.0")
    session.run("python", "tests/conformance/compiled_counts.py", *session.posargs,
                env={**ENV, "KERNELLAB_LANG": "en"})


@nox.session(default=False)
def validate(session: nox.Session) -> None:
    """Predict every published measurement of benchmarks/validation/validation.csv and score the model (not in CI).

    Each of the 57 rows runs as this project's own kernel at the row's size, config and GPU (sampled
    launches, about a minute of CPU); prints per row the stand-in, measured, predicted, the time ratio
    (predicted ÷ measured time) and the binding term, then the summary (share of the 49 scored rows within
    [0.8, 1.25] and [0.5, 2], geometric mean, worst row), all and per category; and writes
    kernellab/validation.json (commit it: tests/test_validation.py holds it current; it ships with kernellab
    because the gallery page "How good are the predictions?" reads it, in its downloads too).

    It first prints the same summary for commit 75152b7, the model before issue 32, as "before". Those
    figures are stored in that file with a hash of the harness that made them, and reused while the
    harness is unchanged; when a kernel, a launch or a row changes they are rebuilt (a git worktree of
    75152b7 in build/validate-before, the harness copied in, a second run: about a minute more). Storing
    keeps the session within its 5 minutes and makes "before" a fixed reference; rebuilding on a harness
    change keeps before and after the same kernels. ``-- --before rebuild`` forces it; ``-- --rows GS-01``
    predicts some rows only (no file written).
    """
    _install(session)
    session.run("python", "-m", "benchmarks.validation.run", "--before", "auto", "--json",
                "kernellab/validation.json", *session.posargs, env={**ENV, "KERNELLAB_LANG": "en"})


@nox.session(default=False)
def mutants(session: nox.Session) -> None:
    """Plant one-line bugs in the modules that decide a number, a seeded sample of each, and print the kill
    rate per module (not in CI; see tools/mutants.py).

    Each mutant (an operator, comparison, constant or min/max swap) runs the tests that execute its line,
    then, if it survives them, the whole of the fast tests, in a scratch copy. The sample (40 mutants a
    module) runs in shards, one at a time: ``-- --shard 1/8`` … ``-- --shard 8/8`` (each writes a file of
    its group of modules in build/mutants/), then ``-- --summary`` (every group's); ``-- --list`` shows a shard's
    mutants, ``-- --rerun`` runs the survivors again after tests were added, ``-- kernellab/access.py --sample 0``
    every mutant of one module.
    """
    _install(session, "test")
    session.run("python", "tools/mutants.py", *session.posargs, env={**ENV, "KERNELLAB_LANG": "en"})


# The CUDA toolkit from PyPI (no GPU, no system CUDA): nvcc, ptxas, cuobjdump and the nvdisasm that
# cuobjdump -sass calls. Pinned: SASS differs between compiler versions (fidelity.md §2.1).
CUDA_PACKAGES = ("nvidia-cuda-nvcc==13.5.37", "nvidia-cuda-cuobjdump==13.5.37", "nvidia-cuda-nvdisasm==13.5.37")


@nox.session(venv_backend="virtualenv")  # pip, as this session was checked with
def sass(session: nox.Session) -> None:
    """Compile the CUDA twins in cuda/ for sm_86 and rewrite kernellab/sgemm/sass_mix.json and cuda/twin_mix.json (optional, not in CI).

    Installs nvcc and cuobjdump from PyPI (needs a host C++ compiler, e.g. g++); no GPU. Writes each
    SGEMM kernel's K-loop instruction mix (``tests/test_sass_mix.py`` holds the simulator to it) and the
    SASS regions of the reduction and axpy twins (``tests/test_sass_twins.py``: within 25 %).
    """
    session.install(*CUDA_PACKAGES)
    venv = Path(session.virtualenv.location)
    bins = sorted(venv.glob("lib/python*/site-packages/nvidia/cu*/bin"))
    if not bins:
        session.error("no nvidia/cu*/bin folder in the session's site-packages")
    path = os.pathsep.join([str(bins[-1]), os.environ.get("PATH", "")])
    session.run("python", "cuda/sass_mix.py", "kernellab/sgemm/sass_mix.json", *session.posargs, env={"PATH": path})
    session.run("python", "cuda/twin_mix.py", "cuda/twin_mix.json", env={"PATH": path})


@nox.session(name="gpu-dry-run", venv_backend="virtualenv")
def gpu_dry_run(session: nox.Session) -> None:
    """Plan the GPU check and compile every CUDA twin for sm_90 with nvcc from PyPI; time nothing (optional).

    ``benchmarks/gpu/gpu_check.py --dry-run``: the same plan, budgets and model as on a GPU (the CUDA twins,
    the gallery's Triton kernels, and the validation rows' own kernels that fit the 8 minutes, with the
    model's prediction for the GPU), and the cubins and registers nvcc gives, in ``build/gpu-dry-run.json``
    and ``.md``. On a GPU machine run the script itself (``python benchmarks/gpu/gpu_check.py --json … --table …``).
    """
    session.install("-e", ".", *CUDA_PACKAGES)
    BUILD.mkdir(exist_ok=True)
    session.run("python", "benchmarks/gpu/gpu_check.py", "--dry-run", "--json", str(BUILD / "gpu-dry-run.json"),
                "--table", str(BUILD / "gpu-dry-run.md"), *session.posargs, env=ENV)
