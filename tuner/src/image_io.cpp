// Image decoding through Debian's stb (libstb), with errors that name the file, and our own check
// that the formats stb reads past their end (PNM, BMP, JPEG) are complete.
#include "pimg/image_io.hpp"

#include <fmt/format.h>
#include <stb/stb_image.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

#include "pimg/errors.hpp"

namespace pimg {
namespace {

constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t{1} << 30;

std::vector<std::uint8_t> read_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw UsageError(fmt::format("{}: no such image file", path));
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) throw UsageError(fmt::format("{}: cannot read image file ({})", path, ec.message()));
  if (size == 0) throw UsageError(fmt::format("{}: empty image file", path));
  if (size > kMaxFileBytes)
    throw UsageError(fmt::format("{}: image file of {} bytes is too large (at most {})", path, size, kMaxFileBytes));
  std::vector<std::uint8_t> bytes(size);
  std::ifstream in(path, std::ios::binary);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size)))
    throw UsageError(fmt::format("{}: cannot read image file", path));
  return bytes;
}

// Binary PNM (P5 grey, P6 RGB): header "Pn W H MAX" with comments, one whitespace, then the pixels.
void check_pnm(std::span<const std::uint8_t> b, const std::string& label) {
  if (b.size() < 2 || b[0] != 'P' || (b[1] != '5' && b[1] != '6')) return;
  std::size_t i = 2;
  std::int64_t fields[3] = {0, 0, 0};
  for (auto& f : fields) {
    for (;;) {
      while (i < b.size() && std::isspace(b[i])) ++i;
      if (i < b.size() && b[i] == '#') {
        while (i < b.size() && b[i] != '\n') ++i;
        continue;
      }
      break;
    }
    if (i >= b.size() || !std::isdigit(b[i])) throw UsageError(fmt::format("{}: PNM header is incomplete", label));
    while (i < b.size() && std::isdigit(b[i])) {
      f = f * 10 + (b[i++] - '0');
      if (f > (std::int64_t{1} << 31)) throw UsageError(fmt::format("{}: PNM header value too large", label));
    }
  }
  ++i;  // the single whitespace before the pixels
  const auto [w, h, max] = std::tuple(fields[0], fields[1], fields[2]);
  if (w == 0 || h == 0) throw UsageError(fmt::format("{}: image has zero size ({}x{})", label, w, h));
  if (max == 0 || max > 65535) throw UsageError(fmt::format("{}: PNM maximum value {} is not in 1..65535", label, max));
  if (w * h > kMaxImagePixels)  // each at most 2^31, so the product fits
    throw UsageError(fmt::format("{}: image of {}x{} pixels is larger than the {} accepted", label, w, h,
                                 kMaxImagePixels));
  const std::int64_t need = w * h * (b[1] == '6' ? 3 : 1) * (max > 255 ? 2 : 1);
  const std::int64_t have = static_cast<std::int64_t>(b.size()) - static_cast<std::int64_t>(i);
  if (have < need)
    throw UsageError(fmt::format("{}: truncated PNM: {}x{} needs {} bytes of pixels, the file has {}", label, w, h,
                                 need, have < 0 ? 0 : have));
}

std::uint32_t le32(std::span<const std::uint8_t> b, std::size_t at) {
  return static_cast<std::uint32_t>(b[at]) | static_cast<std::uint32_t>(b[at + 1]) << 8 |
         static_cast<std::uint32_t>(b[at + 2]) << 16 | static_cast<std::uint32_t>(b[at + 3]) << 24;
}

