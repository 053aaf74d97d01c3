// kernellab's CUDA twin of kernellab/sgemm/tiled.py::sgemmVectorize (k6).
// k5 with float4 global loads and stores; the A tile is stored transposed (As is BK×BM), so the
// dot loop reads both As and Bs as rows of consecutive floats.
#include "tiled.cuh"

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr int THREADS = BM * BN / (TM * TN);

extern "C" __global__ void __launch_bounds__(THREADS)
    sgemmVectorize(const float *A, const float *B, float *C, int M, int N, int K) {
  __shared__ float As[BK * BM];
  __shared__ float Bs[BK * BN];
  const unsigned tc = threadIdx.x % (BN / TN), tr = threadIdx.x / (BN / TN);
  const float *a = A + blockIdx.y * BM * K;
  const float *b = B + blockIdx.x * BN;
  float acc[TM][TN] = {{0.0f}};
  for (int k0 = 0; k0 < K; k0 += BK) {
    load_tiles<BM, BN, BK, THREADS>(a, b, As, Bs, K, N);
    __syncthreads();
    a += BK;
    b += BK * N;
#pragma unroll
    for (int d = 0; d < BK; ++d) outer<BM, BN>(acc, As, Bs, d, tr * TM, tc * TN);
    __syncthreads();
  }
  store_c(C + blockIdx.y * BM * N + blockIdx.x * BN, N, tr * TM, tc * TN, acc);
}
