// The rotate family contract: problem attributes, seeded input, the reference (and OpenCV's rule), exact
// comparison, minimum traffic and MPix/s.
#include "rotate_family.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "common/pix_common.hpp"
#include "pimg/errors.hpp"
#include "pimg/image_io.hpp"

extern "C" {
#include "rotate/rotate_rule.h"
}

namespace pimg::rotate {
namespace {

int parse_int(const std::string& key, const std::string& text) { return pix::parse_int_attr(key, text); }

double parse_angle(const std::string& text) {
  double v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v))
    throw AttrError("angle", fmt::format("'{}' is not a number of degrees", text));
  if (std::abs(v) > 3600) throw AttrError("angle", fmt::format("{} degrees is outside -3600..3600", text));
  return v;
}

}  // namespace

std::array<int, 2> fixed_cos_sin(double degrees) {
  // Reduce to [0, 360) first so multiples of 90 give exact 0 and +-1.
  double d = std::fmod(degrees, 360.0);
  if (d < 0) d += 360.0;
  if (d == 0) return {65536, 0};
  if (d == 90) return {0, 65536};
  if (d == 180) return {-65536, 0};
  if (d == 270) return {0, -65536};
  const double r = d * std::numbers::pi / 180.0;
  return {static_cast<int>(std::lround(std::cos(r) * 65536.0)), static_cast<int>(std::lround(std::sin(r) * 65536.0))};
}

std::vector<AttrSpec> RotateFamily::attributes() const {
  return {
      {"angle", {}, "30", "rotation in degrees, counterclockwise as displayed, about the image centre"},
      {"interp", {"nearest", "bilinear"}, "nearest",
       "nearest: the source pixel floor(s + 1/2); bilinear: 2x2 taps with 8-bit fixed-point weights"},
      {"layout", {"interleaved", "planar"}, "interleaved", "channel layout of 3-channel images"},
      {"fill", {}, "0", "value (0..255) of output samples whose source lies outside the image"},
      {"input", {}, "random", "random (seeded) or the path of an image file"},
      {"seed", {}, "1107", "random input seed"},
  };
}

Problem RotateFamily::make_problem(int width, int height, int channels, std::map<std::string, std::string> attrs) const {
  for (const auto& spec : attributes())
    if (!attrs.count(spec.name) && !spec.default_value.empty()) attrs[spec.name] = spec.default_value;
  if (channels != 1 && channels != 3) throw AttrError("channels", fmt::format("must be 1 or 3, got {}", channels));
  attrs["angle"] = fmt::format("{}", parse_angle(attrs["angle"]));  // one spelling per angle
  const int fill = parse_int("fill", attrs["fill"]);
  if (fill < 0 || fill > 255) throw AttrError("fill", fmt::format("must be in 0..255, got {}", fill));
  pix::complete_image_size(attrs, width, height);
  const long long big = std::max(width, height), small = std::min(width, height);
  // 32767 would do for the rule itself; the rest leaves kernels room to step a work group past the edge.
  if (2 * big + small > 30000)
    throw AttrError("sizes", fmt::format("image {}x{}: rotate's 32-bit fixed-point coordinates need "
                                         "2*max(w,h) + min(w,h) <= 30000",
                                         width, height));
  if (channels == 1) attrs["layout"] = "interleaved";  // one channel: the layouts coincide
  return Problem{"rotate", width, height, channels, std::move(attrs)};
}

RotateSpec spec_of(const Problem& p) {
  RotateSpec s;
  s.width = p.width;
  s.height = p.height;
  s.channels = p.channels;
  s.planar = p.attr("layout") == "planar";
  s.interp = p.attr("interp") == "bilinear" ? PIMG_ROT_BILINEAR : PIMG_ROT_NEAREST;
  s.fill = parse_int("fill", p.attr("fill"));
  s.angle = parse_angle(p.attr("angle"));
  const auto [cs, sn] = fixed_cos_sin(s.angle);
  s.cs = cs;
  s.sn = sn;
  return s;
}

