// cl_vec16 / cuda_vec16: GROUPS groups of 16 pixels per thread, each read with three 16-byte loads (48
// bytes of B G R) and written with four 16-byte stores (64 bytes of R G B A); groups strided by the
// block so that a warp's loads are contiguous; the last partial group byte by byte. stage=1: the block's
// groups loaded as one contiguous span into local memory, converted there 4 pixels per 16-byte store.
#include "variants.hpp"

namespace pimg::bgr2rgba {

void register_vec16(Registry& reg, const pix::PortableTargets& gpus) {
  for (const pix::PortableTarget& gpu : gpus) {
    std::vector<ParamDecl> params = pix::block_params(128, 1);
    params[1] = int_choice("block_y", 1, "the vec16 kernel is 1-D: block_y = 1", {1});
    params.push_back(int_range("groups", 1, "groups of 16 pixels per thread (1..8)", 1, 8));
    params.push_back(int_choice("stage", 0,
                                "0: each thread's vectors straight to and from global memory; 1: the block's groups "
                                "staged in local memory, loaded and stored as contiguous spans",
                                {0, 1}));
    reg.add_variant(make_variant(
        {pix::gpu_name(gpu, "vec16"), "bgr2rgba", gpu.backend, gpu_source(gpu),
         "16-byte vector loads and stores, 16 pixels per group, GROUPS groups per thread", params,
         [](const PlanContext& x) {
           const Problem& p = x.problem;
           const int groups = x.int_knob("groups");
           const int bx = x.int_knob("block_x");
           const int stage = x.int_knob("stage");
           if (stage) x.check_local_bytes(48.0 * bx * groups);
           const std::size_t all = pix::ceil_div(static_cast<std::size_t>(p.width) * p.height, 16);
           const std::size_t blocks = pix::ceil_div(all, static_cast<std::size_t>(bx) * groups);
           LaunchPlan plan = x.gpu_plan("bgr2rgba_vec16", blocks * bx, 1);
           finish_gpu_plan(plan, p, 1, 0, groups);
           plan.defines.emplace_back("STAGE", std::to_string(stage));
           return plan;
         }}));
  }
}

}  // namespace pimg::bgr2rgba
