"""The model beside the measurement: every simulated SGEMM kernel, scaled, predicted, and set against
Boehm's GFLOP/s on the RTX A6000 (facts.md §1.1).
"""

from __future__ import annotations

import numpy as np

from ..specs import A6000, GPU, PERF_A6000, Perf
from .bounds import predict


def compare_kernels(n_sim: int = 128, n: int = 4096, perf: Perf = PERF_A6000, gpu: GPU = A6000,
                    kernels=None, seed: int = 0) -> list[dict]:
    """Run each kernel on the simulator at M = N = K = ``n_sim``, scale its counts to ``n``, predict, compare.

    For each kernel (``kernellab.simt.KERNELS`` unless ``kernels`` is given): run it on random
    ``n_sim × n_sim`` FP32 matrices, check C against a float64 reference, carry the counts to ``n`` with
    ``scale_counts``, and ``predict`` on ``perf``. A row holds:

    * ``name``, ``label`` — the CUDA function name and Boehm's README label;
    * ``predicted`` — the model's GFLOP/s; ``bound`` — the binding resource;
    * ``measured`` — Boehm's GFLOP/s (the spec's ``boehm``; None if it has none);
    * ``ratio`` — measured ÷ predicted (below 1: the kernel falls short of its bound);
    * ``max_error`` — the largest ``|C − A·B|`` at ``n_sim``; ``prediction`` — the whole ``predict`` dict.

    Boehm measured on the A6000; against another GPU's rates the ratio compares different machines.

    Examples
    --------
    The naive kernel: 33 lines per 32 FMAs make it L1-bound at ≈ 293 GFLOP/s; Boehm measured 309.

    >>> from kernellab.simt import KERNELS
    >>> row, = compare_kernels(kernels=KERNELS[:1])
    >>> row["name"], row["bound"], round(row["predicted"]), row["measured"], f"{row['ratio']:.2f}"
    ('sgemm_naive', 'L1', 293, 309.0, '1.05')
    """
    from ..simt import KERNELS, run_kernel, scale_counts  # the simulator sits below the model

    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n_sim, n_sim)).astype(np.float32)
    B = rng.standard_normal((n_sim, n_sim)).astype(np.float32)
    ref = A.astype(np.float64) @ B.astype(np.float64)
    # FP32 accumulation of K products: allow K × 4 ulp of the largest product
    tol = 4 * n_sim * float(np.finfo(np.float32).eps) * float(np.abs(A).max() * np.abs(B).max())
    rows = []
    for spec in KERNELS if kernels is None else kernels:
        C, counts = run_kernel(spec, A, B, gpu=gpu)
        err = float(np.abs(C - ref).max())
        if not err <= tol:
            raise RuntimeError(f"kernel {spec.name} computed a wrong C at {n_sim}³: max error {err:.3g} > {tol:.3g}")
        p = predict(spec, scale_counts(counts, n), n, perf, gpu)
        measured = getattr(spec, "boehm", None)
        rows.append({
            "name": spec.name, "label": getattr(spec, "label", spec.name),
            "predicted": p["gflops"], "bound": p["bound"], "measured": measured,
            "ratio": None if measured is None else measured / p["gflops"],
            "max_error": err, "prediction": p,
        })
    return rows
