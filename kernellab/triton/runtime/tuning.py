"""The table of an autotuner's last tuning (each config's predicted time on the modelled GPU, the term that sets
it, the SMs used, FLOPs and DRAM bytes, fastest first, the chosen one marked: ``kernel.config_table()``) and the
choice among configs predicted equally fast."""

from __future__ import annotations

import warnings

from kernellab.i18n import _

from ...errors import ModelWarning
from ...model.bounds import estimate_label, launch_seconds, predict
from ...model.persm import DEFAULT_REGS, triton_resources
from ...tables import Table
from .driver import gpu as modelled_gpu


def config_table(tuner) -> Table:
    """The configs ``tuner`` (an :class:`~kernellab.triton.runtime.autotuner.Autotuner`) last ran, fastest first:
    predicted time on the modelled GPU, the term that sets the estimate (``estimate_bound``: a pipe, DRAM, L2,
    latency or atomics), the SMs the grid uses, FLOPs and DRAM bytes, and which was chosen."""
    gpu = modelled_gpu()
    rows = []
    for cfg, cnt in _ranked(tuner):
        p = tuner.predictions.get(cfg) or prediction(cnt)
        rows.append([("→ " if cfg == tuner.best_config else "  ") + _config_text(cfg),
                     f"{tuner.configs_timings[cfg][0] * 1e3:.4g}", p["term"], p["sms_used"], cnt.flops,
                     cnt.dram_bytes])
    return Table([_("config"), _("predicted time on the {gpu}, launch included (µs)").format(gpu=gpu.name),
                  _("bound by"), _("SMs used"), _("FLOPs"), _("DRAM bytes")], rows)


def _ranked(tuner) -> list:
    """``tuner.trials``' (config, counts) pairs fastest first; configs predicted equally fast (each within a part in
    10⁹ of the fastest of its group, as :func:`fastest` ties them) in the tie-break's order, so the chosen one
    leads its group."""
    order = list(tuner.trials)
    groups: list[list] = []
    for kv in sorted(tuner.trials.items(), key=lambda kv: tuner.configs_timings[kv[0]][0]):
        t = tuner.configs_timings[kv[0]][0]
        if groups and t <= tuner.configs_timings[groups[-1][0][0]][0] * (1 + 1e-9):
            groups[-1].append(kv)
        else:
            groups.append([kv])
    return [kv for g in groups for kv in sorted(
        g, key=lambda kv: (-tuner.predictions.get(kv[0], {"sms_used": 0})["sms_used"], order.index(kv[0])))]


def fastest(tuner, configs: list, timings: dict):
    """The config of ``configs`` predicted fastest; among those within a part in 10⁹ of it, the one using the
    most SMs (``tuner.predictions``), then the one listed first (see :mod:`kernellab.triton.runtime.autotuner`)."""
    best = min(timings[c][0] for c in configs)
    tied = [c for c in configs if timings[c][0] <= best * (1 + 1e-9)]
    return min(tied, key=lambda c: (-tuner.predictions.get(c, {"sms_used": 0})["sms_used"], configs.index(c)))


def prediction(cnt) -> dict:
    """What the table and the tie-break read of a trial's prediction: the term that sets its estimate
    (in the reader's language, ``-`` for counts that charge nothing) and the SMs its grid uses."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        try:
            p = predict(cnt, modelled_gpu())
        except ValueError:  # counts that charge nothing: the launch alone
            return {"term": "-", "sms_used": 0}
    return {"term": estimate_label(p["estimate_bound"]), "sms_used": p["sms_used"]}


def registers(counts, num_warps: int) -> int:
    """Registers per thread the residency charges a program of the launch ``counts`` on the modelled GPU
    (:func:`kernellab.model.persm.triton_resources`; :data:`~kernellab.model.persm.DEFAULT_REGS` when the launch
    recorded neither a dot nor a floating-point value): what a compiled kernel's ``n_regs`` reports."""
    regs = triton_resources(getattr(counts, "launch", None) or {}, num_warps, modelled_gpu())[1]
    return DEFAULT_REGS if regs is None else regs


def predicted_ms(made) -> float:
    """The model's time of a trial's launches (:func:`kernellab.triton.launches.recording`) on the modelled GPU
    as ``do_bench`` reads it, ms: one after another, each on the whole GPU, the first after the L2 flush and the
    others after it in the stream (:func:`kernellab.model.bounds.launch_seconds`)."""
    gpu = modelled_gpu()
    return sum(launch_seconds(launch.counts, gpu, first=i == 0) for i, launch in enumerate(made)) * 1e3


def _config_text(cfg) -> str:
    parts = [f"{k}={v}" for k, v in cfg.kwargs.items()]
    return ", ".join(parts + [f"num_warps={cfg.num_warps}", f"num_stages={cfg.num_stages}"])


__all__ = ["config_table", "fastest", "predicted_ms", "prediction"]
