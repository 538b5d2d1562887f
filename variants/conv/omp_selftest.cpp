// selftest_wrong_result_omp: a harness self-test on the OpenMP backend. Its kernel compiles and runs
// but writes one output byte off by one, so an evaluation must end as wrong_result.
#include "openmp_variants.hpp"
#include "variant_base.hpp"

namespace pimg::conv {
namespace {

class OmpSelftest final : public Variant {
 public:
  std::string name() const override { return "selftest_wrong_result_omp"; }
  std::string family() const override { return "conv"; }
  std::string backend() const override { return "openmp"; }
  std::string source() const override { return "selftest/wrong_result_omp.cpp"; }
  std::string help() const override {
    return "harness self-test: compiles and runs, but one output byte is off by one (expect wrong_result)";
  }
  std::vector<ParamDecl> parameters() const override { return {}; }
  LaunchPlan plan(const Problem&, const Workload& w, const Config&, const DeviceInfo&) const override {
    LaunchPlan plan;
    plan.entry = "conv_wrong_result_omp";
    add_problem_defines(plan, w);
    plan.args = {KernelArg::buf("in"),
                 KernelArg::buf("out"),
                 KernelArg::buf("weights"),
                 KernelArg::integer(w.scalars.at("width")),
                 KernelArg::integer(w.scalars.at("height")),
                 KernelArg::integer(w.scalars.at("out_width")),
                 KernelArg::integer(w.scalars.at("out_height"))};
    return plan;
  }
};

}  // namespace

std::unique_ptr<Variant> make_omp_selftest() { return std::make_unique<OmpSelftest>(); }

}  // namespace pimg::conv
