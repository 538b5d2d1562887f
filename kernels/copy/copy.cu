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

/* copy_bulk_4k, copy_bulk_8k, copy_bulk_16k: Hopper's bulk-copy engine (TMA, cp.async.bulk, sm_90 and PTX ISA 8.0:
   compiled only there, so an older GPU or NVRTC has no such entry and the ceiling leaves them out). One thread per
   block moves chunks of 4, 8 or 16 KiB global -> shared -> global through a ring of 32 KiB of shared memory (8, 4 or
   2 stages): a chunk's load completes on its stage's mbarrier, its store is one bulk group, and a stage is loaded
   again once its store has read it, so up to a ring's worth of loads is in flight per block without a thread's
   registers. Chunks are dealt to blocks a grid apart; the bytes % 16 tail as in the other entries. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && defined(__CUDACC_VER_MAJOR__) && __CUDACC_VER_MAJOR__ >= 12
#include "common/bulk_copy.cuh"

template <int Chunk, int Stages>
__device__ __forceinline__ void copy_bulk(const unsigned char* __restrict__ in, unsigned char* __restrict__ out,
                                          int bytes) {
  __shared__ alignas(128) unsigned char ring[Stages][Chunk];
  __shared__ alignas(8) unsigned long long bar[Stages];
  copy_tail((const uint4*)in, (uint4*)out, bytes / 16, bytes, (long long)blockIdx.x * blockDim.x + threadIdx.x);
  if (threadIdx.x != 0) return;
  const long long body = (long long)bytes / 16 * 16;
  const long long chunks = (body + Chunk - 1) / Chunk;
  const long long first = blockIdx.x, stride = gridDim.x;
  bulk_init(bar, Stages);
  const auto chunk_size = [&](long long c) { return (unsigned)(body - c * Chunk < Chunk ? body - c * Chunk : Chunk); };
  const auto load = [&](long long c, int s) { bulk_load(ring[s], in + c * Chunk, chunk_size(c), &bar[s]); };
  for (int s = 0; s < Stages && first + s * stride < chunks; ++s) load(first + s * stride, s);
  for (long long k = 0; first + k * stride < chunks; ++k) {
    const long long c = first + k * stride;
    const int s = (int)(k % Stages);
    bulk_wait(&bar[s], (unsigned)((k / Stages) & 1));
    const unsigned size = chunk_size(c);
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(out + c * Chunk),
                 "r"((unsigned)__cvta_generic_to_shared(ring[s])), "r"(size)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    if (c + Stages * stride < chunks) {
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");  // the stage's store has read it
      load(c + Stages * stride, s);
    }
  }
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

extern "C" __global__ void copy_bulk_4k(const unsigned char* __restrict__ in, unsigned char* __restrict__ out,
                                        int bytes) {
  copy_bulk<4096, 8>(in, out, bytes);
}
extern "C" __global__ void copy_bulk_8k(const unsigned char* __restrict__ in, unsigned char* __restrict__ out,
                                        int bytes) {
  copy_bulk<8192, 4>(in, out, bytes);
}
extern "C" __global__ void copy_bulk_16k(const unsigned char* __restrict__ in, unsigned char* __restrict__ out,
                                         int bytes) {
  copy_bulk<16384, 2>(in, out, bytes);
}
#endif
