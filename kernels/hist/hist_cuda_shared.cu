/* hist: input partition as experts write it (NVRTC): GROUPS blocks of BLOCK threads stride over the
 * input with VEC-byte loads (4: 32-bit, 16: 128-bit), ITEMS loads in flight per thread before counting;
 * each block counts into COPIES shared-memory sub-histograms (BLOCK / COPIES consecutive threads share
 * one: COPIES = BLOCK / 32 privatises one per warp), initialised by every thread, and adds its non-zero
 * bins to the global histogram with atomics at the end.
 * INTERLEAVED 0 lays each copy's bins out contiguously (copy r of slot s at r * NBINS + s): a warp's
 * atomics hit bank s % 32 and serialise on bank conflicts. INTERLEAVED 1 interleaves the copies (copy
 * r of slot s at s * COPIES + r) and thread t counts into copy t % COPIES: with COPIES = 32 every lane
 * of a warp has its own bank, so only same-word collisions between warps remain.
 * ONEPASS 0: the bins are zeroed by a clear kernel launched first and the blocks add into them. ONEPASS 1:
 * one launch, no clear: the blocks add into NBINS accumulator words of a scratch buffer acc[] instead,
 * whose NBINS + 2 words all hold one value V at launch (any uniform fill: the tuner's poison, or a memset
 * once); word NBINS is a ticket counter, word NBINS + 1 keeps V. After its adds each block takes a ticket
 * (atomicAdd minus V; the threadfence pattern of the CUDA samples); the block that draws the last one writes
 * every bin as its accumulator minus V and puts V back into the accumulators and the counter (atomicExch),
 * so the scratch is uniform again for the next launch.
 * PREFETCH 1 software-pipelines the loads: a thread issues its next ITEMS loads before it counts the current
 * ones, so a warp keeps loads in flight while it counts (on the H200 the PREFETCH 0 winner waits on its loads
 * for three quarters of its cycles at 68% of DRAM throughput: bench/results/2026-11-30-h200-profiles).
 * BULK > 0 (sm_90, VEC 16, ONEPASS 1): the input's 16-byte body goes through a ring of STAGES chunks of BULK bytes
 * in dynamic shared memory, copied by Hopper's bulk-copy engine (cp.async.bulk): thread 0 issues a chunk's copy,
 * every thread waits on its stage's mbarrier and counts its part of the chunk from shared memory, and the stage is
 * copied into again once every thread has counted it, so the bytes in flight hold no thread's registers. Chunks are
 * dealt to blocks a grid apart. On the H200 neither knob is faster than PREFETCH 0 (tied, and 3% slower): the
 * counting, one shared-memory atomic a sample, is the limit there, not the loads (2026-11-30-h200-profiles). */
#include "hist/hist_cuda_common.cuh"

#ifndef ONEPASS
#define ONEPASS 0
#endif
#ifndef PREFETCH
#define PREFETCH 0
#endif
#ifndef BULK
#define BULK 0
#endif
#ifndef STAGES
#define STAGES 2
#endif
#if BULK
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ < 900 || VEC != 16 || !ONEPASS
#error "BULK needs sm_90, VEC 16 and ONEPASS 1"
#endif
#include "common/bulk_copy.cuh"

/* Counts the input's 16-byte body (`body` bytes, a multiple of 16) through the ring (above). */
template <typename Count>
__device__ __forceinline__ void count_bulk(const unsigned char* __restrict__ in, long long body, Count count) {
  extern __shared__ __align__(128) unsigned char ring[]; /* STAGES * BULK bytes */
  __shared__ __align__(8) unsigned long long bar[STAGES];
  const long long chunks = (body + BULK - 1) / BULK;
  if (threadIdx.x == 0) bulk_init(bar, STAGES);
  __syncthreads();
  const auto size_of = [&](long long c) { return (unsigned)(body - c * BULK < BULK ? body - c * BULK : BULK); };
  const auto load = [&](long long c, int s) { bulk_load(ring + s * BULK, in + c * BULK, size_of(c), &bar[s]); };
  if (threadIdx.x == 0)
    for (int s = 0; s < STAGES && blockIdx.x + (long long)s * gridDim.x < chunks; ++s)
      load(blockIdx.x + (long long)s * gridDim.x, s);
  for (long long k = 0; blockIdx.x + k * gridDim.x < chunks; ++k) {
    const long long c = blockIdx.x + k * gridDim.x;
    const int s = (int)(k % STAGES);
    bulk_wait(&bar[s], (unsigned)((k / STAGES) & 1));
    const uint4* q = reinterpret_cast<const uint4*>(ring + s * BULK);
    const int n = (int)(size_of(c) / 16);
    for (int j = threadIdx.x; j < n; j += BLOCK) count(q[j], c * (BULK / 16) + j);
    __syncthreads(); /* every thread has counted stage s */
    if (threadIdx.x == 0 && c + (long long)STAGES * gridDim.x < chunks) load(c + (long long)STAGES * gridDim.x, s);
  }
}
#endif

