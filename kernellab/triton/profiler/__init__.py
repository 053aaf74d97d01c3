"""``triton.profiler`` (proton) for mini-Triton: scopes that record kernellab's counts and predicted times.

``proton.start(name)`` opens a session; every kernellab launch made while it is active is filed under
the scopes open at that moment (``with proton.scope("matmul"):``, ``@proton.scope(...)``,
``enter_scope``/``exit_scope``), as a leaf named after its kernel, the way proton's tree keeps GPU
kernels under their host scopes. ``deactivate``/``activate`` pause and resume recording;
``finalize()`` closes the session, prints one row per scope and kernel (launches, FLOPs, DRAM bytes,
and the GPU time the model predicts on the modelled GPU, :mod:`kernellab.triton.runtime.driver`) and writes
``<name>.hatchet``, a JSON tree of the same numbers (:mod:`.viewer` reads it back and derives
``time/ms``, ``tflop16/s`` and proton's other metrics). A kernel's ``launch_metadata`` names its
launches (``"name"``) and adds its metrics (``flops16``, ``bytes``, ...), as in proton; so do the
``metrics`` of a scope. A scope that holds no kernellab launch (cuBLAS, torch's own matmul) keeps its
metrics, and its time says "not predicted". Nothing is measured: the times are predictions,
and the table says so. Launches inside ``triton.testing.do_bench`` are sampled
(:mod:`kernellab.triton.executor.sampling`), their counts estimated.

Examples
--------
>>> import numpy as np
>>> import kernellab.triton as triton
>>> import kernellab.triton.language as tl
>>> @triton.jit
... def fill(out_ptr, BLOCK: tl.constexpr):
...     tl.store(out_ptr + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK), 1.0)
>>> out = np.zeros(1 << 20, np.float32)
>>> session = start("doc", hook="triton", output=None)
>>> with scope("fill twice"):
...     _ = fill[(1024,)](out, BLOCK=1024); _ = fill[(1024,)](out, BLOCK=1024)
>>> deactivate(session); _ = fill[(1024,)](out, BLOCK=1024)     # not recorded
>>> # 4 MiB stored per launch at DRAM's sustained 0.79 × 3.35 TB/s = 1.58 µs, + a round trip 0.35 µs, + do_bench's
>>> # 4.28 µs launch: 6.21 µs each
>>> finalize()
proton session doc: GPU time predicted by kernellab's model on the H100 SXM, launch included, as do_bench reads it from a cold L2 (not measured)
scope            launches  FLOPs  DRAM bytes  predicted time on the H100 SXM, launch included (µs)
---------------  --------  -----  ----------  ----------------------------------------------------
fill twice              2      0     8388608                                                 12.41
fill twice/fill         2      0     8388608                                                 12.41
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from functools import wraps

from kernellab.i18n import _

from ...tables import Table
from .. import launches
from ..runtime.driver import gpu as modelled_gpu
from ..timing import launch_seconds, measure_label

DEFAULT_PROFILE_NAME = "proton"


class _Session:
    """One profiling session: its name, whether it records, and its launches with the scope path of each."""

    def __init__(self, sid: int, name: str, output):
        self.id, self.name, self.output = sid, name, output
        self.active = True
        self.rows: list[tuple[tuple, launches.Launch]] = []
        self.scopes: dict[tuple, dict] = {}  # scope path → the metrics its scope calls passed, summed

    def append(self, launch: launches.Launch):  # called by launches.note for every launch
        if self.active:
            self.rows.append((tuple(_SCOPES), launch))

    def enter(self, metrics: dict | None):
        if self.active:
            row = self.scopes.setdefault(tuple(_SCOPES), {})
            for k, v in (metrics or {}).items():
                row[k] = row.get(k, 0) + v


_SESSIONS: dict[int, _Session] = {}
_SCOPES: list[str] = []
_TOKEN: list = []


def _listen():
    """Make the open sessions the recorders of this context (launches.note reports launches to them)."""
    base = tuple(r for r in launches._RECORDERS.get() if not isinstance(r, _Session))
    launches._RECORDERS.set(base + tuple(_SESSIONS.values()))


def start(name: str | None = None, *, context: str | None = "shadow", data: str | None = "tree",
          backend: str | None = None, mode=None, hook=None, output: str | None = "hatchet") -> int:
    """Open a session named ``name`` (default ``"proton"``) and return its id. ``context``, ``data``,
    ``backend``, ``mode`` and ``hook`` are accepted as proton's; kernellab always records every launch.
    ``output=None`` writes no file at ``finalize``."""
    sid = max(_SESSIONS, default=-1) + 1
    _SESSIONS[sid] = _Session(sid, name or DEFAULT_PROFILE_NAME, output)
    _listen()
    return sid


def _chosen(session):
    if session is None:
        return list(_SESSIONS.values())
    if session not in _SESSIONS:
        raise ValueError(_("no proton session {session}; open ones: {open}").format(
            session=session, open=sorted(_SESSIONS)))
    return [_SESSIONS[session]]


def activate(session: int | None = None) -> None:
    """Resume recording in ``session`` (default: every session)."""
    for s in _chosen(session):
        s.active = True


def deactivate(session: int | None = None, flushing: bool = False) -> None:
    """Pause recording in ``session`` (default: every session); what it recorded stays."""
    for s in _chosen(session):
        s.active = False


def table(session: int | None = None) -> Table:
    """The rows ``finalize`` prints: per scope path and per kernel under it, launches, FLOPs, DRAM bytes and
    the model's predicted time on the modelled GPU (µs, each launch included as ``do_bench`` reads it), summed
    over the session's launches."""
    totals: dict[tuple, list] = {}
    for s in _chosen(session):
        for path in s.scopes:  # scopes in the order they opened, launches or not
            for depth in range(1, len(path) + 1):
                totals.setdefault(path[:depth], [0, 0, 0, 0.0])
        for path, launch in s.rows:
            t = launch_seconds(launch.counts)
            for depth in range(1, len(path) + 2):
                key = (path + (launch.name or launch.kernel,))[:depth]
                row = totals.setdefault(key, [0, 0, 0, 0.0])
                row[0] += 1
                row[1] += launch.counts.flops
                row[2] += launch.counts.dram_bytes
                row[3] += t
    return Table([_("scope"), _("launches"), _("FLOPs"), _("DRAM bytes"), _("predicted time on the {gpu}, launch included (µs)").format(gpu=modelled_gpu().name)],
                 [["/".join(k), n, f, b, f"{t * 1e6:.4g}" if n else _("not predicted: no kernellab launch")]
                  for k, (n, f, b, t) in totals.items()])


