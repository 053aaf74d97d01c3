"""kernellab's warp instructions equal those of the code real Triton 3.9 compiles (no Triton needed here).

``kernellab/compiled_counts.json`` holds, for every launch of tests/compiled_cases.py, the global loads
and stores of its PTX for sm_80 and sm_90, compiled with nothing known about the arguments and with
the specialisation ``triton.jit`` gives them (``nox -s compiled`` rewrites it). A PTX instruction runs
in every thread, so per program it is ``num_warps`` warp instructions. Each case is launched here the
same two ways; its loads and stores per program must equal the compiled ones, so must its MMA
instructions (``mma.sync`` on sm_80, ``wgmma`` on sm_90, per warp), and the launch must show the same
specialisation.
"""

import json
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "conformance"))
from compiled_cases import CASES, source  # noqa: E402
from conftest import load_source  # noqa: E402

from kernellab.triton.specialize import nothing_known  # noqa: E402

REFERENCE = json.loads((HERE.parent / "kernellab" / "compiled_counts.json").read_text())["cases"]
TARGETS = ("sm_80", "sm_90")


def test_the_reference_covers_enough():
    kernels = {(c.source, c.kernel) for c in CASES}
    assert len(kernels) >= 20 and set(REFERENCE) == {c.id for c in CASES}
    for entry in REFERENCE.values():
        assert {f"{t}/{s}" for t in TARGETS for s in ("none", "jit")} <= set(entry)


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("compiled")
    loaded = {}

    def get(case):
        if case.source not in loaded:
            loaded[case.source] = load_source(f"kl_compiled_{len(loaded)}", source(case, ours=True), tmp)
        return getattr(loaded[case.source], case.kernel)

    return get


def compiled(case, target, spec):
    """Global load and store warp instructions per program of the compiled code (cp.async are loads)."""
    r = REFERENCE[case.id][f"{target}/{spec}"]
    w = r["num_warps"]
    return (sum(r["ld_global"].values()) + r["cp_async"]) * w, sum(r["st_global"].values()) * w


@pytest.mark.parametrize("spec", ["none", "jit"])
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_instructions_equal_the_compiled_code(case, spec, modules):
    kernel = modules(case)
    if spec == "none":
        kernel = nothing_known(kernel)
    cnt = kernel[case.grid](*case.arrays(), **case.meta, num_warps=case.num_warps)
    ours = (cnt.load_instructions / cnt.programs, cnt.store_instructions / cnt.programs)
    for target in TARGETS:
        assert ours == compiled(case, target, spec), target
        r = REFERENCE[case.id][f"{target}/{spec}"]  # MMA instructions of the PTX, run by every warp
        assert getattr(cnt, "mma_" + target.replace("_", "")) / cnt.programs == r["mma"] * r["num_warps"], target
    marks = REFERENCE[case.id][f"sm_90/{spec}"]["specialised"]
    assert cnt.specialization == {k: v for k, v in marks.items() if k not in kernel.constexprs}
