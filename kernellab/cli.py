"""``python -m kernellab run SCRIPT.py [ARGS]`` and ``python -m kernellab profile SCRIPT.py [ARGS] [options]``.

``run`` runs a script unchanged under the runner (:mod:`kernellab.triton.runner`): ``import triton`` is
kernellab's Triton, torch's CUDA queries describe the modelled GPU, tensors asked for on ``"cuda"`` live on
the CPU. ``--gpu NAME`` (before the script) chooses the modelled GPU. ``profile`` runs the script the same way
and profiles its launches, as ``ncu`` does.

Every kernellab launch the script makes (SIMT ``launch``, ``triton_launch``, ``kernel[grid](...)``) is
recorded (:mod:`kernellab.record`); then the report of each (:mod:`kernellab.profile`) is printed, with
its source view under ``--lines``, and ``--csv FILE`` / ``--json FILE`` export the metrics of each launch
and, with ``--lines``, of each line. A script that raises still has what it launched printed, then its
error, and the command exits non-zero. ``--kernel NAME`` (or ``--kernel regex:PATTERN``) keeps the
launches of one kernel; when none matches, the command lists the kernels the script launched.

Options may come before the script or after its arguments; everything after ``--`` is the script's.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import runpy
import sys
import traceback

from . import metrics
from .i18n import _
from .profile import report
from .record import recording
from .specs import GPUS
from .triton.runner import activate
from .triton.runtime.driver import set_gpu

_OPTIONS = {"--kernel": True, "--gpu": True, "--csv": True, "--json": True, "--lines": False}


def gpu_named(name: str):
    """The GPU called ``name``: ``A6000``, ``A100``, ``H100``, ``H200`` (any case) or its full name.

    >>> gpu_named("h100").name, gpu_named("RTX A6000").name
    ('H100 SXM', 'RTX A6000')
    """
    key = name.replace(" ", "").lower()
    for g in GPUS:
        full = g.name.replace(" ", "").lower()
        if key in (full, full.removeprefix("rtx"), full.split("sxm")[0]):
            return g
    raise SystemExit(_("unknown GPU {name!r}; kernellab knows: {names}").format(
        name=name, names=", ".join(g.name for g in GPUS)))


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m kernellab profile",
                                description=_("Run a script and profile every kernellab launch it makes."))
    p.add_argument("--kernel", help=_("only the launches of this kernel (a name, or regex:PATTERN)"))
    p.add_argument("--gpu", default="A6000", help=_("the GPU the report models (A6000, A100, H100, H200)"))
    p.add_argument("--lines", action="store_true", help=_("count per source line and show the source view"))
    out = p.add_mutually_exclusive_group()
    out.add_argument("--csv", metavar="FILE", help=_("export the metrics as CSV"))
    out.add_argument("--json", metavar="FILE", help=_("export the metrics as JSON"))
    p.add_argument("script", help=_("the Python script to run"))
    p.add_argument("args", nargs=argparse.REMAINDER, help=_("the script's arguments"))
    return p


def parse(argv: list[str]) -> argparse.Namespace:
    """The command's options, wherever they stand, and the script's own arguments.

    >>> a = parse(["run.py", "-n", "4", "--kernel", "axpy", "--lines", "--", "--lines"])
    >>> a.script, a.args, a.kernel, a.lines
    ('run.py', ['-n', '4', '--lines'], 'axpy', True)
    """
    ns = _parser().parse_args(argv)
    rest, own, i = [], [], 0
    while i < len(ns.args):
        a = ns.args[i]
        if a == "--":
            rest += ns.args[i + 1:]
            break
        name = a.split("=", 1)[0]
        if name in _OPTIONS:
            takes = _OPTIONS[name] and "=" not in a
            own += ns.args[i:i + 1 + takes]
            i += 1 + takes
            continue
        rest.append(a)
        i += 1
    if own:
        extra = _parser().parse_args([*own, ns.script])
        for k in ("kernel", "gpu", "csv", "json"):
            if getattr(extra, k) not in (None, "A6000"):
                setattr(ns, k, getattr(extra, k))
        ns.lines = ns.lines or extra.lines
        if ns.csv and ns.json:
            _parser().error(_("--csv and --json cannot both be given"))
    ns.args = rest
    return ns


def _matches(pattern: str | None, name: str) -> bool:
    if pattern is None:
        return True
    if pattern.startswith("regex:"):
        return re.search(pattern[len("regex:"):], name) is not None
    return name == pattern


def _execute(script: str, args: list[str]):
    """Run ``script`` as ``__main__`` with ``args`` under the runner; return its error (an exception) or None."""
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    sys.argv = [script, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    error = None
    with activate():
        try:
            runpy.run_path(script, run_name="__main__")
        except SystemExit as exc:
            if exc.code not in (None, 0):
                error = exc
        except BaseException as exc:  # the script's error: reported after what it launched
            error = exc
        finally:
            sys.argv, sys.path[:] = saved_argv, saved_path
    return error


def run_script(script: str, args: list[str], lines: bool):
    """Run ``script`` as ``__main__`` with ``args`` under the runner; return ``(launches, error)`` (error: an
    exception or None)."""
    os.environ.setdefault("MPLBACKEND", "Agg")  # figures are not shown: the report is the output
    with recording(lines=lines) as launches:
        error = _execute(script, args)
    return launches, error


def _report_error(error, script: str) -> int:
    """Print the script's error from its own frame on (runpy and this command are not the user's); the exit status."""
    if isinstance(error, SystemExit):
        if not isinstance(error.code, int):
            print(error.code, file=sys.stderr)
        return error.code if isinstance(error.code, int) else 1
    tb = error.__traceback__
    script = os.path.abspath(script)
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) != script:
        tb = tb.tb_next
    traceback.print_exception(type(error), error, tb or error.__traceback__, file=sys.stderr)
    return 1


def run(argv: list[str]) -> int:
    """The ``run`` command: ``[--gpu NAME] SCRIPT.py [ARGS]``; returns the exit status."""
    p = argparse.ArgumentParser(prog="python -m kernellab run",
                                description=_("Run a Triton script unchanged: import triton, torch.cuda and "
                                              "device='cuda' stand for the modelled GPU."))
    p.add_argument("--gpu", help=_("the GPU the runner models (A6000, A100, H100, H200; default: KERNELLAB_GPU or "
                                   "the H100)"))
    p.add_argument("script", help=_("the Python script to run"))
    p.add_argument("args", nargs=argparse.REMAINDER, help=_("the script's arguments"))
    ns = p.parse_args(argv)
    previous = None
    if ns.gpu is not None:
        previous = set_gpu(gpu_named(ns.gpu))
    try:
        error = _execute(ns.script, ns.args)
    finally:
        if previous is not None:
            set_gpu(previous)
    return 0 if error is None else _report_error(error, ns.script)


def _launch_label(i: int, rec) -> str:
    dims = "×".join(map(str, rec.grid)) + (f", {'×'.join(map(str, rec.block))}" if rec.block else "")
    return f"[{i}] {rec.name} ({rec.engine}; {dims})"


def _rows(selected) -> list[dict]:
    """One row per launch and metric, then per line and metric: the long form both exports share."""
    out = []
    for i, rec in selected:
        base = {"id": i, "kernel": rec.name, "engine": rec.engine, "grid": "×".join(map(str, rec.grid)),
                "block": "×".join(map(str, rec.block))}
        for name, v in metrics.values(rec.counts).items():
            out.append({**base, "file": "", "line": "", "metric": name, "value": v})
        by_line = rec.counts.by_line
        for key, row in (by_line.items() if by_line is not None else ()):
            for name, v in metrics.values(row, row=True).items():
                out.append({**base, "file": key[0], "line": key[1], "metric": name, "value": v})
    return out


def _export_json(path: str, selected) -> None:
    data = []
    for i, rec in selected:
        entry = {"id": i, "kernel": rec.name, "engine": rec.engine, "grid": list(rec.grid), "block": list(rec.block),
                 "metrics": metrics.values(rec.counts), "lines": []}
        by_line = rec.counts.by_line
        if by_line is not None:
            entry["note"] = by_line.note
            for key, row in by_line.items():
                entry["lines"].append({"file": key[0], "line": key[1], "source": by_line.line(key),
                                       "call_sites": [list(s) for s in by_line.sites.get(key, ())],
                                       "metrics": metrics.values(row, row=True)})
        data.append(entry)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, ensure_ascii=False)


def _export_csv(path: str, selected) -> None:
    rows = _rows(selected)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, ["id", "kernel", "engine", "grid", "block", "file", "line", "metric", "value"])
        w.writeheader()
        w.writerows(rows)


def profile(argv: list[str]) -> int:
    """The ``profile`` command; returns the exit status."""
    ns = parse(argv)
    gpu = gpu_named(ns.gpu)
    launches, error = run_script(ns.script, ns.args, ns.lines)
    selected = [(i, r) for i, r in enumerate(launches) if _matches(ns.kernel, r.name)]
    out = sys.stdout
    if ns.kernel is not None and not selected:
        names = sorted({r.name for r in launches})
        print(_("no launch of kernel {kernel!r}; the script launched: {names}").format(
            kernel=ns.kernel, names=", ".join(names) if names else _("no kernel")), file=sys.stderr)
        status = 1
    else:
        for i, rec in selected:
            print(f"\n{_launch_label(i, rec)}", file=out)
            print(report(rec.counts, gpu, rec.name).to_text(), file=out)
            if rec.counts.by_line is not None:
                print("", file=out)
                print(rec.counts.source().to_text(), file=out)
        if ns.csv:
            _export_csv(ns.csv, selected)
        if ns.json:
            _export_json(ns.json, selected)
        status = 0
    if error is not None:
        print(_("\nthe script raised, after {n} launches:").format(n=len(launches)), file=sys.stderr)
        if isinstance(error, SystemExit):
            print(f"SystemExit: {error.code}", file=sys.stderr)
        return _report_error(error, ns.script)
    return status


def main(argv: list[str] | None = None) -> int:
    """``python -m kernellab COMMAND ...``: the commands are ``run`` and ``profile``."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in ("run", "profile"):
        print(_("usage:") + " python -m kernellab run [--gpu H100] SCRIPT.py [ARGS]\n       python -m kernellab "
              "profile SCRIPT.py [ARGS] [--kernel NAME] [--gpu H100] [--lines] [--csv FILE | --json FILE]",
              file=sys.stderr if argv and argv[0] not in ("-h", "--help") else sys.stdout)
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    return run(argv[1:]) if argv[0] == "run" else profile(argv[1:])
