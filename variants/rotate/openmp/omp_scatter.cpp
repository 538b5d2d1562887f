// omp_scatter: seed 002's scatter rotation on OpenMP (kernels/rotate/rotate_scatter_omp.cpp), the twin of the GPU
// scatter (scatter.cpp: the rule "scatter", check_nearest, owner_buffer).
#include <algorithm>
#include <cctype>

#include "rotate/rotate_common.hpp"

namespace pimg::rotate {
namespace {

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
  LaunchPlan plan(const PlanContext& x) const override {
    const Problem& p = x.problem;
    const Workload& w = x.workload;
    const Config& c = x.config;
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

std::unique_ptr<Variant> make_omp_scatter() { return std::make_unique<OmpScatter>(); }

}  // namespace pimg::rotate
