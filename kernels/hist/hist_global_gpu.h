/* hist: basic global atomics (seed 002's first variant) over a 2-D range of pixels x channels (interleaved or
   planar), on OpenCL and CUDA (one text, hist_portable.h); every work item counts ITEMS pixels of its channel,
   strided by the range's width so reads stay coalesced. */
#include "hist/hist_gpu.h"

PIX_KERNEL void hist_global(PIX_GLOBAL const uchar* PIX_RESTRICT in, PIX_GLOBAL uint* bins, int pixels) {
  const int c = HIST_GID(1);
  const int stride = HIST_RANGE;
  int px = HIST_GID(0);
#pragma unroll
  for (int k = 0; k < ITEMS; ++k, px += stride)
    if (px < pixels) HIST_INC(&bins[(c << 8) + HIST_LDG(in + PIMG_HIST_AT(px, c))]);
}
