// The flip family's one registration list, and the knobs and geometry its GPU variants share.
#include "register.hpp"

#include "flip_family.hpp"
#include "variants.hpp"

namespace pimg::flip {

std::vector<ParamDecl> gpu_params() {
  std::vector<ParamDecl> params = pix::block_params(128, 1);
  params.push_back(int_choice("vec", 1, "0: byte copies, PIXELS pixels per thread; 1: 16-pixel groups as 16-byte vectors", {0, 1}));
  params.push_back(int_range("per_thread", 1, "pixels (vec 0) or 16-pixel groups (vec 1) per thread, 1..16", 1, 16));
  params.push_back(int_choice("stage", 0,
                              "with vec 1: 0, each thread's vectors straight to and from global memory; 1, a block's "
                              "groups of each row staged in local memory, loaded and stored as contiguous spans",
                              {0, 1}));
  return params;
}

GpuKnobs gpu_knobs(const PlanContext& x) {
  return {x.int_knob("vec"), x.int_knob("per_thread"), x.int_knob("stage")};
}

LaunchPlan gpu_flip_plan(const std::string& entry, const PlanContext& x, std::size_t columns) {
  const GpuKnobs k = gpu_knobs(x);
  const std::size_t rows = static_cast<std::size_t>(x.problem.height) * pix::planes_of(x.problem);
  const std::size_t items = k.vec ? pix::ceil_div(columns, 16) : columns;
  LaunchPlan plan = x.gpu_plan(entry, pix::ceil_div(items, k.per_thread), rows);
  plan.defines.emplace_back("PIXELS", std::to_string(k.vec ? 1 : k.per_thread));
  plan.defines.emplace_back("GROUPS", std::to_string(k.vec ? k.per_thread : 1));
  plan.defines.emplace_back("STAGE", std::to_string(k.stage));
  return plan;
}

void register_flip(Registry& reg, const pix::PortableTargets& gpus) {
  reg.add_family(std::make_unique<FlipFamily>());
  register_serial(reg);
  register_opencv(reg);
  register_omp(reg);
  register_out_of_place(reg, gpus);
  register_in_place(reg, gpus);
  register_npp(reg);
}

}  // namespace pimg::flip
