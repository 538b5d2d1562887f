// Image files in (stb_image: PNG, BMP, JPEG, PGM/PPM, TGA, ...), as interleaved 8-bit pixels.
// stb reads past the end of a truncated PNM or BMP as zeros and a truncated JPEG as grey, so the
// declared pixel data of those formats is checked against the bytes present before decoding.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace pimg {

struct Image {
  int width = 0, height = 0, channels = 0;
  std::vector<std::uint8_t> pixels;  // interleaved
};

// The largest image accepted, in pixels (2^28: 16384 x 16384).
inline constexpr std::int64_t kMaxImagePixels = std::int64_t{1} << 28;

// Width and height of an image file, after checking that it decodes completely. Throws UsageError
// naming the file.
std::pair<int, int> image_size(const std::string& path);
// Decodes to `channels` (1: grey, 3: RGB). Throws UsageError naming the file and the reason.
Image load_image(const std::string& path, int channels);
// The same for bytes in memory; `label` names them in messages.
Image decode_image(std::span<const std::uint8_t> bytes, const std::string& label, int channels);

}  // namespace pimg
