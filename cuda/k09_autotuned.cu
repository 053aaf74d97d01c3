// kernellab's CUDA twin of kernellab/sgemm/tiled.py::sgemmAutotuned (k9), with the A6000's tiles:
// BM = BN = 128, BK = 16, an 8×8 result per thread, 256 threads. Each thread stages two float4
// of A (stored transposed) and two of B per K step.
constexpr int BM = 128, BN = 128, BK = 16, TM = 8, TN = 8, THREADS = 256;
constexpr int WM = TM * 16, WN = TN * 16;
constexpr int WMITER = (BM + WM - 1) / WM, WNITER = (BN + WN - 1) / WN;
constexpr int A_STRIDE = THREADS * 4 / BK, B_STRIDE = THREADS * 4 / BN;

extern "C" __global__ void __launch_bounds__(THREADS)
    sgemmAutotuned(const float *A, const float *B, float *C, int M, int N, int K) {
  __shared__ float As[BK * BM];
  __shared__ float Bs[BK * BN];
  const unsigned tc = threadIdx.x % (WN / TN), tr = threadIdx.x / (WN / TN);
  const unsigned ar = threadIdx.x / (BK / 4), ac = threadIdx.x % (BK / 4);
  const unsigned br = threadIdx.x / (BN / 4), bc = threadIdx.x % (BN / 4);
  const float *a = A + blockIdx.y * BM * K;
  const float *b = B + blockIdx.x * BN;
  float acc[WMITER][WNITER][TM][TN] = {{{{0.0f}}}};
  float rm[TM], rn[TN];
  for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
    for (int r = 0; r < BM; r += A_STRIDE) {
      const float4 av = *reinterpret_cast<const float4 *>(&a[(ar + r) * K + ac * 4]);
      As[(ac * 4 + 0) * BM + ar + r] = av.x;
      As[(ac * 4 + 1) * BM + ar + r] = av.y;
      As[(ac * 4 + 2) * BM + ar + r] = av.z;
      As[(ac * 4 + 3) * BM + ar + r] = av.w;
    }
#pragma unroll
    for (int r = 0; r < BK; r += B_STRIDE)
      *reinterpret_cast<float4 *>(&Bs[(br + r) * BN + bc * 4]) =
          *reinterpret_cast<const float4 *>(&b[(br + r) * N + bc * 4]);
    __syncthreads();
    a += BK;
    b += BK * N;
#pragma unroll
    for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
      for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
        for (int d = 0; d < BK; ++d) {
#pragma unroll
          for (int i = 0; i < TM; ++i) rm[i] = As[d * BM + wm * WM + tr * TM + i];
#pragma unroll
          for (int j = 0; j < TN; ++j) rn[j] = Bs[d * BN + wn * WN + tc * TN + j];
#pragma unroll
          for (int i = 0; i < TM; ++i)
#pragma unroll
            for (int j = 0; j < TN; ++j) acc[wm][wn][i][j] += rm[i] * rn[j];
        }
    __syncthreads();
  }
  float *c = C + blockIdx.y * BM * N + blockIdx.x * BN;
#pragma unroll
  for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
    for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
          float *p = &c[(wm * WM + tr * TM + i) * N + wn * WN + tc * TN + j];
          const float *v = acc[wm][wn][i];
          *reinterpret_cast<float4 *>(p) = make_float4(v[j], v[j + 1], v[j + 2], v[j + 3]);
        }
}
