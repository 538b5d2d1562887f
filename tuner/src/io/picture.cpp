// Output pictures: bytes in a family's layout to interleaved images, differences highlighted, thumbnails,
// PNG files through Debian's stb_image_write (libstb), and the manifest a report reads.
#include "pimg/picture.hpp"

#include <fmt/format.h>
#include <stb/stb_image_write.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace pimg {
namespace {

std::size_t pixels_of(const PictureShape& s) {
  return static_cast<std::size_t>(s.width) * static_cast<std::size_t>(s.height);
}

void check_shape(const PictureShape& s, std::size_t bytes, const char* what) {
  if (s.width <= 0 || s.height <= 0) throw std::invalid_argument(fmt::format("{}: no pixels", what));
  if (s.channels != 1 && s.channels != 3 && s.channels != 4)
    throw std::invalid_argument(fmt::format("{}: {} channels (1, 3 or 4 can be shown)", what, s.channels));
  if (bytes < pixels_of(s) * static_cast<std::size_t>(s.channels))
    throw std::invalid_argument(fmt::format("{}: {} bytes for a {}x{}x{} picture", what, bytes, s.width, s.height,
                                            s.channels));
}

// Byte c of pixel i in the stored layout.
std::uint8_t sample(const PictureShape& s, std::span<const std::uint8_t> b, std::size_t i, int c) {
  const auto cs = static_cast<std::size_t>(c);
  return s.planar ? b[cs * pixels_of(s) + i] : b[i * static_cast<std::size_t>(s.channels) + cs];
}

}  // namespace

Image to_picture(const PictureShape& s, std::span<const std::uint8_t> bytes) {
  check_shape(s, bytes.size(), "picture");
  Image img{s.width, s.height, s.channels, std::vector<std::uint8_t>(pixels_of(s) * static_cast<std::size_t>(s.channels))};
  const std::size_t n = pixels_of(s);
  for (std::size_t i = 0; i < n; ++i)
    for (int c = 0; c < s.channels; ++c) {
      const int from = s.bgr && s.channels >= 3 && c < 3 ? 2 - c : c;
      img.pixels[i * static_cast<std::size_t>(s.channels) + static_cast<std::size_t>(c)] = sample(s, bytes, i, from);
    }
  return img;
}

Image difference_picture(const PictureShape& s, std::span<const std::uint8_t> expected,
                         std::span<const std::uint8_t> actual, std::size_t* differing) {
  check_shape(s, expected.size(), "reference");
  check_shape(s, actual.size(), "output");
  Image img{s.width, s.height, 3, std::vector<std::uint8_t>(pixels_of(s) * 3)};
  std::size_t count = 0;
  for (std::size_t i = 0; i < pixels_of(s); ++i) {
    int worst = 0, sum = 0;
    for (int c = 0; c < s.channels; ++c) {
      const int e = sample(s, expected, i, c), a = sample(s, actual, i, c);
      worst = std::max(worst, std::abs(e - a));
      sum += e;
    }
    std::uint8_t* px = &img.pixels[i * 3];
    if (worst == 0) {
      const auto grey = static_cast<std::uint8_t>(sum / s.channels / 3);
      px[0] = px[1] = px[2] = grey;
    } else {
      ++count;
      px[0] = static_cast<std::uint8_t>(std::min(255, 96 + worst));
      px[1] = px[2] = 0;
    }
  }
  if (differing) *differing = count;
  return img;
}

Image thumbnail(const Image& img, int max_side) {
  const int big = std::max(img.width, img.height);
  if (big <= max_side) return img;
  const int step = (big + max_side - 1) / max_side;  // whole source pixels per thumbnail pixel
  Image t{std::max(1, img.width / step), std::max(1, img.height / step), img.channels, {}};
  const auto ch = static_cast<std::size_t>(img.channels);
  t.pixels.resize(static_cast<std::size_t>(t.width) * static_cast<std::size_t>(t.height) * ch);
  for (int y = 0; y < t.height; ++y)
    for (int x = 0; x < t.width; ++x)
      for (std::size_t c = 0; c < ch; ++c) {
        unsigned sum = 0;
        for (int dy = 0; dy < step; ++dy)
          for (int dx = 0; dx < step; ++dx)
            sum += img.pixels[(static_cast<std::size_t>(y * step + dy) * static_cast<std::size_t>(img.width) +
                               static_cast<std::size_t>(x * step + dx)) * ch + c];
        t.pixels[(static_cast<std::size_t>(y) * static_cast<std::size_t>(t.width) + static_cast<std::size_t>(x)) * ch +
                 c] = static_cast<std::uint8_t>(sum / static_cast<unsigned>(step * step));
      }
  return t;
}

void write_png(const std::string& path, const Image& img) {
  if (!stbi_write_png(path.c_str(), img.width, img.height, img.channels, img.pixels.data(), img.width * img.channels))
    throw std::runtime_error(fmt::format("{}: cannot write the PNG", path));
}

namespace {
constexpr const char* kManifestHeader = "family\tdevice\tproblem\tkind\tvariant\tconfig\tfile\tthumb\tnote";
std::string field(std::string s) {
  std::replace(s.begin(), s.end(), '\t', ' ');
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}
}  // namespace

std::string pictures_manifest(const std::vector<PictureEntry>& entries) {
  std::string out = std::string(kManifestHeader) + "\n";
  for (const PictureEntry& e : entries)
    out += fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n", field(e.family), field(e.device), field(e.problem),
                       field(e.kind), field(e.variant), field(e.config), field(e.file), field(e.thumb), field(e.note));
  return out;
}

std::vector<PictureEntry> parse_pictures_manifest(const std::string& text) {
  std::vector<PictureEntry> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line == kManifestHeader) continue;
    std::vector<std::string> f;
    std::size_t at = 0;
    for (std::size_t tab; (tab = line.find('\t', at)) != std::string::npos; at = tab + 1) f.push_back(line.substr(at, tab - at));
    f.push_back(line.substr(at));
    if (f.size() != 9) continue;
    out.push_back({f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8]});
  }
  return out;
}

}  // namespace pimg
