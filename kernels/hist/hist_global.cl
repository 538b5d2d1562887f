/* hist: basic global atomics (seed 002's first variant) over a 2-D range of pixels x channels (interleaved
 * or planar); every
 * work item counts ITEMS pixels of its channel, strided by the range's width so reads stay coalesced. */
#include "hist/hist_cl_common.cl"

__kernel void hist_global(__global const uchar* in, __global uint* bins, int pixels) {
  const int c = get_global_id(1);
  const int stride = get_global_size(0);
  int px = get_global_id(0);
  for (int k = 0; k < ITEMS; ++k, px += stride)
    if (px < pixels) atomic_inc(&bins[(c << 8) + in[PIMG_HIST_AT(px, c)]]);
}
