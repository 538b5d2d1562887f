// flip about the vertical axis on the CPU, compiled by the OpenMP backend once per configuration: rows
// (of every plane) or tiles over threads (common/pix_omp.h). INPLACE 0 writes out[x] = in[width-1-x];
// INPLACE 1 is seed 002's in-place swap: each task first copies its rows of the input into the output
// buffer (the output starts poisoned, so the copy is part of what is timed) and then swaps pixel x with
// pixel width-1-x there for x < width/2 (tiles: over their half-row range).
#include <cstdint>
#include <cstring>

#include "common/pix_omp.h"

#if !defined(INPLACE) || !defined(PIMG_CHANNELS) || !defined(PIMG_PLANAR)
#error "flip_omp.cpp needs INPLACE, PIMG_CHANNELS and PIMG_PLANAR"
#endif

namespace {
constexpr int kPlanes = PIMG_PLANAR ? PIMG_CHANNELS : 1;
constexpr int kSamples = PIMG_PLANAR ? 1 : PIMG_CHANNELS;
}  // namespace

// buffers: in, out; ints: width, height.
extern "C" void flip_omp(void* const* buffers, const std::int64_t* ints, const double*) {
  const auto* in = static_cast<const std::uint8_t*>(buffers[0]);
  auto* out = static_cast<std::uint8_t*>(buffers[1]);
  const int width = static_cast<int>(ints[0]), height = static_cast<int>(ints[1]);
  const long row_bytes = static_cast<long>(width) * kSamples;
#if INPLACE
  // Tasks own pixel pairs: columns [x0, x1) of the left half and their mirrors.
  pix_for_rows(kPlanes * height, width / 2, [&](int y0, int y1, int x0, int x1) {
    for (int y = y0; y < y1; ++y) {
      std::uint8_t* row = out + y * row_bytes;
      const std::uint8_t* src = in + y * row_bytes;
      std::memcpy(row + x0 * kSamples, src + x0 * kSamples, static_cast<std::size_t>(x1 - x0) * kSamples);
      std::memcpy(row + (width - x1) * kSamples, src + (width - x1) * kSamples,
                  static_cast<std::size_t>(x1 - x0) * kSamples);
      if (x1 == width / 2 && width % 2 == 1)  // the middle pixel stays where it is
        std::memcpy(row + (width / 2) * kSamples, src + (width / 2) * kSamples, kSamples);
      for (int x = x0; x < x1; ++x)
        for (int c = 0; c < kSamples; ++c) {
          const std::uint8_t t = row[x * kSamples + c];
          row[x * kSamples + c] = row[(width - 1 - x) * kSamples + c];
          row[(width - 1 - x) * kSamples + c] = t;
        }
    }
  });
  if (width == 1) std::memcpy(out, in, static_cast<std::size_t>(kPlanes) * height * row_bytes);
#else
  pix_for_rows(kPlanes * height, width, [&](int y0, int y1, int x0, int x1) {
    for (int y = y0; y < y1; ++y) {
      const std::uint8_t* src = in + y * row_bytes;
      std::uint8_t* dst = out + y * row_bytes;
      for (int x = x0; x < x1; ++x)
        for (int c = 0; c < kSamples; ++c) dst[x * kSamples + c] = src[(width - 1 - x) * kSamples + c];
    }
  });
#endif
}
