// Twin of kernels_simt.expf_chains (row MB-03): one warp, CHAINS independent chains x = __expf(x · 1e-5),
// iters steps each; cycles[0] = clock64() around the loop (thread 0).
#define CHAINS 128

extern "C" __global__ void expf_chains(float *out, long long *cycles, int iters) {
  float x[CHAINS];
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) x[c] = 0.5f + c * 1e-3f;
  const long long t0 = clock64();
#pragma unroll 1
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) x[c] = __expf(x[c] * 1e-5f);
  }
  const long long t1 = clock64();
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) out[c * 32 + threadIdx.x] = x[c];
  if (threadIdx.x == 0) cycles[0] = t1 - t0;
}
