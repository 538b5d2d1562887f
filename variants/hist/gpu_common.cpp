// The plan every GPU hist variant builds (gpu_common.hpp).
#include "gpu_common.hpp"

namespace pimg::hist {

LaunchPlan gpu_hist_plan(const Workload& w, const GpuKernel& k, bool clear, const std::string& clear_entry) {
  LaunchPlan plan;
  for (const auto& [name, value] : w.defines) plan.defines.emplace_back(name, value);
  plan.defines.insert(plan.defines.end(), k.defines.begin(), k.defines.end());
  const std::vector<KernelArg> args = {KernelArg::buf("in"), KernelArg::buf("out"), KernelArg::integer(k.count)};
  if (!clear) {
    plan.entry = k.entry;
    plan.dims = k.dims;
    plan.global = k.global;
    plan.local = k.local;
    plan.args = args;
    return plan;
  }
  const std::size_t bins = w.output_bytes / sizeof(std::uint32_t);
  plan.entry = clear_entry;
  plan.dims = 1;
  plan.global = {ceil_div(bins, 256) * 256, 1, 1};
  plan.local = {256, 1, 1};
  plan.args = {KernelArg::buf("out"), KernelArg::integer(static_cast<std::int64_t>(bins))};
  LaunchStep step;
  step.entry = k.entry;
  step.dims = k.dims;
  step.global = k.global;
  step.local = k.local;
  step.args = args;
  plan.steps.push_back(std::move(step));
  return plan;
}

std::size_t groups_of(const PlanContext& x, int per_unit) {
  const int groups = x.int_knob("groups");
  if (groups > 0) return static_cast<std::size_t>(groups);
  return static_cast<std::size_t>(std::max(1, x.device.compute_units) * per_unit);
}

void interleaved_only(const Problem& p, const std::string& variant) {
  if (spec_of(p).planar) throw PlanError(variant + " counts interleaved channels only; planar histograms are built for the "
                                         "OpenMP, OpenCL and host variants");
}

ParamDecl layout_param() {
  return text_choice("layout", {"blocked", "interleaved"}, "blocked",
                    "sub-histogram layout: blocked (copy after copy) or interleaved (copy r of bin b at b * copies + r, "
                    "thread t in copy t % copies: bank-conflict-free atomics with 32 copies)");
}

std::string interleaved_of(const PlanContext& x) {
  return x.text_knob("layout") == "interleaved" ? "1" : "0";
}

}  // namespace pimg::hist
