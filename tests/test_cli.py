"""``python -m kernellab profile``: two gallery scripts, a failing script, --kernel, the exports; and the
per-line sums over every launch of every gallery script (``-m gallery``)."""

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kernellab.cli import main, parse

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "MPLBACKEND": "Agg", "KERNELLAB_LANG": "en", "KERNELLAB_DISPLAY": "text", "OPENBLAS_NUM_THREADS": "1",
       "PYTHONPATH": str(ROOT)}


def profile(*args, cwd):
    return subprocess.run([sys.executable, "-m", "kernellab", "profile", *map(str, args)], cwd=cwd, env=ENV,
                          capture_output=True, text=True, timeout=300)


def profile_here(*args, capsys):
    """``python -m kernellab profile ARGS`` in this process (main(), as ``__main__`` calls it): its exit status and
    output. The process boundary is test_a_failing_script_prints_what_it_recorded_then_the_error's point, not
    this one's: here the two gallery scripts' reports and exports."""
    import matplotlib as mpl
    import matplotlib.pyplot as plt

    with mpl.rc_context():  # the pages set the CJK font: rcParams as they were afterwards
        status = main(["profile", *map(str, args)])
    plt.close("all")  # the pages' figures, drawn under Agg and never shown
    out = capsys.readouterr()
    return subprocess.CompletedProcess(args, status, out.out, out.err)


def test_two_gallery_scripts_report_every_launch_and_export_per_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("KERNELLAB_DISPLAY", "text")
    script = ROOT / "gallery" / "lecture10" / "01_naive_and_coalescing.py"
    proc = profile_here(script, "--lines", "--json", tmp_path / "out.json", capsys=capsys)
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads((tmp_path / "out.json").read_text())
    assert [d["kernel"] for d in data][:2] == ["sgemm_naive", "sgemm_global_mem_coalesce"]
    naive = data[0]
    assert proc.stdout.count("GPU Speed Of Light") == len(data) and "uncoalesced global accesses: line" in proc.stdout
    for d in data:  # the lines' sectors and instructions add up to the launch's
        for name in ("l1tex__t_sectors_pipe_lsu_mem_global.sum", "smsp__inst_executed.sum", "dram__bytes.sum"):
            assert sum(row["metrics"][name] for row in d["lines"]) == d["metrics"][name]
    a_line = next(r for r in naive["lines"] if r["source"].startswith("a = blk.load(A"))
    assert a_line["metrics"]["l1tex__average_t_sectors_per_request_pipe_lsu_mem_global.ratio"] == 32.0

    script = ROOT / "gallery" / "triton_notes" / "05_bank_conflicts.py"
    proc = profile_here(script, "--kernel", "through_shared", "--csv", tmp_path / "out.csv", "--gpu", "H100", capsys=capsys)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "vector_read" not in proc.stdout and "H100 SXM" in proc.stdout
    # the unpadded tile read down a column: 32 load requests of 32 wavefronts (ideal 1) and 32 conflict-free
    # stores: 32·31 = 992 of 32·32 + 32 = 1056 wavefronts are extra (no --lines: the kernel as a whole)
    assert "bank conflicts: 992 of the 1056 shared wavefronts are extra (94 %" in proc.stdout
    with (tmp_path / "out.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert {r["kernel"] for r in rows} == {"through_shared"}
    # the page's first five launches (no --lines) have no rows per line; its last two ask for lines=True
    assert all(r["line"] == "" for r in rows if int(r["id"]) < 5) and any(r["line"] for r in rows)
    assert any(r["metric"] == "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum" and r["value"] == "992"
               for r in rows)


FAILING = '''
import numpy as np
from kernellab import launch

def copy(blk, x, y):
    blk.store(y, blk.tx, blk.load(x, blk.tx))

launch(copy, 1, 32, args=(np.ones(32, np.float32), np.empty(32, np.float32)))
raise RuntimeError("the script fails after one launch")
'''


def test_a_failing_script_prints_what_it_recorded_then_the_error(tmp_path):
    (tmp_path / "bad.py").write_text(FAILING)
    proc = profile("bad.py", "--lines", cwd=tmp_path)
    assert proc.returncode == 1
    assert "[0] copy (simt" in proc.stdout and "Memory Workload Analysis" in proc.stdout
    assert "the script raised, after 1 launches" in proc.stderr
    assert proc.stderr.rstrip().endswith("RuntimeError: the script fails after one launch")
    assert 'bad.py", line 9' in proc.stderr and "runpy" not in proc.stderr  # the script's frames only


def test_a_kernel_matching_nothing_lists_the_launched_kernels(tmp_path, capsys):
    (tmp_path / "ok.py").write_text(FAILING.replace('raise RuntimeError("the script fails after one launch")', ""))
    assert main(["profile", str(tmp_path / "ok.py"), "--kernel", "axpy"]) == 1
    assert "no launch of kernel 'axpy'; the script launched: copy" in capsys.readouterr().err
    assert main(["profile", str(tmp_path / "ok.py"), "--kernel", "regex:^co"]) == 0
    assert "[0] copy" in capsys.readouterr().out


def test_options_and_script_arguments():
    a = parse(["--gpu", "H100", "s.py", "--n", "3", "--csv", "o.csv", "--", "--json", "x"])
    assert (a.gpu, a.script, a.args, a.csv, a.json, a.lines) == ("H100", "s.py", ["--n", "3", "--json", "x"], "o.csv",
                                                                 None, False)
    with pytest.raises(SystemExit):
        parse(["s.py", "--csv", "a", "--json", "b"])
    assert main([]) == 2 and main(["--help"]) == 0


GALLERY = sorted((ROOT / "gallery").glob("**/*.py"))
CHECK = '''
import sys
from dataclasses import fields
from kernellab import Counts, TritonCounts
from kernellab.cli import run_script

off, err = run_script(sys.argv[1], [], False)
assert err is None, err
on, err = run_script(sys.argv[1], [], True)
assert err is None, err
assert len(on) == len(off)  # a page may launch nothing (the occupancy page models only)
for a, b in zip(off, on):
    assert a.name == b.name and a.counts == b.counts, a.name
    c = b.counts
    if isinstance(c, Counts):
        assert c.by_line.total(Counts(shape=c.shape)) == c, a.name
    else:
        t = c.by_line.total(TritonCounts())
        for f in fields(TritonCounts):
            if f.name not in ("programs", "dram_sectors", "per_program", "by_line", "launch", "specialization"):
                assert getattr(t, f.name) == getattr(c, f.name), (a.name, f.name)
        assert {k: v for k, v in t.dram_sectors.items() if v} == c.dram_sectors, a.name  # first touches
print(len(on), "launches")
'''


@pytest.mark.gallery
@pytest.mark.parametrize("script", GALLERY, ids=[str(p.relative_to(ROOT / "gallery")) for p in GALLERY])
def test_every_gallery_launch_rows_sum_to_its_totals(script, tmp_path):
    (tmp_path / "check.py").write_text(CHECK)
    proc = subprocess.run([sys.executable, "check.py", str(script)], cwd=tmp_path, env=ENV, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
