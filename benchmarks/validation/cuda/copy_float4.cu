// Twin of kernels_simt.copy_float4 (rows EW-06, EW-07, MB-01): dst[i] = src[i] over n4 float4s, a
// grid-stride loop, UNROLL float4 loads then UNROLL stores per pass. __ldcg/__stcg (MB-01's L2-resident
// copy) are not used: the twin is the kernel the simulator counts.
#define UNROLL 4

extern "C" __global__ void copy_float4(const float4 *__restrict__ src, float4 *__restrict__ dst, int n4) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  const int stride = gridDim.x * blockDim.x;
  for (int base = 0; base < n4; base += stride * UNROLL) {
    float4 v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const int i = base + u * stride + tid;
      if (i < n4) v[u] = src[i];
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const int i = base + u * stride + tid;
      if (i < n4) dst[i] = v[u];
    }
  }
}
