// omp_private: kernels/hist/hist_omp.cpp, per-thread private histograms (COPIES sub-histograms per
// thread, optional 64-bit loads) over scheduled tasks, merged with atomics, a critical section or an
// OpenMP array reduction.
#include "hist/hist_common.hpp"

namespace pimg::hist {
namespace {

class OmpPrivate final : public Variant {
 public:
  std::string name() const override { return "omp_private"; }
  std::string family() const override { return "hist"; }
  std::string backend() const override { return "openmp"; }
  std::string source() const override { return "hist/hist_omp.cpp"; }
  std::string help() const override {
    return "OpenMP per-thread private histograms over tasks of 96 KiB, merged into the output";
  }
  std::vector<ParamDecl> parameters() const override {
    std::vector<ParamDecl> out = omp_parallel_params();
    out.push_back(text_choice("merge", {"atomic", "critical", "reduction"}, "atomic",
                             "how threads add their bins: omp atomic per bin, one critical section, or an array reduction"));
    out.push_back(int_choice("copies", 1, "sub-histograms per thread (1, 2 or 4) taking consecutive pixels in turn", {1, 2, 4}));
    out.push_back(int_choice("wide", 0, "1: read 64-bit words and split them into bytes; 0: byte loads", {0, 1}));
    return out;
  }
  // args: in, out, samples
  LaunchPlan plan(const PlanContext& x) const override {
    const Problem& p = x.problem;
    const Workload& w = x.workload;
    const Config& c = x.config;
    const auto decls = parameters();
    const int copies = int_in(c, decls, "copies");
    LaunchPlan plan;
    plan.entry = "hist_omp";
    for (const auto& [k, v] : w.defines) plan.defines.emplace_back(k, v);
    add_omp_parallel_defines(plan, c, decls);
    plan.defines.emplace_back("MERGE", std::to_string(choice_index(decls, "merge", text_of(c, decls, "merge"))));
    plan.defines.emplace_back("COPIES", std::to_string(copies));
    plan.defines.emplace_back("WIDE", std::to_string(int_in(c, decls, "wide")));
    plan.dims = 1;
    plan.global = {spec_of(p).samples(), 1, 1};
    plan.args = {KernelArg::buf("in"), KernelArg::buf("out"),
                 KernelArg::integer(static_cast<std::int64_t>(spec_of(p).samples()))};
    return plan;
  }
};

}  // namespace

std::unique_ptr<Variant> make_omp_private() { return std::make_unique<OmpPrivate>(); }

}  // namespace pimg::hist
