// The histeq family contract: problem attributes (those of hist: input, seed, dist), the reference
// under kernels/histeq/histeq_rule.h, exact comparison, minimum traffic and MPix/s.
#include "histeq_family.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "common/pix_common.hpp"
#include "hist/hist_family.hpp"
#include "pimg/errors.hpp"

extern "C" {
#include "histeq/histeq_rule.h"
}

namespace pimg::histeq {

void lut_from_hist(const std::uint32_t* hist, std::int64_t total, std::uint8_t* lut) {
  int lo = 0;
  while (lo < 255 && hist[lo] == 0) ++lo;
  std::int64_t cdf = 0;
  for (int v = 0; v < 256; ++v) {
    cdf += hist[v];
    lut[v] = static_cast<std::uint8_t>(pimg_histeq_value(v, lo, static_cast<int>(hist[lo]), static_cast<int>(cdf),
                                                         static_cast<int>(total)));
  }
}

void reference(const std::uint8_t* in, std::size_t n, std::uint8_t* out) {
  std::uint32_t hist[256] = {};
  for (std::size_t i = 0; i < n; ++i) ++hist[in[i]];
  std::uint8_t lut[256];
  lut_from_hist(hist, static_cast<std::int64_t>(n), lut);
  for (std::size_t i = 0; i < n; ++i) out[i] = lut[in[i]];
}

std::vector<AttrSpec> HisteqFamily::attributes() const { return hist::input_attributes(); }

Problem HisteqFamily::make_problem(int width, int height, int channels, std::map<std::string, std::string> attrs) const {
  if (channels != 1) throw AttrError("channels", fmt::format("histeq equalises single-channel images, got {}", channels));
  hist::complete_input_attrs(attrs, width, height, channels);
  return Problem{"histeq", width, height, 1, std::move(attrs)};
}

std::optional<PictureShapes> HisteqFamily::pictures(const Problem& p) const {
  return PictureShapes{{p.width, p.height, 1, false, false}, {p.width, p.height, 1, false, false}};
}

Workload HisteqFamily::make_workload(const Problem& p) const {
  Workload w;
  w.inputs.push_back({"in", hist::input_pixels(p)});
  w.output_bytes = static_cast<std::size_t>(p.width) * p.height;
  w.scalars = {{"width", p.width}, {"height", p.height}, {"pixels", static_cast<std::int64_t>(w.output_bytes)}};
  w.defines = {{"PIMG_CHANNELS", "1"}};
  return w;
}

std::vector<std::uint8_t> HisteqFamily::reference(const Problem&, const Workload& w, const std::string& rule) const {
  PIMG_CHECK(rule.empty(), "histeq has no validation rule '" + rule + "'");
  std::vector<std::uint8_t> out(w.output_bytes);
  histeq::reference(w.input("in").bytes.data(), out.size(), out.data());
  return out;
}

Validation HisteqFamily::compare(const Problem& p, std::span<const std::uint8_t> expected,
                                 std::span<const std::uint8_t> actual) const {
  std::size_t bad = 0, first = 0;
  if (auto verdict = pix::exact_verdict(expected, actual, bad, first)) return *verdict;
  return {false, fmt::format("{} of {} pixels differ; first at x={} y={}: expected {} got {}", bad, expected.size(),
                             first % p.width, first / p.width, expected[first], actual[first])};
}

Traffic HisteqFamily::traffic(const Problem& p) const {
  const double n = static_cast<double>(p.width) * p.height;
  return {2.0 * n, 2.0 * n, n};  // the image read once and written once (pipelines read it twice)
}

double HisteqFamily::work(const Problem& p) const { return static_cast<double>(p.width) * p.height; }

}  // namespace pimg::histeq
