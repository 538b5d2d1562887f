// conv's sharpen3 (0 -1 0 / -1 5 -1 / 0 -1 0, divisor 1, zero border, saturated to 0..255) of an
// 8-bit image as a standalone OpenCL kernel, tuned from sharpen.json (a T1 file) in the tests.
// Each work item writes ppx pixels of one row.
inline int px(__global const uchar* in, int x, int y, int width, int height) {
  return (x < 0 || y < 0 || x >= width || y >= height) ? 0 : in[y * width + x];
}

__kernel void sharpen(__global const uchar* in, __global uchar* out, const int width, const int height) {
  const int y = get_global_id(1);
  if (y >= height) return;
  for (int i = 0; i < ppx; ++i) {
    const int x = get_global_id(0) * ppx + i;
    if (x >= width) return;
    const int acc = 5 * px(in, x, y, width, height) - px(in, x - 1, y, width, height) -
                    px(in, x + 1, y, width, height) - px(in, x, y - 1, width, height) -
                    px(in, x, y + 1, width, height);
    out[y * width + x] = (uchar)clamp(acc, 0, 255);
  }
}
