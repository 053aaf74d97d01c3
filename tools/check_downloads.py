"""Run every download of the built site as a reader would (run by ``nox -s downloads``).

    python tools/check_downloads.py build/html build/downloads

Run it with the Python of a fresh environment holding only the site's wheel and a notebook runner
(nbclient + ipykernel). For each language it unpacks the gallery's two download-all zips from the
built site into an empty folder, then executes every notebook (nbclient) and every script
(``python x.py`` in the script's folder, with no ``KERNELLAB_LANG`` and a C locale: a download must
choose its language itself; with warnings as errors). It checks that on the Chinese site the notebooks' text cells and
printed tables are Chinese, and on the English site that they are English. Exits 1 on any failure.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

LANGS = ("en", "zh_CN")
CJK = re.compile(r"[\u4e00-\u9fff]")
LETTERS = re.compile(r"[A-Za-z]{3,}")
ZIPS = ("auto_examples_python.zip", "auto_examples_jupyter.zip")
COUNTS: dict[Path, str] = {}  # what each check looked at, for the report


def unpack(site: Path, lang: str, dest: Path) -> list[Path]:
    """The two download-all zips of ``lang``'s gallery, unpacked into an emptied ``dest``."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    found = []
    for name in ZIPS:
        matches = sorted((site / lang / "_downloads").rglob(name))
        if len(matches) != 1:
            raise SystemExit(f"{lang}: expected one {name} in the built site, found {len(matches)}")
        with zipfile.ZipFile(matches[0]) as z:
            z.extractall(dest)
        found.append(matches[0])
    return found


def english_paragraphs(text: str) -> list[str]:
    r"""The paragraphs of a text cell or block that have English words and no Chinese (code blocks,
    indented literal blocks and directives left out): on the Chinese site, untranslated text.

    >>> english_paragraphs("中文段落，with code。\n\nAn English one.\n\n```python\nx = 1\n```\n\n    literal")
    ['An English one.']
    """
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return [para.strip() for para in re.split(r"\n[ \t]*\n", text)
            if LETTERS.search(para) and not CJK.search(para) and not para.startswith(("    ", "\t", ".. "))]


def reader_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("KERNELLAB_", "LC_", "LANG", "PYTHONPATH", "VIRTUAL_ENV"))}
    return {**env, "LANG": "C.UTF-8", "MPLBACKEND": "Agg", "OPENBLAS_NUM_THREADS": "1", "PYTHONIOENCODING": "utf-8"}


def _table_headers(text: str) -> list[list[str]]:
    return [[html.unescape(re.sub(r"<[^>]+>", "", h)).strip() for h in re.findall(r"<th[^>]*>(.*?)</th>", t, re.S)]
            for t in re.findall(r'<table class="kernellab-table">.*?</table>', text, re.S)]


def check_language(lang: str, markdown: list[str], tables: list[list[str]], printed: str, name: str) -> list[str]:
    """What is wrong with one executed download's text, tables and printed output for ``lang``."""
    from kernellab.i18n import catalog

    problems = []
    if lang == "zh_CN":
        english = [para[:80] for m in markdown for para in english_paragraphs(m)]
        if english:
            problems.append(f"{name}: {len(english)} paragraphs not in Chinese, e.g. {english[0]!r}")
        zh = catalog("zh_CN")
        for headers in tables:
            if not any(CJK.search(h) for h in headers):
                problems.append(f"{name}: a table with no Chinese header: {headers}")
            untranslated = [h for h in headers if zh.get(h, h) != h]
            if untranslated:
                problems.append(f"{name}: English headers the catalog translates: {untranslated}")
        if not CJK.search(printed) and not tables:
            problems.append(f"{name}: prints no Chinese")
    else:
        chinese = [m[:60] for m in markdown if CJK.search(m)]
        if chinese:
            problems.append(f"{name}: Chinese text on the English site: {chinese[0]!r}")
        if any(CJK.search(h) for headers in tables for h in headers) or CJK.search(printed):
            problems.append(f"{name}: Chinese output on the English site")
    return problems