def _child(node: dict, name: str) -> dict:
    child = next((c for c in node["children"] if c["frame"]["name"] == name), None)
    if child is None:
        child = {"frame": {"name": name}, "metrics": {}, "children": []}
        node["children"].append(child)
    return child


def _add(node: dict, metrics) -> None:
    for key, v in metrics:
        node["metrics"][key] = node["metrics"].get(key, 0) + v


def _tree(rows, scopes=None) -> dict:
    """The session as proton's tree: per node ``count`` (launches), kernellab's ``flops`` and ``bytes`` (DRAM)
    and ``predicted_time (ns)``, summed over the launches below it, and the ``launch_metadata`` and scope
    metrics under ``metadata/<name>``."""
    root = {"frame": {"name": "ROOT"}, "metrics": {}, "children": []}
    for path, metrics in (scopes or {}).items():
        node = root
        for name in path:
            node = _child(node, name)
        _add(node, ((f"metadata/{k}", v) for k, v in metrics.items()))
    for path, launch in rows:
        own = [("count", 1), ("flops", launch.counts.flops), ("bytes", launch.counts.dram_bytes),
               ("predicted_time (ns)", launch_seconds(launch.counts) * 1e9)]
        meta = [(f"metadata/{k}", v) for k, v in launch.metrics.items() if isinstance(v, (int, float))]
        node = root
        _add(node, own)
        for name in path + (launch.name or launch.kernel,):
            node = _child(node, name)
            _add(node, own)
        _add(node, meta)
    return root


def finalize(session: int | None = None, output_format: str | None = "") -> None:
    """Close ``session`` (default: every session): print its table and write ``<name>.hatchet``."""
    for s in _chosen(session):
        print(_("proton session {name}: {label}").format(name=s.name, label=_label()))
        print(table(s.id).to_text())
        if s.output:
            with open(f"{s.name}.hatchet", "w", encoding="utf-8") as f:
                json.dump([_tree(s.rows, s.scopes)], f, indent=1)
        del _SESSIONS[s.id]
    _listen()


def _label() -> str:
    return measure_label("predicted") if modelled_gpu() else ""


def enter_scope(name: str, *, metrics: dict | None = None) -> int:
    """Open a scope: launches from now on are filed under it (until :func:`exit_scope`); ``metrics`` (such as
    ``{"flops16": ..., "bytes": ...}``) are added to it in the active sessions."""
    _SCOPES.append(str(name))
    for s in _SESSIONS.values():
        s.enter(metrics)
    return len(_SCOPES)


def exit_scope(name: str | None = None, *, metrics: dict | None = None) -> int | None:
    """Close the innermost scope (``name``, when given, must be it)."""
    if not _SCOPES or (name is not None and _SCOPES[-1] != str(name)):
        raise ValueError(_("proton.exit_scope({name!r}) does not match the open scope {open!r}").format(
            name=name, open=_SCOPES[-1] if _SCOPES else None))
    _SCOPES.pop()
    return len(_SCOPES) + 1


class scope:
    """``with proton.scope(name):`` or ``@proton.scope(name)``: file the launches inside under ``name``."""

    def __init__(self, name: str, metrics: dict | None = None):
        self.name, self.metrics = name, metrics

    def __enter__(self):
        enter_scope(self.name, metrics=self.metrics)
        return self

    def __exit__(self, *exc):
        exit_scope(self.name)

    def __call__(self, fn):
        @wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)

        return wrapper


cpu_timed_scope = scope


@contextmanager
def state(name: str):
    """proton's states tag kernels inside a scope; kernellab's table keeps scopes only."""
    yield


def enter_state(name: str) -> None:
    """See :func:`state`."""


def exit_state() -> None:
    """See :func:`state`."""


metadata_state = state


def profile(func=None, *, name: str | None = None, context="shadow", data="tree", backend=None, mode=None, hook=None):
    """``@proton.profile``: run the function inside a session of its own (deactivated when it returns)."""
    def decorate(fn):
        @wraps(fn)
        def wrapper(*args, **kwargs):
            sid = start(name, context=context, data=data, backend=backend, mode=mode, hook=hook)
            try:
                return fn(*args, **kwargs)
            finally:
                deactivate(sid)

        return wrapper

    return decorate if func is None else decorate(func)


def configure_runtime():
    """proton's choice of a ROCm runtime before loading its library: kernellab loads none."""
    return None


__all__ = ["DEFAULT_PROFILE_NAME", "configure_runtime", "activate", "cpu_timed_scope", "deactivate", "enter_scope", "enter_state",
           "exit_scope", "exit_state", "finalize", "metadata_state", "profile", "scope", "start", "state", "table"]
