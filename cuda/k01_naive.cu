// kernellab's CUDA twin of kernellab/sgemm/basic.py::sgemm_naive (k1).
// One thread per element of C = A·B (row-major, M×K by K×N). threadIdx.x walks down a column
// of C, so the 32 lanes of a warp read A 4·K bytes apart. No alpha/beta: C is stored, never read.
extern "C" __global__ void sgemm_naive(const float *A, const float *B, float *C, int M, int N, int K) {
  const unsigned row = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) {
      acc += A[row * K + k] * B[k * N + col];
    }
    C[row * N + col] = acc;
  }
}
