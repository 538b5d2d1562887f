// cl_local: kernels/hist/hist_local.cl, input partition: GROUPS work-groups stride over the input in
// VEC-byte loads, count into COPIES local sub-histograms per group (one per warp when COPIES = BLOCK /
// 32, or with `layout: interleaved` one per item residue i % COPIES, laid out word by word) and merge into
// the global bins with atomics; a clear kernel zeroes the bins first.
#include "hist/gpu_common.hpp"

namespace pimg::hist {
namespace {

class ClLocal final : public Variant {
 public:
  std::string name() const override { return "cl_local"; }
  std::string family() const override { return "hist"; }
  std::string backend() const override { return "opencl"; }
  std::string source() const override { return "hist/hist_local.cl"; }
  std::string help() const override {
    return "OpenCL input partition: per-group local sub-histograms (COPIES per group), VEC-byte loads, GROUPS "
           "groups, merged with global atomics";
  }
  std::vector<ParamDecl> parameters() const override {
    return {int_range("block", 256, "work-group size", 1, 1024),
            int_range("groups", 0, "work-groups striding over the input; 0: 4 per compute unit", 0, 1 << 20),
            int_range("copies", 1, "local sub-histograms per group; blocked layout: BLOCK/COPIES consecutive items share one", 1, 1024),
            int_choice("vec", 4, "bytes per load: 1 (uchar), 4 (uint) or 16 (uint4)", {1, 4, 16}),
            layout_param()};
  }
  LaunchPlan plan(const PlanContext& x) const override {
    const Problem& p = x.problem;
    const Workload& w = x.workload;
    const Config& c = x.config;
    const DeviceInfo& d = x.device;
    const auto decls = parameters();
    const int block = int_in(c, decls, "block");
    const int copies = int_in(c, decls, "copies");
    const int vec = int_in(c, decls, "vec");
    if (copies > block) throw PlanError("copies cannot exceed block");
    const std::size_t groups = groups_of(c, decls, d, 4);
    check_group(d, static_cast<std::size_t>(block), static_cast<std::size_t>(copies) * 1024 * p.channels);
    GpuKernel k{"hist_local",
                {{"BLOCK", std::to_string(block)},
                 {"COPIES", std::to_string(copies)},
                 {"VEC", std::to_string(vec)},
                 {"INTERLEAVED", interleaved_of(c, decls)}},
                1};
    k.global = {groups * block, 1, 1};
    k.local = {static_cast<std::size_t>(block), 1, 1};
    k.count = static_cast<std::int64_t>(spec_of(p).samples());
    return gpu_hist_plan(w, k, true, "hist_clear");
  }
};

}  // namespace

std::unique_ptr<Variant> make_cl_local() { return std::make_unique<ClLocal>(); }

}  // namespace pimg::hist
