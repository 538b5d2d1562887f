// cl_scatter, cuda_scatter, omp_scatter: seed 002's scatter rotation (kernels/rotate/rotate_scatter_gpu.h,
// rotate_scatter_omp.cpp) beside the gather variants. Each source pixel is written to its rotated destination;
// the variants are validated exactly against the rule "scatter" (rotate_rule.h, RotateFamily::reference):
// holes take the fill value and a collision goes to the last source in raster order, which a parallel
// kernel settles with an atomic maximum of source numbers in a scratch buffer. Nearest only.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "rotate_common.hpp"

extern "C" {
#include "rotate/rotate_rule.h"
}

namespace pimg::rotate {
namespace {

void check_nearest(const RotateSpec& s, const std::string& variant) {
  if (s.interp != PIMG_ROT_NEAREST)
    throw PlanError(variant + " scatters whole pixels: nearest only (the rule \"scatter\" has no interpolation)");
}

ScratchBuffer owner_buffer(const RotateSpec& s) {
  return {"owner", static_cast<std::size_t>(s.width) * static_cast<std::size_t>(s.height) * sizeof(std::int32_t)};
}

class GpuScatter final : public Variant {
 public:
  explicit GpuScatter(std::string backend) : backend_(std::move(backend)) {}
  std::string name() const override { return backend_ == "cuda" ? "cuda_scatter" : "cl_scatter"; }
  std::string family() const override { return "rotate"; }
  std::string backend() const override { return backend_; }
  std::string source() const override {
    return backend_ == "cuda" ? "rotate/rotate_scatter.cu" : "rotate/rotate_scatter.cl";
  }
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
  LaunchPlan plan(const Problem& p, const Workload& w, const Config& c, const DeviceInfo& d) const override {
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
  std::string backend_;
};

class OmpScatter final : public Variant {
 public:
  std::string name() const override { return "omp_scatter"; }
  std::string family() const override { return "rotate"; }
  std::string backend() const override { return "openmp"; }
  std::string source() const override { return "rotate/rotate_scatter_omp.cpp"; }
  std::string help() const override {
    return "seed 002's scatter on OpenMP: clear, atomic-max mark and copy loops over rows in one parallel region, "
           "validated by the rule \"scatter\"";
  }
  std::string validation_rule() const override { return "scatter"; }
  std::vector<ParamDecl> parameters() const override {
    std::vector<ParamDecl> decls = omp_params();
    decls.pop_back();  // simd: the gather's
    return decls;
  }
  LaunchPlan plan(const Problem& p, const Workload& w, const Config& c, const DeviceInfo&) const override {
    const RotateSpec s = spec_of(p);
    check_nearest(s, name());
    const std::vector<ParamDecl> decls = parameters();
    std::string schedule = text_value(c, decls, "schedule");
    std::transform(schedule.begin(), schedule.end(), schedule.begin(), [](unsigned char ch) { return std::toupper(ch); });
    LaunchPlan plan;
    plan.entry = "rotate_scatter_omp";
    for (const auto& [name, value] : w.defines) plan.defines.emplace_back(name, value);
    plan.defines.emplace_back("SCHED", "PIMG_SCHED_" + schedule);
    plan.defines.emplace_back("CHUNK", std::to_string(knob(c, decls, "chunk")));
    plan.defines.emplace_back("THREADS", std::to_string(knob(c, decls, "threads")));
    plan.dims = 2;
    plan.global = {static_cast<std::size_t>(s.width), static_cast<std::size_t>(s.height), 1};
    plan.args = {KernelArg::buf("in"), KernelArg::buf("out"), KernelArg::buf("owner"), KernelArg::integer(s.width),
                 KernelArg::integer(s.height)};
    plan.scratch = {owner_buffer(s)};
    return plan;
  }
};

}  // namespace

std::unique_ptr<Variant> make_cl_scatter() { return std::make_unique<GpuScatter>("opencl"); }
std::unique_ptr<Variant> make_cuda_scatter() { return std::make_unique<GpuScatter>("cuda"); }
std::unique_ptr<Variant> make_omp_scatter() { return std::make_unique<OmpScatter>(); }

}  // namespace pimg::rotate
