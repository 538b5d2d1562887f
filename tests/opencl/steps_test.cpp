// LaunchPlan steps and scratch buffers through pimg::evaluate on the OpenCL device: a conv_direct kernel
// writes a scratch buffer that a second kernel (or a host step) copies into the output. Scratch is
// poisoned before every run, so a step that reads scratch nobody wrote fails validation.
#include <gtest/gtest.h>

#include <algorithm>

#include "cl_fixture.hpp"
#include "pimg/executor.hpp"
#include "pimg/residency.hpp"

#include <fmt/format.h>

namespace pimg::cltest {
namespace {

enum class Copy { kernel, host, unwritten, skip_a5, past_end, wrong_pixel, scribble_input };

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
  LaunchPlan plan(const PlanContext& x) const override {
    const Workload& w = x.workload;
    LaunchPlan plan = inner().plan(x);  // the same parameters: parameters() forwards them
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
      step.entry = copy_ == Copy::skip_a5          ? "copy_skip_a5"
                   : copy_ == Copy::past_end       ? "copy_overrun"
                   : copy_ == Copy::wrong_pixel    ? "copy_wrong_pixel"
                   : copy_ == Copy::scribble_input ? "copy_scribble_input"
                                                   : "copy_bytes";
      step.global = {w.output_bytes + (copy_ == Copy::past_end ? 16 : 0), 1, 1};
      step.args = {KernelArg::buf(copy_ == Copy::unwritten ? "never_written" : "tmp"), KernelArg::buf("out"),
                   KernelArg::integer(static_cast<std::int64_t>(w.output_bytes))};
      if (copy_ == Copy::scribble_input) step.args.push_back(KernelArg::buf("in"));
    }
    plan.steps.push_back(step);
    return plan;
  }

 private:
  static const Variant& inner() { return *registry().variant("conv", "cl_direct"); }
  Copy copy_;
};

struct StepsProblem {
  Problem p = conv_family().make_problem(97, 61, 1, {{"filter", "sharpen3"}, {"border", "zero"}});
  Workload w = conv_family().make_workload(p);
  std::vector<std::uint8_t> expected = conv_family().reference(p, w);
};

EvalResult run(Copy copy, DeviceResidency* resident = nullptr, const StepsProblem& sp = StepsProblem{}) {
  MeasureSpec measure = MeasureSpec::fixed(1, 2, 10);
  EvalContext ctx{conv_family(), sp.p, sp.w, sp.expected, device(), measure};
  ctx.resident = resident;
  return evaluate(ctx, StepsVariant(copy), config({{"block_x", 8}, {"block_y", 4}}));
}

