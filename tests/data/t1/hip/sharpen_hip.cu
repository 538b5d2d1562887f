// conv's sharpen3 of sharpen.cl written as a HIP kernel (hipThreadIdx_x and the other index names, dynamic shared
// memory through HIP_DYNAMIC_SHARED), for the tests of T1 files written for HIP: compiled as CUDA through
// pimg-tune's HIP-to-CUDA mapping (kernels/t1/hip_runtime.h). Each thread writes ppx pixels of one row.
#include "hip/hip_runtime.h"

__device__ int px(const unsigned char* in, int x, int y, int width, int height) {
  return (x < 0 || y < 0 || x >= width || y >= height) ? 0 : in[y * width + x];
}

extern "C" __global__ void sharpen(const unsigned char* in, unsigned char* out, const int width, const int height) {
  HIP_DYNAMIC_SHARED(int, scratch)
  const int y = hipBlockIdx_y * hipBlockDim_y + hipThreadIdx_y;
  if (y >= height) return;
  for (int i = 0; i < ppx; ++i) {
    const int x = (hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x) * ppx + i;
    if (x >= width) return;
    const int acc = 5 * px(in, x, y, width, height) - px(in, x - 1, y, width, height) -
                    px(in, x + 1, y, width, height) - px(in, x, y - 1, width, height) -
                    px(in, x, y + 1, width, height);
    out[y * width + x] = (unsigned char)min(max(acc, 0), 255);
  }
  (void)scratch;
}
