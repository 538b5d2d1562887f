// cub_npp: the CUDA library baseline of histeq, run by the CUDA backend's library-call table
// (tuner/backends/cuda/histeq_library.cpp): CUB's HistogramEven into a device histogram, the family
// rule's LUT kernel (both from libpimg_cub.so), then NPP's nppiLUTPalette_8u_C1R_Ctx mapping every
// byte through the 256-entry table (the palette form is a plain table lookup, the LUT's semantics).
#include "histeq/histeq_family.hpp"
#include "common/native_libraries.hpp"
#include "pimg/registry.hpp"

namespace pimg::histeq {
std::unique_ptr<Variant> make_cub_npp() {
  return make_variant({"cub_npp", "histeq", "cuda", NativeCall{"histeq_cub_npp", native::kCudaLibraries},
                       "CUB HistogramEven + the rule's LUT kernel + NPP nppiLUTPalette_8u_C1R_Ctx (library baseline)", {},
                       [](const PlanContext& x) {  // args: in, out, width, height; scratch: hist (256 uint32), lut (256 bytes).
                         LaunchPlan plan;
                         plan.entry = "histeq_cub_npp";
                         plan.scratch = {{"hist", 256 * sizeof(std::uint32_t)}, {"lut", 256}};
                         plan.args = {KernelArg::buf("in"),  KernelArg::buf("out"),
                                      KernelArg::buf("hist"), KernelArg::buf("lut"),
                                      KernelArg::integer(x.problem.width), KernelArg::integer(x.problem.height)};
                         return plan;
                       },
                       true});
}

}  // namespace pimg::histeq