void reference(const RotateSpec& s, const std::uint8_t* in, std::uint8_t* out) {
  for (int y = 0; y < s.height; ++y)
    for (int x = 0; x < s.width; ++x) {
      const int px = pimg_rot_px(x, y, s.width, s.height, s.cs, s.sn);
      const int py = pimg_rot_py(x, y, s.width, s.height, s.cs, s.sn);
      for (int c = 0; c < s.channels; ++c)
        out[pimg_rot_index(x, y, c, s.width, s.height, s.channels, s.planar)] = static_cast<std::uint8_t>(
            pimg_rot_sample(in, px, py, c, s.width, s.height, s.channels, s.planar, s.interp, s.fill));
    }
}

void reference_scatter(const RotateSpec& s, const std::uint8_t* in, std::uint8_t* out) {
  std::fill(out, out + static_cast<std::size_t>(s.width) * s.height * s.channels, static_cast<std::uint8_t>(s.fill));
  for (int y = 0; y < s.height; ++y)
    for (int x = 0; x < s.width; ++x) {
      const int d = pimg_rot_scatter_target(x, y, s.width, s.height, s.cs, s.sn);
      if (d < 0) continue;
      for (int c = 0; c < s.channels; ++c)
        out[pimg_rot_index(d % s.width, d / s.width, c, s.width, s.height, s.channels, s.planar)] =
            in[pimg_rot_index(x, y, c, s.width, s.height, s.channels, s.planar)];
    }
}

std::array<double, 6> opencv_matrix(const RotateSpec& s) {
  const double c = s.cs / 65536.0, sn = s.sn / 65536.0;
  const double cx = (s.width - 1) / 2.0, cy = (s.height - 1) / 2.0;
  return {c, -sn, cx - c * cx + sn * cy, sn, c, cy - sn * cx - c * cy};
}

void reference_opencv(const RotateSpec& s, const std::uint8_t* in, std::uint8_t* out) {
  // OpenCV 4.x imgwarp.cpp, WarpAffineInvoker: AB_BITS = 10, INTER_BITS = 5; saturate_cast<int>(double)
  // rounds half to even, as lrint does in the default rounding mode.
  constexpr int kAbBits = 10, kInterBits = 5, kTab = 1 << kInterBits;
  const std::array<double, 6> m = opencv_matrix(s);
  const bool nearest = s.interp == PIMG_ROT_NEAREST;
  const int round_delta = nearest ? (1 << kAbBits) / 2 : (1 << kAbBits) / kTab / 2;
  std::vector<int> adelta(s.width), bdelta(s.width);
  for (int x = 0; x < s.width; ++x) {
    adelta[x] = static_cast<int>(std::lrint(m[0] * x * (1 << kAbBits)));
    bdelta[x] = static_cast<int>(std::lrint(m[3] * x * (1 << kAbBits)));
  }
  auto at = [&](int x, int y, int c) -> int {
    if (x < 0 || y < 0 || x >= s.width || y >= s.height) return s.fill;
    return in[pimg_rot_index(x, y, c, s.width, s.height, s.channels, s.planar)];
  };
  for (int y = 0; y < s.height; ++y) {
    const int x0 = static_cast<int>(std::lrint((m[1] * y + m[2]) * (1 << kAbBits))) + round_delta;
    const int y0 = static_cast<int>(std::lrint((m[4] * y + m[5]) * (1 << kAbBits))) + round_delta;
    for (int x = 0; x < s.width; ++x)
      for (int c = 0; c < s.channels; ++c) {
        int v = 0;
        if (nearest) {
          v = at((x0 + adelta[x]) >> kAbBits, (y0 + bdelta[x]) >> kAbBits, c);
        } else {
          const int fxq = (x0 + adelta[x]) >> (kAbBits - kInterBits), fyq = (y0 + bdelta[x]) >> (kAbBits - kInterBits);
          const int sx = fxq >> kInterBits, sy = fyq >> kInterBits, a = fxq & (kTab - 1), b = fyq & (kTab - 1);
          // INTER_LINEAR's 15-bit weights: products of multiples of 1/32, exact.
          const int w00 = (kTab - a) * (kTab - b) * 32, w10 = a * (kTab - b) * 32, w01 = (kTab - a) * b * 32,
                    w11 = a * b * 32;
          v = (at(sx, sy, c) * w00 + at(sx + 1, sy, c) * w10 + at(sx, sy + 1, c) * w01 + at(sx + 1, sy + 1, c) * w11 +
               (1 << 14)) >> 15;
        }
        out[pimg_rot_index(x, y, c, s.width, s.height, s.channels, s.planar)] = static_cast<std::uint8_t>(v);
      }
  }
}

