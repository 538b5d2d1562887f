/* cuda_shared's helpers (hist_cuda_shared.cu, NVRTC): the bins clear kernel it launches first with onepass 0
 * (the evaluator poisons the output before every run), the channel cycle of interleaved bytes, and per-word
 * counting through a caller's add(slot). */
#include "hist/hist_rule.h"

#define NBINS (PIMG_HIST_BINS * PIMG_CHANNELS)

extern "C" __global__ void hist_clear(unsigned* bins, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) bins[i] = 0u;
}

/* The channel of the sample after one of channel `c`. */
static __device__ __forceinline__ int next_channel(int c) {
  return PIMG_CHANNELS == 1 ? 0 : (c + 1 == PIMG_CHANNELS ? 0 : c + 1);
}

/* Counts the 4 bytes of `word` (little-endian), the first of channel `c`; returns the next channel. */
template <class Add>
static __device__ __forceinline__ int count_word(unsigned word, int c, Add add) {
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    add((c << 8) + ((word >> (8 * j)) & 0xffu));
    c = next_channel(c);
  }
  return c;
}

/* Counts the 16 bytes of `q`, the first of channel `c`. */
template <class Add>
static __device__ __forceinline__ void count_vec4(uint4 q, int c, Add add) {
  c = count_word(q.x, c, add);
  c = count_word(q.y, c, add);
  c = count_word(q.z, c, add);
  count_word(q.w, c, add);
}
