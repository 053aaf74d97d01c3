// Twin of kernels_simt.transpose_padded_float4 (row EW-09): out = inᵀ (n × n floats) through a 32 × 33
// shared tile; block 8 × 32, each thread one float4 of a tile row in and one float4 of a tile row out.
#define TILE 32

extern "C" __global__ void transpose_padded_float4(const float *__restrict__ in, float *__restrict__ out, int n) {
  __shared__ float tile[TILE * (TILE + 1)];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const long x0 = (long)blockIdx.x * TILE, y0 = (long)blockIdx.y * TILE;
  const float4 v = *reinterpret_cast<const float4 *>(in + (y0 + ty) * n + x0 + tx * 4);
  tile[ty * (TILE + 1) + tx * 4 + 0] = v.x;
  tile[ty * (TILE + 1) + tx * 4 + 1] = v.y;
  tile[ty * (TILE + 1) + tx * 4 + 2] = v.z;
  tile[ty * (TILE + 1) + tx * 4 + 3] = v.w;
  __syncthreads();
  float4 w;
  w.x = tile[(tx * 4 + 0) * (TILE + 1) + ty];
  w.y = tile[(tx * 4 + 1) * (TILE + 1) + ty];
  w.z = tile[(tx * 4 + 2) * (TILE + 1) + ty];
  w.w = tile[(tx * 4 + 3) * (TILE + 1) + ty];
  *reinterpret_cast<float4 *>(out + (x0 + ty) * n + y0 + tx * 4) = w;
}
