// Evaluates one configuration of one variant on an opened device: plan, compile, upload, warm up,
// then N timed runs, each with the output poisoned before and validated against the reference after.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "pimg/backend.hpp"
#include "pimg/family.hpp"
#include "pimg/observer.hpp"
#include "pimg/result.hpp"
#include "pimg/space.hpp"
#include "pimg/variant.hpp"

namespace pimg {

struct EvalContext {
  const Family& family;
  const Problem& problem;
  const Workload& workload;
  const std::vector<std::uint8_t>& expected;  // the reference output
  Device& device;
  MeasureSpec measure;
  // Called before each run, warm-ups included (0-based): a worker reports it to its supervisor,
  // which times each run against measure.timeout_s.
  std::function<void(int run)> on_run = {};
  // Observers of this evaluation (not owned): called around it and around each timed run; what they
  // return lands in EvalResult::metrics and ::flags.
  std::vector<Observer*> observers = {};
};

// The byte written over the output before every run; a kernel that skips a pixel is caught.
inline constexpr std::uint8_t kPoison = 0xA5;

// The plan of one kernel step of `plan` (LaunchStep without `host`): the plan's compile-time settings
// (defines, options) with the step's entry, geometry and arguments, compiled and launched like a plan.
LaunchPlan step_plan(const LaunchPlan& plan, const LaunchStep& step);

EvalResult evaluate(const EvalContext& ctx, const Variant& variant, const Config& config);

// Device-to-device copy bandwidth in GB/s (bytes read + written), median of `repeats` runs.
// nullopt when the backend has no copy kernel or it fails.
std::optional<double> measure_copy_bandwidth(const Backend& backend, Device& device, std::size_t bytes,
                                             int repeats);

}  // namespace pimg
