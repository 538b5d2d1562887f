// Baseline: NVIDIA NPP's nppiMirror_8u_C3R_Ctx (3 channels interleaved) or _C1R_Ctx (1 channel, and each
// plane of a planar image, the calls timed together) about NPP_VERTICAL_AXIS, run by the CUDA backend
// as the native call npp_mirror (native/npp_mirror.cpp), validated exactly.
#include "flip/variants.hpp"
#include "common/native_libraries.hpp"

namespace pimg::flip {

void register_npp(Registry& reg) {
  reg.add_variant(make_variant(
      {"npp_mirror", "flip", "cuda", NativeCall{"npp_mirror", native::kCudaLibraries},
       "NVIDIA NPP nppiMirror_8u_C3R_Ctx / C1R_Ctx (per plane when planar), NPP_VERTICAL_AXIS (library baseline)", {},
       [](const PlanContext& x) {
         const Problem& p = x.problem;
         return pix::layout_host_plan("npp_mirror", p);  // in, out, width, height, planes, samples
       },
      true}));
}

}  // namespace pimg::flip
