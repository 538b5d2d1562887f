// Baseline: the serial CPU reference itself, timed on the host like any variant.
#include "hist/hist_common.hpp"
#include "common/pix_common.hpp"

namespace pimg::hist {
namespace {

// buffers: in, out; ints: samples, channels, planar.
void hist_serial(void* const* buffers, const std::int64_t* ints, const double*) {
  reference(static_cast<const std::uint8_t*>(buffers[0]), static_cast<std::size_t>(ints[0]), static_cast<int>(ints[1]),
            ints[2] != 0, static_cast<std::uint32_t*>(buffers[1]));
}

}  // namespace

void register_serial(Registry& reg) {
  reg.add_host_function("hist_serial", &hist_serial);
  reg.add_variant(make_variant(
      {"serial", "hist", "host", NativeCall{"hist_serial", ""}, "the serial CPU reference, one thread (baseline)", {},
       [](const PlanContext& x) {
         const Problem& p = x.problem;
         const HistSpec s = spec_of(p);
         LaunchPlan plan;
         plan.entry = "hist_serial";
         plan.args = {KernelArg::buf("in"), KernelArg::buf("out"),
                      KernelArg::integer(static_cast<std::int64_t>(s.samples())), KernelArg::integer(s.channels),
                      KernelArg::integer(s.planar ? 1 : 0)};
         return plan;
       },
      true}));
}

}  // namespace pimg::hist
