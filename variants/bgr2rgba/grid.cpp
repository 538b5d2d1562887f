// cl_grid / cuda_grid: seed 001's one-pixel-per-thread kernels, bgr2rgba_2d (2-D grid, x < width &&
// y < height) or bgr2rgba_1d (1-D grid over all pixels), PIXELS consecutive pixels per thread, each
// written byte by byte (temp=0) or through a register temporary and one 32-bit store (temp=1).
#include "variants.hpp"

namespace pimg::bgr2rgba {

void register_grid(Registry& reg, const pix::PortableTargets& gpus) {
  for (const pix::PortableTarget& gpu : gpus) {
    std::vector<ParamDecl> params = pix::block_params(256, 1);
    params.push_back(int_choice("dims", 2, "1: a 1-D grid over width*height pixels; 2: a 2-D grid over x and y", {1, 2}));
    params.push_back(int_range("pixels", 1, "consecutive pixels per thread (1..16)", 1, 16));
    params.push_back(int_choice("temp", 0, "0: bytes copied one by one; 1: register temporary, one 32-bit store", {0, 1}));
    reg.add_variant(make_variant(
        {pix::gpu_name(gpu, "grid"), "bgr2rgba", gpu.backend, gpu_source(gpu),
         "seed 001's 1-D or 2-D grid, PIXELS pixels per thread, optional register temporary", params,
         [](const PlanContext& x) {
           const Problem& p = x.problem;
           const int dims = x.int_knob("dims");
           const int pixels = x.int_knob("pixels");
           const int temp = x.int_knob("temp");
           const std::size_t row_items = pix::ceil_div(static_cast<std::size_t>(p.width), pixels);
           const std::size_t all_items = pix::ceil_div(static_cast<std::size_t>(p.width) * p.height, pixels);
           if (dims == 1 && x.int_knob("block_y") != 1)
             throw PlanError("a 1-D grid takes block_y = 1");
           LaunchPlan plan = dims == 2 ? x.gpu_plan("bgr2rgba_2d", row_items, p.height)
                                       : x.gpu_plan("bgr2rgba_1d", all_items, 1);
           finish_gpu_plan(plan, p, pixels, temp, 1);
           return plan;
         }}));
  }
}

}  // namespace pimg::bgr2rgba
