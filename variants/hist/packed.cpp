// cl_packed and cuda_packed: kernels/hist/hist_packed.cl and hist_cuda_packed.cu, one 32-bit word (4
// samples) per read (seed 002's packed variant), ITEMS words per work item, global atomics; a clear
// kernel zeroes the bins first.
#include "gpu_common.hpp"

namespace pimg::hist {
namespace {

class Packed final : public GpuVariant {
 public:
  using GpuVariant::GpuVariant;
  std::vector<ParamDecl> parameters() const override {
    return {int_range("block", 256, "work-group (block) size", 1, 1024), int_range("items", 1, "32-bit words per work item", 1, 1024)};
  }
  LaunchPlan plan(const Problem& p, const Workload& w, const Config& c, const DeviceInfo& d) const override {
    if (cuda()) interleaved_only(p, name());
    const auto decls = parameters();
    const std::size_t block = static_cast<std::size_t>(int_in(c, decls, "block"));
    const int items = int_in(c, decls, "items");
    check_group(d, block, 0);
    const std::size_t samples = spec_of(p).samples();
    GpuKernel k{"hist_packed", {{"ITEMS", std::to_string(items)}}, 1};
    // At least 3 items, for the up to 3 samples after the last whole word.
    k.global = {ceil_div(std::max<std::size_t>(ceil_div(samples / 4, items), 3), block) * block, 1, 1};
    k.local = {block, 1, 1};
    k.count = static_cast<std::int64_t>(samples);
    return gpu_hist_plan(w, k, true, "hist_clear");
  }
};

}  // namespace

std::unique_ptr<Variant> make_packed(const std::string& backend) {
  const bool cl = backend == "opencl";
  return std::make_unique<Packed>(GpuVariant::Desc{
      cl ? "cl_packed" : "cuda_packed", backend, cl ? "hist/hist_packed.cl" : "hist/hist_cuda_packed.cu",
      "packed reads: 32-bit words of 4 samples, ITEMS words per work item, global atomics (seed 002)"});
}

}  // namespace pimg::hist
