// The one executor of a plan: plans, compiles and allocates a configuration on a device (inputs, scratch,
// output, and a canary region after every output and scratch buffer), then runs it as often as asked,
// each run poisoned (two values, alternating), timed by the device's timing method and validated (the
// output against the reference, every canary untouched). The evaluator, the confirmation stage, the
// bench/ harnesses and the test fixtures all run plans through it (docs/measurement.md).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "pimg/backend.hpp"
#include "pimg/config.hpp"
#include "pimg/family.hpp"
#include "pimg/observer.hpp"
#include "pimg/residency.hpp"
#include "pimg/result.hpp"
#include "pimg/space.hpp"
#include "pimg/variant.hpp"

namespace pimg {

// The two poison values, alternating between runs: a kernel that skips a pixel whose correct value
// happens to be one of them is caught on the next run.
inline constexpr std::uint8_t kPoisonValues[2] = {0xA5, 0x5A};
// Bytes after every output and scratch buffer that must still hold the run's poison after it.
inline constexpr std::size_t kCanaryBytes = 256;

// Transfers and device memory, stored in EvalResult::metrics by every prepared plan (docs/observers.md):
// the inputs' upload repeated this many times (the same bytes into the same buffers, allocation excluded),
// its median and every run's download of the output as medians and GB/s.
inline constexpr int kUploadRepeats = 3;

struct RunTimes {
  double kernel_ms = 0, wall_ms = 0;
  std::vector<std::pair<std::string, double>> parts;  // LaunchResult::parts summed over the run's launches, by name
  // The parts as metrics of timed run `seq` (ms).
  void add_parts(std::vector<Metric>& metrics, int seq) const {
    for (const auto& [name, ms] : parts) metrics.push_back({name, "ms", seq, ms});
  }
};

// Runs one after another without a pause (PreparedPlan::back_to_back): how many, the wall-clock window from the
// first launch to the device's end of the last, and the device's own time in it (the busy share is
// device_ms / (seconds * 1000)).
struct BackToBack {
  std::int64_t runs = 0;
  double seconds = 0;
  double device_ms = 0;
};

// The build of this pimg-tune's host-side code: a hash of the sources that measure (tuner/, variants/,
// results/, kernels/, cmake/, the top CMakeLists.txt) and of the compiler and its flags, made at build time by
// cmake/host_code_hash.cmake; not of the commit, so a commit that changes only tests or documents keeps it.
// Part of every configuration's identity, stored with every run.
const std::string& build_id();

// The hash a variant's rows are keyed by: its expanded kernel text's, or its built-in name's.
std::string variant_source_hash(const Variant& v);

// Everything that makes a configuration's run, hashed: the expanded plan (entries, defines, options,
// geometry, arguments, steps, scratch), the kernel text, the build and the family's reference version.
std::string plan_identity(const LaunchPlan& plan, const std::string& source_hash, const std::string& reference_version);

class PreparedPlan {
 public:
  // Plans, compiles and allocates; never throws for a configuration's fault: failure() then holds the
  // result to store (launch_error, compile_error, harness_error, ...). With `resident`, the problem's inputs
  // and reference come from the device copies it keeps (uploaded once per problem and device; it must
  // outlive the plan); without, the plan uploads its own. Either way, where the device has check kernels,
  // every run is validated there (docs/measurement.md).
  PreparedPlan(const Family& family, const Problem& problem, const Workload& workload,
               const std::vector<std::uint8_t>& expected, Device& device, const MeasureSpec& measure,
               const Variant& variant, const Config& config, DeviceResidency* resident = nullptr);
  ~PreparedPlan();
  PreparedPlan(const PreparedPlan&) = delete;
  PreparedPlan& operator=(const PreparedPlan&) = delete;

  // The result so far: compile and upload times, method, identity; its status is the failure's once
  // one happened.
  const EvalResult& result() const { return result_; }
  bool failed() const { return failed_; }

  // One run (`seq` counts every run of this plan, warm-ups included; the poison alternates on it):
  // nullopt when it failed, with result() saying why.
  std::optional<RunTimes> run(std::int64_t seq);

