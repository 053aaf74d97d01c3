"""Kernels in real Triton syntax for the compiled-code reference (tests/compiled_cases.py), beside
tests/triton_kernels.py: the quickstart's kernel and the access patterns whose vector width and layout
Triton's compiler chooses differently (a half-precision copy, a ``tl.multiple_of`` hint, a stride-2 load,
a column of a row-major matrix, a scalar store). Keep every kernel valid Triton: only the two import
lines tie this file to kernellab.
"""

import kernellab.triton as triton
import kernellab.triton.language as tl


# The quickstart's kernel (docs/quickstart.md)
@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a * x + y, mask=mask)


# A copy with no mask: the block's pointers alone decide the vector width
@triton.jit
def copy_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))


# A masked copy whose bound is promised a multiple of 16 by the kernel (tl.multiple_of)
@triton.jit
def hinted_copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    n = tl.multiple_of(n, 16)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


# Every other element in, a contiguous block out
@triton.jit
def stride2_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + 2 * offs, mask=mask), mask=mask)


# A 2-D tile copied through a row stride
@triton.jit
def tile_copy_kernel(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    offs = rows[:, None] * stride + cols[None, :]
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))


# A column block of a row-major matrix: the block's fastest axis is its first
@triton.jit
def column_kernel(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.arange(0, BM)
    cols = tl.program_id(0) * BN + tl.arange(0, BN)
    x = tl.load(x_ptr + rows[:, None] + cols[None, :] * stride)
    tl.store(out_ptr + rows[:, None] + cols[None, :] * stride, x * 2.0)


# One value per program
@triton.jit
def scalar_kernel(x_ptr, out_ptr, scale):
    pid = tl.program_id(0)
    tl.store(out_ptr + pid, tl.load(x_ptr + pid) * scale)


# One tl.dot of a whole M×K block by a K×N block (no loop): its MMA instructions per program
@triton.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b))


# The same in IEEE fp32 (no tensor cores): FMAs only
@triton.jit
def dot_ieee_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b, input_precision="ieee"))


# Atomics: an fp32 atomic_add of a loaded block (its old values unused, then stored), one of a
# reduction's scalar, and the other operations and types
@triton.jit
def atomic_add_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.atomic_add(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


@triton.jit
def atomic_old_kernel(x_ptr, out_ptr, old_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    old = tl.atomic_add(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)
    tl.store(old_ptr + offs, old, mask=mask)


@triton.jit
def atomic_scalar_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(out_ptr, tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0), axis=0))


@triton.jit
def atomic_ops_kernel(f_ptr, i_ptr, h_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.atomic_max(f_ptr + offs, offs.to(tl.float32), mask=mask)
    tl.atomic_add(i_ptr + offs, offs, mask=mask)
    tl.atomic_add(h_ptr + offs, offs.to(tl.float16), mask=mask)


# A tile copied through tensor descriptors: on sm_80 Triton rewrites them to masked pointer loads and
# stores (vectorised as any other); on sm_90 to TMA (cp.async.bulk.tensor), no ld.global or st.global
@triton.jit
def desc_copy_kernel(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    dst = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    dst.store([tl.program_id(0) * BM, 0], src.load([tl.program_id(0) * BM, 0]))


# The same tile scaled on its way: on sm_90 it goes from shared memory to the registers (ld.shared)
# and back (st.shared) around the TMA copies; a 64-column fp16 tile and 8 warps change the boxes
@triton.jit
def desc_scale_kernel(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    dst = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    dst.store([tl.program_id(0) * BM, 0], src.load([tl.program_id(0) * BM, 0]) * 2)


# A tile product whose operands come through tensor descriptors: on sm_90 wgmma reads the TMA tiles
# where they land in shared memory; on sm_80 they are pointer loads, staged as any tl.dot's operands
@triton.jit
def desc_dot_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    a = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[M, K])
    b = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[K, N])
    rm, rn = tl.arange(0, M), tl.arange(0, N)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a.load([0, 0]), b.load([0, 0])))
