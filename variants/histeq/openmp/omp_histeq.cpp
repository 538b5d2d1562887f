// omp_histeq: histeq on OpenMP (kernels/histeq/histeq_omp.cpp: private sub-histograms merged by a reduction, LUT,
// parallel map).
#include "hist/hist_common.hpp"
#include "histeq/histeq_family.hpp"

namespace pimg::histeq {
void register_omp_variants(Registry& reg) {
  std::vector<ParamDecl> params = hist::omp_parallel_params();
  params.push_back(int_choice("copies", 2, "sub-histograms per thread (1, 2 or 4) taking consecutive bytes in turn", {1, 2, 4}));
  params.push_back(int_choice("wide", 0, "1: count 64-bit words split into bytes; 0: byte loads", {0, 1}));
  params.push_back(text_choice("map", {"bytes", "words", "vbmi"}, "bytes",
                               "map pass: one byte per step, one 64-bit word per step, or AVX-512 VBMI byte "
                               "permutes over the LUT, 64 bytes per step (a compile error without AVX-512 VBMI)"));
  reg.add_variant(make_variant(
      {"omp_histeq", "histeq", "openmp", "histeq/histeq_omp.cpp",
       "OpenMP private sub-histograms over tasks of 64 KiB merged by an array reduction, the LUT on one thread, "
       "parallel map",
       params, [](const PlanContext& x) {
         const Problem& p = x.problem;
         LaunchPlan plan;
         plan.entry = "histeq_omp";
         const int copies = x.int_knob("copies");
         hist::add_omp_parallel_defines(plan, x);
         plan.defines.emplace_back("COPIES", std::to_string(copies));
         plan.defines.emplace_back("WIDE", std::to_string(x.int_knob("wide")));
         plan.defines.emplace_back("MAP", std::to_string(hist::choice_index(x, "map")));
         plan.dims = 1;
         plan.global = {static_cast<std::size_t>(p.width) * p.height, 1, 1};
         plan.args = {KernelArg::buf("in"), KernelArg::buf("out"),
                      KernelArg::integer(static_cast<std::int64_t>(p.width) * p.height)};
         return plan;
       }}));
}

}  // namespace pimg::histeq
