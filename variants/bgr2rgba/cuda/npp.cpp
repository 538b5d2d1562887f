// Baseline: NVIDIA NPP's nppiSwapChannels_8u_C3C4R_Ctx, run by the CUDA backend as the native call
// npp_swap_channels_c3c4 (native/npp_swap_channels_c3c4.cpp): destination order
// {2, 1, 0, 3} and the problem's alpha as NPP's fill value, validated exactly like any variant.
#include "bgr2rgba/variants.hpp"
#include "common/native_libraries.hpp"

namespace pimg::bgr2rgba {

void register_npp(Registry& reg) {
  reg.add_variant(make_variant(
      {"npp_swap_channels", "bgr2rgba", "cuda", NativeCall{"npp_swap_channels_c3c4", native::kCudaLibraries},
       "NVIDIA NPP nppiSwapChannels_8u_C3C4R_Ctx, order {2,1,0,3}, alpha as the fill value (library baseline)", {},
       [](const PlanContext& x) {
         const Problem& p = x.problem;
         LaunchPlan plan;
         plan.entry = "npp_swap_channels_c3c4";
         plan.args = {KernelArg::buf("in"), KernelArg::buf("out"), KernelArg::integer(p.width),
                      KernelArg::integer(p.height), KernelArg::integer(std::stoi(p.attr("alpha")))};
         return plan;
       },
      true}));
}

}  // namespace pimg::bgr2rgba
