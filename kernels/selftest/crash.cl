/* Harness self-test: a kernel that writes through a wild pointer (address 16), which kills the
   process running it on a CPU device (SIGSEGV). */
__kernel void conv_crash(__global const uchar* in, __global const int* weights, __global uchar* out, int width,
                         int height, int out_width, int out_height) {
  volatile __global int* wild = (volatile __global int*)(size_t)(16 + out_width - out_width);
  *wild = weights[0];
}
