// The maxpool family: its window attribute and the serial reference (the rest of the contract is
// pix::LayoutFamily with the input's size divided by the window).
#include "maxpool_family.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "pimg/errors.hpp"

namespace pimg::maxpool {

int window_of(const Problem& p) {
  const auto it = p.attrs.find("window");
  return it == p.attrs.end() ? 2 : std::stoi(it->second);
}

void reference(const std::uint8_t* in, std::uint8_t* out, int width, int height, int planes, int samples, int window) {
  const int ow = width / window, oh = height / window;
  const std::size_t row = static_cast<std::size_t>(width) * samples;
  for (int p = 0; p < planes; ++p)
    for (int oy = 0; oy < oh; ++oy) {
      const std::uint8_t* top = in + (static_cast<std::size_t>(p) * height + static_cast<std::size_t>(window) * oy) * row;
      std::uint8_t* o = out + (static_cast<std::size_t>(p) * oh + oy) * ow * samples;
      for (int x = 0; x < ow; ++x)
        for (int c = 0; c < samples; ++c) {
          std::uint8_t m = 0;
          for (int dy = 0; dy < window; ++dy)
            for (int dx = 0; dx < window; ++dx)
              m = std::max(m, top[dy * row + static_cast<std::size_t>(window * x + dx) * samples + c]);
          o[x * samples + c] = m;
        }
    }
}

void reference2(const std::uint8_t* in, std::uint8_t* out, int width, int height, int planes, int samples) {
  reference(in, out, width, height, planes, samples, 2);
}

std::vector<AttrSpec> MaxpoolFamily::attributes() const {
  std::vector<AttrSpec> out = LayoutFamily::attributes();
  out.push_back({"window", {"2", "3", "4"}, "2",
                 "pooling window side, stride = window (seed 003: the tree pays off on larger windows)"});
  return out;
}

Problem MaxpoolFamily::make_problem(int width, int height, int channels,
                                    std::map<std::string, std::string> attrs) const {
  if (auto it = attrs.find("window"); it != attrs.end()) {
    if (it->second != "2" && it->second != "3" && it->second != "4")
      throw AttrError("window", fmt::format("'{}' is not 2, 3 or 4", it->second));
  }
  Problem p = LayoutFamily::make_problem(width, height, channels, std::move(attrs));
  if (p.attrs.at("window") == "2") p.attrs.erase("window");
  return p;
}

Workload MaxpoolFamily::make_workload(const Problem& p) const {
  Workload w = LayoutFamily::make_workload(p);
  if (window_of(p) != 2) w.defines["PIMG_WINDOW"] = std::to_string(window_of(p));
  return w;
}

std::vector<std::uint8_t> MaxpoolFamily::reference(const Problem& p, const Workload& w, const std::string& rule) const {
  PIMG_CHECK(rule.empty(), "maxpool has no validation rule '" + rule + "'");
  std::vector<std::uint8_t> out(w.output_bytes);
  maxpool::reference(w.input("in").bytes.data(), out.data(), p.width, p.height, pix::planes_of(p), pix::samples_of(p),
                     window_of(p));
  return out;
}

}  // namespace pimg::maxpool
