// Problems: canonical identity and a readable label.
#include "pimg/problem.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace pimg {

std::string Problem::canonical() const {
  std::string out = fmt::format(R"({{"family":"{}","width":{},"height":{},"channels":{})", family, width, height,
                                channels);
  for (const auto& [k, v] : attrs) {
    std::string escaped;
    for (char c : v) {
      if (c == '"' || c == '\\') escaped += '\\';
      escaped += c;
    }
    out += fmt::format(R"(,"{}":"{}")", k, escaped);
  }
  return out + "}";
}

std::string Problem::label() const {
  std::string out = fmt::format("{} {}x{} c{}", family, width, height, channels);
  for (const auto& [k, v] : attrs) out += fmt::format(" {}={}", k, v);
  return out;
}

const std::string& Problem::attr(const std::string& key) const {
  auto it = attrs.find(key);
  if (it == attrs.end()) throw std::out_of_range(fmt::format("problem has no attribute '{}'", key));
  return it->second;
}

}  // namespace pimg
