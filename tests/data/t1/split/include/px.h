// The border rule of split.cl, in a folder of its own: found because split.json lists this file after the kernel.
inline int px(__global const uchar* in, int x, int y, int width, int height) {
  return (x < 0 || y < 0 || x >= width || y >= height) ? 0 : in[y * width + x];
}
