"""
The target: a 4096³ FP32 matmul on the roofline
===============================================

cuBLAS runs a 4096³ FP32 matrix multiplication on an RTX A6000 at about 23 TFLOP/s. Before writing
any kernel, this page works out what the hardware allows: how many
FLOPs the product needs, how few bytes it must move, and therefore which roof it should hit.

You will learn to place a kernel on the roofline from two numbers of the GPU, its FP32 peak and its
DRAM bandwidth, and why a large matmul should be limited by compute, not by memory.
"""

# %%
# The work and the least traffic
# ------------------------------
# A product of two n×n matrices takes n³ fused multiply-adds, 2·n³ FLOPs. Each of the three
# matrices must cross the DRAM bus at least once, 3·n²·4 bytes in FP32. Their ratio is the highest
# arithmetic intensity the problem allows.

from kernellab import PERF_A6000, PERF_H100, fmt_bytes, fmt_num, fmt_time, print_table
from kernellab.i18n import _

N = 4096
flops = 2 * N**3
min_bytes = 3 * N * N * 4
intensity = flops / min_bytes

print_table(
    [_("Quantity"), _("Formula"), _("Value")],
    [
        [_("FLOPs"), "2·n³", fmt_num(flops)],
        [_("Least bytes moved"), "3·n²·4", fmt_bytes(min_bytes)],
        [_("Intensity ceiling (FLOP/byte)"), "2·n³ / (3·n²·4)", f"{intensity:.0f}"],
    ],
)

# %%
# Two GPUs on the roofline
# ------------------------
# A kernel's speed is bounded by the FP32 peak and by the DRAM bandwidth times its intensity. The
# *ridge point*, peak over bandwidth, is the intensity where the two bounds meet: below it a kernel
# waits for memory, above it for arithmetic.

rows = []
for perf in (PERF_A6000, PERF_H100):
    peak = perf.peak_flops()
    rows.append([
        perf.name,
        f"{peak / 1e12:.1f} TFLOP/s",
        f"{perf.dram_bw / 1e9:.0f} GB/s",
        f"{perf.ridge():.0f}",
        fmt_time(flops / peak),
        fmt_time(min_bytes / perf.dram_bw),
    ])
print_table(
    [_("GPU"), _("FP32 peak (CUDA cores)"), _("DRAM bandwidth"), _("Ridge point (FLOP/byte)"),
     _("Time at peak"), _("Time to move the data once")],
    rows,
)

# %%
# The prose below states these numbers; the script checks them, so a change that breaks a claim
# breaks the build.

assert round(intensity) == 683 and round(PERF_A6000.ridge()) == 50 and round(PERF_H100.ridge()) == 20
assert round(PERF_A6000.peak_flops() / 1e12, 1) == 38.7 and round(PERF_H100.peak_flops() / 1e12, 1) == 66.9
assert intensity > 10 * PERF_A6000.ridge()
assert round(flops / PERF_A6000.peak_flops() * 1e3, 2) == 3.55 and round(min_bytes / PERF_A6000.dram_bw * 1e3, 2) == 0.26

# %%
# The matmul's ceiling of 683 FLOP/byte is far above both ridge points, about 50 FLOP/byte on the
# RTX A6000 and 20 on the H100. A 4096³ matmul should therefore be **compute-bound**: an ideal kernel
# reads every number from DRAM once and reuses it on chip many times. On the A6000, the arithmetic
# at the 38.7 TFLOP/s peak takes 3.55 ms, while moving the data once takes only 0.26 ms.
#
# Every optimisation in this lecture does the same thing: it makes data get reused closer to the
# arithmetic units, in L1, then shared memory, then registers.

# %%
# What cuBLAS reaches
# -------------------
# Boehm measured cuBLAS at 23249.6 GFLOP/s on the A6000.

cublas = 23249.6e9
print_table(
    [_("Kernel"), _("GFLOP/s"), _("Time"), _("Fraction of FP32 peak")],
    [["cuBLAS", f"{cublas / 1e9:.1f}", fmt_time(flops / cublas), f"{cublas / PERF_A6000.peak_flops():.0%}"]],
)

# %%
assert round(100 * cublas / PERF_A6000.peak_flops()) == 60 and round(cublas / 1e12) == 23

# %%
# cuBLAS reaches only about 60 % of the FP32 peak: the CUDA-core peak is hard to approach (clocks
# drop under full load, and address arithmetic costs instructions too). From here on, every
# "percent" of this lecture is a percentage of cuBLAS.

# %%
# The roofline
# ------------
# Attainable FLOP/s against arithmetic intensity, on logarithmic axes, for both GPUs. The dots mark
# the ridge points; the dashed line is the matmul's intensity ceiling; the star is cuBLAS.

import matplotlib.pyplot as plt
import numpy as np

from kernellab.figures import use_cjk_font

use_cjk_font()
x = np.logspace(-1, 4, 400)
fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
for perf, color, dy in ((PERF_A6000, "C0", -16), (PERF_H100, "C1", 8)):
    peak = perf.peak_flops()
    ax.loglog(x, np.minimum(peak, x * perf.dram_bw) / 1e12, color=color, label=perf.name)
    ax.plot(perf.ridge(), peak / 1e12, "o", color=color)
    ax.annotate(_("ridge {ridge:.0f} FLOP/byte").format(ridge=perf.ridge()), (perf.ridge(), peak / 1e12),
                textcoords="offset points", xytext=(0, dy), ha="center", color=color, fontsize=9)
ax.axvline(intensity, color="0.4", ls="--", lw=1)
ax.annotate(_("4096³ matmul ceiling"), (intensity, 200), textcoords="offset points", xytext=(-5, 0),
            ha="right", color="0.3", fontsize=9)
ax.plot(intensity, cublas / 1e12, "*", color="C0", ms=11, label=_("cuBLAS on the RTX A6000"))
ax.set_xlabel(_("Arithmetic intensity (FLOP/byte)"))
ax.set_ylabel(_("Attainable TFLOP/s (FP32)"))
ax.set_title(_("FP32 roofline"))
ax.set_ylim(0.05, 400)
ax.legend(loc="lower right")
plt.show()