std::string NppConvention::name() const {
  static const char* const rounds[] = {"half_up", "half_even", "floor", "trunc_half", "half_down"};
  static const char* const insides[] = {"picked", "continuous", "half_open", "picked_up_to"};
  return fmt::format("d={} {} {} {}", centre, rounds[round], insides[inside], single ? "float" : "double");
}

std::vector<NppConvention> npp_conventions() {
  std::vector<NppConvention> all;
  for (double centre : {0.0, 0.5})
    for (auto round : {NppConvention::kHalfUp, NppConvention::kHalfEven, NppConvention::kFloor,
                       NppConvention::kTruncHalf, NppConvention::kHalfDown})
      for (auto inside : {NppConvention::kPicked, NppConvention::kContinuous, NppConvention::kHalfOpen,
                          NppConvention::kPickedUpTo})
        for (bool single : {false, true}) all.push_back({centre, round, inside, single});
  return all;
}

namespace {

std::array<double, 2> npp_cos_sin(double degrees) {
  const double r = degrees * std::numbers::pi / 180.0;
  return {std::cos(r), std::sin(r)};
}

}  // namespace

std::array<double, 2> npp_shift(int width, int height, double degrees, double centre) {
  const auto [c, s] = npp_cos_sin(degrees);
  const double cx = (width - 1) / 2.0 + centre, cy = (height - 1) / 2.0 + centre;
  return {cx - (c * cx + s * cy), cy - (-s * cx + c * cy)};
}

NppModel npp_model(const RotateSpec& s, const NppConvention& conv) {
  const auto [sx, sy] = npp_shift(s.width, s.height, s.angle, conv.centre);
  return {s.width, s.height, s.angle, sx, sy, conv};
}

std::array<double, 2> npp_point(const NppModel& m, int x, int y) {
  const auto [c, s] = npp_cos_sin(m.angle);
  const double d = m.conv.centre;
  double sx = 0, sy = 0;  // the source point, pixel centres at integers
  if (m.conv.single) {
    // NPP's point in its own coordinates t = A (x + d, y + d) + b, A and b rounded to float; t - d is exact.
    const float a0 = static_cast<float>(c), a1 = static_cast<float>(-s), b0 = static_cast<float>(-(c * m.shift_x - s * m.shift_y));
    const float a2 = static_cast<float>(s), a3 = static_cast<float>(c), b1 = static_cast<float>(-(s * m.shift_x + c * m.shift_y));
    const float fx = static_cast<float>(x + d), fy = static_cast<float>(y + d);
    sx = static_cast<double>(std::fmaf(a0, fx, std::fmaf(a1, fy, b0))) - d;
    sy = static_cast<double>(std::fmaf(a2, fx, std::fmaf(a3, fy, b1))) - d;
  } else {
    const double dx = x + d - m.shift_x, dy = y + d - m.shift_y;
    sx = c * dx - s * dy - d;
    sy = s * dx + c * dy - d;
  }
  return {sx, sy};
}

