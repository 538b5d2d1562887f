// Shared by the unit tests that check a rule over everything the built-in registry holds.
#pragma once
#include <utility>
#include <vector>

#include "pimg/registry.hpp"

namespace pimg::testcommon {

// Every variant of every family of the built-in registry, with its family.
inline std::vector<std::pair<const Family*, const Variant*>> builtin_variants() {
  const Registry& reg = Registry::builtin();
  std::vector<std::pair<const Family*, const Variant*>> out;
  for (const Family* f : reg.families())
    for (const Variant* v : reg.variants(f->name())) out.emplace_back(f, v);
  return out;
}

}  // namespace pimg::testcommon
