// cl_direct: kernels/conv/conv_direct.cl, every work item computes ITEMS_X x ITEMS_Y pixels straight
// from global memory; knobs choose where the weights live, loop unrolling, multiply vs lookup table and
// whether the channels lie in the work-group's z (channel_z). A batch of images is one launch, the image
// in z (seed 003).
#include "conv/cl_common.hpp"

namespace pimg::conv {
namespace {

class ClDirect final : public Variant {
 public:
  std::string name() const override { return "cl_direct"; }
  std::string family() const override { return "conv"; }
  std::string backend() const override { return "opencl"; }
  std::string source() const override { return "conv/conv_direct.cl"; }
  std::string help() const override {
    return "OpenCL direct convolution from global memory, ITEMS_X x ITEMS_Y pixels per work item";
  }
  std::vector<ParamDecl> parameters() const override {
    std::vector<ParamDecl> out = cl_knob_params(true);
    out.push_back(channel_z_param());
    return out;
  }

  // args: in, weights, taps, lut, out, width, height, out_width, out_height
  LaunchPlan plan(const PlanContext& x) const override {
    const Problem& p = x.problem;
    const Workload& w = x.workload;
    const Config& c = x.config;
    const DeviceInfo& d = x.device;
    const ConvSpec s = spec_of(p);
    const ClKnobs k = cl_read_knobs(c, d);
    const int channel_z = static_cast<int>(int_value(c, parameters(), "channel_z"));
    if (k.filter_mem == 1)
      cl_check_constant_bytes(w.input("weights").bytes.size() + w.input("taps").bytes.size() +
                                  w.input("lut").bytes.size(),
                              d);
    LaunchPlan plan;
    plan.entry = "conv_direct";
    cl_add_defines(plan, w, k, true);
    add_define(plan, "CHANNEL_Z", std::to_string(channel_z));
    cl_set_direct_geometry(plan, s, k, channel_z,
                           device_limit(d, "max_work_group_size", static_cast<double>(d.max_work_group_size)));
    add_direct_args(plan, s);
    return plan;
  }
};

}  // namespace

std::unique_ptr<Variant> make_cl_direct() { return std::make_unique<ClDirect>(); }

}  // namespace pimg::conv
