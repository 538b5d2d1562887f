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

class GpuScatter final : public Variant {
 public:
  explicit GpuScatter(const pix::PortableTarget& gpu) : gpu_(gpu) {}
  std::string name() const override { return pix::gpu_name(gpu_, "scatter"); }
  std::string family() const override { return "rotate"; }
  std::string backend() const override { return gpu_.backend; }
  std::string source() const override { return "rotate/rotate_scatter" + gpu_.extension; }
  std::string help() const override {
    return "seed 002's scatter: each source pixel written to its rotated destination (clear, atomic-max mark, "
           "copy), validated by the rule \"scatter\"";
  }
  std::string validation_rule() const override { return "scatter"; }
  std::vector<ParamDecl> parameters() const override {
    return {int_range("block_x", 32, "work-group (thread block) width", 1, 1024),
            int_range("block_y", 8, "work-group (thread block) height", 1, 1024),
            int_range("items_x", 1, "pixels per work item along x (1..16)", 1, 16)};
  }
  // Three launches over the image: clear (owner), mark (owner), copy (in, out, owner); scratch owner.
  LaunchPlan plan(const PlanContext& x) const override {
    const Problem& p = x.problem;
    const Workload& w = x.workload;
    const Config& c = x.config;
    const DeviceInfo& d = x.device;
    const RotateSpec s = spec_of(p);
    check_nearest(s, name());
    const std::vector<ParamDecl> decls = parameters();
    const int bx = knob(c, decls, "block_x"), by = knob(c, decls, "block_y"), items = knob(c, decls, "items_x");
    const double max_group = limit(d, "max_work_group_size", static_cast<double>(d.max_work_group_size));
    if (max_group > 0 && static_cast<double>(bx) * by > max_group)
      throw PlanError(fmt::format("block {}x{} exceeds the device's {} items", bx, by, max_group));
    if (bx > limit(d, "max_work_item_size_0", bx) || by > limit(d, "max_work_item_size_1", by))
      throw PlanError(fmt::format("block {}x{} exceeds the device's dimensions", bx, by));
    LaunchPlan plan;
    for (const auto& [name, value] : w.defines) plan.defines.emplace_back(name, value);
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

 private:
  pix::PortableTarget gpu_;
};

}  // namespace

std::unique_ptr<Variant> make_gpu_scatter(const pix::PortableTarget& gpu) { return std::make_unique<GpuScatter>(gpu); }

}  // namespace pimg::rotate
