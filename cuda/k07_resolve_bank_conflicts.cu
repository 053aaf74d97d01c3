// kernellab's CUDA twin of kernellab/sgemm/tiled.py::sgemmResolveBankConflicts (k7).
// k6 with Bs "linearised": the float4 of B a thread stages goes to four places 16 floats apart,
// so that in the dot loop the eight Bs values a thread needs sit 16 floats apart too.
#include "tiled.cuh"

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8, THREADS = BM * BN / (TM * TN);

extern "C" __global__ void __launch_bounds__(THREADS)
    sgemmResolveBankConflicts(const float *A, const float *B, float *C, int M, int N, int K) {
  const unsigned tc = threadIdx.x % (BN / TN), tr = threadIdx.x / (BN / TN);
  float acc[TM][TN] = {{0.0f}};
  float rm[TM], rn[TN];
  block_k_loop<BM, BN, BK>(
      A, B, N, K,
      [&](const float *a, const float *b, float *As, float *Bs) {
        load_a_transposed<BM, BK, THREADS>(a, As, K);
        load_b_scattered<BN, BK, THREADS>(b, Bs, N, [](unsigned br, unsigned bc, int j) {
          const unsigned base = (bc % 2) * 4 + br * 8;
          return (base + j) * 16 + bc / 2;
        });
      },
      [&](const float *As, const float *Bs) {
#pragma unroll
        for (int d = 0; d < BK; ++d) {
#pragma unroll
          for (int i = 0; i < TM; ++i) rm[i] = As[d * BM + tr * TM + i];
#pragma unroll
          for (int j = 0; j < TN; ++j) rn[j] = Bs[(d * 8 + j) * 16 + tc];
          fma_outer(acc, rm, rn);
        }
      });
  store_c(block_c<BM, BN>(C, N), N, tr * TM, tc * TN, acc);
}
