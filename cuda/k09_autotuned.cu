// kernellab's CUDA twin of kernellab/sgemm/tiled.py::sgemmAutotuned (k9), with the A6000's tiles:
// BM = BN = 128, BK = 16, an 8×8 result per thread, 256 threads. Each thread stages two float4
// of A (stored transposed) and two of B per K step.
#include "tiled.cuh"

constexpr int BM = 128, BN = 128, BK = 16, TM = 8, TN = 8, THREADS = 256;
constexpr int WM = TM * 16, WN = TN * 16;
constexpr int WMITER = (BM + WM - 1) / WM, WNITER = (BN + WN - 1) / WN;

extern "C" __global__ void __launch_bounds__(THREADS)
    sgemmAutotuned(const float *A, const float *B, float *C, int M, int N, int K) {
  const unsigned tc = threadIdx.x % (WN / TN), tr = threadIdx.x / (WN / TN);
  float acc[WMITER][WNITER][TM][TN] = {{{{0.0f}}}};
  block_k_loop<BM, BN, BK>(
      A, B, N, K,
      [&](const float *a, const float *b, float *As, float *Bs) { load_tiles<BM, BN, BK, THREADS>(a, b, As, Bs, K, N); },
      [&](const float *As, const float *Bs) {
#pragma unroll
        for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
          for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
            for (int d = 0; d < BK; ++d)
              outer<BM, BN>(acc[wm][wn], As, Bs, d, wm * WM + tr * TM, wn * WN + tc * TN);
      });
  float *c = block_c<BM, BN>(C, N);
#pragma unroll
  for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
    for (int wn = 0; wn < WNITER; ++wn) store_c(c + wm * WM * N + wn * WN, N, tr * TM, tc * TN, acc[wm][wn]);
}
