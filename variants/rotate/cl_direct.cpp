// cl_direct: kernels/rotate/rotate_direct.cl, every work item computes items_x x items_y output pixels,
// neighbouring (spread 0) or a work-group apart (spread 1), stepping the source point by the rule's
// integer increments.
#include "rotate_common.hpp"

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
  LaunchPlan plan(const Problem& p, const Workload& w, const Config& c, const DeviceInfo& d) const override {
    const GridKnobs k =
        read_grid(c, d, limit(d, "max_work_group_size", static_cast<double>(d.max_work_group_size)));
    LaunchPlan plan;
    plan.entry = "rotate_direct";
    add_grid_defines(plan, w, k);
    set_grid(plan, spec_of(p), k);
    return plan;
  }
};

}  // namespace

std::unique_ptr<Variant> make_cl_direct() { return std::make_unique<ClDirect>(); }

}  // namespace pimg::rotate
