"""The "before" figures: this harness run against kernellab as it was at commit 75152b7.

Issue 32 asks ``nox -s validate`` to report first the summary for commit ``75152b7``, the model before
the per-SM timing model. Rebuilding that revision costs a second full run (minutes), so the raw
predictions of that run are stored in ``kernellab/validation.json`` with the hash of the harness that made them
(:func:`harness_hash`: the kernels, the cases, the prediction calls and the CSV) and the command. While
the harness is unchanged they are read back; when it changes (a kernel, a launch, a row), ``auto``
rebuilds them: a git worktree of ``75152b7`` in ``build/validate-before/``, this harness copied into it,
and ``python -m benchmarks.validation.run --raw`` run there, so that ``import kernellab`` finds the old
package first. Scores and summaries are always recomputed from the raw predictions, with today's
scoring rules and in-sample marks, so that before and after are scored alike.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
COMMIT = "75152b7"
TREE = ROOT / "build" / "validate-before"
#: The files whose content decides a row's prediction (besides kernellab itself).
INPUTS = ("cases.py", "kernels_triton.py", "kernels_simt.py", "predicted.py", "rows.py", "env.py", "checks.py",
          "validation.csv")


def harness_hash() -> str:
    """sha256 (first 16 hex digits) of :data:`INPUTS`."""
    h = hashlib.sha256()
    for name in INPUTS:
        h.update(name.encode() + b"\0" + (HERE / name).read_bytes())
    return h.hexdigest()[:16]


def rebuild() -> dict:
    """Run this harness on kernellab at :data:`COMMIT` (a worktree under build/) and return its raw predictions."""
    if not (TREE / ".git").exists():
        TREE.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "worktree", "add", "--force", "--detach", str(TREE), COMMIT], cwd=ROOT, check=True)
    subprocess.run(["git", "checkout", "--quiet", "--detach", COMMIT], cwd=TREE, check=True)
    dest = TREE / "benchmarks" / "validation"
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(HERE, dest, ignore=shutil.ignore_patterns("__pycache__"))
    out = TREE / "build" / "raw.json"
    out.parent.mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(TREE), "KERNELLAB_LANG": "en"}
    command = [sys.executable, "-m", "benchmarks.validation.run", "--raw", str(out)]
    check = subprocess.run([sys.executable, "-c", "import kernellab; print(kernellab.__file__)"], cwd=TREE, env=env,
                           capture_output=True, text=True, check=True).stdout.strip()
    if not Path(check).resolve().is_relative_to(TREE.resolve()):
        raise RuntimeError(f"the before run would import kernellab from {check}, not from {TREE}")
    subprocess.run(command, cwd=TREE, env=env, check=True)
    raw = json.loads(out.read_text())
    return {"commit": COMMIT, "harness": harness_hash(), "how": "rebuilt now",
            "command": f"(cd build/validate-before && PYTHONPATH=. python -m benchmarks.validation.run --raw ...) "
                       f"on a worktree of {COMMIT}", "rows": raw["rows"]}


def get(mode: str, results: Path) -> dict:
    """The before figures: ``stored`` (from ``results``), ``rebuild``, or ``auto`` (stored while the harness is
    unchanged, else rebuilt)."""
    stored = json.loads(results.read_text()).get("before") if results.exists() else None
    if mode == "stored" or (mode == "auto" and stored and stored.get("harness") == harness_hash()):
        if not stored:
            raise SystemExit(f"{results} holds no before figures: run with --before rebuild")
        return {**stored, "rows": [_raw(r) for r in stored["rows"]],
                "how": "stored, made by the same harness" if stored.get("harness") == harness_hash()
                else "stored, made by an older harness"}
    return rebuild()


def _raw(r: dict) -> dict:
    """A stored row reduced to the raw prediction (what ``run.finish`` recomputes the rest from)."""
    keep = ("id", "category", "engine", "kind", "stand_in", "unit", "measured", "gpu", "seconds", "work", "bound",
            "launches", "error", "note", "cpu_s")
    return {k: r.get(k) for k in keep}
