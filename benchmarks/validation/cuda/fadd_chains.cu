// Twin of kernels_simt.fadd_chains (row MB-04): one warp, CHAINS independent chains x = x + 1, iters FADDs
// each; cycles[0] = clock64() around the loop (thread 0).
#define CHAINS 128

extern "C" __global__ void fadd_chains(float *out, long long *cycles, int iters) {
  float x[CHAINS];
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) x[c] = (float)c;
  const long long t0 = clock64();
#pragma unroll 1
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) x[c] = x[c] + 1.0f;
  }
  const long long t1 = clock64();
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) out[c * 32 + threadIdx.x] = x[c];
  if (threadIdx.x == 0) cycles[0] = t1 - t0;
}
