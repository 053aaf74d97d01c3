"""The instruction mix of one pass of a kernel's K loop: on the simulator, and in the SASS of its CUDA twin.

``nox -s sass`` compiles the twins in ``cuda/`` for sm_86 and writes ``sass_mix.json`` next to this
module: per kernel, the warp instructions of one pass of the main K loop by SASS class (``FFMA``,
``LDS.128``, ``INT``, …; see :func:`kernellab.counters.sass_class`). :func:`kstep_mix` measures the
same thing on the simulator, so a test can hold the two equal without nvcc.
"""

from __future__ import annotations

import numpy as np

from ..access import WARP_SIZE
from ..counters import instr_mix
from ..grid import cdiv
from .kernels import SASS_MIX_FILE, KernelSpec, _record, run_kernel  # noqa: F401  (SASS_MIX_FILE: its old home)


def sass_mix(name: str) -> dict:
    """The committed SASS record of kernel ``name``: ``loop`` (warp instructions per pass by class),
    ``k_per_pass`` (values of k one pass covers), ``registers`` (per thread) and ``smem_static`` (bytes per
    block), ptxas's resource usage, and ``source``.

    Examples
    --------
    >>> r = sass_mix("sgemm1DBlocktiling")
    >>> r["k_per_pass"], r["loop"]["FFMA"], r["loop"]["LDS.128"], r["loop"]["LDS.32"]
    (8, 64, 16, 8)
    """
    kernels = _record()["kernels"]
    if name not in kernels:
        raise KeyError(f"no SASS record for kernel {name!r}; recorded: {', '.join(kernels)}")
    return kernels[name]


def kstep_mix(spec: KernelSpec) -> dict[str, int]:
    """Warp instructions per warp in one pass of ``spec``'s K loop on the simulator, by SASS class.

    Runs one block tile at K = one pass and at K = two passes (``k_per_pass`` from the SASS record)
    and divides the difference by the warps: what the loop body issues, without the set-up and the
    epilogue.

    Examples
    --------
    >>> from kernellab.sgemm import KERNELS
    >>> kstep_mix(KERNELS[3])   # k4: 8 dot steps × 8 rows per pass
    {'BAR': 2, 'CTRL': 1, 'FFMA': 64, 'INT': 5, 'LDG.32': 2, 'LDS.128': 16, 'LDS.32': 8, 'STS.32': 2}
    """
    kp = sass_mix(spec.name)["k_per_pass"]
    p = spec.params
    m, n = p.get("BM", 32), p.get("BN", 32)
    rng = np.random.default_rng(0)
    mixes = []
    for k in (kp, 2 * kp):
        A = rng.standard_normal((m, k)).astype(np.float32)
        B = rng.standard_normal((k, n)).astype(np.float32)
        mixes.append(instr_mix(run_kernel(spec, A, B)[1]))
    grid, block = spec.grid(m, n, kp), spec.block_for(m, n, kp)
    warps = grid[0] * grid[1] * grid[2] * cdiv(block[0] * block[1] * block[2], WARP_SIZE)
    out = {}
    for cls in sorted(mixes[0].keys() | mixes[1].keys()):
        d = mixes[1].get(cls, 0) - mixes[0].get(cls, 0)
        if d:
            if d % warps:
                raise ValueError(f"{spec.name}: {d} {cls} instructions per pass do not split evenly over {warps} warps")
            out[cls] = d // warps
    return out
