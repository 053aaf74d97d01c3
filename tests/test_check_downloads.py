"""tools/check_downloads.py runs a script in a process forked from a preloaded one (the downloads
session's fast path) exactly as ``python x.py`` runs it in a new interpreter: the same exit status,
output, ``__name__``, ``sys.argv``, folder, ``sys.path`` and environment, and warnings are errors.

The scripts run both ways in fresh helper interpreters, one for each way (forking from a pytest worker,
which has threads, would not be what the check does: it forks from single-threaded job processes). A
script changes nothing in its helper (it runs in a new interpreter, or in a forked process), so the five
share them: two helpers instead of ten, each case still judged on its own script's outcome.
"""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / "tools"

RUNNER = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, sys.argv[1])
    import check_downloads as cd
    from pathlib import Path
    cd._IN_FORK = sys.argv[2] == "fork"
    env = {**cd.reader_env(), "PYTHONWARNINGS": "error", "ONLY_HERE": "1"}
    outcomes = {}
    for script in map(Path, sys.argv[3:]):
        done = cd._run_python(script, env)
        outcomes[script.stem] = [done.returncode, done.stdout, done.stderr]
    print(json.dumps(outcomes))
""")

SCRIPTS = {
    "where": """
        import os, sys
        print(__name__, os.path.basename(sys.argv[0]), sys.path[0] == os.getcwd(), os.path.basename(__file__))
        print(os.environ.get("ONLY_HERE"), os.environ.get("LANG"), "KERNELLAB_LANG" in os.environ)
        print(any(p.rstrip("/").endswith("tools") for p in sys.path), "kernellab" in sys.modules)
        import helper  # a module beside the script, found through sys.path[0]
        print(helper.VALUE)
    """,
    "warns": """
        import warnings
        print("before")
        warnings.warn("a warning is an error here")
        print("after")
    """,
    "exits": "import sys\nprint('out')\nsys.exit(3)\n",
    "exits_with_message": "import sys\nsys.exit('a message')\n",
    "raises": "print('partial')\nraise ValueError('boom')\n",
}


def _run(mode: str, scripts: list[Path]) -> dict:
    """Each script's [exit status, stdout, stderr], run one after another by one helper in ``mode``."""
    done = subprocess.run([sys.executable, "-c", RUNNER, str(TOOLS), mode, *map(str, scripts)],
                          capture_output=True, text=True, encoding="utf-8", timeout=300, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    """``{"fresh": {name: outcome}, "fork": {name: outcome}}`` for every script of :data:`SCRIPTS`."""
    top = tmp_path_factory.mktemp("downloads")
    (top / "helper.py").write_text("VALUE = 42\n")
    for name, source in SCRIPTS.items():
        (top / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    scripts = [top / f"{name}.py" for name in sorted(SCRIPTS)]
    return {mode: _run(mode, scripts) for mode in ("fresh", "fork")}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the check forks on Linux only")
@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_a_forked_script_runs_as_in_a_new_interpreter(outcomes, name):
    fresh, forked = outcomes["fresh"][name], outcomes["fork"][name]
    assert forked[0] == fresh[0]  # exit status
    assert forked[1] == fresh[1]  # everything printed
    last = [line for line in fresh[2].splitlines() if line.strip()][-1:]  # the error's own line, if any
    assert [line for line in forked[2].splitlines() if line.strip()][-1:] == last
    if name == "where":
        assert fresh[0] == 0 and fresh[1].splitlines() == ["__main__ where.py True where.py", "1 C.UTF-8 False",
                                                           "False False", "42"]
    if name == "warns":
        assert fresh[0] == 1 and fresh[1] == "before\n" and "UserWarning: a warning is an error here" in last[0]
    if name == "exits":
        assert fresh[:2] == [3, "out\n"]
    if name == "exits_with_message":
        assert fresh[0] == 1 and last == ["a message"]
    if name == "raises":
        assert fresh[:2] == [1, "partial\n"] and last == ["ValueError: boom"]
