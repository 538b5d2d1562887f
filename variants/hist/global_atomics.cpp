// cl_global and cuda_global: kernels/hist/hist_global.cl and hist_cuda_global.cu, basic global atomics
// over a 2-D range of pixels x channels (seed 002's first variant), ITEMS pixels per work item; a
// clear kernel zeroes the bins first.
#include "gpu_common.hpp"

namespace pimg::hist {
namespace {

class GlobalAtomics final : public GpuVariant {
 public:
  using GpuVariant::GpuVariant;
  std::vector<ParamDecl> parameters() const override {
    return {int_range("block", 256, "work-group (block) size along the pixels", 1, 1024),
            int_range("items", 1, "pixels per work item, strided by the range width", 1, 1024)};
  }
  LaunchPlan plan(const Problem& p, const Workload& w, const Config& c, const DeviceInfo& d) const override {
    if (cuda()) interleaved_only(p, name());
    const auto decls = parameters();
    const std::size_t block = static_cast<std::size_t>(int_in(c, decls, "block"));
    const int items = int_in(c, decls, "items");
    check_group(d, block, 0);
    const std::size_t pixels = static_cast<std::size_t>(p.width) * p.height;
    GpuKernel k{"hist_global", {{"ITEMS", std::to_string(items)}}, 2};
    k.global = {ceil_div(ceil_div(pixels, items), block) * block, static_cast<std::size_t>(p.channels), 1};
    k.local = {block, 1, 1};
    k.count = static_cast<std::int64_t>(pixels);
    return gpu_hist_plan(w, k, true, "hist_clear");
  }
};

}  // namespace

std::unique_ptr<Variant> make_global(const std::string& backend) {
  const bool cl = backend == "opencl";
  return std::make_unique<GlobalAtomics>(GpuVariant::Desc{
      cl ? "cl_global" : "cuda_global", backend, cl ? "hist/hist_global.cl" : "hist/hist_cuda_global.cu",
      "global atomics, 2-D range pixels x channels, ITEMS pixels per work item (seed 002 basic)"});
}

}  // namespace pimg::hist