  // Runs back to back for at least `seconds` (measure.energy_s, for energy counters that resolve long windows
  // only): hot (no cache flush, no poison, no validation between runs), launched in batches of about 50 ms of
  // the device's time with one synchronisation each. The caller validates a run after (Observer::window_end);
  // nullopt when a launch failed, with result() saying why.
  std::optional<BackToBack> back_to_back(double seconds);
  static constexpr double kBatchMs = 50;
  static constexpr std::int64_t kMaxBatch = 1000;  // runs in one batch (each of the plan's steps a launch)

  // The output of the latest run that got as far as downloading it (validated or not: a wrong_result run's
  // output too); a run validated on the device is downloaded on this first call; empty before any run.
  // For pictures (pimg/picture.hpp).
  std::span<const std::uint8_t> output() const;

  // Timed runs that were validated (kernel, wall and communication times), taken by run() callers.
  EvalResult& mutable_result() { return result_; }

  // Called just inside the timed region of every run from now on (after begin_timing, before end_timing);
  // empty functions remove them. Observers' counted run (Observer::counts_region).
  void set_region_hooks(std::function<void()> begin, std::function<void()> end);

 private:
  struct Impl;
  // What validation on the device found of a run (check_on_device).
  enum class DeviceCheckOutcome { failed, passed, differs };
  void fail(Status s, std::string log);
  // The steps of preparation (executor.cpp): the plan and its programs (false once failed), the device buffers
  // and their uploads (throws where they cannot be set up), validation on the device where it can be.
  bool compile_programs(const Config& config);
  void set_up_buffers();
  void prepare_device_check();
  // The steps of one run (executor_run.cpp): the poison (false once failed), the timed launches, the validation
  // on the device, and on the host where that is off or found a difference (false once failed).
  bool poison_buffers(std::int64_t seq, std::uint8_t poison);
  std::optional<RunTimes> timed_launches(std::int64_t seq);
  DeviceCheckOutcome check_on_device(std::int64_t seq, std::uint8_t poison, std::string& on_device);
  bool check_on_host(std::int64_t seq, std::uint8_t poison, const std::string& on_device);
  std::unique_ptr<Impl> impl_;
  EvalResult result_;
  bool failed_ = false;
};

// One configuration of the confirmation stage, with the reference its variant is validated against.
struct ConfirmCandidate {
  const Variant* variant = nullptr;
  Config config;
  const std::vector<std::uint8_t>* expected = nullptr;
};

// The confirmation stage on one problem (docs/measurement.md): every candidate prepared
// measure.confirm.preparations times over, all at once, warmed up, then measured in rounds, each round
// running every preparation once in an order shuffled from `seed` (a candidate's samples pool its preparations),
// until each median's interval is within +-measure.noise (after measure.confirm.rounds rounds) or
// measure.confirm.max_rounds rounds or max_time_s. One result per candidate, in the given order, stage
// "confirm"; a candidate that fails keeps its failure and leaves the rounds. The observers of the machine among
// `observers` (Observer::observes_the_machine: the CPU's load) watch the whole stage; what they say (a "loaded"
// flag among it) goes to every candidate's row.
std::vector<EvalResult> confirm_candidates(const Family& family, const Problem& problem, const Workload& workload,
                                           Device& device, const MeasureSpec& measure,
                                           const std::vector<ConfirmCandidate>& candidates, std::uint64_t seed,
                                           const std::vector<Observer*>& observers = {});

// One candidate's confirmation rows of several sessions (the same candidate, one row per session, in
// session order) as one row: a failed session's row where one failed, else every session's samples pooled,
// the first session's metrics, each session's median (`confirm.session_median_ms`, seq = session) and how
// far apart they are (`confirm.session_spread`, largest over smallest minus one).
EvalResult pool_sessions(const std::vector<EvalResult>& sessions);
// The same for any part of a candidate's measurement (`part`: "session", "preparation"): metrics
// confirm.<part>_median_ms, confirm.<part>s, confirm.<part>_spread.
EvalResult pool_parts(const std::vector<EvalResult>& parts, const std::string& part);

// The 95% confidence interval of the median of `samples` (distribution-free, from the order statistics
// whose ranks a binomial(n, 1/2) bounds; the whole range below 6 samples).
std::pair<double, double> median_interval(std::vector<double> samples);

// Fills kernel stats and the median's interval from the timed samples.
void finish_stats(EvalResult& r);

}  // namespace pimg
