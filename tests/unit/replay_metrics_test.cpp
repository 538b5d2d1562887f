// The field's metrics of a replay comparison on the synthetic store: fractions of the optimum at the
// fixed budgets and shares of the space, the seeds that found the optimum, the time budget and the
// time-based score with its interval (random search scores 0 against itself; a search that finds
// the optimum early scores well above it); option overrides reach the strategy and are checked.
#include <gtest/gtest.h>

#include "pimg/errors.hpp"
#include "pimg/registry.hpp"
#include "pimg/replay.hpp"
#include "synthetic_db.hpp"

using namespace pimg;

namespace {

const ReplaySpace& space512() {
  static const std::vector<ReplaySpace> s = [] {
    synthetic::TempDb db("replay-metrics");
    Store store(db.path.string());
    synthetic::fill(store, synthetic::gpu("Test GPU 16GB", 16), 1.0, {512});
    return replay_spaces(store.rows());
  }();
  return s.front();
}

}  // namespace

TEST(ReplayMetrics, FractionsTimeBudgetAndTimeScore) {
  const ReplaySpace& s = space512();
  auto cmp = compare_strategies({s}, Registry::builtin(), 8, {"random", "gp"});
  ASSERT_EQ(cmp.size(), 1u);
  const ReplayComparison& c = cmp[0];
  // The space has 285 points: budgets 25 to 200 (400 is beyond it) and the four shares.
  ASSERT_EQ(s.space.size(), 285u);
  ASSERT_EQ(c.scores.size(), 2u);
  std::vector<std::string> labels;
  for (const auto& b : c.scores[0].budgets) labels.push_back(b.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"25", "50", "100", "200", "1%", "2%", "5%", "10%"}));
  EXPECT_EQ(c.scores[0].budgets[7].evaluations, 29u);
  EXPECT_GT(c.time_budget_ms, 0);
  ASSERT_EQ(c.time_points.size(), 100u);
  EXPECT_DOUBLE_EQ(c.time_points.back(), c.time_budget_ms);
  for (const auto& sc : c.scores) {
    SCOPED_TRACE(sc.strategy);
    double last = 0;
    for (const auto& b : sc.budgets) {
      EXPECT_GE(b.mean, 0);
      EXPECT_LE(b.mean, 1);
      EXPECT_GE(b.sd, 0);
      if (b.label.back() != '%') {
        EXPECT_GE(b.mean, last);  // more evaluations never find less
        last = b.mean;
      }
    }
    // After 200 of 285 points most seeds have found the optimum.
    EXPECT_GE(sc.budgets[3].found_optimum, 4u);
    EXPECT_EQ(sc.time_fraction.size(), 100u);
    ASSERT_TRUE(sc.time_score);
    EXPECT_LE(sc.time_score->low, sc.time_score->mean);
    EXPECT_GE(sc.time_score->high, sc.time_score->mean);
  }
  const StrategyScore& random = c.scores[0];
  const StrategyScore& gp = c.scores[1];
  EXPECT_DOUBLE_EQ(random.time_score->mean, 0.0);
  EXPECT_LT(random.time_score->low, 0.0);
  EXPECT_GT(random.time_score->high, 0.0);
  EXPECT_GT(gp.time_score->low, 0.0) << "the model search beats random search over time on a smooth landscape";
  EXPECT_GT(gp.budgets[0].mean, random.budgets[0].mean);
}

TEST(ReplayMetrics, OptionOverridesAreCheckedAndUsed) {
  const Registry& reg = Registry::builtin();
  auto o = parse_option_overrides({"gp.length=0.5", "genetic.popsize=8"}, reg);
  EXPECT_EQ(o.at("gp").at("length"), "0.5");
  EXPECT_EQ(o.at("genetic").at("popsize"), "8");
  EXPECT_THROW(parse_option_overrides({"gp.length"}, reg), UsageError);
  EXPECT_THROW(parse_option_overrides({"nosuch.x=1"}, reg), UsageError);
  EXPECT_THROW(parse_option_overrides({"gp.nosuch=1"}, reg), UsageError);
  EXPECT_THROW(parse_option_overrides({"gp.length=-1"}, reg), UsageError);
  // An override changes the walk: a different initial sample size gives other runs.
  const ReplaySpace& s = space512();
  auto a = compare_strategies({s}, reg, 2, {"gp"});
  auto b = compare_strategies({s}, reg, 2, {"gp"}, parse_option_overrides({"gp.init=20"}, reg));
  EXPECT_NE(a[0].scores[0].mean_fraction, b[0].scores[0].mean_fraction);
}
