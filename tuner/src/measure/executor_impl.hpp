// The executor's inside (not installed), shared by its pieces executor.cpp (identity and preparation) and
// executor_run.cpp (runs): the parts a PreparedPlan holds.
#pragma once
#include <fmt/format.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pimg/executor.hpp"
#include "pimg/evaluator.hpp"
#include "measure/plan_metrics.hpp"
#include "measure/stopwatch.hpp"

namespace pimg {

// The parts PreparedPlan::Impl holds (a class of the header's, so its members' types need linkage).
namespace executor_detail {

// One compiled kernel or host computation of the plan, in run order.
struct Step {
  LaunchPlan plan;                    // kernel steps
  std::shared_ptr<Program> program;   // null for a host step
  const LaunchStep* host = nullptr;   // host steps
};

// Transfers are measured once per problem and host-side settings of the plan (its options: pinned or pageable
// host memory) where the data stay on the device.
inline std::string transfer_key(const Problem& problem, const LaunchPlan& plan) {
  std::string key = problem.canonical();
  for (const std::string& o : plan.options) key += "\n" + o;
  return key;
}

// Where a configuration's time goes in the executor (docs/design.md, "Where the time goes"), stored as the
// `time.*` metrics of every evaluation: preparation (compile and uploads within it), and over all runs,
// warm-ups included, the poisoning, the runs' timed regions, the validation on the device, the downloads
// and the comparisons on the host.
struct TimeBreakdown {
  double prepare_ms = 0, compile_ms = 0, upload_ms = 0;
  double poison_ms = 0, run_ms = 0, check_ms = 0, download_ms = 0, compare_ms = 0;
  int runs = 0, downloads = 0;
  void record(std::vector<Metric>& out) const {
    set_metric(out, "time.prepare_ms", "ms", prepare_ms);
    set_metric(out, "time.compile_ms", "ms", compile_ms);
    set_metric(out, "time.upload_ms", "ms", upload_ms);
    set_metric(out, "time.poison_ms", "ms", poison_ms);
    set_metric(out, "time.runs_ms", "ms", run_ms);
    set_metric(out, "time.check_ms", "ms", check_ms);
    set_metric(out, "time.download_ms", "ms", download_ms);
    set_metric(out, "time.host_compare_ms", "ms", compare_ms);
    set_metric(out, "time.runs", "", runs);
    set_metric(out, "time.downloads", "", downloads);
  }
};

}  // namespace executor_detail

using executor_detail::Step;
using executor_detail::TimeBreakdown;
using executor_detail::transfer_key;

struct PreparedPlan::Impl {
  using Clock = std::chrono::steady_clock;

  const Family& family;
  const Problem& problem;
  const Workload& workload;
  const std::vector<std::uint8_t>& expected;
  Device& device;
  const MeasureSpec& measure;
  const Variant& variant;
  LaunchPlan plan = {};
  std::vector<Step> steps = {};
  bool region = true;  // false when a host step needs the device's results mid-run
  std::map<std::string, std::shared_ptr<DeviceBuffer>> owned = {};
  std::map<std::string, DeviceBuffer*> buffers = {};
  std::vector<std::pair<std::string, std::size_t>> poisoned = {};  // buffer, bytes before its canary
  // Buffers uploaded again before every run, after the poison: an output's initial contents, inputs
  // the kernels rewrite (Workload::output_initial, HostBuffer::rewritten).
  std::vector<std::pair<std::string, const std::vector<std::uint8_t>*>> restored = {};
  std::vector<std::uint8_t> output = {}, canary = {}, host_in = {}, host_out = {};
  std::function<void()> region_begin = {}, region_end = {};  // set_region_hooks
  std::vector<double> d2h_ms = {};                            // every run's download of the output
  std::unique_ptr<DeviceResidency> own_residency = {};        // without a shared one: this plan's
  DeviceResidency* residency = nullptr;
  // Validation on the device (docs/measurement.md): the reference's device copy, how to compare, and what
  // compare() says of a passing output; unset where outputs are compared on the host.
  std::shared_ptr<DeviceBuffer> reference = {};
  std::optional<DeviceCompare> device_compare = {};
  std::optional<std::string> exact_detail = {};
  TimeBreakdown time = {};
  bool downloaded = false;                                    // output holds a run's output

  // The host copy of the output with its canary, made on first use: with validation on the device no run
  // needs one, and a large output's zero-filled pages cost more than its runs (42 ms for 64 MB on the H100).
  std::vector<std::uint8_t>& host_output() {
    output.resize(workload.output_bytes + kCanaryBytes);
    return output;
  }

  // A buffer's own bytes: without the canary region after output and scratch buffers.
  std::size_t own_bytes(const std::string& name) {
    for (const auto& [poisoned_name, bytes] : poisoned)
      if (poisoned_name == name) return bytes;
    return buffers[name]->size();
  }
  // One step of a run. A host step downloads, computes and uploads; its time (transfers included) counts as
  // kernel time.
  LaunchResult launch(const Step& step) {
    if (!step.host) return device.launch(*step.program, step.plan, buffers);
    const LaunchStep& s = *step.host;
    LaunchResult l;
    const auto t = Clock::now();
    try {
      host_in.resize(own_bytes(s.host_in));
      host_out.resize(own_bytes(s.host_out));
      device.download(*buffers[s.host_in], host_in);
      s.host(host_in, host_out);
      device.upload(*buffers[s.host_out], host_out);
      l.ok = true;
    } catch (const std::exception& e) {
      l.error = fmt::format("host step {} -> {}: {}", s.host_in, s.host_out, e.what());
    }
    l.kernel_ms = ms_since(t);
    return l;
  }
  // Where a failed step of a plan of several steps is.
  std::string where(const Step& step) const {
    return steps.size() > 1 ? fmt::format("step {}: ", step.host ? "host" : step.plan.entry) : "";
  }
};

}  // namespace pimg
