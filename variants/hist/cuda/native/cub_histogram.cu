// hist's CUB code in libpimg_cub.so: CUB's histogram behind the C interface of cub_histogram.h.
#include <cub/device/device_histogram.cuh>

#include "cub_histogram.h"

namespace {

// Temporary storage kept between calls (grown when a call needs more).
void* g_temp = nullptr;
size_t g_temp_bytes = 0;

cudaError_t ensure_temp(size_t bytes) {
  if (bytes <= g_temp_bytes) return cudaSuccess;
  if (g_temp) cudaFree(g_temp);
  g_temp = nullptr;
  g_temp_bytes = 0;
  const cudaError_t e = cudaMalloc(&g_temp, bytes);
  if (e == cudaSuccess) g_temp_bytes = bytes;
  return e;
}

// The size CUB asked for on the last call of each shape (pixels, channels): a call of the same shape then
// runs straight on the kept storage, with no size query and no allocation.
struct Shape {
  long long pixels = -1;
  int channels = 0;
  size_t bytes = 0;
};
Shape g_shape;

template <class Call>
int prepare_temp(long long pixels, int channels, Call call) {
  if (g_shape.pixels == pixels && g_shape.channels == channels) return 0;
  size_t bytes = 0;
  cudaError_t e = call(static_cast<void*>(nullptr), bytes);
  if (e != cudaSuccess) return static_cast<int>(e);
  e = ensure_temp(bytes == 0 ? 1 : bytes);
  if (e != cudaSuccess) return static_cast<int>(e);
  g_shape = {pixels, channels, bytes};
  return 0;
}

template <class Call>
int with_temp(long long pixels, int channels, Call call) {
  if (const int e = prepare_temp(pixels, channels, call); e != 0) return e;
  return static_cast<int>(call(g_temp, g_shape.bytes));
}

// Runs (or, with `prepare`, only sizes and allocates the storage of) the histogram of one shape.
template <class Temp>
int histogram(const unsigned char* in, unsigned* bins, long long pixels, int channels, Temp temp) {
  if (channels == 1) {
    return temp(pixels, channels, [&](void* storage, size_t& bytes) {
      return cub::DeviceHistogram::HistogramEven(storage, bytes, in, bins, 257, 0, 256, static_cast<int>(pixels));
    });
  }
  if (channels == 3) {
    const ::cuda::std::array<unsigned*, 3> hists{bins, bins + 256, bins + 512};
    const ::cuda::std::array<int, 3> levels{257, 257, 257};
    const ::cuda::std::array<int, 3> lower{0, 0, 0};
    const ::cuda::std::array<int, 3> upper{256, 256, 256};
    return temp(pixels, channels, [&](void* storage, size_t& bytes) {
      return cub::DeviceHistogram::MultiHistogramEven<3, 3>(storage, bytes, in, hists, levels, lower, upper,
                                                              static_cast<int>(pixels));
    });
  }
  return static_cast<int>(cudaErrorInvalidValue);
}

}  // namespace

extern "C" int pimg_cub_histogram_even(const unsigned char* in, unsigned* bins, long long pixels, int channels) {
  return histogram(in, bins, pixels, channels, [](long long p, int c, auto call) { return with_temp(p, c, call); });
}

extern "C" int pimg_cub_histogram_prepare(long long pixels, int channels) {
  return histogram(nullptr, nullptr, pixels, channels,
                   [](long long p, int c, auto call) { return prepare_temp(p, c, call); });
}
