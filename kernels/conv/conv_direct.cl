/* Direct KxK convolution: each work item computes ITEMS_X x ITEMS_Y neighbouring output pixels (all
   channels) straight from global memory, with the border and rounding rule of conv/conv_rule.h.
   Knobs: FILTER_MEM 0 global / 1 constant / 2 literal weights, UNROLL 0/1, ARITH 0 multiply / 1 table,
   CHANNEL_Z 1: the work-group's z is the channel, one per item (seed 003's block z = channel). A batch of
   images is one launch: work-group z index = image (seed 003's grid z), the images one after another. */
#include "conv/conv_cl.h"

/* Channel c of input pixel (x, y); out-of-range coordinates follow the border rule. */
static inline int load_px(__global const uchar* in, int x, int y, int c, int width, int height) {
  CONV_BORDER_XY(x, y, width, height);
  return in[pimg_pixel_index(x, y, c, width, height, PIMG_CHANNELS, PIMG_PLANAR)];
}

/* weights: K*K row-major; taps: per tap its distinct-weight index; lut[d * 256 + v] = weight_d * v. */
__kernel void conv_direct(__global const uchar* in, FILTER_SPACE const int* weights, FILTER_SPACE const int* taps,
                          FILTER_SPACE const int* lut, __global uchar* out, int width, int height, int out_width,
                          int out_height) {
#if FILTER_MEM == 2 && ARITH == 1
  const int tap_index[PIMG_K * PIMG_K] = {PIMG_TAPS};
#define TAP(t) tap_index[t]
#elif FILTER_MEM == 2
  const int weight[PIMG_K * PIMG_K] = {PIMG_WEIGHTS};
#define WEIGHT(t) weight[t]
#else
#define TAP(t) taps[t]
#define WEIGHT(t) weights[t]
#endif
  const long image = (long)get_group_id(2);
  in += image * width * height * PIMG_CHANNELS;
  out += image * out_width * out_height * PIMG_CHANNELS;
#if CHANNEL_Z
  const int c_first = (int)get_local_id(2), c_end = c_first + 1;
#else
  const int c_first = 0, c_end = PIMG_CHANNELS;
#endif
  const int ox0 = (int)get_global_id(0) * ITEMS_X;
  const int oy0 = (int)get_global_id(1) * ITEMS_Y;
  for (int iy = 0; iy < ITEMS_Y; ++iy) {
    const int oy = oy0 + iy;
    if (oy >= out_height) break;
    for (int ix = 0; ix < ITEMS_X; ++ix) {
      const int ox = ox0 + ix;
      if (ox >= out_width) break;
      const int x0 = ox + CENTRE - PIMG_R, y0 = oy + CENTRE - PIMG_R; /* top-left tap */
      for (int c = c_first; c < c_end; ++c) {
        int acc = 0;
        TAP_LOOP
        for (int ky = 0; ky < PIMG_K; ++ky) {
          TAP_LOOP
          for (int kx = 0; kx < PIMG_K; ++kx) {
            const int v = load_px(in, x0 + kx, y0 + ky, c, width, height);
#if ARITH == 1
            acc += lut[TAP(ky * PIMG_K + kx) * 256 + v];
#else
            acc += WEIGHT(ky * PIMG_K + kx) * v;
#endif
          }
        }
        out[pimg_pixel_index(ox, oy, c, out_width, out_height, PIMG_CHANNELS, PIMG_PLANAR)] =
            (uchar)pimg_conv_finish(acc, PIMG_DIVISOR);
      }
    }
  }
}
