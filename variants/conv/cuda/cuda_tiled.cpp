// cuda_tiled: kernels/conv/conv_cuda_tiled.cu, each thread block stages its input tile (block times
// items plus a halo of R) in shared memory, then computes ITEMS_X x ITEMS_Y pixels per thread from it.
#include "conv/cuda_common.hpp"

namespace pimg::conv {
namespace {

constexpr CudaKnobSet kTiledKnobs{false, false};

// args: in, weights, out, width, height, out_width, out_height
LaunchPlan cuda_tiled_plan(const PlanContext& x) {
  const Workload& w = x.workload;
  const ConvSpec s = spec_of(x.problem);
  const CudaKnobs k = cuda_read_knobs(x);
  check_tile(s, k, x, "shared_mem_per_block", "shared");
  if (k.filter_mem == 1) cuda_check_constant_bytes(w.input("weights").bytes.size() + w.input("taps").bytes.size(), x);
  LaunchPlan plan;
  plan.entry = "conv_cuda_tiled";
  cuda_add_defines(plan, w, k, kTiledKnobs);
  cuda_set_geometry(plan, s, k, x);
  plan.args = {KernelArg::buf("in"), KernelArg::buf("weights"), KernelArg::buf("out")};
  add_scalar_args(plan, s);
  return plan;
}

}  // namespace

std::unique_ptr<Variant> make_cuda_tiled() {
  return make_variant({"cuda_tiled", "conv", "cuda", "conv/conv_cuda_tiled.cu",
                       "CUDA convolution from a shared-memory input tile with halo, loaded cooperatively by the block",
                       cuda_knob_params(kTiledKnobs), cuda_tiled_plan});
}

}  // namespace pimg::conv
