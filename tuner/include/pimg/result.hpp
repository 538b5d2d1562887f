// The outcome of evaluating one configuration. Failure is a result: every status is stored.
#pragma once
#include <string>
#include <vector>

namespace pimg {

// crash: the worker process running the evaluation died (signal, abort, out of memory); its log
// holds how it ended and the tail of what it printed.
enum class Status { ok, compile_error, launch_error, timeout, wrong_result, crash };

const char* to_string(Status s);
Status status_from_string(const std::string& s);  // throws std::invalid_argument

struct Stats {
  double min = 0, median = 0, mean = 0, stddev = 0;
  static Stats of(std::vector<double> samples);  // empty -> zeros
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
  std::vector<double> comm_ms;    // per timed run, the part of kernel_ms spent communicating (MPI; else 0)
  Stats kernel;                   // of kernel_ms
  double eval_ms = 0;             // whole evaluation on the host clock
  std::string validation;         // "exact", or the mismatch
};

}  // namespace pimg
