// Image files in (stb_image: PNG, BMP, JPEG, PGM/PPM, TGA, ...), as interleaved 8-bit pixels.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace pimg {

struct Image {
  int width = 0, height = 0, channels = 0;
  std::vector<std::uint8_t> pixels;  // interleaved
};

// Width and height of an image file without decoding it. Throws UsageError naming the file.
std::pair<int, int> image_size(const std::string& path);
// Decodes to `channels` (1: grey, 3: RGB). Throws UsageError naming the file and the reason.
Image load_image(const std::string& path, int channels);

}  // namespace pimg
