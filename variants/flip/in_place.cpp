// cl_flip_inplace / cuda_flip_inplace: seed 002's in-place swap. The output starts poisoned, so each
// block first copies its block_y rows from the input into the output, waits at one barrier every thread
// reaches, and then swaps pixel x with width-1-x there, block_x threads per row (vec=1: 16-pixel groups
// swapped and reversed as 16-byte vectors). The time is the copy and the swap together: the whole of
// what an in-place flip costs here, not the swap alone.
#include "variants.hpp"

namespace pimg::flip {

void register_in_place(Registry& reg, const pix::PortableTargets& gpus) {
  for (const pix::PortableTarget& gpu : gpus) {
    std::vector<ParamDecl> params = pix::block_params(128, 2);
    params.push_back(int_choice("vec", 1, "0: byte swaps of pixel pairs; 1: 16-pixel groups as 16-byte vectors", {0, 1}));
    reg.add_variant(make_variant(
        {pix::gpu_name(gpu, "flip_inplace"), "flip", gpu.backend, gpu_source(gpu),
         "in place: each block copies its rows into the output, a barrier, then swaps pixel pairs there (timed together)",
         params, [](const PlanContext& x) {
           const Problem& p = x.problem;
           const int vec = x.int_knob("vec");
           const int bx = x.int_knob("block_x");
           LaunchPlan plan = x.gpu_plan(vec ? "flip_inplace_vec16" : "flip_inplace",
                                           static_cast<std::size_t>(bx),
                                           static_cast<std::size_t>(p.height) * pix::planes_of(p));
           plan.defines.emplace_back("PIXELS", "1");
           plan.defines.emplace_back("GROUPS", "1");
           plan.args = {KernelArg::buf("in"), KernelArg::buf("out"), KernelArg::integer(p.width),
                        KernelArg::integer(p.height)};
           return plan;
         }}));
  }
}

}  // namespace pimg::flip
