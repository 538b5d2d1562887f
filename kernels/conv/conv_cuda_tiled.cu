/* CUDA tiled KxK convolution (NVRTC): each block loads its input tile (block times items plus a halo of
   R, per channel) into shared memory cooperatively, applying the border rule while loading; after one
   __syncthreads that every thread reaches, each thread computes ITEMS_X x ITEMS_Y pixels strided by the
   block through the per-pixel helper. The block must be (BLOCK_X, BLOCK_Y). */
#include "conv/conv_cuda_common.cuh"

#define TILE_W (BLOCK_X * ITEMS_X + 2 * PIMG_R)
#define TILE_H (BLOCK_Y * ITEMS_Y + 2 * PIMG_R)
#define TILE_PLANE (TILE_W * TILE_H)

/* Channel c of input pixel (x, y) for the tile. Outside the image: zero border reads 0, replicate
   clamps; with a valid border such cells only feed outputs past the edge, so 0 does too. */
static __device__ __forceinline__ uchar tile_load(const uchar* __restrict__ in, int x, int y, int c, int width,
                                                  int height) {
#if PIMG_BORDER == PIMG_BORDER_REPLICATE
  x = pimg_clamp_int(x, 0, width - 1);
  y = pimg_clamp_int(y, 0, height - 1);
#else
  if (x < 0 || y < 0 || x >= width || y >= height) return 0;
#endif
  return __ldg(in + pimg_pixel_index(x, y, c, width, height, PIMG_CHANNELS, PIMG_PLANAR));
}

/* One output value from the window whose top-left tap is `window` in the shared tile (multiplies: the
   tiled kernel has no ARITH knob). */
PIMG_HELPER int tile_pixel(const uchar* window, const int* __restrict__ weights) {
  FILTER_LOCALS
  int acc = 0;
  TAP_LOOP
  for (int ky = 0; ky < PIMG_K; ++ky) {
    TAP_LOOP
    for (int kx = 0; kx < PIMG_K; ++kx) acc += TAP_TERM(ky * PIMG_K + kx, (int)window[ky * TILE_W + kx]);
  }
  return pimg_conv_finish(acc, PIMG_DIVISOR);
}

extern "C" __global__ void PIMG_BOUNDS conv_cuda_tiled(const uchar* __restrict__ in, const int* __restrict__ weights,
                                                       uchar* __restrict__ out, int width, int height,
                                                       int out_width, int out_height) {
  __shared__ uchar tile[PIMG_CHANNELS * TILE_PLANE];
  const int lx = (int)threadIdx.x, ly = (int)threadIdx.y;
  const int gox = (int)blockIdx.x * BLOCK_X * ITEMS_X; /* first output pixel of the block */
  const int goy = (int)blockIdx.y * BLOCK_Y * ITEMS_Y;
  const int tx0 = gox + CENTRE - PIMG_R; /* input coordinates of tile cell (0, 0) */
  const int ty0 = goy + CENTRE - PIMG_R;

  for (int i = ly * BLOCK_X + lx; i < PIMG_CHANNELS * TILE_PLANE; i += BLOCK_X * BLOCK_Y) {
    const int c = i / TILE_PLANE;
    const int ty = (i - c * TILE_PLANE) / TILE_W;
    const int tx = i - c * TILE_PLANE - ty * TILE_W;
    tile[i] = tile_load(in, tx0 + tx, ty0 + ty, c, width, height);
  }
  __syncthreads();

  for (int iy = 0; iy < ITEMS_Y; ++iy) {
    const int ly_out = ly + iy * BLOCK_Y;
    const int oy = goy + ly_out;
    if (oy >= out_height) break;
    for (int ix = 0; ix < ITEMS_X; ++ix) {
      const int lx_out = lx + ix * BLOCK_X;
      const int ox = gox + lx_out;
      if (ox >= out_width) break;
      for (int c = 0; c < PIMG_CHANNELS; ++c)
        out[pimg_pixel_index(ox, oy, c, out_width, out_height, PIMG_CHANNELS, PIMG_PLANAR)] =
            (uchar)tile_pixel(tile + c * TILE_PLANE + ly_out * TILE_W + lx_out, weights);
    }
  }
}
