"""Run every download of the built site as a reader would (run by ``nox -s downloads``).

    python tools/check_downloads.py build/html build/downloads

Run it with the Python of a fresh environment holding only the site's wheel and a notebook runner
(nbclient + ipykernel). For each language it unpacks the gallery's two download-all zips from the
built site into an empty folder, then executes every notebook (nbclient) and every script
(``python x.py`` in the script's folder, with no ``KERNELLAB_LANG`` and a C locale: a download must
choose its language itself; with warnings as errors). It checks that on the Chinese site the notebooks' text cells and
printed tables are Chinese, and on the English site that they are English. Exits 1 on any failure.

On Linux, each script and each notebook's kernel is a process forked
from one that has already imported the third-party libraries they import — numpy, matplotlib and
pyplot, IPython and ipykernel — from the same fresh environment, instead of a new interpreter that
imports them again: those imports were about two thirds of the check's CPU time. What the check
catches is unchanged: each download still runs in a process of its own, which has not imported
kernellab (it imports the site's wheel itself, in its own language: no ``KERNELLAB_LANG``, a C locale),
in the script's folder with only that folder and the environment's site-packages on ``sys.path``,
with warnings as errors for the scripts; numpy, matplotlib and pyplot are imported with warnings as
errors too, so a warning on their import fails every script as a fresh ``python x.py`` would, and a
failure to import them fails every download. ``KERNELLAB_DOWNLOADS_FRESH=1`` runs each download in a
new interpreter instead (``python x.py``, and jupyter_client's own kernel launch), as elsewhere.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import zipfile
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from multiprocessing import get_all_start_methods, get_context
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
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    km = _kernel_manager(path)
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
    done = _run_python(path, {**reader_env(), "PYTHONWARNINGS": "error"})
    if done.returncode:
        return [f"{path.name} ({lang}) exited {done.returncode}:\n{done.stderr[-3000:]}"]
    head = path.read_text(encoding="utf-8").split('"""')[0]
    problems = [] if "pip install" in head else [f"{path.name}: no install instructions in its header"]
    COUNTS[path] = f"{len(CJK.findall(done.stdout))} Chinese characters printed"
    return problems + check_language(lang, [], [], done.stdout, f"{lang}/{path.name} (script)")


# --- how a download's process is made: a new interpreter, or a fork of a preloaded one ---

# Linux only: on macOS a process that has loaded Apple's frameworks (numpy's Accelerate) is unsafe to fork.
FORKS = (sys.platform.startswith("linux") and "forkserver" in get_all_start_methods()
         and os.environ.get("KERNELLAB_DOWNLOADS_FRESH") != "1")
# What the downloads and their runner import from the environment, imported once by the fork server
# (kernellab is not among them: each download imports it itself, in its own language)
PRELOAD = ("numpy", "matplotlib", "matplotlib.pyplot", "IPython", "ipykernel.ipkernel", "ipykernel.kernelapp",
           "jupyter_client.manager", "nbformat", "nbclient")
# A script runs with warnings as errors: a warning on importing these fails it in a new interpreter.
STRICT_IMPORT = "import numpy, matplotlib, matplotlib.pyplot"
_IN_FORK = False  # True in a job process forked from the fork server
TOOLS = str(Path(__file__).resolve().parent)


class _Done:
    """What ``subprocess.run`` returns, for a script run in a forked process."""

    def __init__(self, returncode: int, stdout: str, stderr: str):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def _reap(pid: int, timeout: float) -> int:
    """Wait for child ``pid`` (killed after ``timeout`` seconds); its exit status as subprocess gives it."""
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            return -9
        time.sleep(0.01)


def _reader_sys_path(folder: Path) -> list[str]:
    """``sys.path`` as ``python x.py`` in ``folder`` has it: that folder, then the interpreter's own
    (this tools/ folder, which the fork server had first, left out)."""
    return [str(folder)] + [p for p in sys.path if p not in (TOOLS, "")]


