"""
GeLU in Triton: one fused kernel against nine eager ones
========================================================

The lecture notes write the tanh approximation of GeLU as a Triton kernel: each program instance
handles a block of 1024 elements, reads them from HBM once, computes, and writes the result once.
Written as plain PyTorch, the same formula launches one kernel per operator, and every one of them
reads its inputs from HBM and writes its output back.

You will run the notes' kernel unchanged on kernellab, count the bytes both versions move, and see
why the model predicts the fused kernel to be about eleven times faster on an H100, although both
do the same arithmetic.
"""

# %%
# The kernel, in real Triton syntax
# ---------------------------------
# This is the notes' ``triton_gelu_kernel``, line for line. Triton's core language has no
# ``tl.tanh`` (a tanh comes from libdevice, ``triton.language.extra.libdevice.tanh``, which is what
# PyTorch's compiler emits and what kernellab's mini-Triton offers too), so the notes' kernel builds
# it from one exponential:
# tanh(a) = (e²ᵃ − 1) / (e²ᵃ + 1). The only lines that differ
# from a GPU run are the two imports: on a GPU they read
#
# .. code-block:: python
#
#     import triton
#     import triton.language as tl
#
# and here they import kernellab's stand-ins, which run each program on numpy and count every
# load and store.

import numpy as np

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import PERF_H100, Claims, attainable_flops, fmt_bytes, fmt_num, fmt_time, print_table
from kernellab.i18n import _ as tr


@triton.jit
def triton_gelu_kernel(x_ptr, y_ptr, num_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)  # Identifies the block
    start = pid * BLOCK_SIZE  # Starting index of this block
    offsets = start + tl.arange(0, BLOCK_SIZE)  # Indices this program works on
    mask = offsets < num_elements  # Don't read/write past the end of the tensor

    x = tl.load(x_ptr + offsets, mask=mask)
    # 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))), tanh(a) = (exp(2a) - 1) / (exp(2a) + 1)
    a = 0.79788456 * (x + 0.044715 * x * x * x)
    exp = tl.exp(2 * a)
    tanh = (exp - 1) / (exp + 1)
    y = 0.5 * x * (1 + tanh)
    tl.store(y_ptr + offsets, y, mask=mask)


def triton_gelu(x: np.ndarray):
    """The notes' host function: allocate the output, one program per 1024 elements, launch."""
    y = np.empty_like(x)
    num_elements = x.size
    BLOCK_SIZE = 1024
    num_blocks = triton.cdiv(num_elements, BLOCK_SIZE)
    counts = triton_gelu_kernel[(num_blocks,)](x, y, num_elements, BLOCK_SIZE=BLOCK_SIZE)
    return y, counts


# %%
# Check against numpy
# -------------------
# The reference is the same formula in float64 with numpy's own ``tanh``. One size is a multiple of
# the block, the other is not, so the last program's mask is exercised.


