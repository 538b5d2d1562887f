// The bgr2rgba family (seed 001): 3-channel B G R interleaved bytes in, 4-channel R G B A out, alpha a
// problem attribute (default 255, what NPP's SwapChannels C3C4R writes with nValue 255 and OpenCV's
// cvtColor BGR2RGBA writes for 8-bit images).
#pragma once
#include <cstdint>
#include <vector>

#include "common/family_contract.hpp"
#include "pimg/family.hpp"

namespace pimg::bgr2rgba {

// The serial reference: out[4q..4q+3] = in[3q+2], in[3q+1], in[3q], alpha for each of n pixels.
void reference(const std::uint8_t* in, std::uint8_t* out, std::size_t n, int alpha);

class Bgr2RgbaFamily final : public Family {
 public:
  std::string name() const override { return "bgr2rgba"; }
  PIMG_FAMILY_CONTRACT;
  Traffic traffic(const Problem& p) const override;
  double work(const Problem& p) const override;
  std::optional<PictureShapes> pictures(const Problem& p) const override;
};

}  // namespace pimg::bgr2rgba
