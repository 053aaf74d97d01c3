"""Predict every row of ``validation.csv`` and score the model against the published measurements.

    python -m benchmarks.validation.run                       # every row: table, summary
    python -m benchmarks.validation.run --rows GS-01,LA-03    # some rows
    python -m benchmarks.validation.run --json kernellab/validation.json --before auto

``--raw FILE`` writes the raw predictions alone (what ``before`` reads from a run on an older
kernellab); ``--json FILE`` writes the scored results, with the before figures when ``--before`` gives
them (``auto``: the stored ones while the harness is unchanged, else recomputed; see ``before.py``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import subprocess
import sys
import time
from pathlib import Path

from . import before as before_mod
from .cases import CASES, KINDS, check_complete
from .in_sample import IN_SAMPLE
from .rows import NOT_SCORED, load_rows, resolve_gpu
from .scoring import measured_seconds, predicted_value, score_rows, summarise

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
RESULTS = ROOT / "kernellab" / "validation.json"


def predict_rows(ids=None, progress=None) -> list[dict]:
    """Raw predictions of the rows ``ids`` (all by default): what each case returns, or the error it raised."""
    rows = load_rows()
    check_complete(rows)
    out = []
    for rid in ids or rows:
        row, c = rows[rid], CASES[rid]
        rec = {"id": rid, "category": row.category, "engine": c.engine, "kind": c.kind, "stand_in": c.stand_in,
               "unit": row.unit, "measured": row.measured, "gpu": None, "seconds": None, "work": None, "bound": None,
               "launches": [], "error": None, "note": None}
        t0 = time.perf_counter()
        try:
            gpu, rec["note"] = resolve_gpu(row.gpu)
            rec["gpu"] = gpu.name
            p, work = c.run(gpu)
            if not (p.seconds > 0 and math.isfinite(p.seconds)):
                raise RuntimeError(f"the model predicted {p.seconds!r} s")
            rec.update(seconds=p.seconds, work=work, bound=p.bound, launches=p.launches)
        except Exception as exc:  # a row that cannot be predicted is reported, and scored as a miss
            rec["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        rec["cpu_s"] = round(time.perf_counter() - t0, 2)
        if progress:
            progress(rec)
        out.append(rec)
    return out


def finish(records: list[dict], in_sample=None) -> list[dict]:
    """Add to raw predictions the measured time, the predicted value in the row's unit, the ratio and the score."""
    from kernellab import GPUS

    clocks = {g.name: g.clock_hz for g in GPUS}
    rows = load_rows()
    for r in records:
        row = rows[r["id"]]
        r["measured"] = row.measured
        if r["seconds"] is None:
            r.update(predicted=None, ratio=None, measured_seconds=None)
            continue
        clock = clocks[r["gpu"]]
        r["measured_seconds"] = measured_seconds(row, r["work"], clock)
        r["predicted"] = predicted_value(row, r["seconds"], r["work"], clock)
        r["ratio"] = r["seconds"] / r["measured_seconds"]
    return score_rows(records, IN_SAMPLE if in_sample is None else in_sample)


def scored(records):
    """The records that are scored (on their own or on a ratio)."""
    return [r for r in records if r["role"] in ("scored", "ratio")]


def _fmt(v) -> str:
    if v is None:
        return "—"
    return f"{v:.3g}" if abs(v) < 1e4 else f"{v:.0f}"


def _status(r) -> str:
    if r["error"]:
        return "miss: " + r["error"].split(":")[0]
    return {"reference": "reference", "not scored": "not scored", "in-sample": "in-sample",
            "ratio": f"ratio to {r.get('ratio_to')}", "scored": "scored"}[r["role"]]


def print_table(records) -> None:
    """Per row: id, category, stand-in kind, measured, predicted, time ratio, score, status, binding term."""
    from kernellab import print_table as table

    heads = ["row", "category", "stand-in", "unit", "measured", "predicted", "time ratio", "score", "status",
             "binding term"]
    table(heads, [[r["id"], r["category"], r["kind"], r["unit"], _fmt(r["measured"]), _fmt(r["predicted"]),
                   _fmt(r["ratio"]), _fmt(r["score"]), _status(r), r["bound"] or "—"] for r in records])
    print("\nstand-ins (what runs in place of each row's kernel):")
    for r in records:
        extra = "; ".join(x for x in (r["note"], r["error"], NOT_SCORED.get(r["id"])) if x)
        print(f"  {r['id']} [{KINDS[r['kind']]}] {r['stand_in']}" + (f" — {extra}" if extra else ""))


