// npp_filter: NVIDIA NPP's nppiFilterBorder_8u_C1R_Ctx / _C3R_Ctx with the problem's integer kernel and
// divisor, a library baseline run by the CUDA backend as the native call npp_filter_border
// (tuner/backends/cuda/native/npp_filter_border.cpp) and validated like any variant.
// NPP convolves, so the call passes the kernel flipped; replicate maps to NPP_BORDER_REPLICATE, the
// valid border to the inner ROI, and the zero border is refused (FilterBorder has only replicate).
#include "cuda_common.hpp"
#include "common/native_libraries.hpp"

namespace pimg::conv {
namespace {

class NppFilterVariant final : public Variant {
 public:
  std::string name() const override { return "npp_filter"; }
  std::string family() const override { return "conv"; }
  std::string backend() const override { return "cuda"; }
  std::string source() const override { return ""; }
  std::optional<NativeCall> native() const override { return NativeCall{"npp_filter_border", native::kCudaLibraries}; }
  std::string help() const override {
    return "NVIDIA NPP nppiFilterBorder_8u_C1R/C3R (library baseline; replicate and valid borders; validated "
           "against NPP's own rounding: division toward zero)";
  }
  std::vector<ParamDecl> parameters() const override { return {cuda_host_mem_param()}; }
  // Measured on an H100 with NPP 13.0 (tests/cuda CudaRun.NppRoundingRuleAgainstOurs): FilterBorder
  // divides toward zero, not half away from zero; NPP rows are validated exactly against that rule.
  std::string validation_rule() const override { return "truncate"; }
  bool baseline() const override { return true; }

  // args: in, out, width, height, out_width, out_height; the filter comes from the problem's defines.
  LaunchPlan plan(const Problem& p, const Workload& w, const Config& c, const DeviceInfo&) const override {
    const ConvSpec s = spec_of(p);
    require_one_image(s);
    if (p.attr("border") == "zero")
      throw PlanError("NPP's FilterBorder implements only NPP_BORDER_REPLICATE; the zero border has no NPP row");
    LaunchPlan plan;
    plan.entry = "npp_filter_border";
    add_problem_defines(plan, w);
    if (cuda_pinned(c)) plan.options.push_back(kCudaPinnedOption);
    plan.args = {KernelArg::buf("in"), KernelArg::buf("out")};
    add_scalar_args(plan, s);
    return plan;
  }
};

}  // namespace

std::unique_ptr<Variant> make_npp_filter() { return std::make_unique<NppFilterVariant>(); }

}  // namespace pimg::conv
