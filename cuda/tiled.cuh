// Pieces shared by the CUDA twins of kernellab/sgemm/tiled.py (k6–k10), one per helper there, the K loop
// of the shared-memory twins (k3–k10) and fma_outer, which k5 uses too.
// All are inlined: each twin still compiles to one kernel with one K loop.
#pragma once

// The K loop of the shared-memory twins, with the block's A tile at a and its B tile at b: per K step,
// stage(a, b) copies the tiles into shared memory, a barrier, a moves BK columns and b BK rows on,
// dot() computes out of shared memory, a barrier.
template <int BK, typename Stage, typename Dot>
__device__ __forceinline__ void k_loop(const float *a, const float *b, int N, int K, Stage stage, Dot dot) {
  for (int k0 = 0; k0 < K; k0 += BK) {
    stage(a, b);
    __syncthreads();
    a += BK;
    b += BK * N;
    dot();
    __syncthreads();
  }
}

// k_loop for the tile of C at block row blockIdx.y and block column blockIdx.x (k4–k10): As (BK×BM
// floats) and Bs (BK rows of BNS floats) in shared memory, stage(a, b, As, Bs) and dot(As, Bs).
template <int BM, int BN, int BK, int BNS = BN, typename Stage, typename Dot>
__device__ __forceinline__ void block_k_loop(const float *A, const float *B, int N, int K, Stage stage, Dot dot) {
  __shared__ float As[BK * BM], Bs[BK * BNS];
  k_loop<BK>(
      A + blockIdx.y * BM * K, B + blockIdx.x * BN, N, K, [&](const float *a, const float *b) { stage(a, b, As, Bs); },
      [&] { dot(As, Bs); });
}

// The block's BM×BN tile of C (block row blockIdx.y, block column blockIdx.x; rows N apart).
template <int BM, int BN>
__device__ __forceinline__ float *block_c(float *C, int N) {
  return C + blockIdx.y * BM * N + blockIdx.x * BN;
}

// _load_a_transposed: float4 loads of the BM×BK tile of A (rows K apart), each stored as four floats
// down a column of As, which is BK×BM.
template <int BM, int BK, int THREADS>
__device__ __forceinline__ void load_a_transposed(const float *a, float *As, int K) {
  const unsigned row = threadIdx.x / (BK / 4), col = threadIdx.x % (BK / 4);
#pragma unroll
  for (int r = 0; r < BM; r += THREADS * 4 / BK) {
    const float4 v = *reinterpret_cast<const float4 *>(&a[(row + r) * K + col * 4]);
    As[(col * 4 + 0) * BM + row + r] = v.x;
    As[(col * 4 + 1) * BM + row + r] = v.y;
    As[(col * 4 + 2) * BM + row + r] = v.z;
    As[(col * 4 + 3) * BM + row + r] = v.w;
  }
}

// _load_b_rows, stored as it is read: float4 loads of the BK×BN tile of B into the rows of Bs.
template <int BN, int BK, int THREADS>
__device__ __forceinline__ void load_b_rows(const float *b, float *Bs, int N) {
  const unsigned row = threadIdx.x / (BN / 4), col = threadIdx.x % (BN / 4);
#pragma unroll
  for (int r = 0; r < BK; r += THREADS * 4 / BN)
    *reinterpret_cast<float4 *>(&Bs[(row + r) * BN + col * 4]) =
        *reinterpret_cast<const float4 *>(&b[(row + r) * N + col * 4]);
}

// _load_tiles: one K step's staging as kernel 6 does it, A transposed into As and B's rows into Bs.
template <int BM, int BN, int BK, int THREADS>
__device__ __forceinline__ void load_tiles(const float *a, const float *b, float *As, float *Bs, int K, int N) {
  load_a_transposed<BM, BK, THREADS>(a, As, K);
  load_b_rows<BN, BK, THREADS>(b, Bs, N);
}

// _load_b_rows, each float4 stored as four floats at Bs[at(row, col, j)] (row and float4 column of the
// tile, j = 0..3): for the Bs layouts a float4 store cannot write (k7, k8).
template <int BN, int BK, int THREADS, typename At>
__device__ __forceinline__ void load_b_scattered(const float *b, float *Bs, int N, At at) {
  const unsigned row = threadIdx.x / (BN / 4), col = threadIdx.x % (BN / 4);
#pragma unroll
  for (int r = 0; r < BK; r += THREADS * 4 / BN) {
    const float4 v = *reinterpret_cast<const float4 *>(&b[(row + r) * N + col * 4]);
    Bs[at(row + r, col, 0)] = v.x;
    Bs[at(row + r, col, 1)] = v.y;
    Bs[at(row + r, col, 2)] = v.z;
    Bs[at(row + r, col, 3)] = v.w;
  }
}

// The dot step's arithmetic: acc[i][j] += rm[i] * rn[j], an outer product from registers.
template <int TM, int TN>
__device__ __forceinline__ void fma_outer(float (&acc)[TM][TN], const float (&rm)[TM], const float (&rn)[TN]) {
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] += rm[i] * rn[j];
}

// _outer: TM values of As and TN of Bs (both rows of consecutive floats) and their outer product.
template <int BM, int BN, int TM, int TN>
__device__ __forceinline__ void outer(float (&acc)[TM][TN], const float *As, const float *Bs, int d, unsigned m0,
                                      unsigned n0) {
  float rm[TM], rn[TN];
#pragma unroll
  for (int i = 0; i < TM; ++i) rm[i] = As[d * BM + m0 + i];
#pragma unroll
  for (int j = 0; j < TN; ++j) rn[j] = Bs[d * BN + n0 + j];
  fma_outer(acc, rm, rn);
}

// _store_c: float4 stores of a TM×TN result at rows row0 + i and columns col0 + j of C (rows N apart).
template <int TM, int TN>
__device__ __forceinline__ void store_c(float *c, int N, unsigned row0, unsigned col0, const float (&acc)[TM][TN]) {
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; j += 4)
      *reinterpret_cast<float4 *>(&c[(row0 + i) * N + col0 + j]) =
          make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
}