int npp_pick(const NppModel& m, int x, int y) {
  const auto [sx, sy] = npp_point(m, x, y);
  auto round = [&](double v) -> double {
    switch (m.conv.round) {
      case NppConvention::kHalfUp: return std::floor(v + 0.5);
      case NppConvention::kHalfEven: return std::nearbyint(v);
      case NppConvention::kFloor: return std::floor(v);
      case NppConvention::kTruncHalf: return std::trunc(v + 0.5);
      case NppConvention::kHalfDown: return std::ceil(v - 0.5);
    }
    return v;
  };
  const double px = round(sx), py = round(sy);
  const double w = m.width, h = m.height;
  if (px < 0 || py < 0 || px >= w || py >= h) return -1;
  if (m.conv.inside == NppConvention::kContinuous && (sx < 0 || sy < 0 || sx > w - 1 || sy > h - 1)) return -1;
  if (m.conv.inside == NppConvention::kHalfOpen && (sx < -0.5 || sy < -0.5 || sx >= w - 0.5 || sy >= h - 0.5))
    return -1;
  if (m.conv.inside == NppConvention::kPickedUpTo && (sx > w - 1 || sy > h - 1)) return -1;
  return static_cast<int>(py) * m.width + static_cast<int>(px);
}

double npp_tie_eps(int width, int height) { return 4.0 * std::max(width, height) * 0x1p-23; }

std::vector<int> npp_picks_within(const NppModel& m, int x, int y, double eps) {
  const auto [sx, sy] = npp_point(m, x, y);
  // The indices along one axis NPP may pick (-1: outside, the fill).
  auto axis = [&](double v, int n) {
    std::vector<int> picks;
    auto add = [&](int i) {
      if (i < 0 || i >= n || v > n - 1 + eps) i = -1;
      if (std::find(picks.begin(), picks.end(), i) == picks.end()) picks.push_back(i);
      if (i >= 0 && v > n - 1 - eps && std::find(picks.begin(), picks.end(), -1) == picks.end()) picks.push_back(-1);
    };
    const double below = std::floor(v);
    if (std::abs(v - below - 0.5) < eps) {
      add(static_cast<int>(below));
      add(static_cast<int>(below) + 1);
    } else {
      add(static_cast<int>(std::floor(v + 0.5)));
    }
    return picks;
  };
  const std::vector<int> xs = axis(sx, m.width), ys = axis(sy, m.height);
  std::vector<int> out{npp_pick(m, x, y)};
  for (int py : ys)
    for (int px : xs) {
      const int n = px < 0 || py < 0 ? -1 : py * m.width + px;
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    }
  return out;
}

void reference_npp(const RotateSpec& s, const std::uint8_t* in, std::uint8_t* out) {
  const NppModel m = npp_model(s);
  auto at = [&](int x, int y, int c) -> double {
    return in[pimg_rot_index(x, y, c, s.width, s.height, s.channels, s.planar)];
  };
  for (int y = 0; y < s.height; ++y)
    for (int x = 0; x < s.width; ++x)
      for (int c = 0; c < s.channels; ++c) {
        int v = s.fill;
        if (s.interp == PIMG_ROT_NEAREST) {
          const int n = npp_pick(m, x, y);
          if (n >= 0) v = static_cast<int>(at(n % s.width, n / s.width, c));
        } else {
          const auto [sx, sy] = npp_point(m, x, y);
          if (sx >= 0 && sy >= 0 && sx <= s.width - 1 && sy <= s.height - 1) {
            const int x0 = static_cast<int>(sx), y0 = static_cast<int>(sy);
            const int x1 = std::min(x0 + 1, s.width - 1), y1 = std::min(y0 + 1, s.height - 1);
            const double fx = sx - x0, fy = sy - y0;
            const double top = at(x0, y0, c) * (1 - fx) + at(x1, y0, c) * fx;
            const double bot = at(x0, y1, c) * (1 - fx) + at(x1, y1, c) * fx;
            v = static_cast<int>(std::floor(top * (1 - fy) + bot * fy + 0.5));
          }
        }
        out[pimg_rot_index(x, y, c, s.width, s.height, s.channels, s.planar)] = static_cast<std::uint8_t>(v);
      }
}

std::optional<PictureShapes> RotateFamily::pictures(const Problem& p) const {
  const RotateSpec s = spec_of(p);
  const PictureShape shape{s.width, s.height, s.channels, s.planar, false};
  return PictureShapes{shape, shape};
}

