// cl_local: kernels/hist/hist_local.cl, input partition: GROUPS work-groups stride over the input in
// VEC-byte loads, count into COPIES local sub-histograms per group (one per warp when COPIES = BLOCK /
// 32, or with `layout: interleaved` one per item residue i % COPIES, laid out word by word) and merge into
// the global bins with atomics; a clear kernel zeroes the bins first.
#include "hist/gpu_common.hpp"

namespace pimg::hist {
std::unique_ptr<Variant> make_cl_local() {
  return make_variant(
      {"cl_local", "hist", "opencl", "hist/hist_local.cl",
       "OpenCL input partition: per-group local sub-histograms (COPIES per group), VEC-byte loads, GROUPS "
       "groups, merged with global atomics",
       {int_range("block", 256, "work-group size", 1, 1024),
        int_range("groups", 0, "work-groups striding over the input; 0: 4 per compute unit", 0, 1 << 20),
        int_range("copies", 1, "local sub-histograms per group; blocked layout: BLOCK/COPIES consecutive items share one", 1, 1024),
        int_choice("vec", 4, "bytes per load: 1 (uchar), 4 (uint) or 16 (uint4)", {1, 4, 16}),
        layout_param()},
       [](const PlanContext& x) {
         const Problem& p = x.problem;
         const int block = x.int_knob("block");
         const int copies = x.int_knob("copies");
         const int vec = x.int_knob("vec");
         if (copies > block) throw PlanError("copies cannot exceed block");
         const std::size_t groups = groups_of(x, 4);
         check_group(x.device, static_cast<std::size_t>(block), static_cast<std::size_t>(copies) * 1024 * p.channels);
         GpuKernel k{"hist_local",
                     {{"BLOCK", std::to_string(block)},
                      {"COPIES", std::to_string(copies)},
                      {"VEC", std::to_string(vec)},
                      {"INTERLEAVED", interleaved_of(x)}},
                     1};
         k.global = {groups * block, 1, 1};
         k.local = {static_cast<std::size_t>(block), 1, 1};
         k.count = static_cast<std::int64_t>(spec_of(p).samples());
         return gpu_hist_plan(x.workload, k, true, "hist_clear");
       }});
}

}  // namespace pimg::hist
