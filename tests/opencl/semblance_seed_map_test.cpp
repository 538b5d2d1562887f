// Seed 004's own mappings (map=seed) on PoCL: items over A (dims 1), A x B (dims 2) or A x B x C (dims 3),
// the other dimensions looped inside each item, with points per item, the local-memory window, constant
// geometry and the device arg-max, validated against the serial reference; the plan's range is the
// seed's (one item per A, B, C value, rounded up to the work-group).
#include "cl_fixture.hpp"
#include "semblance_fixture.hpp"

namespace pimg::sembtest {
namespace {

TEST(SemblanceSeedMap, EveryDepthMatchesTheReference) {
  const Prepared prep = prepare(small_problem());
  const std::vector<Config> grid = {
      config({{"map", "seed"}, {"dims", 1}, {"block_x", 2}}),
      config({{"map", "seed"}, {"dims", 2}, {"block_x", 2}, {"block_y", 2}, {"ppi", 3}, {"window", "local"}}),
      config({{"map", "seed"}, {"dims", 3}, {"block_x", 2}, {"block_y", 2}, {"block_z", 2}, {"inline", 0},
              {"precompute", "kernel"}}),
      config({{"map", "seed"}, {"dims", 3}, {"block_x", 4}, {"block_y", 4}, {"block_z", 4}, {"interp", "simplified"},
              {"geom_mem", "constant"}, {"window", "local"}}),  // the seed's final configuration, (4,4,4)
  };
  for (const Config& c : grid) {
    const EvalResult r = evaluate_on(cltest::device(), prep, "cl_grid", c);
    EXPECT_EQ(r.status, Status::ok) << c.brief() << ": " << r.log << r.validation;
  }
  const EvalResult best = evaluate_on(
      cltest::device(), prep, "cl_argmax",
      config({{"map", "seed"}, {"dims", 3}, {"block_x", 2}, {"block_y", 2}, {"block_z", 2}, {"final_block", 16}}));
  EXPECT_EQ(best.status, Status::ok) << best.log << best.validation;
}

TEST(SemblanceSeedMap, RangeIsOneItemPerOuterPoint) {
  const Prepared prep = prepare(small_problem());  // grid 3x4x5x4x7
  const DeviceInfo& d = cltest::device().info();
  const LaunchPlan one = plan_for(variant("cl_grid"), prep.problem, prep.workload,
                                                 config({{"map", "seed"}, {"dims", 1}, {"block_x", 2}}), d);
  EXPECT_EQ(one.global, (std::array<std::size_t, 3>{4, 1, 1}));
  const LaunchPlan three = plan_for(variant("cl_grid"),
      prep.problem, prep.workload,
      config({{"map", "seed"}, {"dims", 3}, {"block_x", 2}, {"block_y", 2}, {"block_z", 2}}), d);
  EXPECT_EQ(three.global, (std::array<std::size_t, 3>{4, 4, 6}));
  const LaunchPlan grid = plan_for(variant("cl_grid"), prep.problem, prep.workload, config({{"dims", 1}}), d);
  for (const auto& [name, value] : grid.defines) EXPECT_NE(name, "SEED_MAP");  // the default plan is unchanged
}

}  // namespace
}  // namespace pimg::sembtest
