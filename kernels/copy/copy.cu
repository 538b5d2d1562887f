/* Device-to-device copy from "in" to "out" (NVRTC): the bandwidth ceiling the CUDA kernels' GB/s are compared
   with. copy_vec is a grid-stride loop of 16-byte (uint4) vectors; copy_x1..copy_x8 give each thread 1..8
   vectors a block apart, all loaded before any is stored (more loads in flight per thread, no loop). Every
   entry copies the last bytes % 16 bytes one by one from the first threads of the grid.
   copy_rows and copy_rows_rev see the buffer as rows of row_vectors vectors (no tail: the plan only offers
   them when the bytes are whole rows) and take a 2-D grid, x along a row and y over rows, the geometry of
   the image kernels (a flip of 8192-byte rows measured 0.3-1% above every 1-D copy at 67 MB);
   copy_rows_rev maps thread x to vector row_vectors-1-x, the flip's order. Both are plain copies. */
__device__ __forceinline__ void copy_tail(const uint4* __restrict__ in, uint4* __restrict__ out, long long vectors,
                                          int bytes, long long first) {
  const int tail = bytes % 16;
  if (first < tail)
    ((unsigned char*)out)[vectors * 16 + first] = ((const unsigned char*)in)[vectors * 16 + first];
}

extern "C" __global__ void copy_vec(const uint4* __restrict__ in, uint4* __restrict__ out, int bytes) {
  const long long vectors = bytes / 16;
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  for (long long i = first; i < vectors; i += stride) out[i] = in[i];
  copy_tail(in, out, vectors, bytes, first);
}

template <int N>
__device__ __forceinline__ void copy_items(const uint4* __restrict__ in, uint4* __restrict__ out, int bytes) {
  const long long vectors = bytes / 16;
  const long long base = (long long)blockIdx.x * blockDim.x * N + threadIdx.x;
  uint4 v[N];
#pragma unroll
  for (int k = 0; k < N; ++k) {
    const long long i = base + (long long)k * blockDim.x;
    if (i < vectors) v[k] = in[i];
  }
#pragma unroll
  for (int k = 0; k < N; ++k) {
    const long long i = base + (long long)k * blockDim.x;
    if (i < vectors) out[i] = v[k];
  }
  copy_tail(in, out, vectors, bytes, (long long)blockIdx.x * blockDim.x + threadIdx.x);
}

extern "C" __global__ void copy_x1(const uint4* __restrict__ in, uint4* __restrict__ out, int bytes) {
  copy_items<1>(in, out, bytes);
}
extern "C" __global__ void copy_x2(const uint4* __restrict__ in, uint4* __restrict__ out, int bytes) {
  copy_items<2>(in, out, bytes);
}
extern "C" __global__ void copy_x4(const uint4* __restrict__ in, uint4* __restrict__ out, int bytes) {
  copy_items<4>(in, out, bytes);
}
extern "C" __global__ void copy_x8(const uint4* __restrict__ in, uint4* __restrict__ out, int bytes) {
  copy_items<8>(in, out, bytes);
}

template <bool Reverse>
__device__ __forceinline__ void copy_row_vector(const uint4* __restrict__ in, uint4* __restrict__ out,
                                                int row_vectors, int rows) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  if (g < row_vectors && r < rows) {
    const long long i = (long long)r * row_vectors + (Reverse ? row_vectors - 1 - g : g);
    out[i] = in[i];
  }
}

extern "C" __global__ void copy_rows(const uint4* __restrict__ in, uint4* __restrict__ out, int row_vectors,
                                     int rows) {
  copy_row_vector<false>(in, out, row_vectors, rows);
}
extern "C" __global__ void copy_rows_rev(const uint4* __restrict__ in, uint4* __restrict__ out, int row_vectors,
                                         int rows) {
  copy_row_vector<true>(in, out, row_vectors, rows);
}