Workload RotateFamily::make_workload(const Problem& p) const {
  const RotateSpec s = spec_of(p);
  std::vector<std::uint8_t> pixels = pix::image_input(p, s.channels, s.planar);  // seeded random or the image file
  Workload w;
  w.inputs.push_back({"in", std::move(pixels)});
  w.output_bytes = static_cast<std::size_t>(s.width) * s.height * s.channels;
  w.scalars = {{"width", s.width}, {"height", s.height}};
  w.defines = {{"PIMG_CHANNELS", std::to_string(s.channels)}, {"PIMG_PLANAR", s.planar ? "1" : "0"},
               {"PIMG_INTERP", std::to_string(s.interp)},     {"PIMG_FILL", std::to_string(s.fill)},
               {"PIMG_COS", std::to_string(s.cs)},            {"PIMG_SIN", std::to_string(s.sn)}};
  return w;
}

std::vector<std::uint8_t> RotateFamily::reference(const Problem& p, const Workload& w, const std::string& rule) const {
  PIMG_CHECK(rule.empty() || rule == "opencv" || rule == "npp" || rule == "scatter",
             "rotate has no validation rule '" + rule + "'");
  const RotateSpec s = spec_of(p);
  std::vector<std::uint8_t> out(w.output_bytes);
  if (rule == "opencv")
    reference_opencv(s, w.input("in").bytes.data(), out.data());
  else if (rule == "npp")
    reference_npp(s, w.input("in").bytes.data(), out.data());
  else if (rule == "scatter")
    reference_scatter(s, w.input("in").bytes.data(), out.data());
  else
    rotate::reference(s, w.input("in").bytes.data(), out.data());
  return out;
}

Validation RotateFamily::compare(const Problem& p, std::span<const std::uint8_t> expected,
                                 std::span<const std::uint8_t> actual) const {
  const RotateSpec s = spec_of(p);
  return pix::compare_image(expected, actual, s.width, s.height, s.channels, s.planar);
}

Validation RotateFamily::compare_rule(const Problem& p, const Workload& w, std::span<const std::uint8_t> expected,
                                      std::span<const std::uint8_t> actual, const std::string& rule) const {
  Validation exact = compare(p, expected, actual);
  const RotateSpec s = spec_of(p);
  if (exact.ok || rule != "npp" || s.interp != PIMG_ROT_NEAREST || expected.size() != actual.size()) return exact;
  const NppModel m = npp_model(s);
  const double eps = npp_tie_eps(s.width, s.height);
  const std::uint8_t* in = w.input("in").bytes.data();
  auto idx = [&](int x, int y, int c) { return pimg_rot_index(x, y, c, s.width, s.height, s.channels, s.planar); };
  std::size_t ties = 0, bad = 0;
  for (int y = 0; y < s.height; ++y)
    for (int x = 0; x < s.width; ++x) {
      bool same = true;
      for (int c = 0; c < s.channels; ++c) same = same && expected[idx(x, y, c)] == actual[idx(x, y, c)];
      if (same) continue;
      bool explained = false;
      for (int n : npp_picks_within(m, x, y, eps)) {
        bool match = true;
        for (int c = 0; c < s.channels; ++c)
          match = match && actual[idx(x, y, c)] == (n < 0 ? s.fill : in[idx(n % s.width, n / s.width, c)]);
        explained = explained || match;
      }
      (explained ? ties : bad)++;
    }
  if (bad > 0)
    return {false, fmt::format("{} pixels differ away from NPP's float ties; {}", bad, exact.detail)};
  return {true, fmt::format("within NPP's float ties: {} pixels read the other neighbour of a point within "
                            "{:.1e} pixel of a rounding edge",
                            ties, eps)};
}

Traffic RotateFamily::traffic(const Problem& p) const {
  // Each input byte read at most once and each output byte written once: the copy bound.
  const double bytes = static_cast<double>(p.width) * p.height * p.channels;
  return {2 * bytes, 0, bytes};
}

double RotateFamily::work(const Problem& p) const { return static_cast<double>(p.width) * p.height; }

}  // namespace pimg::rotate
