"""
Softmax in Triton: one row per program, and rows that do not fit
================================================================

Softmax needs two reductions per row, a maximum and a sum, before it can write anything. Run as
separate PyTorch operators it launches five kernels that pass the whole matrix through HBM again and
again. The notes' Triton kernel gives each row to one program instance, which reads the row once,
keeps it on chip, and writes the result once.

You will run that kernel, see why it stops working when a row is longer than one block, and count
the bytes the two ways out request: a loop that reads the row three times, and the *online*
softmax, which gets both statistics in a single pass and reads the row twice.
"""

# %%
# One row per program
# -------------------
# This is the notes' ``triton_softmax_kernel``: program ``row_idx`` loads its row (masked lanes read
# −∞, which adds nothing to the maximum and exp(−∞) = 0 to the sum), subtracts the maximum so that the
# exponentials cannot overflow, and normalises. A row's stride is counted in elements, as PyTorch's
# ``x.stride(0)`` is; numpy's strides are in bytes, so the host divides by the item size.

import numpy as np

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import Claims, print_table
from kernellab.i18n import _ as tr


@triton.jit
def triton_softmax_kernel(x_ptr, y_ptr, x_row_stride, y_row_stride, num_cols, BLOCK_SIZE: tl.constexpr):
    assert num_cols <= BLOCK_SIZE

    # Process each row independently
    row_idx = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)

    # Read from global memory
    x_start_ptr = x_ptr + row_idx * x_row_stride
    x_ptrs = x_start_ptr + col_offsets
    x_row = tl.load(x_ptrs, mask=col_offsets < num_cols, other=float("-inf"))

    # Compute
    x_row = x_row - tl.max(x_row, axis=0)
    numerator = tl.exp(x_row)
    denominator = tl.sum(numerator, axis=0)
    y_row = numerator / denominator

    # Write back to global memory
    y_start_ptr = y_ptr + row_idx * y_row_stride
    y_ptrs = y_start_ptr + col_offsets
    tl.store(y_ptrs, y_row, mask=col_offsets < num_cols)


def triton_softmax(x: np.ndarray, block_size: int | None = None):
    """Host side: one program per row, the block the next power of two ≥ the row length."""
    M, N = x.shape
    y = np.empty_like(x)
    block_size = triton.next_power_of_2(N) if block_size is None else block_size
    counts = triton_softmax_kernel[(M,)](x, y, x.strides[0] // x.itemsize, y.strides[0] // y.itemsize, N,
                                         BLOCK_SIZE=block_size)
    return y, counts


