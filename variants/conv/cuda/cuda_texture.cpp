// cuda_texture: kernels/conv/conv_cuda_texture.cu, the input read through a texture object over a CUDA
// array of 1-byte texels (the buffer's bytes: width*channels wide interleaved, height*channels tall
// planar), ITEMS_X x ITEMS_Y pixels per thread.
#include "conv/cuda_common.hpp"

namespace pimg::conv {
namespace {

constexpr CudaKnobSet kTextureKnobs{false, false};

// args: in (texture), weights, out, width, height, out_width, out_height
LaunchPlan cuda_texture_plan(const PlanContext& x) {
  const Workload& w = x.workload;
  const ConvSpec s = spec_of(x.problem);
  const CudaKnobs k = cuda_read_knobs(x);
  const Texels t = input_texels(s, x, "input", "2-D texture");
  if (k.filter_mem == 1) cuda_check_constant_bytes(w.input("weights").bytes.size() + w.input("taps").bytes.size(), x);
  LaunchPlan plan;
  plan.entry = "conv_cuda_texture";
  cuda_add_defines(plan, w, k, kTextureKnobs);
  cuda_set_geometry(plan, s, k, x);
  plan.args = {KernelArg::image("in", t.x, t.y), KernelArg::buf("weights"), KernelArg::buf("out")};
  add_scalar_args(plan, s);
  return plan;
}

}  // namespace

std::unique_ptr<Variant> make_cuda_texture() {
  return make_variant({"cuda_texture", "conv", "cuda", "conv/conv_cuda_texture.cu",
                       "CUDA direct convolution reading the input through a texture object (tex2D, point sampling)",
                       cuda_knob_params(kTextureKnobs), cuda_texture_plan});
}

}  // namespace pimg::conv
