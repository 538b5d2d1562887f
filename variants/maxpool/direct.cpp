// cl_direct / cuda_direct: a 2-D grid over output pixels and every plane's output rows, PIXELS output
// pixels per thread, each the maximum of its window (2x2, 3x3, 4x4) read byte by byte (kernel maxpool_direct).
#include "variants.hpp"

namespace pimg::maxpool {

void register_direct(Registry& reg, const pix::PortableTargets& gpus) {
  for (const pix::PortableTarget& gpu : gpus) {
    std::vector<ParamDecl> params = pix::block_params(64, 4);
    params.push_back(int_range("pixels", 1, "output pixels per thread along x (1..16)", 1, 16));
    reg.add_variant(make_variant(
        {pix::gpu_name(gpu, "direct"), "maxpool", gpu.backend, gpu_source(gpu),
         "one thread per PIXELS output pixels, byte loads (the naive kernel)", params,
         [](const PlanContext& x) {
           const Problem& p = x.problem;
           const int pixels = x.int_knob("pixels");
           const int k = window_of(p);
           LaunchPlan plan = x.gpu_plan("maxpool_direct",
                                           pix::ceil_div(static_cast<std::size_t>(p.width / k), pixels),
                                           static_cast<std::size_t>(pix::planes_of(p)) * (p.height / k));
           finish_plan(plan, p, pixels, 1);
           return plan;
         }}));
  }
}

}  // namespace pimg::maxpool
