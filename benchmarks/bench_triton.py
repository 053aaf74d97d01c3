"""Time mini-Triton on the four launches issue 5 sizes, against plain numpy and the 30× target.

Triton's own interpreter (``TRITON_INTERPRET=1``) took 1.1 s, 8 s, 2.0 s and 28 s on these launches;
kernellab, counting, must take at most 1/30 of that. Run ``python benchmarks/bench_triton.py``; it
prints a table and exits non-zero when a target is missed.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
from timing import best

from kernellab import print_table

spec = importlib.util.spec_from_file_location("triton_kernels", Path(__file__).parents[1] / "tests" / "triton_kernels.py")
K = importlib.util.module_from_spec(spec)
spec.loader.exec_module(K)
cdiv = K.triton.cdiv


def cases():
    rng = np.random.default_rng(0)
    n = 1 << 20
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    out = np.empty_like(x)
    yield ("vector add 2^20, BLOCK 1024", 1.1,
           lambda: K.add_kernel[(cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024), lambda: x + y)

    M, N = 4096, 1024
    s = rng.standard_normal((M, N), dtype=np.float32)
    so = np.empty_like(s)

    def np_softmax():
        z = np.exp(s - s.max(1, keepdims=True))
        return z / z.sum(1, keepdims=True)

    yield ("row softmax 4096×1024", 8.0,
           lambda: K.softmax_kernel[(M,)](so, s, N, N, N, BLOCK_SIZE=1024), np_softmax)

    m = 512
    a = rng.standard_normal((m, m)).astype(np.float16)
    b = rng.standard_normal((m, m)).astype(np.float16)
    c = np.empty((m, m), np.float16)

    def mm():
        grid = lambda META: (cdiv(m, META["BLOCK_SIZE_M"]) * cdiv(m, META["BLOCK_SIZE_N"]),)  # noqa: E731
        return K.matmul_kernel[grid](a, b, c, m, m, m, m, 1, m, 1, m, 1, BLOCK_SIZE_M=64, BLOCK_SIZE_N=64,
                                     BLOCK_SIZE_K=32, GROUP_SIZE_M=8, ACTIVATION="")

    yield ("grouped matmul 512³ fp16, 64×64×32, GROUP_M 8", 2.0, mm,
           lambda: (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16))

    R, C = 1151, 8192
    xl = (-2.3 + 0.5 * rng.standard_normal((R, C))).astype(np.float16)
    w, bb = rng.random(C).astype(np.float16), rng.random(C).astype(np.float16)
    yl = np.empty_like(xl)
    mean, rstd = np.empty(R, np.float32), np.empty(R, np.float32)

    def np_ln():
        x32 = xl.astype(np.float32)
        mu = x32.mean(1, keepdims=True)
        r = 1 / np.sqrt(((x32 - mu) ** 2).mean(1, keepdims=True) + 1e-5)
        return ((x32 - mu) * r * w + bb).astype(np.float16)

    yield ("layer-norm fwd 1151×8192 fp16, BLOCK 1024", 28.0,
           lambda: K._layer_norm_fwd_fused[(R,)](xl, yl, w, bb, mean, rstd, C, C, 1e-5, BLOCK_SIZE=1024), np_ln)


def main() -> int:
    rows, missed = [], 0
    for name, interp, run, ref in cases():
        t = best(run, 3, warmup=0)
        t_np = best(ref, 3, warmup=0)
        target = interp / 30
        missed += t > target
        rows.append([name, f"{t * 1e3:.1f} ms", f"{t_np * 1e3:.1f} ms", f"{t / t_np:.0f}×",
                     f"{target * 1e3:.0f} ms", f"{interp / t:.0f}×", "ok" if t <= target else "MISSED"])
    print_table(["launch", "kernellab", "numpy", "÷ numpy", "target (interp / 30)", "vs interpreter", ""], rows)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
