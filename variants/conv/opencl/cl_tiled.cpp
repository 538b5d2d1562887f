// cl_tiled: kernels/conv/conv_tiled.cl, each work-group stages its input tile (block plus halo) in
// __local memory, then computes ITEMS_X x ITEMS_Y pixels per item from it.
#include "conv/cl_common.hpp"

namespace pimg::conv {
namespace {

// args: in, weights, out, width, height, out_width, out_height
LaunchPlan cl_tiled_plan(const PlanContext& x) {
  const Workload& w = x.workload;
  const ConvSpec s = spec_of(x.problem);
  const ClKnobs k = cl_read_knobs(x);
  check_tile(s, k, x, "local_mem_size", "local");
  if (k.filter_mem == 1) cl_check_constant_bytes(w.input("weights").bytes.size(), x);
  LaunchPlan plan;
  plan.entry = "conv_tiled";
  cl_add_defines(plan, w, k, false);
  cl_set_geometry(plan, s, k);
  plan.args = {KernelArg::buf("in"), KernelArg::buf("weights"), KernelArg::buf("out")};
  add_scalar_args(plan, s);
  return plan;
}

}  // namespace

std::unique_ptr<Variant> make_cl_tiled() {
  return make_variant({"cl_tiled", "conv", "opencl", "conv/conv_tiled.cl",
                       "OpenCL convolution from a __local input tile loaded cooperatively by the work-group",
                       cl_knob_params(false), cl_tiled_plan});
}

}  // namespace pimg::conv
