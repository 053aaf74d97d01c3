"""A small mutation tester: plant plausible one-line bugs in kernellab, one at a time, and count the kills.

Each mutant changes one operator or constant on one line of a target module (``+`` ↔ ``-``, ``<`` ↔
``<=``, ``and`` ↔ ``or``, ``min`` ↔ ``max``, ``.any()`` ↔ ``.all()``, an integer ``n`` → ``n + 1``,
``True`` ↔ ``False``, dropping a ``not``). The fast tests then run against a scratch copy of the
repository with that one change; a mutant is *killed* when they fail (or time out). The kill rate is
killed ÷ mutants; the survivors are listed with their line, since each is a behaviour no test checks
(or an equivalent change that cannot be told apart).

Usage::

    python tools/mutants.py                       # access.py, counters.py and model/*.py
    python tools/mutants.py kernellab/access.py   # one module
    python tools/mutants.py --list                # show the mutants, run nothing
    python tools/mutants.py --jobs 2 --limit 50   # two scratch copies in parallel; the first 50 mutants
    python tools/mutants.py --rerun run.log       # only the survivors of an earlier run (after adding tests)

Messages inside ``raise`` and docstrings are not mutated. The repository itself is never modified.
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures
import glob
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGETS = ["kernellab/access.py", "kernellab/counters.py", "kernellab/model/*.py"]
# the fast tests: everything pytest collects except the gallery scripts, the built-site and conformance checks
TESTS = ["tests", "kernellab", "-m", "not gallery", "--ignore=tests/site", "--ignore=tests/conformance",
         "--ignore=tests/test_bench.py"]
COPY = ["kernellab", "tests", "gallery", "tools", "benchmarks", "cuda", "docs", "noxfile.py", "pyproject.toml"]

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

    def apply(self, source: bytes) -> bytes:
        return source[: self.start] + self.new + source[self.end :]

    def show(self, source: bytes) -> str:
        line = source.splitlines()[self.line - 1].decode().strip()
        return f"{self.path}:{self.line}: {self.what}    | {line}"


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

    def pos(lineno, col):
        return starts[lineno - 1] + col

    def between(a: ast.AST, b: ast.AST, old: str, new: str, line: int):
        lo, hi = pos(a.end_lineno, a.end_col_offset), pos(b.lineno, b.col_offset)
        seg = source[lo:hi]
        words = seg.replace(b"(", b" ").replace(b")", b" ").split()
        if b" ".join(words) != old.encode():
            return
        i = seg.find(old.split()[0].encode())
        j = seg.rfind(old.split()[-1].encode()) + len(old.split()[-1])
        out.append(Mutant(path, line, lo + i, lo + j, new.encode(), f"{old} → {new}"))

    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.BinOp) and type(node.op) in BINOPS:
            old, new = BINOPS[type(node.op)]
            between(node.left, node.right, old, new, node.lineno)
        elif isinstance(node, ast.AugAssign) and type(node.op) in BINOPS:
            old, new = BINOPS[type(node.op)]
            between(node.target, node.value, old + "=", new + "=", node.lineno)
        elif isinstance(node, ast.Compare):
            left = node.left
            for op, right in zip(node.ops, node.comparators):
                if type(op) in CMPOPS:
                    old, new = CMPOPS[type(op)]
                    between(left, right, old, new, right.lineno)
                left = right
        elif isinstance(node, ast.BoolOp):
            old, new = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
            between(node.values[0], node.values[1], old, new, node.values[1].lineno)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
            lo, hi = pos(node.lineno, node.col_offset), pos(node.operand.lineno, node.operand.col_offset)
            sym = "not" if isinstance(node.op, ast.Not) else "-"
            if source[lo:hi].strip() == sym.encode():
                out.append(Mutant(path, node.lineno, lo, hi, b"", f"drop {sym}"))
        elif isinstance(node, ast.Constant) and type(node.value) is int and node.lineno == node.end_lineno:
            lo, hi = pos(node.lineno, node.col_offset), pos(node.end_lineno, node.end_col_offset)
            out.append(Mutant(path, node.lineno, lo, hi, str(node.value + 1).encode(),
                              f"{node.value} → {node.value + 1}"))
        elif isinstance(node, ast.Constant) and type(node.value) is bool:
            lo, hi = pos(node.lineno, node.col_offset), pos(node.end_lineno, node.end_col_offset)
            out.append(Mutant(path, node.lineno, lo, hi, str(not node.value).encode(),
                              f"{node.value} → {not node.value}"))
        elif isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            if name in SWAP_NAMES:
                hi = pos(f.end_lineno, f.end_col_offset)
                out.append(Mutant(path, f.end_lineno, hi - len(name), hi, SWAP_NAMES[name].encode(),
                                  f"{name} → {SWAP_NAMES[name]}"))
    return sorted(set(out), key=lambda m: (m.path, m.start, m.what))


def _scratch() -> Path:
    tmp = Path(tempfile.mkdtemp(prefix="kernellab-mutants-"))
    for name in COPY:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, tmp / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(src, tmp / name)
    return tmp


def _first_tests(path: str, where: Path) -> list[str]:
    """The tests most likely to kill a mutant of ``path``, run first so most mutants die in a second or two."""
    stem = Path(path).stem
    names = {"access": ["test_access.py", "test_simt_counts.py", "test_regressions_model.py"],
             "counters": ["test_regressions_model.py", "test_simt_counts.py"]}.get(
        stem, [f"test_model_{stem}.py", f"test_{stem}.py", "test_regressions_model.py"])
    return [f"tests/{n}" for n in names if (where / "tests" / n).exists()] + [path]


def _pytest(where: Path, timeout: float, tests: list[str] | None = None) -> str:
    """'pass', 'fail' or 'timeout' of ``tests`` (default: the fast tests) run in ``where``.

    ``where`` goes first on the path, so its kernellab shadows any installed one.
    """
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *(tests or TESTS)]
    env = {"KERNELLAB_LANG": "en", "MPLBACKEND": "Agg", "OPENBLAS_NUM_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1",
           "PATH": "/usr/bin:/bin", "PYTHONPATH": str(where)}
    try:
        proc = subprocess.run(cmd, cwd=where, env=env, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout"
    return "pass" if proc.returncode == 0 else "fail"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("targets", nargs="*", default=TARGETS, help="modules to mutate (globs, relative to the repository)")
    ap.add_argument("--list", action="store_true", help="list the mutants and stop")
    ap.add_argument("--jobs", type=int, default=1, help="scratch copies run in parallel")
    ap.add_argument("--limit", type=int, default=0, help="run only the first N mutants (0: all)")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per mutant before it counts as killed")
    ap.add_argument("--rerun", metavar="LOG", help="run only the mutants an earlier run's output lists as SURVIVED")
    args = ap.parse_args(argv)

    paths = sorted({str(Path(p).relative_to(ROOT)) if Path(p).is_absolute() else p
                    for t in args.targets for p in glob.glob(str(ROOT / t)) or [t]})
    paths = [str(Path(p).relative_to(ROOT)) if Path(p).is_absolute() else p for p in paths]
    mutants = [m for p in paths for m in mutants_of(p)]
    if args.limit:
        mutants = mutants[: args.limit]
    sources = {p: (ROOT / p).read_bytes() for p in paths}
    total, killed_before = len(mutants), 0
    if args.rerun:
        mutants, killed_before = _survivors_of(Path(args.rerun).read_text(), mutants, sources)
    if args.list:
        for m in mutants:
            print(m.show(sources[m.path]))
        print(f"{len(mutants)} mutants in {len(paths)} modules")
        return 0

    copies = [_scratch() for _ in range(max(1, args.jobs))]
    try:
        t0 = time.perf_counter()
        if _pytest(copies[0], args.timeout * 3) != "pass":
            print("the fast tests fail without any mutant: fix them first", file=sys.stderr)
            return 2
        baseline = time.perf_counter() - t0
        print(f"{len(mutants)} mutants in {', '.join(paths)}; the fast tests take {baseline:.1f} s unmutated"
              + (f"; {killed_before} of {total} were killed in {args.rerun}" if args.rerun else ""), flush=True)
        free = list(copies)

        def run(m: Mutant) -> tuple[Mutant, str]:
            where = free.pop()
            target = where / m.path
            try:
                target.write_bytes(m.apply(sources[m.path]))
                first = _pytest(where, args.timeout, _first_tests(m.path, where))
                return m, first if first != "pass" else _pytest(where, args.timeout)
            finally:
                target.write_bytes(sources[m.path])
                free.append(where)

        survivors, killed = [], 0
        with concurrent.futures.ThreadPoolExecutor(len(copies)) as pool:
            for i, (m, result) in enumerate(pool.map(run, mutants), 1):
                if result == "pass":
                    survivors.append(m)
                else:
                    killed += 1
                print(f"[{i}/{len(mutants)}] {'SURVIVED' if result == 'pass' else result:8} "
                      f"{m.show(sources[m.path])}", flush=True)
    finally:
        for c in copies:
            shutil.rmtree(c, ignore_errors=True)

    print(f"\nsurvivors ({len(survivors)}):")
    for m in survivors:
        print("  " + m.show(sources[m.path]))
    killed += killed_before
    rate = killed / total if total else 1.0
    print(f"\nkill rate: {killed}/{total} = {rate:.1%}")
    return 0


def _survivors_of(log: str, mutants: list[Mutant], sources: dict) -> tuple[list[Mutant], int]:
    """The mutants an earlier run's ``log`` reports as SURVIVED, and how many it killed (same targets only)."""
    import re

    if "kill rate:" not in log:
        raise SystemExit("the log is of a run that did not finish")
    found = [(int(i), int(n), rest.strip()) for i, n, rest in re.findall(r"^\[(\d+)/(\d+)\] SURVIVED (.*)$", log, re.M)]
    if any(n != len(mutants) for _, n, _ in found):
        raise SystemExit("the log is of another set of mutants (targets or sources changed)")
    picked = []
    for i, _, shown in found:
        m = mutants[i - 1]
        if m.show(sources[m.path]).strip() != shown:
            raise SystemExit(f"mutant {i} differs from the log: the sources changed since")
        picked.append(m)
    return picked, len(mutants) - len(picked)


if __name__ == "__main__":
    sys.exit(main())
