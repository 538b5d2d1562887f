// The maxpool variants' registration functions (one file each) and what their plans share.
#pragma once
#include "common/pix_common.hpp"
#include "maxpool_family.hpp"
#include "pimg/registry.hpp"

namespace pimg::maxpool {

inline std::string gpu_source(const pix::PortableTarget& gpu) { return "maxpool/maxpool" + gpu.extension; }

// in, out, width, height, out_width, out_height as the arguments; PIXELS and GROUPS as defines.
void finish_plan(LaunchPlan& plan, const Problem& p, int pixels, int groups);
// PlanError for a window other than 2x2: `variant` pools 2x2 windows only.
void two_by_two_only(const Problem& p, const std::string& variant);

void register_direct(Registry& reg, const pix::PortableTargets& gpus);
void register_vec16(Registry& reg, const pix::PortableTargets& gpus);
void register_tree(Registry& reg, const pix::PortableTargets& gpus);
void register_rgb(Registry& reg, const pix::PortableTargets& gpus);
void register_omp(Registry& reg);
void register_serial(Registry& reg);

}  // namespace pimg::maxpool
