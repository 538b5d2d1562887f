// The flip variants' registration functions (one file each) and what their GPU plans share.
#pragma once
#include "common/pix_common.hpp"
#include "pimg/registry.hpp"

namespace pimg::flip {

inline std::string gpu_source(const pix::PortableTarget& gpu) { return "flip/flip" + gpu.extension; }

// The knobs of the GPU flips: block_x, block_y, vec (0: PIXELS pixels per thread, 1: GROUPS groups of
// 16 pixels with 16-byte vectors), per_thread (PIXELS or GROUPS) and stage (with vec 1: the groups through
// local memory).
std::vector<ParamDecl> gpu_params();
struct GpuKnobs {
  int vec = 0, per_thread = 1, stage = 0;
};
GpuKnobs gpu_knobs(const PlanContext& x);
// A plan over `columns` pixel columns per row (groups of 16 when vec) and every plane's rows, with
// PIXELS and GROUPS defined.
LaunchPlan gpu_flip_plan(const std::string& entry, const PlanContext& x, std::size_t columns);

// Each registers its OpenCL and CUDA form (cl_<stem>, cuda_<stem>), or its host variants.
void register_out_of_place(Registry& reg, const pix::PortableTargets& gpus);
void register_in_place(Registry& reg, const pix::PortableTargets& gpus);
void register_omp(Registry& reg);
void register_serial(Registry& reg);
void register_opencv(Registry& reg);
void register_npp(Registry& reg);

}  // namespace pimg::flip
