// histeq's kernel in libpimg_cub.so: the family rule's LUT of a histogram, behind the C interface of histeq_lut.h.
#include <cuda_runtime.h>

#include "histeq/histeq_rule.h"
#include "histeq_lut.h"

namespace {

__global__ void __launch_bounds__(256) histeq_lut_kernel(const unsigned* hist, unsigned char* lut, int total) {
  __shared__ unsigned cdf[256];
  __shared__ int lo;
  const int t = threadIdx.x;
  cdf[t] = hist[t];
  __syncthreads();
  for (int off = 1; off < 256; off <<= 1) {
    const unsigned add = t >= off ? cdf[t - off] : 0u;
    __syncthreads();
    cdf[t] += add;
    __syncthreads();
  }
  if (cdf[t] > 0u && (t == 0 || cdf[t - 1] == 0u)) lo = t;
  __syncthreads();
  lut[t] = static_cast<unsigned char>(pimg_histeq_value(t, lo, static_cast<int>(cdf[lo]), static_cast<int>(cdf[t]), total));
}

}  // namespace

extern "C" int pimg_cub_histeq_lut(const unsigned* hist, unsigned char* lut, int total) {
  histeq_lut_kernel<<<1, 256>>>(hist, lut, total);
  return static_cast<int>(cudaGetLastError());
}
