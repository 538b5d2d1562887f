// bgr2rgba on the CPU, compiled by the OpenMP backend once per configuration: rows or tiles over
// threads (common/pix_omp.h), each pixel's R G B A written as one 32-bit word (PIMG_ALPHA in the top
// byte), a loop the compiler vectorises.
#include <cstdint>
#include <cstring>

#include "common/pix_omp.h"

// buffers: in (B G R), out (R G B A); ints: width, height.
extern "C" void bgr2rgba_omp(void* const* buffers, const std::int64_t* ints, const double*) {
  const auto* in = static_cast<const std::uint8_t*>(buffers[0]);
  auto* out = static_cast<std::uint8_t*>(buffers[1]);
  const int width = static_cast<int>(ints[0]), height = static_cast<int>(ints[1]);
  pix_for_rows(height, width, [&](int y0, int y1, int x0, int x1) {
    for (int y = y0; y < y1; ++y) {
      const std::uint8_t* src = in + (static_cast<long>(y) * width) * 3;
      std::uint8_t* dst = out + (static_cast<long>(y) * width) * 4;
#pragma omp simd
      for (int x = x0; x < x1; ++x) {
        const std::uint32_t word = src[3 * x + 2] | (std::uint32_t{src[3 * x + 1]} << 8) |
                                   (std::uint32_t{src[3 * x]} << 16) | (std::uint32_t{PIMG_ALPHA} << 24);
        std::memcpy(dst + 4 * x, &word, 4);
      }
    }
  });
}
