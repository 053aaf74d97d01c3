"""Compile the CUDA twins of Harris's reductions 1–4 and of the quickstart's SIMT kernel, and write the
instruction mix of each region of their SASS, for ``tests/test_sass_twins.py``.

Run by ``nox -s sass`` after ``sass_mix.py`` (same nvcc, flags and opcode classes); needs no GPU. A
twin's code (up to its last ``EXIT``) is split at its loop, the backward branch: ``prologue`` (before the
loop's first instruction), ``loop`` (one pass, the branch back included), ``exit`` (after the loop, up to
and including the first ``EXIT``: the ``@P0 EXIT`` of every thread but thread 0) and ``tail`` (the rest,
run by the warp that keeps thread 0). A twin without a loop has its whole code in ``prologue``. Every
region's instructions are warp instructions each warp that runs it issues once, predicated or not, so
a launch's dynamic count follows from the warps and passes (the test derives it by hand).

Usage: ``python cuda/twin_mix.py OUT.json`` (nvcc and cuobjdump on ``PATH``).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sass_mix import FLAGS, HERE, classify, functions

TWINS = ("q01_axpy", "r01_interleaved_divergent", "r02_interleaved_strided", "r03_sequential", "r04_first_add")


def regions(code: list[tuple[int, str, str]]) -> dict[str, list[str]]:
    """The twin's opcodes by region (see the module docstring)."""
    last_exit = max(i for i, (_a, op, _x) in enumerate(code) if op.split(".")[0] == "EXIT")
    code = code[: last_exit + 1]
    loop = None
    for i, (addr, op, args) in enumerate(code):
        m = re.match(r"0x([0-9a-f]+)", args)
        if op.split(".")[0] == "BRA" and m and int(m.group(1), 16) <= addr:
            loop = (next(j for j, c in enumerate(code) if c[0] == int(m.group(1), 16)), i)
    ops = [op for _a, op, _x in code]
    if loop is None:
        return {"prologue": ops, "loop": [], "exit": [], "tail": []}
    start, end = loop
    first_exit = next(j for j in range(end + 1, len(ops)) if ops[j].split(".")[0] == "EXIT")
    return {"prologue": ops[:start], "loop": ops[start:end + 1], "exit": ops[end + 1:first_exit + 1],
            "tail": ops[first_exit + 1:]}


def twin(cu: Path) -> tuple[str, dict]:
    """Compile one twin; return its kernel's name and its regions' instruction counts by class."""
    with tempfile.TemporaryDirectory() as tmp:
        cubin = Path(tmp) / (cu.stem + ".cubin")
        subprocess.run(["nvcc", *FLAGS, str(cu), "-o", str(cubin)], check=True, capture_output=True, text=True)
        sass = subprocess.run(["cuobjdump", "-sass", str(cubin)], check=True, capture_output=True, text=True).stdout
    (name, code), = functions(sass).items()
    out = {"source": f"cuda/{cu.name}"}
    for region, ops in regions(code).items():
        out[region] = {"n": len(ops), "mix": dict(sorted(Counter(classify(o) for o in ops).items()))}
    return name, out


def main(out: str) -> None:
    version = subprocess.run(["nvcc", "--version"], check=True, capture_output=True, text=True).stdout
    record = {
        "about": "Warp instructions of each region of the twins' sm_86 SASS (prologue, one loop pass, exit, "
                 "tail), by class; written by `nox -s sass` (cuda/twin_mix.py).",
        "nvcc": re.search(r"release [^\n]*", version).group(0), "flags": " ".join(FLAGS),
        "kernels": dict(twin(HERE / f"{t}.cu") for t in TWINS),
    }
    Path(out).write_text(json.dumps(record, indent=1) + "\n")
    for name, k in record["kernels"].items():
        print(f"{name:10s} " + "  ".join(f"{r} {k[r]['n']}" for r in ("prologue", "loop", "exit", "tail")))


if __name__ == "__main__":
    main(sys.argv[1])
