// The outcome of evaluating one configuration. Failure is a result: every status is stored.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace pimg {

// crash: the worker process running the evaluation died (signal, abort, out of memory); its log
// holds how it ended and the tail of what it printed. harness_error: the tool itself failed on this
// configuration (an unexpected exception while planning, compiling or running it); tuning goes on.
// env_error: the cause lies outside the configuration (no space for the compiler, the worker killed
// by a signal the tuner did not send, the device lost); resume retries these by default.
enum class Status { ok, compile_error, launch_error, timeout, wrong_result, crash, harness_error, env_error };

const char* to_string(Status s);

// EvalResult::flags as one comma-separated text (the store's column, the worker wire) and back.
std::string join_flags(const std::vector<std::string>& flags);
std::vector<std::string> split_flags(const std::string& text);
Status status_from_string(const std::string& s);  // throws std::invalid_argument

struct Stats {
  double min = 0, median = 0, mean = 0, stddev = 0;
  static Stats of(std::vector<double> samples);  // empty -> zeros
};

// One further measurement of an evaluation (an observer's: a counter, energy, a clock, a footprint):
// `seq` is the timed run it belongs to (0-based), or -1 for a value of the whole evaluation.
// A wrong_result row's fingerprint of the output it wrote (53 bits of FNV-1a), so rows that wrote the same wrong
// output can be told apart from scattered errors.
inline constexpr const char* kOutputHashMetric = "validation.output_hash";

struct Metric {
  std::string name;  // "nvml.sm_clock_mhz", "perf.cycles", ...
  std::string unit;  // "MHz", "count", "J", ...
  int seq = -1;
  double value = 0;
};

struct EvalResult {
  Status status = Status::ok;
  std::string log;         // build log, launch error or validation detail
  double compile_ms = 0;
  bool compile_cached = false;
  double h2d_ms = 0;       // host -> device for all inputs
  double d2h_ms = 0;       // device -> host for the output (first timed run)
  std::vector<double> kernel_ms;  // one per timed run (profiling events / host clock)
  std::vector<double> wall_ms;    // host clock around each launch including synchronisation
  Stats kernel;                   // of kernel_ms
  double eval_ms = 0;             // whole evaluation on the host clock
  std::string validation;         // "exact", or the mismatch
  std::string method;             // the timing method that produced kernel_ms (see docs/measurement.md)
  double ci_low_ms = 0, ci_high_ms = 0;  // 95% confidence interval of the median of kernel_ms
  std::string identity;           // hash of everything that made the run (plan, build, reference version)
  std::vector<std::string> flags; // what the environment observed: "throttled", "loaded", ...
  std::string stage = "search";   // "search", or "confirm" for the confirmation stage's rows
  std::vector<Metric> metrics;    // observers' and backends' measurements (per timed run: seq is the run)
};

// The objective an imported result's writer ranked it by, stored as this whole-evaluation metric (ms):
// a T4 file's `time` measurement, a Kernel Tuner cache's `time` (Kernel Tuner's: the mean of the runs).
inline constexpr const char* kWriterObjectiveMetric = "import.objective_ms";
// That objective of a result, nullopt where its writer recorded none (pimg-tune's own results: their
// writer ranks by the median of the runs).
std::optional<double> writer_objective_ms(const EvalResult& r);

}  // namespace pimg
