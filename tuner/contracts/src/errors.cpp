// The one place broken internal invariants end the program.
#include "pimg/errors.hpp"

#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

namespace pimg {

void check_failed(const char* expr, const char* file, int line, const std::string& message) {
  std::fprintf(stderr, "pimg-tune: internal error at %s:%d: %s (%s)\n", file, line, message.c_str(), expr);
  std::abort();
}

std::string printable(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    else out += c;
  }
  return out;
}

}  // namespace pimg
