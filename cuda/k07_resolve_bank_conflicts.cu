// kernellab's CUDA twin of kernellab/sgemm/tiled.py::sgemmResolveBankConflicts (k7).
// k6 with Bs "linearised": the float4 of B a thread stages goes to four places 16 floats apart,
// so that in the dot loop the eight Bs values a thread needs sit 16 floats apart too.
#include "tiled.cuh"

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr int THREADS = BM * BN / (TM * TN);

extern "C" __global__ void __launch_bounds__(THREADS)
    sgemmResolveBankConflicts(const float *A, const float *B, float *C, int M, int N, int K) {
  __shared__ float As[BK * BM];
  __shared__ float Bs[BK * BN];
  const unsigned tc = threadIdx.x % (BN / TN), tr = threadIdx.x / (BN / TN);
  const float *a = A + blockIdx.y * BM * K;
  const float *b = B + blockIdx.x * BN;
  float acc[TM][TN] = {{0.0f}};
  float rm[TM], rn[TN];
  for (int k0 = 0; k0 < K; k0 += BK) {
    load_a_transposed<BM, BK, THREADS>(a, As, K);
    load_b_scattered<BN, BK, THREADS>(b, Bs, N, [](unsigned br, unsigned bc, int j) {
      const unsigned base = (bc % 2) * 4 + br * 8;
      return (base + j) * 16 + bc / 2;
    });
    __syncthreads();
    a += BK;
    b += BK * N;
#pragma unroll
    for (int d = 0; d < BK; ++d) {
#pragma unroll
      for (int i = 0; i < TM; ++i) rm[i] = As[d * BM + tr * TM + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) rn[j] = Bs[(d * 8 + j) * 16 + tc];
      fma_outer(acc, rm, rn);
    }
    __syncthreads();
  }
  store_c(C + blockIdx.y * BM * N + blockIdx.x * BN, N, tr * TM, tc * TN, acc);
}
