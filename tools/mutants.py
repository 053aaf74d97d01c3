"""A small mutation tester: plant plausible one-line bugs in kernellab, one at a time, and count the kills.

Each mutant changes one operator or constant on one line of a target module (``+`` ↔ ``-``, ``<`` ↔
``<=``, ``and`` ↔ ``or``, ``min`` ↔ ``max``, ``.any()`` ↔ ``.all()``, an integer ``n`` → ``n + 1``,
``True`` ↔ ``False``, dropping a ``not``). The fast tests then run against a scratch copy of the
repository with that one change; a mutant is *killed* when they fail (or time out). A survivor is either
a behaviour no test checks (a gap: add a test) or an *equivalent* mutant, one no test could tell apart
(listed with the reason in ``tools/mutants_equivalent.toml``, by its module, its line's text, its change and, where the
line holds several mutants with that change, which: ``occurrence``, counted from the left, as a run prints it). The
kill rate of a module is killed ÷ (mutants − equivalent ones).

The target modules are those that decide a number (:data:`TARGETS`): the access record, both engines'
counting and fast paths, the layout and compiled-count rules, the model, per-line counts and the report.
They hold thousands of mutants; a run draws a seeded random sample of ``--sample`` of each module's (the
same sample for the same seed and source) and can be split into shards run one at a time
(``--shard 2/5``). Each group of modules run together (its targets, seed and sample) keeps each shard's
results in a file of its own in ``build/mutants/``, so groups run one after another all stay;
``--summary`` prints the kill rate per module over every group's files whose module is as it is now (a
result of a module edited since is left out, and said so).

How a mutant is run: the tests that execute its line (found once per state of the sources by a run of the
fast tests under coverage.py with a context per test, ``build/mutants/contexts.json``; kernellab's
``functools`` caches are emptied before each test there, so that a cached function's lines count for every
test that calls it, ``tools/mutants_contexts.py``; a line run in a test's setup also selects that test's whole file,
for a fixture of module scope runs in the first test's setup only), those of the module's
own test files first, stopping at the first failure. Only they can see the change: a test that does not
execute the line runs exactly as before. So a mutant they kill is killed by the fast tests, and one they leave
alive survives them — except where the line also runs at import (a module constant: then the whole of the
fast tests run) or in a process a test starts (the CLI's), which the contexts do not see: ``--confirm`` runs
every survivor against the whole of the fast tests. A line no test executes survives without a run.

Every mutant runs in one scratch copy of the whole source tree (``tools/stamps.py``'s ``source_files``: all but
the build folders and caches), since the tests read files outside kernellab/ and tests/ (README.md, CHANGELOG.md,
LICENSE, the docs). A kill counts only once the test that made it is seen to pass in that copy without the mutant
(once per test): a test that fails there unmutated stops the run, naming it, for a kill by it proves nothing.

Usage::

    python tools/mutants.py --list                        # the sample, run nothing
    python tools/mutants.py --shard 1/8                   # run the first of eight shards of the sample
    python tools/mutants.py --summary                     # kill rate per module over every group's shards run
    python tools/mutants.py --rerun                       # the survivors of every shard again (after adding tests)
    python tools/mutants.py --rerun --confirm             # … each against the whole of the fast tests
    python tools/mutants.py kernellab/access.py --sample 0   # every mutant of one module

Messages inside ``raise`` and docstrings are not mutated. The repository itself is never modified.
"""

from __future__ import annotations

import argparse
import ast
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from stamps import source_files

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "mutants"
EQUIVALENT = ROOT / "tools" / "mutants_equivalent.toml"
PLUGIN = ROOT / "tools" / "mutants_contexts.py"  # the coverage run's plugin: kernellab's caches emptied before each test

#: The modules that decide a number: the access record and the counters, the SIMT engine's counting and
#: fast paths, the mini-Triton's counts, loads and stores (its offset form), pipelined loops and sampled
#: launches, the compiler's layout, conversion and instruction rules, the performance model, per-line counts,
#: the profiler's report, its metrics and tables.
TARGETS = [
    "kernellab/access.py", "kernellab/counters.py",
    "kernellab/simt/block.py", "kernellab/simt/lanes.py", "kernellab/simt/memory.py", "kernellab/simt/shifts.py",
    "kernellab/simt/tally.py",
    "kernellab/triton/executor/counts.py", "kernellab/triton/executor/memory.py", "kernellab/triton/executor/view.py",
    "kernellab/triton/executor/loops.py", "kernellab/triton/executor/sampling.py",
    "kernellab/triton/compiler/*.py",
    "kernellab/model/*.py",
    "kernellab/lines.py", "kernellab/profile.py", "kernellab/metrics.py", "kernellab/tables.py",
]
SAMPLE = 40  # mutants drawn per module
SEED = 37
# the fast tests: everything pytest collects except the gallery scripts, the built-site and conformance checks
TESTS = ["tests", "kernellab", "-m", "not gallery", "--ignore=tests/site", "--ignore=tests/conformance",
         "--ignore=tests/test_bench.py"]

