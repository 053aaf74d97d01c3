// kernellab's CUDA twin of Harris's reduction kernel 4: first add during the global load (each block
// reads 2·blockDim.x elements), then sequential addressing.
extern "C" __global__ void reduce4(const float *g_idata, float *g_odata, unsigned int n) {
  __shared__ float sdata[256];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  float v = (i < n) ? g_idata[i] : 0.0f;
  if (i + blockDim.x < n) v += g_idata[i + blockDim.x];
  sdata[tid] = v;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}
