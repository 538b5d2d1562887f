// Shared by the variant tests of every backend: a configuration from (name, value) pairs, and the image
// shapes and conv problem attributes the tests cover.
#pragma once
#include <string>
#include <utility>

#include "pimg/registry.hpp"

namespace pimg::testcommon {

inline Config config(std::initializer_list<std::pair<const char*, Value>> values) {
  Config c;
  for (const auto& [name, value] : values) c.set(name, value);
  return c;
}

// 1 channel, 3 interleaved and 3 planar: the layouts the kernels branch on.
struct Shape {
  const char* name;
  int channels;
  const char* layout;
};
inline const Shape kShapes[] = {{"c1", 1, "interleaved"}, {"c3i", 3, "interleaved"}, {"c3p", 3, "planar"}};
// The conv family's borders, and a 3x3 filter and a separable 5x5 one.
inline const char* const kBorders[] = {"zero", "valid", "replicate"};
inline const char* const kFilters[] = {"sharpen3", "gaussian5"};

}  // namespace pimg::testcommon
