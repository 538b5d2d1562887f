// The OpenCL semblance variants on PoCL (or any OpenCL device): the 1-D, 2-D and 3-D mappings, work-group
// shapes, points per item, host vs kernel geometry, inlining, interpolation, constant memory and the
// local-memory window, validated against the serial reference; and the device arg-max (a second kernel
// over per-group maxima in poisoned scratch buffers).
#include "cl_fixture.hpp"
#include "semblance_fixture.hpp"

namespace pimg::sembtest {
namespace {

TEST(SemblanceOpenCL, MappingsAndKnobsMatchTheReference) {
  const Prepared prep = prepare(small_problem());
  const std::vector<Config> configs = {
      config({{"dims", 1}, {"block_x", 64}}),
      config({{"dims", 1}, {"block_x", 32}, {"ppi", 3}, {"precompute", "kernel"}, {"inline", 0}}),
      config({{"dims", 2}, {"block_x", 8}, {"block_y", 4}, {"interp", "simplified"}, {"geom_mem", "constant"}}),
      config({{"dims", 2}, {"block_x", 4}, {"block_y", 8}, {"ppi", 2}, {"window", "local"}}),
      config({{"dims", 3}, {"block_x", 4}, {"block_y", 4}, {"block_z", 4}}),  // the seed's (4,4,4)
      config({{"dims", 3}, {"block_x", 2}, {"block_y", 2}, {"block_z", 2}, {"ppi", 7}, {"window", "local"},
              {"geom_mem", "constant"}, {"precompute", "kernel"}, {"interp", "simplified"}}),
  };
  for (const Config& c : configs) {
    const EvalResult r = evaluate_on(cltest::device(), prep, "cl_grid", c);
    EXPECT_EQ(r.status, Status::ok) << c.brief() << ": " << r.log;
  }
}

TEST(SemblanceOpenCL, DeviceArgmaxMatchesTheReference) {
  const Prepared prep = prepare(small_problem());
  const std::vector<Config> configs = {
      config({{"dims", 1}, {"block_x", 64}, {"final_block", 64}}),
      config({{"dims", 3}, {"block_x", 4}, {"block_y", 2}, {"block_z", 2}, {"ppi", 4}, {"window", "local"},
              {"final_block", 16}}),
      config({{"dims", 2}, {"block_x", 8}, {"block_y", 8}, {"ppi", 2}, {"final_block", 256}}),
  };
  for (const Config& c : configs) {
    const EvalResult r = evaluate_on(cltest::device(), prep, "cl_argmax", c);
    EXPECT_EQ(r.status, Status::ok) << c.brief() << ": " << r.log;
  }
}

TEST(SemblanceOpenCL, ImpossibleShapesArePlanErrors) {
  const Prepared prep = prepare(small_problem());
  const DeviceInfo& d = cltest::device().info();
  EXPECT_THROW(plan_for(variant("cl_grid"), prep.problem, prep.workload, config({{"dims", 1}, {"block_y", 2}}), d), PlanError);
  EXPECT_THROW(plan_for(variant("cl_grid"), prep.problem, prep.workload, config({{"dims", 2}, {"block_z", 2}}), d), PlanError);
  EXPECT_THROW(plan_for(variant("cl_argmax"), prep.problem, prep.workload, config({{"block_x", 24}}), d), PlanError);
  EXPECT_THROW(plan_for(variant("cl_argmax"), prep.problem, prep.workload, config({{"final_block", 100}}), d), PlanError);
}

}  // namespace
}  // namespace pimg::sembtest
