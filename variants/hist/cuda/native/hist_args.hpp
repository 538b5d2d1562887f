// The plan arguments shared by hist's two library baselines (cub_histogram_even.cpp, npp_histogram_even.cpp):
// in, out; width, height, channels (1 or 3).
#pragma once
#include <fmt/format.h>

#include "cuda_library.hpp"

namespace pimg::cuda {

struct HistArgs {
  std::string in, out;
  int width = 0, height = 0, channels = 1;
};

inline HistArgs hist_args(const LaunchPlan& plan, const char* call) {
  const auto& a = plan.args;
  if (a.size() != 5 || a[0].kind != ArgKind::Buffer || a[1].kind != ArgKind::Buffer || a[2].kind != ArgKind::Int ||
      a[3].kind != ArgKind::Int || a[4].kind != ArgKind::Int || (a[4].i != 1 && a[4].i != 3) || a[2].i <= 0 ||
      a[3].i <= 0)
    throw std::runtime_error(fmt::format("{}: the plan's arguments must be in, out, width, height, channels 1|3", call));
  return {a[0].buffer, a[1].buffer, static_cast<int>(a[2].i), static_cast<int>(a[3].i), static_cast<int>(a[4].i)};
}

}  // namespace pimg::cuda
