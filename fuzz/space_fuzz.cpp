// Fuzz target: the YAML space loader with the real registry. Every input must either load or be
// refused with a one-line UsageError; anything else (a crash, a sanitizer report, another
// exception) is a finding.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "pimg/errors.hpp"
#include "pimg/registry.hpp"
#include "pimg/space.hpp"
#include "check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const pimg::Registry& reg = pimg::Registry::builtin();
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    pimg::Space space = pimg::load_space_text(text, "fuzz.yaml", reg);
    (void)space;
  } catch (const pimg::UsageError& e) {
    FUZZ_CHECK(std::string(e.what()).find('\n') == std::string::npos, e.what());  // messages are one line
  }
  return 0;
}
