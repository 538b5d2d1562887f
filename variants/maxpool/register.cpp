// The maxpool family's one registration list, and the arguments its kernels share.
#include "register.hpp"

#include <fmt/format.h>

#include "pimg/errors.hpp"

#include "maxpool_family.hpp"
#include "variants.hpp"

namespace pimg::maxpool {

void finish_plan(LaunchPlan& plan, const Problem& p, int pixels, int groups) {
  plan.defines.emplace_back("PIXELS", std::to_string(pixels));
  plan.defines.emplace_back("GROUPS", std::to_string(groups));
  const int k = window_of(p);
  plan.args = {KernelArg::buf("in"),         KernelArg::buf("out"),          KernelArg::integer(p.width),
               KernelArg::integer(p.height), KernelArg::integer(p.width / k), KernelArg::integer(p.height / k)};
}

void two_by_two_only(const Problem& p, const std::string& variant) {
  if (window_of(p) != 2)
    throw PlanError(fmt::format("{} pools 2x2 windows only, not {}x{}", variant, window_of(p), window_of(p)));
}

void register_maxpool(Registry& reg, const pix::PortableTargets& gpus) {
  reg.add_family(std::make_unique<MaxpoolFamily>());
  register_serial(reg);
  register_omp(reg);
  register_direct(reg, gpus);
  register_vec16(reg, gpus);
  register_tree(reg, gpus);
  register_rgb(reg, gpus);
}

}  // namespace pimg::maxpool
