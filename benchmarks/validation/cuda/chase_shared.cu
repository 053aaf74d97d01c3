// Twin of kernels_simt.chase_shared (row LA-01): one thread copies a cycle of n int32 indices into shared
// memory, then follows it hops times; cycles[0] = clock64() around the chase.
#define MAX_N 2048

extern "C" __global__ void chase_shared(const int *__restrict__ nxt, int *out, long long *cycles, int hops, int n) {
  __shared__ int s[MAX_N];
  for (int i = 0; i < n; ++i) s[i] = nxt[i];
  int j = 0;
  const long long t0 = clock64();
#pragma unroll 1
  for (int h = 0; h < hops; ++h) j = s[j];
  const long long t1 = clock64();
  out[0] = j;
  cycles[0] = t1 - t0;
}
