// Seed 002's scatter rotation on the CPU, compiled by the OpenMP backend once per configuration, exact under
// rotate_rule.h's rule "scatter": one parallel region of three loops over rows (SCHED, CHUNK, THREADS):
// clear the owner of every output pixel, raise the owner of each source pixel's destination to its number + 1
// (an atomic maximum by compare-and-swap: the last source in raster order wins), then copy each output
// pixel's owner's bytes, or the fill value for a hole. The implicit barrier after each loop orders them.
#include <cstdint>

#include "rotate/rotate_rule.h"

#if !defined(SCHED) || !defined(CHUNK) || !defined(THREADS)
#error "rotate_scatter_omp.cpp needs SCHED, CHUNK and THREADS defined"
#endif

#include "common/omp_schedule.h"

namespace {

inline void raise_to(int* p, int v) {
  int cur = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (v > cur && !__atomic_compare_exchange_n(p, &cur, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}

}  // namespace

// buffers: in, out, owner (width x height int32 scratch); ints: width, height.
extern "C" void rotate_scatter_omp(void* const* buffers, const std::int64_t* ints, const double*) {
  const auto* in = static_cast<const std::uint8_t*>(buffers[0]);
  auto* out = static_cast<std::uint8_t*>(buffers[1]);
  auto* owner = static_cast<int*>(buffers[2]);
  const int width = static_cast<int>(ints[0]), height = static_cast<int>(ints[1]);
#pragma omp parallel PIMG_NUM_THREADS
  {
#pragma omp for schedule(SCHED_KIND, CHUNK)
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) owner[y * width + x] = 0;
#pragma omp for schedule(SCHED_KIND, CHUNK)
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        const int d = pimg_rot_scatter_target(x, y, width, height, PIMG_COS, PIMG_SIN);
        if (d >= 0) raise_to(owner + d, y * width + x + 1);
      }
#pragma omp for schedule(SCHED_KIND, CHUNK)
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        const int n = owner[y * width + x] - 1;
        for (int c = 0; c < PIMG_CHANNELS; ++c)
          out[pimg_rot_index(x, y, c, width, height, PIMG_CHANNELS, PIMG_PLANAR)] = static_cast<std::uint8_t>(
              n < 0 ? PIMG_FILL
                    : in[pimg_rot_index(n % width, n / width, c, width, height, PIMG_CHANNELS, PIMG_PLANAR)]);
      }
  }
}
