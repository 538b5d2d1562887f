// The bgr2rgba family's one registration list, and the argument list its GPU kernels share.
#include "register.hpp"

#include "bgr2rgba_family.hpp"
#include "variants.hpp"

namespace pimg::bgr2rgba {

void finish_gpu_plan(LaunchPlan& plan, const Problem& p, int pixels, int temp, int groups) {
  plan.defines.emplace_back("PIXELS", std::to_string(pixels));
  plan.defines.emplace_back("TEMP", std::to_string(temp));
  plan.defines.emplace_back("GROUPS", std::to_string(groups));
  plan.args = {KernelArg::buf("in"), KernelArg::buf("out"), KernelArg::integer(p.width), KernelArg::integer(p.height)};
}

void register_bgr2rgba(Registry& reg, const pix::PortableTargets& gpus) {
  reg.add_family(std::make_unique<Bgr2RgbaFamily>());
  register_serial(reg);
  register_opencv(reg);
  register_omp(reg);
  register_grid(reg, gpus);
  register_staged(reg, gpus);
  register_vec16(reg, gpus);
  register_npp(reg);
}

}  // namespace pimg::bgr2rgba
