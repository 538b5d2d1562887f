/* hist: packed reads (NVRTC): every thread reads ITEMS 32-bit words (4 samples each), strided by the
 * grid so loads stay coalesced, and counts their bytes with global atomics; the samples after the last
 * whole word are read one by one. */
#include "hist/hist_cuda_common.cuh"

extern "C" __global__ void hist_packed(const unsigned char* __restrict__ in, unsigned* bins, int samples) {
  const unsigned* words = reinterpret_cast<const unsigned*>(in);
  const int nwords = samples >> 2;
  const int stride = gridDim.x * blockDim.x;
  const int id = blockIdx.x * blockDim.x + threadIdx.x;
  auto add = [&](int slot) { atomicAdd(&bins[slot], 1u); };
  int w = id;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k, w += stride)
    if (w < nwords) count_word(__ldg(words + w), (w * 4) % PIMG_CHANNELS, add);
  const int tail = (nwords << 2) + id;
  if (tail < samples) add(((tail % PIMG_CHANNELS) << 8) + in[tail]);
}
