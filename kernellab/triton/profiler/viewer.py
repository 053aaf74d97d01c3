"""``triton.profiler.viewer`` for mini-Triton: read a session's ``.hatchet`` file and print its tree.

``parse(metric_names, file)`` returns ``(tree, metrics)`` and ``print_tree(tree, metrics)`` prints one
line per scope and kernel, indented as proton's viewer indents them, with the metrics asked for:

* ``time/s``, ``time/ms``, ``time/us``, ``time/ns``: the GPU time kernellab's model predicts (summed
  over the node's launches; nothing is measured);
* ``tflop/s``, ``tflop8/s``, ``tflop16/s``, ``tflop32/s``, ``tflop64/s`` (and ``gflop…/s``): as proton,
  the node's declared FLOPs of that width (``flops16`` from the kernels' ``launch_metadata`` or a scope's
  ``metrics``) over its time; a node that declares none uses the FLOPs kernellab counted, of every width;
* ``gbyte/s``, ``tbyte/s``: the declared ``bytes``, else kernellab's DRAM bytes, over the time;
* ``count``: the launches.

A node whose work ran outside kernellab (cuBLAS, torch's own ops) has no predicted time: its time and
rates say "not predicted".

>>> import json, os, tempfile
>>> node = lambda name, m, kids=(): {"frame": {"name": name}, "metrics": m, "children": list(kids)}
>>> leaf = node("matmul", {"count": 2, "flops": 4e12, "bytes": 1e9, "predicted_time (ns)": 4e6,
...                        "metadata/flops16": 4e12})
>>> path = os.path.join(tempfile.mkdtemp(), "p.hatchet")
>>> with open(path, "w") as f:
...     json.dump([node("ROOT", dict(leaf["metrics"]), [leaf, node("cuBLAS", {"metadata/flops16": 4e12})])], f)
>>> tree, metrics = parse(["tflop16/s", "time/ms"], path)
>>> print_tree(tree, metrics)            # 4e12 FLOP in 4 ms: 1000 TFLOP/s
tflop16/s      time/ms        name
1000           4              ROOT
1000           4              ├─ matmul
not predicted  not predicted  └─ cuBLAS
"""

from __future__ import annotations

import json
import re

from kernellab.i18n import _

_TIME = {"time/s": 1e9, "time/ms": 1e6, "time/us": 1e3, "time/ns": 1.0}
_RATE = re.compile(r"^(g|t)(flop|byte)(\d*)/s$")


def _value(metrics: dict, name: str):
    """The metric ``name`` of a node (see the module), or None when it cannot be predicted."""
    t = metrics.get("predicted_time (ns)")
    if name == "count":
        return metrics.get("count", 0)
    if name in _TIME:
        return None if not t else t / _TIME[name]
    m = _RATE.match(name)
    if m is None:
        raise ValueError(_("proton viewer: unknown metric {name!r}; kernellab derives time/s, time/ms, time/us, "
                           "time/ns, count, gflop/s, tflop/s (and tflop8/s, tflop16/s, ...), gbyte/s and tbyte/s")
                         .format(name=name))
    if not t:
        return None
    unit, what, width = m.groups()
    if what == "flop":
        declared = metrics.get(f"metadata/flops{width}") if width else None
        amount = declared if declared is not None else metrics.get("flops", 0)
    else:
        declared = metrics.get("metadata/bytes")
        amount = declared if declared is not None else metrics.get("bytes", 0)
    return amount / t / (1.0 if unit == "g" else 1e3)  # per ns: G/s; ÷ 1000: T/s


def parse(metric_names, filename, include=None, exclude=None, threshold=None):
    """Read ``filename`` (a session's ``.hatchet``) and return ``(tree, metrics)`` for :func:`print_tree`;
    ``include``, ``exclude`` and ``threshold`` are accepted as proton's and filter nothing."""
    with open(filename, encoding="utf-8") as f:
        data = json.load(f)
    tree = data[0] if isinstance(data, list) else data
    metrics = list(metric_names)
    for name in metrics:
        _value({"predicted_time (ns)": 1.0}, name)  # an unknown metric is an error here, before printing
    return tree, metrics


def _text(v) -> str:
    return _("not predicted") if v is None else f"{v:.4g}"


def print_tree(tree, metrics, depth=100, format=None, print_sorted=False):
    """Print the tree: one line per node, its metrics first (see the module)."""
    lines = []

    def walk(node, prefix, last, level):
        label = "" if level == 0 else prefix + ("└─ " if last else "├─ ")
        vals = [_text(_value(node.get("metrics", {}), m)) for m in metrics]
        lines.append((label, vals, node["frame"]["name"]))
        kids = node.get("children", [])
        if print_sorted:
            kids = sorted(kids, key=lambda c: -(c.get("metrics", {}).get("predicted_time (ns)") or 0))
        if level < depth:
            for i, kid in enumerate(kids):
                walk(kid, "" if level == 0 else prefix + ("   " if last else "│  "), i == len(kids) - 1, level + 1)

    walk(tree, "", True, 0)
    widths = [max([len(m)] + [len(vals[i]) for _l, vals, _n in lines]) + 2 for i, m in enumerate(metrics)]
    print("".join(m.ljust(w) for m, w in zip(metrics, widths)) + "name")
    for label, vals, name in lines:
        print("".join(v.ljust(w) for v, w in zip(vals, widths)) + label + name)


__all__ = ["parse", "print_tree"]
