/* Tiled KxK convolution: the work-group loads its input tile (block plus a halo of R, per channel)
   into __local memory once, applying the border rule while loading, then every item computes
   ITEMS_X x ITEMS_Y pixels (strided by the block) from the tile. Local size must be (BLOCK_X, BLOCK_Y). */
#include "conv/conv_cl.h"

#define TILE_W (BLOCK_X * ITEMS_X + 2 * PIMG_R)
#define TILE_H (BLOCK_Y * ITEMS_Y + 2 * PIMG_R)
#define TILE_PLANE (TILE_W * TILE_H)

/* Channel c of input pixel (x, y) for the tile. Outside the image: zero border reads 0, replicate
   clamps; with a valid border such cells only feed outputs past the edge, so 0 does too. */
static inline uchar load_px(__global const uchar* in, int x, int y, int c, int width, int height) {
#if PIMG_BORDER == PIMG_BORDER_REPLICATE
  x = pimg_clamp_int(x, 0, width - 1);
  y = pimg_clamp_int(y, 0, height - 1);
#else
  if (x < 0 || y < 0 || x >= width || y >= height) return 0;
#endif
  return in[pimg_pixel_index(x, y, c, width, height, PIMG_CHANNELS, PIMG_PLANAR)];
}

__kernel __attribute__((reqd_work_group_size(BLOCK_X, BLOCK_Y, 1))) void conv_tiled(
    __global const uchar* in, FILTER_SPACE const int* weights, __global uchar* out, int width, int height,
    int out_width, int out_height) {
  __local uchar tile[PIMG_CHANNELS * TILE_PLANE];
#if FILTER_MEM == 2
  const int weight[PIMG_K * PIMG_K] = {PIMG_WEIGHTS};
#define WEIGHT(t) weight[t]
#else
#define WEIGHT(t) weights[t]
#endif
  const int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
  const int gox = (int)get_group_id(0) * BLOCK_X * ITEMS_X; /* first output pixel of the group */
  const int goy = (int)get_group_id(1) * BLOCK_Y * ITEMS_Y;
  const int tx0 = gox + CENTRE - PIMG_R; /* input coordinates of tile cell (0, 0) */
  const int ty0 = goy + CENTRE - PIMG_R;

  for (int i = ly * BLOCK_X + lx; i < PIMG_CHANNELS * TILE_PLANE; i += BLOCK_X * BLOCK_Y) {
    const int c = i / TILE_PLANE;
    const int ty = (i - c * TILE_PLANE) / TILE_W;
    const int tx = i - c * TILE_PLANE - ty * TILE_W;
    tile[i] = load_px(in, tx0 + tx, ty0 + ty, c, width, height);
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  for (int iy = 0; iy < ITEMS_Y; ++iy) {
    const int ly_out = ly + iy * BLOCK_Y;
    const int oy = goy + ly_out;
    if (oy >= out_height) break;
    for (int ix = 0; ix < ITEMS_X; ++ix) {
      const int lx_out = lx + ix * BLOCK_X;
      const int ox = gox + lx_out;
      if (ox >= out_width) break;
      for (int c = 0; c < PIMG_CHANNELS; ++c) {
        __local const uchar* window = tile + c * TILE_PLANE + ly_out * TILE_W + lx_out;
        int acc = 0;
        TAP_LOOP
        for (int ky = 0; ky < PIMG_K; ++ky) {
          TAP_LOOP
          for (int kx = 0; kx < PIMG_K; ++kx) acc += WEIGHT(ky * PIMG_K + kx) * (int)window[ky * TILE_W + kx];
        }
        out[pimg_pixel_index(ox, oy, c, out_width, out_height, PIMG_CHANNELS, PIMG_PLANAR)] =
            (uchar)pimg_conv_finish(acc, PIMG_DIVISOR);
      }
    }
  }
}
