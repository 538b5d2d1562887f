// The one place broken internal invariants end the program.
#include "pimg/errors.hpp"

#include <cstdio>
#include <cstdlib>

namespace pimg {

void check_failed(const char* expr, const char* file, int line, const std::string& message) {
  std::fprintf(stderr, "pimg-tune: internal error at %s:%d: %s (%s)\n", file, line, message.c_str(), expr);
  std::abort();
}

}  // namespace pimg
