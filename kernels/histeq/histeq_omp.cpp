// histeq on the CPU, compiled by the OpenMP backend once per configuration: per-thread private
// histograms over scheduled tasks, merged with omp atomic, the LUT by the family's rule on one thread,
// then a parallel map over the same tasks. THREADS, SCHED and CHUNK arrive as -D defines.
#include <cstdint>
#include <cstring>

#include "histeq/histeq_rule.h"

#include "hist/omp_knobs.h"

namespace {
constexpr std::int64_t kTask = 1 << 16;  // bytes per scheduled task
}

// buffers: in, out; ints: pixels.
extern "C" void histeq_omp(void* const* buffers, const std::int64_t* ints, const double*) {
  const auto* in = static_cast<const std::uint8_t*>(buffers[0]);
  auto* out = static_cast<std::uint8_t*>(buffers[1]);
  const std::int64_t n = ints[0];
  const std::int64_t tasks = (n + kTask - 1) / kTask;
  std::uint32_t hist[256] = {};
  std::uint8_t lut[256];
#pragma omp parallel PIMG_NUM_THREADS
  {
    std::uint32_t h[2][256] = {};
#pragma omp for schedule(SCHED_KIND, CHUNK) nowait
    for (std::int64_t t = 0; t < tasks; ++t) {
      const std::int64_t end = (t + 1) * kTask < n ? (t + 1) * kTask : n;
      std::int64_t i = t * kTask;
      for (; i + 2 <= end; i += 2) {
        ++h[0][in[i]];
        ++h[1][in[i + 1]];
      }
      if (i < end) ++h[0][in[i]];
    }
    for (int b = 0; b < 256; ++b) {
#pragma omp atomic
      hist[b] += h[0][b] + h[1][b];
    }
#pragma omp barrier
#pragma omp single
    {
      int lo = 0;
      while (lo < 255 && hist[lo] == 0) ++lo;
      std::uint32_t cdf = 0;
      for (int v = 0; v < 256; ++v) {
        cdf += hist[v];
        lut[v] = static_cast<std::uint8_t>(pimg_histeq_value(v, lo, static_cast<int>(hist[lo]), static_cast<int>(cdf),
                                                             static_cast<int>(n)));
      }
    }
#pragma omp for schedule(SCHED_KIND, CHUNK)
    for (std::int64_t t = 0; t < tasks; ++t) {
      const std::int64_t end = (t + 1) * kTask < n ? (t + 1) * kTask : n;
      for (std::int64_t i = t * kTask; i < end; ++i) out[i] = lut[in[i]];
    }
  }
}
