/* Harness self-test: a kernel whose every work item wants a 1 GiB private array, far beyond what a
   work item's stack holds on a CPU device. */
#define PIMG_HOG_BYTES (1u << 30)

__kernel void conv_memory(__global const uchar* in, __global const int* weights, __global uchar* out, int width,
                          int height, int out_width, int out_height) {
  volatile uchar hog[PIMG_HOG_BYTES];
  const uint i = (uint)get_global_id(0) * 4099u % PIMG_HOG_BYTES;
  hog[i] = in[0];
  hog[PIMG_HOG_BYTES - 1 - i] = in[1];
  out[get_global_id(1) * (size_t)out_width + get_global_id(0)] = hog[i] + hog[PIMG_HOG_BYTES - 1 - i];
}
