// cl_tree / cuda_tree: seed 003's tree formulation: one thread per input pixel of a BLOCK_X x BLOCK_Y
// tile staged in local (shared) memory; the maxima of horizontal pairs (t1, t2), a barrier, then of the
// vertical pair (kernel maxpool_tree). Both block sides must be even.
#include <fmt/format.h>

#include "variants.hpp"

namespace pimg::maxpool {

void register_tree(Registry& reg) {
  for (const std::string backend : {"opencl", "cuda"}) {
    const std::vector<ParamDecl> params = pix::block_params(32, 8);
    reg.add_variant(pix::make_variant(
        {pix::gpu_name(backend, "tree"), "maxpool", backend, gpu_source(backend),
         "seed 003's tree reduction in local memory: horizontal pairs, barrier, vertical pair", params,
         [params](const Problem& p, const Workload& w, const Config& c, const DeviceInfo& d) {
           const int bx = pix::int_knob(c, params, "block_x"), by = pix::int_knob(c, params, "block_y");
           if (bx % 2 || by % 2) throw PlanError(fmt::format("the tree needs an even block, got {}x{}", bx, by));
           LaunchPlan plan = pix::gpu_plan("maxpool_tree", w, c, params, d, static_cast<std::size_t>(p.width / 2) * 2,
                                           static_cast<std::size_t>(pix::planes_of(p)) * (p.height / 2) * 2);
           finish_plan(plan, p, 1, 1);
           return plan;
         }}));
  }
}

}  // namespace pimg::maxpool
