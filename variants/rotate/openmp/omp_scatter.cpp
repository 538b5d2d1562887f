// omp_scatter: seed 002's scatter rotation on OpenMP (kernels/rotate/rotate_scatter_omp.cpp), the twin of the GPU
// scatter (scatter.cpp: the rule "scatter", check_nearest, owner_buffer).
#include <algorithm>
#include <cctype>

#include "rotate/rotate_common.hpp"

namespace pimg::rotate {
std::unique_ptr<Variant> make_omp_scatter() {
  std::vector<ParamDecl> params = omp_params();
  params.pop_back();  // simd: the gather's
  return make_variant(
      {"omp_scatter", "rotate", "openmp", "rotate/rotate_scatter_omp.cpp",
       "seed 002's scatter on OpenMP: clear, atomic-max mark and copy loops over rows in one parallel region, "
       "validated by the rule \"scatter\"",
       params,
       [](const PlanContext& x) {
         const RotateSpec s = spec_of(x.problem);
         check_nearest(s, "omp_scatter");
         std::string schedule = x.text_knob("schedule");
         std::transform(schedule.begin(), schedule.end(), schedule.begin(), [](unsigned char ch) { return std::toupper(ch); });
         LaunchPlan plan;
         plan.entry = "rotate_scatter_omp";
         for (const auto& [name, value] : x.workload.defines) plan.defines.emplace_back(name, value);
         plan.defines.emplace_back("SCHED", "PIMG_SCHED_" + schedule);
         plan.defines.emplace_back("CHUNK", std::to_string(x.int_knob("chunk")));
         plan.defines.emplace_back("THREADS", std::to_string(x.int_knob("threads")));
         plan.dims = 2;
         plan.global = {static_cast<std::size_t>(s.width), static_cast<std::size_t>(s.height), 1};
         plan.args = {KernelArg::buf("in"), KernelArg::buf("out"), KernelArg::buf("owner"), KernelArg::integer(s.width),
                      KernelArg::integer(s.height)};
         plan.scratch = {owner_buffer(s)};
         return plan;
       },
       false, "scatter"});
}

}  // namespace pimg::rotate
