// cuda_shared: kernels/hist/hist_cuda_shared.cu, input partition as experts write it: GROUPS blocks
// stride over the input with 4- or 16-byte loads, ITEMS loads in flight per thread, COPIES shared
// sub-histograms per block (one per warp when COPIES = BLOCK / 32, or with `layout: interleaved` one per
// lane residue t % COPIES, laid out word by word), merged with global atomics; a clear kernel zeroes the
// bins first, or with `onepass` 1 one launch adds into scratch accumulators and its last block writes the
// bins. `prefetch` 1 issues a thread's next ITEMS loads before it counts the current ones; `bulk` > 0 streams the
// input through a ring of `stages` chunks in shared memory with the bulk-copy engine instead (sm_90).
#include "hist/gpu_common.hpp"

namespace pimg::hist {
namespace {

// The bulk-copy ring's demands (kernels/hist/hist_cuda_shared.cu, BULK): Hopper's copy engine, 16-byte vectors, one
// launch (the ring is dynamic shared memory, which only the counting launch has), chunks of 16-byte multiples, and the
// ring beside the sub-histograms within what a block may opt in to.
void check_bulk(const DeviceInfo& d, int bulk, int stages, int vec, int onepass, std::size_t sub_bytes) {
  const auto limit = [&](const char* name) { return d.limits.count(name) ? d.limits.at(name) : 0.0; };
  if (limit("compute_capability") < 90) throw PlanError("bulk copies need compute capability 9.0 (cp.async.bulk)");
  if (vec != 16 || onepass != 1) throw PlanError("bulk needs vec 16 and onepass 1");
  if (bulk % 16 != 0) throw PlanError(fmt::format("bulk {} is not a multiple of 16 bytes", bulk));
  const double ring = static_cast<double>(bulk) * stages, optin = limit("shared_mem_per_block_optin");
  const double fixed = static_cast<double>(sub_bytes) + 8.0 * stages;  // static: the sub-histograms and the mbarriers
  if (fixed > limit("local_mem_size"))
    throw PlanError(fmt::format("{} bytes of sub-histograms and mbarriers exceed the {} bytes of static shared memory",
                                fixed, limit("local_mem_size")));
  if (ring + fixed > optin)
    throw PlanError(fmt::format("a ring of {} x {} bytes beside {} bytes of sub-histograms exceeds the {} bytes of "
                                "shared memory a block may opt in to",
                                stages, bulk, sub_bytes, optin));
}

LaunchPlan shared_plan(const PlanContext& x) {
  const Problem& p = x.problem;
  const Workload& w = x.workload;
  interleaved_only(p, "cuda_shared");
  const int block = x.int_knob("block");
  const int copies = x.int_knob("copies");
  const int vec = x.int_knob("vec");
  const int items = x.int_knob("items");
  const int onepass = x.int_knob("onepass");
  const int prefetch = x.int_knob("prefetch");
  const int bulk = x.int_knob("bulk");
  const int stages = x.int_knob("stages");
  if (copies > block) throw PlanError("copies cannot exceed block");
  const std::size_t sub_bytes = static_cast<std::size_t>(copies) * 1024 * p.channels;
  check_group(x.device, static_cast<std::size_t>(block), sub_bytes);
  if (bulk > 0) check_bulk(x.device, bulk, stages, vec, onepass, sub_bytes);
  GpuKernel k{"hist_shared",
              {{"BLOCK", std::to_string(block)},
               {"COPIES", std::to_string(copies)},
               {"VEC", std::to_string(vec)},
               {"ITEMS", std::to_string(items)},
               {"PREFETCH", std::to_string(prefetch)},
               {"BULK", std::to_string(bulk)},
               {"STAGES", std::to_string(stages)},
               {"INTERLEAVED", interleaved_of(x)},
               {"ONEPASS", std::to_string(onepass)}},
              1};
  k.global = {groups_of(x, 4) * block, 1, 1};
  k.local = {static_cast<std::size_t>(block), 1, 1};
  k.count = static_cast<std::int64_t>(spec_of(p).samples());
  if (!onepass) return gpu_hist_plan(w, k, true, "hist_clear");
  // acc: the bins' accumulators, the ticket counter and the launch's base value, one 32-bit word each
  LaunchPlan plan = gpu_hist_plan(w, k, false, "");
  if (bulk > 0) plan.shared_bytes = static_cast<std::size_t>(bulk) * static_cast<std::size_t>(stages);
  plan.scratch.push_back({"acc", w.output_bytes + 2 * sizeof(std::uint32_t)});
  plan.args.push_back(KernelArg::buf("acc"));
  return plan;
}

}  // namespace

std::unique_ptr<Variant> make_cuda_shared() {
  return make_variant(
      {"cuda_shared", "hist", "cuda", "hist/hist_cuda_shared.cu",
       "CUDA input partition: per-warp (COPIES) shared sub-histograms, VEC-byte loads, ITEMS loads in flight, "
       "GROUPS blocks, merged with global atomics",
       {int_range("block", 256, "threads per block", 32, 1024),
        int_range("groups", 0, "blocks striding over the input; 0: 4 per multiprocessor", 0, 1 << 20),
        int_range("copies", 8, "shared sub-histograms per block; blocked layout: BLOCK/COPIES consecutive threads share one", 1, 32),
        int_choice("vec", 16, "bytes per load: 4 (32-bit) or 16 (128-bit)", {4, 16}),
        int_range("items", 2, "loads issued per thread before counting them", 1, 16),
        int_choice("prefetch", 0, "1: the next ITEMS loads issued before the current ones are counted (software pipelining)",
                   {0, 1}),
        int_range("bulk", 0,
                  "bytes per chunk copied into shared memory by the bulk-copy engine (sm_90; needs vec 16 and "
                  "onepass 1; items and prefetch unused); 0: the threads load the input",
                  0, 1 << 16),
        int_range("stages", 2, "chunks in the bulk-copy ring (with bulk)", 1, 16),
        layout_param(),
        int_choice("onepass", 0,
                   "1: one launch, no clear kernel: the blocks add into scratch accumulators and the last block "
                   "(a ticket counter) writes every bin and restores the scratch",
                   {0, 1})},
       shared_plan});
}

}  // namespace pimg::hist
