"""Kernels the speed table times (issue 14), in real Triton syntax, beside tests/triton_kernels.py.

As there, only the two import lines below tie this file to kernellab: ``bench_speed.py`` loads it
again with ``import triton`` / ``import triton.language as tl`` to time Triton's own interpreter.
"""

import kernellab.triton as triton
import kernellab.triton.language as tl


@triton.jit
def add_relu_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x + y, 0.0), mask=mask)


@triton.jit
def gelu_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    # GeLU with tanh written as 1 − 2 / (e^2a + 1) (Triton has no tl.tanh): gallery/triton_notes/01_gelu.py
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    a = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    tanh = 1 - 2 / (tl.exp(2 * a) + 1)
    tl.store(y_ptr + offs, 0.5 * x * (1 + tanh), mask=mask)
