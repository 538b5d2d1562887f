/* Shared by the OpenCL hist kernels: the bins clear kernel that global-atomic variants launch first
 * (the evaluator poisons the output before every run), and the per-byte helper that counts the bytes
 * of a 32-bit word into a histogram, channel by channel of an interleaved image. */
#include "hist/hist_rule.h"

__kernel void hist_clear(__global uint* bins, int n) {
  const int i = get_global_id(0);
  if (i < n) bins[i] = 0;
}

/* Counts the 4 bytes of `word` (little-endian), samples i.. i + 3, the first of channel `c`, with global
 * atomics; returns the channel of sample i + 4. */
inline int pimg_count_word_global(__global uint* bins, uint word, int c, int i) {
  for (int j = 0; j < 4; ++j) {
    atomic_inc(&bins[(c << 8) + ((word >> (8 * j)) & 0xffu)]);
    c = PIMG_HIST_NEXT(c, i + j);
  }
  return c;
}

/* The same with local atomics into a sub-histogram whose slot s is at bins[s * step] (step > 1: copies
 * interleaved word by word). */
inline int pimg_count_word_local(__local uint* bins, int step, uint word, int c, int i) {
  for (int j = 0; j < 4; ++j) {
    atomic_inc(&bins[((c << 8) + ((word >> (8 * j)) & 0xffu)) * step]);
    c = PIMG_HIST_NEXT(c, i + j);
  }
  return c;
}

/* Counts the 16 bytes of `q`, samples i.. i + 15, with local atomics, the first of channel `c`. */
inline void pimg_count_vec4_local(__local uint* bins, int step, uint4 q, int c, int i) {
  c = pimg_count_word_local(bins, step, q.x, c, i);
  c = pimg_count_word_local(bins, step, q.y, c, i + 4);
  c = pimg_count_word_local(bins, step, q.z, c, i + 8);
  pimg_count_word_local(bins, step, q.w, c, i + 12);
}