def _run_python(path: Path, env: dict[str, str]):
    """``python path.name`` in the script's folder with environment ``env``: a new interpreter, or in a
    forked process (see the module's docstring). Returns (returncode, stdout, stderr) as subprocess.run."""
    if not _IN_FORK:
        return subprocess.run([sys.executable, path.name], cwd=path.parent, env=env, capture_output=True,
                              text=True, encoding="utf-8", timeout=900)
    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    path = path.resolve()  # __file__ as ``python x.py`` has it, and a path that holds after the chdir
    pid = os.fork()
    if pid == 0:  # the script's process: it never returns
        code = 1
        try:
            os.dup2(out.fileno(), 1)
            os.dup2(err.fileno(), 2)
            stdin = os.open(os.devnull, os.O_RDONLY)
            os.dup2(stdin, 0)
            os.chdir(path.parent)
            os.environ.clear()
            os.environ.update(env)
            import runpy
            import warnings

            sys.argv = [path.name]
            sys.path[:] = _reader_sys_path(path.parent)
            if env.get("PYTHONWARNINGS"):  # "error", as a new interpreter reads it at start-up
                sys.warnoptions[:] = [env["PYTHONWARNINGS"]]
                warnings.simplefilter(env["PYTHONWARNINGS"])
            runpy.run_path(str(path), run_name="__main__")
            code = 0
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
            if not isinstance(stop.code, (int, type(None))):
                print(stop.code, file=sys.stderr)
        except BaseException:
            traceback.print_exc()
        finally:
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except BaseException:
                    pass
            os._exit(code)
    returncode = _reap(pid, 900)
    texts = []
    for f in (out, err):
        f.seek(0)
        texts.append(f.read().decode("utf-8", errors="replace"))
        f.close()
    return _Done(returncode, *texts)


def _kernel_manager(path: Path):
    """A jupyter_client kernel manager for ``path``'s notebook (a local socket file, not TCP: no network,
    and no "running over TCP without encryption" warning). In a forked job process, its kernel is
    started at once, in a process forked from this one; otherwise nbclient starts it (a new interpreter)."""
    from jupyter_client.manager import KernelManager

    ip = str(path.with_suffix(".kernel"))
    if not _IN_FORK:
        return KernelManager(kernel_name="python3", transport="ipc", ip=ip)

    class ForkedKernel(KernelManager):
        """A kernel that is a forked process of this one, started by ``fork_kernel``. Polled, interrupted
        and killed through its process id; nbclient, given a manager with a kernel, starts none."""

        pid = None

        @property
        def has_kernel(self) -> bool:
            return self.pid is not None

        def _alive(self) -> bool:
            if self.pid is None:
                return False
            try:
                return os.waitpid(self.pid, os.WNOHANG)[0] == 0
            except ChildProcessError:
                return False

        def is_alive(self) -> bool:
            return self._alive()

        async def _async_is_alive(self) -> bool:
            return self._alive()

        def interrupt_kernel(self) -> None:
            if self._alive():
                os.kill(self.pid, 2)

        async def _async_interrupt_kernel(self) -> None:
            self.interrupt_kernel()

        def shutdown_kernel(self, now: bool = False, restart: bool = False) -> None:
            if self.pid is not None:
                if self._alive():
                    os.kill(self.pid, 9)
                    try:
                        os.waitpid(self.pid, 0)
                    except ChildProcessError:
                        pass
                self.pid = None
            self.cleanup_connection_file()
            self.cleanup_ipc_files()

        def fork_kernel(self, cwd: Path, env: dict[str, str]) -> None:
            self.write_connection_file()
            # the connection file and history as nbclient passes them, and the parent as jupyter_client's
            # launch gives it (JPY_PARENT_PID, read when ipykernel was imported): the kernel exits with it
            argv = ["-f", self.connection_file, "--HistoryManager.hist_file=:memory:",
                    f"--IPKernelApp.parent_handle={os.getpid()}"]
            pid = os.fork()
            if pid:
                self.pid = pid
                return
            code = 1
            try:  # the kernel's process, as jupyter_client launches one: its own session, its parent's pid
                os.setsid()
                stdin = os.open(os.devnull, os.O_RDONLY)
                os.dup2(stdin, 0)
                os.chdir(cwd)
                os.environ.clear()
                os.environ.update({**env, "JPY_PARENT_PID": str(os.getppid())})
                sys.argv = ["ipykernel_launcher", *argv]
                sys.path[:] = [p for p in sys.path if p not in (TOOLS, "")]  # as ipykernel_launcher has it
                from ipykernel import kernelapp

                kernelapp.launch_new_instance(argv=argv)
                code = 0
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else 1
            except BaseException:
                traceback.print_exc()
            finally:
                os._exit(code)

    km = ForkedKernel(kernel_name="python3", transport="ipc", ip=ip)
    km.fork_kernel(path.parent, reader_env())
    return km


