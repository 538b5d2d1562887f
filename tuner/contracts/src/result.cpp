// Statuses and summary statistics of timed runs.
#include "pimg/result.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace pimg {

const char* to_string(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::compile_error: return "compile_error";
    case Status::launch_error: return "launch_error";
    case Status::timeout: return "timeout";
    case Status::wrong_result: return "wrong_result";
    case Status::crash: return "crash";
    case Status::harness_error: return "harness_error";
    case Status::env_error: return "env_error";
  }
  return "?";
}

Status status_from_string(const std::string& s) {
  for (Status st : {Status::ok, Status::compile_error, Status::launch_error, Status::timeout, Status::wrong_result,
                    Status::crash, Status::harness_error, Status::env_error})
    if (s == to_string(st)) return st;
  throw std::invalid_argument("unknown status '" + s + "'");
}

std::string join_flags(const std::vector<std::string>& flags) {
  std::string out;
  for (const std::string& f : flags) out += (out.empty() ? "" : ",") + f;
  return out;
}

std::vector<std::string> split_flags(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t a = 0, b; a < text.size(); a = b + 1) {
    b = text.find(',', a);
    if (b == std::string::npos) b = text.size();
    if (b > a) out.push_back(text.substr(a, b - a));
  }
  return out;
}

std::optional<double> writer_objective_ms(const EvalResult& r) {
  for (const Metric& m : r.metrics)
    if (m.seq == -1 && m.name == kWriterObjectiveMetric) return m.value;
  return std::nullopt;
}

Stats Stats::of(std::vector<double> v) {
  Stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.min = v.front();
  std::size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(n);
  double sq = 0;
  for (double x : v) sq += (x - s.mean) * (x - s.mean);
  s.stddev = n > 1 ? std::sqrt(sq / static_cast<double>(n - 1)) : 0.0;
  return s;
}

}  // namespace pimg
