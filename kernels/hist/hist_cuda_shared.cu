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
 * for three quarters of its cycles at 68% of DRAM throughput: bench/results/2026-11-30-h200-profiles). */
#include "hist/hist_cuda_common.cuh"

#ifndef ONEPASS
#define ONEPASS 0
#endif
#ifndef PREFETCH
#define PREFETCH 0
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
#if VEC == 16
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
