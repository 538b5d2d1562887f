// The flip family's serial reference (the contract is pix::LayoutFamily with the output the input's size).
#include "flip_family.hpp"

namespace pimg::flip {

void reference(const std::uint8_t* in, std::uint8_t* out, int width, int height, int planes, int samples) {
  const std::size_t row = static_cast<std::size_t>(width) * samples;
  for (std::size_t r = 0; r < static_cast<std::size_t>(planes) * height; ++r)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < samples; ++c) out[r * row + x * samples + c] = in[r * row + (width - 1 - x) * samples + c];
}

}  // namespace pimg::flip
