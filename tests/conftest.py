"""Shared test settings: English runtime strings, a headless matplotlib, the site checks only after a build; and
what a new interpreter sees, asked once a test process (``fresh_interpreter``)."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# Agg without importing matplotlib here: pytest-xdist's controller never draws, and a worker imports it
# only when a test does (matplotlib reads MPLBACKEND when it is imported)
if "matplotlib" in sys.modules:
    sys.modules["matplotlib"].use("Agg")
else:
    os.environ["MPLBACKEND"] = "Agg"
os.environ["KERNELLAB_LANG"] = "en"

# The built-site checks need `nox -s docs` first, which runs them itself with KERNELLAB_SITE set.
collect_ignore = [] if os.environ.get("KERNELLAB_SITE") else ["site"]

ROOT = Path(__file__).resolve().parent.parent

# Each fact is taken before anything it must not see is imported: the first right after ``import kernellab``;
# the modules a launch adds before the driver is asked or importlib.metadata imported.
FRESH = textwrap.dedent("""
    import json, sys
    import kernellab
    facts = {"triton_after_import_kernellab": "kernellab.triton" in sys.modules}
    from kernellab import triton_launch, TritonCounts
    import kernellab.triton as t
    facts["names"] = [triton_launch is t.triton_launch, TritonCounts is t.TritonCounts, kernellab.triton is t,
                      "triton_launch" in dir(kernellab), hasattr(kernellab, "no_such_name")]
    facts["metadata_loaded"] = "importlib.metadata" in sys.modules
    import numpy as np
    import kernellab.triton.language as tl
    before = set(sys.modules)
    import kernellab.triton.runner, kernellab.triton.runner.cuda, kernellab.triton.runner.devices
    @t.jit
    def one(x_ptr, B: tl.constexpr):
        tl.store(x_ptr + tl.arange(0, B), 1.0)
    one[(1,)](np.zeros(4, np.float32), B=4)
    facts["new"] = sorted(n for n in set(sys.modules) - before if not n.startswith("kernellab."))
    facts["real"] = sorted(n for n in sys.modules if n.split(".")[0] in ("triton", "torch"))
    facts["sms"] = t.runtime.driver.active.utils.get_device_properties(0)["multiprocessor_count"]
    import importlib.metadata
    with kernellab.triton.runner.activate():
        facts["version"] = importlib.metadata.version("triton")
    print(json.dumps(facts))
""")


@pytest.fixture(scope="session")
def fresh_interpreter() -> dict:
    """What a new interpreter of the default environment (no ``KERNELLAB_GPU``) sees, one interpreter for the tests
    that ask (test_layers, test_runner, test_triton_driver; each asserts its own facts): whether ``import kernellab``
    loaded the mini-Triton, and the names it gives later; whether importlib.metadata was loaded; the modules outside
    kernellab that importing the runner and one launch added, and any real triton or torch module; the modelled
    GPU's SM count; the triton version importlib.metadata answers under the runner."""
    env = {k: v for k, v in os.environ.items() if k != "KERNELLAB_GPU"}
    env.update(KERNELLAB_LANG="en", MPLBACKEND="Agg", PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", FRESH], env=env, capture_output=True, text=True, timeout=120)
    if done.returncode:
        pytest.fail(f"the new interpreter failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])
