// A T1 kernel whose default configuration is a fault (tests/hostile/make_corpus.py, the "reference-*" cases): the
// tuning parameter `fault` picks it. 1: writes through a null pointer; 2: never returns; 3: writes past the end
// of its output; 4: leaves every odd column unwritten. 0 copies the input.
__kernel void sharpen(__global const uchar* in, __global uchar* out, const int width, const int height) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (fault == 1 && x == 0 && y == 0) *(volatile __global int*)0 = 1;
  if (fault == 2) {
    volatile int spin = 1;
    while (spin) {
    }
  }
  if (fault == 3 && x == 0 && y == 0) out[width * height + 7] = 1;
  if (fault == 4 && (x & 1)) return;
  if (x < width && y < height) out[y * width + x] = in[y * width + x];
}
