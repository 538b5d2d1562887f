// The histeq family: histogram equalisation of 8-bit single-channel images (seed 000): histogram, CDF,
// lookup table, map, under OpenCV's equalizeHist rule (kernels/histeq/histeq_rule.h).
#pragma once
#include <cstdint>
#include <vector>

#include "common/family_contract.hpp"
#include "pimg/family.hpp"

namespace pimg::histeq {

// The lookup table of a 256-bin histogram of `total` pixels under the family's rule.
void lut_from_hist(const std::uint32_t* hist, std::int64_t total, std::uint8_t* lut);

// The serial CPU reference: histogram, lut_from_hist, map.
void reference(const std::uint8_t* in, std::size_t n, std::uint8_t* out);

class HisteqFamily final : public Family {
 public:
  std::string name() const override { return "histeq"; }
  PIMG_FAMILY_CONTRACT;
  Traffic traffic(const Problem& p) const override;
  double work(const Problem& p) const override;
  std::optional<PictureShapes> pictures(const Problem& p) const override;
};

}  // namespace pimg::histeq