// Uncompressed BMP: the pixel rows (padded to 4 bytes) must lie within the file.
void check_bmp(std::span<const std::uint8_t> b, const std::string& label) {
  if (b.size() < 2 || b[0] != 'B' || b[1] != 'M') return;
  if (b.size() < 34) throw UsageError(fmt::format("{}: truncated BMP header", label));
  const std::uint32_t offset = le32(b, 10), compression = le32(b, 30);
  const auto width = static_cast<std::int32_t>(le32(b, 18)), height = static_cast<std::int32_t>(le32(b, 22));
  const std::uint32_t bpp = static_cast<std::uint32_t>(b[28]) | static_cast<std::uint32_t>(b[29]) << 8;
  if (width == 0 || height == 0) throw UsageError(fmt::format("{}: image has zero size ({}x{})", label, width, height));
  const std::int64_t w = width < 0 ? -static_cast<std::int64_t>(width) : width;
  const std::int64_t h = height < 0 ? -static_cast<std::int64_t>(height) : height;
  if (w * h > kMaxImagePixels)
    throw UsageError(fmt::format("{}: image of {}x{} pixels is larger than the {} accepted", label, w, h,
                                 kMaxImagePixels));
  if (compression != 0 && compression != 3) return;  // RLE: stb checks as it decodes
  const std::int64_t row = (w * bpp + 31) / 32 * 4;
  if (static_cast<std::int64_t>(offset) + row * h > static_cast<std::int64_t>(b.size()))
    throw UsageError(fmt::format("{}: truncated BMP: {}x{} at {} bits needs {} bytes, the file has {}", label, w, h,
                                 bpp, static_cast<std::int64_t>(offset) + row * h, b.size()));
}

// JPEG: stb fills a truncated scan with grey; a complete file has its end-of-image marker.
void check_jpeg(std::span<const std::uint8_t> b, const std::string& label) {
  if (b.size() < 3 || b[0] != 0xFF || b[1] != 0xD8 || b[2] != 0xFF) return;
  for (std::size_t i = b.size() - 1; i > 2 && i + 4096 > b.size(); --i)
    if (b[i - 1] == 0xFF && b[i] == 0xD9) return;
  throw UsageError(fmt::format("{}: truncated JPEG (no end-of-image marker)", label));
}

// Only formats that announce themselves: stb also guesses TGA (no signature), where a few bytes can
// claim millions of run-length pixels and keep the decoder busy for seconds (found by fuzzing).
void check_signature(std::span<const std::uint8_t> b, const std::string& label) {
  auto starts = [&](std::initializer_list<std::uint8_t> sig) {
    return b.size() >= sig.size() && std::equal(sig.begin(), sig.end(), b.begin());
  };
  const bool png = starts({0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'});
  const bool jpeg = starts({0xFF, 0xD8, 0xFF});
  const bool bmp = starts({'B', 'M'});
  const bool gif = starts({'G', 'I', 'F', '8'});
  const bool pnm = b.size() >= 2 && b[0] == 'P' && (b[1] == '5' || b[1] == '6');
  if (!(png || jpeg || bmp || gif || pnm))
    throw UsageError(fmt::format("{}: not a PNG, JPEG, BMP, GIF or binary PGM/PPM image (unrecognised signature)", label));
}

}  // namespace

Image decode_image(std::span<const std::uint8_t> bytes, const std::string& label, int channels) {
  if (bytes.empty()) throw UsageError(fmt::format("{}: empty image file", label));
  check_signature(bytes, label);
  check_pnm(bytes, label);
  check_bmp(bytes, label);
  check_jpeg(bytes, label);
  const int len = static_cast<int>(std::min<std::size_t>(bytes.size(), INT32_MAX));
  int w = 0, h = 0, c = 0;
  if (!stbi_info_from_memory(bytes.data(), len, &w, &h, &c))
    throw UsageError(fmt::format("{}: not a readable image ({})", label, stbi_failure_reason()));
  if (w <= 0 || h <= 0) throw UsageError(fmt::format("{}: image has zero size", label));
  if (static_cast<std::int64_t>(w) * h > kMaxImagePixels)
    throw UsageError(fmt::format("{}: image of {}x{} pixels is larger than the {} accepted", label, w, h,
                                 kMaxImagePixels));
  unsigned char* data = stbi_load_from_memory(bytes.data(), len, &w, &h, &c, channels);
  if (!data) throw UsageError(fmt::format("{}: cannot decode image ({})", label, stbi_failure_reason()));
  Image img{w, h, channels, std::vector<std::uint8_t>(data, data + static_cast<std::size_t>(w) * h * channels)};
  stbi_image_free(data);
  return img;
}

std::pair<int, int> image_size(const std::string& path) {
  const Image img = decode_image(read_file(path), path, 1);
  return {img.width, img.height};
}

Image load_image(const std::string& path, int channels) { return decode_image(read_file(path), path, channels); }

}  // namespace pimg
