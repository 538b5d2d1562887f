/* Shared by cl_local's hist_local.cl: the portable clear kernel (hist_gpu.h), and the
 * per-byte helpers that count the bytes of a 32-bit word or a 16-byte vector into a local sub-histogram,
 * channel by channel of an interleaved or planar image. */
#include "hist/hist_gpu.h"

/* Counts the 4 bytes of `word` (little-endian), samples i.. i + 3, the first of channel `c`, with local
 * atomics into a sub-histogram whose slot s is at bins[s * step] (step > 1: copies interleaved word by
 * word); returns the channel of sample i + 4. */
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
