// The flip family (seed 002): mirror an image about its vertical axis, out[y][x] = in[y][width-1-x] for
// every channel, 1 or 3 channels, interleaved or planar. In place and out of place are variants.
#pragma once
#include <cstdint>

#include "common/pix_common.hpp"

namespace pimg::flip {

// The serial reference on `planes` planes of height rows of width pixels of `samples` bytes.
void reference(const std::uint8_t* in, std::uint8_t* out, int width, int height, int planes, int samples);

class FlipFamily final : public pix::LayoutFamily {
 public:
  FlipFamily() : LayoutFamily("flip", &flip::reference, 1, 1) {}
  // Each byte read once and written once.
  Traffic traffic(const Problem& p) const override {
    const double bytes = static_cast<double>(p.width) * p.height * p.channels;
    return {2 * bytes, 0, bytes};  // each byte read once and written once
  }
};

}  // namespace pimg::flip
