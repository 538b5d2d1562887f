// cuda_direct: kernels/conv/conv_cuda.cu, every thread computes ITEMS_X x ITEMS_Y pixels straight from
// global memory (wide=0), or ITEMS_X 16-byte vectors of output bytes with 16-byte loads and stores
// (wide=1); knobs choose where the weights live, unrolling, multiply vs lookup table, launch bounds,
// register limit and inlining. wide=0 runs a batch of images in one launch, the image in the grid's z, and
// channel_z=1 puts the channel in the block's z (seed 003's launch).
#include "conv/cuda_common.hpp"

namespace pimg::conv {
namespace {

constexpr CudaKnobSet kDirectKnobs{true, true};

// args: in, weights, taps, lut, out, width, height, out_width, out_height
LaunchPlan cuda_direct_plan(const PlanContext& x) {
  const Workload& w = x.workload;
  const ConvSpec s = spec_of(x.problem);
  const CudaKnobs k = cuda_read_knobs(x);
  const int channel_z = x.int_knob("channel_z");
  if (channel_z && k.wide) throw PlanError("channel_z=1 needs wide=0 (a wide thread computes bytes of a row)");
  if (k.filter_mem == 1)
    cuda_check_constant_bytes(w.input("weights").bytes.size() + w.input("taps").bytes.size() +
                                  (k.arith ? w.input("lut").bytes.size() : 0),
                              x);
  LaunchPlan plan;
  plan.entry = k.wide ? "conv_cuda_wide" : "conv_cuda_direct";
  cuda_add_defines(plan, w, k, kDirectKnobs);
  add_define(plan, "CHANNEL_Z", std::to_string(channel_z));
  if (k.wide)
    cuda_set_wide_geometry(plan, s, k, x);
  else
    cuda_set_direct_geometry(plan, s, k, channel_z, x);
  add_direct_args(plan, s);
  return plan;
}

}  // namespace

std::unique_ptr<Variant> make_cuda_direct() {
  std::vector<ParamDecl> params = cuda_knob_params(kDirectKnobs);
  params.push_back(channel_z_param());
  return make_variant({"cuda_direct", "conv", "cuda", "conv/conv_cuda.cu",
                       "CUDA direct convolution from global memory, ITEMS_X x ITEMS_Y pixels (or 16-byte vectors) per "
                       "thread",
                       std::move(params), cuda_direct_plan});
}

}  // namespace pimg::conv