BINOPS = {ast.Add: ("+", "-"), ast.Sub: ("-", "+"), ast.Mult: ("*", "/"), ast.Div: ("/", "*"),
          ast.FloorDiv: ("//", "*"), ast.Mod: ("%", "//"), ast.Pow: ("**", "*"), ast.RShift: (">>", "<<"),
          ast.LShift: ("<<", ">>"), ast.BitAnd: ("&", "|"), ast.BitOr: ("|", "&")}
CMPOPS = {ast.Lt: ("<", "<="), ast.LtE: ("<=", "<"), ast.Gt: (">", ">="), ast.GtE: (">=", ">"),
          ast.Eq: ("==", "!="), ast.NotEq: ("!=", "=="), ast.In: ("in", "not in"), ast.NotIn: ("not in", "in"),
          ast.Is: ("is", "is not"), ast.IsNot: ("is not", "is")}
SWAP_NAMES = {"min": "max", "max": "min", "any": "all", "all": "any", "minimum": "maximum", "maximum": "minimum",
              "ceil": "floor", "floor": "ceil"}


@dataclass(frozen=True)
class Mutant:
    path: str  # relative to the repository
    line: int  # 1-based
    start: int  # byte offset of the replaced span in the file
    end: int
    new: bytes
    what: str  # e.g. "< → <="
    stmt: int = 0  # the first line of the statement that holds it (coverage.py records a statement there)
    nth: int = 1  # which of its line's mutants with this change it is, counted from the left (1-based)
    of: int = 1  # how many mutants with this change its line has

    def apply(self, source: bytes) -> bytes:
        return source[: self.start] + self.new + source[self.end :]

    def text(self, source: bytes) -> str:
        """The mutated line as the source has it (stripped): with ``what``, what names a mutant across edits
        that move it to another line."""
        return source.splitlines()[self.line - 1].decode().strip()

    def show(self, source: bytes) -> str:
        return f"{self.path}:{self.line}: {self.what}{_which(self.nth, self.of)}    | {self.text(source)}"


def _which(nth: int, of: int) -> str:
    """How a mutant is told from the others with its change on its line: `` (2nd of 2 on the line)``, or '' when
    it is the only one (what an equivalents entry's ``occurrence`` names)."""
    if of <= 1:
        return ""
    suffix = "th" if 10 <= nth % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(nth % 10, "th")
    return f" ({nth}{suffix} of {of} on the line)"


def _offsets(source: bytes) -> list[int]:
    starts, pos = [], 0
    for line in source.splitlines(keepends=True):
        starts.append(pos)
        pos += len(line)
    return starts


def _skipped(tree: ast.AST) -> set[int]:
    """Nodes not to mutate: exception messages, docstrings, decorators, annotations, f-strings, ``__all__``."""
    skip: set[int] = set()

    def mark(node):
        for n in ast.walk(node):
            skip.add(id(n))

    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            call = node.exc
            if isinstance(call, ast.Call):
                for a in [*call.args, *(k.value for k in call.keywords)]:
                    mark(a)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
            for d in getattr(node, "decorator_list", []):  # @dataclass(frozen=True) and the like
                mark(d)
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
                mark(body[0])
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for a in [*node.args.args, *node.args.kwonlyargs, *node.args.posonlyargs]:
                    if a.annotation is not None:
                        mark(a.annotation)
                if node.returns is not None:
                    mark(node.returns)
        elif isinstance(node, ast.AnnAssign):
            mark(node.annotation)
        elif isinstance(node, ast.JoinedStr):
            mark(node)
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            mark(node)
    return skip


