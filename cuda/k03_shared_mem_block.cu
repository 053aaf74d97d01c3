// kernellab's CUDA twin of kernellab/sgemm/basic.py::sgemm_shared_mem_block (k3).
// Per K step a 32×32 tile of A and of B is staged in shared memory; each thread then runs a
// 32-long dot product out of shared memory. Two barriers per K step. M, N, K multiples of 32.
constexpr int S = 32;

extern "C" __global__ void sgemm_shared_mem_block(const float *A, const float *B, float *C, int M, int N, int K) {
  __shared__ float As[S * S];
  __shared__ float Bs[S * S];
  const unsigned tr = threadIdx.x / S, tc = threadIdx.x % S;
  const float *a = A + blockIdx.x * S * K;  // this block's rows of A
  const float *b = B + blockIdx.y * S;      // this block's columns of B
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += S) {
    As[tr * S + tc] = a[tr * K + tc];
    Bs[tr * S + tc] = b[tr * N + tc];
    __syncthreads();
    a += S;
    b += S * N;
#pragma unroll
    for (int d = 0; d < S; ++d) {
      acc += As[tr * S + d] * Bs[d * S + tc];
    }
    __syncthreads();
  }
  C[(blockIdx.x * S + tr) * N + blockIdx.y * S + tc] = acc;
}
