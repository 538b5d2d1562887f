// The conv family contract: problem attributes, seeded input, the reference, exact comparison,
// minimum traffic and MPix/s.
#include "conv_family.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <thread>

#include "common/pix_common.hpp"
#include "pimg/errors.hpp"
#include "pimg/image_io.hpp"

extern "C" {
#include "conv/conv_rule.h"
}

namespace pimg::conv {
namespace {

struct NamedFilter {
  const char* name;
  int k;
  std::vector<int> weights;
  int divisor;
};

const std::vector<NamedFilter>& named_filters() {
  static const std::vector<NamedFilter> filters = {
      // seed 000's sharpening filter
      {"sharpen3", 3, {0, -1, 0, -1, 5, -1, 0, -1, 0}, 1},
      // seed 003's 5x5 Gaussian as the integer binomial [1 4 6 4 1]^T [1 4 6 4 1] / 256
      {"gaussian5", 5, {1, 4, 6, 4, 1, 4, 16, 24, 16, 4, 6, 24, 36, 24, 6, 4, 16, 24, 16, 4, 1, 4, 6, 4, 1}, 256},
      {"box3", 3, {1, 1, 1, 1, 1, 1, 1, 1, 1}, 9},
  };
  return filters;
}

int parse_int(const std::string& key, const std::string& text) { return pix::parse_int_attr(key, text); }

// "a,b,c;d,e,f;g,h,i" -> k and row-major weights; rows must be square and odd-sized.
std::vector<int> parse_matrix(const std::string& text, int& k) {
  std::vector<std::vector<int>> rows(1);
  std::string cell;
  auto flush = [&] {
    std::string t;
    for (char c : cell)
      if (c != ' ') t += c;
    if (t.empty()) throw AttrError("weights", "empty matrix entry");
    rows.back().push_back(parse_int("weights", t));
    cell.clear();
  };
  for (char c : text) {
    if (c == ',') {
      flush();
    } else if (c == ';') {
      flush();
      rows.emplace_back();
    } else {
      cell += c;
    }
  }
  flush();
  k = static_cast<int>(rows.size());
  if (k % 2 == 0 || k > 31)
    throw AttrError("weights", fmt::format("the matrix must be KxK with K odd and at most 31, got {} rows", k));
  std::vector<int> out;
  for (const auto& r : rows) {
    if (static_cast<int>(r.size()) != k)
      throw AttrError("weights", fmt::format("row of {} values in a {}x{} matrix", r.size(), k, k));
    out.insert(out.end(), r.begin(), r.end());
  }
  return out;
}

std::string matrix_text(const std::vector<int>& w, int k) {
  std::string out;
  for (int i = 0; i < k * k; ++i) {
    if (i) out += (i % k == 0) ? ";" : ",";
    out += std::to_string(w[i]);
  }
  return out;
}

std::vector<std::uint8_t> int32_bytes(const std::vector<int>& v) {
  std::vector<std::uint8_t> out(v.size() * 4);
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

}  // namespace

std::vector<AttrSpec> ConvFamily::attributes() const {
  return {
      {"filter", {"sharpen3", "gaussian5", "box3", "custom"}, "sharpen3",
       "named filter, or custom with weights and divisor"},
      {"weights", {}, "", "custom filter: KxK integer matrix (K odd), as a YAML list of rows"},
      {"divisor", {}, "", "custom filter: positive integer the sum is divided by (rounded half away from zero)"},
      {"layout", {"interleaved", "planar"}, "interleaved", "channel layout of 3-channel images"},
      {"border", {"zero", "valid", "replicate"}, "zero",
       "zero padding (seed 003), valid output only (seed 000), or replicated edges"},
      {"input", {}, "random", "random (seeded) or the path of an image file"},
      {"seed", {}, "1107", "random input seed (the seeds use 1107)"},
      {"batch", {}, "1",
       "images in one launch (seed 003: 20), one after another in the input and the output, each validated; "
       "batches run on cl_direct, cuda_direct (wide 0), the OpenMP variants, serial and pthread_rows"},
  };
}

int batch_of(const Problem& p) {
  const auto it = p.attrs.find("batch");
  return it == p.attrs.end() ? 1 : parse_int("batch", it->second);
}

Problem ConvFamily::make_problem(int width, int height, int channels,
                                 std::map<std::string, std::string> attrs) const {
  for (const auto& spec : attributes())
    if (!attrs.count(spec.name) && !spec.default_value.empty()) attrs[spec.name] = spec.default_value;
  if (channels != 1 && channels != 3) throw AttrError("channels", fmt::format("must be 1 or 3, got {}", channels));
  const std::string& filter = attrs["filter"];
  int k = 0;
  std::vector<int> weights;
  int divisor = 0;
  if (filter == "custom") {
    if (!attrs.count("weights") || attrs["weights"].empty())
      throw AttrError("filter", "filter: custom needs weights (a KxK list of rows)");
    weights = parse_matrix(attrs["weights"], k);
    if (!attrs.count("divisor") || attrs["divisor"].empty()) throw AttrError("filter", "filter: custom needs a divisor");
    divisor = parse_int("divisor", attrs["divisor"]);
  } else {
    auto it = std::find_if(named_filters().begin(), named_filters().end(),
                           [&](const NamedFilter& f) { return filter == f.name; });
    if (it == named_filters().end()) throw AttrError("filter", fmt::format("unknown filter '{}'", filter));
    if (attrs.count("weights") || attrs.count("divisor"))
      throw AttrError(attrs.count("weights") ? "weights" : "divisor",
                      fmt::format("weights and divisor belong to filter: custom, not '{}'", filter));
    k = it->k;
    weights = it->weights;
    divisor = it->divisor;
  }
  if (divisor <= 0) throw AttrError("divisor", fmt::format("must be a positive integer, got {}", divisor));
  long long worst = 0;
  for (int w : weights) worst += 255LL * std::abs(w);
  if (worst > 2000000000LL) throw AttrError("weights", "weights too large: the sum could overflow 32-bit integers");
  attrs["weights"] = matrix_text(weights, k);
  attrs["divisor"] = std::to_string(divisor);
  pix::complete_image_size(attrs, width, height);
  if (static_cast<long long>(width) * height * channels > (1LL << 31))
    throw AttrError("sizes", fmt::format("image {}x{}x{} exceeds 2^31 bytes", width, height, channels));
  if (attrs["border"] == "valid" && (width < k || height < k))
    throw AttrError("border", fmt::format("valid border needs an image of at least {}x{}", k, k));
  if (channels == 1) attrs["layout"] = "interleaved";  // one channel: the layouts coincide
  const int batch = parse_int("batch", attrs["batch"]);
  if (batch < 1 || batch > kMaxBatch)
    throw AttrError("batch", fmt::format("must be 1..{} images (the grid's z extent), got {}", kMaxBatch, batch));
  if (static_cast<long long>(width) * height * channels * batch > (1LL << 31))
    throw AttrError("batch", fmt::format("{} images of {}x{}x{} exceed 2^31 bytes", batch, width, height, channels));
  if (batch == 1) attrs.erase("batch");  // one image: the problem as it was before batches
  Problem p{"conv", width, height, channels, std::move(attrs)};
  return p;
}

ConvSpec spec_of(const Problem& p) {
  ConvSpec s;
  s.width = p.width;
  s.height = p.height;
  s.channels = p.channels;
  s.planar = p.attr("layout") == "planar";
  const std::string& b = p.attr("border");
  s.border = b == "zero" ? PIMG_BORDER_ZERO : b == "valid" ? PIMG_BORDER_VALID : PIMG_BORDER_REPLICATE;
  s.weights = parse_matrix(p.attr("weights"), s.k);
  s.divisor = parse_int("divisor", p.attr("divisor"));
  s.out_width = s.border == PIMG_BORDER_VALID ? s.width - s.k + 1 : s.width;
  s.out_height = s.border == PIMG_BORDER_VALID ? s.height - s.k + 1 : s.height;
  s.batch = batch_of(p);
  return s;
}

std::uint8_t reference_pixel(const ConvSpec& s, const std::uint8_t* in, int ox, int oy, int c) {
  const int r = s.k / 2;
  const int cx = s.border == PIMG_BORDER_VALID ? ox + r : ox;
  const int cy = s.border == PIMG_BORDER_VALID ? oy + r : oy;
  int acc = 0;
  for (int ky = 0; ky < s.k; ++ky)
    for (int kx = 0; kx < s.k; ++kx) {
      int x = cx + kx - r, y = cy + ky - r;
      if (x < 0 || y < 0 || x >= s.width || y >= s.height) {
        if (s.border == PIMG_BORDER_ZERO) continue;
        x = pimg_clamp_int(x, 0, s.width - 1);
        y = pimg_clamp_int(y, 0, s.height - 1);
      }
      acc += s.weights[ky * s.k + kx] * in[pimg_pixel_index(x, y, c, s.width, s.height, s.channels, s.planar)];
    }
  return static_cast<std::uint8_t>(s.truncate ? pimg_saturate_u8(acc / s.divisor) : pimg_conv_finish(acc, s.divisor));
}

void reference(const ConvSpec& s, const std::uint8_t* in, std::uint8_t* out, int y0, int y1) {
  if (y1 < 0) y1 = s.out_height;
  for (int c = 0; c < s.channels; ++c)
    for (int oy = y0; oy < y1; ++oy)
      for (int ox = 0; ox < s.out_width; ++ox)
        out[pimg_pixel_index(ox, oy, c, s.out_width, s.out_height, s.channels, s.planar)] =
            reference_pixel(s, in, ox, oy, c);
}

DistinctWeights distinct_weights(const std::vector<int>& weights) {
  DistinctWeights d;
  for (int w : weights) {
    auto it = std::find(d.values.begin(), d.values.end(), w);
    if (it == d.values.end()) {
      d.tap_index.push_back(static_cast<int>(d.values.size()));
      d.values.push_back(w);
    } else {
      d.tap_index.push_back(static_cast<int>(it - d.values.begin()));
    }
  }
  return d;
}

SeparableWeights separable_weights(const std::vector<int>& weights, int k) {
  PIMG_CHECK(static_cast<int>(weights.size()) == k * k, "weights are not k x k");
  // The first non-zero row, divided by the gcd of its entries, is the row factor (sign of its first
  // non-zero entry positive); each row must then be an integer multiple of it.
  int r0 = -1;
  for (int y = 0; y < k && r0 < 0; ++y)
    for (int x = 0; x < k; ++x)
      if (weights[y * k + x] != 0) {
        r0 = y;
        break;
      }
  if (r0 < 0) return {};
  std::vector<int> row(weights.begin() + r0 * k, weights.begin() + (r0 + 1) * k);
  int g = 0, lead = 0;
  for (int v : row) {
    g = std::gcd(g, v);
    if (lead == 0) lead = v;
  }
  for (int& v : row) v = (lead < 0 ? -v : v) / g;
  int x0 = 0;
  while (row[x0] == 0) ++x0;
  SeparableWeights out;
  out.col.resize(k);
  for (int y = 0; y < k; ++y) {
    const int w0 = weights[y * k + x0];
    if (w0 % row[x0] != 0) return {};
    out.col[y] = w0 / row[x0];
    for (int x = 0; x < k; ++x)
      if (weights[y * k + x] != out.col[y] * row[x]) return {};
  }
  out.row = std::move(row);
  return out;
}

int packed_shift(const SeparableWeights& sep, int divisor) {
  if (!sep.separable()) return -1;
  long row_sum = 0, col_sum = 0;
  for (int v : sep.row) {
    if (v < 0) return -1;
    row_sum += v;
  }
  for (int v : sep.col) {
    if (v < 0) return -1;
    col_sum += v;
  }
  int s = 0;
  while (s <= 8 && (1 << s) != divisor) ++s;
  if (s > 8) return -1;
  const long half = divisor / 2, top = row_sum * col_sum * 255 + half;
  if (row_sum * 255 > 0xffff || top > 0xffff || (top >> s) > 255) return -1;
  return s;
}

// Every lane's biased sum 2^15 + divisor/2 + sum then lies in [256, 2^16) (conv_packed.h).
int simd_shift(const std::vector<int>& weights, int divisor) {
  long pos = 0, neg = 0;
  for (int v : weights) (v > 0 ? pos : neg) += std::abs(static_cast<long>(v));
  int s = 0;
  while (s <= 8 && (1 << s) != divisor) ++s;
  if (s > 8) return -1;
  if (neg * 255 > 0x8000 - 256 || pos * 255 + divisor / 2 > 0x7fff) return -1;
  return s;
}

// A batch is pictured by its first image.
std::optional<PictureShapes> ConvFamily::pictures(const Problem& p) const {
  const ConvSpec s = spec_of(p);
  return PictureShapes{{s.width, s.height, s.channels, s.planar, false},
                       {s.out_width, s.out_height, s.channels, s.planar, false}};
}

Workload ConvFamily::make_workload(const Problem& p) const {
  const ConvSpec s = spec_of(p);
  Workload w;
  // Seeded random (a batch continues the one stream) or the image file (in every image of a batch).
  std::vector<std::uint8_t> pixels = pix::image_input(p, s.channels, s.planar, s.batch);
  const DistinctWeights d = distinct_weights(s.weights);
  std::vector<int> lut(d.values.size() * 256);
  for (std::size_t i = 0; i < d.values.size(); ++i)
    for (int v = 0; v < 256; ++v) lut[i * 256 + v] = d.values[i] * v;

  w.inputs.push_back({"in", std::move(pixels)});
  w.inputs.push_back({"weights", int32_bytes(s.weights)});
  w.inputs.push_back({"taps", int32_bytes(d.tap_index)});
  w.inputs.push_back({"lut", int32_bytes(lut)});
  w.output_bytes = s.out_image_bytes() * static_cast<std::size_t>(s.batch);
  w.scalars = {{"width", s.width}, {"height", s.height}, {"out_width", s.out_width}, {"out_height", s.out_height},
               {"batch", s.batch}};
  auto list = [](const std::vector<int>& v) {
    std::string out;
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + std::to_string(v[i]);
    return out;
  };
  w.defines = {{"PIMG_K", std::to_string(s.k)},
               {"PIMG_R", std::to_string(s.k / 2)},
               {"PIMG_CHANNELS", std::to_string(s.channels)},
               {"PIMG_PLANAR", s.planar ? "1" : "0"},
               {"PIMG_BORDER", std::to_string(s.border)},
               {"PIMG_DIVISOR", std::to_string(s.divisor)},
               {"PIMG_WEIGHTS", list(s.weights)},
               {"PIMG_NDISTINCT", std::to_string(d.values.size())},
               {"PIMG_TAPS", list(d.tap_index)}};
  if (s.batch > 1) w.defines["PIMG_BATCH"] = std::to_string(s.batch);
  const SeparableWeights sep = separable_weights(s.weights, s.k);
  w.defines["PIMG_SEPARABLE"] = sep.separable() ? "1" : "0";
  if (sep.separable()) {
    w.defines["PIMG_COL_WEIGHTS"] = list(sep.col);
    w.defines["PIMG_ROW_WEIGHTS"] = list(sep.row);
  }
  const int shift = packed_shift(sep, s.divisor);
  w.defines["PIMG_PACKED"] = shift >= 0 ? "1" : "0";
  if (shift >= 0) w.defines["PIMG_PACK_SHIFT"] = std::to_string(shift);
  const int simd = simd_shift(s.weights, s.divisor);
  w.defines["PIMG_SIMD"] = simd >= 0 ? "1" : "0";
  if (simd >= 0) w.defines["PIMG_SIMD_SHIFT"] = std::to_string(simd);
  return w;
}

std::vector<std::uint8_t> ConvFamily::reference(const Problem& p, const Workload& w, const std::string& rule) const {
  ConvSpec s = spec_of(p);
  PIMG_CHECK(rule.empty() || rule == "truncate" || rule == "opencv", "conv has no validation rule '" + rule + "'");
  s.truncate = rule == "truncate";
  std::vector<std::uint8_t> out(w.output_bytes);
  const std::uint8_t* in = w.input("in").bytes.data();
  // Every output pixel is independent: bands of rows of every image of a batch are computed on every core (the
  // seed's 20 images of 4096x2304 are 20 times one image's reference; one 8192x8192 image took 2 s on one core).
  constexpr int kBand = 64;
  const int bands = (s.out_height + kBand - 1) / kBand;
  const int units = s.batch * bands;
  std::atomic<int> next{0};
  auto work = [&] {
    for (int u = next++; u < units; u = next++) {
      const int i = u / bands, y0 = (u % bands) * kBand;
      conv::reference(s, in + i * s.in_image_bytes(), out.data() + i * s.out_image_bytes(), y0,
                      std::min(y0 + kBand, s.out_height));
    }
  };
  const int helpers = std::min(units, static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))) - 1;
  std::vector<std::thread> threads;
  for (int t = 0; t < helpers; ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  return out;
}

Validation ConvFamily::compare(const Problem& p, std::span<const std::uint8_t> expected,
                               std::span<const std::uint8_t> actual) const {
  std::size_t bad = 0, first = 0;
  if (auto verdict = pix::exact_verdict(expected, actual, bad, first)) return *verdict;
  const ConvSpec s = spec_of(p);
  // Locate the first mismatch as (image of a batch, x, y, channel) in the output's layout.
  const std::size_t image = first / s.out_image_bytes(), at = first % s.out_image_bytes();
  std::size_t plane = static_cast<std::size_t>(s.out_width) * s.out_height;
  std::size_t pix = s.planar ? at % plane : at / s.channels;
  int c = static_cast<int>(s.planar ? at / plane : at % s.channels);
  return {false, fmt::format("{} of {} bytes differ; first at {}x={} y={} c={}: expected {} got {}", bad,
                             expected.size(), s.batch > 1 ? fmt::format("image {} ", image) : "", pix % s.out_width,
                             pix / s.out_width, c, expected[first], actual[first])};
}

OpencvCall opencv_call(const ConvSpec& s) {
  const char* border = s.border == PIMG_BORDER_ZERO        ? "BORDER_CONSTANT"
                       : s.border == PIMG_BORDER_REPLICATE ? "BORDER_REPLICATE"
                                                           : "the interior window, no border read";
  OpencvCall c;
  long long taps = 0;
  for (int w : s.weights) taps += std::abs(w);
  const bool ones = std::all_of(s.weights.begin(), s.weights.end(), [](int w) { return w == 1; });
  const NamedFilter& gauss = *std::find_if(named_filters().begin(), named_filters().end(),
                                           [](const NamedFilter& f) { return std::string(f.name) == "gaussian5"; });
  if (s.divisor == 1 && s.k <= 11 && taps * 255 < (1LL << 24)) {
    c.kind = OpencvCall::filter2d;
    c.call = fmt::format("cv::filter2D(CV_8U, {})", border);
  } else if (ones && s.divisor == s.k * s.k) {
    c.kind = OpencvCall::blur;
    c.call = fmt::format("cv::blur({}x{}, {})", s.k, s.k, border);
  } else if (s.k == gauss.k && s.weights == gauss.weights && s.divisor == gauss.divisor) {
    if (s.border == PIMG_BORDER_VALID) {
      c.why = "cv::GaussianBlur leaves its bit-exact path on a window of an image, which border valid needs";
    } else {
      c.kind = OpencvCall::gaussian;
      c.call = fmt::format("cv::GaussianBlur(5x5, sigma 0, {})", border);
    }
  } else if (s.divisor == 1) {
    c.why = s.k > 11 ? "cv::filter2D computes filters larger than 11x11 through a DFT, not exactly"
                     : "the sums may exceed 2^24, past float's exact integers in cv::filter2D";
  } else {
    c.why = fmt::format("no 8-bit OpenCV call divides by {} with the conv rule's rounding", s.divisor);
  }
  return c;
}

Validation ConvFamily::compare_rule(const Problem& p, const Workload&, std::span<const std::uint8_t> expected,
                                    std::span<const std::uint8_t> actual, const std::string& rule) const {
  Validation v = compare(p, expected, actual);
  if (v.ok && rule == "opencv") v.detail += ", " + opencv_call(spec_of(p)).call;
  return v;
}

Traffic ConvFamily::traffic(const Problem& p) const {
  const ConvSpec s = spec_of(p);
  double in = static_cast<double>(s.in_image_bytes()) * s.batch;
  double out = static_cast<double>(s.out_image_bytes()) * s.batch;
  return {in + out, 2.0 * s.k * s.k * out, out};
}

double ConvFamily::work(const Problem& p) const {
  const ConvSpec s = spec_of(p);
  return static_cast<double>(s.out_width) * s.out_height * s.batch;
}

}  // namespace pimg::conv
