// Max pooling (2x2; 3x3 and 4x4 with PIMG_WINDOW), stride = window, on the CPU, compiled by the OpenMP
// backend once per configuration: output rows (of every plane) or tiles over threads (common/pix_omp.h).
// FORM 0 takes the window's values in a chain, FORM 1 as seed 003's tree (max of the two horizontal
// pairs, then of those; larger windows in levels of pairs over the row-major values).
#include <cstdint>

#include "common/pix_omp.h"

#if !defined(FORM) || !defined(PIMG_CHANNELS) || !defined(PIMG_PLANAR)
#error "maxpool_omp.cpp needs FORM, PIMG_CHANNELS and PIMG_PLANAR"
#endif

#ifndef PIMG_WINDOW
#define PIMG_WINDOW 2
#endif

namespace {
constexpr int kWindow = PIMG_WINDOW;  // 2, 3 or 4; stride = window
constexpr int kPlanes = PIMG_PLANAR ? PIMG_CHANNELS : 1;
constexpr int kSamples = PIMG_PLANAR ? 1 : PIMG_CHANNELS;
inline std::uint8_t umax(std::uint8_t a, std::uint8_t b) { return a > b ? a : b; }
}  // namespace

// buffers: in, out; ints: width, height, out_width, out_height.
extern "C" void maxpool_omp(void* const* buffers, const std::int64_t* ints, const double*) {
  const auto* in = static_cast<const std::uint8_t*>(buffers[0]);
  auto* out = static_cast<std::uint8_t*>(buffers[1]);
  const long width = ints[0], height = ints[1];
  const int out_width = static_cast<int>(ints[2]), out_height = static_cast<int>(ints[3]);
  pix_for_rows(kPlanes * out_height, out_width, [&](int y0, int y1, int x0, int x1) {
    for (int r = y0; r < y1; ++r) {
      const long p = r / out_height, oy = r % out_height;
      const std::uint8_t* in0 = in + (p * height + kWindow * oy) * width * kSamples;
      const std::uint8_t* in1 = in0 + width * kSamples;
      std::uint8_t* o = out + static_cast<long>(r) * out_width * kSamples;
#if PIMG_WINDOW != 2
      // Windows of 3 and 4: the window's values in a row-major array, folded in a chain or in a tree of pairs.
      (void)in1;
#pragma omp simd
      for (int i = x0 * kSamples; i < x1 * kSamples; ++i) {
        const int x = i / kSamples, c = i % kSamples;
        std::uint8_t v[kWindow * kWindow];
        for (int dy = 0; dy < kWindow; ++dy)
          for (int dx = 0; dx < kWindow; ++dx)
            v[dy * kWindow + dx] = in0[dy * width * kSamples + (kWindow * x + dx) * kSamples + c];
#if FORM == 1
        for (int s = 1; s < kWindow * kWindow; s *= 2)
          for (int j = 0; j + s < kWindow * kWindow; j += 2 * s) v[j] = umax(v[j], v[j + s]);
#else
        for (int j = 1; j < kWindow * kWindow; ++j) v[0] = umax(v[0], v[j]);
#endif
        o[i] = v[0];
      }
#else
#pragma omp simd
      for (int i = x0 * kSamples; i < x1 * kSamples; ++i) {
        const int x = i / kSamples, c = i % kSamples;
        const std::uint8_t a = in0[2 * x * kSamples + c], b = in0[(2 * x + 1) * kSamples + c];
        const std::uint8_t d = in1[2 * x * kSamples + c], e = in1[(2 * x + 1) * kSamples + c];
#if FORM == 1
        o[i] = umax(umax(a, b), umax(d, e));
#else
        o[i] = umax(umax(umax(a, b), d), e);
#endif
      }
#endif
    }
  });
}
