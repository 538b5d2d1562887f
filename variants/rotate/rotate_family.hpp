// The rotate family: rotation of an 8-bit image about its centre by an angle in degrees, gather formulation
// (each output pixel computes its source point), nearest or bilinear interpolation, a fixed fill value outside
// the source, 1 or 3 channels, interleaved or planar. The arithmetic is kernels/rotate/rotate_rule.h.
#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "pimg/family.hpp"

namespace pimg::rotate {

struct RotateSpec {
  int width = 0, height = 0, channels = 1;
  bool planar = false;
  int interp = 0;  // PIMG_ROT_NEAREST or PIMG_ROT_BILINEAR
  int fill = 0;    // output value where the source lies outside the image
  double angle = 0;
  int cs = 65536, sn = 0;  // round(cos(angle) 2^16), round(sin(angle) 2^16)
};

RotateSpec spec_of(const Problem& p);

// round(cos(a) 2^16) and round(sin(a) 2^16) of an angle in degrees (exact at multiples of 90).
std::array<int, 2> fixed_cos_sin(double degrees);

// The serial reference: the definition every variant is validated against.
void reference(const RotateSpec& s, const std::uint8_t* in, std::uint8_t* out);

// The inverse map (output -> source) cv::warpAffine receives with WARP_INVERSE_MAP: the same rotation as the
// family's, from the same fixed-point cos and sin, in double.
std::array<double, 6> opencv_matrix(const RotateSpec& s);
// Rule "opencv": OpenCV 4.x's own fixed-point warpAffine (INTER_NEAREST: coordinates rounded to 1/1024 and
// then to the nearest pixel; INTER_LINEAR: to 1/32 pixel with 15-bit weights), border constant = the fill.
void reference_opencv(const RotateSpec& s, const std::uint8_t* in, std::uint8_t* out);

class RotateFamily final : public Family {
 public:
  std::string name() const override { return "rotate"; }
  std::vector<AttrSpec> attributes() const override;
  Problem make_problem(int width, int height, int channels, std::map<std::string, std::string> attrs) const override;
  Workload make_workload(const Problem& p) const override;
  std::vector<std::uint8_t> reference(const Problem& p, const Workload& w, const std::string& rule = "") const override;
  Validation compare(const Problem& p, std::span<const std::uint8_t> expected,
                     std::span<const std::uint8_t> actual) const override;
  Traffic traffic(const Problem& p) const override;
  double work(const Problem& p) const override;
};

}  // namespace pimg::rotate
