// cl_direct: kernels/rotate/rotate_direct.cl, every work item computes items_x x items_y output pixels,
// neighbouring (spread 0) or a work-group apart (spread 1), stepping the source point by the rule's
// integer increments.
#include "rotate/rotate_common.hpp"

namespace pimg::rotate {
LaunchPlan cl_plan(const PlanContext& x, bool image) {  // args: in (an image with `image`), out, width, height
  const RotateSpec s = spec_of(x.problem);
  const GridKnobs k = read_grid(x, x.limit("max_work_group_size", static_cast<double>(x.device.max_work_group_size)));
  LaunchPlan plan;
  plan.entry = "rotate_direct";
  add_grid_defines(plan, x.workload, k);
  plan.defines.emplace_back("IMAGE", image ? "1" : "0");
  set_grid(plan, s, k);
  if (image) plan.args[0] = image_arg(s, x, "image_support");
  return plan;
}

std::unique_ptr<Variant> make_cl_direct() {
  return make_variant({"cl_direct", "rotate", "opencl", "rotate/rotate_direct.cl",
                       "OpenCL gather rotation, items_x x items_y pixels per work item with incremental source points",
                       grid_params(), [](const PlanContext& x) { return cl_plan(x, false); }});
}

}  // namespace pimg::rotate
