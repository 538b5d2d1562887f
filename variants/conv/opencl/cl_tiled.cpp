// cl_tiled: kernels/conv/conv_tiled.cl, each work-group stages its input tile (block plus halo) in
// __local memory, then computes ITEMS_X x ITEMS_Y pixels per item from it.
#include <fmt/format.h>

#include "conv/cl_common.hpp"

namespace pimg::conv {
namespace {

class ClTiled final : public Variant {
 public:
  std::string name() const override { return "cl_tiled"; }
  std::string family() const override { return "conv"; }
  std::string backend() const override { return "opencl"; }
  std::string source() const override { return "conv/conv_tiled.cl"; }
  std::string help() const override {
    return "OpenCL convolution from a __local input tile loaded cooperatively by the work-group";
  }
  std::vector<ParamDecl> parameters() const override { return cl_knob_params(false); }

  // args: in, weights, out, width, height, out_width, out_height
  LaunchPlan plan(const PlanContext& x) const override {
    const Problem& p = x.problem;
    const Workload& w = x.workload;
    const Config& c = x.config;
    const DeviceInfo& d = x.device;
    const ConvSpec s = spec_of(p);
    const ClKnobs k = cl_read_knobs(c, d);
    const double tile = tile_bytes(s, k);
    const double local_mem = device_limit(d, "local_mem_size", static_cast<double>(d.local_mem_bytes));
    if (local_mem > 0 && tile > local_mem)
      throw PlanError(fmt::format("local tile of {} bytes exceeds local_mem_size {}", tile, local_mem));
    if (k.filter_mem == 1) cl_check_constant_bytes(w.input("weights").bytes.size(), d);
    LaunchPlan plan;
    plan.entry = "conv_tiled";
    cl_add_defines(plan, w, k, false);
    cl_set_geometry(plan, s, k);
    plan.args = {KernelArg::buf("in"), KernelArg::buf("weights"), KernelArg::buf("out")};
    add_scalar_args(plan, s);
    return plan;
  }
};

}  // namespace

std::unique_ptr<Variant> make_cl_tiled() { return std::make_unique<ClTiled>(); }

}  // namespace pimg::conv