double metric(const EvalResult& r, const std::string& name) {
  for (const Metric& m : r.metrics)
    if (m.name == name && m.seq == -1) return m.value;
  ADD_FAILURE() << "no metric " << name;
  return -1;
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

// Validation on the device (docs/measurement.md): PoCL has the check kernels, so a correct output is never
// downloaded, and a wrong one is found there, then downloaded for the host's message of its first pixel.
TEST(DeviceCheck, ACorrectOutputIsValidatedOnTheDeviceWithoutADownload) {
  DeviceResidency resident(device(), DeviceResidency::Use::always);  // PoCL is the host's CPU: forced here
  const EvalResult r = run(Copy::kernel, &resident);
  ASSERT_EQ(r.status, Status::ok) << r.log;
  EXPECT_EQ(metric(r, "time.runs"), 3);  // a warm-up and two timed runs, each validated
  EXPECT_EQ(metric(r, "time.downloads"), 0);
  EXPECT_GT(metric(r, "time.check_ms"), 0);
  EXPECT_EQ(r.validation, "exact");
  EXPECT_GT(metric(r, "transfer.d2h_gbs"), 0);  // the download's bandwidth, measured once per problem
}

TEST(DeviceCheck, AWrongPixelIsFoundOnTheDeviceAndDescribedFromTheDownload) {
  const StepsProblem sp;
  DeviceResidency resident(device(), DeviceResidency::Use::always);
  const EvalResult r = run(Copy::wrong_pixel, &resident, sp);
  ASSERT_EQ(r.status, Status::wrong_result) << r.log;
  EXPECT_EQ(r.log.rfind("run 1:", 0), 0u) << r.log;
  const std::size_t middle = sp.w.output_bytes / 2;
  EXPECT_NE(r.log.find(fmt::format("(on the device: 1 bytes differ, the first at {})", middle)), std::string::npos)
      << r.log;
  // The host's own message of the first differing pixel, as without the device check.
  std::vector<std::uint8_t> wrong = sp.expected;
  wrong[middle] = static_cast<std::uint8_t>(wrong[middle] + 1);
  const Validation host = conv_family().compare(sp.p, sp.expected, wrong);
  ASSERT_FALSE(host.ok);
  EXPECT_NE(r.log.find(host.detail), std::string::npos) << r.log << " vs " << host.detail;
  EXPECT_EQ(metric(r, "time.downloads"), 1);
}

// Inputs and the reference stay on the device between configurations of one problem; an input a kernel
// wrote into is uploaded again for the next configuration (its checksum on the device changed).
TEST(DeviceCheck, InputsStayOnTheDeviceAndAScribbledInputIsUploadedAgain) {
  const StepsProblem sp;
  DeviceResidency resident(device(), DeviceResidency::Use::always);
  const EvalResult first = run(Copy::kernel, &resident, sp);
  ASSERT_EQ(first.status, Status::ok) << first.log;
  EXPECT_EQ(metric(first, "transfer.h2d_shared"), 0);
  const EvalResult second = run(Copy::kernel, &resident, sp);
  ASSERT_EQ(second.status, Status::ok) << second.log;
  EXPECT_EQ(metric(second, "transfer.h2d_shared"), 1);
  EXPECT_EQ(metric(second, "time.upload_ms"), 0);
  EXPECT_GT(metric(second, "transfer.h2d_gbs"), 0);  // the first upload's, kept by the residency
  EXPECT_GT(second.h2d_ms, 0);
  const EvalResult scribbler = run(Copy::scribble_input, &resident, sp);
  EXPECT_EQ(metric(scribbler, "time.upload_ms"), 0);  // it got the clean input, and changed it in every run
  const EvalResult after = run(Copy::kernel, &resident, sp);
  ASSERT_EQ(after.status, Status::ok) << after.log;
  EXPECT_GT(metric(after, "time.upload_ms"), 0) << "the scribbled input must be uploaded again";
  EXPECT_EQ(metric(after, "transfer.h2d_shared"), 1);  // the other inputs (weights, taps, lut) were not
}

// The three ways a run can be wrong, caught on the device exactly as on the host (same status and message).
TEST(DeviceCheck, PastTheEndAndASkippedPoisonValuedPixelAreCaughtAsOnTheHost) {
  for (Copy copy : {Copy::past_end, Copy::skip_a5, Copy::unwritten, Copy::wrong_pixel}) {
    DeviceResidency resident(device(), DeviceResidency::Use::always);
    const EvalResult on_device = run(copy, &resident);
    const EvalResult on_host = run(copy);
    ASSERT_EQ(on_host.status, Status::wrong_result) << on_host.log;
    EXPECT_EQ(on_device.status, on_host.status) << on_device.log;
    // The host's message, then what the device found where the output itself differed.
    EXPECT_EQ(on_device.log.rfind(on_host.log, 0), 0u) << on_device.log << "\nvs\n" << on_host.log;
    // Without a residency a plan compares on the host only where the device is the host's CPU (PoCL, as in
    // CI); on a GPU (NVIDIA's OpenCL) both runs check on the device.
    if (device().info().limits.at("device_type_cpu") != 0) EXPECT_EQ(metric(on_host, "time.check_ms"), 0);
    EXPECT_GT(metric(on_device, "time.check_ms"), 0);
  }
}

TEST(DeviceCheck, AutomaticallyOffOnTheHostsCpu) {
  DeviceResidency resident(device());
  EXPECT_EQ(resident.active(), device().info().limits.at("device_type_cpu") == 0) << resident.no_checker_reason();
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
