// omp_histeq: histeq on OpenMP (kernels/histeq/histeq_omp.cpp: private sub-histograms merged by a reduction, LUT,
// parallel map).
#include "hist/hist_common.hpp"
#include "histeq/histeq_family.hpp"

namespace pimg::histeq {
namespace {

class OmpHisteq final : public Variant {
 public:
  std::string name() const override { return "omp_histeq"; }
  std::string family() const override { return "histeq"; }
  std::string backend() const override { return "openmp"; }
  std::string source() const override { return "histeq/histeq_omp.cpp"; }
  std::string help() const override {
    return "OpenMP private sub-histograms over tasks of 64 KiB merged by an array reduction, the LUT on one thread, "
           "parallel map";
  }
  std::vector<ParamDecl> parameters() const override {
    std::vector<ParamDecl> out = hist::omp_parallel_params();
    out.push_back(int_choice("copies", 2, "sub-histograms per thread (1, 2 or 4) taking consecutive bytes in turn", {1, 2, 4}));
    out.push_back(int_choice("wide", 0, "1: count 64-bit words split into bytes; 0: byte loads", {0, 1}));
    out.push_back(text_choice("map", {"bytes", "words", "vbmi"}, "bytes",
                                   "map pass: one byte per step, one 64-bit word per step, or AVX-512 VBMI byte "
                                   "permutes over the LUT, 64 bytes per step (a compile error without AVX-512 VBMI)"));
    return out;
  }
  LaunchPlan plan(const PlanContext& x) const override {
    const Problem& p = x.problem;
    const Config& c = x.config;
    LaunchPlan plan;
    plan.entry = "histeq_omp";
    const auto decls = parameters();
    const int copies = hist::int_in(c, decls, "copies");
    hist::add_omp_parallel_defines(plan, c, decls);
    plan.defines.emplace_back("COPIES", std::to_string(copies));
    plan.defines.emplace_back("WIDE", std::to_string(hist::int_in(c, decls, "wide")));
    plan.defines.emplace_back("MAP", std::to_string(hist::choice_index(decls, "map", hist::text_of(c, decls, "map"))));
    plan.dims = 1;
    plan.global = {static_cast<std::size_t>(p.width) * p.height, 1, 1};
    plan.args = {KernelArg::buf("in"), KernelArg::buf("out"),
                 KernelArg::integer(static_cast<std::int64_t>(p.width) * p.height)};
    return plan;
  }
};

}  // namespace

void register_omp_variants(Registry& reg) { reg.add_variant(std::make_unique<OmpHisteq>()); }

}  // namespace pimg::histeq
