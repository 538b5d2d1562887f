// Fuzz target: the image reader (stb behind pimg's own completeness checks). Every input must
// decode to an image of the size it claims or be refused with a UsageError.
#include <cstdint>
#include <cstdlib>
#include <span>

#include "pimg/errors.hpp"
#include "pimg/image_io.hpp"
#include "check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  for (int channels : {1, 3}) {
    try {
      pimg::Image img = pimg::decode_image(std::span(data, size), "fuzz", channels);
      FUZZ_CHECK(img.width > 0 && img.height > 0 &&
                     img.pixels.size() == static_cast<std::size_t>(img.width) * img.height * channels,
                 "an image of " + std::to_string(img.width) + "x" + std::to_string(img.height) + " with " +
                     std::to_string(img.pixels.size()) + " bytes");
    } catch (const pimg::UsageError&) {
    }
  }
  return 0;
}
