// The hist family on the CPU, compiled by the OpenMP backend once per configuration: per-thread
// private histograms (COPIES sub-histograms each, so consecutive samples do not wait on one another's
// increments) over tasks of kTask bytes (within one plane where the image is planar: PIMG_PLANAR,
// PIMG_PLANE), merged into the output by MERGE. PIMG_CHANNELS and the knobs
// THREADS, SCHED, CHUNK, MERGE, COPIES and WIDE arrive as -D defines.
#include <cstdint>
#include <cstring>

#include "hist/hist_rule.h"

#include "hist/omp_knobs.h"

#include "hist/count_bytes.h"

#if !defined(PIMG_CHANNELS) || !defined(MERGE) || !defined(COPIES) || !defined(WIDE)
#error "hist_omp.cpp needs PIMG_CHANNELS, MERGE, COPIES and WIDE defined"
#endif

// MERGE: 0 each thread adds its bins with omp atomic, 1 inside one critical section, 2 an OpenMP array
// reduction over the bins.
#if MERGE < 0 || MERGE > 2
#error "MERGE must be 0 (atomic), 1 (critical) or 2 (reduction)"
#endif

namespace {

constexpr int kC = PIMG_CHANNELS;
constexpr int kBins = PIMG_HIST_BINS * kC;
constexpr int kWord = 8 * kC;                     // bytes per wide step: kC 64-bit words
constexpr std::int64_t kTask = kWord * 4096;      // bytes per scheduled task (a whole number of pixels)

using Hist = std::uint32_t[COPIES][kBins];

// Samples [0, len) of a task starting at a pixel boundary; sample j of it is channel j % kC.
inline void count(const std::uint8_t* p, std::int64_t len, Hist& h) {
  std::int64_t j = 0;
#if WIDE
  // kC 64-bit loads per step, every byte's channel and sub-histogram a compile-time constant.
  for (; j + kWord <= len; j += kWord) {
    std::uint64_t w[kC];
    std::memcpy(w, p + j, sizeof w);
#pragma GCC unroll 24
    for (int b = 0; b < kWord; ++b)
      ++h[(b / kC) % COPIES][(b % kC) * PIMG_HIST_BINS + static_cast<int>((w[b / 8] >> (8 * (b % 8))) & 0xff)];
  }
#endif
  const std::int64_t pixels = (len - j) / kC;
  const std::uint8_t* q = p + j;
  std::int64_t k = 0;
  for (; k + COPIES <= pixels; k += COPIES)
#pragma GCC unroll 4
    for (int r = 0; r < COPIES; ++r)
#pragma GCC unroll 3
      for (int c = 0; c < kC; ++c) ++h[r][c * PIMG_HIST_BINS + q[(k + r) * kC + c]];
  for (; k < pixels; ++k)
    for (int c = 0; c < kC; ++c) ++h[0][c * PIMG_HIST_BINS + q[k * kC + c]];
}

#if defined(PIMG_PLANAR) && PIMG_PLANAR
// Planar (PIMG_PLANE samples per channel): `len` samples of one plane into the bins from `base` on.
inline void count_plane(const std::uint8_t* p, std::int64_t len, Hist& h, int base) {
  pimg_count_bytes(p, len, &h[0][base], kBins);
}

constexpr std::int64_t kPlaneTasks = (PIMG_PLANE + kTask - 1) / kTask;  // tasks per plane

// Task t: a kTask-sample piece of plane t / kPlaneTasks.
inline void count_task(const std::uint8_t* in, std::int64_t, std::int64_t t, Hist& h) {
  const std::int64_t c = t / kPlaneTasks, begin = (t % kPlaneTasks) * kTask;
  const std::int64_t len = PIMG_PLANE - begin < kTask ? PIMG_PLANE - begin : kTask;
  count_plane(in + c * PIMG_PLANE + begin, len, h, static_cast<int>(c) * PIMG_HIST_BINS);
}
constexpr std::int64_t tasks_of(std::int64_t) { return kPlaneTasks * kC; }
#else
inline void count_task(const std::uint8_t* in, std::int64_t n, std::int64_t t, Hist& h) {
  const std::int64_t begin = t * kTask;
  const std::int64_t len = n - begin < kTask ? n - begin : kTask;
  count(in + begin, len, h);
}
constexpr std::int64_t tasks_of(std::int64_t n) { return (n + kTask - 1) / kTask; }
#endif

}  // namespace

// buffers: in (interleaved or planar samples), out (kBins uint32); ints: samples.
extern "C" void hist_omp(void* const* buffers, const std::int64_t* ints, const double*) {
  const auto* in = static_cast<const std::uint8_t*>(buffers[0]);
  auto* out = static_cast<std::uint32_t*>(buffers[1]);
  const std::int64_t n = ints[0];
  const std::int64_t tasks = tasks_of(n);
  for (int b = 0; b < kBins; ++b) out[b] = 0;
#if MERGE == 2
  std::uint32_t* acc = out;
#pragma omp parallel PIMG_NUM_THREADS reduction(+ : acc[:kBins])
  {
    alignas(64) Hist h;
    std::memset(h, 0, sizeof h);
#pragma omp for schedule(SCHED_KIND, CHUNK) nowait
    for (std::int64_t t = 0; t < tasks; ++t) count_task(in, n, t, h);
    for (int r = 0; r < COPIES; ++r)
      for (int b = 0; b < kBins; ++b) acc[b] += h[r][b];
  }
#else
#pragma omp parallel PIMG_NUM_THREADS
  {
    alignas(64) Hist h;
    std::memset(h, 0, sizeof h);
#pragma omp for schedule(SCHED_KIND, CHUNK) nowait
    for (std::int64_t t = 0; t < tasks; ++t) count_task(in, n, t, h);
    for (int r = 1; r < COPIES; ++r)
      for (int b = 0; b < kBins; ++b) h[0][b] += h[r][b];
#if MERGE == 0
    for (int b = 0; b < kBins; ++b) {
#pragma omp atomic
      out[b] += h[0][b];
    }
#else
#pragma omp critical(pimg_hist_merge)
    for (int b = 0; b < kBins; ++b) out[b] += h[0][b];
#endif
  }
#endif
}
