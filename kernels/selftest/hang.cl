/* Harness self-test: a kernel that never returns. It spins on a volatile read of the first weight,
   waiting for a value no filter has, so no compiler may remove the loop. */
__kernel void conv_hang(__global const uchar* in, __global const int* weights, __global uchar* out, int width,
                        int height, int out_width, int out_height) {
  volatile __global const int* w = weights;
  while (w[0] != 0x7fffffff) {
  }
}
