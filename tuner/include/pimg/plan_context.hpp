// What Variant::plan() is given: the problem, its workload, the configuration, the device and the variant's
// parameter declarations, with the readings every plan makes of them written once: the knobs (typed, the
// declared default when the configuration leaves one out, PlanError outside the declaration), the device's
// limits and the work-group and local-memory checks against them, and the grid of a 2-D GPU kernel.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "pimg/backend.hpp"
#include "pimg/config.hpp"
#include "pimg/family.hpp"

namespace pimg {

struct ParamDecl;  // pimg/variant.hpp

// The members are public references, so a plan that reads the parts by name binds them:
// `const auto& [p, w, c, d, decls] = x;`. The context refers to what its caller holds and does not outlive it.
struct PlanContext {
  const Problem& problem;
  const Workload& workload;
  const Config& config;
  const DeviceInfo& device;
  const std::vector<ParamDecl>& params;  // the variant's parameters() (int_knob's and text_knob's declarations)

  // The value of the integer (text) parameter `name`: pimg::int_value (text_value) over `params`. The
  // declarations of integer knobs fit an int.
  int int_knob(const std::string& name) const;
  std::string text_knob(const std::string& name) const;

  // The device's limit `name`, or `fallback` when its backend does not state it.
  double limit(const std::string& name, double fallback) const;
  // PlanError when a bx x by group exceeds the device's work-group (thread-block) limits.
  void check_group(int bx, int by) const;
  // PlanError when a block's `bytes` of staging exceed the device's local (shared) memory.
  void check_local_bytes(double bytes) const;
  // A 2-D GPU kernel's plan (kernels/common/pix_portable.h, OpenCL and CUDA alike): `entry`, the workload's
  // defines, BLOCK_X and BLOCK_Y from the knobs block_x and block_y, global = items rounded up to the block.
  // PlanError when the block exceeds the device's limits, or the grid's y extent its max_grid_size_1 (where
  // it states one).
  LaunchPlan gpu_plan(const std::string& entry, std::size_t items_x, std::size_t items_y) const;
};

}  // namespace pimg
