/* hist: packed reads (seed 002's second variant) on OpenCL and CUDA (one text, hist_portable.h): every work
   item reads ITEMS 32-bit words (4 samples each), strided by the range so reads stay coalesced, and counts
   their bytes with global atomics; the samples after the last whole word are read one by one. */
#include "hist/hist_gpu.h"

PIX_KERNEL void hist_packed(PIX_GLOBAL const uchar* PIX_RESTRICT in, PIX_GLOBAL uint* bins, int samples) {
  PIX_GLOBAL const uint* words = (PIX_GLOBAL const uint*)in;
  const int nwords = samples >> 2;
  const int stride = HIST_RANGE;
  const int id = HIST_GID(0);
  int w = id;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k, w += stride)
    if (w < nwords) hist_count_word_global(bins, HIST_LDG(words + w), PIMG_HIST_CHANNEL(w * 4), w * 4);
  const int tail = (nwords << 2) + id;
  if (tail < samples) HIST_INC(&bins[(PIMG_HIST_CHANNEL(tail) << 8) + in[tail]]);
}
