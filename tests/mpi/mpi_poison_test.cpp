// The run's poison reaches the MPI ranks (issue 37): a worker whose last rank leaves every pixel whose correct
// value is 0xA5 unwritten (tests/mpi/workers/copy_worker.cpp, pimg-test-mpi-skip-a5) passes the warm-up, poisoned
// with 0xA5, and is caught by the first timed run, poisoned with 0x5A; the same worker without the skip
// (pimg-test-mpi-copy) passes on the same input. Both run through the MPI backend and pimg::evaluate.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "mpi/mpi_util.hpp"
#include "pimg/evaluator.hpp"
#include "pimg/executor.hpp"
#include "pimg/registry.hpp"

namespace pimg::mpi_test {
namespace {

// conv's mpi_rows plan (identity filter: the copy worker's problem), run by the test worker `worker`.
class TestWorkerVariant final : public Variant {
 public:
  explicit TestWorkerVariant(std::string worker) : worker_(std::move(worker)) {}
  std::string name() const override { return worker_; }
  std::string family() const override { return "conv"; }
  std::string backend() const override { return "mpi"; }
  std::string source() const override { return inner().source(); }
  std::string help() const override { return "conv's mpi_rows plan, run by a test worker"; }
  std::vector<ParamDecl> parameters() const override { return inner().parameters(); }
  LaunchPlan plan(const PlanContext& x) const override {
    LaunchPlan plan = inner().plan(x);  // the same parameters: parameters() forwards them
    plan.entry = worker_;
    return plan;
  }

 private:
  static const Variant& inner() { return *Registry::builtin().variant("conv", "mpi_rows"); }
  std::string worker_;
};

struct CopyProblem {
  const Family& family = *Registry::builtin().family("conv");
  Problem p = family.make_problem(97, 61, 1, {{"filter", "custom"}, {"weights", "1"}, {"divisor", "1"}});
  Workload w = family.make_workload(p);
  std::vector<std::uint8_t> expected = family.reference(p, w);
};

// One warm-up (poison 0xA5) and two timed runs (0x5A, 0xA5), each validated, at two ranks.
EvalResult run(const CopyProblem& cp, const std::string& worker) {
  EvalContext ctx{cp.family, cp.p, cp.w, cp.expected, mpi_device(), MeasureSpec::fixed(1, 2, 60)};
  return evaluate(ctx, TestWorkerVariant(worker), mpi_config(2, 1, "halo"));
}

TEST(MpiPoison, ARankSkippingPixelsWhoseValueIsTheFirstPoisonIsCaught) {
  const CopyProblem cp;
  // The last rank's half of the output holds 0xA5 pixels: the ones the faulty rank leaves unwritten.
  const auto half = cp.expected.begin() + static_cast<std::ptrdiff_t>(cp.expected.size() / 2);
  ASSERT_NE(std::count(half, cp.expected.end(), kPoisonValues[0]), 0) << "the test needs 0xA5 pixels";
  const EvalResult r = run(cp, "pimg-test-mpi-skip-a5");
  EXPECT_EQ(r.status, Status::wrong_result) << r.log;
  EXPECT_EQ(r.log.rfind("run 2:", 0), 0u) << "the warm-up (poison 0xA5) passes, run 2 (0x5A) fails: " << r.log;
}

TEST(MpiPoison, TheSameWorkerWritingEveryPixelPasses) {
  const CopyProblem cp;
  const EvalResult r = run(cp, "pimg-test-mpi-copy");
  ASSERT_EQ(r.status, Status::ok) << r.log;
  EXPECT_EQ(r.validation, "exact");
  expect_run_times(r, 2);
}

}  // namespace
}  // namespace pimg::mpi_test
