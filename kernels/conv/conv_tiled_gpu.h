/* Tiled KxK convolution written once for OpenCL C (conv_tiled.cl, entry conv_tiled) and CUDA through NVRTC
   (conv_cuda_tiled.cu, entry conv_cuda_tiled), over conv_portable.h: the work-group (block) loads its input
   tile (the group times the items plus a halo of R, per channel) into local (shared) memory cooperatively,
   applying the border rule while loading; after one barrier that every item reaches, each item computes
   ITEMS_X x ITEMS_Y pixels strided by the group. The group must be (BLOCK_X, BLOCK_Y); no ARITH knob
   (multiplies). What stays per backend, so that each compiles to the code it did when written apart:
   OpenCL reads the weights argument in FILTER_SPACE (conv_cl.h) or, with FILTER_MEM 2, a literal array of
   the kernel, and sums a pixel's taps in the kernel; CUDA reads the filter through conv_cuda_common.cuh
   (FILTER_LOCALS, TAP_TERM: FILTER_MEM 1 is compile-time data in __constant__ memory) inside a per-pixel
   helper that its INLINE knob keeps inlined or out of line; only CUDA's pointer arguments are restrict.
   The wrapper defines CONV_TILED_ENTRY, the kernel's name. */
#include "conv/conv_portable.h"

#ifndef CONV_TILED_ENTRY
#error "the wrapper names the entry: CONV_TILED_ENTRY"
#endif

#ifdef __OPENCL_VERSION__
#include "conv/conv_cl.h" /* FILTER_SPACE, TAP_LOOP */
#define TILED_RESTRICT
#define TILED_WEIGHTS FILTER_SPACE const int*
#if FILTER_MEM == 2
#define TILED_KERNEL_LOCALS const int weight[PIMG_K * PIMG_K] = {PIMG_WEIGHTS};
#define TILED_TERM(t, v) (weight[t] * (v))
#else
#define TILED_KERNEL_LOCALS
#define TILED_TERM(t, v) (weights[t] * (v))
#endif
#else
#define TILED_RESTRICT __restrict__
#define TILED_WEIGHTS const int* __restrict__
#define TILED_KERNEL_LOCALS
#define TILED_TERM(t, v) TAP_TERM(t, v)
#endif

#define TILE_W (BLOCK_X * ITEMS_X + 2 * PIMG_R)
#define TILE_H (BLOCK_Y * ITEMS_Y + 2 * PIMG_R)
#define TILE_PLANE (TILE_W * TILE_H)

/* Channel c of input pixel (x, y) for the tile. Outside the image: zero border reads 0, replicate
   clamps; with a valid border such cells only feed outputs past the edge, so 0 does too. */
CONV_FN uchar tile_load(PIX_GLOBAL const uchar* TILED_RESTRICT in, int x, int y, int c, int width, int height) {
#if PIMG_BORDER == PIMG_BORDER_REPLICATE
  x = pimg_clamp_int(x, 0, width - 1);
  y = pimg_clamp_int(y, 0, height - 1);
#else
  if (x < 0 || y < 0 || x >= width || y >= height) return 0;
#endif
  return CONV_LDG(in + pimg_pixel_index(x, y, c, width, height, PIMG_CHANNELS, PIMG_PLANAR));
}

/* acc += the K x K taps of the window whose top-left tap is `window` in the tile. */
#define TILED_TAPS(acc, window)                                           \
  TAP_LOOP                                                                \
  for (int ky = 0; ky < PIMG_K; ++ky) {                                   \
    TAP_LOOP                                                              \
    for (int kx = 0; kx < PIMG_K; ++kx)                                   \
      (acc) += TILED_TERM(ky * PIMG_K + kx, (int)(window)[ky * TILE_W + kx]); \
  }

#ifndef __OPENCL_VERSION__
/* One output value from the window (the helper CUDA's INLINE knob keeps inlined or out of line). */
PIMG_HELPER int tile_pixel(const uchar* window, const int* __restrict__ weights) {
  FILTER_LOCALS
  int acc = 0;
  TILED_TAPS(acc, window)
  return pimg_conv_finish(acc, PIMG_DIVISOR);
}
#endif

CONV_KERNEL CONV_TILED_ENTRY(PIX_GLOBAL const uchar* TILED_RESTRICT in, TILED_WEIGHTS weights,
                             PIX_GLOBAL uchar* TILED_RESTRICT out, int width, int height, int out_width,
                             int out_height) {
  PIX_LOCAL uchar tile[PIMG_CHANNELS * TILE_PLANE];
  TILED_KERNEL_LOCALS
  const int lx = PIX_LID(0), ly = PIX_LID(1);
  const int gox = PIX_GROUP(0) * BLOCK_X * ITEMS_X; /* first output pixel of the group */
  const int goy = PIX_GROUP(1) * BLOCK_Y * ITEMS_Y;
  const int tx0 = gox + CENTRE - PIMG_R; /* input coordinates of tile cell (0, 0) */
  const int ty0 = goy + CENTRE - PIMG_R;

  for (int i = ly * BLOCK_X + lx; i < PIMG_CHANNELS * TILE_PLANE; i += BLOCK_X * BLOCK_Y) {
    const int c = i / TILE_PLANE;
    const int ty = (i - c * TILE_PLANE) / TILE_W;
    const int tx = i - c * TILE_PLANE - ty * TILE_W;
    tile[i] = tile_load(in, tx0 + tx, ty0 + ty, c, width, height);
  }
  PIX_BARRIER();

  for (int iy = 0; iy < ITEMS_Y; ++iy) {
    const int ly_out = ly + iy * BLOCK_Y;
    const int oy = goy + ly_out;
    if (oy >= out_height) break;
    for (int ix = 0; ix < ITEMS_X; ++ix) {
      const int lx_out = lx + ix * BLOCK_X;
      const int ox = gox + lx_out;
      if (ox >= out_width) break;
      for (int c = 0; c < PIMG_CHANNELS; ++c) {
        PIX_LOCAL_PTR const uchar* window = tile + c * TILE_PLANE + ly_out * TILE_W + lx_out;
#ifdef __OPENCL_VERSION__
        int acc = 0;
        TILED_TAPS(acc, window)
        const int value = pimg_conv_finish(acc, PIMG_DIVISOR);
#else
        const int value = tile_pixel(window, weights);
#endif
        out[pimg_pixel_index(ox, oy, c, out_width, out_height, PIMG_CHANNELS, PIMG_PLANAR)] = (uchar)value;
      }
    }
  }
}
