/* histeq on CUDA (NVRTC), the entries a pipeline chains, as in histeq.cl:
 *   histeq_clear  zeroes the 256-bin histogram (fused pipeline);
 *   histeq_hist   GROUPS blocks of HIST_BLOCK threads count VEC-byte loads into COPIES shared
 *                 sub-histograms (one per warp when COPIES = HIST_BLOCK / 32), initialised by every
 *                 thread, then MERGE 0 writes the block's bins to partials[block * 256 + b], MERGE 1 adds
 *                 them to hist[b] with atomics; INTERLEAVED 0 keeps each copy's bins contiguous (copy r
 *                 of bin b at r * 256 + b), INTERLEAVED 1 interleaves them (b * COPIES + r) with thread t
 *                 counting into copy t % COPIES: with COPIES = 32 a warp's atomics are bank-conflict-free;
 *   histeq_lut    one block of 256 threads: sum of the partials per bin, shared scan, lut[b] by the rule;
 *   histeq_map    every block loads the LUT into shared memory (LUT_IN_MAP 1: builds it from hist) and
 *                 maps MAP_VEC-byte vectors of the image, strided over the grid; MAP_REVERSE 1 walks the
 *                 vectors from the last: histeq_hist's grid strides forward, so the image's end is what
 *                 it read last and what the L2 still holds, and mapping it first turns part of the
 *                 map's reads into L2 hits. */
#include "histeq/histeq_rule.h"

extern "C" __global__ void histeq_clear(unsigned* hist) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 256) hist[i] = 0u;
}

#ifdef HIST_BLOCK
#if INTERLEAVED
#define STEP COPIES
#else
#define STEP 1
#endif

/* Counts the 4 bytes of w into the sub-histogram whose bin b is at h[b * STEP]. */
static __device__ __forceinline__ void count_word(unsigned* h, unsigned w) {
  atomicAdd(&h[(w & 0xffu) * STEP], 1u);
  atomicAdd(&h[((w >> 8) & 0xffu) * STEP], 1u);
  atomicAdd(&h[((w >> 16) & 0xffu) * STEP], 1u);
  atomicAdd(&h[(w >> 24) * STEP], 1u);
}

extern "C" __global__ void __launch_bounds__(HIST_BLOCK) histeq_hist(const unsigned char* __restrict__ in,
                                                                      unsigned* dst, int n) {
  __shared__ unsigned sub[COPIES * 256];
  for (int i = threadIdx.x; i < COPIES * 256; i += HIST_BLOCK) sub[i] = 0u;
  __syncthreads();
#if INTERLEAVED
  unsigned* mine = sub + threadIdx.x % COPIES;
#else
  unsigned* mine = sub + (threadIdx.x * COPIES / HIST_BLOCK) * 256;
#endif
  const int stride = gridDim.x * HIST_BLOCK;
  const int id = blockIdx.x * HIST_BLOCK + threadIdx.x;
#if VEC == 16
  const int nvec = n / 16;
  const uint4* v = reinterpret_cast<const uint4*>(in);
  for (int i = id; i < nvec; i += stride) {
    const uint4 q = __ldg(v + i);
    count_word(mine, q.x);
    count_word(mine, q.y);
    count_word(mine, q.z);
    count_word(mine, q.w);
  }
#elif VEC == 4
  const int nvec = n / 4;
  const unsigned* v = reinterpret_cast<const unsigned*>(in);
  for (int i = id; i < nvec; i += stride) count_word(mine, __ldg(v + i));
#else
#error "VEC must be 4 or 16"
#endif
  for (int i = nvec * VEC + id; i < n; i += stride) atomicAdd(&mine[in[i] * STEP], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += HIST_BLOCK) {
    unsigned total = 0;
#if INTERLEAVED
    /* Each thread starts at copy b % COPIES so that consecutive threads read distinct banks. */
#pragma unroll
    for (int r = 0; r < COPIES; ++r) total += sub[b * COPIES + (r + b) % COPIES];
#else
#pragma unroll
    for (int r = 0; r < COPIES; ++r) total += sub[r * 256 + b];
#endif
#if MERGE == 0
    dst[blockIdx.x * 256 + b] = total;
#else
    if (total) atomicAdd(&dst[b], total);
#endif
  }
}
#endif

