// histeq on the CPU, compiled by the OpenMP backend once per configuration, in one parallel region:
// per-thread private histograms (COPIES interleaved sub-histograms, optional 64-bit loads) over scheduled
// tasks, merged by an OpenMP array reduction (no atomics), the LUT by the family's rule on one thread,
// then a parallel map over the same tasks (MAP: byte loop, 8 bytes per step, or AVX-512 VBMI byte
// permutes over the 256-byte LUT, 64 bytes per step). THREADS, SCHED, CHUNK, COPIES, WIDE and MAP
// arrive as -D defines.
#include <cstdint>
#include <cstring>

#include "histeq/histeq_rule.h"

#include "hist/omp_knobs.h"

#include "hist/count_bytes.h"

#if !defined(COPIES) || !defined(WIDE) || !defined(MAP)
#error "histeq_omp.cpp needs COPIES, WIDE and MAP defined"
#endif
#if COPIES != 1 && COPIES != 2 && COPIES != 4
#error "COPIES must be 1, 2 or 4"
#endif
// MAP: 0 one byte per step, 1 one 64-bit word per step, 2 AVX-512 VBMI (64 bytes per step).
#if MAP < 0 || MAP > 2
#error "MAP must be 0 (bytes), 1 (words) or 2 (vbmi)"
#endif
#if MAP == 2
#if !defined(__AVX512VBMI__) || !defined(__AVX512BW__)
#error "map: vbmi needs a host compiler target with AVX-512 VBMI and BW (-march=native on such a CPU)"
#endif
#include <immintrin.h>
#endif

namespace {

constexpr std::int64_t kTask = 1 << 16;  // bytes per scheduled task (a multiple of 64)

// Counts bytes [0, len) of p into h, byte k into sub-histogram k % COPIES (256 bins each).
inline void count(const std::uint8_t* p, std::int64_t len, std::uint32_t* h) { pimg_count_bytes(p, len, h, 256); }

// Maps bytes [0, len) of p through lut into q.
inline void map(const std::uint8_t* p, std::int64_t len, const std::uint8_t* lut, std::uint8_t* q) {
  std::int64_t j = 0;
#if MAP == 1
  for (; j + 8 <= len; j += 8) {
    std::uint64_t w, o = 0;
    std::memcpy(&w, p + j, sizeof w);
#pragma GCC unroll 8
    for (int b = 0; b < 8; ++b) o |= static_cast<std::uint64_t>(lut[(w >> (8 * b)) & 0xff]) << (8 * b);
    std::memcpy(q + j, &o, sizeof o);
  }
#elif MAP == 2
  // Two 2-table permutes look up bits 0..6 in lut[0..127] and lut[128..255]; bit 7 picks between them.
  const __m512i t0 = _mm512_loadu_si512(lut), t1 = _mm512_loadu_si512(lut + 64);
  const __m512i t2 = _mm512_loadu_si512(lut + 128), t3 = _mm512_loadu_si512(lut + 192);
  for (; j + 64 <= len; j += 64) {
    const __m512i x = _mm512_loadu_si512(p + j);
    const __m512i lo = _mm512_permutex2var_epi8(t0, x, t1);
    const __m512i hi = _mm512_permutex2var_epi8(t2, x, t3);
    _mm512_storeu_si512(q + j, _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), lo, hi));
  }
#endif
  for (; j < len; ++j) q[j] = lut[p[j]];
}

}  // namespace

// buffers: in, out; ints: pixels.
extern "C" void histeq_omp(void* const* buffers, const std::int64_t* ints, const double*) {
  const auto* in = static_cast<const std::uint8_t*>(buffers[0]);
  auto* out = static_cast<std::uint8_t*>(buffers[1]);
  const std::int64_t n = ints[0];
  const std::int64_t tasks = (n + kTask - 1) / kTask;
  std::uint32_t hist[COPIES * 256] = {};
  alignas(64) std::uint8_t lut[256];
#pragma omp parallel PIMG_NUM_THREADS
  {
    // Every thread counts into its own zeroed copy of hist; the copies are summed at the loop's end.
#pragma omp for schedule(SCHED_KIND, CHUNK) reduction(+ : hist[:COPIES * 256])
    for (std::int64_t t = 0; t < tasks; ++t) {
      const std::int64_t begin = t * kTask;
      count(in + begin, n - begin < kTask ? n - begin : kTask, hist);
    }
#pragma omp single
    {
      for (int r = 1; r < COPIES; ++r)
        for (int b = 0; b < 256; ++b) hist[b] += hist[r * 256 + b];
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
      const std::int64_t begin = t * kTask;
      map(in + begin, n - begin < kTask ? n - begin : kTask, lut, out + begin);
    }
  }
}
