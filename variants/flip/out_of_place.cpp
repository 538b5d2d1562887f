// cl_flip / cuda_flip: out of place, out[x] = in[width-1-x], 2-D grid over pixel columns and every
// plane's rows: PIXELS pixels per thread with byte copies (vec=0, kernel flip_out), or GROUPS groups of
// 16 pixels read, reversed in registers and written as 16-byte vectors (vec=1, kernel flip_vec16), the
// block's groups through local memory as contiguous spans (stage=1, kernel flip_staged16).
#include "variants.hpp"

namespace pimg::flip {

void register_out_of_place(Registry& reg, const pix::PortableTargets& gpus) {
  for (const pix::PortableTarget& gpu : gpus) {
    const std::vector<ParamDecl> params = gpu_params();
    reg.add_variant(make_variant(
        {pix::gpu_name(gpu, "flip"), "flip", gpu.backend, gpu_source(gpu),
         "out of place, byte copies or 16-pixel groups as 16-byte vectors", params,
         [](const PlanContext& x) {
           const Problem& p = x.problem;
           const GpuKnobs k = gpu_knobs(x);
           if (k.stage && !k.vec) throw PlanError("stage=1 stages 16-pixel groups: it needs vec=1");
           if (k.stage) {
             const double bytes = 16.0 * pix::samples_of(p) * k.per_thread * x.int_knob("block_x") *
                                  x.int_knob("block_y");
             x.check_local_bytes(bytes);
           }
           const std::string entry = !k.vec ? "flip_out" : k.stage ? "flip_staged16" : "flip_vec16";
           LaunchPlan plan = gpu_flip_plan(entry, x, static_cast<std::size_t>(p.width));
           plan.args = {KernelArg::buf("in"), KernelArg::buf("out"), KernelArg::integer(p.width),
                        KernelArg::integer(p.height)};
           return plan;
         }}));
  }
}

}  // namespace pimg::flip
