// cl_direct: kernels/conv/conv_direct.cl, every work item computes ITEMS_X x ITEMS_Y pixels straight
// from global memory; knobs choose where the weights live, loop unrolling, multiply vs lookup table and
// whether the channels lie in the work-group's z (channel_z). A batch of images is one launch, the image
// in z (seed 003).
#include "conv/cl_common.hpp"

namespace pimg::conv {
namespace {

// args: in, weights, taps, lut, out, width, height, out_width, out_height
LaunchPlan cl_direct_plan(const PlanContext& x) {
  const Workload& w = x.workload;
  const ConvSpec s = spec_of(x.problem);
  const ClKnobs k = cl_read_knobs(x);
  const int channel_z = x.int_knob("channel_z");
  if (k.filter_mem == 1)
    cl_check_constant_bytes(
        w.input("weights").bytes.size() + w.input("taps").bytes.size() + w.input("lut").bytes.size(), x);
  LaunchPlan plan;
  plan.entry = "conv_direct";
  cl_add_defines(plan, w, k, true);
  add_define(plan, "CHANNEL_Z", std::to_string(channel_z));
  cl_set_direct_geometry(plan, s, k, channel_z,
                         x.limit("max_work_group_size", static_cast<double>(x.device.max_work_group_size)));
  add_direct_args(plan, s);
  return plan;
}

}  // namespace

std::unique_ptr<Variant> make_cl_direct() {
  std::vector<ParamDecl> params = cl_knob_params(true);
  params.push_back(channel_z_param());
  return make_variant({"cl_direct", "conv", "opencl", "conv/conv_direct.cl",
                       "OpenCL direct convolution from global memory, ITEMS_X x ITEMS_Y pixels per work item",
                       std::move(params), cl_direct_plan});
}

}  // namespace pimg::conv