def mutants_of(path: str) -> list[Mutant]:
    """Every one-line mutant of the module at ``path`` (relative to the repository)."""
    source = (ROOT / path).read_bytes()
    tree = ast.parse(source)
    starts = _offsets(source)
    skip = _skipped(tree)
    out: list[Mutant] = []
    statement = {}  # id(node) → the first line of the innermost statement holding it
    for st in ast.walk(tree):
        if isinstance(st, ast.stmt):
            for child in ast.iter_child_nodes(st):
                if not isinstance(child, ast.stmt):
                    for n in ast.walk(child):
                        if not isinstance(n, ast.stmt):
                            statement[id(n)] = st.lineno

    def pos(lineno, col):
        return starts[lineno - 1] + col

    def mutant(node, line, lo, hi, new: bytes, what: str):
        out.append(Mutant(path, line, lo, hi, new, what, statement.get(id(node), line)))

    def between(a: ast.AST, b: ast.AST, old: str, new: str, line: int, node):
        lo, hi = pos(a.end_lineno, a.end_col_offset), pos(b.lineno, b.col_offset)
        seg = source[lo:hi]
        words = seg.replace(b"(", b" ").replace(b")", b" ").split()
        if b" ".join(words) != old.encode():
            return
        i = seg.find(old.split()[0].encode())
        j = seg.rfind(old.split()[-1].encode()) + len(old.split()[-1])
        mutant(node, line, lo + i, lo + j, new.encode(), f"{old} → {new}")

    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.BinOp) and type(node.op) in BINOPS:
            old, new = BINOPS[type(node.op)]
            between(node.left, node.right, old, new, node.lineno, node)
        elif isinstance(node, ast.AugAssign) and type(node.op) in BINOPS:
            old, new = BINOPS[type(node.op)]
            between(node.target, node.value, old + "=", new + "=", node.lineno, node.target)
        elif isinstance(node, ast.Compare):
            left = node.left
            for op, right in zip(node.ops, node.comparators):
                if type(op) in CMPOPS:
                    old, new = CMPOPS[type(op)]
                    between(left, right, old, new, right.lineno, node)
                left = right
        elif isinstance(node, ast.BoolOp):
            old, new = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
            between(node.values[0], node.values[1], old, new, node.values[1].lineno, node)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
            lo, hi = pos(node.lineno, node.col_offset), pos(node.operand.lineno, node.operand.col_offset)
            sym = "not" if isinstance(node.op, ast.Not) else "-"
            if source[lo:hi].strip() == sym.encode():
                mutant(node, node.lineno, lo, hi, b"", f"drop {sym}")
        elif isinstance(node, ast.Constant) and type(node.value) is int and node.lineno == node.end_lineno:
            lo, hi = pos(node.lineno, node.col_offset), pos(node.end_lineno, node.end_col_offset)
            mutant(node, node.lineno, lo, hi, str(node.value + 1).encode(), f"{node.value} → {node.value + 1}")
        elif isinstance(node, ast.Constant) and type(node.value) is bool:
            lo, hi = pos(node.lineno, node.col_offset), pos(node.end_lineno, node.end_col_offset)
            mutant(node, node.lineno, lo, hi, str(not node.value).encode(), f"{node.value} → {not node.value}")
        elif isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            if name in SWAP_NAMES:
                hi = pos(f.end_lineno, f.end_col_offset)
                mutant(node, f.end_lineno, hi - len(name), hi, SWAP_NAMES[name].encode(), f"{name} → {SWAP_NAMES[name]}")
    found = sorted(set(out), key=lambda m: (m.path, m.start, m.what))
    alike: dict = {}  # (line, change) → its mutants from the left: which one each is (an equivalents entry's occurrence)
    for m in found:
        alike.setdefault((m.line, m.what), []).append(m)
    rank = {id(m): (k, len(ms)) for ms in alike.values() for k, m in enumerate(ms, 1)}
    return [replace(m, nth=rank[id(m)][0], of=rank[id(m)][1]) for m in found]


def sample_of(path: str, n: int, seed: int) -> list[Mutant]:
    """``n`` mutants of ``path`` drawn at random (all when it has fewer, or ``n`` is 0), in file order.

    The draw ranks each mutant by a hash of the seed, the module, its line's text, its change and its rank
    among equal ones, and keeps the ``n`` first: the same mutants for the same seed and source, and an edit
    elsewhere in the module (or in another module) leaves the other lines' mutants in or out of the sample.
    """
    every = mutants_of(path)
    if not n or n >= len(every):
        return every
    source = (ROOT / path).read_bytes()
    seen: dict = {}
    ranked = []
    for m in every:
        name = (m.text(source), m.what)
        seen[name] = seen.get(name, -1) + 1
        digest = hashlib.sha256(f"{seed}\0{path}\0{name[0]}\0{name[1]}\0{seen[name]}".encode()).hexdigest()
        ranked.append((digest, m))
    kept = {id(m) for _d, m in sorted(ranked, key=lambda dm: dm[0])[:n]}
    return [m for m in every if id(m) in kept]


# --- which tests execute a line ----------------------------------------------------------------------

def _tree_hash(*folders: str) -> str:
    """A hash of every Python file under ``folders`` (and the test settings): what the contexts depend on."""
    digest = hashlib.sha256()
    files = [p for f in folders for p in sorted((ROOT / f).rglob("*.py")) if "__pycache__" not in p.parts]
    for p in [*files, ROOT / "pyproject.toml", ROOT / "conftest.py"]:
        digest.update(str(p.relative_to(ROOT)).encode() + b"\0" + p.read_bytes())
    return digest.hexdigest()


