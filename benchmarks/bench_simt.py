"""Seconds the SIMT simulator needs per SGEMM kernel at 128³, with every counter and racecheck on.

Run: ``python benchmarks/bench_simt.py [n] [repeats]``. The target (issue 14): every kernel ≤ 0.1 s
at 128³ (numba's CUDA simulator takes about 6.5 s for k1; ``bench_speed.py`` measures it beside).
"""

import sys
import time

import numpy as np

from kernellab import KERNELS, run_kernel


def bench(n: int = 128, repeats: int = 3) -> list[tuple[str, float]]:
    """Best-of-``repeats`` wall time of ``run_kernel`` for every kernel at n³."""
    rng = np.random.default_rng(0)
    A = rng.standard_normal((n, n)).astype(np.float32)
    B = rng.standard_normal((n, n)).astype(np.float32)
    rows = []
    for spec in KERNELS:
        best = float("inf")
        for _ in range(repeats):
            t0 = time.perf_counter()
            run_kernel(spec, A, B)
            best = min(best, time.perf_counter() - t0)
        rows.append((f"k{spec.number} {spec.name}", best))
    return rows


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 128
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    print(f"{'kernel':36s} {'seconds':>8s}   (n = {n}, best of {repeats})")
    for name, t in bench(n, repeats):
        print(f"{name:36s} {t:8.3f}")
