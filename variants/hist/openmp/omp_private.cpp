// omp_private: kernels/hist/hist_omp.cpp, per-thread private histograms (COPIES sub-histograms per
// thread, optional 64-bit loads) over scheduled tasks, merged with atomics, a critical section or an
// OpenMP array reduction.
#include "hist/hist_common.hpp"

namespace pimg::hist {
std::unique_ptr<Variant> make_omp_private() {
  std::vector<ParamDecl> params = omp_parallel_params();
  params.push_back(text_choice("merge", {"atomic", "critical", "reduction"}, "atomic",
                               "how threads add their bins: omp atomic per bin, one critical section, or an array reduction"));
  params.push_back(int_choice("copies", 1, "sub-histograms per thread (1, 2 or 4) taking consecutive pixels in turn", {1, 2, 4}));
  params.push_back(int_choice("wide", 0, "1: read 64-bit words and split them into bytes; 0: byte loads", {0, 1}));
  return make_variant(
      {"omp_private", "hist", "openmp", "hist/hist_omp.cpp",
       "OpenMP per-thread private histograms over tasks of 96 KiB, merged into the output", params,
       [](const PlanContext& x) {  // args: in, out, samples
         const int copies = x.int_knob("copies");
         LaunchPlan plan;
         plan.entry = "hist_omp";
         for (const auto& [k, v] : x.workload.defines) plan.defines.emplace_back(k, v);
         add_omp_parallel_defines(plan, x);
         plan.defines.emplace_back("MERGE", std::to_string(choice_index(x, "merge")));
         plan.defines.emplace_back("COPIES", std::to_string(copies));
         plan.defines.emplace_back("WIDE", std::to_string(x.int_knob("wide")));
         plan.dims = 1;
         plan.global = {spec_of(x.problem).samples(), 1, 1};
         plan.args = {KernelArg::buf("in"), KernelArg::buf("out"),
                      KernelArg::integer(static_cast<std::int64_t>(spec_of(x.problem).samples()))};
         return plan;
       }});
}

}  // namespace pimg::hist
