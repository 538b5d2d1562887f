// Baseline: NVIDIA NPP's nppiRotate_8u_C1R_Ctx / _C3R_Ctx (planar: C1R per plane), run by the CUDA backend as
// the native call npp_rotate (native/npp_rotate.cpp). NPP rotates about the origin and
// shifts; the shift (npp_shift) turns it about the family's centre. NPP leaves outputs whose source lies
// outside untouched, so the call fills the output first: inside the timed region (fill_timed 1, the default)
// or just before it (0). NPP computes its source
// points from the angle in floating point, so its rows are validated exactly against the family's rule "npp"
// (NPPI_INTER_NN for nearest, NPPI_INTER_LINEAR for bilinear).
#include <fmt/format.h>

#include "rotate/rotate_common.hpp"
#include "common/native_libraries.hpp"
#include "common/pix_common.hpp"

namespace pimg::rotate {

LaunchPlan npp_plan(const RotateSpec& s, int depth, bool fill_timed) {
  if (depth != 1 && depth != 2) throw PlanError(fmt::format("npp_rotate: samples of {} bytes", depth));
  const auto [shift_x, shift_y] = npp_shift(s.width, s.height, s.angle, kNppConvention.centre);
  LaunchPlan plan;
  plan.entry = "npp_rotate";
  plan.args = {KernelArg::buf("in"),
               KernelArg::buf("out"),
               KernelArg::integer(s.width),
               KernelArg::integer(s.height),
               KernelArg::integer(s.planar ? s.channels : 1),
               KernelArg::integer(s.planar ? 1 : s.channels),
               KernelArg::integer(s.interp),
               KernelArg::integer(s.fill),
               KernelArg::integer(depth),
               KernelArg::real(s.angle),
               KernelArg::real(shift_x),
               KernelArg::real(shift_y),
               KernelArg::integer(fill_timed ? 1 : 0)};
  return plan;
}

std::unique_ptr<Variant> make_npp_rotate() {
  const std::vector<ParamDecl> params = {
      int_choice("fill_timed", 1,
                 "1: nppiSet of the fill inside the timed region (the whole output from a fresh buffer); 0: just "
                 "before it (NPP's rotation alone)",
                 {0, 1})};
  return make_variant(
      {"npp_rotate", "rotate", "cuda", NativeCall{"npp_rotate", native::kCudaLibraries},
       "NVIDIA NPP nppiRotate_8u_C1R_Ctx / C3R_Ctx (per plane when planar) after nppiSet of the fill value "
       "(library baseline, rule npp)",
       params,
       [](const PlanContext& x) {
         const Problem& p = x.problem;
         return npp_plan(spec_of(p), 1, x.int_knob("fill_timed") == 1);
       },
      true, "npp"});
}

}  // namespace pimg::rotate