def _forked_job(kind: str, path: Path, lang: str, sender) -> None:
    """A job process, forked from the preloaded server: run one download and send back its outcome."""
    global _IN_FORK
    _IN_FORK = True
    # sys.path as a new ``python tools/check_downloads.py`` has it: the fork server, a ``python -c``, had
    # the working folder (the repository) first, where this process would import the repository's
    # kernellab, not the wheel's, for the language checks
    sys.path[:] = [TOOLS] + [p for p in sys.path if p not in ("", TOOLS)]
    func = run_notebook if kind == "notebook" else run_script
    try:
        outcome = _timed((func, path, lang))
    except BaseException:
        outcome = (0.0, [f"{lang}/{path.name}: the check itself failed:\n{traceback.format_exc()[-3000:]}"], "", 0.0)
    sender.send(outcome)
    sender.close()


def _run_forked(jobs: list, workers: int) -> list[tuple[float, list[str], str, float]]:
    """Run ``jobs`` (``workers`` at a time), each in a process forked from one fork server that has
    imported ``PRELOAD``. Beside them, ``STRICT_IMPORT`` runs once in a new interpreter with warnings as
    errors: if it fails, every script fails with its output, as each would have on its own."""
    os.environ.clear()
    os.environ.update(reader_env())  # the fork server's environment when it imports, as each download's
    strict = subprocess.Popen([sys.executable, "-c", STRICT_IMPORT], env={**reader_env(), "PYTHONWARNINGS": "error"},
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, encoding="utf-8")
    ctx = get_context("forkserver")
    ctx.set_forkserver_preload(list(PRELOAD))
    starting = threading.Lock()

    def run(job) -> tuple[float, list[str], str, float]:
        func, path, lang = job
        receiver, sender = ctx.Pipe(duplex=False)
        kind = "notebook" if func.__name__ == "run_notebook" else "script"
        proc = ctx.Process(target=_forked_job, args=(kind, path, lang, sender))
        with starting:
            proc.start()
        sender.close()
        try:
            outcome = receiver.recv()
        except EOFError:
            proc.join()
            outcome = (0.0, [f"{lang}/{path.name}: the process that ran it died (exit code {proc.exitcode})"], "", 0.0)
        proc.join()
        return outcome

    with ThreadPoolExecutor(max_workers=workers) as pool:
        outcomes = list(pool.map(run, jobs))
    from multiprocessing import forkserver

    stop = getattr(forkserver._forkserver, "_stop", None)  # ends the server and waits for it (Python ≥ 3.8):
    if stop:  # its CPU time and its children's then count as this process's, as with new interpreters
        stop()
    output = strict.communicate()[0]
    if strict.returncode:
        outcomes = [(seconds, problems + ([f"{job[1].name} ({job[2]}): `{STRICT_IMPORT}` with warnings as errors "
                                           f"exited {strict.returncode}:\n{output[-3000:]}"]
                                          if job[0].__name__ == "run_script" else []), counts, cpu)
                    for job, (seconds, problems, counts, cpu) in zip(jobs, outcomes)]
    return outcomes


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its children that have ended."""
    import resource

    return sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
                                                  resource.getrusage(resource.RUSAGE_CHILDREN)))


def _timed(job) -> tuple[float, list[str], str, float]:
    """Run one download: its seconds, its problems, what its checks looked at, and its CPU seconds."""
    func, path, lang = job
    start, cpu = time.perf_counter(), _cpu_seconds()
    problems = func(path, lang)
    return time.perf_counter() - start, problems, COUNTS.get(path, ""), _cpu_seconds() - cpu


def main(argv: list[str]) -> int:
    import importlib.util

    site, work = Path(argv[0]).resolve(), Path(argv[1]).resolve()  # a kernel or a script changes folder
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
    # One run more at a time than the cores: a notebook's kernel spends a while starting and stopping
    # without using the CPU, which another run fills.
    workers = max(2, os.cpu_count() or 2) + 1
    if FORKS:
        outcomes = _run_forked(jobs, workers)
    else:
        # Processes, not threads: the notebook runner's own work (messages, validation) held the GIL, and
        # two threads ran at little more than one core. Spawned, as forking a process with threads is unsafe.
        with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
            outcomes = list(pool.map(_timed, jobs))
    results = [(f"{lang}/{path.relative_to(work / lang)} ({counts})", seconds, problems)
               for (_, path, lang), (seconds, problems, counts, _) in zip(jobs, outcomes)]
    problems = [p for _, _, ps in results for p in ps]
    for name, seconds, ps in results:
        print(f"{'FAIL' if ps else 'ok  '} {seconds:6.1f} s  {name}")
    print(f"{len(results) - sum(bool(ps) for _, _, ps in results)} passed, "
          f"{sum(bool(ps) for _, _, ps in results)} failed in {time.perf_counter() - start:.1f} s "
          f"({sum(o[3] for o in outcomes):.1f} CPU s, {'forked from a preloaded process' if FORKS else 'new interpreters'})")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
