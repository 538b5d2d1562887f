// The helpers of pix_common.hpp: input attributes and image input, knob reading, device checks and the
// OpenMP knobs of the bgr2rgba, flip and maxpool families.
#include "pix_common.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <random>

#include "pimg/errors.hpp"
#include "pimg/image_io.hpp"

namespace pimg::pix {

std::vector<AttrSpec> input_attributes() {
  return {
      {"input", {}, "random", "random (seeded) or the path of an image file"},
      {"seed", {}, "1107", "random input seed (the seeds use 1107)"},
  };
}

int parse_int_attr(const std::string& key, const std::string& text, int lo, int hi) {
  int v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size())
    throw AttrError(key, fmt::format("'{}' is not an integer", text));
  if (v < lo || v > hi) throw AttrError(key, fmt::format("{} is outside {}..{}", v, lo, hi));
  return v;
}

void complete_input_attrs(const std::vector<AttrSpec>& specs, std::map<std::string, std::string>& attrs, int& width,
                          int& height) {
  for (const auto& spec : specs)
    if (!attrs.count(spec.name) && !spec.default_value.empty()) attrs[spec.name] = spec.default_value;
  std::uint32_t seed = 0;
  const std::string& s = attrs["seed"];
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), seed);
  if (ec != std::errc() || ptr != s.data() + s.size())
    throw AttrError("seed", fmt::format("'{}' is not an integer in 0..4294967295", s));
  if (attrs["input"] != "random") {
    auto [w, h] = image_size(attrs["input"]);
    width = w;
    height = h;
  }
}

void complete_image_size(std::map<std::string, std::string>& attrs, int& width, int& height) {
  parse_int_attr("seed", attrs["seed"]);
  if (attrs["input"] != "random") {
    auto [w, h] = image_size(attrs["input"]);
    width = w;
    height = h;
  }
  if (width <= 0 || height <= 0) throw AttrError("sizes", fmt::format("image size {}x{} is not positive", width, height));
}

AttrSpec layout_attribute() {
  return {"layout", {"interleaved", "planar"}, "interleaved", "channel layout of 3-channel images"};
}

bool complete_layout(std::map<std::string, std::string>& attrs, int channels) {
  if (channels != 1 && channels != 3) throw AttrError("channels", fmt::format("must be 1 or 3, got {}", channels));
  if (channels == 1) attrs["layout"] = "interleaved";
  return attrs["layout"] == "planar";
}

int planes_of(const Problem& p) { return p.attr("layout") == "planar" ? p.channels : 1; }
int samples_of(const Problem& p) { return p.attr("layout") == "planar" ? 1 : p.channels; }

LaunchPlan layout_host_plan(const std::string& entry, const Problem& p) {
  LaunchPlan plan;
  plan.entry = entry;
  plan.args = {KernelArg::buf("in"),         KernelArg::buf("out"),
               KernelArg::integer(p.width),  KernelArg::integer(p.height),
               KernelArg::integer(planes_of(p)), KernelArg::integer(samples_of(p))};
  return plan;
}

std::vector<AttrSpec> LayoutFamily::attributes() const {
  std::vector<AttrSpec> out = {layout_attribute()};
  for (auto& a : input_attributes()) out.push_back(std::move(a));
  return out;
}

Problem LayoutFamily::make_problem(int width, int height, int channels, std::map<std::string, std::string> attrs) const {
  complete_input_attrs(attributes(), attrs, width, height);
  complete_layout(attrs, channels);
  check_size(width, height, channels);
  Problem p{name_, width, height, channels, std::move(attrs)};
  const int least = std::max(min_size_, shrink(p));
  if (width < least || height < least)
    throw AttrError("sizes", fmt::format("{} needs an image of at least {}x{}, got {}x{}", name_, least, least, width,
                                         height));
  return p;
}

std::optional<PictureShapes> LayoutFamily::pictures(const Problem& p) const {
  const bool planar = p.attr("layout") == "planar";
  return PictureShapes{{p.width, p.height, p.channels, planar, false},
                       {out_width(p), out_height(p), p.channels, planar, false}};
}

Workload LayoutFamily::make_workload(const Problem& p) const {
  const bool planar = p.attr("layout") == "planar";
  Workload w;
  w.inputs.push_back({"in", image_input(p, p.channels, planar)});
  w.output_bytes = static_cast<std::size_t>(out_width(p)) * out_height(p) * p.channels;
  w.scalars = {{"width", p.width}, {"height", p.height}, {"out_width", out_width(p)}, {"out_height", out_height(p)}};
  w.defines = {{"PIMG_CHANNELS", std::to_string(p.channels)}, {"PIMG_PLANAR", planar ? "1" : "0"}};
  return w;
}

std::vector<std::uint8_t> LayoutFamily::reference(const Problem& p, const Workload& w, const std::string& rule) const {
  PIMG_CHECK(rule.empty(), name_ + " has no validation rule '" + rule + "'");
  std::vector<std::uint8_t> out(w.output_bytes);
  ref_(w.input("in").bytes.data(), out.data(), p.width, p.height, planes_of(p), samples_of(p));
  return out;
}

Validation LayoutFamily::compare(const Problem& p, std::span<const std::uint8_t> expected,
                                 std::span<const std::uint8_t> actual) const {
  return compare_image(expected, actual, out_width(p), out_height(p), p.channels, p.attr("layout") == "planar");
}

double LayoutFamily::work(const Problem& p) const { return static_cast<double>(out_width(p)) * out_height(p); }

