// kernellab's CUDA twin of kernellab/sgemm/basic.py::sgemm1DBlocktiling (k4).
// 64×64 tile of C per block of 512 threads; each thread computes TM = 8 results down a column
// and reuses one Bs value from a register for all eight.
#include "tiled.cuh"

constexpr int BM = 64, BN = 64, BK = 8, TM = 8;

extern "C" __global__ void sgemm1DBlocktiling(const float *A, const float *B, float *C, int M, int N, int K) {
  const unsigned tc = threadIdx.x % BN, tr = threadIdx.x / BN;
  const unsigned ar = threadIdx.x / BK, ac = threadIdx.x % BK;  // which A element this thread stages
  const unsigned br = threadIdx.x / BN, bc = threadIdx.x % BN;  // which B element
  float acc[TM] = {0.0f};
  block_k_loop<BM, BN, BK>(
      A, B, N, K,
      [&](const float *a, const float *b, float *As, float *Bs) {
        As[ar * BK + ac] = a[ar * K + ac];
        Bs[br * BN + bc] = b[br * N + bc];
      },
      [&](const float *As, const float *Bs) {
#pragma unroll
        for (int d = 0; d < BK; ++d) {
          const float bv = Bs[d * BN + tc];
#pragma unroll
          for (int i = 0; i < TM; ++i) acc[i] += As[(tr * TM + i) * BK + d] * bv;
        }
      });
  float *c = block_c<BM, BN>(C, N);
#pragma unroll
  for (int i = 0; i < TM; ++i) c[(tr * TM + i) * N + tc] = acc[i];
}
