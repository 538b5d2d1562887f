// The two global-atomics kernels of seed 002, both cleared first by a clear kernel zeroing the bins, each one
// portable text registered on every portable target: cl_global and cuda_global (kernels/hist/hist_global_gpu.h),
// its first variant, over a 2-D range of pixels x channels, ITEMS pixels per work item; cl_packed and cuda_packed
// (hist_packed_gpu.h), its packed variant, one 32-bit word (4 samples) per read, ITEMS words per work item. One
// plan: they differ only in what an item reads, hence the range and the count.
#include "gpu_common.hpp"

namespace pimg::hist {
namespace {

LaunchPlan global_plan(const PlanContext& x, bool packed) {
  const Problem& p = x.problem;
  const std::size_t block = static_cast<std::size_t>(x.int_knob("block"));
  const int items = x.int_knob("items");
  check_group(x.device, block, 0);
  GpuKernel k{packed ? "hist_packed" : "hist_global", {{"ITEMS", std::to_string(items)}}, packed ? 1 : 2};
  if (packed) {
    const std::size_t samples = spec_of(p).samples();
    // At least 3 items, for the up to 3 samples after the last whole word.
    k.global = {ceil_div(std::max<std::size_t>(ceil_div(samples / 4, items), 3), block) * block, 1, 1};
    k.count = static_cast<std::int64_t>(samples);
  } else {
    const std::size_t pixels = static_cast<std::size_t>(p.width) * p.height;
    k.global = {ceil_div(ceil_div(pixels, items), block) * block, static_cast<std::size_t>(p.channels), 1};
    k.count = static_cast<std::int64_t>(pixels);
  }
  k.local = {block, 1, 1};
  return gpu_hist_plan(x.workload, k, true, "hist_clear");
}

// One formulation of seed 002 on `gpu`: its global-atomics kernel, or the packed one.
std::unique_ptr<Variant> make_global_atomics(const pix::PortableTarget& gpu, bool packed) {
  std::vector<ParamDecl> params = {
      int_range("block", 256, packed ? "work-group (block) size" : "work-group (block) size along the pixels", 1, 1024),
      int_range("items", 1, packed ? "32-bit words per work item" : "pixels per work item, strided by the range width", 1,
                1024)};
  return make_variant(gpu_variant(
      gpu, packed ? "packed" : "global",
      packed ? "packed reads: 32-bit words of 4 samples, ITEMS words per work item, global atomics (seed 002)"
             : "global atomics, 2-D range pixels x channels, ITEMS pixels per work item (seed 002 basic)",
      std::move(params), [packed](const PlanContext& x) { return global_plan(x, packed); }));
}

}  // namespace

std::unique_ptr<Variant> make_global(const pix::PortableTarget& gpu) { return make_global_atomics(gpu, false); }
std::unique_ptr<Variant> make_packed(const pix::PortableTarget& gpu) { return make_global_atomics(gpu, true); }

}  // namespace pimg::hist
