// The metrics of a prepared plan: device memory, upload and download times and bandwidths
// (allocation excluded; medians over the upload passes and over the runs' downloads).
#include "measure/plan_metrics.hpp"

#include <algorithm>

namespace pimg {
namespace {

double gbs(std::size_t bytes, double ms) { return ms > 0 ? static_cast<double>(bytes) / (ms * 1e-3) / 1e9 : 0; }

}  // namespace

void set_metric(std::vector<Metric>& out, const std::string& name, const std::string& unit, double value) {
  auto it = std::find_if(out.begin(), out.end(), [&](const Metric& m) { return m.name == name && m.seq == -1; });
  if (it == out.end())
    out.push_back({name, unit, -1, value});
  else
    it->value = value;
}

void record_memory(std::vector<Metric>& out, const PlanMemory& m) {
  set_metric(out, "memory.device_input_bytes", "B", static_cast<double>(m.input_bytes));
  set_metric(out, "memory.device_output_bytes", "B", static_cast<double>(m.output_bytes));
  set_metric(out, "memory.device_scratch_bytes", "B", static_cast<double>(m.scratch_bytes));
  set_metric(out, "memory.device_bytes", "B", static_cast<double>(m.input_bytes + m.output_bytes + m.scratch_bytes));
  set_metric(out, "memory.alloc_ms", "ms", std::max(0.0, m.alloc_ms));
}

void record_uploads(std::vector<Metric>& out, std::size_t bytes, const std::vector<double>& pass_ms) {
  if (pass_ms.empty() || bytes == 0) return;
  const double median = Stats::of(pass_ms).median;
  set_metric(out, "transfer.h2d_bytes", "B", static_cast<double>(bytes));
  set_metric(out, "transfer.h2d_first_ms", "ms", pass_ms.front());
  set_metric(out, "transfer.h2d_ms", "ms", median);
  if (median > 0) set_metric(out, "transfer.h2d_gbs", "GB/s", gbs(bytes, median));
}

void record_downloads(std::vector<Metric>& out, std::size_t bytes, const std::vector<double>& run_ms) {
  if (run_ms.empty() || bytes == 0) return;
  const double median = Stats::of(run_ms).median;
  set_metric(out, "transfer.d2h_bytes", "B", static_cast<double>(bytes));
  set_metric(out, "transfer.d2h_ms", "ms", median);
  if (median > 0) set_metric(out, "transfer.d2h_gbs", "GB/s", gbs(bytes, median));
}

}  // namespace pimg