/* Counts v[i], v[i + stride], ... below nvec, ITEMS at a time (count(value, index)); returns the first index not
 * counted: what is left is fewer than ITEMS strides. */
template <typename T, typename Count>
__device__ __forceinline__ int count_strided(const T* __restrict__ v, int nvec, int i, int stride, Count count) {
#if PREFETCH
  if (i + (ITEMS - 1) * stride >= nvec) return i;
  T q[ITEMS];
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) q[k] = __ldg(v + i + k * stride);
  for (;;) {
    const int next = i + ITEMS * stride;
    const bool more = next + (ITEMS - 1) * stride < nvec;
    T n[ITEMS];
    if (more) {
#pragma unroll
      for (int k = 0; k < ITEMS; ++k) n[k] = __ldg(v + next + k * stride);
    }
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) count(q[k], i + k * stride);
    i = next;
    if (!more) return i;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) q[k] = n[k];
  }
#else
  for (; i + (ITEMS - 1) * stride < nvec; i += ITEMS * stride) {
    T q[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) q[k] = __ldg(v + i + k * stride);
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) count(q[k], i + k * stride);
  }
  return i;
#endif
}

extern "C" __global__ void __launch_bounds__(BLOCK) hist_shared(const unsigned char* __restrict__ in, unsigned* bins,
                                                                 int samples
#if ONEPASS
                                                                 ,
                                                                 unsigned* acc
#endif
) {
  __shared__ unsigned sub[COPIES * NBINS];
  for (int i = threadIdx.x; i < COPIES * NBINS; i += BLOCK) sub[i] = 0u;
  __syncthreads();

#if INTERLEAVED
  unsigned* mine = sub + threadIdx.x % COPIES;
  auto add = [&](int slot) { atomicAdd(&mine[slot * COPIES], 1u); };
#else
  unsigned* mine = sub + (threadIdx.x * COPIES / BLOCK) * NBINS;
  auto add = [&](int slot) { atomicAdd(&mine[slot], 1u); };
#endif
  const int stride = gridDim.x * BLOCK;
  const int id = blockIdx.x * BLOCK + threadIdx.x;
#if BULK
  const int nvec = samples / 16;
  count_bulk(in, (long long)nvec * 16, [&](const uint4& q, long long j) { count_vec4(q, (int)((j * 16) % PIMG_CHANNELS), add); });
#elif VEC == 16
  const uint4* v = reinterpret_cast<const uint4*>(in);
  const int nvec = samples / 16;
  auto count = [&](const uint4& q, int j) { count_vec4(q, (j * 16) % PIMG_CHANNELS, add); };
  for (int i = count_strided(v, nvec, id, stride, count); i < nvec; i += stride) count(__ldg(v + i), i);
#elif VEC == 4
  const unsigned* v = reinterpret_cast<const unsigned*>(in);
  const int nvec = samples / 4;
  auto count = [&](unsigned q, int j) { count_word(q, (j * 4) % PIMG_CHANNELS, add); };
  for (int i = count_strided(v, nvec, id, stride, count); i < nvec; i += stride) count(__ldg(v + i), i);
#else
#error "VEC must be 4 or 16"
#endif
  for (int t = nvec * VEC + id; t < samples; t += stride) add(((t % PIMG_CHANNELS) << 8) + in[t]);
  __syncthreads();

  for (int b = threadIdx.x; b < NBINS; b += BLOCK) {
    unsigned total = 0;
#if INTERLEAVED
    /* Each thread starts at copy b % COPIES so that consecutive threads read distinct banks. */
#pragma unroll
    for (int r = 0; r < COPIES; ++r) total += sub[b * COPIES + (r + b) % COPIES];
#else
#pragma unroll
    for (int r = 0; r < COPIES; ++r) total += sub[r * NBINS + b];
#endif
#if ONEPASS
    if (total) atomicAdd(&acc[b], total);
#else
    if (total) atomicAdd(&bins[b], total);
#endif
  }
#if ONEPASS
  __threadfence(); /* this thread's adds are seen before the block's ticket */
  __syncthreads(); /* and every thread is done with sub[]: sub[0] carries whether this block is the last */
  if (threadIdx.x == 0) {
    const unsigned base = *(volatile unsigned*)(acc + NBINS + 1);
    sub[0] = atomicAdd(&acc[NBINS], 1u) - base == gridDim.x - 1u;
  }
  __syncthreads();
  if (!sub[0]) return;
  __threadfence(); /* every other block's adds are seen from here */
  const unsigned base = *(volatile unsigned*)(acc + NBINS + 1);
  for (int b = threadIdx.x; b < NBINS; b += BLOCK) bins[b] = atomicExch(&acc[b], base) - base;
  if (threadIdx.x == 0) atomicExch(&acc[NBINS], base);
#endif
}
