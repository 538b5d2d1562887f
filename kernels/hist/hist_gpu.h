/* Shared by the portable hist kernels (hist_global, hist_packed, hist_outpart; cl_local's hist_local.cl): the bins
   clear kernel that global-atomic variants launch first (the evaluator poisons the output before every run), and
   the counting of the bytes of a 32-bit word into the histogram, channel by channel (hist_rule.h's layout). */
#ifndef PIMG_HIST_GPU_H
#define PIMG_HIST_GPU_H
#include "hist/hist_portable.h"
#include "hist/hist_rule.h"

PIX_KERNEL void hist_clear(PIX_GLOBAL uint* bins, int n) {
  const int i = HIST_GID(0);
  if (i < n) bins[i] = 0;
}

/* Counts the 4 bytes of `word` (little-endian), samples i.. i + 3, the first of channel `c`, with global
   atomics; returns the channel of sample i + 4. */
PIX_FN int hist_count_word_global(PIX_GLOBAL uint* bins, uint word, int c, int i) {
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    HIST_INC(&bins[(c << 8) + ((word >> (8 * j)) & 0xffu)]);
    c = PIMG_HIST_NEXT(c, i + j);
  }
  return c;
}

#endif
