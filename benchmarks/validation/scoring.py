"""From predicted and measured times to each row's ratio and score, and the summary of a run.

**The ratio is a time ratio**: predicted time ÷ measured time, in every unit. Above 1 the model
predicts the kernel slower than it ran; below 1, faster. For a rate (GB/s, TFLOP/s) it is measured
rate ÷ predicted rate; for µs and cycles, predicted ÷ measured. The windows [0.8, 1.25] and [0.5, 2]
are symmetric under inversion, so the shares do not depend on that choice.

A row's **score** is its ratio, except for the low-confidence rows of ``rows.RATIO_TO``, whose score
is their ratio divided by their reference row's: how well the model predicts the step from one to the
other (32 to 132 blocks, FADD to ``__expf``, shared memory to HBM), not either absolute value.

Examples
--------
A row measured at 1 GB/s over 1 GB took 1 s; predicted at 0.5 s, it is predicted at 2 GB/s, ratio 0.5:

>>> from benchmarks.validation.rows import Row
>>> row = Row("X-1", "c", "k", "", "", "", "H100 SXM", 1.0, "GB/s", "", "")
>>> measured_seconds(row, work=1e9, clock_hz=1.98e9), predicted_value(row, 0.5, 1e9, 1.98e9)
(1.0, 2.0)
>>> summarise([{"id": "a", "category": "c", "score": 1.1}, {"id": "b", "category": "c", "score": 0.4},
...            {"id": "c", "category": "c", "score": None}])["all"]["within_1.25"]
0.3333333333333333
"""

from __future__ import annotations

import math

from .rows import RATIO_TO, WINDOWS, role

#: The units of validation.csv: how a measured value becomes seconds, given the row's work and the clock.
RATE_UNITS = {"GB/s": 1e9, "TFLOP/s": 1e12}
PER_EVENT_UNITS = ("cycles per warp-instruction", "cycles", "cycles (288.1 ns)")


def measured_seconds(row, work, clock_hz: float) -> float:
    """The time the row's measurement stands for: work ÷ rate, the µs, or cycles × events ÷ clock."""
    if row.unit in RATE_UNITS:
        return work / (row.measured * RATE_UNITS[row.unit])
    if row.unit == "µs":
        return row.measured * 1e-6
    if row.unit in PER_EVENT_UNITS:
        return row.measured * work / clock_hz
    raise ValueError(f"{row.id}: unknown unit {row.unit!r}")


def predicted_value(row, seconds: float, work, clock_hz: float) -> float:
    """The model's prediction in the row's own unit."""
    if row.unit in RATE_UNITS:
        return work / seconds / RATE_UNITS[row.unit]
    if row.unit == "µs":
        return seconds * 1e6
    if row.unit in PER_EVENT_UNITS:
        return seconds * clock_hz / work
    raise ValueError(f"{row.id}: unknown unit {row.unit!r}")


def within(score, lo: float, hi: float) -> bool:
    """Whether a score lies in [lo, hi]; a missing score (an unscored or failed row) never does."""
    return score is not None and lo <= score <= hi


def score_rows(records: list[dict], in_sample=()) -> list[dict]:
    """Give each record (``id``, ``ratio`` or None) its ``role``, ``score`` and, for ratio rows, ``ratio_to``."""
    by_id = {r["id"]: r for r in records}
    for r in records:
        r["role"] = role(r["id"], in_sample)
        ref = RATIO_TO.get(r["id"])
        if r["role"] == "ratio":
            other = by_id.get(ref, {}).get("ratio")
            r["ratio_to"] = ref
            r["score"] = None if r["ratio"] is None or other is None else r["ratio"] / other
        elif r["role"] == "scored":
            r["score"] = r["ratio"]
        else:
            r["score"] = None
    return records


def _stats(group: list[dict]) -> dict:
    scores = [r["score"] for r in group if r["score"] is not None]
    n = len(group)
    out = {"rows": n, "predicted": len(scores)}
    for lo, hi in WINDOWS:
        out[f"within_{hi:g}"] = sum(within(r["score"], lo, hi) for r in group) / n if n else None
    out["geomean"] = math.exp(sum(math.log(s) for s in scores) / len(scores)) if scores else None
    worst = max((r for r in group if r["score"] is not None), key=lambda r: abs(math.log(r["score"])), default=None)
    out["worst"] = None if worst is None else {"id": worst["id"], "score": worst["score"]}
    out["misses"] = [r["id"] for r in group if r["score"] is None]
    return out


def summarise(scored: list[dict]) -> dict:
    """The summary over the scored records (those with a role of ``scored`` or ``ratio``), all and per category.

    ``within_1.25`` and ``within_2`` are shares of *all* scored rows (a row that could not be predicted
    counts as a miss); ``geomean`` is the geometric mean of the scores there are; ``worst`` the row
    farthest from 1 (in log); ``misses`` the scored rows without a score.
    """
    cats: dict[str, list] = {}
    for r in scored:
        cats.setdefault(r["category"], []).append(r)
    return {"all": _stats(scored), "categories": {c: _stats(g) for c, g in cats.items()}}
