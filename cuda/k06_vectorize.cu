// kernellab's CUDA twin of kernellab/sgemm/tiled.py::sgemmVectorize (k6).
// k5 with float4 global loads and stores; the A tile is stored transposed (As is BK×BM), so the
// dot loop reads both As and Bs as rows of consecutive floats.
#include "tiled.cuh"

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8, THREADS = BM * BN / (TM * TN);

extern "C" __global__ void __launch_bounds__(THREADS)
    sgemmVectorize(const float *A, const float *B, float *C, int M, int N, int K) {
  const unsigned tc = threadIdx.x % (BN / TN), tr = threadIdx.x / (BN / TN);
  float acc[TM][TN] = {{0.0f}};
  block_k_loop<BM, BN, BK>(
      A, B, N, K,
      [&](const float *a, const float *b, float *As, float *Bs) { load_tiles<BM, BN, BK, THREADS>(a, b, As, Bs, K, N); },
      [&](const float *As, const float *Bs) {
#pragma unroll
        for (int d = 0; d < BK; ++d) outer<BM, BN>(acc, As, Bs, d, tr * TM, tc * TN);
      });
  store_c(block_c<BM, BN>(C, N), N, tr * TM, tc * TN, acc);
}
