// selftest_harness_omp: a harness self-test whose plan() throws something other than PlanError (a bug
// in a variant's own code). The configuration must be stored as harness_error and tuning must go on.
#include <stdexcept>

#include "conv/openmp_variants.hpp"

namespace pimg::conv {
namespace {

class HarnessSelftest final : public Variant {
 public:
  std::string name() const override { return "selftest_harness_omp"; }
  std::string family() const override { return "conv"; }
  std::string backend() const override { return "openmp"; }
  std::string source() const override { return "selftest/wrong_result_omp.cpp"; }
  std::string help() const override {
    return "harness self-test: plan() throws std::logic_error (expect harness_error, the run goes on)";
  }
  std::vector<ParamDecl> parameters() const override { return {}; }
  LaunchPlan plan(const PlanContext&) const override {
    throw std::logic_error("selftest_harness_omp: plan() failed in the variant's own code");
  }
};

}  // namespace

std::unique_ptr<Variant> make_selftest_harness_omp() { return std::make_unique<HarnessSelftest>(); }

}  // namespace pimg::conv
