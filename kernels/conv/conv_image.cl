/* Direct KxK convolution reading the input through the texture path: "in" is an image2d_t of 1-byte
   texels holding the same bytes as the buffer (row pitch width*channels interleaved, planes stacked
   vertically when planar). Coordinates follow the border rule explicitly; ITEMS/FILTER_MEM/UNROLL as direct. */
#include "conv/conv_cl.h"

__constant sampler_t kSampler = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

/* Channel c of input pixel (x, y); out-of-range coordinates follow the border rule. */
static inline int load_px(read_only image2d_t in, int x, int y, int c, int width, int height) {
  CONV_BORDER_XY(x, y, width, height);
#if PIMG_PLANAR
  const int2 texel = (int2)(x, c * height + y);
#else
  const int2 texel = (int2)(x * PIMG_CHANNELS + c, y);
#endif
  return (int)read_imageui(in, kSampler, texel).x;
}

__kernel void conv_image(read_only image2d_t in, FILTER_SPACE const int* weights, __global uchar* out, int width,
                         int height, int out_width, int out_height) {
#if FILTER_MEM == 2
  const int weight[PIMG_K * PIMG_K] = {PIMG_WEIGHTS};
#define WEIGHT(t) weight[t]
#else
#define WEIGHT(t) weights[t]
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
      for (int c = 0; c < PIMG_CHANNELS; ++c) {
        int acc = 0;
        TAP_LOOP
        for (int ky = 0; ky < PIMG_K; ++ky) {
          TAP_LOOP
          for (int kx = 0; kx < PIMG_K; ++kx)
            acc += WEIGHT(ky * PIMG_K + kx) * load_px(in, x0 + kx, y0 + ky, c, width, height);
        }
        out[pimg_pixel_index(ox, oy, c, out_width, out_height, PIMG_CHANNELS, PIMG_PLANAR)] =
            (uchar)pimg_conv_finish(acc, PIMG_DIVISOR);
      }
    }
  }
}
