// npp_filter: NVIDIA NPP's nppiFilterBorder_8u_C1R_Ctx / _C3R_Ctx with the problem's integer kernel and
// divisor, a library baseline run by the CUDA backend as the native call npp_filter_border
// (native/npp_filter_border.cpp) and validated like any variant.
// NPP convolves, so the call passes the kernel flipped; replicate maps to NPP_BORDER_REPLICATE, the
// valid border to the inner ROI, and the zero border is refused (FilterBorder has only replicate).
#include "conv/cuda_common.hpp"
#include "common/native_libraries.hpp"

namespace pimg::conv {
// Measured on an H100 with NPP 13.0 (tests/cuda CudaRun.NppRoundingRuleAgainstOurs): FilterBorder divides
// toward zero, not half away from zero; NPP rows are validated exactly against that rule ("truncate").
// args: in, out, width, height, out_width, out_height; the filter comes from the problem's defines.
std::unique_ptr<Variant> make_npp_filter() {
  return make_variant(
      {"npp_filter", "conv", "cuda", NativeCall{"npp_filter_border", native::kCudaLibraries},
       "NVIDIA NPP nppiFilterBorder_8u_C1R/C3R (library baseline; replicate and valid borders; validated "
       "against NPP's own rounding: division toward zero)",
       {cuda_host_mem_param()},
       [](const PlanContext& x) {
         const Problem& p = x.problem;
         const Workload& w = x.workload;
         const ConvSpec s = spec_of(p);
         require_one_image(s);
         if (p.attr("border") == "zero")
           throw PlanError("NPP's FilterBorder implements only NPP_BORDER_REPLICATE; the zero border has no NPP row");
         LaunchPlan plan;
         plan.entry = "npp_filter_border";
         add_problem_defines(plan, w);
         if (x.text_knob("host_mem") == "pinned") plan.options.push_back(kCudaPinnedOption);
         plan.args = {KernelArg::buf("in"), KernelArg::buf("out")};
         add_scalar_args(plan, s);
         return plan;
       },
      true, "truncate"});
}

}  // namespace pimg::conv