/* Threads 0..255 of a block of at least 256 hold cdf[t] = count of bin t on entry; on return cdf is the
 * inclusive scan and lut[b] the rule's value for every bin. Called by every thread of the block. */
static __device__ void build_lut(unsigned* cdf, unsigned char* lut, int* lo, int total) {
  const int t = threadIdx.x;
  for (int off = 1; off < 256; off <<= 1) {
    const unsigned add = (t < 256 && t >= off) ? cdf[t - off] : 0u;
    __syncthreads();
    if (t < 256) cdf[t] += add;
    __syncthreads();
  }
  if (t < 256 && cdf[t] > 0u && (t == 0 || cdf[t - 1] == 0u)) *lo = t;
  __syncthreads();
  if (t < 256) lut[t] = (unsigned char)pimg_histeq_value(t, *lo, (int)cdf[*lo], (int)cdf[t], total);
  __syncthreads();
}

extern "C" __global__ void __launch_bounds__(256) histeq_lut(const unsigned* src, unsigned char* lut_out, int groups,
                                                              int total) {
  __shared__ unsigned cdf[256];
  __shared__ unsigned char lut[256];
  __shared__ int lo;
  const int b = threadIdx.x;
  unsigned sum = 0;
  for (int g = 0; g < groups; ++g) sum += src[g * 256 + b];
  cdf[b] = sum;
  __syncthreads();
  build_lut(cdf, lut, &lo, total);
  lut_out[b] = lut[b];
}

#ifdef MAP_BLOCK
static __device__ __forceinline__ unsigned map_word(const unsigned char* lut, unsigned w) {
  return (unsigned)lut[w & 0xffu] | ((unsigned)lut[(w >> 8) & 0xffu] << 8) | ((unsigned)lut[(w >> 16) & 0xffu] << 16) |
         ((unsigned)lut[w >> 24] << 24);
}

extern "C" __global__ void __launch_bounds__(MAP_BLOCK) histeq_map(const unsigned char* __restrict__ in,
                                                                    const unsigned char* __restrict__ table,
                                                                    unsigned char* __restrict__ out, int n, int total) {
  __shared__ unsigned char lut[256];
#if LUT_IN_MAP
  __shared__ unsigned cdf[256];
  __shared__ int lo;
  const unsigned* hist = reinterpret_cast<const unsigned*>(table);
  for (int i = threadIdx.x; i < 256; i += MAP_BLOCK) cdf[i] = hist[i];
  __syncthreads();
  build_lut(cdf, lut, &lo, total);
#else
  for (int i = threadIdx.x; i < 256; i += MAP_BLOCK) lut[i] = table[i];
  __syncthreads();
#endif
  const int stride = gridDim.x * MAP_BLOCK;
  const int id = blockIdx.x * MAP_BLOCK + threadIdx.x;
#if MAP_VEC == 16
  const int nvec = n / 16;
  const uint4* v = reinterpret_cast<const uint4*>(in);
  uint4* o = reinterpret_cast<uint4*>(out);
  for (int k = id; k < nvec; k += stride) {
    const int i = MAP_REVERSE ? nvec - 1 - k : k;
    const uint4 q = __ldg(v + i);
    o[i] = make_uint4(map_word(lut, q.x), map_word(lut, q.y), map_word(lut, q.z), map_word(lut, q.w));
  }
#elif MAP_VEC == 4
  const int nvec = n / 4;
  const unsigned* v = reinterpret_cast<const unsigned*>(in);
  unsigned* o = reinterpret_cast<unsigned*>(out);
  for (int k = id; k < nvec; k += stride) {
    const int i = MAP_REVERSE ? nvec - 1 - k : k;
    o[i] = map_word(lut, __ldg(v + i));
  }
#else
#error "MAP_VEC must be 4 or 16"
#endif
  for (int i = nvec * MAP_VEC + id; i < n; i += stride) out[i] = lut[in[i]];
}
#endif
