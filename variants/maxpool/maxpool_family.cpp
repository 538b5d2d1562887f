// The maxpool family's serial reference (the contract is pix::LayoutFamily with half the input's size).
#include "maxpool_family.hpp"

#include <algorithm>

namespace pimg::maxpool {

void reference(const std::uint8_t* in, std::uint8_t* out, int width, int height, int planes, int samples) {
  const int ow = width / 2, oh = height / 2;
  const std::size_t row = static_cast<std::size_t>(width) * samples;
  for (int p = 0; p < planes; ++p)
    for (int oy = 0; oy < oh; ++oy) {
      const std::uint8_t* in0 = in + (static_cast<std::size_t>(p) * height + 2 * oy) * row;
      const std::uint8_t* in1 = in0 + row;
      std::uint8_t* o = out + (static_cast<std::size_t>(p) * oh + oy) * ow * samples;
      for (int x = 0; x < ow; ++x)
        for (int c = 0; c < samples; ++c)
          o[x * samples + c] = std::max({in0[2 * x * samples + c], in0[(2 * x + 1) * samples + c],
                                         in1[2 * x * samples + c], in1[(2 * x + 1) * samples + c]});
    }
}

}  // namespace pimg::maxpool
