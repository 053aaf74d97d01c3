// kernellab's CUDA twin of kernellab/sgemm/tiled.py::sgemmResolveBankExtraCol (k8).
// k6 with each Bs row padded by EXTRA = 5 floats (Bs is BK × 133): rows no longer start on a
// 16-byte boundary, so B is staged with scalar stores and read with mixed-width loads.
#include "tiled.cuh"

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8, EXTRA = 5;
constexpr int BNP = BN + EXTRA;
constexpr int THREADS = BM * BN / (TM * TN);

extern "C" __global__ void __launch_bounds__(THREADS)
    sgemmResolveBankExtraCol(const float *A, const float *B, float *C, int M, int N, int K) {
  const unsigned tc = threadIdx.x % (BN / TN), tr = threadIdx.x / (BN / TN);
  float acc[TM][TN] = {{0.0f}};
  block_k_loop<BM, BN, BK, BNP>(
      A, B, N, K,
      [&](const float *a, const float *b, float *As, float *Bs) {
        load_a_transposed<BM, BK, THREADS>(a, As, K);
        load_b_scattered<BN, BK, THREADS>(b, Bs, N, [](unsigned br, unsigned bc, int j) { return br * BNP + bc * 4 + j; });
      },
      [&](const float *As, const float *Bs) {
#pragma unroll
        for (int d = 0; d < BK; ++d) outer<BM, BNP>(acc, As, Bs, d, tr * TM, tc * TN);
      });
  store_c(block_c<BM, BN>(C, N), N, tr * TM, tc * TN, acc);
}
