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
    reg.add_variant(pix::make_variant(
        {pix::gpu_name(gpu, "tree"), "maxpool", gpu.backend, gpu_source(gpu),
         "seed 003's tree reduction in local memory: horizontal pairs, barrier, vertical pair", params,
         [params](const Problem& p, const Workload& w, const Config& c, const DeviceInfo& d) {
           const int bx = pix::int_knob(c, params, "block_x"), by = pix::int_knob(c, params, "block_y");
           const int k = window_of(p);
           if (bx % k || by % k)
             throw PlanError(fmt::format("the tree needs a block whose sides are multiples of the window {}, got {}x{}",
                                         k, bx, by));
           LaunchPlan plan = pix::gpu_plan("maxpool_tree", w, c, params, d, static_cast<std::size_t>(p.width / k) * k,
                                           static_cast<std::size_t>(pix::planes_of(p)) * (p.height / k) * k);
           finish_plan(plan, p, 1, 1);
           return plan;
         }}));
  }
}

}  // namespace pimg::maxpool