def print_summary(summary: dict, title: str) -> None:
    """The shares within [0.8, 1.25] and [0.5, 2], the geometric mean and the worst row, all and per category."""
    from kernellab import print_table as table

    print(f"\n{title}")

    def line(name, s):
        worst = s["worst"]
        return [name, s["rows"], _pct(s["within_1.25"]), _pct(s["within_2"]), _fmt(s["geomean"]),
                f"{worst['id']} ({worst['score']:.3g})" if worst else "—", ", ".join(s["misses"]) or "—"]
    rows = [line("all", summary["all"])] + [line(c, s) for c, s in summary["categories"].items()]
    table(["category", "scored rows", "within [0.8, 1.25]", "within [0.5, 2]", "geometric mean", "worst row",
           "misses (no prediction)"], rows)


def print_moved(stored: dict, records: list[dict]) -> None:
    """The rows whose prediction moved since the results file was written (the last ``nox -s validate``)."""
    from kernellab import print_table as table

    old = {r["id"]: r for r in stored.get("rows", [])}
    moved = []
    for r in records:
        o = old.get(r["id"])
        if o is None or (o.get("seconds") is None) != (r["seconds"] is None) or o.get("bound") != r["bound"] or (
                r["seconds"] is not None and abs(r["seconds"] / o["seconds"] - 1) > 1e-6):
            moved.append([r["id"], _fmt((o or {}).get("ratio")), _fmt(r["ratio"]), (o or {}).get("bound") or "—",
                          r["bound"] or "—"])
    print(f"\nrows whose prediction moved since {RESULTS.name} was written (commit {stored.get('commit')}): "
          f"{len(moved)}")
    if moved:
        table(["row", "time ratio then", "now", "binding term then", "now"], moved)


def _pct(x) -> str:
    return "—" if x is None else f"{100 * x:.0f} %"


def _commit() -> str:
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "kernellab", ":!kernellab/validation.json"],
                           cwd=ROOT, capture_output=True, text=True).stdout.strip()
    return out.stdout.strip() + (" (kernellab/ modified)" if dirty else "")


def main(argv=None) -> dict | None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", help="comma-separated row ids (default: every row)")
    ap.add_argument("--raw", type=Path, help="write the raw predictions to this JSON file and stop")
    ap.add_argument("--json", type=Path, help="write the scored results (and the before figures) to this file")
    ap.add_argument("--before", choices=("auto", "stored", "rebuild", "none"), default="none",
                    help="the figures of the model at commit 75152b7: auto (stored while the harness is unchanged, "
                         "else rebuilt), stored, rebuild or none")
    args = ap.parse_args(argv)
    ids = args.rows.split(",") if args.rows else None

    before = None
    if args.before != "none":
        before = before_mod.get(args.before, RESULTS)
        print_summary(summarise(scored(finish(before["rows"]))),
                      f"BEFORE: the model at commit {before['commit']} ({before['how']})")

    def progress(r):
        print(f"  {r['id']:6} {r['cpu_s']:6.2f} s  {r['error'] or ''}", file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    raw = predict_rows(ids, progress)
    elapsed = time.perf_counter() - t0
    if args.raw:
        args.raw.write_text(json.dumps({"rows": raw, "seconds": elapsed}, indent=1) + "\n")
        return None
    records = finish(raw)
    print()
    print_table(records)
    summary = summarise(scored(records))
    print_summary(summary, f"NOW: the model at {_commit()}")
    if RESULTS.exists():
        print_moved(json.loads(RESULTS.read_text()), records)
    print(f"\n{len(records)} rows predicted in {elapsed:.0f} s (wall clock) on this machine")
    result = {"generated_by": "nox -s validate  (python -m benchmarks.validation.run --before auto --json "
                              "kernellab/validation.json)",
              "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "commit": _commit(), "harness": before_mod.harness_hash(), "in_sample": IN_SAMPLE,
              "ratio": "predicted time / measured time", "seconds": round(elapsed, 1),
              "summary": summary, "rows": records}
    if before is not None:
        result["before"] = {k: before[k] for k in ("commit", "harness", "command", "how")} | {
            "summary": summarise(scored(finish(before["rows"]))), "rows": before["rows"]}
    if args.json and ids:
        print(f"{args.json} not written: it holds every row, and --rows chose some")
    elif args.json:
        args.json.write_text(json.dumps(result, indent=1, ensure_ascii=False, default=_plain) + "\n")
        print(f"wrote {args.json}")
    return result


def _plain(v):
    """JSON for numpy scalars."""
    return v.item() if hasattr(v, "item") else str(v)


if __name__ == "__main__":
    main()
