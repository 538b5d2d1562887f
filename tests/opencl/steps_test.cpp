// LaunchPlan steps and scratch buffers through pimg::evaluate on the OpenCL device: a conv_direct kernel
// writes a scratch buffer that a second kernel (or a host step) copies into the output. Scratch is
// poisoned before every run, so a step that reads scratch nobody wrote fails validation.
#include <gtest/gtest.h>

#include <algorithm>

#include "cl_fixture.hpp"
#include "pimg/executor.hpp"

namespace pimg::cltest {
namespace {

enum class Copy { kernel, host, unwritten, skip_a5, past_end };

// cl_direct's plan with its output redirected into scratch "tmp", followed by a copy step.
class StepsVariant final : public Variant {
 public:
  explicit StepsVariant(Copy copy) : copy_(copy) {}
  std::string name() const override { return "steps_selftest"; }
  std::string family() const override { return "conv"; }
  std::string backend() const override { return "opencl"; }
  std::string source() const override { return "selftest/steps.cl"; }
  std::string help() const override { return "conv_direct into scratch, then a copy step"; }
  std::vector<ParamDecl> parameters() const override { return inner().parameters(); }
  LaunchPlan plan(const Problem& p, const Workload& w, const Config& c, const DeviceInfo& d) const override {
    LaunchPlan plan = inner().plan(p, w, c, d);
    for (KernelArg& a : plan.args)
      if (a.kind == ArgKind::Buffer && a.buffer == "out") a.buffer = "tmp";
    plan.scratch = {{"tmp", w.output_bytes}, {"never_written", w.output_bytes}};
    LaunchStep step;
    if (copy_ == Copy::host) {
      step.host = [](std::span<const std::uint8_t> in, std::span<std::uint8_t> out) {
        std::copy(in.begin(), in.end(), out.begin());
      };
      step.host_in = "tmp";
      step.host_out = "out";
    } else {
      // past_end writes 16 bytes after the output's last one.
      step.entry = copy_ == Copy::skip_a5 ? "copy_skip_a5" : copy_ == Copy::past_end ? "copy_overrun" : "copy_bytes";
      step.global = {w.output_bytes + (copy_ == Copy::past_end ? 16 : 0), 1, 1};
      step.args = {KernelArg::buf(copy_ == Copy::unwritten ? "never_written" : "tmp"), KernelArg::buf("out"),
                   KernelArg::integer(static_cast<std::int64_t>(w.output_bytes))};
    }
    plan.steps.push_back(step);
    return plan;
  }

 private:
  static const Variant& inner() { return *registry().variant("conv", "cl_direct"); }
  Copy copy_;
};

EvalResult run(Copy copy) {
  Problem p = conv_family().make_problem(97, 61, 1, {{"filter", "sharpen3"}, {"border", "zero"}});
  const Workload w = conv_family().make_workload(p);
  const std::vector<std::uint8_t> expected = conv_family().reference(p, w);
  MeasureSpec measure = MeasureSpec::fixed(1, 2, 10);
  EvalContext ctx{conv_family(), p, w, expected, device(), measure};
  return evaluate(ctx, StepsVariant(copy), config({{"block_x", 8}, {"block_y", 4}}));
}

TEST(Steps, KernelStepsRunInOrderAndTheirTimesAdd) {
  const EvalResult r = run(Copy::kernel);
  ASSERT_EQ(r.status, Status::ok) << r.log;
  EXPECT_EQ(r.kernel_ms.size(), 2u);
  for (double ms : r.kernel_ms) EXPECT_GT(ms, 0.0);
}

TEST(Steps, HostStepCopiesBetweenKernels) {
  const EvalResult r = run(Copy::host);
  ASSERT_EQ(r.status, Status::ok) << r.log;
  EXPECT_EQ(r.kernel_ms.size(), 2u);
}

TEST(Steps, ScratchIsPoisonedSoUnwrittenScratchFailsValidation) {
  const EvalResult r = run(Copy::unwritten);
  EXPECT_EQ(r.status, Status::wrong_result) << r.log;
}

// The output's correct value at some pixels is 0xA5, the first poison: a kernel that never writes those
// pixels passes the warm-up and is caught by the first timed run, poisoned with 0x5A.
TEST(Steps, PoisonAlternatesSoAPixelLeftAtThePoisonIsCaught) {
  Problem p = conv_family().make_problem(97, 61, 1, {{"filter", "sharpen3"}, {"border", "zero"}});
  const Workload w = conv_family().make_workload(p);
  const std::vector<std::uint8_t> expected = conv_family().reference(p, w);
  ASSERT_NE(std::count(expected.begin(), expected.end(), kPoisonValues[0]), 0) << "the test needs 0xA5 pixels";
  const EvalResult r = run(Copy::skip_a5);
  EXPECT_EQ(r.status, Status::wrong_result) << r.log;
  EXPECT_EQ(r.log.rfind("run 2:", 0), 0u) << "the warm-up (poison 0xA5) passes, run 2 (0x5A) fails: " << r.log;
}

TEST(Steps, CanaryCatchesAWritePastTheEndOfTheOutput) {
  const EvalResult r = run(Copy::past_end);
  EXPECT_EQ(r.status, Status::wrong_result) << r.log;
  EXPECT_NE(r.log.find("a write past the end of 'out'"), std::string::npos) << r.log;
}

TEST(Steps, EveryRowSaysItsTimingMethodAndInterval) {
  const EvalResult r = run(Copy::kernel);
  ASSERT_EQ(r.status, Status::ok) << r.log;
  EXPECT_EQ(r.method, "opencl-profiling hot");
  EXPECT_LE(r.ci_low_ms, r.kernel.median);
  EXPECT_GE(r.ci_high_ms, r.kernel.median);
  EXPECT_EQ(r.identity.size(), 32u);
}

}  // namespace
}  // namespace pimg::cltest
