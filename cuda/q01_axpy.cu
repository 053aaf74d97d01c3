// kernellab's CUDA twin of the quickstart's SIMT kernel (docs/quickstart.md): out = a·x + y, one
// element per thread, masked at the end.
extern "C" __global__ void axpy(const float *x, const float *y, float *out, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fmaf(a, x[i], y[i]);
}
