// Multi-step plans under test (tests/opencl/steps_test.cpp): conv_direct writes an intermediate
// buffer, then copy_bytes moves it into the output.
#include "conv/conv_direct.cl"

__kernel void copy_bytes(__global const uchar* src, __global uchar* dst, const int n) {
  const size_t i = get_global_id(0);
  if (i < (size_t)n) dst[i] = src[i];
}

// Leaves every byte whose value is 0xA5 unwritten: right while the poison is 0xA5, caught on the
// next run, whose poison is 0x5A.
__kernel void copy_skip_a5(__global const uchar* src, __global uchar* dst, const int n) {
  const size_t i = get_global_id(0);
  if (i < (size_t)n && src[i] != 0xA5) dst[i] = src[i];
}

// Copies n bytes, and writes 16 bytes of 0x11 after them: past the end of a buffer of n bytes.
__kernel void copy_overrun(__global const uchar* src, __global uchar* dst, const int n) {
  const size_t i = get_global_id(0);
  if (i < (size_t)n) dst[i] = src[i];
  else if (i < (size_t)n + 16) dst[i] = 0x11;
}

// Copies n bytes with byte n / 2 one off: a wrong pixel in the middle of the output.
__kernel void copy_wrong_pixel(__global const uchar* src, __global uchar* dst, const int n) {
  const size_t i = get_global_id(0);
  if (i < (size_t)n) dst[i] = i == (size_t)n / 2 ? (uchar)(src[i] + 1) : src[i];
}

// Copies n bytes and adds one to the first byte of `in`, the plan's input: a kernel that writes into what
// it only should read (tests/opencl/device_check_test.cpp: the next configuration must not inherit it).
__kernel void copy_scribble_input(__global const uchar* src, __global uchar* dst, const int n, __global uchar* in) {
  const size_t i = get_global_id(0);
  if (i < (size_t)n) dst[i] = src[i];
  if (i == 0) in[0] = (uchar)(in[0] + 1);
}
