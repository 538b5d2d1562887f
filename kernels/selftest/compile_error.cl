/* Harness self-test: a conv kernel that must not compile (it uses an undeclared identifier), so the
   tuner's compile_error path and build-log capture are exercised on every backend run. */
#include "conv/conv_rule.h"

__kernel void conv_compile_error(__global const uchar* in, __global const int* weights, __global uchar* out,
                                 int width, int height, int out_width, int out_height) {
  const int ox = (int)get_global_id(0), oy = (int)get_global_id(1);
  if (ox >= out_width || oy >= out_height) return;
  out[oy * out_width + ox] = (uchar)pimg_conv_finish(undeclared_accumulator, PIMG_DIVISOR);
}
