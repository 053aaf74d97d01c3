// kernellab's CUDA twin of kernellab/sgemm/tiled.py::sgemmWarptiling (k10), with the A6000's tiles:
// BM = BN = 128, BK = 16, 4 warps of 64×64, each thread an 8×16 result in WNITER = 4 sub-tiles of 8×4.
#include "tiled.cuh"

constexpr int BM = 128, BN = 128, BK = 16, WM = 64, WN = 64, WNITER = 4, TM = 8, TN = 4, THREADS = 128;
constexpr int WMITER = (WM * WN) / (32 * TM * TN * WNITER);
constexpr int WSUBM = WM / WMITER, WSUBN = WN / WNITER;

extern "C" __global__ void __launch_bounds__(THREADS)
    sgemmWarptiling(const float *A, const float *B, float *C, int M, int N, int K) {
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const unsigned wc = warp % (BN / WN), wr = warp / (BN / WN);
  const unsigned tc = lane % (WSUBN / TN), tr = lane / (WSUBN / TN);
  float acc[WMITER * TM][WNITER * TN] = {{0.0f}};
  float rm[WMITER * TM], rn[WNITER * TN];
  block_k_loop<BM, BN, BK>(
      A, B, N, K,
      [&](const float *a, const float *b, float *As, float *Bs) { load_tiles<BM, BN, BK, THREADS>(a, b, As, Bs, K, N); },
      [&](const float *As, const float *Bs) {
#pragma unroll
        for (int d = 0; d < BK; ++d) {
#pragma unroll
          for (int ws = 0; ws < WMITER; ++ws)
#pragma unroll
            for (int i = 0; i < TM; ++i) rm[ws * TM + i] = As[d * BM + wr * WM + ws * WSUBM + tr * TM + i];
#pragma unroll
          for (int ws = 0; ws < WNITER; ++ws)
#pragma unroll
            for (int j = 0; j < TN; ++j) rn[ws * TN + j] = Bs[d * BN + wc * WN + ws * WSUBN + tc * TN + j];
          fma_outer(acc, rm, rn);
        }
      });
  float *c = block_c<BM, BN>(C, N) + wr * WM * N + wc * WN;
#pragma unroll
  for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
    for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        float *p = &c[(wm * WSUBM + tr * TM + i) * N + wn * WSUBN + tc * TN];
        const float *v = &acc[wm * TM + i][wn * TN];
        *reinterpret_cast<float4 *>(p) = make_float4(v[0], v[1], v[2], v[3]);
      }
}
