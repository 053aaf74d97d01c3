"""Every gallery script runs as a plain script: its claims (asserts, ``Claims`` tables) count as tests.

Each runs in its own Python process, in English, with a headless matplotlib and a scratch working
directory, exactly as a reader runs it in a terminal. ``pytest -m "not gallery"`` skips them.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = sorted((ROOT / "gallery").glob("**/*.py"))


def test_the_gallery_is_found():
    assert len(SCRIPTS) >= 11, [str(p) for p in SCRIPTS]


@pytest.mark.gallery
@pytest.mark.parametrize("script", SCRIPTS, ids=[str(p.relative_to(ROOT / "gallery")) for p in SCRIPTS])
def test_gallery_script_runs(script, tmp_path):
    env = {**os.environ, "MPLBACKEND": "Agg", "KERNELLAB_LANG": "en", "KERNELLAB_DISPLAY": "text",
           "OPENBLAS_NUM_THREADS": "1", "PYTHONWARNINGS": "error"}
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, f"{script.name} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"
