// Baseline: the serial CPU reference itself, timed on the host like any variant.
#include "rotate/rotate_common.hpp"
#include "common/pix_common.hpp"

namespace pimg::rotate {
namespace {

// buffers: in, out; ints: width, height, channels, planar, interp, fill, cos, sin (rotate_args order).
void rotate_serial(void* const* buffers, const std::int64_t* ints, const double*) {
  reference(spec_from_args(ints), static_cast<const std::uint8_t*>(buffers[0]), static_cast<std::uint8_t*>(buffers[1]));
}

}  // namespace

std::vector<KernelArg> host_args(const RotateSpec& s) {
  return {KernelArg::buf("in"),         KernelArg::buf("out"),           KernelArg::integer(s.width),
          KernelArg::integer(s.height), KernelArg::integer(s.channels),  KernelArg::integer(s.planar),
          KernelArg::integer(s.interp), KernelArg::integer(s.fill),      KernelArg::integer(s.cs),
          KernelArg::integer(s.sn)};
}

RotateSpec spec_from_args(const std::int64_t* ints) {
  RotateSpec s;
  s.width = static_cast<int>(ints[0]);
  s.height = static_cast<int>(ints[1]);
  s.channels = static_cast<int>(ints[2]);
  s.planar = ints[3] != 0;
  s.interp = static_cast<int>(ints[4]);
  s.fill = static_cast<int>(ints[5]);
  s.cs = static_cast<int>(ints[6]);
  s.sn = static_cast<int>(ints[7]);
  return s;
}

void register_serial(Registry& reg) {
  reg.add_host_function("rotate_serial", &rotate_serial);
  reg.add_variant(make_variant(
      {"serial", "rotate", "host", NativeCall{"rotate_serial", ""}, "the serial CPU reference, one thread (baseline)",
       {},
       [](const PlanContext& x) {
         const Problem& p = x.problem;
         LaunchPlan plan;
         plan.entry = "rotate_serial";
         plan.args = host_args(spec_of(p));
         return plan;
       },
      true}));
}

}  // namespace pimg::rotate