void check_size(int width, int height, int bytes_per_pixel) {
  if (width <= 0 || height <= 0) throw AttrError("sizes", fmt::format("image size {}x{} is not positive", width, height));
  if (static_cast<long long>(width) * height * bytes_per_pixel > (1LL << 31) - 1)
    throw AttrError("sizes", fmt::format("image {}x{} of {} bytes per pixel exceeds 2^31 - 1 bytes", width, height,
                                         bytes_per_pixel));
}

void random_bytes(std::span<std::uint8_t> out, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::size_t i = 0;
  for (; i + 8 <= out.size(); i += 8) {
    const std::uint64_t v = rng();
    for (int b = 0; b < 8; ++b) out[i + b] = static_cast<std::uint8_t>(v >> (8 * b));
  }
  if (i < out.size()) {
    const std::uint64_t v = rng();
    for (int b = 0; i < out.size(); ++i, ++b) out[i] = static_cast<std::uint8_t>(v >> (8 * b));
  }
}

std::vector<std::uint8_t> image_input(const Problem& p, int channels, bool planar, int images) {
  const std::size_t plane = static_cast<std::size_t>(p.width) * p.height;
  if (images > 1 && p.attr("input") != "random") {
    const std::vector<std::uint8_t> one = image_input(p, channels, planar);
    std::vector<std::uint8_t> all;
    all.reserve(one.size() * static_cast<std::size_t>(images));
    for (int i = 0; i < images; ++i) all.insert(all.end(), one.begin(), one.end());
    return all;
  }
  std::vector<std::uint8_t> pixels(plane * channels * static_cast<std::size_t>(images));
  if (p.attr("input") == "random") {
    random_bytes(pixels, std::stoul(p.attr("seed")));
    return pixels;
  }
  Image img = load_image(p.attr("input"), channels);
  if (img.width != p.width || img.height != p.height)
    throw UsageError(fmt::format("{}: image is {}x{}, the problem says {}x{}", p.attr("input"), img.width, img.height,
                                 p.width, p.height));
  if (!planar) return std::move(img.pixels);
  for (std::size_t i = 0; i < plane; ++i)
    for (int c = 0; c < channels; ++c) pixels[c * plane + i] = img.pixels[i * channels + c];
  return pixels;
}

std::optional<Validation> exact_verdict(std::span<const std::uint8_t> expected, std::span<const std::uint8_t> actual,
                                        std::size_t& bad, std::size_t& first) {
  if (expected.size() != actual.size())
    return Validation{false, fmt::format("output has {} bytes, expected {}", actual.size(), expected.size())};
  if (std::equal(expected.begin(), expected.end(), actual.begin())) return Validation{true, "exact"};  // memcmp speed
  bad = first = 0;
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (expected[i] != actual[i] && bad++ == 0) first = i;
  return std::nullopt;
}

Validation compare_image(std::span<const std::uint8_t> expected, std::span<const std::uint8_t> actual, int width,
                         int height, int channels, bool planar) {
  std::size_t bad = 0, first = 0;
  if (auto verdict = exact_verdict(expected, actual, bad, first)) return *verdict;
  const std::size_t plane = static_cast<std::size_t>(width) * height;
  const std::size_t pix = planar ? first % plane : first / channels;
  const std::size_t c = planar ? first / plane : first % channels;
  return {false, fmt::format("{} of {} bytes differ; first at x={} y={} c={}: expected {} got {}", bad,
                             expected.size(), pix % width, pix / width, c, expected[first], actual[first])};
}

std::vector<ParamDecl> omp_params(bool tiles) {
  std::vector<ParamDecl> out;
  if (tiles) {
    out.push_back(int_range("tile_x", 256, "tile width in output pixels", 1, 1 << 20));
    out.push_back(int_range("tile_y", 16, "tile height in output rows", 1, 1 << 20));
  }
  out.push_back(int_range("threads", 0,
                          "OpenMP threads (num_threads clause); 0 omits the clause (OMP_NUM_THREADS, else one per core)", 0, 1024));
  out.push_back(text_choice("schedule", {"static", "dynamic", "guided"}, "static", "OpenMP loop schedule kind"));
  out.push_back(int_range("chunk", 1, "schedule chunk size in tasks (rows or tiles), at least 1", 1, 1 << 20));
  return out;
}

LaunchPlan omp_plan(const std::string& entry, const PlanContext& x, bool tiles) {
  LaunchPlan plan;
  plan.entry = entry;
  for (const auto& [k, v] : x.workload.defines) plan.defines.emplace_back(k, v);
  std::string schedule = x.text_knob("schedule");
  std::transform(schedule.begin(), schedule.end(), schedule.begin(), [](unsigned char ch) { return std::toupper(ch); });
  plan.defines.emplace_back("DECOMP", tiles ? "1" : "0");
  plan.defines.emplace_back("SCHED", "PIMG_SCHED_" + schedule);
  plan.defines.emplace_back("CHUNK", std::to_string(x.int_knob("chunk")));
  plan.defines.emplace_back("THREADS", std::to_string(x.int_knob("threads")));
  if (tiles) {
    plan.defines.emplace_back("TILE_X", std::to_string(x.int_knob("tile_x")));
    plan.defines.emplace_back("TILE_Y", std::to_string(x.int_knob("tile_y")));
  }
  return plan;
}

std::vector<ParamDecl> block_params(int def_x, int def_y) {
  return {int_range("block_x", def_x, "work-group (thread-block) width", 1, 1024),
          int_range("block_y", def_y, "work-group (thread-block) height", 1, 1024)};
}

std::string gpu_name(const PortableTarget& gpu, const std::string& stem) { return gpu.prefix + "_" + stem; }

}  // namespace pimg::pix
