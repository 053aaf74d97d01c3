"""``triton.testing.perf_report``, ``Benchmark`` and ``Mark``: a sweep of a benchmark function, as a table and a plot.

``@perf_report(Benchmark(...))`` turns a function into a :class:`Mark`; ``mark.run(print_data=True,
show_plots=..., save_path=...)`` calls it for every x value and every line, as Triton's does, prints
the table (one column per line, ``name (ylabel)``), draws the plot with matplotlib and, with
``save_path``, writes ``<plot_name>.csv``, ``<plot_name>.png`` and ``results.html`` there. Every table
and plot says where its numbers come from (:func:`~kernellab.triton.timing.measure_label`: the model's
predicted GPU time by default), and a cell whose function launched no kernellab kernel says it could
not be predicted instead of showing a number.

**Every launch of a benchmark function is sampled.** While ``Mark.run`` calls the function (predicted
time, the default), each kernellab launch it makes runs a stratified sample of its programs
(:mod:`kernellab.triton.executor.sampling`, with that module's error bound on the predicted time), not only
the launches inside ``do_bench``: a benchmark that runs a forward pass to time the backward pass
(``o = fn()`` and then ``do_bench(lambda: o.backward(do))``, as Triton's fused-attention tutorial
does) would otherwise simulate a GPU-sized launch in full. Outputs of the programs not simulated are
NaN, so a benchmark function that checks a result fails instead of passing by chance; check results
outside the benchmark, as Triton's tutorials do. With CPU timing (``set_measure("cpu")``) every
program runs. Calling the function directly (``bench(...)``, not ``bench.run``) runs it as written.

Examples
--------
>>> import numpy as np
>>> import kernellab.triton as triton
>>> import kernellab.triton.language as tl
>>> @triton.jit
... def copy(x_ptr, y_ptr, BLOCK: tl.constexpr):
...     offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
...     tl.store(y_ptr + offs, tl.load(x_ptr + offs))
>>> @perf_report(Benchmark(x_names=["n"], x_vals=[1 << 16, 1 << 20], line_arg="provider",
...                        line_vals=["triton", "numpy"], line_names=["Triton", "NumPy"],
...                        ylabel="GB/s", plot_name="copy", args={}))
... def bench(n, provider):
...     x = np.ones(n, np.float32); y = np.empty_like(x)
...     if provider == "triton":
...         ms = triton.testing.do_bench(lambda: copy[(n // 1024,)](x, y, BLOCK=1024))
...     else:
...         ms = triton.testing.do_bench(lambda: np.copyto(y, x))
...     return 2 * x.nbytes * 1e-9 / (ms * 1e-3)
>>> # 2·n·4 B ÷ (2·n·4 B from DRAM at its sustained 0.79 × 3.35 TB/s, after one round trip, + do_bench's 4.28 µs
>>> # launch); 64 programs at n = 65536 wait out their one round trip, loaded by those bytes (0.52 µs,
>>> # kernellab.model.loaded), the SM's share of the L2 serving each one's 4 KiB (9.9 TB/s ÷ 64 SMs: 0.03 µs,
>>> # kernellab.model.l2queue) and their work: 0.58 µs, more than the 0.2 µs of transfer after 0.35 µs
>>> table = bench.run(print_data=True, return_df=True)
copy:
(GB/s from the GPU time predicted by kernellab's model on the H100 SXM, launch included, as do_bench reads it from a cold L2 (not measured))
      n  Triton (GB/s)  NumPy (GB/s)
-------  -------------  ----------------------------------
  65536        107.916  not predicted: no kernellab launch
1048576        1077.78  not predicted: no kernellab launch
"""

from __future__ import annotations

import csv
import math
import os
import warnings
from dataclasses import dataclass, field
from typing import Any

from kernellab.i18n import _

from ..tables import Table
from . import timing
from .executor import sampling


@dataclass
class Benchmark:
    """One sweep: the x axis (``x_names`` take each of ``x_vals``), one line per value of ``line_arg``, the
    fixed ``args``, and how to label and draw it, as ``triton.testing.Benchmark``."""

    x_names: list
    x_vals: list
    line_arg: str
    line_vals: list
    line_names: list
    plot_name: str
    args: dict = field(default_factory=dict)
    xlabel: str = ""
    ylabel: str = ""
    x_log: bool = False
    y_log: bool = False
    styles: Any = None


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _text(v) -> str:
    if isinstance(v, timing.NotPredicted):
        return _("not predicted: no kernellab launch")
    if isinstance(v, float):
        return "nan" if math.isnan(v) else f"{v:.6g}"
    return str(v)


