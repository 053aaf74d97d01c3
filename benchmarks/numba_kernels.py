"""SGEMM kernel 1 (naive) for numba's CUDA simulator, which ``bench_speed.py`` times against kernellab.

The simulator swaps the module-level name ``cuda`` for its own while a kernel runs, so the kernel
must live at module level; import this module only with ``NUMBA_ENABLE_CUDASIM=1`` set.
"""

from numba import cuda


@cuda.jit
def sgemm_naive(A, B, C, M, N, K):
    x = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    y = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
    if x < M and y < N:
        tmp = 0.0
        for i in range(K):
            tmp += A[x, i] * B[i, y]
        C[x, y] = tmp
