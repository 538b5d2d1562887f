// cuda_direct: kernels/rotate/rotate_cuda.cu through NVRTC, every thread computes items_x x items_y output
// pixels; knobs: block shape, pixels per thread, neighbouring (with packed word stores) or block-strided
// pixels, read-only loads (__ldg), incremental or per-pixel source points.
#include <fmt/format.h>

#include "rotate/rotate_common.hpp"

namespace pimg::rotate {

std::vector<ParamDecl> cuda_params(bool with_ldg) {
  std::vector<ParamDecl> out = grid_params();
  if (with_ldg)
    out.push_back(int_choice("ldg", 1, "1: source bytes through the read-only data cache (__ldg); 0: plain loads", {0, 1}));
  out.push_back(int_choice("incr", 1, "1: step the source point by the rule's integer increments; 0: the formula per pixel", {0, 1}));
  out.push_back(int_choice("pack", 1,
                          "spread 0: 1 stores a thread's bytes of a row as 16/8/4-byte words where aligned; 0: bytes", {0, 1}));
  if (with_ldg)
    out.push_back(int_choice("gather", 0,
                             "1 (nearest, 3 interleaved channels): each source pixel from its two aligned 32-bit words "
                             "(two loads, one funnel shift) instead of three byte loads",
                             {0, 1}));
  return out;
}

LaunchPlan cuda_plan(const PlanContext& x, bool texture) {  // args: in (a texture with `texture`), out, width, height
  const RotateSpec s = spec_of(x.problem);
  const GridKnobs k = read_grid(x, x.limit("max_threads_per_block", static_cast<double>(x.device.max_work_group_size)));
  const int ldg = texture ? 0 : x.int_knob("ldg"), incr = x.int_knob("incr"), pack = x.int_knob("pack");
  if (pack && k.spread) throw PlanError("pack=1 needs spread=0 (a thread's pixels must be neighbours)");
  const int gather = texture ? 0 : x.int_knob("gather");
  if (gather && (s.interp != 0 || s.channels != 3 || s.planar))  // 0: PIMG_ROT_NEAREST
    throw PlanError("gather=1 reads whole pixels: it needs interp nearest and 3 interleaved channels");
  LaunchPlan plan;
  plan.entry = "rotate_cuda";
  add_grid_defines(plan, x.workload, k);
  plan.defines.emplace_back("LDG", std::to_string(ldg));
  plan.defines.emplace_back("INCR", std::to_string(incr));
  plan.defines.emplace_back("PACK", std::to_string(pack));
  plan.defines.emplace_back("TEXTURE", texture ? "1" : "0");
  plan.defines.emplace_back("GATHER", std::to_string(gather));
  set_grid(plan, s, k);
  const double blocks_y = static_cast<double>(plan.global[1] / plan.local[1]);
  if (blocks_y > x.limit("max_grid_size_1", 65535))
    throw PlanError(fmt::format("{} blocks along y exceed the device's grid limit (raise block_y or items_y)", blocks_y));
  if (texture) plan.args[0] = image_arg(s, x, "");
  return plan;
}

std::unique_ptr<Variant> make_cuda_direct() {
  return make_variant({"cuda_direct", "rotate", "cuda", "rotate/rotate_cuda.cu",
                       "CUDA gather rotation, items_x x items_y pixels per thread, __ldg loads, incremental source points, "
                       "packed stores",
                       cuda_params(true), [](const PlanContext& x) { return cuda_plan(x, false); }});
}

}  // namespace pimg::rotate
