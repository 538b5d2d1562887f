// cl_image: kernels/conv/conv_image.cl, the input read through the texture path as a 2-D image of
// 1-byte texels (the buffer's bytes: width*channels wide interleaved, height*channels tall planar).
#include "conv/cl_common.hpp"

namespace pimg::conv {
namespace {

// args: in (image), weights, out, width, height, out_width, out_height
LaunchPlan cl_image_plan(const PlanContext& x) {
  const Workload& w = x.workload;
  const ConvSpec s = spec_of(x.problem);
  const ClKnobs k = cl_read_knobs(x);
  if (x.limit("image_support", 0) == 0) throw PlanError("the device has no image support");
  const Texels t = input_texels(s, x, "input image", "image2d");
  if (k.filter_mem == 1) cl_check_constant_bytes(w.input("weights").bytes.size(), x);
  LaunchPlan plan;
  plan.entry = "conv_image";
  cl_add_defines(plan, w, k, false);
  cl_set_geometry(plan, s, k);
  plan.args = {KernelArg::image("in", t.x, t.y), KernelArg::buf("weights"), KernelArg::buf("out")};
  add_scalar_args(plan, s);
  return plan;
}

}  // namespace

std::unique_ptr<Variant> make_cl_image() {
  return make_variant({"cl_image", "conv", "opencl", "conv/conv_image.cl",
                       "OpenCL direct convolution reading the input as an image2d_t (texture cache)",
                       cl_knob_params(false), cl_image_plan});
}

}  // namespace pimg::conv
