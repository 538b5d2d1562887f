// cl_rgb / cuda_rgb: 3-channel interleaved images only. Each block row pools a tile of BLOCK_X*UNITS
// units of 16 input pixels: warp-contiguous 16-byte loads of both input rows, their byte-wise maximum
// kept in local (shared) memory, then per unit 20 byte permutes and 6 packed maxima turn 12 words into
// 6 output words, written back with contiguous 16-byte stores (kernel maxpool_rgb). vec16's 3-channel
// path instead loads at a 96-byte stride per thread and repacks byte by byte.
#include <fmt/format.h>

#include "variants.hpp"

namespace pimg::maxpool {

void register_rgb(Registry& reg, const pix::PortableTargets& gpus) {
  for (const pix::PortableTarget& gpu : gpus) {
    std::vector<ParamDecl> params = pix::block_params(128, 2);
    params.push_back(int_range("units", 1, "units of 16 input pixels per thread per tile (1..4)", 1, 4));
    reg.add_variant(make_variant(
        {pix::gpu_name(gpu, "rgb"), "maxpool", gpu.backend, gpu_source(gpu),
         "3-channel interleaved: coalesced 16-byte loads staged in local memory, byte-permute repacking", params,
         [name = pix::gpu_name(gpu, "rgb")](const PlanContext& x) {
           const Problem& p = x.problem;
           if (pix::samples_of(p) != 3) throw PlanError("cl_rgb / cuda_rgb pool 3-channel interleaved images only");
           two_by_two_only(p, name);
           const int units = x.int_knob("units");
           const int bx = x.int_knob("block_x"), by = x.int_knob("block_y");
           if (bx * units % 2) throw PlanError(fmt::format("block_x * units must be even, got {}x{}", bx, units));
           // rows (48 bytes per unit) and pooled (24 bytes per unit) for every row of the block.
           const double bytes = 72.0 * bx * by * units;
           x.check_local_bytes(bytes);
           const std::size_t tiles = pix::ceil_div(static_cast<std::size_t>(p.width / 2), static_cast<std::size_t>(8) * bx * units);
           LaunchPlan plan = x.gpu_plan("maxpool_rgb", tiles * bx, static_cast<std::size_t>(p.height / 2));
           finish_plan(plan, p, 1, units);
           // The kernel's staging arrays grow with the block; only this variant's plans compile it, so
           // the other maxpool kernels of the same source keep their larger blocks under 48 KiB.
           plan.defines.emplace_back("RGB_KERNEL", "1");
           return plan;
         }}));
  }
}

}  // namespace pimg::maxpool
