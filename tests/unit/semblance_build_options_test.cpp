// Seed 004's build experiments as knobs: omp_grid's `opt` (the optimisation level its serial code was
// built at, passed after the backend's -O3 so it wins) and the device variants' `math` (-cl-mad-enable,
// -cl-fast-relaxed-math; CUDA --fmad=true, --use_fast_math). The defaults leave the plan as it was.
#include <gtest/gtest.h>

#include <algorithm>

#include "semblance_fixture.hpp"

namespace pimg::sembtest {
namespace {

DeviceInfo device(const std::string& backend) {
  DeviceInfo d;
  d.backend = backend;
  d.name = "test";
  d.max_work_group_size = 1024;
  d.local_mem_bytes = 65536;
  return d;
}

LaunchPlan plan_of(const std::string& variant, const std::string& backend, Config c) {
  const Problem p = small_problem();
  const Workload w = family().make_workload(p);
  return plan_for(sembtest::variant(variant), p, w, c, device(backend));
}

bool has(const LaunchPlan& plan, const std::string& option) {
  return std::find(plan.options.begin(), plan.options.end(), option) != plan.options.end();
}

TEST(SemblanceBuildOptions, OptimisationLevelOfTheOpenMpSearch) {
  EXPECT_TRUE(plan_of("omp_grid", "openmp", config({})).options.empty());
  EXPECT_TRUE(plan_of("omp_grid", "openmp", config({{"opt", std::string("O3")}})).options.empty());
  EXPECT_TRUE(has(plan_of("omp_grid", "openmp", config({{"opt", std::string("O0")}})), "-O0"));
  EXPECT_TRUE(has(plan_of("omp_grid", "openmp", config({{"opt", std::string("O2")}})), "-O2"));
  EXPECT_THROW(plan_of("omp_grid", "openmp", config({{"opt", std::string("Ofast")}})), PlanError);
}

TEST(SemblanceBuildOptions, FastMathOnOpenClAndCuda) {
  EXPECT_TRUE(plan_of("cl_grid", "opencl", config({})).options.empty());
  EXPECT_TRUE(has(plan_of("cl_grid", "opencl", config({{"math", std::string("mad")}})), "-cl-mad-enable"));
  EXPECT_TRUE(has(plan_of("cl_argmax", "opencl", config({{"math", std::string("fast")}})), "-cl-fast-relaxed-math"));
  EXPECT_TRUE(has(plan_of("cuda_grid", "cuda", config({{"math", std::string("fast")}})), "--use_fast_math"));
  EXPECT_TRUE(has(plan_of("cuda_grid", "cuda", config({{"math", std::string("mad")}})), "--fmad=true"));
  EXPECT_TRUE(plan_of("cuda_grid", "cuda", config({{"math", std::string("default")}})).options.empty());
  // The MPI program builds its kernel itself: no knob that it would ignore.
  const auto decls = sembtest::variant("mpi_cuda_grid").parameters();
  EXPECT_TRUE(std::none_of(decls.begin(), decls.end(), [](const ParamDecl& d) { return d.name == "math"; }));
}

}  // namespace
}  // namespace pimg::sembtest
