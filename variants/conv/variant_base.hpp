// Small helpers shared by the conv variants: the problem's defines and arguments every kernel
// receives, and ceil-division for launch geometry.
#pragma once
#include <string>

#include "pimg/variant.hpp"

namespace pimg::conv {

inline std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// The workload's defines (PIMG_K, PIMG_CHANNELS, ...) into a plan.
inline void add_problem_defines(LaunchPlan& plan, const Workload& w) {
  for (const auto& [k, v] : w.defines) plan.defines.emplace_back(k, v);
}

// A configuration's integer parameter as -D<PREFIX><NAME>=value (names upper-cased).
inline void add_define(LaunchPlan& plan, const std::string& name, const std::string& value) {
  plan.defines.emplace_back(name, value);
}

// The separable=1 and packed=1 knobs of cuda_vec and cl_vec against what the family found for the
// filter (PIMG_SEPARABLE, PIMG_PACKED: conv_family.cpp): PlanError where the filter does not allow them.
inline void check_passes(const Workload& w, int separable, int packed) {
  auto allows = [&](const char* define) {
    const auto it = w.defines.find(define);
    return it != w.defines.end() && it->second == "1";
  };
  if (separable && !allows("PIMG_SEPARABLE"))
    throw PlanError("separable=1 but the filter has no integer factorisation into a column and a row");
  if (packed && !separable) throw PlanError("packed=1 needs separable=1");
  if (packed && !allows("PIMG_PACKED"))
    throw PlanError("packed=1 but the filter's factors are negative, their sums pass 16 bits, or the divisor "
                    "is not a power of two up to 256");
}

}  // namespace pimg::conv
