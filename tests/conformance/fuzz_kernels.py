"""Kernels the differential fuzz (test_fuzz.py) runs in kernellab and in Triton's interpreter."""

import kernellab.triton as triton
import kernellab.triton.language as tl


@triton.jit
def masked_strided_copy(x_ptr, m_ptr, out_ptr, stride, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    live = offs < n
    m = tl.load(m_ptr + offs, mask=live, other=0) != 0
    x = tl.load(x_ptr + offs * stride, mask=m & live, other=0)
    tl.store(out_ptr + offs, x, mask=live)


@triton.jit
def reduce_axis(x_ptr, s_ptr, mx_ptr, mn_ptr, R: tl.constexpr, C: tl.constexpr, AXIS: tl.constexpr):
    rows = tl.arange(0, R)[:, None]
    cols = tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + rows * C + cols)
    s = tl.sum(x, axis=AXIS, keep_dims=True)
    mx = tl.max(x, axis=AXIS, keep_dims=True)
    mn = tl.min(x, axis=AXIS, keep_dims=True)
    if AXIS % 2 == 0:
        tl.store(s_ptr + cols, s)
        tl.store(mx_ptr + cols, mx)
        tl.store(mn_ptr + cols, mn)
    else:
        tl.store(s_ptr + rows, s)
        tl.store(mx_ptr + rows, mx)
        tl.store(mn_ptr + rows, mn)


@triton.jit
def broadcast_mixed(a_ptr, b_ptr, out_ptr, s, t, R: tl.constexpr, C: tl.constexpr):
    rows = tl.arange(0, R)
    cols = tl.arange(0, C)
    a = tl.load(a_ptr + rows)[:, None]
    b = tl.load(b_ptr + cols)
    y = a * s + b - t
    y = y / (tl.abs(b) + 1) + a * 2
    tl.store(out_ptr + rows[:, None] * C + cols[None, :], y)


@triton.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b, input_precision="ieee"))
