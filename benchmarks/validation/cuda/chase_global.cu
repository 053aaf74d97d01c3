// Twin of kernels_simt.chase_global (row LA-03): one thread follows a chain of int64 indices through
// global memory hops times (j = nxt[j]); cycles[0] = clock64() around the chase.
extern "C" __global__ void chase_global(const long long *nxt, long long *out, long long *cycles, int hops) {
  long long j = 0;
  const long long t0 = clock64();
#pragma unroll 1
  for (int h = 0; h < hops; ++h) j = nxt[j];
  const long long t1 = clock64();
  out[0] = j;
  cycles[0] = t1 - t0;
}
