// bgr2rgba on the CPU, compiled by the OpenMP backend once per configuration: rows or tiles over
// threads (common/pix_omp.h). SHUFFLE 0: each pixel's R G B A written as one 32-bit word (PIMG_ALPHA in
// the top byte) in a loop left to the compiler's vectoriser; SHUFFLE 1: four pixels at a time with one
// 16-byte byte shuffle (pshufb / tbl) and the alpha OR-ed in, the last pixels of a row one by one.
#include <cstdint>
#include <cstring>

#include "common/pix_omp.h"

#if !defined(SHUFFLE)
#error "bgr2rgba_omp.cpp needs SHUFFLE"
#endif

namespace {

typedef std::uint8_t v16u8 __attribute__((vector_size(16)));

// B G R of pixels x .. x+3 (12 of the 16 bytes at src + 3x) to R G B A at dst + 4x.
inline void four_pixels(const std::uint8_t* src, std::uint8_t* dst) {
  v16u8 v;
  std::memcpy(&v, src, 16);
#if defined(__clang__)
  v16u8 o = __builtin_shufflevector(v, v, 2, 1, 0, 0, 5, 4, 3, 0, 8, 7, 6, 0, 11, 10, 9, 0);
#else
  const v16u8 mask = {2, 1, 0, 0, 5, 4, 3, 0, 8, 7, 6, 0, 11, 10, 9, 0};
  v16u8 o = __builtin_shuffle(v, mask);
#endif
  const v16u8 alpha_at = {0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255};
  const v16u8 alpha = {0, 0, 0, PIMG_ALPHA, 0, 0, 0, PIMG_ALPHA, 0, 0, 0, PIMG_ALPHA, 0, 0, 0, PIMG_ALPHA};
  o = (o & ~alpha_at) | alpha;
  std::memcpy(dst, &o, 16);
}

inline void one_pixel(const std::uint8_t* src, std::uint8_t* dst, int x) {
  const std::uint32_t word = src[3 * x + 2] | (std::uint32_t{src[3 * x + 1]} << 8) |
                             (std::uint32_t{src[3 * x]} << 16) | (std::uint32_t{PIMG_ALPHA} << 24);
  std::memcpy(dst + 4 * x, &word, 4);
}

}  // namespace

// buffers: in (B G R), out (R G B A); ints: width, height.
extern "C" void bgr2rgba_omp(void* const* buffers, const std::int64_t* ints, const double*) {
  const auto* in = static_cast<const std::uint8_t*>(buffers[0]);
  auto* out = static_cast<std::uint8_t*>(buffers[1]);
  const int width = static_cast<int>(ints[0]), height = static_cast<int>(ints[1]);
  pix_for_rows(height, width, [&](int y0, int y1, int x0, int x1) {
    for (int y = y0; y < y1; ++y) {
      const std::uint8_t* src = in + (static_cast<long>(y) * width) * 3;
      std::uint8_t* dst = out + (static_cast<long>(y) * width) * 4;
      int x = x0;
#if SHUFFLE
      // A 16-byte load reads 4 bytes past the fourth pixel: stop where that would leave the row.
      for (; x + 6 <= x1; x += 4) four_pixels(src + 3 * x, dst + 4 * x);
#endif
#pragma omp simd
      for (int i = x; i < x1; ++i) one_pixel(src, dst, i);
    }
  });
}
