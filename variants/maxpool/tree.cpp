// cl_tree / cuda_tree: seed 003's tree formulation: one thread per input pixel of a BLOCK_X x BLOCK_Y
// tile staged in local (shared) memory; the maxima of horizontal pairs (t1, t2), a barrier, then of the
// vertical pair (kernel maxpool_tree); windows of 3 and 4 reduce in levels of pairs along x then y. Both
// block sides must be multiples of the window.
#include <fmt/format.h>

#include "variants.hpp"

namespace pimg::maxpool {

void register_tree(Registry& reg, const pix::PortableTargets& gpus) {
  for (const pix::PortableTarget& gpu : gpus) {
    const std::vector<ParamDecl> params = pix::block_params(32, 8);
    reg.add_variant(make_variant(
        {pix::gpu_name(gpu, "tree"), "maxpool", gpu.backend, gpu_source(gpu),
         "seed 003's tree reduction in local memory: horizontal pairs, barrier, vertical pair", params,
         [](const PlanContext& x) {
           const Problem& p = x.problem;
           const int bx = x.int_knob("block_x"), by = x.int_knob("block_y");
           const int k = window_of(p);
           if (bx % k || by % k)
             throw PlanError(fmt::format("the tree needs a block whose sides are multiples of the window {}, got {}x{}",
                                         k, bx, by));
           LaunchPlan plan = x.gpu_plan("maxpool_tree", static_cast<std::size_t>(p.width / k) * k,
                                           static_cast<std::size_t>(pix::planes_of(p)) * (p.height / k) * k);
           finish_plan(plan, p, 1, 1);
           return plan;
         }}));
  }
}

}  // namespace pimg::maxpool
