// The hist family: 256-bin histograms of 8-bit images, 1 channel or 3 channels interleaved or planar
// (one histogram per channel), output as uint32 counts channel after channel (kernels/hist/hist_rule.h).
#pragma once
#include <cstdint>
#include <vector>

#include "common/family_contract.hpp"
#include "pimg/family.hpp"

namespace pimg::hist {

struct HistSpec {
  int width = 0, height = 0, channels = 1;
  bool planar = false;  // channel after channel (attribute layout: planar), else interleaved
  std::size_t samples() const { return static_cast<std::size_t>(width) * height * channels; }
  std::size_t bins() const { return 256u * static_cast<std::size_t>(channels); }
};

HistSpec spec_of(const Problem& p);

// The serial CPU reference: out[c * 256 + v] counts the samples of channel c equal to v; the channels
// interleaved, or planes of samples / channels each when `planar`.
void reference(const std::uint8_t* in, std::size_t samples, int channels, bool planar, std::uint32_t* out);

// Seeded pixels for the random inputs of hist and histeq: `uniform` over 0..255 (pix::random_bytes), or
// `peaked` (the sum of four uniform draws in 0..63, a bell around 126 that makes atomics collide: four 6-bit
// fields of a std::mt19937_64 draw, two pixels a draw). Never all zeros.
std::vector<std::uint8_t> random_pixels(std::size_t n, std::uint32_t seed, const std::string& dist);
// The samples of the problem's input: random_pixels, or the image file it names (planar when the problem's
// layout is planar).
std::vector<std::uint8_t> input_pixels(const Problem& p);
// The attributes hist and histeq share: input, seed, dist.
std::vector<AttrSpec> input_attributes();
// Fills defaults, checks seed, dist and size, and takes the size from an image file. Throws AttrError.
void complete_input_attrs(std::map<std::string, std::string>& attrs, int& width, int& height, int channels);

class HistFamily final : public Family {
 public:
  std::string name() const override { return "hist"; }
  PIMG_FAMILY_CONTRACT;
  Traffic traffic(const Problem& p) const override;
  double work(const Problem& p) const override;
};

}  // namespace pimg::hist
