/* hist: packed reads (seed 002's second variant): every work item reads ITEMS 32-bit words (4 samples
 * each), strided by the range so reads stay coalesced, and counts their bytes with global atomics;
 * the samples after the last whole word are read one by one. */
#include "hist/hist_cl_common.cl"

__kernel void hist_packed(__global const uchar* in, __global uint* bins, int samples) {
  __global const uint* words = (__global const uint*)in;
  const int nwords = samples >> 2;
  const int stride = get_global_size(0);
  int w = get_global_id(0);
  for (int k = 0; k < ITEMS; ++k, w += stride)
    if (w < nwords) pimg_count_word_global(bins, words[w], PIMG_HIST_CHANNEL(w * 4), w * 4);
  const int tail = (nwords << 2) + get_global_id(0);
  if (tail < samples) atomic_inc(&bins[(PIMG_HIST_CHANNEL(tail) << 8) + in[tail]]);
}
