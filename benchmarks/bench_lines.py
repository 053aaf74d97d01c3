"""What ``lines=True`` (counts per source line) costs: each launch with it against the same launch without.

The target (issue 24): at most 2× the launch without it. Run ``python benchmarks/bench_lines.py``; it
prints a table and exits non-zero when a launch misses the target. Both launches run fresh (replay,
``kernellab.triton.replay.cache``, is opt-in, and a launch with ``lines=True`` is never replayed).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
from timing import best

from kernellab import KERNELS, print_table, run_kernel, triton_launch

spec = importlib.util.spec_from_file_location("triton_kernels", Path(__file__).parents[1] / "tests" / "triton_kernels.py")
K = importlib.util.module_from_spec(spec)
spec.loader.exec_module(K)
cdiv = K.triton.cdiv
TARGET = 2.0  # lines=True may cost at most this many times the launch without it


def _seed_copy(tl, x, y, n, BLOCK):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y, offs, tl.load(x, offs, mask=offs < n), mask=offs < n)


def cases():
    """``(name, launch(lines))`` for SGEMM kernels on the simulator and mini-Triton launches of both paths."""
    rng = np.random.default_rng(0)
    A = rng.standard_normal((128, 128)).astype(np.float32)
    B = rng.standard_normal((128, 128)).astype(np.float32)
    for k in (1, 3, 6, 10):
        yield f"SIMT k{k} {KERNELS[k - 1].name}, 128³", lambda lines, k=k: run_kernel(KERNELS[k - 1], A, B, lines=lines)
    n = 1 << 20
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    out = np.empty_like(x)
    yield "Triton vector add 2^20", lambda lines: K.add_kernel[(cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024,
                                                                                  lines=lines)
    s = rng.standard_normal((1024, 1024), dtype=np.float32)
    so = np.empty_like(s)
    yield "Triton softmax 1024×1024", lambda lines: K.softmax_kernel[(1024,)](so, s, 1024, 1024, 1024,
                                                                              BLOCK_SIZE=1024, lines=lines)
    a = rng.standard_normal((256, 256)).astype(np.float16)
    c = np.empty((256, 256), np.float16)
    yield "Triton matmul 256³", lambda lines: K.matmul_kernel[(64,)](a, a, c, 256, 256, 256, 256, 1, 256, 1, 256, 1,
                                                                     BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32,
                                                                     GROUP_SIZE_M=4, ACTIVATION="", lines=lines)
    xs = np.arange(16384, dtype=np.float32)
    yield "Triton one program at a time, 256 programs", lambda lines: K.add_kernel[(256,)](
        xs, xs, np.empty_like(xs), 16384, BLOCK_SIZE=64, vectorize=False, lines=lines)
    yield "lecture form, 4096 programs", lambda lines: triton_launch(_seed_copy, 4096, x, out, n, BLOCK=256, lines=lines)


def main() -> int:
    rows, missed = [], 0
    for name, run in cases():  # on and off alternate, best of 7 each: a loaded machine slows both alike
        off = on = float("inf")
        for _ in range(7):
            off = min(off, best(lambda run=run: run(False), repeat=1, warmup=0))
            on = min(on, best(lambda run=run: run(True), repeat=1, warmup=0))
        ratio = on / off
        missed += ratio > TARGET
        rows.append([name, f"{off * 1e3:.1f}", f"{on * 1e3:.1f}", f"{ratio:.2f}×", "ok" if ratio <= TARGET else "MISSED"])
    print_table(["launch", "lines off (ms)", "lines=True (ms)", "ratio", f"≤ {TARGET:.0f}×"], rows)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
