/* Shared by the OpenCL hist kernels: the bins clear kernel that global-atomic variants launch first
 * (the evaluator poisons the output before every run), and the per-byte helper that counts the bytes
 * of a 32-bit word into a histogram, channel by channel of an interleaved image. */
#include "hist/hist_rule.h"

__kernel void hist_clear(__global uint* bins, int n) {
  const int i = get_global_id(0);
  if (i < n) bins[i] = 0;
}

/* The channel of the sample after one of channel `c`. */
inline int pimg_next_channel(int c) { return PIMG_CHANNELS == 1 ? 0 : (c + 1 == PIMG_CHANNELS ? 0 : c + 1); }

/* Counts the 4 bytes of `word` (little-endian), the first of channel `c`, with global atomics. */
inline int pimg_count_word_global(__global uint* bins, uint word, int c) {
  for (int j = 0; j < 4; ++j) {
    atomic_inc(&bins[(c << 8) + ((word >> (8 * j)) & 0xffu)]);
    c = pimg_next_channel(c);
  }
  return c;
}

/* The same with local atomics into a sub-histogram whose slot s is at bins[s * step] (step > 1: copies
 * interleaved word by word). */
inline int pimg_count_word_local(__local uint* bins, int step, uint word, int c) {
  for (int j = 0; j < 4; ++j) {
    atomic_inc(&bins[((c << 8) + ((word >> (8 * j)) & 0xffu)) * step]);
    c = pimg_next_channel(c);
  }
  return c;
}

/* Counts the 16 bytes of `q` with local atomics, the first of channel `c`. */
inline void pimg_count_vec4_local(__local uint* bins, int step, uint4 q, int c) {
  c = pimg_count_word_local(bins, step, q.x, c);
  c = pimg_count_word_local(bins, step, q.y, c);
  c = pimg_count_word_local(bins, step, q.z, c);
  pimg_count_word_local(bins, step, q.w, c);
}
