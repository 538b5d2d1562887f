// The conv family: KxK integer convolution of 8-bit images, 1 or 3 channels, interleaved or
// planar, with zero, valid or replicate borders (the rule itself is kernels/conv/conv_rule.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/family_contract.hpp"
#include "pimg/family.hpp"

namespace pimg::conv {

struct ConvSpec {
  int width = 0, height = 0, channels = 1;
  bool planar = false;
  int border = 0;  // PIMG_BORDER_* of conv_rule.h
  int k = 3;
  std::vector<int> weights;  // k*k, row-major
  int divisor = 1;
  int out_width = 0, out_height = 0;
  bool truncate = false;  // rule "truncate": division rounds toward zero (NPP FilterBorder)
  int batch = 1;          // images one after another in the input and the output (seed 003's batch)
  std::size_t in_image_bytes() const { return static_cast<std::size_t>(width) * height * channels; }
  std::size_t out_image_bytes() const { return static_cast<std::size_t>(out_width) * out_height * channels; }
};

ConvSpec spec_of(const Problem& p);

// The most images of a batch (CUDA's grid z extent, where the direct kernels put the image).
inline constexpr int kMaxBatch = 65535;
// The problem's batch attribute (1 when it names none).
int batch_of(const Problem& p);

// The serial CPU reference of one image: the definition every variant is validated against (a batch is
// its images one after another, each computed alone).
// The reference output of one image, of its output rows [y0, y1) (y1 < 0: to the last).
void reference(const ConvSpec& s, const std::uint8_t* in, std::uint8_t* out, int y0 = 0, int y1 = -1);
// One output value of the reference: channel c of output pixel (ox, oy).
std::uint8_t reference_pixel(const ConvSpec& s, const std::uint8_t* in, int ox, int oy, int c);

// Distinct weights and, per tap, its index among them (for the lookup-table variants).
struct DistinctWeights {
  std::vector<int> values;
  std::vector<int> tap_index;
};
DistinctWeights distinct_weights(const std::vector<int>& weights);

// An exact integer factorisation weights[y * k + x] == col[y] * row[x] (a separable filter such as
// gaussian5 = [1 4 6 4 1]^T [1 4 6 4 1]); empty vectors when there is none. Integer sums make the two
// passes bit-identical to the KxK sum.
struct SeparableWeights {
  std::vector<int> col, row;
  bool separable() const { return !row.empty(); }
};
SeparableWeights separable_weights(const std::vector<int>& weights, int k);

// Whether a separable filter can run on two 16-bit lanes per 32-bit word (the `packed` kernels): every
// row and column weight non-negative, the row pass's and the whole sum's largest value plus the rounding
// half under 2^16, the divisor 2^s with s <= 8 (each lane's quotient then sits in its low byte after one
// shift of the whole word), and no quotient over 255 (no saturation needed). Returns s, or -1.
int packed_shift(const SeparableWeights& sep, int divisor);

// Whether the KxK taps can run on two biased 16-bit lanes per 32-bit word (the `simd` kernels,
// kernels/conv/conv_packed.h): the divisor 2^s with s <= 8, 255 x the sum of the negative weights' magnitudes
// at most 2^15 - 256, 255 x the sum of the positive weights plus divisor / 2 at most 2^15 - 1. Returns s, or -1.
int simd_shift(const std::vector<int>& weights, int divisor);

// The one OpenCV call whose 8-bit arithmetic reproduces the conv rule exactly on this problem (rule "opencv":
// the family's own reference; the comparison names the call): cv::filter2D straight to CV_8U for divisor-1
// filters (float sums of integer taps, exact below 2^24, rounded; up to 11x11, past which OpenCV switches to a
// DFT), cv::blur for KxK box filters (integer sums, fixed-point division), cv::GaussianBlur for gaussian5 (its
// bit-exact fixed-point path, which it takes on whole images only: not for border valid). `call` is empty
// when there is none; `why` then says why.
struct OpencvCall {
  enum Kind { none, filter2d, blur, gaussian } kind = none;
  std::string call;  // "cv::filter2D(CV_8U, BORDER_CONSTANT)"
  std::string why;
};
OpencvCall opencv_call(const ConvSpec& s);

class ConvFamily final : public Family {
 public:
  std::string name() const override { return "conv"; }
  PIMG_FAMILY_CONTRACT;
  Validation compare_rule(const Problem& p, const Workload& w, std::span<const std::uint8_t> expected,
                          std::span<const std::uint8_t> actual, const std::string& rule) const override;
  Traffic traffic(const Problem& p) const override;
  double work(const Problem& p) const override;
  std::optional<PictureShapes> pictures(const Problem& p) const override;
};

}  // namespace pimg::conv
