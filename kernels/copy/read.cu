/* Reads every 16-byte vector of "in" once and writes one 32-bit sum per block to "out" (the sum, modulo 2^32, of
   the block's 32-bit words): the read ceiling a kernel that reads far more than it writes (a histogram, a
   reduction) is compared with (docs/measurement.md, "The bandwidth ceiling"). The sums are what the host checks,
   so no load can be left out; their writes are 4 bytes a block. read_vec is a grid-stride loop; read_x1..read_x8
   give each thread 1..8 vectors a block apart, all loaded before any is added (more loads in flight, no loop).
   The plan passes the number of vectors; a buffer's bytes % 16 tail is not read (the ceiling is measured on a
   multiple of 16 bytes). */
__device__ __forceinline__ unsigned vector_sum(uint4 v) { return v.x + v.y + v.z + v.w; }

__device__ __forceinline__ void block_sum_out(unsigned s, unsigned* __restrict__ out) {
  __shared__ unsigned warp_sums[32];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warp_sums[warp] = s;
  __syncthreads();
  if (warp == 0) {
    s = lane < (int)((blockDim.x + 31) / 32) ? warp_sums[lane] : 0u;
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0) out[blockIdx.x] = s;
  }
}

extern "C" __global__ void read_vec(const uint4* __restrict__ in, unsigned* __restrict__ out, int vectors) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  unsigned s = 0;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < vectors; i += stride) s += vector_sum(in[i]);
  block_sum_out(s, out);
}

template <int N>
__device__ __forceinline__ void read_items(const uint4* __restrict__ in, unsigned* __restrict__ out, int vectors) {
  const long long base = (long long)blockIdx.x * blockDim.x * N + threadIdx.x;
  uint4 v[N];
#pragma unroll
  for (int k = 0; k < N; ++k) {
    const long long i = base + (long long)k * blockDim.x;
    v[k] = i < vectors ? in[i] : make_uint4(0, 0, 0, 0);
  }
  unsigned s = 0;
#pragma unroll
  for (int k = 0; k < N; ++k) s += vector_sum(v[k]);
  block_sum_out(s, out);
}

extern "C" __global__ void read_x1(const uint4* __restrict__ in, unsigned* __restrict__ out, int vectors) {
  read_items<1>(in, out, vectors);
}
extern "C" __global__ void read_x2(const uint4* __restrict__ in, unsigned* __restrict__ out, int vectors) {
  read_items<2>(in, out, vectors);
}
extern "C" __global__ void read_x4(const uint4* __restrict__ in, unsigned* __restrict__ out, int vectors) {
  read_items<4>(in, out, vectors);
}
extern "C" __global__ void read_x8(const uint4* __restrict__ in, unsigned* __restrict__ out, int vectors) {
  read_items<8>(in, out, vectors);
}
