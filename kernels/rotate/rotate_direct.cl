/* OpenCL rotation, gather formulation: every work item computes ITEMS_X x ITEMS_Y output pixels (every
   channel). SPREAD 0: the pixels are neighbours (x0 .. x0+ITEMS_X-1); SPREAD 1: they lie BLOCK_X (BLOCK_Y)
   apart, so each of a work-group's loads and stores covers a contiguous run of pixels. The source point
   starts from the rule's formula at the item's first pixel and steps by the rule's integer increments.
   IMAGE=1 (cl_image) reads the source from an image2d_t of 1-byte texels (interleaved rows w*channels texels
   wide, planes stacked vertically) at integer coordinates with a nearest sampler: the rule's bytes exactly. */
#if IMAGE
__constant sampler_t kSampler = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
#define PIMG_ROT_IMAGE __read_only image2d_t
#define PIMG_ROT_TEXEL(in, tx, ty) ((int)read_imageui((in), kSampler, (int2)((tx), (ty))).x)
#endif
#include "rotate/rotate_rule.h"

#if IMAGE
#define IN_PARAM __read_only image2d_t in
#define SAMPLE pimg_rot_sample_texels
#else
#define IN_PARAM __global const uchar* restrict in
#define SAMPLE pimg_rot_sample
#endif

#if SPREAD
#define STEP_X BLOCK_X
#define STEP_Y BLOCK_Y
#else
#define STEP_X 1
#define STEP_Y 1
#endif

__kernel __attribute__((reqd_work_group_size(BLOCK_X, BLOCK_Y, 1)))
void rotate_direct(IN_PARAM, __global uchar* restrict out, int width, int height) {
#if SPREAD
  const int x0 = (int)get_group_id(0) * BLOCK_X * ITEMS_X + (int)get_local_id(0);
  const int y0 = (int)get_group_id(1) * BLOCK_Y * ITEMS_Y + (int)get_local_id(1);
#else
  const int x0 = (int)get_global_id(0) * ITEMS_X;
  const int y0 = (int)get_global_id(1) * ITEMS_Y;
#endif
  if (x0 >= width) return;
  int row_px = pimg_rot_px(x0, y0, width, height, PIMG_COS, PIMG_SIN);
  int row_py = pimg_rot_py(x0, y0, width, height, PIMG_COS, PIMG_SIN);
  for (int iy = 0; iy < ITEMS_Y; ++iy) {
    const int y = y0 + iy * STEP_Y;
    if (y >= height) break;
    int px = row_px, py = row_py;
    for (int ix = 0; ix < ITEMS_X; ++ix) {
      const int x = x0 + ix * STEP_X;
      if (x >= width) break;
      for (int c = 0; c < PIMG_CHANNELS; ++c)
        out[pimg_rot_index(x, y, c, width, height, PIMG_CHANNELS, PIMG_PLANAR)] =
            (uchar)SAMPLE(in, px, py, c, width, height, PIMG_CHANNELS, PIMG_PLANAR, PIMG_INTERP, PIMG_FILL);
      px += 2 * STEP_X * PIMG_COS;
      py += 2 * STEP_X * PIMG_SIN;
    }
    row_px -= 2 * STEP_Y * PIMG_SIN;
    row_py += 2 * STEP_Y * PIMG_COS;
  }
}
