// flip about the vertical axis on the CPU, compiled by the OpenMP backend once per configuration: rows
// (of every plane) or tiles over threads (common/pix_omp.h). INPLACE 0 writes out[x] = in[width-1-x];
// INPLACE 1 is seed 002's in-place swap: each task first copies its rows of the input into the output
// buffer (the output starts poisoned, so the copy is part of what is timed) and then swaps pixel x with
// pixel width-1-x there for x < width/2 (tiles: over their half-row range). SHUFFLE 1 mirrors 16 pixels
// at a time with byte shuffles (out of place), SHUFFLE 0 pixel by pixel.
#include <cstdint>
#include <cstring>

#include "common/pix_omp.h"

#if !defined(INPLACE) || !defined(SHUFFLE) || !defined(PIMG_CHANNELS) || !defined(PIMG_PLANAR)
#error "flip_omp.cpp needs INPLACE, SHUFFLE, PIMG_CHANNELS and PIMG_PLANAR"
#endif

namespace {
constexpr int kPlanes = PIMG_PLANAR ? PIMG_CHANNELS : 1;
constexpr int kSamples = PIMG_PLANAR ? 1 : PIMG_CHANNELS;

typedef std::uint8_t v16u8 __attribute__((vector_size(16)));

inline v16u8 load16(const std::uint8_t* p) {
  v16u8 v;
  std::memcpy(&v, p, 16);
  return v;
}

// A two-vector byte shuffle with literal indices (0..15 from a, 16..31 from b): clang's
// __builtin_shufflevector takes them as arguments, GCC's __builtin_shuffle as a constant mask vector.
#if defined(__clang__)
#define PIX_SHUFFLE2(a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#else
#define PIX_SHUFFLE2(a, b, ...) __builtin_shuffle(a, b, (v16u8){__VA_ARGS__})
#endif

// 16 pixels reversed: the output's 16*kSamples bytes at dst from the input's at src. One channel: one
// byte shuffle; three: each output vector is a two-vector shuffle of two loads within the group (the
// masks list, per output byte, its source in the first load (0..15) or the second (16..31)).
inline void reverse16(const std::uint8_t* src, std::uint8_t* dst) {
#if PIMG_PLANAR || PIMG_CHANNELS == 1
  {
    const v16u8 v = load16(src);
    const v16u8 o = PIX_SHUFFLE2(v, v, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    std::memcpy(dst, &o, 16);
  }
#elif PIMG_CHANNELS == 3
  {
    const v16u8 o0 = PIX_SHUFFLE2(load16(src + 30), load16(src + 32), 15, 30, 31, 12, 13, 14, 9, 10, 11, 6, 7, 8, 3, 4, 5, 0);
    const v16u8 o1 = PIX_SHUFFLE2(load16(src + 15), load16(src + 17), 30, 31, 12, 13, 14, 9, 10, 11, 6, 7, 8, 3, 4, 5, 0, 1);
    const v16u8 o2 = PIX_SHUFFLE2(load16(src + 0), load16(src + 2), 31, 12, 13, 14, 9, 10, 11, 6, 7, 8, 3, 4, 5, 0, 1, 2);
    std::memcpy(dst, &o0, 16);
    std::memcpy(dst + 16, &o1, 16);
    std::memcpy(dst + 32, &o2, 16);
  }
#else
#error "flip_omp handles 1 or 3 samples per pixel"
#endif
}

// Output pixels [x0, x1) of one row from the mirrored input row: 16 at a time with SHUFFLE.
inline void mirror_row(const std::uint8_t* src, std::uint8_t* dst, int width, int x0, int x1) {
  int x = x0;
#if SHUFFLE
  for (; x + 16 <= x1; x += 16) reverse16(src + (width - x - 16) * kSamples, dst + x * kSamples);
#endif
  for (; x < x1; ++x)
    for (int c = 0; c < kSamples; ++c) dst[x * kSamples + c] = src[(width - 1 - x) * kSamples + c];
}
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
      mirror_row(src, dst, width, x0, x1);
    }
  });
#endif
}