def contexts(paths: list[str], quiet: bool = False) -> dict:
    """``{path: {line: [test ids]}}``: the fast tests that execute each line of ``paths`` (ids as pytest
    names them); ``""`` among a line's ids when it also runs outside any test (at import). Made by one run
    of the fast tests under coverage.py with a context per test, kept in ``build/mutants/contexts.json``
    while kernellab/ and tests/ are unchanged."""
    cache = OUT / "contexts.json"
    key = _tree_hash("kernellab", "tests") + hashlib.sha256(PLUGIN.read_bytes()).hexdigest()[:8] + CONTEXTS_FORM
    if cache.exists():
        got = json.loads(cache.read_text())
        if got.get("key") == key:
            return _lines_of(got, paths)
    OUT.mkdir(parents=True, exist_ok=True)
    rc = OUT / "coveragerc"  # the project's settings, but in-process only and a data file of its own
    rc.write_text(f"[run]\nbranch = false\nsource = kernellab\ndata_file = {OUT / 'contexts.coverage'}\n")
    if not quiet:
        print("finding which tests execute each line: the fast tests under coverage.py (a few minutes)", flush=True)
    # with tools/mutants_contexts.py, which empties kernellab's caches before each test (a cached function's
    # lines are then credited to every test that calls it)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", PLUGIN.stem, "--cov",
           f"--cov-config={rc}", "--cov-context=test", "--cov-report=",
           *(["-n", "2"] if (os.cpu_count() or 1) >= 2 else []), *TESTS]
    env = _env(ROOT, pycache=OUT / "pycache")
    env["PYTHONPATH"] += os.pathsep + str(PLUGIN.parent)
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("the fast tests fail without any mutant: fix them first\n" + done.stdout[-3000:])
    from coverage import CoverageData

    data = CoverageData(str(OUT / "contexts.coverage"))
    data.read()
    tests: dict = {}  # test id → its number in the file
    lines: dict = {}
    for f in data.measured_files():
        rel = str(Path(f).resolve().relative_to(ROOT))
        lines[rel] = {n: sorted({tests.setdefault(t, len(tests)) for c in cs for t in _selectors(c)})
                      for n, cs in data.contexts_by_lineno(f).items()}
    got = {"key": key, "tests": list(tests), "lines": lines}
    cache.write_text(json.dumps(got))
    return _lines_of(json.loads(json.dumps(got)), paths)


CONTEXTS_FORM = "files-of-setups"  # in the contexts' key: a cache of an older form is made again


def _selectors(context: str) -> list[str]:
    """The tests that a coverage.py context (``"<test id>|<phase>"``, pytest-cov's) says execute a line: that test,
    and for a line run in a test's setup, its whole file too. A fixture of module (or class) scope runs once, in the
    setup of the first test of the file that asks for it: its lines are credited to that test only, while the file's
    later tests read what it made. A mutant there that only a later test sees (tests/test_model_estimate_keys.py's
    module fixture: bounds.py's ``estimate_band``) was run against the first test alone and "survived"."""
    test, _, phase = context.partition("|")
    return [test, test.split("::", 1)[0]] if phase == "setup" and "::" in test else [test]


def _lines_of(got: dict, paths: list[str]) -> dict:
    names = got["tests"]
    return {p: {int(n): [names[i] for i in ids] for n, ids in got["lines"].get(p, {}).items()} for p in paths}


def _first_files(path: str) -> list[str]:
    """The test files most likely to kill a mutant of ``path``: its own, run first."""
    stem = Path(path).stem
    return [f"tests/test_{stem}", f"tests/test_model_{stem}", f"tests/test_triton_{stem}",
            f"tests/test_fastpath_{stem}", f"tests/test_laws_{stem}"]


def _own_files(path: str, where: Path) -> list[str]:
    """The test files of :func:`_first_files` that exist in ``where`` (for a line no test context names)."""
    return sorted(str(f.relative_to(where)) for prefix in _first_files(path)
                  for f in (where / Path(prefix).parent).glob(Path(prefix).name + "*.py"))


def _selected(m: Mutant, lines: dict) -> tuple[list[str], bool]:
    """``(ids, at_import)``: the ids of the tests that execute ``m``'s line, its module's own first, and whether
    the line also runs outside any test (at import: then only the whole of the fast tests can show it alive)."""
    ids = lines.get(m.stmt, [])
    first = _first_files(m.path)
    return (sorted((t for t in ids if t), key=lambda t: (not t.startswith(tuple(first)), not t.startswith(m.path))),
            "" in ids)


# --- running a mutant --------------------------------------------------------------------------------

