// A problem: one family, one image size and the family's own attributes (filter, layout, border, ...).
// Attributes are strings so the store and reports handle every family alike.
#pragma once
#include <cstdint>
#include <map>
#include <string>

namespace pimg {

struct Problem {
  std::string family;
  int width = 0;
  int height = 0;
  int channels = 1;
  std::map<std::string, std::string> attrs;  // family-specific, validated by the family

  std::string canonical() const;  // JSON with sorted keys; identity in the store
  std::string label() const;      // "conv 1024x1024 c1 border=zero filter=sharpen3 ..."
  std::string size() const { return std::to_string(width) + "x" + std::to_string(height); }
  const std::string& attr(const std::string& key) const;  // throws naming the key
  friend bool operator==(const Problem&, const Problem&) = default;
};

}  // namespace pimg
