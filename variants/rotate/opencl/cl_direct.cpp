// cl_direct: kernels/rotate/rotate_direct.cl, every work item computes items_x x items_y output pixels,
// neighbouring (spread 0) or a work-group apart (spread 1), stepping the source point by the rule's
// integer increments.
#include "rotate/rotate_common.hpp"

namespace pimg::rotate {
namespace {

class ClDirect final : public Variant {
 public:
  std::string name() const override { return "cl_direct"; }
  std::string family() const override { return "rotate"; }
  std::string backend() const override { return "opencl"; }
  std::string source() const override { return "rotate/rotate_direct.cl"; }
  std::string help() const override {
    return "OpenCL gather rotation, items_x x items_y pixels per work item with incremental source points";
  }
  std::vector<ParamDecl> parameters() const override { return grid_params(); }

  // args: in, out, width, height
  LaunchPlan plan(const PlanContext& x) const override {
    const Problem& p = x.problem;
    const Workload& w = x.workload;
    const Config& c = x.config;
    const DeviceInfo& d = x.device;
    return cl_plan(p, w, c, d, false);
  }
};

}  // namespace

LaunchPlan cl_plan(const Problem& p, const Workload& w, const Config& c, const DeviceInfo& d, bool image) {
  const RotateSpec s = spec_of(p);
  const GridKnobs k = read_grid(c, d, limit(d, "max_work_group_size", static_cast<double>(d.max_work_group_size)));
  LaunchPlan plan;
  plan.entry = "rotate_direct";
  add_grid_defines(plan, w, k);
  plan.defines.emplace_back("IMAGE", image ? "1" : "0");
  set_grid(plan, s, k);
  if (image) plan.args[0] = image_arg(s, d, "image_support");
  return plan;
}

std::unique_ptr<Variant> make_cl_direct() { return std::make_unique<ClDirect>(); }

}  // namespace pimg::rotate
