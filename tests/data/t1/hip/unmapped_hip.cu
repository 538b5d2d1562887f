// A HIP kernel that uses an AMD-only builtin (__hip_move_dpp, a cross-lane move with no CUDA counterpart): refused
// before anything is compiled, the name in the message (tests/e2e/t1_test.cpp).
#include "hip/hip_runtime.h"

extern "C" __global__ void sharpen(const unsigned char* in, unsigned char* out, const int width, const int height) {
  const int i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
  if (i < width * height) out[i] = (unsigned char)__hip_move_dpp(in[i], 0x111, 15, 15, false);
}
