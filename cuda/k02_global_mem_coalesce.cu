// kernellab's CUDA twin of kernellab/sgemm/basic.py::sgemm_global_mem_coalesce (k2).
// A 1-D block of 32·32 threads; a warp takes 32 consecutive columns of one row of C, so its
// B loads and C stores are coalesced and its A load is a broadcast. Signed indices let nvcc walk
// the two pointers by increments and unroll the K loop further than k1's unsigned ones.
constexpr int TILE = 32;

extern "C" __global__ void sgemm_global_mem_coalesce(const float *A, const float *B, float *C, int M, int N,
                                                     int K) {
  const int row = blockIdx.x * TILE + threadIdx.x / TILE;  // signed: nvcc may assume no wrap-around
  const int col = blockIdx.y * TILE + threadIdx.x % TILE;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) {
      acc += A[row * K + k] * B[k * N + col];
    }
    C[row * N + col] = acc;
  }
}
