// Baseline: the serial CPU reference itself (the seed's sequential search), timed on the host.
#include "semblance/register.hpp"
#include "semblance/semblance_family.hpp"
#include "common/pix_common.hpp"
#include "semblance/semblance_variants.hpp"

namespace pimg::semblance {
namespace {

// buffers: samples, hdr, axes, out; ints: traces, ns, tau, na, nb, nc, nd, ne; reals: t0, m0, h0, idt
void semblance_serial(void* const* buffers, const std::int64_t* ints, const double* reals) {
  SembSpec s;
  s.traces = static_cast<int>(ints[0]);
  s.ns = static_cast<int>(ints[1]);
  s.tau = static_cast<int>(ints[2]);
  s.w = 2 * s.tau + 1;
  for (int d = 0; d < 5; ++d) s.n[d] = static_cast<int>(ints[3 + d]);
  s.t0 = static_cast<float>(reals[0]);
  s.m0 = static_cast<float>(reals[1]);
  s.h0 = static_cast<float>(reals[2]);
  s.idt = static_cast<float>(reals[3]);
  reference(s, static_cast<const float*>(buffers[0]), static_cast<const std::int32_t*>(buffers[1]),
            static_cast<const float*>(buffers[2]), static_cast<std::uint8_t*>(buffers[3]));
}

}  // namespace

void register_serial(Registry& reg) {
  reg.add_host_function("semblance_serial", &semblance_serial);
  reg.add_variant(make_variant(
      {"serial", "semblance", "host", NativeCall{"semblance_serial", ""},
       "the serial CPU reference, one thread (the seed's sequential search)", {},
       [](const PlanContext& x) {
         const Problem& p = x.problem;
         const SembSpec s = spec_of(p);
         LaunchPlan plan;
         plan.entry = "semblance_serial";
         plan.args = {KernelArg::buf("samples"), KernelArg::buf("hdr"), KernelArg::buf("axes"), KernelArg::buf("out"),
                      KernelArg::integer(s.traces), KernelArg::integer(s.ns), KernelArg::integer(s.tau)};
         for (int d = 0; d < 5; ++d) plan.args.push_back(KernelArg::integer(s.n[d]));
         add_real_args(plan, s);
         return plan;
       },
      true}));
}

}  // namespace pimg::semblance
