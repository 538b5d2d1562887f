// selftest_wrong_result_omp: a harness self-test on the OpenMP backend. Its kernel compiles and runs
// but writes one output byte off by one, so an evaluation must end as wrong_result. The class is
// shared by the other OpenMP self-tests (selftest_hang.cpp, selftest_crash.cpp, selftest_memory.cpp).
#include "openmp_variants.hpp"
#include "variant_base.hpp"

namespace pimg::conv {
namespace {

class OmpSelftest final : public Variant {
 public:
  OmpSelftest(std::string name, std::string source, std::string entry, std::string help)
      : name_(std::move(name)), source_(std::move(source)), entry_(std::move(entry)), help_(std::move(help)) {}
  std::string name() const override { return name_; }
  std::string family() const override { return "conv"; }
  std::string backend() const override { return "openmp"; }
  std::string source() const override { return source_; }
  std::string help() const override { return help_; }
  std::vector<ParamDecl> parameters() const override { return {}; }
  LaunchPlan plan(const Problem&, const Workload& w, const Config&, const DeviceInfo&) const override {
    LaunchPlan plan;
    plan.entry = entry_;
    add_problem_defines(plan, w);
    plan.args = host_image_args(w);
    return plan;
  }

 private:
  std::string name_, source_, entry_, help_;
};

}  // namespace

std::unique_ptr<Variant> make_omp_selftest_variant(std::string name, std::string source, std::string entry,
                                                   std::string help) {
  return std::make_unique<OmpSelftest>(std::move(name), std::move(source), std::move(entry), std::move(help));
}

std::unique_ptr<Variant> make_omp_selftest() {
  return make_omp_selftest_variant(
      "selftest_wrong_result_omp", "selftest/wrong_result_omp.cpp", "conv_wrong_result_omp",
      "harness self-test: compiles and runs, but one output byte is off by one (expect wrong_result)");
}

}  // namespace pimg::conv
