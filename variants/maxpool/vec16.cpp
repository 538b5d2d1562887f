// cl_vec16 / cuda_vec16: GROUPS groups of 16 output pixels per thread; each group reads its two input
// rows as 16-byte vectors, takes byte-wise maxima of packed words (rows, then neighbouring pixels) and
// writes 16-byte vectors (kernel maxpool_vec16); byte path where rows are not 16-byte aligned.
#include "variants.hpp"

namespace pimg::maxpool {

void register_vec16(Registry& reg, const pix::PortableTargets& gpus) {
  for (const pix::PortableTarget& gpu : gpus) {
    std::vector<ParamDecl> params = pix::block_params(64, 2);
    params.push_back(int_range("groups", 1, "groups of 16 output pixels per thread, strided by the block (1..8)", 1, 8));
    reg.add_variant(make_variant(
        {pix::gpu_name(gpu, "vec16"), "maxpool", gpu.backend, gpu_source(gpu),
         "16-byte vector loads and stores, packed byte-wise maxima, GROUPS x 16 output pixels per thread", params,
         [name = pix::gpu_name(gpu, "vec16")](const PlanContext& x) {
           const Problem& p = x.problem;
           two_by_two_only(p, name);
           const int groups = x.int_knob("groups");
           const std::size_t g = pix::ceil_div(static_cast<std::size_t>(p.width / 2), 16);
           LaunchPlan plan = x.gpu_plan("maxpool_vec16", pix::ceil_div(g, groups),
                                           static_cast<std::size_t>(pix::planes_of(p)) * (p.height / 2));
           finish_plan(plan, p, 1, groups);
           return plan;
         }}));
  }
}

}  // namespace pimg::maxpool
