// The rotate family: rotation of an 8-bit image about its centre by an angle in degrees, gather formulation
// (each output pixel computes its source point), nearest or bilinear interpolation, a fixed fill value outside
// the source, 1 or 3 channels, interleaved or planar. The arithmetic is kernels/rotate/rotate_rule.h.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "common/family_contract.hpp"
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
// The rule "scatter" (rotate_rule.h, pimg_rot_scatter_target; nearest only): every source pixel in raster order
// written to its destination, holes the fill value, the last source winning a collision.
void reference_scatter(const RotateSpec& s, const std::uint8_t* in, std::uint8_t* out);

// NPP's nppiRotate rotates about the origin and then shifts: it reads, for output pixel (x, y), the source point
// R(a) ((x, y) + d - shift) - d, R(a) = [[cos, -sin], [sin, cos]] (counterclockwise as displayed for a positive
// angle, as the family's angle), in double from the angle itself (not the family's fixed-point CS and SN). The
// parts of that arithmetic not settled by NPP's documentation are a convention, measured on the GPU by
// tests/cuda RotateNppProbe, which compares every candidate below with NPP's own picks.
struct NppConvention {
  enum Round { kHalfUp, kHalfEven, kFloor, kTruncHalf, kHalfDown };  // floor(s+1/2), rint(s), floor(s), (int)(s+1/2), ceil(s-1/2)
  // picked pixel in the image; s in [0, n-1]; s in [-1/2, n-1/2); picked pixel in the image and s <= n-1 (the
  // asymmetric edge the H100 probe showed: s = -0.47 reads pixel 0, s = n-1+0.05 is left to the fill)
  enum Inside { kPicked, kContinuous, kHalfOpen, kPickedUpTo };
  double centre = 0;      // d: 0 when pixel i's centre is at i, 1/2 when pixel i spans [i, i+1)
  Round round = kHalfUp;  // how the source point becomes a pixel
  Inside inside = kPicked;
  bool single = false;  // the source point in float (coefficients rounded to float, fmaf), not double
  std::string name() const;
};
// The convention rule "npp" follows: the best fit to the H100 probe of 2026-11-23 (4 angles x 33127 picks of a
// 211x157 index image): pixel centres at integers, round half up, inside when the picked pixel is in the image
// and the point is not past the last column or row (s = -0.47 reads pixel 0, s = w-1+0.05 is left to the fill).
// It explains every pick at -17.5, 90 and 123.25 degrees but misses 88 at 30 degrees, all on exact ties
// (s = 127.5 read as 127 and elsewhere as 128): NPP's own float arithmetic decides those, and no candidate here
// (half down: 152 misses) reproduces it, so npp_rotate rows are stored as wrong_result (0.05% of the bytes).
inline constexpr NppConvention kNppConvention{0, NppConvention::kHalfUp, NppConvention::kPickedUpTo, false};
// Every convention the probe tries.
std::vector<NppConvention> npp_conventions();

// The shift nppiRotate receives so that it turns the image about the family's centre ((w-1)/2, (h-1)/2),
// with pixel centres offset by `centre`: shift = c' - R(-a) c', c' = ((w-1)/2 + centre, (h-1)/2 + centre).
std::array<double, 2> npp_shift(int width, int height, double degrees, double centre);

// NPP's nearest-neighbour pick under a convention, for a given angle and the shift actually passed.
struct NppModel {
  int width = 0, height = 0;
  double angle = 0, shift_x = 0, shift_y = 0;
  NppConvention conv;
};
NppModel npp_model(const RotateSpec& s, const NppConvention& conv = kNppConvention);
// The source point NPP computes for output pixel (x, y), in the family's coordinates (pixel centres at integers).
std::array<double, 2> npp_point(const NppModel& m, int x, int y);
// The source pixel's number y w + x NPP reads for output pixel (x, y), or -1 (output left untouched).
int npp_pick(const NppModel& m, int x, int y);
// Rule "npp"'s tolerance, for nearest only. NPP computes its source point in float, so where the exact point lies
// within npp_tie_eps(w, h) = 4 max(w, h) 2^-23 pixel of a rounding edge (k + 1/2) or of the inside test's last
// column or row (n - 1), which side it lands on is NPP's arithmetic, not a rule: npp_picks_within lists the source
// pixels (y w + x, or -1 for the fill) NPP may read there, the rule's own pick first, and compare_rule accepts an
// output pixel that equals any of them (checked against the input), every other pixel exactly.
double npp_tie_eps(int width, int height);
std::vector<int> npp_picks_within(const NppModel& m, int x, int y, double eps);

// Rule "npp". Nearest: kNppConvention's picks, the fill value where NPP reads nothing. Bilinear (a plausible
// reading, neither documented nor yet measured): npp_point in double; outside [0, w-1] x [0, h-1] the fill; inside,
// x0 = floor(sx), x1 = min(x0 + 1, w - 1) (same for y), the real-valued blend rounded half up.
void reference_npp(const RotateSpec& s, const std::uint8_t* in, std::uint8_t* out);

class RotateFamily final : public Family {
 public:
  std::string name() const override { return "rotate"; }
  PIMG_FAMILY_CONTRACT;
  Validation compare_rule(const Problem& p, const Workload& w, std::span<const std::uint8_t> expected,
                          std::span<const std::uint8_t> actual, const std::string& rule) const override;
  Traffic traffic(const Problem& p) const override;
  double work(const Problem& p) const override;
  std::optional<PictureShapes> pictures(const Problem& p) const override;
};

}  // namespace pimg::rotate
