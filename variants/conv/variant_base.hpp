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

}  // namespace pimg::conv
