// selftest_wrong_result_omp: a harness self-test on the OpenMP backend. Its kernel compiles and runs
// but writes one output byte off by one, so an evaluation must end as wrong_result. The row is
// shared by the other OpenMP self-tests (selftest_hang.cpp, selftest_crash.cpp, selftest_memory.cpp).
#include "conv/openmp_variants.hpp"
#include "conv/variant_base.hpp"

namespace pimg::conv {
std::unique_ptr<Variant> make_omp_selftest_variant(std::string name, std::string source, std::string entry,
                                                   std::string help) {
  return make_variant({std::move(name), "conv", "openmp", std::move(source), std::move(help), {},
                            [entry](const PlanContext& x) {
                              const Workload& w = x.workload;
                              LaunchPlan plan;
                              plan.entry = entry;
                              add_problem_defines(plan, w);
                              plan.args = host_image_args(w);
                              return plan;
                            }});
}

std::unique_ptr<Variant> make_omp_selftest() {
  return make_omp_selftest_variant(
      "selftest_wrong_result_omp", "selftest/wrong_result_omp.cpp", "conv_wrong_result_omp",
      "harness self-test: compiles and runs, but one output byte is off by one (expect wrong_result)");
}

}  // namespace pimg::conv
