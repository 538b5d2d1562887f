// cuda_tiled: kernels/conv/conv_cuda_tiled.cu, each thread block stages its input tile (block times
// items plus a halo of R) in shared memory, then computes ITEMS_X x ITEMS_Y pixels per thread from it.
#include <fmt/format.h>

#include "conv/cuda_common.hpp"

namespace pimg::conv {
namespace {

constexpr CudaKnobSet kTiledKnobs{false, false};

class CudaTiled final : public Variant {
 public:
  std::string name() const override { return "cuda_tiled"; }
  std::string family() const override { return "conv"; }
  std::string backend() const override { return "cuda"; }
  std::string source() const override { return "conv/conv_cuda_tiled.cu"; }
  std::string help() const override {
    return "CUDA convolution from a shared-memory input tile with halo, loaded cooperatively by the block";
  }
  std::vector<ParamDecl> parameters() const override { return cuda_knob_params(kTiledKnobs); }

  // args: in, weights, out, width, height, out_width, out_height
  LaunchPlan plan(const PlanContext& x) const override {
    const Problem& p = x.problem;
    const Workload& w = x.workload;
    const Config& c = x.config;
    const DeviceInfo& d = x.device;
    const ConvSpec s = spec_of(p);
    const CudaKnobs k = cuda_read_knobs(c, d);
    const double tile = tile_bytes(s, k);
    const double shared = device_limit(d, "shared_mem_per_block", static_cast<double>(d.local_mem_bytes));
    if (shared > 0 && tile > shared)
      throw PlanError(fmt::format("shared tile of {} bytes exceeds shared_mem_per_block {}", tile, shared));
    if (k.filter_mem == 1) cuda_check_constant_bytes(w.input("weights").bytes.size() + w.input("taps").bytes.size(), d);
    LaunchPlan plan;
    plan.entry = "conv_cuda_tiled";
    cuda_add_defines(plan, w, k, kTiledKnobs);
    cuda_set_geometry(plan, s, k, d);
    plan.args = {KernelArg::buf("in"), KernelArg::buf("weights"), KernelArg::buf("out")};
    add_scalar_args(plan, s);
    return plan;
  }
};

}  // namespace

std::unique_ptr<Variant> make_cuda_tiled() { return std::make_unique<CudaTiled>(); }

}  // namespace pimg::conv
