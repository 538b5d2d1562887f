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

/* read_bulk_4k, read_bulk_8k, read_bulk_16k: the read through Hopper's bulk-copy engine (TMA, cp.async.bulk, sm_90
   and PTX ISA 8.0: compiled only there, so an older GPU or NVRTC has no such entry and the ceiling leaves them out).
   One warp per block: lane 0 loads chunks of 4, 8 or 16 KiB dealt a grid apart into a ring of 32 KiB of shared memory
   (8, 4 or 2 stages), each completing on its stage's mbarrier; the warp sums a stage once it is in, and lane 0 loads
   the stage again once every lane has read it. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && defined(__CUDACC_VER_MAJOR__) && __CUDACC_VER_MAJOR__ >= 12
#include "common/bulk_copy.cuh"

template <int Chunk, int Stages>
__device__ __forceinline__ void read_bulk(const unsigned char* __restrict__ in, unsigned* __restrict__ out,
                                          int vectors) {
  __shared__ alignas(128) uint4 ring[Stages][Chunk / 16];
  __shared__ alignas(8) unsigned long long bar[Stages];
  const long long body = (long long)vectors * 16;
  const long long chunks = (body + Chunk - 1) / Chunk;
  const long long first = blockIdx.x, stride = gridDim.x;
  const int lane = threadIdx.x;
  const auto chunk_size = [&](long long c) { return (unsigned)(body - c * Chunk < Chunk ? body - c * Chunk : Chunk); };
  if (lane == 0) {
    bulk_init(bar, Stages);
    for (int s = 0; s < Stages && first + s * stride < chunks; ++s)
      bulk_load(ring[s], in + (first + s * stride) * Chunk, chunk_size(first + s * stride), &bar[s]);
  }
  __syncwarp();
  unsigned sum = 0;
  for (long long k = 0; first + k * stride < chunks; ++k) {
    const long long c = first + k * stride;
    const int s = (int)(k % Stages);
    bulk_wait(&bar[s], (unsigned)((k / Stages) & 1));
    const int n = (int)(chunk_size(c) / 16);
    for (int i = lane; i < n; i += 32) sum += vector_sum(ring[s][i]);
    __syncwarp();  // every lane has read the stage
    if (lane == 0 && c + Stages * stride < chunks)
      bulk_load(ring[s], in + (c + Stages * stride) * Chunk, chunk_size(c + Stages * stride), &bar[s]);
  }
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, o);
  if (lane == 0) out[blockIdx.x] = sum;
}

extern "C" __global__ void read_bulk_4k(const unsigned char* __restrict__ in, unsigned* __restrict__ out, int vectors) {
  read_bulk<4096, 8>(in, out, vectors);
}
extern "C" __global__ void read_bulk_8k(const unsigned char* __restrict__ in, unsigned* __restrict__ out, int vectors) {
  read_bulk<8192, 4>(in, out, vectors);
}
extern "C" __global__ void read_bulk_16k(const unsigned char* __restrict__ in, unsigned* __restrict__ out,
                                         int vectors) {
  read_bulk<16384, 2>(in, out, vectors);
}
#endif
