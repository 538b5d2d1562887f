// The maxpool family (seed 003): 2x2 max pooling with stride 2 of 1- or 3-channel images, interleaved or
// planar; output floor(width/2) x floor(height/2), an odd last column or row is not read.
#pragma once
#include <cstdint>

#include "common/pix_common.hpp"

namespace pimg::maxpool {

// The serial reference on `planes` planes of height rows of width pixels of `samples` bytes.
void reference(const std::uint8_t* in, std::uint8_t* out, int width, int height, int planes, int samples);

class MaxpoolFamily final : public pix::LayoutFamily {
 public:
  MaxpoolFamily() : LayoutFamily("maxpool", &maxpool::reference, 2, 2) {}
  // 4 input bytes and 1 output byte per output value, 3 comparisons.
  Traffic traffic(const Problem& p) const override {
    const double out = static_cast<double>(out_width(p)) * out_height(p) * p.channels;
    return {5.0 * out, 3.0 * out};
  }
};

}  // namespace pimg::maxpool
