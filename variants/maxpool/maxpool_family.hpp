// The maxpool family (seed 003): max pooling over a `window` x `window` square (2, 3 or 4; stride = window)
// of 1- or 3-channel images, interleaved or planar; output floor(width/window) x floor(height/window), the
// columns and rows after the last whole window are not read.
#pragma once
#include <cstdint>

#include "common/pix_common.hpp"

namespace pimg::maxpool {

// The window side of a problem (attribute window; 2 when absent).
int window_of(const Problem& p);

// The serial reference on `planes` planes of height rows of width pixels of `samples` bytes, `window` x
// `window` windows at stride `window`.
void reference(const std::uint8_t* in, std::uint8_t* out, int width, int height, int planes, int samples,
               int window = 2);
// The 2x2 reference in LayoutFamily's signature.
void reference2(const std::uint8_t* in, std::uint8_t* out, int width, int height, int planes, int samples);

class MaxpoolFamily final : public pix::LayoutFamily {
 public:
  MaxpoolFamily() : LayoutFamily("maxpool", &maxpool::reference2, 2, 2) {}
  std::vector<AttrSpec> attributes() const override;
  // window is kept in a problem only when it is not 2, so 2x2 problems keep the identity they had before
  // larger windows existed.
  Problem make_problem(int width, int height, int channels, std::map<std::string, std::string> attrs) const override;
  // PIMG_WINDOW is defined for windows other than 2 (the kernels' default).
  Workload make_workload(const Problem& p) const override;
  std::vector<std::uint8_t> reference(const Problem& p, const Workload& w, const std::string& rule = "") const override;
  // window^2 input bytes and 1 output byte per output value, window^2 - 1 comparisons.
  Traffic traffic(const Problem& p) const override {
    const double out = static_cast<double>(out_width(p)) * out_height(p) * p.channels;
    const double k = window_of(p);
    return {(k * k + 1) * out, (k * k - 1) * out, out};
  }

 protected:
  int shrink(const Problem& p) const override { return window_of(p); }
};

}  // namespace pimg::maxpool
