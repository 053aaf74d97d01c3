// Twin of kernels_simt.scale_bytes (rows EW-03, EW-04): b[i] = scalar · c[i] over n int8 elements, one
// 16-byte vector (16 elements) a thread, 256 threads a block.
extern "C" __global__ void scale_bytes(const int4 *__restrict__ c, int4 *__restrict__ b, int scalar, int n) {
  const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i * 16 < n) {
    int4 v = c[i];
    signed char *p = reinterpret_cast<signed char *>(&v);
#pragma unroll
    for (int k = 0; k < 16; ++k) p[k] = (signed char)(p[k] * scalar);
    b[i] = v;
  }
}
