// kernellab's CUDA twin of kernellab/sgemm/basic.py::sgemm2DBlocktiling (k5).
// 128×128 tile of C per block of 256 threads; each thread computes an 8×8 outer product per dot
// step from registers. A and B are staged with scalar loads and stores.
#include "tiled.cuh"

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8, THREADS = BM * BN / (TM * TN);

extern "C" __global__ void __launch_bounds__(THREADS)
    sgemm2DBlocktiling(const float *A, const float *B, float *C, int M, int N, int K) {
  const unsigned tc = threadIdx.x % (BN / TN), tr = threadIdx.x / (BN / TN);
  const unsigned ar = threadIdx.x / BK, ac = threadIdx.x % BK;
  const unsigned br = threadIdx.x / BN, bc = threadIdx.x % BN;
  constexpr int A_STRIDE = THREADS / BK, B_STRIDE = THREADS / BN;
  float acc[TM][TN] = {{0.0f}};
  float rm[TM], rn[TN];
  block_k_loop<BM, BN, BK>(
      A, B, N, K,
      [&](const float *a, const float *b, float *As, float *Bs) {
#pragma unroll
        for (int r = 0; r < BM; r += A_STRIDE) As[(ar + r) * BK + ac] = a[(ar + r) * K + ac];
#pragma unroll
        for (int r = 0; r < BK; r += B_STRIDE) Bs[(br + r) * BN + bc] = b[(br + r) * N + bc];
      },
      [&](const float *As, const float *Bs) {
#pragma unroll
        for (int d = 0; d < BK; ++d) {
#pragma unroll
          for (int i = 0; i < TM; ++i) rm[i] = As[(tr * TM + i) * BK + d];
#pragma unroll
          for (int j = 0; j < TN; ++j) rn[j] = Bs[d * BN + tc * TN + j];
          fma_outer(acc, rm, rn);
        }
      });
  float *c = block_c<BM, BN>(C, N);
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) c[(tr * TM + i) * N + tc * TN + j] = acc[i][j];
}
