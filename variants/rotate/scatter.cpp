// cl_scatter, cuda_scatter (one per portable target; omp_scatter in the OpenMP plug-in): seed 002's scatter rotation
// (kernels/rotate/rotate_scatter_gpu.h, rotate_scatter_omp.cpp) beside the gather variants. Each source pixel is
// written to its rotated destination; the variants are validated exactly against the rule "scatter" (rotate_rule.h,
// RotateFamily::reference): holes take the fill value and a collision goes to the last source in raster order, which a
// parallel kernel settles with an atomic maximum of source numbers in a scratch buffer. Nearest only.
#include <fmt/format.h>

#include <array>

#include "common/pix_common.hpp"
#include "rotate_common.hpp"

extern "C" {
#include "rotate/rotate_rule.h"
}

namespace pimg::rotate {

void check_nearest(const RotateSpec& s, const std::string& variant) {
  if (s.interp != PIMG_ROT_NEAREST)
    throw PlanError(variant + " scatters whole pixels: nearest only (the rule \"scatter\" has no interpolation)");
}

ScratchBuffer owner_buffer(const RotateSpec& s) {
  return {"owner", static_cast<std::size_t>(s.width) * static_cast<std::size_t>(s.height) * sizeof(std::int32_t)};
}

namespace {

// Three launches over the image: clear (owner), mark (owner), copy (in, out, owner); scratch owner.
LaunchPlan scatter_plan(const PlanContext& x, const std::string& name) {
  const RotateSpec s = spec_of(x.problem);
  check_nearest(s, name);
  const int bx = x.int_knob("block_x"), by = x.int_knob("block_y"), items = x.int_knob("items_x");
  const double max_group = x.limit("max_work_group_size", static_cast<double>(x.device.max_work_group_size));
  if (max_group > 0 && static_cast<double>(bx) * by > max_group)
    throw PlanError(fmt::format("block {}x{} exceeds the device's {} items", bx, by, max_group));
  if (bx > x.limit("max_work_item_size_0", bx) || by > x.limit("max_work_item_size_1", by))
    throw PlanError(fmt::format("block {}x{} exceeds the device's dimensions", bx, by));
  LaunchPlan plan;
  for (const auto& [define, value] : x.workload.defines) plan.defines.emplace_back(define, value);
  plan.defines.emplace_back("BLOCK_X", std::to_string(bx));
  plan.defines.emplace_back("BLOCK_Y", std::to_string(by));
  plan.defines.emplace_back("ITEMS_X", std::to_string(items));
  const auto ubx = static_cast<std::size_t>(bx), uby = static_cast<std::size_t>(by);
  const std::array<std::size_t, 3> global{(((static_cast<std::size_t>(s.width) + items - 1) / items + ubx - 1) / ubx) * ubx,
                                          ((static_cast<std::size_t>(s.height) + uby - 1) / uby) * uby, 1};
  const std::array<std::size_t, 3> local{ubx, uby, 1};
  plan.entry = "rotate_scatter_clear";
  plan.dims = 2;
  plan.global = global;
  plan.local = local;
  plan.args = {KernelArg::buf("owner"), KernelArg::integer(s.width), KernelArg::integer(s.height)};
  LaunchStep mark;
  mark.entry = "rotate_scatter_mark";
  mark.dims = 2;
  mark.global = global;
  mark.local = local;
  mark.args = plan.args;
  LaunchStep copy = mark;
  copy.entry = "rotate_scatter_copy";
  copy.args = {KernelArg::buf("in"), KernelArg::buf("out"), KernelArg::buf("owner"), KernelArg::integer(s.width),
               KernelArg::integer(s.height)};
  plan.steps = {mark, copy};
  plan.scratch = {owner_buffer(s)};
  return plan;
}

}  // namespace

std::unique_ptr<Variant> make_gpu_scatter(const pix::PortableTarget& gpu) {
  const std::string name = pix::gpu_name(gpu, "scatter");
  return make_variant({name, "rotate", gpu.backend, "rotate/rotate_scatter" + gpu.extension,
                       "seed 002's scatter: each source pixel written to its rotated destination (clear, atomic-max mark, "
                       "copy), validated by the rule \"scatter\"",
                       {int_range("block_x", 32, "work-group (thread block) width", 1, 1024),
                        int_range("block_y", 8, "work-group (thread block) height", 1, 1024),
                        int_range("items_x", 1, "pixels per work item along x (1..16)", 1, 16)},
                       [name](const PlanContext& x) { return scatter_plan(x, name); }, false, "scatter"});
}

}  // namespace pimg::rotate
