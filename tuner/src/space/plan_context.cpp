// The readings every plan makes (PlanContext: knobs, device limits, the GPU grid) and the variant declared as
// data (VariantSpec), written once for every family.
#include "pimg/plan_context.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "pimg/variant.hpp"

namespace pimg {

int PlanContext::int_knob(const std::string& name) const { return static_cast<int>(int_value(config, params, name)); }

std::string PlanContext::text_knob(const std::string& name) const { return text_value(config, params, name); }

double PlanContext::limit(const std::string& name, double fallback) const {
  auto it = device.limits.find(name);
  return it == device.limits.end() ? fallback : it->second;
}

void PlanContext::check_group(int bx, int by) const {
  const double max_group = limit("max_work_group_size", static_cast<double>(device.max_work_group_size));
  if (max_group > 0 && static_cast<double>(bx) * by > max_group)
    throw PlanError(fmt::format("work-group {}x{} = {} items exceeds max_work_group_size {}", bx, by, bx * by,
                                max_group));
  if (bx > limit("max_work_item_size_0", bx) || by > limit("max_work_item_size_1", by))
    throw PlanError(fmt::format("work-group {}x{} exceeds the device's work-item sizes {}x{}", bx, by,
                                limit("max_work_item_size_0", 0), limit("max_work_item_size_1", 0)));
}

void PlanContext::check_local_bytes(double bytes) const {
  const double local = limit("local_mem_size", static_cast<double>(device.local_mem_bytes));
  if (local > 0 && bytes > local)
    throw PlanError(fmt::format("{} bytes of staging exceed the device's local memory {}", bytes, local));
}

LaunchPlan PlanContext::gpu_plan(const std::string& entry, std::size_t items_x, std::size_t items_y) const {
  const int bx = int_knob("block_x"), by = int_knob("block_y");
  check_group(bx, by);
  LaunchPlan plan;
  plan.entry = entry;
  for (const auto& [k, v] : workload.defines) plan.defines.emplace_back(k, v);
  plan.defines.emplace_back("BLOCK_X", std::to_string(bx));
  plan.defines.emplace_back("BLOCK_Y", std::to_string(by));
  plan.dims = 2;
  auto round_up = [](std::size_t v, std::size_t m) { return (v + m - 1) / m * m; };
  plan.global = {round_up(std::max<std::size_t>(items_x, 1), bx), round_up(std::max<std::size_t>(items_y, 1), by), 1};
  plan.local = {static_cast<std::size_t>(bx), static_cast<std::size_t>(by), 1};
  // A device whose groups along y are limited (CUDA's gridDim.y) states the limit; OpenCL's states none.
  const double max_y = limit("max_grid_size_1", std::numeric_limits<double>::infinity());
  if (static_cast<double>(plan.global[1] / by) > max_y)
    throw PlanError(fmt::format("{} blocks along y exceed the device's grid limit {}", plan.global[1] / by, max_y));
  return plan;
}

LaunchPlan plan_for(const Variant& v, const Problem& p, const Workload& w, const Config& c, const DeviceInfo& d) {
  const std::vector<ParamDecl> params = v.parameters();
  return v.plan(PlanContext{p, w, c, d, params});
}

namespace {

class TableVariant final : public Variant {
 public:
  explicit TableVariant(VariantSpec s) : s_(std::move(s)) {}
  std::string name() const override { return s_.name; }
  std::string family() const override { return s_.family; }
  std::string backend() const override { return s_.backend; }
  std::string source() const override { return s_.source.path; }
  std::optional<NativeCall> native() const override { return s_.source.native; }
  std::string help() const override { return s_.help; }
  std::vector<ParamDecl> parameters() const override { return s_.params; }
  LaunchPlan plan(const PlanContext& x) const override { return s_.plan(x); }
  std::string validation_rule() const override { return s_.rule; }
  bool baseline() const override { return s_.baseline; }

 private:
  VariantSpec s_;
};

}  // namespace

std::unique_ptr<Variant> make_variant(VariantSpec spec) { return std::make_unique<TableVariant>(std::move(spec)); }

}  // namespace pimg