def _env(where: Path, pycache: Path | None) -> dict:
    """The tests' environment: ``where`` first on the path (its kernellab shadows the installed one), bytecode
    written (the caller's PYTHONDONTWRITEBYTECODE is not passed on) and cached between mutants: under ``pycache``,
    or with ``None`` beside each source, in its own ``__pycache__``."""
    env = {"KERNELLAB_LANG": "en", "MPLBACKEND": "Agg", "OPENBLAS_NUM_THREADS": "1", "PATH": "/usr/bin:/bin",
           "PYTHONPATH": str(where), "HOME": os.environ.get("HOME", "/tmp")}
    if pycache is not None:
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def _scratch() -> Path:
    """A copy of every file of the source tree (``source_files``: the build folders and caches left out): the tests
    read README.md, CHANGELOG.md, LICENSE and the docs too, and a copy of chosen folders failed them unmutated."""
    tmp = Path(tempfile.mkdtemp(prefix="kernellab-mutants-"))
    for src in source_files(ROOT):
        dst = tmp / src.relative_to(ROOT)
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
    return tmp


def _failed(output: str) -> str:
    """The first test pytest's summary names as failed (or in error) in ``output``, '' if none."""
    for line in output.splitlines():
        if line.startswith(("FAILED ", "ERROR ")):
            return line.split(" ", 1)[1].split(" - ", 1)[0]
    return ""


