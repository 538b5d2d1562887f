// The bgr2rgba family contract: attributes (alpha, input, seed), seeded or image-file input, the
// reference, exact comparison, minimum traffic (3 bytes in, 4 out per pixel) and MPix/s.
#include "bgr2rgba_family.hpp"

#include <fmt/format.h>

#include "common/pix_common.hpp"
#include "pimg/errors.hpp"

namespace pimg::bgr2rgba {

void reference(const std::uint8_t* in, std::uint8_t* out, std::size_t n, int alpha) {
  for (std::size_t q = 0; q < n; ++q) {
    out[4 * q + 0] = in[3 * q + 2];
    out[4 * q + 1] = in[3 * q + 1];
    out[4 * q + 2] = in[3 * q + 0];
    out[4 * q + 3] = static_cast<std::uint8_t>(alpha);
  }
}

std::vector<AttrSpec> Bgr2RgbaFamily::attributes() const {
  std::vector<AttrSpec> out = {
      {"alpha", {}, "255", "the alpha byte written to every pixel, 0..255 (255: opaque, as NPP and OpenCV write)"}};
  for (auto& a : pix::input_attributes()) out.push_back(std::move(a));
  return out;
}

Problem Bgr2RgbaFamily::make_problem(int width, int height, int channels,
                                     std::map<std::string, std::string> attrs) const {
  if (channels != 3)
    throw AttrError("channels", fmt::format("bgr2rgba reads 3-channel B G R images: channels must be 3, got {}", channels));
  pix::complete_input_attrs(attributes(), attrs, width, height);
  attrs["alpha"] = std::to_string(pix::parse_int_attr("alpha", attrs["alpha"], 0, 255));
  pix::check_size(width, height, 4);
  return Problem{"bgr2rgba", width, height, 3, std::move(attrs)};
}

std::optional<PictureShapes> Bgr2RgbaFamily::pictures(const Problem& p) const {
  return PictureShapes{{p.width, p.height, 3, false, true}, {p.width, p.height, 4, false, false}};
}

Workload Bgr2RgbaFamily::make_workload(const Problem& p) const {
  Workload w;
  // An image file is decoded as R G B; stored as B G R, the seeds' (and OpenCV's) order.
  std::vector<std::uint8_t> pixels = pix::image_input(p, 3, false);
  if (p.attr("input") != "random")
    for (std::size_t q = 0; q + 2 < pixels.size(); q += 3) std::swap(pixels[q], pixels[q + 2]);
  w.inputs.push_back({"in", std::move(pixels)});
  w.output_bytes = static_cast<std::size_t>(p.width) * p.height * 4;
  w.scalars = {{"width", p.width}, {"height", p.height}};
  w.defines = {{"PIMG_ALPHA", p.attr("alpha")}};
  return w;
}

std::vector<std::uint8_t> Bgr2RgbaFamily::reference(const Problem& p, const Workload& w, const std::string& rule) const {
  PIMG_CHECK(rule.empty(), "bgr2rgba has no validation rule '" + rule + "'");
  std::vector<std::uint8_t> out(w.output_bytes);
  bgr2rgba::reference(w.input("in").bytes.data(), out.data(), static_cast<std::size_t>(p.width) * p.height,
                      std::stoi(p.attr("alpha")));
  return out;
}

Validation Bgr2RgbaFamily::compare(const Problem& p, std::span<const std::uint8_t> expected,
                                   std::span<const std::uint8_t> actual) const {
  return pix::compare_image(expected, actual, p.width, p.height, 4, false);
}

Traffic Bgr2RgbaFamily::traffic(const Problem& p) const {
  return {7.0 * p.width * p.height, 0, 4.0 * p.width * p.height};  // 3 bytes read, 4 written per pixel
}

double Bgr2RgbaFamily::work(const Problem& p) const { return static_cast<double>(p.width) * p.height; }

}  // namespace pimg::bgr2rgba
