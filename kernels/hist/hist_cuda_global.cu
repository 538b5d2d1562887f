/* hist: basic global atomics over a 2-D grid of pixels x channels (NVRTC); every thread counts ITEMS
 * pixels of its channel, strided by the grid's width so loads stay coalesced. */
#include "hist/hist_cuda_common.cuh"

extern "C" __global__ void hist_global(const unsigned char* __restrict__ in, unsigned* bins, int pixels) {
  const int c = blockIdx.y;
  const int stride = gridDim.x * blockDim.x;
  int px = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k, px += stride)
    if (px < pixels) atomicAdd(&bins[(c << 8) + __ldg(in + (long long)px * PIMG_CHANNELS + c)], 1u);
}
