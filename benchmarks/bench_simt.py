"""Seconds the SIMT simulator needs per SGEMM kernel at 128³, with every counter and racecheck on; and what
the automatic integer and branch counting (issue 25) costs on kernels written without ``blk.count_instr``.

Run: ``python benchmarks/bench_simt.py [n] [repeats]``. The target (issue 14): every kernel ≤ 0.1 s
at 128³ (numba's CUDA simulator takes about 6.5 s for k1; ``bench_speed.py`` measures it beside).
Boehm's kernels declare their overhead, so they count nothing automatically; the second table runs the
quickstart's axpy and Harris's reductions (``tests/sass_twins.py``) with ``auto_instr`` on and off.
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


def bench_auto(repeats: int = 3) -> list[tuple[str, float, float]]:
    """Best-of-``repeats`` seconds of user kernels with ``auto_instr=False`` and ``True``."""
    from pathlib import Path

    from kernellab import launch

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    import sass_twins as T

    n = 1 << 20
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    cases = [("axpy 2^20", T.axpy, n // 256, lambda: (x, x.copy(), np.zeros(n, np.float32), 2.0, n))]
    cases += [(f"{k} 2^20", getattr(T, k), n // 256, lambda: (x, np.zeros(n // 256, np.float32), n))
              for k in ("reduce1", "reduce3")]
    rows = []
    for name, kernel, grid, args in cases:
        times = []
        for auto in (False, True):
            best = float("inf")
            for _ in range(repeats):
                a = args()
                t0 = time.perf_counter()
                launch(kernel, grid, 256, args=a, auto_instr=auto)
                best = min(best, time.perf_counter() - t0)
            times.append(best)
        rows.append((name, *times))
    return rows


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 128
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    print(f"{'kernel':36s} {'seconds':>8s}   (n = {n}, best of {repeats})")
    for name, t in bench(n, repeats):
        print(f"{name:36s} {t:8.3f}")
    print(f"\n{'user kernel':36s} {'auto off':>8s} {'auto on':>8s}")
    for name, off, on in bench_auto(repeats):
        print(f"{name:36s} {off:8.3f} {on:8.3f}  ({on / off:.2f}×)")
