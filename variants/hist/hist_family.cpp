// The hist family contract: problem attributes, seeded input, the counting reference, exact comparison
// of the uint32 bins, minimum traffic and MPix/s; plus the input helpers histeq shares.
#include "hist_family.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <random>

#include "common/pix_common.hpp"
#include "pimg/errors.hpp"
#include "pimg/image_io.hpp"

extern "C" {
#include "hist/hist_rule.h"
}

namespace pimg::hist {

std::vector<AttrSpec> input_attributes() {
  return {
      {"input", {}, "random", "random (seeded) or the path of an image file"},
      {"seed", {}, "1107", "random input seed (the seeds use 1107)"},
      {"dist", {"uniform", "peaked"}, "uniform",
       "random input: uniform over 0..255, or peaked (sum of four draws in 0..63; bins collide)"},
  };
}

void complete_input_attrs(std::map<std::string, std::string>& attrs, int& width, int& height, int channels) {
  for (const auto& spec : input_attributes())
    if (!attrs.count(spec.name)) attrs[spec.name] = spec.default_value;
  const std::string& seed = attrs["seed"];
  unsigned long v = 0;
  auto [ptr, ec] = std::from_chars(seed.data(), seed.data() + seed.size(), v);
  if (ec != std::errc() || ptr != seed.data() + seed.size() || v > 0xffffffffUL)
    throw AttrError("seed", fmt::format("'{}' is not an integer in 0..2^32-1", seed));
  if (attrs["input"] != "random") {
    auto [w, h] = image_size(attrs["input"]);
    width = w;
    height = h;
  }
  if (width <= 0 || height <= 0) throw AttrError("sizes", fmt::format("image size {}x{} is not positive", width, height));
  if (static_cast<long long>(width) * height * channels > (1LL << 31) - 64)
    throw AttrError("sizes", fmt::format("image {}x{}x{} exceeds 2^31 bytes", width, height, channels));
}

std::vector<std::uint8_t> random_pixels(std::size_t n, std::uint32_t seed, const std::string& dist) {
  std::vector<std::uint8_t> out(n);
  if (dist == "peaked") {
    // Two pixels a draw of std::mt19937_64: each the sum of four 6-bit fields of its 24 bits (least significant first).
    std::mt19937_64 rng(seed);
    for (std::size_t i = 0; i < n; i += 2) {
      const std::uint64_t v = rng();
      for (std::size_t k = 0; k < 2 && i + k < n; ++k) {
        const std::uint64_t f = v >> (24 * k);
        out[i + k] = static_cast<std::uint8_t>((f & 63) + ((f >> 6) & 63) + ((f >> 12) & 63) + ((f >> 18) & 63));
      }
    }
  } else {
    pix::random_bytes(out, seed);
  }
  if (n > 0 && out[0] == 0 && std::all_of(out.begin(), out.end(), [](std::uint8_t v) { return v == 0; })) out[0] = 1;
  return out;
}

std::vector<std::uint8_t> input_pixels(const Problem& p) {
  const std::size_t n = static_cast<std::size_t>(p.width) * p.height * p.channels;
  if (p.attr("input") == "random")
    return random_pixels(n, static_cast<std::uint32_t>(std::stoul(p.attr("seed"))), p.attr("dist"));
  Image img = load_image(p.attr("input"), p.channels);
  if (img.width != p.width || img.height != p.height)
    throw UsageError(fmt::format("{}: image is {}x{}, the problem says {}x{}", p.attr("input"), img.width, img.height,
                                 p.width, p.height));
  if (!spec_of(p).planar) return std::move(img.pixels);
  std::vector<std::uint8_t> planes(img.pixels.size());
  const std::size_t pixels = n / static_cast<std::size_t>(p.channels);
  for (std::size_t i = 0; i < pixels; ++i)
    for (std::size_t c = 0; c < static_cast<std::size_t>(p.channels); ++c)
      planes[c * pixels + i] = img.pixels[i * static_cast<std::size_t>(p.channels) + c];
  return planes;
}

HistSpec spec_of(const Problem& p) {
  const auto layout = p.attrs.find("layout");
  return {p.width, p.height, p.channels, layout != p.attrs.end() && layout->second == "planar"};
}

void reference(const std::uint8_t* in, std::size_t samples, int channels, bool planar, std::uint32_t* out) {
  std::memset(out, 0, sizeof(std::uint32_t) * PIMG_HIST_BINS * static_cast<std::size_t>(channels));
  if (channels == 1 || planar) {
    const std::size_t plane = samples / static_cast<std::size_t>(channels);
    for (std::size_t i = 0; i < samples; ++i) ++out[(i / plane) * PIMG_HIST_BINS + in[i]];
    return;
  }
  for (std::size_t i = 0; i + channels <= samples; i += channels)
    for (int c = 0; c < channels; ++c) ++out[PIMG_HIST_SLOT(static_cast<std::size_t>(c), in[i + c], channels)];
}

std::vector<AttrSpec> HistFamily::attributes() const {
  std::vector<AttrSpec> out = input_attributes();
  out.push_back({"layout", {"interleaved", "planar"}, "interleaved",
                 "3 channels interleaved (B G R B G R ...) or planar (seed 002: a plane per channel)"});
  return out;
}

Problem HistFamily::make_problem(int width, int height, int channels, std::map<std::string, std::string> attrs) const {
  if (channels != 1 && channels != 3) throw AttrError("channels", fmt::format("must be 1 or 3, got {}", channels));
  // layout is kept in the problem only when planar (a 3-channel one): interleaved problems keep the identity
  // they had before planar histograms existed, and with one channel the layouts coincide.
  if (auto l = attrs.find("layout"); l != attrs.end()) {
    if (l->second != "interleaved" && l->second != "planar")
      throw AttrError("layout", fmt::format("'{}' is not interleaved or planar", l->second));
    if (l->second == "interleaved" || channels == 1) attrs.erase(l);
  }
  complete_input_attrs(attrs, width, height, channels);
  return Problem{"hist", width, height, channels, std::move(attrs)};
}

Workload HistFamily::make_workload(const Problem& p) const {
  const HistSpec s = spec_of(p);
  Workload w;
  w.inputs.push_back({"in", input_pixels(p)});
  w.output_bytes = s.bins() * sizeof(std::uint32_t);
  w.scalars = {{"width", s.width}, {"height", s.height}, {"channels", s.channels},
               {"samples", static_cast<std::int64_t>(s.samples())}};
  w.defines = {{"PIMG_CHANNELS", std::to_string(s.channels)}};
  if (s.planar) {
    w.defines["PIMG_PLANAR"] = "1";
    w.defines["PIMG_PLANE"] = std::to_string(static_cast<std::int64_t>(s.width) * s.height);
  }
  w.scalars["planar"] = s.planar ? 1 : 0;
  return w;
}

std::vector<std::uint8_t> HistFamily::reference(const Problem& p, const Workload& w, const std::string& rule) const {
  PIMG_CHECK(rule.empty(), "hist has no validation rule '" + rule + "'");
  const HistSpec s = spec_of(p);
  std::vector<std::uint32_t> bins(s.bins());
  hist::reference(w.input("in").bytes.data(), s.samples(), s.channels, s.planar, bins.data());
  std::vector<std::uint8_t> out(bins.size() * sizeof(std::uint32_t));
  std::memcpy(out.data(), bins.data(), out.size());
  return out;
}

Validation HistFamily::compare(const Problem&, std::span<const std::uint8_t> expected,
                               std::span<const std::uint8_t> actual) const {
  if (expected.size() != actual.size())
    return {false, fmt::format("output has {} bytes, expected {}", actual.size(), expected.size())};
  if (std::equal(expected.begin(), expected.end(), actual.begin())) return {true, "exact"};
  const std::size_t n = expected.size() / sizeof(std::uint32_t);
  std::size_t bad = 0, first = 0;
  std::uint32_t e0 = 0, a0 = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t e = 0, a = 0;
    std::memcpy(&e, expected.data() + i * 4, 4);
    std::memcpy(&a, actual.data() + i * 4, 4);
    if (e != a && bad++ == 0) {
      first = i;
      e0 = e;
      a0 = a;
    }
  }
  return {false, fmt::format("{} of {} bins differ; first channel {} bin {}: expected {} got {}", bad, n,
                             first / PIMG_HIST_BINS, first % PIMG_HIST_BINS, e0, a0)};
}

Traffic HistFamily::traffic(const Problem& p) const {
  const HistSpec s = spec_of(p);
  const double bins = 4.0 * static_cast<double>(s.bins());  // the counts written once
  return {static_cast<double>(s.samples()) + bins, static_cast<double>(s.samples()), bins};
}

double HistFamily::work(const Problem& p) const { return static_cast<double>(p.width) * p.height; }

}  // namespace pimg::hist
