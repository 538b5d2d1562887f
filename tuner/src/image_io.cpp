// Image decoding through Debian's stb (libstb), with errors that name the file.
#include "pimg/image_io.hpp"

#include <fmt/format.h>
#include <stb/stb_image.h>

#include <filesystem>

#include "pimg/errors.hpp"

namespace pimg {

static void require_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw UsageError(fmt::format("{}: no such image file", path));
  if (std::filesystem::file_size(path, ec) == 0) throw UsageError(fmt::format("{}: empty image file", path));
}

std::pair<int, int> image_size(const std::string& path) {
  require_file(path);
  int w = 0, h = 0, c = 0;
  if (!stbi_info(path.c_str(), &w, &h, &c))
    throw UsageError(fmt::format("{}: not a readable image ({})", path, stbi_failure_reason()));
  if (w <= 0 || h <= 0) throw UsageError(fmt::format("{}: image has zero size", path));
  return {w, h};
}

Image load_image(const std::string& path, int channels) {
  require_file(path);
  int w = 0, h = 0, c = 0;
  unsigned char* data = stbi_load(path.c_str(), &w, &h, &c, channels);
  if (!data) throw UsageError(fmt::format("{}: cannot decode image ({})", path, stbi_failure_reason()));
  Image img{w, h, channels, std::vector<std::uint8_t>(data, data + static_cast<std::size_t>(w) * h * channels)};
  stbi_image_free(data);
  return img;
}

}  // namespace pimg
