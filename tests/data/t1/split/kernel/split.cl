// A kernel spread over two folders, as such kernels are: its border rule (../include/px.h) lies apart, and split.json
// names both files, the kernel first (Kernel Tuner's list form of kernel_source). Each work item writes ppx pixels
// of one row: the mean of a pixel and its right neighbour (zero past the border).
#include "px.h"

__kernel void sharpen(__global const uchar* in, __global uchar* out, const int width, const int height) {
  const int y = get_global_id(1);
  for (int i = 0; i < ppx && y < height; ++i) {
    const int x = get_global_id(0) * ppx + i;
    if (x < width) out[y * width + x] = (uchar)((px(in, x, y, width, height) + px(in, x + 1, y, width, height)) / 2);
  }
}
