// kernellab's CUDA twin of Harris's reduction kernel 2: interleaved addressing, strided index
// (`index = 2*s*tid`), no divergence in the first steps but bank conflicts.
extern "C" __global__ void reduce2(const float *g_idata, float *g_odata, unsigned int n) {
  __shared__ float sdata[256];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? g_idata[i] : 0.0f;
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    unsigned int index = 2 * s * tid;
    if (index < blockDim.x) sdata[index] += sdata[index + s];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}
