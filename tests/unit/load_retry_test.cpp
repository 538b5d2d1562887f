// A measurement its observers flag "loaded" is taken again once (LoadRetries, docs/measurement.md), within the
// session's allowance of 4 + 10% of its evaluations; what is stored is the second measurement, flagged
// "remeasured". Real evaluations of conv's serial variant on the host device; the observer that says "loaded" is
// the test's, so that the load is known rather than hoped for.
#include <gtest/gtest.h>

#include <algorithm>

#include "pimg/evaluator.hpp"
#include "pimg/observer.hpp"
#include "pimg/registry.hpp"
#include "test_devices.hpp"

namespace pimg {
namespace {

// Flags "loaded" on the measurements (begin..end) whose index is in `loaded`, counting from 0.
class ScriptedLoad final : public Observer {
 public:
  explicit ScriptedLoad(std::vector<bool> loaded) : loaded_(std::move(loaded)) {}
  void begin() override { ++begun_; }
  void after_run(int, std::vector<Metric>& out) override { out.push_back({"test.run", "count", -1, 1}); }
  void end(std::vector<Metric>&, std::vector<std::string>& flags) override {
    const std::size_t i = ended_++;
    if (i < loaded_.size() ? loaded_[i] : loaded_.back()) flags.push_back("loaded");
  }
  int begun_ = 0;
  std::size_t ended_ = 0;

 private:
  std::vector<bool> loaded_;
};

bool has(const EvalResult& r, const std::string& flag) {
  return std::find(r.flags.begin(), r.flags.end(), flag) != r.flags.end();
}

struct Bench {
  const Family& family = *Registry::builtin().family("conv");
  const Problem problem = family.make_problem(64, 48, 1, {{"filter", "sharpen3"}});
  const Workload workload = family.make_workload(problem);
  const Variant& serial = *Registry::builtin().variant("conv", "serial");
  const std::vector<std::uint8_t> expected = family.reference(problem, workload, serial.validation_rule());

  EvalResult evaluate_with(Observer& o, LoadRetries* retries) {
    EvalContext ctx{family, problem, workload, expected, test::first_device("host"), MeasureSpec::fixed(1, 3, 60)};
    ctx.observers = {&o};
    ctx.load_retries = retries;
    return evaluate(ctx, serial, Config{});
  }
};

TEST(LoadRetry, ALoadedMeasurementIsTakenAgainAndTheSecondIsStored) {
  Bench b;
  ScriptedLoad load({true, false});
  LoadRetries retries;
  const EvalResult r = b.evaluate_with(load, &retries);
  ASSERT_EQ(r.status, Status::ok) << r.log;
  EXPECT_EQ(load.begun_, 2);
  EXPECT_TRUE(has(r, "remeasured"));
  EXPECT_FALSE(has(r, "loaded"));
  EXPECT_EQ(r.kernel_ms.size(), 3u);  // the second measurement's runs only
  const auto runs = std::count_if(r.metrics.begin(), r.metrics.end(), [](const Metric& m) { return m.name == "test.run"; });
  EXPECT_EQ(runs, 3);  // and its observers' metrics only
  EXPECT_EQ(retries.evaluations, 1);
  EXPECT_EQ(retries.retries, 1);
}

TEST(LoadRetry, AnUnloadedMeasurementIsTakenOnce) {
  Bench b;
  ScriptedLoad load({false});
  LoadRetries retries;
  const EvalResult r = b.evaluate_with(load, &retries);
  ASSERT_EQ(r.status, Status::ok) << r.log;
  EXPECT_EQ(load.begun_, 1);
  EXPECT_FALSE(has(r, "remeasured"));
  EXPECT_EQ(retries.retries, 0);
}

TEST(LoadRetry, ALoadThatStaysCostsAtMostFourAndATenthMore) {
  Bench b;
  ScriptedLoad load({true});  // every measurement loaded
  LoadRetries retries;
  int remeasured = 0, still_loaded = 0;
  for (int i = 0; i < 30; ++i) {
    const EvalResult r = b.evaluate_with(load, &retries);
    ASSERT_EQ(r.status, Status::ok) << r.log;
    remeasured += has(r, "remeasured");
    still_loaded += has(r, "loaded");  // a measurement taken again under the same load keeps its flag
  }
  EXPECT_EQ(still_loaded, 30);
  EXPECT_EQ(retries.evaluations, 30);
  EXPECT_EQ(remeasured, retries.retries);
  EXPECT_LE(retries.retries, 4 + 30 / 10);
  EXPECT_GE(retries.retries, 4);
  EXPECT_EQ(load.begun_, 30 + remeasured);
}

TEST(LoadRetry, WithoutASessionAllowanceTheMeasurementStands) {
  Bench b;
  ScriptedLoad load({true, false});
  const EvalResult r = b.evaluate_with(load, nullptr);
  ASSERT_EQ(r.status, Status::ok) << r.log;
  EXPECT_EQ(load.begun_, 1);
  EXPECT_TRUE(has(r, "loaded"));
  EXPECT_FALSE(has(r, "remeasured"));
}

}  // namespace
}  // namespace pimg
