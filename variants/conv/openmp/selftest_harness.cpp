// selftest_harness_omp: a harness self-test whose plan() throws something other than PlanError (a bug
// in a variant's own code). The configuration must be stored as harness_error and tuning must go on.
#include <stdexcept>

#include "conv/openmp_variants.hpp"

namespace pimg::conv {

std::unique_ptr<Variant> make_selftest_harness_omp() {
  return make_variant({"selftest_harness_omp", "conv", "openmp", "selftest/wrong_result_omp.cpp",
                       "harness self-test: plan() throws std::logic_error (expect harness_error, the run goes on)",
                       {}, [](const PlanContext&) -> LaunchPlan {
                         throw std::logic_error("selftest_harness_omp: plan() failed in the variant's own code");
                       }});
}

}  // namespace pimg::conv
