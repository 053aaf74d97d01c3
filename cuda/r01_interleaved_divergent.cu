// kernellab's CUDA twin of Harris's reduction kernel 1 ("Optimizing Parallel Reduction in CUDA"):
// interleaved addressing with a divergent branch, `tid % (2*s) == 0`. Each block sums blockDim.x
// elements into g_odata[blockIdx.x]. Written for kernellab (tests/test_sass_reduce.py), not copied.
extern "C" __global__ void reduce1(const float *g_idata, float *g_odata, unsigned int n) {
  __shared__ float sdata[256];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? g_idata[i] : 0.0f;
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}
