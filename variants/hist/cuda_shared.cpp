// cuda_shared: kernels/hist/hist_cuda_shared.cu, input partition as experts write it: GROUPS blocks
// stride over the input with 4- or 16-byte loads, ITEMS loads in flight per thread, COPIES shared
// sub-histograms per block (one per warp when COPIES = BLOCK / 32, or with `layout: interleaved` one per
// lane residue t % COPIES, laid out word by word), merged with global atomics; a clear kernel zeroes the
// bins first, or with `onepass` 1 one launch adds into scratch accumulators and its last block writes the
// bins. `prefetch` 1 issues a thread's next ITEMS loads before it counts the current ones.
#include "gpu_common.hpp"

namespace pimg::hist {
namespace {

class CudaShared final : public Variant {
 public:
  std::string name() const override { return "cuda_shared"; }
  std::string family() const override { return "hist"; }
  std::string backend() const override { return "cuda"; }
  std::string source() const override { return "hist/hist_cuda_shared.cu"; }
  std::string help() const override {
    return "CUDA input partition: per-warp (COPIES) shared sub-histograms, VEC-byte loads, ITEMS loads in flight, "
           "GROUPS blocks, merged with global atomics";
  }
  std::vector<ParamDecl> parameters() const override {
    return {int_range("block", 256, "threads per block", 32, 1024),
            int_range("groups", 0, "blocks striding over the input; 0: 4 per multiprocessor", 0, 1 << 20),
            int_range("copies", 8, "shared sub-histograms per block; blocked layout: BLOCK/COPIES consecutive threads share one", 1, 32),
            int_choice("vec", 16, "bytes per load: 4 (32-bit) or 16 (128-bit)", {4, 16}),
            int_range("items", 2, "loads issued per thread before counting them", 1, 16),
            int_choice("prefetch", 0, "1: the next ITEMS loads issued before the current ones are counted (software pipelining)",
                       {0, 1}),
            layout_param(),
            int_choice("onepass", 0,
                       "1: one launch, no clear kernel: the blocks add into scratch accumulators and the last block "
                       "(a ticket counter) writes every bin and restores the scratch",
                       {0, 1})};
  }
  LaunchPlan plan(const Problem& p, const Workload& w, const Config& c, const DeviceInfo& d) const override {
    interleaved_only(p, name());
    const auto decls = parameters();
    const int block = int_in(c, decls, "block");
    const int copies = int_in(c, decls, "copies");
    const int vec = int_in(c, decls, "vec");
    const int items = int_in(c, decls, "items");
    const int onepass = int_in(c, decls, "onepass");
    const int prefetch = int_in(c, decls, "prefetch");
    if (copies > block) throw PlanError("copies cannot exceed block");
    check_group(d, static_cast<std::size_t>(block), static_cast<std::size_t>(copies) * 1024 * p.channels);
    GpuKernel k{"hist_shared",
                {{"BLOCK", std::to_string(block)},
                 {"COPIES", std::to_string(copies)},
                 {"VEC", std::to_string(vec)},
                 {"ITEMS", std::to_string(items)},
                 {"PREFETCH", std::to_string(prefetch)},
                 {"INTERLEAVED", interleaved_of(c, decls)},
                 {"ONEPASS", std::to_string(onepass)}},
                1};
    k.global = {groups_of(c, decls, d, 4) * block, 1, 1};
    k.local = {static_cast<std::size_t>(block), 1, 1};
    k.count = static_cast<std::int64_t>(spec_of(p).samples());
    if (!onepass) return gpu_hist_plan(w, k, true, "hist_clear");
    // acc: the bins' accumulators, the ticket counter and the launch's base value, one 32-bit word each
    LaunchPlan plan = gpu_hist_plan(w, k, false, "");
    plan.scratch.push_back({"acc", w.output_bytes + 2 * sizeof(std::uint32_t)});
    plan.args.push_back(KernelArg::buf("acc"));
    return plan;
  }
};

}  // namespace

std::unique_ptr<Variant> make_cuda_shared() { return std::make_unique<CudaShared>(); }

}  // namespace pimg::hist