def gelu_reference(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    return 0.5 * x * (1 + np.tanh(0.79788456 * (x + 0.044715 * x**3)))


rng = np.random.default_rng(0)
N_SIM = 2**16
rows, errors = [], {}
for n in (N_SIM, 5000):
    x = rng.standard_normal(n).astype(np.float32)
    y, counts = triton_gelu(x)
    errors[n] = float(np.abs(y - gelu_reference(x)).max())
    rows.append([fmt_num(n), counts.programs, f"{errors[n]:.1e}"])
print_table([tr("Elements"), tr("Programs"), tr("Largest error vs float64")], rows)

# %%
Claims().add(tr("Largest error below 10⁻⁵, both sizes"), all(err < 1e-5 for err in errors.values()), True).show()

# %%
# On standard-normal inputs both results agree with the float64 reference to within a few float32
# roundings: the kernel computes the right thing, including in the partial last block.

# %%
# A trap in the notes' tanh
# -------------------------
# For large inputs, e²ᵃ overflows float32 to infinity, and (∞ − 1) / (∞ + 1) is ∞ / ∞, which is NaN.
# A GPU's ``tl.exp`` overflows the same way. The algebraically equal form tanh(a) = 1 − 2 / (e²ᵃ + 1)
# gives 1 there instead. The kernel below differs from the notes' in that one line.


@triton.jit
def gelu_kernel_safe(x_ptr, y_ptr, num_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < num_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    a = 0.79788456 * (x + 0.044715 * x * x * x)
    tanh = 1 - 2 / (tl.exp(2 * a) + 1)
    tl.store(y_ptr + offsets, 0.5 * x * (1 + tanh), mask=mask)


probe = np.array([-20, -10, 0, 1, 5, 10, 10.5, 20], np.float32)
y_notes = triton_gelu(probe)[0]
y_safe = np.empty_like(probe)
gelu_kernel_safe[(1,)](probe, y_safe, probe.size, BLOCK_SIZE=8)
print_table(
    ["x", tr("Notes' kernel"), tr("With 1 − 2/(e²ᵃ + 1)"), tr("float64 reference")],
    [[f"{v:g}", f"{a + 0:.6g}", f"{b + 0:.6g}", f"{r + 0:.6g}"]
     for v, a, b, r in zip(probe, y_notes, y_safe, gelu_reference(probe))],
)

# %%
edge = np.arange(10.0, 10.2, 0.01, dtype=np.float32)  # where the NaNs start, in steps of 0.01
y_edge = triton_gelu(edge)[0]
claims = Claims()
claims.add(tr("Notes' kernel: NaN above 10.07, none up to 10"),
           bool(np.isnan(y_notes[probe > 10.07]).all() and not np.isnan(y_notes[probe <= 10]).any()), True)
claims.add(tr("Notes' kernel: first NaN at x ="), round(float(edge[np.isnan(y_edge)].min()), 2), 10.07)
claims.add(tr("Notes' kernel: no NaN below 10.065"), bool(not np.isnan(y_edge[edge < 10.065]).any()), True)
claims.add(tr("Rewritten line: error below 10⁻⁵ everywhere"),
           bool(np.abs(y_safe - gelu_reference(probe)).max() < 1e-5), True)
claims.show()

# %%
# The notes' kernel returns NaN from about x = 10.07 upwards; the rewritten line is correct
# everywhere. Activations that large are rare, which is exactly why such a bug survives a test on
# random normal inputs. Test the edges too.

# %%
# The eager version: one kernel per operator
# ------------------------------------------
# In PyTorch, ``0.5*x*(1+torch.tanh(0.79788456*(x+0.044715*x*x*x)))`` runs one elementwise kernel per
# operator, in the order Python evaluates them. Each is written below as a small Triton kernel of
# the kind PyTorch launches: it reads its operands from HBM and writes its result to HBM. There are
# five kinds of kernel (multiply or add by a scalar, multiply or add two tensors, tanh) and nine
# launches.


@triton.jit
def mul_scalar_kernel(x_ptr, out_ptr, c, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    tl.store(out_ptr + offs, c * tl.load(x_ptr + offs, mask=mask), mask=mask)


@triton.jit
def add_scalar_kernel(x_ptr, out_ptr, c, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    tl.store(out_ptr + offs, c + tl.load(x_ptr + offs, mask=mask), mask=mask)


@triton.jit
def mul_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a * b, mask=mask)


@triton.jit
def add_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a + b, mask=mask)


@triton.jit
def tanh_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    e = tl.exp(2 * tl.load(x_ptr + offs, mask=mask))
    tl.store(out_ptr + offs, (e - 1) / (e + 1), mask=mask)


def manual_gelu(x: np.ndarray):
    """``0.5*x*(1+tanh(0.79788456*(x+0.044715*x*x*x)))`` as eager PyTorch runs it: one launch per operator."""
    n, B = x.size, 1024
    grid = (triton.cdiv(n, B),)
    t = [np.empty_like(x) for _ in range(9)]
    launches = [
        ("0.5 * x", mul_scalar_kernel[grid](x, t[0], 0.5, n, BLOCK_SIZE=B)),
        ("0.044715 * x", mul_scalar_kernel[grid](x, t[1], 0.044715, n, BLOCK_SIZE=B)),
        ("(…) * x", mul_kernel[grid](t[1], x, t[2], n, BLOCK_SIZE=B)),
        ("(…) * x", mul_kernel[grid](t[2], x, t[3], n, BLOCK_SIZE=B)),
        ("x + (…)", add_kernel[grid](x, t[3], t[4], n, BLOCK_SIZE=B)),
        ("0.79788456 * (…)", mul_scalar_kernel[grid](t[4], t[5], 0.79788456, n, BLOCK_SIZE=B)),
        ("tanh(…)", tanh_kernel[grid](t[5], t[6], n, BLOCK_SIZE=B)),
        ("1 + (…)", add_scalar_kernel[grid](t[6], t[7], 1.0, n, BLOCK_SIZE=B)),
        ("(0.5 * x) * (…)", mul_kernel[grid](t[0], t[7], t[8], n, BLOCK_SIZE=B)),
    ]
    return t[8], launches


x = rng.standard_normal(N_SIM).astype(np.float32)
y_eager, launches = manual_gelu(x)
eager_error = float(np.abs(y_eager - gelu_reference(x)).max())
elem = N_SIM * 4  # bytes of one N-element FP32 tensor
print_table(
    [tr("Launch"), tr("PyTorch operator"), tr("Read (× N·4 B)"), tr("Written (× N·4 B)")],
    [[i + 1, op, f"{c.load_bytes / elem:g}", f"{c.store_bytes / elem:g}"] for i, (op, c) in enumerate(launches)],
)

# %%
eager = launches[0][1]
for _, c in launches[1:]:
    eager = eager + c
Claims().add(tr("Eager: error below 10⁻⁵"), eager_error < 1e-5, True) \
    .add(tr("Eager: launches"), len(launches), 9) \
    .add(tr("Eager: tensors read / written"), f"{eager.load_bytes / elem:g} / {eager.store_bytes / elem:g}", "13 / 9") \
    .show()

# %%
# The eager version gives the same result, but look at its traffic: nine launches read 13 tensors
# of N floats and write 9. Every intermediate result, such as ``0.044715 * x``, makes a round trip
# through HBM only to be read back by the next kernel. The fused kernel keeps all of them in
# registers.

# %%
# Traffic and the predicted time at the notes' size
# -------------------------------------------------
# The notes time a 16384×16384 FP32 tensor. Both versions are elementwise, so their counts are
# exactly linear in the number of elements: the script simulates 2¹⁶ elements, checks that doubling
# the size doubles every count, and scales by 16384² / 2¹⁶ = 4096.
#
# Both versions do the same arithmetic, 13 operations per element (counting ``exp`` as one). Their
# intensity, FLOPs per byte of HBM traffic, is far below the H100's ridge point, so the roofline
# gives a bandwidth-bound time: bytes ÷ 3.35 TB/s. Beside it, kernellab's model (``predict``, as
# ``triton.testing.do_bench`` reads a launch: :doc:`/model`) prices the same counts, scaled to the full
# size: DRAM at the share of its bandwidth an H100 sustains, each launch's start besides.

N_BIG = 16384 * 16384
scale = N_BIG // N_SIM
FLOPS_PER_ELEMENT = 13

x2 = rng.standard_normal(2 * N_SIM).astype(np.float32)
fused = triton_gelu(x)[1]
fused2 = triton_gelu(x2)[1]
launches2 = manual_gelu(x2)[1]
eager2 = launches2[0][1]
for _, c in launches2[1:]:
    eager2 = eager2 + c

from kernellab import predict
from kernellab.triton.executor.sampling import scale as scale_launch


def at_full_size(c):
    """The counts of launch ``c`` at 16384² elements: every count × 4096 (the kernels are elementwise)."""
    return scale_launch(c, scale, c.programs * scale, {})


modelled = {1: predict(at_full_size(fused), PERF_H100),
            9: predict([at_full_size(c) for _, c in launches], PERF_H100)}  # the nine launches in a row
rows, predicted = [], {}
for name, n_kernels, c in ((tr("Eager (one kernel per operator)"), 9, eager), (tr("Fused Triton kernel"), 1, fused)):
    read, written = c.load_bytes * scale, c.store_bytes * scale
    flops = FLOPS_PER_ELEMENT * N_BIG
    intensity = flops / (read + written)
    predicted[n_kernels] = flops / attainable_flops(intensity, PERF_H100)
    rows.append([name, n_kernels, fmt_bytes(read), fmt_bytes(written), f"{intensity:.3g}",
                 fmt_time(predicted[n_kernels]), fmt_time(modelled[n_kernels]["estimate_total_time"])])
print_table(
    [tr("Version"), tr("Kernels"), tr("HBM read"), tr("HBM written"), tr("FLOP/byte"), tr("Roofline bound on H100"),
     tr("Predicted on H100, as do_bench reads it")],
    rows,
)

# %%
fused_bytes = (fused.load_bytes + fused.store_bytes) * scale
eager_bytes = (eager.load_bytes + eager.store_bytes) * scale
claims = Claims()
claims.add(tr("Doubling the size doubles every count"),
           all(big.load_bytes == 2 * small.load_bytes and big.store_bytes == 2 * small.store_bytes
               and big.programs == 2 * small.programs for small, big in ((fused, fused2), (eager, eager2))), True)
claims.add(tr("Scale factor 16384² / 2¹⁶"), scale, 4096)
claims.add(tr("H100 HBM bandwidth (TB/s)"), PERF_H100.dram_bw / 1e12, 3.35)
claims.add(tr("Bytes per element, fused / eager"), f"{fused_bytes / N_BIG:g} / {eager_bytes / N_BIG:g}", "8 / 88")
claims.add(tr("Traffic, fused (GB)"), round(fused_bytes / 1e9, 2), 2.15)
claims.add(tr("Traffic, eager (GB)"), round(eager_bytes / 1e9, 1), 23.6)
claims.add(tr("H100 ridge point (FLOP/byte)"), round(PERF_H100.ridge()), 20)
claims.add(tr("Fused intensity more than ten times below the ridge"),
           FLOPS_PER_ELEMENT * N_BIG / fused_bytes < PERF_H100.ridge() / 10, True)
claims.add(tr("Fused: roofline bound = bytes ÷ bandwidth (ms)"), predicted[1] * 1e3,
           fused_bytes / PERF_H100.dram_bw * 1e3, rtol=1e-12)
claims.add(tr("Roofline bound, fused / eager (ms)"), f"{predicted[1] * 1e3:.2f} / {predicted[9] * 1e3:.2f}",
           "0.64 / 7.05")
claims.add(tr("Eager / fused, roofline"), predicted[9] / predicted[1], 11)
claims.add(tr("Predicted / roofline, fused and eager: both longer"),
           all(modelled[k]["estimate_total_time"] > predicted[k] for k in (1, 9)), True)
claims.add(tr("Eager / fused, predicted: the traffic ratio within 1 %"),
           modelled[9]["estimate_total_time"] / modelled[1]["estimate_total_time"], 11, rtol=0.01)
claims.show()

# %%
# The fused kernel reads 4 bytes and writes 4 bytes per element, 2.15 GB in all at this size; the
# eager version moves 88 bytes per element, 23.6 GB. At 13 FLOPs per 8 bytes even the fused kernel
# sits more than ten times below the H100's ridge of about 20 FLOP/byte: GeLU is limited by HBM
# bandwidth, and its time is its traffic divided by the bandwidth. The roofline bound is 0.64 ms for
# the fused kernel and 7.05 ms for the eager version, exactly 11 times longer, for the same arithmetic.
# kernellab's model predicts more for both (the last column): an H100's DRAM sustains only part of its
# spec-sheet bandwidth, and each of the eager version's nine launches pays its own start. Their ratio
# stays that of the traffic, 11 within 1 %.
#
# This is what PyTorch's built-in ``gelu`` (one CUDA kernel) and ``torch.compile`` (which generates a
# Triton kernel like this one) both exploit.

# %%
# What the lecture measured
# -------------------------
# A later revision of the lecture profiled both versions at this size (the GPU is not stated): the
# eager version's kernels, five kinds of them, took 7.77 ms of GPU time in total, and PyTorch's single
# fused GeLU kernel took 709.9 µs.

measured_eager, measured_fused = 7.77e-3, 709.9e-6
print_table(
    [tr("Version"), tr("Measured GPU time"), tr("Traffic ratio (model)"), tr("Time ratio (measured)")],
    [[tr("Eager (one kernel per operator)"), fmt_time(measured_eager), "", ""],
     [tr("Built-in fused kernel (PyTorch)"), fmt_time(measured_fused), f"{predicted[9] / predicted[1]:.0f}×",
      f"{measured_eager / measured_fused:.1f}×"]],
)

# %%
Claims().add(tr("Eager / fused, measured"), round(measured_eager / measured_fused, 1), 10.9) \
    .add(tr("Measured ratio against the traffic ratio"), measured_eager / measured_fused, predicted[9] / predicted[1],
         rtol=0.03).show()

# %%
# The measured ratio, 10.9, is within a few percent of the traffic ratio of 11: for a
# bandwidth-bound operator, the bytes moved predict the time. Fusion does not make the arithmetic
# faster; it removes the trips to HBM between operators.

# %%
# Where the bytes go
# ------------------
# HBM bytes per element of each launch of the eager version, against the fused kernel.

import matplotlib.pyplot as plt

from kernellab.figures import use_cjk_font

use_cjk_font()
fig, ax = plt.subplots(figsize=(7, 3.6), layout="constrained")
labels = [str(i + 1) for i in range(len(launches))] + [tr("fused")]
reads = [c.load_bytes / N_SIM for _, c in launches] + [fused.load_bytes / N_SIM]
writes = [c.store_bytes / N_SIM for _, c in launches] + [fused.store_bytes / N_SIM]
pos = np.arange(len(labels))
ax.bar(pos, reads, color="C0", label=tr("read"))
ax.bar(pos, writes, bottom=reads, color="C1", label=tr("written"))
ax.axvline(len(launches) - 0.5, color="0.5", lw=1, ls=":")
ax.set_xticks(pos, labels)
ax.set_xlabel(tr("Eager launch (in order), then the fused kernel"))
ax.set_ylabel(tr("HBM bytes per element"))
ax.set_title(tr("GeLU: eager moves {eager:.0f} B per element, fused {fused:.0f} B").format(
    eager=(eager.load_bytes + eager.store_bytes) / N_SIM, fused=(fused.load_bytes + fused.store_bytes) / N_SIM))
ax.legend(loc="upper left")
plt.show()

# sphinx_gallery_thumbnail_number = 1

# %%
# The compiled code
# -----------------
# The notes write out the kernel's PTX "to look at later". Real Triton compiles for a GPU on a machine
# that has none: ``tests/conformance/compiled.py`` compiles this page's ``triton_gelu_kernel`` with
# ``triton.compile(ASTSource(...), target=GPUTarget("cuda", 86, 32))`` for an sm_86 GPU with 4 warps
# per program, and disassembles the cubin into SASS with ``cuobjdump``. This page reads the excerpts
# it saved, so it needs no Triton. First the PTX compiled with nothing known about the arguments:
# each line is one instruction of one thread; ``@%p1`` is the mask turned into a predicate.

from kernellab import compiled_code
from kernellab.access import SECTOR_BYTES, WARP_SIZE

gelu_code = compiled_code("triton_gelu_kernel")  # saved by the conformance session
print("\n".join(gelu_code["unaligned"]["ptx"]))

# %%
# Then the same kernel compiled knowing that both pointers and ``num_elements`` are multiples of 16.
# Triton specialises a kernel this way by itself when a launch's tensors are 16-byte aligned and its
# integer arguments divisible by 16, and ``tl.multiple_of`` states it by hand. The SASS is shown too:
# ``LDG.E.128`` is one 16-byte load per thread, ``MUFU.EX2`` the hardware's 2ˣ.

print("\n".join(gelu_code["aligned"]["ptx"]))
print()
print("\n".join(gelu_code["aligned"]["sass"]))

# %%
# What one program of 1024 elements issues, in the compiled code and as kernellab counts it. A PTX
# line is executed by all 128 threads of the program, so each load line is one warp instruction per
# warp, and one request. kernellab runs the kernel twice: as launched (its arguments are 16-byte
# aligned arrays and 1024, which ``triton.jit`` specialises as divisible by 16), and with nothing known
# (``nothing_known``: every argument in ``do_not_specialize``).

from kernellab.triton.compiler.specialize import nothing_known


def compiled_loads(variant):
    """Loads per thread, bytes per thread per load, requests and sectors of one full program."""
    loads = [line for line in variant["ptx"] if "ld.global" in line]
    width = 16 if ".v4." in loads[0] else 4  # a v4 load moves four 4-byte values
    requests = len(loads) * gelu_code["num_warps"]  # one per warp per load line
    return len(loads), width, requests, requests * WARP_SIZE * width // SECTOR_BYTES


def kernellab_loads(counts):
    """The same columns from kernellab's counts of one program (4 warps)."""
    per_thread = counts.load_instructions // 4
    return per_thread, counts.load_bytes // (per_thread * 128), counts.load_requests, counts.load_sectors


args = (np.zeros(1024, np.float32), np.zeros(1024, np.float32), 1024)
one_program = triton_gelu_kernel[(1,)](*args, BLOCK_SIZE=1024)
plain_program = nothing_known(triton_gelu_kernel)[(1,)](*args, BLOCK_SIZE=1024)
rows = [[tr("Compiled, nothing known"), *compiled_loads(gelu_code["unaligned"])],
        [tr("kernellab, nothing known"), *kernellab_loads(plain_program)],
        [tr("Compiled, multiples of 16"), *compiled_loads(gelu_code["aligned"])],
        [tr("kernellab, multiples of 16"), *kernellab_loads(one_program)]]
print_table([tr("Version"), tr("Loads per thread"), tr("Bytes per load"), tr("Load requests"), tr("Sectors")], rows)
print(tr("Specialisation of the launch:"), one_program.specialization)

# %%
claims = Claims()
# 1024 / 32 lanes = 32 requests; 1024 / (32 · 4) = 8; 1024 · 4 bytes / 32 = 128 sectors
claims.add(tr("Load requests, nothing known: compiled / kernellab"), f"{rows[0][3]} / {rows[1][3]}", "32 / 32")
claims.add(tr("Load requests, multiples of 16: compiled / kernellab"), f"{rows[2][3]} / {rows[3][3]}", "8 / 8")
claims.add(tr("Sectors, all four"), " / ".join(str(r[4]) for r in rows), "128 / 128 / 128 / 128")
claims.add(tr("ex2.approx per thread"), sum("ex2.approx" in line for line in gelu_code["unaligned"]["ptx"]), 8)
claims.show()

# %%
# With nothing known, Triton gives each thread one element in each stripe of 128: every load
# instruction of a warp reads 32 consecutive floats, 32 requests a program. Knowing the alignment,
# Triton gives each thread four consecutive elements and one 128-bit load, ``ld.global.v4.b32``: four
# times fewer instructions and requests for the same sectors and bytes. kernellab follows the same rule
# (its axis analysis, layout and vector width are those of the compiler, see :doc:`/layout`), so its
# requests equal the compiled code's in both cases, and its sector and byte counts, which set the HBM
# traffic, are the same either way. The
# exponential becomes ``ex2.approx.f32``, eight per thread, after a multiplication by log₂(e).

# %%
# Between the two: aligned tensors, a size that is not a multiple of 16
# ---------------------------------------------------------------------
# The commonest launch is neither of these. numpy and torch allocations are 16-byte aligned, but a
# size such as the 5000 elements of the check above is not a multiple of 16. The pointers then let
# Triton give each thread 4 consecutive floats, as when everything is known, but the mask
# ``offsets < 5000`` may change at any element, so each thread loads its 4 floats with 4 instructions
# of one float. The lanes of one such instruction lie 16 bytes apart: 32 lanes span 512 bytes, 16
# sectors, where their 128 bytes would fill 4. Launched with ``lines=True``, kernellab counts each
# line's sectors and *ideal* sectors (what its requests would touch were their bytes contiguous), and
# the report names the line whose excess sectors they are. Padding the tensor to 5008 elements, a
# multiple of 16, brings back the 16-byte loads: 8 load requests a program instead of 32.

from kernellab import predict, show
from kernellab.model import estimate_label, resource_label
from kernellab.model.estimate import l2_traffic

odd = rng.standard_normal(5000).astype(np.float32)
odd_counts = triton_gelu_kernel[(triton.cdiv(5000, 1024),)](odd, np.empty_like(odd), 5000, BLOCK_SIZE=1024,
                                                             lines=True)
padded = np.zeros(5008, np.float32)
padded[:5000] = odd
padded_counts = triton_gelu_kernel[(triton.cdiv(5008, 1024),)](padded, np.empty_like(padded), 5008,
                                                               BLOCK_SIZE=1024, lines=True)
view_columns = ["Requests", "Sectors", "Sectors/request", "Ideal sectors", "Excess sectors", "DRAM bytes"]
print(tr("Specialisation, 5000 elements:"), odd_counts.specialization)
show(odd_counts.source(columns=view_columns))

# %%
# The same kernel on the padded tensor: every request takes the sectors it needs.

show(padded_counts.source(columns=view_columns))

# %%
# The report's findings, for 5000 elements:

found = [f for f in odd_counts.report(PERF_H100).findings if f.rule == "uncoalesced"]
for finding in found:
    print(finding)

# %%
# The load and the store lines share the excess sectors equally, so the report names both, each with
# half. To see what they cost, the same pair of launches at 2²² + 5 elements (and 2²² + 16
# padded), large enough for the time to be DRAM's rather than the launch's: the model charges L1 by
# the lines the requests touch (:doc:`/model`).

big = 2**22 + 5
x_big = rng.standard_normal(big).astype(np.float32)
x_pad = np.zeros(2**22 + 16, np.float32)
x_pad[:big] = x_big
big_counts = triton_gelu_kernel[(triton.cdiv(big, 1024),)](x_big, np.empty_like(x_big), big, BLOCK_SIZE=1024)
pad_counts = triton_gelu_kernel[(triton.cdiv(x_pad.size, 1024),)](x_pad, np.empty_like(x_pad), x_pad.size,
                                                                  BLOCK_SIZE=1024)
p_odd, p_padded = predict(big_counts, PERF_H100), predict(pad_counts, PERF_H100)
print_table([tr("Elements"), tr("Sectors"), tr("Ideal sectors"), tr("DRAM bytes"), tr("L1 time"), tr("Bound"),
             tr("Throughput bound on H100"), tr("Predicted time on H100")],
            [[f"{n:,}", fmt_num(c.sectors), fmt_num(c.load_ideal_sectors + c.store_ideal_sectors),
              fmt_bytes(c.dram_bytes), fmt_time(p["t_l1"]), resource_label(p["bound"]), fmt_time(p["time"]),
              fmt_time(p["estimate_time"])]
             for n, c, p in ((big, big_counts, p_odd), (x_pad.size, pad_counts, p_padded))])

# %%
odd_program = triton_gelu_kernel[(5,)](odd, np.empty_like(odd), 5000, BLOCK_SIZE=1024, per_program=True)
first = odd_program.per_program[(0, 0, 0)]  # a full program: 1024 elements, 8 a thread
load_line = next(line for (_, line), row in odd_counts.by_line.items() if row.load_requests)
store_line, store_row = next((line, row) for (_, line), row in odd_counts.by_line.items() if row.store_requests)


def excess(c):
    return c.sectors - c.load_ideal_sectors - c.store_ideal_sectors


def excess_share(c):
    return f"{100 * excess(c) / c.sectors:.1f} %"


claims = Claims()
# 8 floats a thread, one an instruction: 8 × 4 warps = 32 requests; 16 sectors each; ideally 128 B = 4 each
claims.add(tr("One full program, 5000 elements: load requests / sectors / ideal sectors"),
           f"{first.load_requests} / {first.load_sectors} / {first.load_ideal_sectors}", "32 / 512 / 128")
per_program = [c.load_requests // c.programs for c in (odd_counts, padded_counts)]
claims.add(tr("Load requests a program, 5000 / 5008 elements"), " / ".join(map(str, per_program)), "32 / 8")
claims.add(tr("The findings name the load and the store line, each with this share of the excess"),
           " / ".join(f"{f.line}, {100 * f.value:.0f} %" for f in found), f"{load_line}, 50 % / {store_line}, 50 %")
claims.add(tr("Excess sectors of the store line = of the load line"), excess(store_row),
           excess(odd_counts.by_line[load_line]))
claims.add(tr("Excess sectors, 5000 / 5008 elements"), f"{excess_share(odd_counts)} / {excess_share(padded_counts)}",
           "74.9 % / 0.0 %")
# 5000 floats read and written: 40000 B; padded, 8 more of each: 64 B more
claims.add(tr("DRAM bytes, 5000 / 5008 elements"), f"{odd_counts.dram_bytes} / {padded_counts.dram_bytes}",
           "40000 / 40064")
claims.add(tr("L1 time, 2²² + 5 ÷ 2²² + 16 elements"), f"{p_odd['t_l1'] / p_padded['t_l1']:.1f}", "4.0")
claims.add(tr("Bound on the H100, both sizes"), " / ".join(resource_label(p["bound"]) for p in (p_odd, p_padded)),
           " / ".join([resource_label("DRAM")] * 2))
claims.add(tr("Throughput bound, 2²² + 5 ÷ 2²² + 16 elements"), f"{p_odd['time'] / p_padded['time']:.2f}", "1.00")
odd_stored = l2_traffic(big_counts)[1]
claims.add(tr("L2 bytes stored, 2²² + 5 ÷ 2²² + 16 elements"), f"{odd_stored / l2_traffic(pad_counts)[1]:.1f}", "4.0")
claims.add(tr("Estimate set by, 2²² + 5 / 2²² + 16 elements"),
           " / ".join(estimate_label(p["estimate_bound"]) for p in (p_odd, p_padded)),
           f"{estimate_label('L2')} / {estimate_label('DRAM')}")
claims.add(tr("Predicted time, 2²² + 5 ÷ 2²² + 16 elements"),
           f"{p_odd['estimate_time'] / p_padded['estimate_time']:.2f}", "1.67")
# the same with only the loads' ideal sectors at L2 (a thread's later load instructions hitting in L1)
l1_hits = big_counts.load_ideal_sectors * 32 / PERF_H100.l2_bw + odd_stored / PERF_H100.l2_write_bw
claims.add(tr("The same, the loads' ideal sectors alone through L2"),
           f"{max(l1_hits, p_odd['t_dram_sustained'] + p_odd['t_fill']) / p_padded['estimate_time']:.2f}", "1.28")
claims.show()

# %%
# The excess sectors of the load are L1 traffic. The second, third and fourth instruction of a thread
# read sectors the first one brought into L1, so DRAM sees each byte once: 40000 bytes either way at
# 5000 elements (the padded tensor's 8 extra elements add 64). The model charges L1 four times the time
# and still finds the throughput bound set by DRAM, the same for both. The excess sectors of the store
# cost more: L1 writes global stores through to L2, so each of a thread's four store instructions sends
# L2 its own sectors, each with part of its 32 bytes written, 4.0 times the bytes the padded kernel's
# stores send. At the L2's measured store rate they take longer than DRAM, and the estimate comes out
# 1.67 times the padded kernel's, set by L2. Part of that is the model's: it sends every sector a
# mini-Triton load requests through L2, where on a GPU the three later load instructions hit in L1; with
# the loads' ideal sectors alone the ratio is 1.28. Nsight Compute flags the same pattern on a GPU as
# uncoalesced global accesses, 16 sectors per request where 4 would do.
