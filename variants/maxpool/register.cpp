// The maxpool family's one registration list, and the arguments its kernels share.
#include "register.hpp"

#include "maxpool_family.hpp"
#include "variants.hpp"

namespace pimg::maxpool {

void finish_plan(LaunchPlan& plan, const Problem& p, int pixels, int groups) {
  plan.defines.emplace_back("PIXELS", std::to_string(pixels));
  plan.defines.emplace_back("GROUPS", std::to_string(groups));
  plan.args = {KernelArg::buf("in"),         KernelArg::buf("out"),          KernelArg::integer(p.width),
               KernelArg::integer(p.height), KernelArg::integer(p.width / 2), KernelArg::integer(p.height / 2)};
}

void register_maxpool(Registry& reg) {
  reg.add_family(std::make_unique<MaxpoolFamily>());
  register_serial(reg);
  register_omp(reg);
  register_direct(reg);
  register_vec16(reg);
  register_tree(reg);
  register_rgb(reg);
}

}  // namespace pimg::maxpool