class Mark:
    """A benchmark function and its sweeps (what ``@perf_report`` returns); :meth:`~kernellab.triton.benchmark.Mark.run` runs them."""

    def __init__(self, fn, benchmarks):
        self.fn = fn
        self.benchmarks = benchmarks

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)

    def _sweep(self, bench: Benchmark, **kwargs):
        rows = []
        for x in bench.x_vals:
            xs = list(x) if isinstance(x, (list, tuple)) else [x] * len(bench.x_names)
            if len(xs) != len(bench.x_names):
                raise ValueError(_("benchmark {name}: x value {x} has {n} entries for the {m} x_names {names}").format(
                    name=bench.plot_name, x=x, n=len(xs), m=len(bench.x_names), names=bench.x_names))
            means, lows, highs = [], [], []
            for y in bench.line_vals:
                with sampling.sampled(enabled=timing.current_measure() == "predicted"):  # see the module
                    ret = self.fn(**dict(zip(bench.x_names, xs)), **{bench.line_arg: y}, **bench.args, **kwargs)
                if isinstance(ret, (list, tuple)) and len(ret) == 3:
                    mean, low, high = ret
                else:
                    mean, low, high = ret, None, None
                means.append(mean)
                lows.append(low)
                highs.append(high)
            rows.append((xs, means, lows, highs))
        return rows

    def _run(self, bench: Benchmark, save_path: str, show_plots: bool, print_data: bool, **kwargs):
        timing.forget_timers()
        rows = self._sweep(bench, **kwargs)
        label = timing.measure_label(timers=timing.timers_used())  # what the sweep's predictions stand for
        headers = list(bench.x_names) + [f"{name} ({bench.ylabel})" for name in bench.line_names]
        table = Table(headers, [[_text(v) for v in xs + means] for xs, means, _l, _h in rows])
        caption = "({})".format(_("{ylabel} from the {label}").format(
            ylabel=bench.ylabel, label=label)) if bench.ylabel else f"({label})"
        if bench.plot_name and (show_plots or save_path):
            self._plot(bench, rows, caption, save_path, show_plots)
        if print_data:
            print(bench.plot_name + ":")
            print(caption)
            print(table.to_text())
        if save_path:
            os.makedirs(save_path, exist_ok=True)
            with open(os.path.join(save_path, f"{bench.plot_name}.csv"), "w", newline="", encoding="utf-8") as f:
                w = csv.writer(f)
                w.writerow([f"# {caption}"])
                w.writerow(headers)
                w.writerows([[_text(v) for v in xs + means] for xs, means, _l, _h in rows])
        return self._frame(table)

    @staticmethod
    def _frame(table: Table):
        try:
            import pandas as pd
        except ImportError:
            return table
        return pd.DataFrame(table.rows, columns=table.headers)

    @staticmethod
    def _plot(bench: Benchmark, rows, caption: str, save_path: str, show_plots: bool):
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots()
        xs = [r[0][0] for r in rows]
        for i, name in enumerate(bench.line_names):
            ys = [float(r[1][i]) if _number(r[1][i]) else math.nan for r in rows]
            color, style = (bench.styles[i] if bench.styles and i < len(bench.styles) else (None, None))
            unpredicted = all(isinstance(r[1][i], timing.NotPredicted) for r in rows)
            line = f"{name} ({bench.ylabel})" + (" — " + _("not predicted") if unpredicted else "")
            ax.plot(xs, ys, label=line, color=color, ls=style)
            lo = [r[2][i] for r in rows]
            hi = [r[3][i] for r in rows]
            if all(_number(v) for v in lo + hi):
                ax.fill_between(xs, [float(v) for v in lo], [float(v) for v in hi], alpha=0.15, color=color)
        ax.legend()
        ax.set_xlabel(bench.xlabel or bench.x_names[0])
        ax.set_ylabel(bench.ylabel)
        ax.set_title(f"{bench.plot_name}\n{caption}", fontsize=9)
        ax.set_xscale("log" if bench.x_log else "linear")
        ax.set_yscale("log" if bench.y_log else "linear")
        if save_path:
            os.makedirs(save_path, exist_ok=True)
            fig.savefig(os.path.join(save_path, f"{bench.plot_name}.png"))
        if show_plots:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a non-interactive backend cannot show: nothing to do
                plt.show()
        plt.close(fig)

    def run(self, show_plots=False, print_data=False, save_path="", return_df=False, **kwargs):
        """Run every sweep; print (``print_data``), plot (``show_plots``), save (``save_path``) as Triton's.
        With ``return_df``, the table (a pandas DataFrame when pandas is installed, else a
        :class:`~kernellab.Table`), or a list of them for a list of benchmarks."""
        single = isinstance(self.benchmarks, Benchmark)
        benchmarks = [self.benchmarks] if single else list(self.benchmarks)
        results = []
        try:
            for bench in benchmarks:
                results.append(self._run(bench, save_path, show_plots, print_data, **kwargs))
        finally:
            if save_path:
                os.makedirs(save_path, exist_ok=True)
                with open(os.path.join(save_path, "results.html"), "w", encoding="utf-8") as f:
                    f.write("<html><body>\n")
                    for bench in benchmarks[:len(results)]:
                        f.write(f'<image src="{bench.plot_name}.png"/>\n')
                    f.write("</body></html>\n")
        if return_df:
            return results[0] if single else results
        return None


def perf_report(benchmarks):
    """Mark a function for benchmarking: ``@perf_report(Benchmark(...))`` (or a list of them) returns a :class:`~kernellab.triton.benchmark.Mark`."""
    return lambda fn: Mark(fn, benchmarks)


__all__ = ["Benchmark", "Mark", "perf_report"]
