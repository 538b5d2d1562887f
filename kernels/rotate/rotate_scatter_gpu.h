/* Seed 002's scatter rotation on OpenCL and CUDA (one text; common/pix_portable.h), exact under rotate_rule.h's
   rule "scatter": every source pixel goes to its rotated destination, holes take the fill value, and where
   several sources land on one output pixel the last in raster order wins. Three launches on a 2-D grid of
   BLOCK_X x BLOCK_Y over the image, each item ITEMS_X pixels along x:
   - rotate_scatter_clear: owner[i] = 0 for every output pixel i;
   - rotate_scatter_mark: source pixel n = y w + x atomically raises owner[destination] to n + 1;
   - rotate_scatter_copy: output pixel i copies the bytes of source owner[i] - 1, or the fill where owner[i] = 0.
   Takes (owner, width, height), (owner, width, height) and (in, out, owner, width, height). */
#include "common/pix_portable.h"
#include "rotate/rotate_rule.h"

#ifdef __OPENCL_VERSION__
#define SCATTER_MAX(p, v) atomic_max((p), (v))
#else
#define SCATTER_MAX(p, v) atomicMax((p), (v))
#endif

PIX_KERNEL void rotate_scatter_clear(PIX_GLOBAL int* PIX_RESTRICT owner, int width, int height) {
  const int y = PIX_GID_Y;
  if (y >= height) return;
#pragma unroll
  for (int k = 0; k < ITEMS_X; ++k) {
    const int x = PIX_GID_X * ITEMS_X + k;
    if (x < width) owner[y * width + x] = 0;
  }
}

PIX_KERNEL void rotate_scatter_mark(PIX_GLOBAL int* PIX_RESTRICT owner, int width, int height) {
  const int y = PIX_GID_Y;
  if (y >= height) return;
#pragma unroll
  for (int k = 0; k < ITEMS_X; ++k) {
    const int x = PIX_GID_X * ITEMS_X + k;
    if (x >= width) break;
    const int d = pimg_rot_scatter_target(x, y, width, height, PIMG_COS, PIMG_SIN);
    if (d >= 0) SCATTER_MAX(owner + d, y * width + x + 1);
  }
}

PIX_KERNEL void rotate_scatter_copy(PIX_GLOBAL const uchar* PIX_RESTRICT in, PIX_GLOBAL uchar* PIX_RESTRICT out,
                                    PIX_GLOBAL const int* PIX_RESTRICT owner, int width, int height) {
  const int y = PIX_GID_Y;
  if (y >= height) return;
#pragma unroll
  for (int k = 0; k < ITEMS_X; ++k) {
    const int x = PIX_GID_X * ITEMS_X + k;
    if (x >= width) break;
    const int n = owner[y * width + x] - 1;
#pragma unroll
    for (int c = 0; c < PIMG_CHANNELS; ++c)
      out[pimg_rot_index(x, y, c, width, height, PIMG_CHANNELS, PIMG_PLANAR)] =
          (uchar)(n < 0 ? PIMG_FILL : in[pimg_rot_index(n % width, n / width, c, width, height, PIMG_CHANNELS, PIMG_PLANAR)]);
  }
}
