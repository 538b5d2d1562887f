// Multi-step plans under test (tests/opencl/steps_test.cpp): conv_direct writes an intermediate
// buffer, then copy_bytes moves it into the output.
#include "conv/conv_direct.cl"

__kernel void copy_bytes(__global const uchar* src, __global uchar* dst, const int n) {
  const size_t i = get_global_id(0);
  if (i < (size_t)n) dst[i] = src[i];
}
