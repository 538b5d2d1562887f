/* hist: output partition (NVRTC): block g owns the BPG bins starting at g * BPG of the 256 x channels
 * slots, reads the whole input in 16-byte loads, counts only its own bins in shared memory and writes
 * them: no global atomics, no clear kernel, one launch. */
#include "hist/hist_cuda_common.cuh"

extern "C" __global__ void __launch_bounds__(BLOCK) hist_outpart(const unsigned char* __restrict__ in,
                                                                  unsigned* bins, int samples) {
  __shared__ unsigned own[BPG];
  const int first = blockIdx.x * BPG;
  for (int i = threadIdx.x; i < BPG; i += BLOCK) own[i] = 0u;
  __syncthreads();
  auto add = [&](int slot) {
    const unsigned k = (unsigned)(slot - first);
    if (k < (unsigned)BPG) atomicAdd(&own[k], 1u);
  };
  const uint4* v = reinterpret_cast<const uint4*>(in);
  const int nvec = samples / 16;
  for (int i = threadIdx.x; i < nvec; i += BLOCK) {
    count_vec4(__ldg(v + i), (i * 16) % PIMG_CHANNELS, add);
  }
  for (int t = nvec * 16 + threadIdx.x; t < samples; t += BLOCK) add(((t % PIMG_CHANNELS) << 8) + in[t]);
  __syncthreads();
  for (int i = threadIdx.x; i < BPG; i += BLOCK) bins[first + i] = own[i];
}
