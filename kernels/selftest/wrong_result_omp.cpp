// Harness self-test for the OpenMP backend: compiles and runs like conv_omp.cpp but writes a
// slightly wrong result (a correct convolution with the last output byte off by one), which the
// evaluator's validation must catch and store as wrong_result.
#include <cstdint>

#include "conv/conv_rule.h"

// buffers: in, out, weights; ints: width, height, out_width, out_height.
extern "C" void conv_wrong_result_omp(void* const* buffers, const std::int64_t* ints, const double*) {
  const auto* in = static_cast<const std::uint8_t*>(buffers[0]);
  auto* out = static_cast<std::uint8_t*>(buffers[1]);
  const auto* weights = static_cast<const std::int32_t*>(buffers[2]);
  const int width = static_cast<int>(ints[0]), height = static_cast<int>(ints[1]);
  const int out_width = static_cast<int>(ints[2]), out_height = static_cast<int>(ints[3]);
  const int shift = PIMG_BORDER == PIMG_BORDER_VALID ? PIMG_R : 0;
#pragma omp parallel for
  for (int oy = 0; oy < out_height; ++oy)
    for (int ox = 0; ox < out_width; ++ox)
      for (int c = 0; c < PIMG_CHANNELS; ++c) {
        int acc = 0;
        for (int ky = 0; ky < PIMG_K; ++ky)
          for (int kx = 0; kx < PIMG_K; ++kx) {
            int x = ox + shift + kx - PIMG_R, y = oy + shift + ky - PIMG_R;
            if (x < 0 || y < 0 || x >= width || y >= height) {
              if (PIMG_BORDER == PIMG_BORDER_ZERO) continue;
              x = pimg_clamp_int(x, 0, width - 1);
              y = pimg_clamp_int(y, 0, height - 1);
            }
            acc += weights[ky * PIMG_K + kx] * in[pimg_pixel_index(x, y, c, width, height, PIMG_CHANNELS, PIMG_PLANAR)];
          }
        out[pimg_pixel_index(ox, oy, c, out_width, out_height, PIMG_CHANNELS, PIMG_PLANAR)] =
            static_cast<std::uint8_t>(pimg_conv_finish(acc, PIMG_DIVISOR));
      }
  const long last = static_cast<long>(out_width) * out_height * PIMG_CHANNELS - 1;
  out[last] = static_cast<std::uint8_t>(out[last] + 1);
}