def softmax_reference(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


# %%
# Check against numpy
# -------------------
# M = 64 rows of N = 1000 columns, so the block is 1024 wide and its last 24 lanes are masked off.
# One row is scaled by 100: without the subtracted maximum, its exponentials would overflow float32.

rng = np.random.default_rng(0)
M, N = 64, 1000
x = rng.standard_normal((M, N)).astype(np.float32)
x[3] *= 100
y_fused, fused = triton_softmax(x)
ref = softmax_reference(x)
errors = {"fused": float(np.abs(y_fused - ref).max())}
print_table([tr("Rows × columns"), tr("Block size"), tr("Programs"), tr("Largest error vs float64")],
            [[f"{M} × {N}", triton.next_power_of_2(N), fused.programs, f"{errors['fused']:.1e}"]])

# %%
claims = Claims()
claims.add(tr("Largest error below 10⁻⁶, all finite"),
           errors["fused"] < 1e-6 and bool(np.isfinite(y_fused).all()), True)
claims.add(tr("Lanes masked off in the last block"), triton.next_power_of_2(N) - N, 24)
claims.add(tr("Row 3 overflows float32 without the maximum"), bool(x[3].max() > np.log(np.finfo(np.float32).max)), True)
claims.add(tr("Bytes read = bytes written = M·N·4"), fused.load_bytes == fused.store_bytes == M * N * 4, True)
claims.show()

# %%
# The kernel matches the float64 reference, even on the row of large values, and it reads each
# element once and writes it once: M·N·4 bytes each way, the least any softmax can move.

# %%
# When a row does not fit one block
# ---------------------------------
# The whole row must sit in one program's registers. A program's block has a fixed size chosen at
# compile time, and a long enough row no longer fits on chip. The notes' kernel
# guards against longer rows with its first line; here a 3000-column matrix meets a 1024-wide block.
# Without that ``assert``, the mask would stop at column 1024 and the rest of each row would be
# neither read nor written.

long_x = rng.standard_normal((4, 3000)).astype(np.float32)
try:
    triton_softmax(long_x, block_size=1024)
    outcome = [tr("no error"), ""]
except AssertionError as exc:
    outcome = [type(exc).__name__, "assert num_cols <= BLOCK_SIZE"]
print_table([tr("Launch"), tr("Error"), tr("Kernel line")], [[tr("3000 columns, BLOCK_SIZE = 1024"), *outcome]])

# %%
Claims().add(tr("The launch fails"), outcome[0], "AssertionError").show()

# %%
# The launch fails, as it should. The way out is a loop inside the program: the program still owns
# one row, but walks along it in chunks of ``BLOCK_SIZE`` columns, so its registers hold one chunk
# at a time, whatever the row length.

# %%
# Looping over the row: three passes
# ----------------------------------
# The direct translation computes the maximum in a first sweep over the row, the sum of exponentials
# in a second, and the normalised values in a third, which also writes them. Each sweep requests the
# row again, so the program reads the row three times and writes it once. Whether the two re-reads
# cost HBM bandwidth depends on whether the row is still in L1 or L2 when the next sweep comes; the
# counts below are bytes *requested*, not DRAM bytes.


@triton.jit
def softmax_looped_kernel(x_ptr, y_ptr, x_row_stride, y_row_stride, num_cols, BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    x_row_ptr = x_ptr + row_idx * x_row_stride
    y_row_ptr = y_ptr + row_idx * y_row_stride

    # Pass 1: the row's maximum
    m = -float("inf")
    for start in tl.range(0, num_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row_ptr + cols, mask=cols < num_cols, other=float("-inf"))
        m = tl.maximum(m, tl.max(x, axis=0))

    # Pass 2: the sum of exp(x - max)
    d = 0.0
    for start in tl.range(0, num_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row_ptr + cols, mask=cols < num_cols, other=float("-inf"))
        d += tl.sum(tl.exp(x - m), axis=0)

    # Pass 3: normalise and write
    for start in tl.range(0, num_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < num_cols
        x = tl.load(x_row_ptr + cols, mask=mask)
        tl.store(y_row_ptr + cols, tl.exp(x - m) / d, mask=mask)


# %%
# The online softmax: two passes
# ------------------------------
# The first two sweeps can be merged (Milakov and Gimelshein, 2018). Keep a running maximum ``m``
# and a running sum ``d`` of exp(x − m). When a chunk raises the maximum from m to m′, every term
# already in the sum was computed against the old maximum; multiplying the sum by exp(m − m′)
# rescales all of them at once. One sweep then yields both statistics, and a second sweep
# normalises and writes: the row is read twice. FlashAttention rests on the same trick.


@triton.jit
def softmax_online_kernel(x_ptr, y_ptr, x_row_stride, y_row_stride, num_cols, BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    x_row_ptr = x_ptr + row_idx * x_row_stride
    y_row_ptr = y_ptr + row_idx * y_row_stride

    # Pass 1: running maximum m and running sum d of exp(x - m), rescaled when m grows
    m = -float("inf")
    d = 0.0
    for start in tl.range(0, num_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row_ptr + cols, mask=cols < num_cols, other=float("-inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        d = d * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new

    # Pass 2: normalise and write
    for start in tl.range(0, num_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < num_cols
        x = tl.load(x_row_ptr + cols, mask=mask)
        tl.store(y_row_ptr + cols, tl.exp(x - m) / d, mask=mask)


# %%
# The online update, worked by hand on two chunks
# ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
# One row of eight values, read in two chunks of four, step by step as the first loop above runs it:
# before a chunk, m and d; the chunk's maximum; the new maximum m′; the rescale factor exp(m − m′);
# and d after the chunk, d·exp(m − m′) + Σ exp(x − m′) over the chunk. The last line is the sum
# computed the slow way, with the row's true maximum known in advance.

row8 = np.array([1, 3, 2, 0, 5, 1, 4, 2], np.float64)
m, d, steps = -np.inf, 0.0, []
for chunk in (row8[:4], row8[4:]):
    m_new = max(m, chunk.max())
    scale = np.exp(m - m_new)  # exp(−∞) = 0 for the first chunk: nothing to rescale yet
    d_new = d * scale + np.exp(chunk - m_new).sum()
    steps.append({"m": m, "d": d, "chunk_max": chunk.max(), "m_new": m_new, "scale": scale, "d_new": d_new})
    m, d = m_new, d_new
two_pass = np.exp(row8 - row8.max()).sum()


def fmt_step(v):
    return "−∞" if v == -np.inf else f"{v:.4g}"


print_table(
    [tr("Chunk"), tr("Values"), tr("m before"), tr("d before"), tr("Chunk maximum"), "m′", "exp(m − m′)",
     tr("d after")],
    [[c, ", ".join(f"{v:g}" for v in chunk),
      *(fmt_step(st[k]) for k in ("m", "d", "chunk_max", "m_new", "scale", "d_new"))]
     for c, (chunk, st) in enumerate(zip((row8[:4], row8[4:]), steps), start=1)]
    + [[tr("two passes"), "", "", "", "", fmt_step(row8.max()), "", fmt_step(two_pass)]],
)

# %%
y8 = np.empty((1, 8), np.float32)
softmax_online_kernel[(1,)](row8[None].astype(np.float32), y8, 8, 8, 8, BLOCK_SIZE=4)
claims = Claims()
claims.add(tr("The kernel does what the table does"),
           bool(np.abs(y8[0] - np.exp(row8 - row8.max()) / two_pass).max() < 1e-6), True)
claims.add(tr("m′ after each chunk"), " / ".join(f"{st['m_new']:g}" for st in steps), "3 / 5")
claims.add(tr("Rescale factor, first chunk"), steps[0]["scale"], 0)
claims.add(tr("Rescale factor, second chunk"), round(steps[1]["scale"], 3), 0.135)
claims.add(tr("d after the first chunk"), round(steps[0]["d_new"], 3), 1.553)
claims.add(tr("d after the second chunk"), round(d, 3), 1.646)
claims.add(tr("d = the two-pass sum"), d, two_pass, atol=1e-12)
claims.show()

# %%
# After the first chunk, m = 3 and d = 1.553 holds four terms exp(x − 3). The second chunk raises the
# maximum to 5, so those terms are now measured against the wrong maximum. Multiplying d by
# exp(3 − 5) ≈ 0.135 turns every exp(x − 3) into exp(x − 5) at once, without looking at the old values
# again; the chunk's own four terms exp(x − 5) are then added. The result, 1.646, is the sum the two-pass
# computation gets with the row's maximum known in advance, to rounding. FlashAttention runs the same
# update on each row of the attention scores, and rescales its running output by the same factor
# exp(m − m′) as it rescales d.


# %%
# The eager version, for comparison
# ---------------------------------
# PyTorch's operator-by-operator softmax, ``x - x.max(1)``, ``exp``, ``sum(1)``, divide, as five small
# Triton kernels like those PyTorch launches, each one program per row. Each reads its input matrix
# from HBM and writes its output (a full matrix, or one value per row for the reductions).


@triton.jit
def row_max_kernel(x_ptr, out_ptr, num_cols, BLOCK_SIZE: tl.constexpr):
    row, cols = tl.program_id(0), tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + row * num_cols + cols, mask=cols < num_cols, other=float("-inf"))
    tl.store(out_ptr + row, tl.max(x, axis=0))


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, num_cols, BLOCK_SIZE: tl.constexpr):
    row, cols = tl.program_id(0), tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + row * num_cols + cols, mask=cols < num_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(x, axis=0))


@triton.jit
def sub_row_kernel(x_ptr, v_ptr, out_ptr, num_cols, BLOCK_SIZE: tl.constexpr):
    row, cols = tl.program_id(0), tl.arange(0, BLOCK_SIZE)
    mask = cols < num_cols
    x = tl.load(x_ptr + row * num_cols + cols, mask=mask)
    tl.store(out_ptr + row * num_cols + cols, x - tl.load(v_ptr + row), mask=mask)


@triton.jit
def exp_kernel(x_ptr, out_ptr, num_cols, BLOCK_SIZE: tl.constexpr):
    row, cols = tl.program_id(0), tl.arange(0, BLOCK_SIZE)
    mask = cols < num_cols
    tl.store(out_ptr + row * num_cols + cols, tl.exp(tl.load(x_ptr + row * num_cols + cols, mask=mask)), mask=mask)


@triton.jit
def div_row_kernel(x_ptr, v_ptr, out_ptr, num_cols, BLOCK_SIZE: tl.constexpr):
    row, cols = tl.program_id(0), tl.arange(0, BLOCK_SIZE)
    mask = cols < num_cols
    x = tl.load(x_ptr + row * num_cols + cols, mask=mask)
    tl.store(out_ptr + row * num_cols + cols, x / tl.load(v_ptr + row), mask=mask)


def eager_softmax(x: np.ndarray):
    M, N = x.shape
    B = triton.next_power_of_2(N)
    mx, s = np.empty(M, np.float32), np.empty(M, np.float32)
    z, e, y = np.empty_like(x), np.empty_like(x), np.empty_like(x)
    total = row_max_kernel[(M,)](x, mx, N, BLOCK_SIZE=B)
    total = total + sub_row_kernel[(M,)](x, mx, z, N, BLOCK_SIZE=B)
    total = total + exp_kernel[(M,)](z, e, N, BLOCK_SIZE=B)
    total = total + row_sum_kernel[(M,)](e, s, N, BLOCK_SIZE=B)
    total = total + div_row_kernel[(M,)](e, s, y, N, BLOCK_SIZE=B)
    return y, total


# %%
# Traffic per row
# ---------------
# All four versions on the same 64 × 1000 matrix. The looped kernels use 256-wide chunks, so each row
# takes four chunks, the last one partly masked. Bytes are per row, in units of one row, N·4 bytes.

LOOP_BLOCK = 256
y_eager, eager = eager_softmax(x)
y_looped, y_online = np.empty_like(x), np.empty_like(x)
looped = softmax_looped_kernel[(M,)](x, y_looped, N, N, N, BLOCK_SIZE=LOOP_BLOCK)
online = softmax_online_kernel[(M,)](x, y_online, N, N, N, BLOCK_SIZE=LOOP_BLOCK)
errors |= {"eager": np.abs(y_eager - ref).max(), "looped": np.abs(y_looped - ref).max(),
           "online": np.abs(y_online - ref).max()}

row = N * 4
versions = [
    ("eager", tr("Eager (5 kernels)"), 5, eager, "5N + 2", "3N + 2"),
    ("fused", tr("One row per program"), 1, fused, "N", "N"),
    ("looped", tr("Looped: max, sum, write"), 3, looped, "3N", "N"),
    ("online", tr("Online: max and sum, write"), 2, online, "2N", "N"),
]
print_table(
    [tr("Version"), tr("Sweeps that read the row"), tr("Read per row (× N·4 B)"), tr("Written per row (× N·4 B)"),
     tr("Elements read, written"), tr("Largest error vs float64")],
    [[label, sweeps, f"{c.load_bytes / M / row:.4g}", f"{c.store_bytes / M / row:.4g}", f"{r}, {w}",
      f"{errors[key]:.1e}"] for key, label, sweeps, c, r, w in versions],
)

# %%
traffic = {key: c.load_bytes + c.store_bytes for key, _, _, c, _, _ in versions}
claims = Claims()
claims.add(tr("Largest error below 10⁻⁶, all four"), bool(max(errors.values()) < 1e-6), True)
claims.add(tr("Chunks per row"), triton.cdiv(N, LOOP_BLOCK), 4)
for _, label, _, c, r, w in versions:  # the formulas of the table, in elements per row
    per_row = {"N": N, "2N": 2 * N, "3N": 3 * N, "5N + 2": 5 * N + 2, "3N + 2": 3 * N + 2}
    claims.add(tr("{version}: elements read, written per row").format(version=label),
               f"{c.load_bytes / M / 4:g}, {c.store_bytes / M / 4:g}", f"{per_row[r]}, {per_row[w]}")
claims.add(tr("Eager / fused traffic, a little more than 4"), 4 < traffic["eager"] / traffic["fused"] < 4.01, True)
claims.add(tr("Looped / fused traffic"), traffic["looped"] / traffic["fused"], 2)
claims.add(tr("Online / looped traffic"), traffic["online"] / traffic["looped"], 0.75)
claims.show()

# %%
# All four agree with the reference. The counts are exactly the formulas in the table:
#
# * the eager version reads 5N + 2 elements per row and writes 3N + 2, as Triton's fused-softmax
#   tutorial counts it (the 2 are the row's maximum and sum, written by one kernel and read by the
#   next); a little more than 4 times the traffic of the fused kernel;
# * one row per program reads N and writes N;
# * the looped version reads the row three times and writes it once: twice the fused kernel's traffic;
# * the online version reads the row twice and writes it once, a quarter less than the looped one.
#
# Softmax does a few operations per element, so memory traffic sets its time. Which memory, the counts
# do not say: they are bytes *requested*. The eager version's kernels each read a whole matrix that an
# earlier kernel wrote, which at large sizes comes from HBM. The extra sweeps of the looped and online
# versions re-read a row that one program read microseconds before: this page's rows are 4000 bytes,
# far less than an SM's L1, so the re-reads hit on chip and cost L1/L2 bandwidth and latency, not HBM.
# They reach HBM only once the rows of all programs in flight overflow L2: on an H100, with 50 MB of L2,
# 132 SMs and, say, 4 programs per SM, rows of about 97 KB. Below that, the cost of a row that does not
# fit is one extra on-chip read of the row with the online softmax, two with the direct loop; above it,
# as many extra HBM reads.

from kernellab import H100

row_bytes = N * 4
overflow_kb = H100.l2_bytes / (H100.sms * 4) / 1024
Claims().add(tr("Bytes of one row of this page"), row_bytes, 4000) \
    .add(tr("H100: row size at which 4 programs per SM overflow the L2 (KB)"), round(overflow_kb), 97).show()

# %%
# The traffic in a picture
# ------------------------
# Bytes read and written per row, in units of one row.

import matplotlib.pyplot as plt

from kernellab.figures import use_cjk_font

use_cjk_font()
fig, ax = plt.subplots(figsize=(7, 3.8), layout="constrained")
pos = np.arange(len(versions))
reads = [c.load_bytes / M / row for *_, c, _, _ in versions]
writes = [c.store_bytes / M / row for *_, c, _, _ in versions]
ax.bar(pos, reads, color="C0", label=tr("read"))
ax.bar(pos, writes, bottom=reads, color="C1", label=tr("written"))
for p, r, w in zip(pos, reads, writes):
    ax.annotate(f"{r + w:.2g}", (p, r + w), textcoords="offset points", xytext=(0, 3), ha="center", fontsize=9)
ax.set_xticks(pos, [tr("Eager\n5 kernels"), tr("One row\nper program"), tr("Looped\nmax, sum, write"),
                   tr("Online\nmax and sum, write")], fontsize=9)
ax.set_ylabel(tr("Bytes requested per row (× N·4 bytes)"))
ax.set_title(tr("Softmax: bytes requested per row"))
ax.set_ylim(0, 9.5)
ax.legend(loc="upper right")
plt.show()

# sphinx_gallery_thumbnail_number = 1

# %%
# The compiled code
# -----------------
# As on the GeLU page, ``tests/conformance/compiled.py`` compiles this page's
# ``triton_softmax_kernel`` for an sm_86 GPU with 4 warps (``BLOCK_SIZE = 1024``) and saves the
# memory instructions and exponentials; the page reads them and needs no Triton. Compiled knowing
# that the pointers, strides and ``num_cols`` are multiples of 16, a thread loads and stores its four
# consecutive elements with one 128-bit instruction each:

from kernellab import compiled_code

softmax_code = compiled_code("triton_softmax_kernel")  # saved by the conformance session
print("\n".join(softmax_code["aligned"]["ptx"]))
print()
print("\n".join(softmax_code["aligned"]["sass"]))

# %%
# Per program (one row of 1024 floats), against kernellab's count of one such row, as launched (the
# launch specialises the aligned arrays, strides and ``num_cols`` as divisible by 16) and with nothing
# known (every argument in ``do_not_specialize``):

from kernellab.triton.compiler.specialize import nothing_known

row_args = (np.zeros((1, 1024), np.float32), np.zeros((1, 1024), np.float32), 1024, 1024, 1024)
one_row = triton_softmax_kernel[(1,)](*row_args, BLOCK_SIZE=1024)
plain_row = nothing_known(triton_softmax_kernel)[(1,)](*row_args, BLOCK_SIZE=1024)
compiled_rows = []
for label, variant, ours, name in ((tr("Compiled, nothing known"), softmax_code["unaligned"], plain_row,
                                    tr("kernellab, nothing known")),
                                   (tr("Compiled, multiples of 16"), softmax_code["aligned"], one_row,
                                    tr("kernellab, multiples of 16"))):
    loads = [line for line in variant["ptx"] if "ld.global" in line]
    width = 16 if ".v4." in loads[0] else 4
    compiled_rows.append([label, len(loads), width, len(loads) * softmax_code["num_warps"]])
    per_thread = ours.load_instructions // 4
    compiled_rows.append([name, per_thread, ours.load_bytes // (per_thread * 128), ours.load_requests])
print_table([tr("Version"), tr("Loads per thread"), tr("Bytes per load"), tr("Load requests")], compiled_rows)

# %%
Claims().add(tr("Load requests, nothing known: compiled / kernellab"),
             f"{compiled_rows[0][3]} / {compiled_rows[1][3]}", "32 / 32") \
    .add(tr("Load requests, multiples of 16: compiled / kernellab"),
         f"{compiled_rows[2][3]} / {compiled_rows[3][3]}", "8 / 8") \
    .add(tr("Global stores in the compiled code (the row, written once)"),
         sum("st.global" in line for line in softmax_code["aligned"]["ptx"]), 2).show()

# %%
# The two reductions, ``tl.max`` and ``tl.sum``, add no global load or store to the compiled code: its
# only global loads and stores are the two of the row, read once and written once. kernellab likewise
# counts no memory for reductions.
