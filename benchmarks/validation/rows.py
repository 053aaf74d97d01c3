"""The published measurements (``validation.csv``), the GPU each names, and how each row is scored.

``validation.csv`` is a copy of the team's ``reference/validation.csv`` (its notes, ``validation.md``, are
summarised in this folder's ``README.md``): 57 measurements other people made on real GPUs and
published, each with its size, config, GPU, value, unit and source.

How a row counts (issue 32, item 11):

* :data:`REFERENCE`: the reference rows of the low-confidence source, reported, not scored;
* :data:`NOT_SCORED`: an envelope (AF-18) and a noise floor (GL-10), reported, not scored;
* :data:`RATIO_TO`: the low-confidence rows scored on their ratio to a reference row of the same
  source, ``(pred_row / pred_ref) / (meas_row / meas_ref)``, never on their absolute value;
* rows marked in-sample (``in_sample.py``: they fitted an efficiency) are reported, not scored;
* every other row is scored on its own. That leaves 49 scored rows; a scored row that cannot be
  predicted (its kernel cannot be expressed, its GPU has no spec) stays in the 49 as a miss.

Examples
--------
>>> rows = load_rows()
>>> len(rows), rows["GS-01"].measured, rows["GS-01"].unit
(57, 121.1, 'TFLOP/s')
>>> len(scored_ids(rows, in_sample=()))
49
>>> resolve_gpu("H100 (variant not stated)")[0].name
'H100 SXM'
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

from kernellab import A100, H100, specs

#: The A100 80GB PCIe's spec; None on a kernellab that has none (commit 75152b7, the "before" run: GL-17 a miss)
A100_PCIE = getattr(specs, "A100_PCIE", None)

HERE = Path(__file__).resolve().parent
CSV = HERE / "validation.csv"

#: The low-confidence source's reference rows: reported, not scored (the rows of RATIO_TO divide by them).
REFERENCE = ("EW-07", "EW-09", "GL-14", "MB-01", "MB-04", "LA-03")
#: Rows reported without a score, and why.
NOT_SCORED = {"AF-18": "an envelope ('up to 73 % of peak'), not one configuration",
              "GL-10": "the same cuBLAS call as GL-01 on a second machine: a noise floor, not a target"}
#: Low-confidence rows scored on their ratio to a reference row of the same source.
RATIO_TO = {"EW-06": "EW-07", "GL-16": "GL-14", "MB-03": "MB-04", "LA-01": "LA-03"}
#: The window of a hit and the wider window, on the ratio predicted time ÷ measured time.
WINDOWS = ((0.8, 1.25), (0.5, 2.0))


class UnknownGPUError(LookupError):
    """A row names a GPU that kernellab has no spec for (``kernellab.specs``)."""


@dataclass(frozen=True)
class Row:
    """One published measurement, as ``validation.csv`` gives it."""

    id: str
    category: str
    kernel: str
    size: str
    dtype: str
    config: str
    gpu: str
    measured: float  # the value, in ``unit`` (an envelope's bound for AF-18)
    unit: str
    source: str
    confidence: str


def _value(text: str) -> float:
    """The number a ``measured`` cell states: ``"≤ 228 (73 % of 312)"`` is 228."""
    m = re.search(r"[-+]?\d+(?:\.\d+)?", text.replace(",", ""))
    if m is None:
        raise ValueError(f"validation.csv: no number in the measured value {text!r}")
    return float(m.group(0))


def load_rows(path: Path = CSV) -> dict[str, Row]:
    """Every row of the CSV, by id, in the file's order."""
    with open(path, newline="", encoding="utf-8") as f:
        return {r["id"]: Row(**{**r, "measured": _value(r["measured"])}) for r in csv.DictReader(f)}


def resolve_gpu(text: str):
    """``(kernellab GPU, assumption or None)`` for a row's GPU column; :class:`UnknownGPUError` naming it otherwise.

    An A100 or H100 whose variant is not stated is predicted on the SXM spec, and the assumption is returned.
    The A100 80GB PCIe (GL-17) has a spec of its own (``kernellab.specs.A100_PCIE``: NVIDIA's datasheet
    figures, 1935 GB/s at 300 W; its measured rates are the SXM part's); no other PCIe part has one.
    """
    if "PCIe" in text:
        if A100_PCIE is not None and text.startswith("A100") and "80GB" in text.replace(" ", ""):
            return A100_PCIE, None
        raise UnknownGPUError(f"no kernellab spec for the GPU {text!r} (kernellab.specs models the A100 PCIe 80GB; "
                              "no other PCIe part has a sourced spec)")
    for key, gpu in (("A100", A100), ("H100", H100)):
        if text.startswith(key):
            stated = "SXM" in text
            return gpu, None if stated else f"variant not stated: predicted on the {gpu.name}"
    raise UnknownGPUError(f"no kernellab spec for the GPU {text!r}")


def role(row_id: str, in_sample=()) -> str:
    """How a row counts: ``"reference"``, ``"not scored"``, ``"in-sample"``, ``"ratio"`` or ``"scored"``."""
    if row_id in REFERENCE:
        return "reference"
    if row_id in NOT_SCORED:
        return "not scored"
    if row_id in in_sample:
        return "in-sample"
    if row_id in RATIO_TO:
        return "ratio"
    return "scored"


def scored_ids(rows, in_sample=()) -> list[str]:
    """The ids of the rows that are scored (on their own or on a ratio), in the file's order."""
    return [i for i in rows if role(i, in_sample) in ("scored", "ratio")]
