// kernellab's CUDA twin of kernellab/sgemm/basic.py::sgemm_shared_mem_block (k3).
// Per K step a 32×32 tile of A and of B is staged in shared memory; each thread then runs a
// 32-long dot product out of shared memory. Two barriers per K step. M, N, K multiples of 32.
#include "tiled.cuh"

constexpr int S = 32;

extern "C" __global__ void sgemm_shared_mem_block(const float *A, const float *B, float *C, int M, int N, int K) {
  __shared__ float As[S * S];
  __shared__ float Bs[S * S];
  const unsigned tr = threadIdx.x / S, tc = threadIdx.x % S;
  float acc = 0.0f;
  // this block's rows of A (block row blockIdx.x) and columns of B (block column blockIdx.y)
  k_loop<S>(
      A + blockIdx.x * S * K, B + blockIdx.y * S, N, K,
      [&](const float *a, const float *b) {
        As[tr * S + tc] = a[tr * K + tc];
        Bs[tr * S + tc] = b[tr * N + tc];
      },
      [&] {
#pragma unroll
        for (int d = 0; d < S; ++d) acc += As[tr * S + d] * Bs[d * S + tc];
      });
  C[(blockIdx.x * S + tr) * N + blockIdx.y * S + tc] = acc;
}