def run_notebook(path: Path, lang: str) -> list[str]:
    import nbformat
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    # a local socket file, not TCP: no network, and no "running over TCP without encryption" warning
    km = KernelManager(kernel_name="python3", transport="ipc", ip=str(path.with_suffix(".kernel")))
    try:
        NotebookClient(nb, km=km, timeout=900, resources={"metadata": {"path": str(path.parent)}}).execute(
            env=reader_env())
    except Exception as error:  # nbclient's CellExecutionError carries the traceback
        return [f"{path.name} ({lang}) failed:\n{str(error)[-3000:]}"]
    finally:  # nbclient leaves a kernel it was given running: it idled until this process exited
        if km.has_kernel:
            km.shutdown_kernel(now=True)
    nbformat.write(nb, path)  # executed, to look at
    markdown = [c.source for c in nb.cells if c.cell_type == "markdown"]
    first = nb.cells[0]
    problems = []
    if first.cell_type != "code" or "find_spec(\"kernellab\")" not in first.source:
        problems.append(f"{path.name}: the first cell does not install kernellab")
    if lang != "en" and f'os.environ["KERNELLAB_LANG"] = "{lang}"' not in first.source:
        problems.append(f"{path.name}: the first cell does not set KERNELLAB_LANG")
    tables, printed = [], []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream":
                printed.append(out.get("text", ""))
            data = out.get("data", {})
            tables += _table_headers(data.get("text/html", ""))
            printed.append(data.get("text/plain", ""))
    COUNTS[path] = f"{len(markdown)} text cells, {len(tables)} tables"
    return problems + check_language(lang, markdown, tables, "".join(printed), f"{lang}/{path.name}")


def run_script(path: Path, lang: str) -> list[str]:
    # Warnings are errors, as in tests/test_gallery.py: the default nox run leaves that test to this check
    # (an English download is the gallery script under a header) and to the strict docs build.
    done = subprocess.run([sys.executable, path.name], cwd=path.parent, env={**reader_env(), "PYTHONWARNINGS": "error"},
                          capture_output=True, text=True, encoding="utf-8", timeout=900)
    if done.returncode:
        return [f"{path.name} ({lang}) exited {done.returncode}:\n{done.stderr[-3000:]}"]
    head = path.read_text(encoding="utf-8").split('"""')[0]
    problems = [] if "pip install" in head else [f"{path.name}: no install instructions in its header"]
    COUNTS[path] = f"{len(CJK.findall(done.stdout))} Chinese characters printed"
    return problems + check_language(lang, [], [], done.stdout, f"{lang}/{path.name} (script)")


def _timed(job) -> tuple[float, list[str], str]:
    """Run one download: its seconds, its problems, and what its checks looked at."""
    func, path, lang = job
    start = time.perf_counter()
    problems = func(path, lang)
    return time.perf_counter() - start, problems, COUNTS.get(path, "")


def main(argv: list[str]) -> int:
    import importlib.util

    site, work = Path(argv[0]), Path(argv[1])
    if importlib.util.find_spec("noto_cjk_sans_otc") is not None:  # the wheel must not pull the 15.5 MB font
        print("the site's wheel installed the full CJK font: it belongs to the kernellab[cjk] extra only")
        return 1
    jobs = []
    for lang in LANGS:
        dest = work / lang
        unpack(site, lang, dest)
        notebooks, scripts = sorted(dest.rglob("*.ipynb")), sorted(dest.rglob("*.py"))
        if not notebooks or len(notebooks) != len(scripts):
            print(f"{lang}: {len(notebooks)} notebooks and {len(scripts)} scripts in the zips")
            return 1
        jobs += [(run_notebook, p, lang) for p in notebooks] + [(run_script, p, lang) for p in scripts]

    start = time.perf_counter()
    # Processes, not threads: the notebook runner's own work (messages, validation) held the GIL, and
    # two threads ran at little more than one core. Spawned, as forking a process with threads is unsafe.
    # One worker more than the cores: a notebook's kernel spends about 0.3 s starting and stopping
    # without using the CPU, which another worker's run fills.
    with ProcessPoolExecutor(max_workers=max(2, os.cpu_count() or 2) + 1, mp_context=get_context("spawn")) as pool:
        results = [(f"{lang}/{path.relative_to(work / lang)} ({counts})", seconds, problems)
                   for (_, path, lang), (seconds, problems, counts) in zip(jobs, pool.map(_timed, jobs))]
    problems = [p for _, _, ps in results for p in ps]
    for name, seconds, ps in results:
        print(f"{'FAIL' if ps else 'ok  '} {seconds:6.1f} s  {name}")
    print(f"{len(results) - sum(bool(ps) for _, _, ps in results)} passed, "
          f"{sum(bool(ps) for _, _, ps in results)} failed in {time.perf_counter() - start:.1f} s")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
