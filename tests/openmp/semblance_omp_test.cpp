// The OpenMP semblance variant: every knob (schedule, chunk, collapse depth, threads, the simd E
// loop, host precomputation, inlining, interpolation, folded den) compiled and validated against the
// serial reference by the family's rule, on a non-cubic synthetic grid.
#include "semblance_fixture.hpp"

namespace pimg::sembtest {
namespace {

Device& omp() {
  static std::unique_ptr<Device> device = [] {
    const Backend* b = Registry::builtin().backend("openmp");
    return b->open(b->devices().at(0));
  }();
  return *device;
}

TEST(SemblanceOmp, EveryKnobMatchesTheReference) {
  const Prepared prep = prepare(small_problem());
  const std::vector<Config> configs = {
      Config{},  // the seed's port: schedule(dynamic) over A, helpers called, geometry from the headers
      config({{"schedule", "static"}, {"chunk", 2}, {"collapse", 3}, {"threads", 2}, {"precompute", "host"},
              {"inline", 1}, {"interp", "simplified"}, {"window", "sum"}}),
      config({{"schedule", "guided"}, {"collapse", 5}, {"threads", 1}, {"interp", "seed"}, {"window", "arrays"}}),
      config({{"schedule", "dynamic"}, {"chunk", 4}, {"collapse", 4}, {"vec_e", 1}, {"precompute", "host"},
              {"inline", 1}, {"interp", "simplified"}, {"window", "sum"}}),
      config({{"schedule", "static"}, {"collapse", 2}, {"vec_e", 1}, {"precompute", "kernel"}, {"inline", 1},
              {"interp", "seed"}, {"window", "arrays"}}),
  };
  for (const Config& c : configs) {
    const EvalResult r = evaluate_on(omp(), prep, "omp_grid", c);
    EXPECT_EQ(r.status, Status::ok) << c.brief() << ": " << r.log;
    EXPECT_NE(r.validation.find("semblance"), std::string::npos) << r.validation;
  }
}

TEST(SemblanceOmp, ImpossibleKnobsArePlanErrors) {
  const Prepared prep = prepare(small_problem());
  const DeviceInfo& d = omp().info();
  const Variant& v = variant("omp_grid");
  EXPECT_THROW(plan_for(v, prep.problem, prep.workload, config({{"collapse", 5}, {"vec_e", 1}}), d), PlanError);
  EXPECT_THROW(plan_for(v, prep.problem, prep.workload, config({{"collapse", 0}}), d), PlanError);
  EXPECT_THROW(plan_for(v, prep.problem, prep.workload, config({{"chunk", 0}}), d), PlanError);
  EXPECT_THROW(plan_for(v, prep.problem, prep.workload, config({{"interp", "cubic"}}), d), PlanError);
}

TEST(SemblanceSerial, BaselineMatchesTheReference) {
  const Backend* b = Registry::builtin().backend("host");
  auto device = b->open(b->devices().at(0));
  const Prepared prep = prepare(small_problem());
  const EvalResult r = evaluate_on(*device, prep, "serial", Config{});
  EXPECT_EQ(r.status, Status::ok) << r.log;
}

}  // namespace
}  // namespace pimg::sembtest
