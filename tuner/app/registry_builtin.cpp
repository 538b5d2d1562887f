// The registry of this build: every family, variant, strategy, observer and backend, registered explicitly.
// Each backend's registration is in its own folder (register.cpp), called through the generated table
// (backend_registrations.hpp), so no backend is named here.
#include "backend_registrations.hpp"
#include "bgr2rgba/register.hpp"
#include "conv/register.hpp"
#include "hist/register.hpp"
#include "histeq/register.hpp"
#include "flip/register.hpp"
#include "maxpool/register.hpp"
#include "observers.hpp"
#include "pimg/registry.hpp"
#include "pimg/strategies.hpp"
#include "rotate/register.hpp"
#include "semblance/register.hpp"

namespace pimg {

static void fill(Registry& r) {
  // The backends first: each adds, besides itself where it is built, the language of the sources it compiles
  // and, where it compiles the portable GPU kernels, its target (variants/common/portable_target.hpp), built or
  // not. bgr2rgba, flip, maxpool, rotate, hist and histeq register each portable formulation once per target
  // (cl_tree, cuda_tree).
  pix::PortableTargets gpus;
  for (const BackendRegistration& b : backend_registrations()) b.add(r, gpus);

  conv::register_conv(r);
  rotate::register_rotate(r, gpus);
  bgr2rgba::register_bgr2rgba(r, gpus);
  flip::register_flip(r, gpus);
  maxpool::register_maxpool(r, gpus);
  semblance::register_semblance(r);
  hist::register_hist(r, gpus);
  histeq::register_histeq(r, gpus);

  r.add_strategy(exhaustive_strategy());
  r.add_strategy(random_strategy());
  r.add_strategy(annealing_strategy());
  r.add_strategy(genetic_strategy());
  r.add_strategy(diffevo_strategy());
  r.add_strategy(local_strategy());
  r.add_strategy(forest_strategy());
  r.add_strategy(gp_strategy());
  r.add_strategy(portfolio_strategy());
  r.set_default_strategy("portfolio");  // chosen by replay: bench/results/2026-11-25-t4-strategies-4

  r.add_observer(nvml_observer());
  r.add_observer(cpu_load_observer());
  r.add_observer(perf_observer());
  r.add_observer(footprint_observer());
  r.add_observer(rapl_observer());
}

std::unique_ptr<Registry> Registry::make_builtin() {
  auto reg = std::make_unique<Registry>();
  fill(*reg);
  return reg;
}

const Registry& Registry::builtin() {
  static const std::unique_ptr<Registry> reg = make_builtin();
  return *reg;
}

}  // namespace pimg
