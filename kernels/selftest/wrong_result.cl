/* Harness self-test: a direct conv kernel that runs but is slightly wrong: it drops the last tap
   with a non-zero weight, so validation must report wrong_result. One output pixel per work item. */
#include "conv/conv_rule.h"

#if PIMG_BORDER == PIMG_BORDER_VALID
#define CENTRE PIMG_R
#else
#define CENTRE 0
#endif

__kernel void conv_wrong_result(__global const uchar* in, __global const int* weights, __global uchar* out,
                                int width, int height, int out_width, int out_height) {
  const int ox = (int)get_global_id(0), oy = (int)get_global_id(1);
  if (ox >= out_width || oy >= out_height) return;
  int last = PIMG_K * PIMG_K - 1;
  while (last > 0 && weights[last] == 0) --last;
  for (int c = 0; c < PIMG_CHANNELS; ++c) {
    int acc = 0;
    for (int t = 0; t < last; ++t) {
      int x = ox + CENTRE + t % PIMG_K - PIMG_R, y = oy + CENTRE + t / PIMG_K - PIMG_R;
      if (x < 0 || y < 0 || x >= width || y >= height) {
        if (PIMG_BORDER == PIMG_BORDER_ZERO) continue;
        x = pimg_clamp_int(x, 0, width - 1);
        y = pimg_clamp_int(y, 0, height - 1);
      }
      acc += weights[t] * in[pimg_pixel_index(x, y, c, width, height, PIMG_CHANNELS, PIMG_PLANAR)];
    }
    out[pimg_pixel_index(ox, oy, c, out_width, out_height, PIMG_CHANNELS, PIMG_PLANAR)] =
        (uchar)pimg_conv_finish(acc, PIMG_DIVISOR);
  }
}
