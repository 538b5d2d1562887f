// cl_outpart and cuda_outpart: kernels/hist/hist_outpart.cl and hist_cuda_outpart.cu, output partition
// (seed 002's fourth variant): each work-group owns BPG bins, reads the whole input and writes its bins;
// no global atomics, no clear, a single kernel.
#include "gpu_common.hpp"

namespace pimg::hist {
namespace {

class Outpart final : public GpuVariant {
 public:
  using GpuVariant::GpuVariant;
  std::vector<ParamDecl> parameters() const override {
    std::vector<ParamDecl> out = {
        int_range("block", 256, "work-group (block) size", 1, 1024),
        int_choice("bpg", 64, "bins per group, dividing 256; groups = 256 x channels / bpg", {1, 2, 4, 8, 16, 32, 64, 128, 256})};
    if (!cuda()) out.push_back(int_choice("vec", 4, "bytes per load: 1 (uchar), 4 (uint) or 16 (uint4)", {1, 4, 16}));
    return out;
  }
  LaunchPlan plan(const Problem& p, const Workload& w, const Config& c, const DeviceInfo& d) const override {
    if (cuda()) interleaved_only(p, name());
    const auto decls = parameters();
    const int block = int_in(c, decls, "block");
    const int bpg = int_in(c, decls, "bpg");
    check_group(d, static_cast<std::size_t>(block), static_cast<std::size_t>(bpg) * 4);
    GpuKernel k{"hist_outpart", {{"BLOCK", std::to_string(block)}, {"BPG", std::to_string(bpg)}}, 1};
    if (!cuda()) {
      const int vec = int_in(c, decls, "vec");
      k.defines.emplace_back("VEC", std::to_string(vec));
    }
    const std::size_t groups = static_cast<std::size_t>(256 / bpg) * p.channels;
    k.global = {groups * block, 1, 1};
    k.local = {static_cast<std::size_t>(block), 1, 1};
    k.count = static_cast<std::int64_t>(spec_of(p).samples());
    return gpu_hist_plan(w, k, false, "");
  }
};

}  // namespace

std::unique_ptr<Variant> make_outpart(const std::string& backend) {
  const bool cl = backend == "opencl";
  return std::make_unique<Outpart>(GpuVariant::Desc{
      cl ? "cl_outpart" : "cuda_outpart", backend, cl ? "hist/hist_outpart.cl" : "hist/hist_cuda_outpart.cu",
      cl ? "output partition: each group owns BPG bins and reads the whole input in VEC-byte loads; no global "
           "atomics (seed 002)"
         : "output partition: each block owns BPG bins and reads the whole input in 16-byte loads; no global "
           "atomics (seed 002)"});
}

}  // namespace pimg::hist
