// cl_staged / cuda_staged: seed 001's shared-memory version done right. Each block stages its
// BLOCK_X*PIXELS pixels of input in local (shared) memory with coalesced 32-bit loads, waits at one
// barrier that every thread reaches (the seed's sat inside a divergent branch), and writes 32-bit pixels.
#include "variants.hpp"

namespace pimg::bgr2rgba {

void register_staged(Registry& reg, const pix::PortableTargets& gpus) {
  for (const pix::PortableTarget& gpu : gpus) {
    std::vector<ParamDecl> params = pix::block_params(256, 1);
    params[1] = int_choice("block_y", 1, "the staged kernel is 1-D: block_y = 1", {1});
    params.push_back(int_range("pixels", 4, "pixels per thread; the block stages BLOCK_X*PIXELS pixels", 1, 16));
    reg.add_variant(make_variant(
        {pix::gpu_name(gpu, "staged"), "bgr2rgba", gpu.backend, gpu_source(gpu),
         "1-D grid, the block's input staged in local/shared memory, one barrier outside any branch", params,
         [](const PlanContext& x) {
           const Problem& p = x.problem;
           const int pixels = x.int_knob("pixels");
           const int bx = x.int_knob("block_x");
           const double bytes = 4.0 * ((3.0 * bx * pixels + 3) / 4);
           x.check_local_bytes(bytes);
           const std::size_t blocks = pix::ceil_div(static_cast<std::size_t>(p.width) * p.height,
                                                    static_cast<std::size_t>(bx) * pixels);
           LaunchPlan plan = x.gpu_plan("bgr2rgba_staged", blocks * bx, 1);
           finish_gpu_plan(plan, p, pixels, 0, 1);
           return plan;
         }}));
  }
}

}  // namespace pimg::bgr2rgba
