"""CUDA's fast special functions on lane values, counted on the XU pipe as the SASS issues them.

A GPU computes ``__expf``, ``__logf``, ``rsqrtf``, ``__sinf``, … on the special-function unit (the XU
pipe, SASS ``MUFU.*``): one ``MUFU`` warp instruction per element and lane, at 16 results per clock per
SM on compute capability 8.x and 9.0 (CUDA C++ Programming Guide, "Arithmetic Instructions"), a quarter
of an SM's on each sub-partition. Nsight Compute counts them as ``sm__inst_executed_pipe_xu.sum``.
Some intrinsics are a ``MUFU`` with an FP32 multiply beside it (the argument scaled to base 2, the
quotient multiplied out); those multiplies are FP32 instructions and FLOPs, as Nsight Compute's
``flop_count_sp`` counts them.

:data:`SPECIAL` lists, for each ``blk`` method, the MUFU instruction it issues and the FP32 multiplies
around it, from the PTX the CUDA math headers give each intrinsic (CUDA Math API, "Intrinsic Functions";
PTX ISA ``ex2.approx``, ``lg2.approx``, ``sin.approx``, ``cos.approx``, ``rsqrt.approx``,
``sqrt.approx``, ``rcp.approx``, ``tanh.approx``): ``__expf(x)`` is ``ex2.approx(x · log2 e)``,
``__logf(x)`` is ``lg2.approx(x) · ln 2``, ``__fdividef(a, b)`` is ``a · rcp.approx(b)``, and each
``.approx`` instruction is one ``MUFU``. Checked against the SASS nvcc 13.5 emits (``-O3``, sm_80 and
sm_90) for one-line kernels of each: exactly one ``MUFU`` per call, beside the multiplies counted here
(``FMUL`` by log2 e for ``__expf``, by ln 2 for ``__logf``, ``FMUL.RZ`` by 1/(2π) for ``__sinf`` and
``__cosf``, the quotient's for ``__fdividef``). Not counted: the check of the argument's range
(``FSETP``) and the multiplies predicated on it, which scale denormal arguments.

Examples
--------
>>> import numpy as np
>>> from kernellab.simt import launch
>>> def softplus_ish(blk, x, out):
...     i = blk.bx * blk.bdx + blk.tx
...     blk.store(out, i, blk.logf(blk.fadd(blk.expf(blk.load(x, i)), 1.0)))
>>> x = np.zeros(64, np.float32); out = np.empty_like(x)
>>> c = launch(softplus_ish, 2, 32, args=(x, out))
>>> round(float(out[0]), 5), c.xu_instr, c.fmul, c.fadd     # log(e⁰ + 1); 2 warps × 2 MUFU; 64 lanes × 2 FMUL
(0.69315, 4, 128, 64)
>>> {k: v for k, v in c.instr_by_kind.items() if k.startswith("mufu")}
{'mufu.ex2': 2, 'mufu.lg2': 2}
"""

from __future__ import annotations

import numpy as np

#: ``blk`` method → (CUDA name, numpy function, MUFU kind, FP32 multiplies per element around it).
SPECIAL = {
    "expf": ("__expf", np.exp, "mufu.ex2", 1),          # ex2.approx(x · log2 e)
    "exp2f": ("exp2f (ex2.approx)", np.exp2, "mufu.ex2", 0),
    "logf": ("__logf", np.log, "mufu.lg2", 1),          # lg2.approx(x) · ln 2
    "log2f": ("__log2f", np.log2, "mufu.lg2", 0),
    "sinf": ("__sinf", np.sin, "mufu.sin", 1),          # sin.approx: FMUL.RZ by 1/(2π), then MUFU.SIN
    "cosf": ("__cosf", np.cos, "mufu.cos", 1),
    "sqrtf": ("sqrt.approx", np.sqrt, "mufu.sqrt", 0),
    "rsqrtf": ("rsqrtf", lambda x: 1 / np.sqrt(x), "mufu.rsq", 0),
    "rcpf": ("rcp.approx", lambda x: 1 / x, "mufu.rcp", 0),
    "tanhf": ("tanh.approx", np.tanh, "mufu.tanh", 0),
}
#: The MUFU instruction kinds (``Counts.instr_by_kind`` names), each one warp instruction on the XU pipe.
XU_KINDS = tuple(sorted({k for _c, _f, k, _m in SPECIAL.values()}))


def is_xu(kind: str) -> bool:
    """Whether an instruction kind runs on the XU pipe (a ``MUFU``): ``is_xu("mufu.ex2")`` is True."""
    return kind.startswith("mufu.")


__all__ = ["SPECIAL", "XU_KINDS", "is_xu"]
