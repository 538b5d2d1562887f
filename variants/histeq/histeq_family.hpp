// The histeq family: histogram equalisation of 8-bit single-channel images (seed 000): histogram, CDF,
// lookup table, map, under OpenCV's equalizeHist rule (kernels/histeq/histeq_rule.h).
#pragma once
#include <cstdint>
#include <vector>

#include "pimg/family.hpp"

namespace pimg::histeq {

// The lookup table of a 256-bin histogram of `total` pixels under the family's rule.
void lut_from_hist(const std::uint32_t* hist, std::int64_t total, std::uint8_t* lut);

// The serial CPU reference: histogram, lut_from_hist, map.
void reference(const std::uint8_t* in, std::size_t n, std::uint8_t* out);

class HisteqFamily final : public Family {
 public:
  std::string name() const override { return "histeq"; }
  std::vector<AttrSpec> attributes() const override;
  Problem make_problem(int width, int height, int channels, std::map<std::string, std::string> attrs) const override;
  Workload make_workload(const Problem& p) const override;
  std::vector<std::uint8_t> reference(const Problem& p, const Workload& w, const std::string& rule = "") const override;
  Validation compare(const Problem& p, std::span<const std::uint8_t> expected,
                     std::span<const std::uint8_t> actual) const override;
  Traffic traffic(const Problem& p) const override;
  double work(const Problem& p) const override;
  std::optional<PictureShapes> pictures(const Problem& p) const override;
};

}  // namespace pimg::histeq