def _pytest(where: Path, timeout: float, tests: list[str] | None = None) -> tuple[str, str]:
    """``(result, test)``: 'pass', 'fail' or 'timeout' of ``tests`` (default: the fast tests) run in ``where``,
    stopping at the first failure, and the test that failed ('' if none): a kill can be checked by hand."""
    args = [*tests, "-m", "not gallery"] if tests is not None else TESTS  # a whole file (a setup's) may hold some
    argfile = where / ".mutant-tests"
    argfile.write_text("\n".join(args) + "\n")  # pytest reads its arguments from a file: thousands of ids
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", f"@{argfile}"]
    try:
        # bytecode beside the sources: the copy's in the copy, the environment's packages' in their own __pycache__,
        # compiled by the first run and reused by every later one (a prefix inside each new copy recompiled pytest,
        # hypothesis and numpy for each copy: a tiny repository's first run 2.35 CPU s against 0.51)
        proc = subprocess.run(cmd, cwd=where, env=_env(where, None), capture_output=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", ""
    return ("pass", "") if proc.returncode == 0 else ("fail", _failed(proc.stdout.decode(errors="replace")))


def run_one(m: Mutant, where: Path, source: bytes, lines: dict, timeout: float, stamp: int,
            confirm: bool = False, proven: set | None = None) -> tuple[str, str]:
    """``(result, how)`` of one mutant in the scratch copy ``where``: result 'killed' or 'survived'; how it was
    decided: 'covering tests' (those that execute its line), 'own tests' (for a line run at import only: its module's
    test files, or the tests of its other lines), 'fast tests' (all of them: for a line also run at import, or with
    ``confirm``), 'no test runs it' (a line no fast test executes in its own process), 'timeout'; a kill names the
    test that failed after a colon. A kill is checked: the test that made it must pass in ``where`` without the
    mutant (once per test: ``proven`` holds those seen to pass), else the run stops (:func:`_unmutated_passes`).
    """
    result, how = _planted(m, where, source, lines, timeout, stamp, confirm)
    test = how.partition(": ")[2]
    if result == "killed" and test and test not in (proven if proven is not None else ()):
        _unmutated_passes(where, test, timeout)
        if proven is not None:
            proven.add(test)
    return result, how


def _unmutated_passes(where: Path, test: str, timeout: float) -> None:
    """Stop (SystemExit) unless ``test`` passes in the scratch copy ``where`` as it is, without any mutant."""
    result, _ = _pytest(where, timeout, [test])
    if result != "pass":
        sys.exit(f"{test} fails in the scratch copy without any mutant ({result}): a kill by it proves nothing. "
                 f"Does the copy lack a file it reads? Fix that (or the test) and run again.")


def _planted(m: Mutant, where: Path, source: bytes, lines: dict, timeout: float, stamp: int,
             confirm: bool) -> tuple[str, str]:
    """:func:`run_one`'s result with ``m`` planted in ``where``, before its kill is checked."""
    chosen, at_import = _selected(m, lines)
    if not chosen and not at_import and not confirm:
        return "survived", "no test runs it"
    target = where / m.path
    mtime = target.stat().st_mtime_ns
    try:
        target.write_bytes(m.apply(source))
        # a new modification time, so that no bytecode cached for another version of the file is taken for it
        os.utime(target, ns=(mtime + stamp * 10**9, mtime + stamp * 10**9))
        if chosen:
            first, test = _pytest(where, timeout, chosen)
            if first != "pass":
                return "killed", "timeout" if first == "timeout" else f"covering tests: {test}"
            if not (confirm or at_import):
                return "survived", "covering tests"
        # a line run at import only (a default, a constant): first the module's own test files, else up to 300
        # tests that run its other lines; a failure there is a failure of the fast tests too
        own = _own_files(m.path, where) or sorted({t for ids in lines.values() for t in ids if t})[:300]
        if at_import and own and not chosen:
            first, test = _pytest(where, timeout, own)
            if first != "pass":
                return "killed", "timeout" if first == "timeout" else f"own tests: {test}"
        full, test = _pytest(where, timeout * 3)
        return ("survived", "fast tests") if full == "pass" else \
            ("killed", "timeout" if full == "timeout" else f"fast tests: {test}")
    finally:
        target.write_bytes(source)
        os.utime(target, ns=(mtime, mtime))


# --- shards, results and the summary -----------------------------------------------------------------

def _paths(targets: list[str]) -> list[str]:
    found = sorted({str(Path(p).relative_to(ROOT)) for t in targets for p in glob.glob(str(ROOT / t))})
    return [p for p in found if not p.endswith("__init__.py") or (ROOT / p).stat().st_size > 200]


def _sources_key(paths: list[str], seed: int, sample: int) -> str:
    digest = hashlib.sha256(f"{seed}:{sample}".encode())
    for p in paths:
        digest.update(p.encode() + b"\0" + (ROOT / p).read_bytes())
    return digest.hexdigest()[:16]


def _equivalents() -> list[dict]:
    """The survivors classified as equivalent (``tools/mutants_equivalent.toml``), each with its reason."""
    if not EQUIVALENT.exists():
        return []
    import tomllib

    return tomllib.loads(EQUIVALENT.read_text(encoding="utf-8")).get("equivalent", [])


def _is_equivalent(r: dict, known: list[dict]) -> dict | None:
    """The entry of ``known`` that names the mutant of result ``r``: its module, its line's text and its change, and
    where the entry says ``occurrence = n``, the n-th mutant with that change on the line, counted from the left (a
    line ``a << 15 | b << 8`` has two ``<< → >>``; ``occurrence = [1, 2]`` names both; an entry without one names every
    such mutant of its line, which :func:`ambiguous` reports where there are several)."""
    for e in known:
        if e["module"] == r["path"] and e["mutation"] == r["what"] and e["line"] == r["text"] and \
                r.get("nth", 1) in _occurrences(e, r.get("nth", 1)):
            return e
    return None


def _occurrences(entry: dict, default: int) -> list[int]:
    """The mutants of its line an equivalents entry names: ``occurrence = 2`` or ``occurrence = [1, 2]`` (which of
    the line's mutants with its change, from the left); without one, ``[default]`` (any)."""
    occ = entry.get("occurrence", default)
    return list(occ) if isinstance(occ, list) else [occ]


def _with_nth(r: dict, found: dict) -> dict:
    """Result ``r`` with its ``nth`` and ``of`` (which of its line's mutants with its change it is): a result file
    written before they were kept lacks them; its module is as it ran (the summary reads no other), so its mutants
    now (``found``: path → {(start, change): Mutant}, filled as needed) are those it ran."""
    if "nth" in r:
        return r
    if r["path"] not in found:
        found[r["path"]] = {(m.start, m.what): m for m in mutants_of(r["path"])}
    m = found[r["path"]].get((r["start"], r["what"]))
    return {**r, "nth": m.nth if m else 1, "of": m.of if m else 1}


def ambiguous(known: list[dict]) -> list[str]:
    """The entries of ``known`` that do not name one mutant each of their line's mutants with their change: without an
    ``occurrence`` where the line holds several (they would name every one), or with one the line does not have. Each
    is given as ``module: line (change, n on the line)``."""
    out, found = [], {}
    for e in known:
        if not (ROOT / e["module"]).exists():
            continue
        if e["module"] not in found:
            found[e["module"]] = mutants_of(e["module"])
        lines = (ROOT / e["module"]).read_bytes().splitlines()
        n = max((m.of for m in found[e["module"]] if m.what == e["mutation"] and
                 lines[m.line - 1].decode().strip() == e["line"]), default=0)
        if n and ("occurrence" not in e and n > 1 or not all(1 <= k <= n for k in _occurrences(e, 1))):
            out.append(f"{e['module']}: {e['line']} ({e['mutation']}, {n} on the line)")
    return out


def _group(paths: list[str], seed: int, sample: int) -> str:
    """The name of a group's result files: a hash of its modules, seed and sample size (not of the sources:
    a rerun after an edit writes over the group's own files and no other group's)."""
    return hashlib.sha256(f"{seed}:{sample}:{chr(0).join(sorted(paths))}".encode()).hexdigest()[:12]


def _module_hash(path: str) -> str | None:
    """A hash of the module at ``path`` as it is now (None where it is gone)."""
    file = ROOT / path
    return hashlib.sha256(file.read_bytes()).hexdigest()[:16] if file.exists() else None


def _record(m: Mutant, source: bytes, result: str, how: str) -> dict:
    """One mutant's result as a result file keeps it."""
    return {**asdict(m), "new": m.new.decode(), "id": f"{m.path}:{m.start}:{m.what}", "text": m.text(source),
            "result": result, "how": how}


def save(paths: list[str], seed: int, sample: int, shard: tuple[int, int], key: str, results: list[dict]) -> Path:
    """Write one shard's ``results`` of the group ``paths`` (with ``seed`` and ``sample``) to its own file,
    ``build/mutants/group-<name>-shard-<i>-of-<n>.json`` (:func:`_group`), with a hash of each module as it
    was run; returns the file."""
    si, sn = shard
    OUT.mkdir(parents=True, exist_ok=True)
    file = OUT / f"group-{_group(paths, seed, sample)}-shard-{si}-of-{sn}.json"
    file.write_text(json.dumps({"key": key, "group": _group(paths, seed, sample), "targets": sorted(paths),
                                "modules": {p: _module_hash(p) for p in paths}, "seed": seed, "sample": sample,
                                "shard": si, "shards": sn, "time": time.time(), "results": results}, indent=1))
    return file


def _result_files() -> list[dict]:
    """Every group's shard files in ``build/mutants``, oldest first."""
    return sorted((_read(p) for p in OUT.glob("group-*-shard-*.json")), key=lambda s: s["time"])


def summary(paths: list[str] | None = None) -> int:
    """Print the kill rate per module (of ``paths``; None: every module any group ran) over every group's shard
    files in ``build/mutants`` whose module is unchanged since (where groups share a mutant, the newest
    result); 1 when a module is below 90 % of its non-equivalent mutants."""
    files = _result_files()
    now: dict = {}
    results: dict = {}  # id → result, newer files last
    stale = 0
    groups: dict = {}  # group → (seed, sample, shards, shards run)
    for f in files:
        used = False
        for r in f["results"]:
            p = r["path"]
            if paths is not None and p not in paths:
                continue
            if p not in now:
                now[p] = _module_hash(p)
            if f["modules"].get(p) != now[p]:
                stale += 1
                continue
            results[r["id"]] = r
            used = True
        if used:
            g = groups.setdefault(f["group"], (f["seed"], f["sample"], f["shards"], set(), f["targets"]))
            g[3].add(f["shard"])
    if not results:
        print("no shard of these modules has run on their sources as they are: python tools/mutants.py --shard 1/N")
        return 1
    known = _equivalents()
    found: dict = {}
    results = {i: _with_nth(r, found) for i, r in results.items()}
    by_module: dict = {}
    for r in results.values():
        by_module.setdefault(r["path"], []).append(r)
    print()
    for name, (seed, sample, n, have, targets) in groups.items():
        print(f"group {name}: {len(targets)} modules, seed {seed}, {sample or 'all'} a module; shards {sorted(have)} "
              f"of {n} run" + ("" if len(have) == n else " (not all: the rates are of the shards run)"))
    if stale:
        print(f"{stale} results of modules edited since they ran left out (run their groups again)")
    width = max(len(p) for p in by_module)
    print(f"{'module':{width}}  mutants  killed  equivalent  survived  kill rate (of non-equivalent)")
    low = False
    gaps = []
    for path in sorted(by_module):
        rs = by_module[path]
        killed = sum(r["result"] == "killed" for r in rs)
        eq = [r for r in rs if r["result"] == "survived" and _is_equivalent(r, known)]
        gap = [r for r in rs if r["result"] == "survived" and not _is_equivalent(r, known)]
        rate = killed / (len(rs) - len(eq)) if len(rs) > len(eq) else 1.0
        low |= rate < 0.9
        gaps += gap
        print(f"{path:{width}}  {len(rs):7}  {killed:6}  {len(eq):10}  {len(gap):8}  {rate:9.1%}")
    total = len(results)
    killed = sum(r["result"] == "killed" for r in results.values())
    eq = sum(r["result"] == "survived" and _is_equivalent(r, known) is not None for r in results.values())
    print(f"{'all':{width}}  {total:7}  {killed:6}  {eq:10}  {total - killed - eq:8}  "
          f"{killed / max(1, total - eq):9.1%}")
    if gaps:
        print("\nsurvivors not classified equivalent (gaps: a behaviour no fast test checks):")
        for r in sorted(gaps, key=lambda r: (r["path"], r["line"])):
            print(f"  {r['path']}:{r['line']}: {r['what']}{_which(r['nth'], r['of'])}    | {r['text']}    ({r['how']})")
    unsaid = ambiguous(known)
    if unsaid:
        print("\nequivalents entries that do not say which of their line's mutants with their change they name "
              "(occurrence = n, counted from the left):")
        for u in unsaid:
            print(f"  {u}")
    return 1 if low else 0


def _shard(spec: str) -> tuple[int, int]:
    i, n = (int(v) for v in spec.split("/"))
    if not 1 <= i <= n:
        raise argparse.ArgumentTypeError(f"--shard {spec}: i must be between 1 and n")
    return i, n


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("targets", nargs="*", help="modules to mutate (globs, relative to the repository; default: "
                    "every target, and for --summary every module any group ran)")
    ap.add_argument("--sample", type=int, default=SAMPLE, help="mutants drawn per module (0: every one)")
    ap.add_argument("--seed", type=int, default=SEED, help="the seed of the draw")
    ap.add_argument("--shard", type=_shard, default=(1, 1), metavar="I/N", help="run the I-th of N shards of the sample")
    ap.add_argument("--list", action="store_true", help="list the shard's mutants and stop")
    ap.add_argument("--limit", type=int, default=0, help="run only the first N mutants of the shard (0: all)")
    ap.add_argument("--timeout", type=float, default=120, help="seconds of covering tests per mutant before it counts as killed")
    ap.add_argument("--rerun", action="store_true", help="run again the survivors of every shard of this group's sample")
    ap.add_argument("--summary", action="store_true", help="print the kill rate per module over every group's shards run")
    ap.add_argument("--confirm", action="store_true", help="run a mutant the covering tests leave alive against the "
                    "whole of the fast tests (and a mutant of a line no test runs)")
    args = ap.parse_args(argv)

    if args.summary:
        return summary(_paths(args.targets) if args.targets else None)
    paths = _paths(args.targets or TARGETS)
    key = _sources_key(paths, args.seed, args.sample)
    group = _group(paths, args.seed, args.sample)
    sources = {p: (ROOT / p).read_bytes() for p in paths}
    sample = [m for p in paths for m in sample_of(p, args.sample, args.seed)]
    if args.rerun:  # every shard of this group's sample run so far, its survivors only
        shards = sorted({(s["shard"], s["shards"]) for s in _result_files() if s["group"] == group and s["key"] == key})
    else:
        shards = [args.shard]
    if args.list:
        for si, sn in shards:
            mine = sample[si - 1::sn][: args.limit or None]
            for m in mine:
                print(m.show(sources[m.path]))
            print(f"{len(mine)} mutants in shard {si}/{sn} of {len(sample)} drawn from {len(paths)} modules "
                  f"(seed {args.seed}, {args.sample or 'all'} a module)")
        return 0

    lines = contexts(paths)
    where = _scratch()
    stamp = 0
    proven: set = set()  # the tests that made a kill, each seen to pass in the scratch copy without any mutant
    try:
        for si, sn in shards:
            file = OUT / f"group-{group}-shard-{si}-of-{sn}.json"
            old = {r["id"]: r for r in _read(file)["results"]} if args.rerun else {}
            mine = sample[si - 1::sn][: args.limit or None]
            print(f"shard {si}/{sn}: {len(mine)} mutants of {len(sample)} drawn from {len(paths)} modules "
                  f"(seed {args.seed}, {args.sample or 'all'} a module)", flush=True)
            results = []
            for k, m in enumerate(mine, 1):
                ident = f"{m.path}:{m.start}:{m.what}"
                if ident in old and old[ident]["result"] == "killed":
                    results.append(old[ident])
                    continue
                stamp += 1
                t = time.perf_counter()
                result, how = run_one(m, where, sources[m.path], lines.get(m.path, {}), args.timeout, stamp,
                                      args.confirm, proven)
                results.append(_record(m, sources[m.path], result, how))
                print(f"[{k}/{len(mine)}] {result:8} ({how}, {time.perf_counter() - t:.0f} s) "
                      f"{m.show(sources[m.path])}", flush=True)
            file = save(paths, args.seed, args.sample, (si, sn), key, results)
            print(f"shard {si}/{sn} written to {file.relative_to(ROOT)}", flush=True)
    finally:
        shutil.rmtree(where, ignore_errors=True)
    summary(paths)
    return 0


def _read(path: Path) -> dict:
    return json.loads(path.read_text())


if __name__ == "__main__":
    sys.exit(main())
