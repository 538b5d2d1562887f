// A prepared plan's runs (executor.hpp; its preparation is in executor.cpp): the buffers poisoned (alternating
// values) and restored, the steps launched in one timed region, and every run validated, its output and the
// canaries after its buffers, on the device where it can, else on the host; runs back to back; the last output.
#include "pimg/executor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <span>

#include "measure/executor_impl.hpp"
#include "pimg/errors.hpp"
#include "pimg/evaluator.hpp"
#include "measure/stopwatch.hpp"

namespace pimg {
namespace {

using Clock = std::chrono::steady_clock;

// A wrong output's fingerprint (FNV-1a, cut to the 53 bits a double holds exactly): configurations that write the
// same wrong output agree with one another, not with the reference (the report groups them).
double output_hash(std::span<const std::uint8_t> out) {
  std::uint64_t h = 14695981039346656037ull;
  for (const std::uint8_t b : out) h = (h ^ b) * 1099511628211ull;
  return static_cast<double>(h & ((std::uint64_t{1} << 53) - 1));
}

}  // namespace

// Every poisoned buffer filled with this run's poison, the restored ones uploaded again, the launches prepared
// (outside the timed region); false once failed.
bool PreparedPlan::poison_buffers(std::int64_t seq, std::uint8_t poison) {
  Impl& m = *impl_;
  try {
    const auto t_poison = Clock::now();
    for (const auto& [name, bytes] : m.poisoned) m.device.fill(*m.buffers[name], poison);
    for (const auto& [name, bytes] : m.restored) m.device.upload(*m.buffers[name], *bytes);
    m.device.begin_run({seq, poison});
    m.time.poison_ms += ms_since(t_poison);
    for (const Step& step : m.steps)
      if (!step.host) m.device.prepare_launch(*step.program, step.plan, m.buffers);
  } catch (const std::exception& e) {
    fail(Status::launch_error, fmt::format("poisoning the output: {}", e.what()));
    return false;
  }
  return true;
}

// The plan's steps launched in one timed region, checked against the run timeout and counted; nullopt once
// failed.
std::optional<RunTimes> PreparedPlan::timed_launches(std::int64_t seq) {
  Impl& m = *impl_;
  RunTimes t;
  const auto t_run = Clock::now();
  m.device.begin_timing(m.measure.timing, m.region);
  if (m.region_begin) m.region_begin();
  std::string error;
  for (const Step& step : m.steps) {
    LaunchResult launched = m.launch(step);
    if (!launched.ok) {
      error = m.where(step) + launched.error;
      break;
    }
    t.kernel_ms += launched.kernel_ms;
    for (const auto& part : launched.parts) {  // summed by name over the run's launches
      auto it = std::find_if(t.parts.begin(), t.parts.end(), [&](const auto& x) { return x.first == part.first; });
      if (it == t.parts.end())
        t.parts.push_back(part);
      else
        it->second += part.second;
    }
  }
  std::optional<double> region_ms;
  if (m.region_end) m.region_end();
  try {
    region_ms = m.device.end_timing();
  } catch (const std::exception& e) {
    if (error.empty()) error = e.what();
  }
  t.wall_ms = ms_since(t_run);
  if (!error.empty()) {
    fail(Status::launch_error, error);
    return std::nullopt;
  }
  if (region_ms) t.kernel_ms = *region_ms;
  if (std::string used = m.device.last_timing(); !used.empty()) result_.method = std::move(used);
  if (t.wall_ms > m.measure.timeout_s * 1000.0) {
    fail(Status::timeout,
         fmt::format("run {} took {:.1f} ms, over the {:.1f} s timeout", seq + 1, t.wall_ms, m.measure.timeout_s));
    return std::nullopt;
  }

  ++m.time.runs;
  m.time.run_ms += t.wall_ms;
  m.time.record(result_.metrics);
  return t;
}

// Validation on the device: the canaries, then the output against the reference's device copy (`on_device`
// says what differs where it does, before the output is downloaded and compared on the host).
PreparedPlan::DeviceCheckOutcome PreparedPlan::check_on_device(std::int64_t seq, std::uint8_t poison,
                                                               std::string& on_device) {
  Impl& m = *impl_;
  const auto t_check = Clock::now();
  DeviceCheck c;
  try {
    std::vector<std::pair<DeviceBuffer*, std::size_t>> others;
    for (const auto& [name, bytes] : m.poisoned)
      if (name != "out") others.emplace_back(m.buffers[name], bytes);
    c = m.residency->checker()->check(*m.buffers["out"], *m.reference, m.workload.output_bytes, kCanaryBytes,
                                      *m.device_compare, poison, others);
    m.time.check_ms += ms_since(t_check);
    m.time.record(result_.metrics);
    for (std::size_t k = 0; k < m.poisoned.size() && k < c.canaries.size(); ++k) {
      if (c.canaries[k].bad == 0) continue;
      const auto& [name, bytes] = m.poisoned[k];
      std::uint8_t value = 0;
      m.device.download_range(*m.buffers[name], bytes + c.canaries[k].first, {&value, 1});
      fail(Status::wrong_result,
           fmt::format("run {}: a write past the end of '{}' ({} bytes): byte {} after it is {}, not the poison {}",
                       seq + 1, name, bytes, c.canaries[k].first, static_cast<int>(value),
                       static_cast<int>(poison)));
      return DeviceCheckOutcome::failed;
    }
  } catch (const std::exception& e) {
    fail(Status::launch_error, fmt::format("validation on the device: {}", e.what()));
    return DeviceCheckOutcome::failed;
  }
  if (c.mismatches == 0) {
    const std::string& rule = m.variant.validation_rule();
    const std::string detail = m.device_compare->detail ? m.device_compare->detail(c.worst) : *m.exact_detail;
    result_.validation = rule.empty() ? detail : detail + " (rule " + rule + ")";
    m.time.record(result_.metrics);
    return DeviceCheckOutcome::passed;
  }
  on_device = fmt::format(" (on the device: {} {} differ, the first at {})", c.mismatches,
                          m.device_compare->kind == DeviceCompare::Kind::bytes ? "bytes" : "elements", c.first);
  return DeviceCheckOutcome::differs;
}

// Validation on the host: the output downloaded, the canaries after it and every scratch buffer read, the
// output compared with the reference; false once failed.
bool PreparedPlan::check_on_host(std::int64_t seq, std::uint8_t poison, const std::string& on_device) {
  Impl& m = *impl_;
  try {
    m.d2h_ms.push_back(timed_download(m.device, *m.buffers["out"], m.host_output()));
    m.downloaded = true;
    m.time.download_ms += m.d2h_ms.back();
    ++m.time.downloads;
    record_downloads(result_.metrics, m.output.size(), m.d2h_ms);
    for (const auto& [name, bytes] : m.poisoned) {
      if (name == "out") {
        std::copy(m.output.begin() + static_cast<std::ptrdiff_t>(bytes), m.output.end(), m.canary.begin());
      } else {
        m.device.download_range(*m.buffers[name], bytes, m.canary);
      }
      const auto bad = std::find_if(m.canary.begin(), m.canary.end(), [&](std::uint8_t b) { return b != poison; });
      if (bad != m.canary.end()) {
        fail(Status::wrong_result,
             fmt::format("run {}: a write past the end of '{}' ({} bytes): byte {} after it is {}, not the poison {}",
                         seq + 1, name, bytes, bad - m.canary.begin(), static_cast<int>(*bad),
                         static_cast<int>(poison)));
        return false;
      }
    }
  } catch (const std::exception& e) {
    fail(Status::launch_error, fmt::format("download: {}", e.what()));
    return false;
  }
  if (result_.d2h_ms == 0) result_.d2h_ms = m.d2h_ms.front();
  const std::string& rule = m.variant.validation_rule();
  const std::span<const std::uint8_t> out(m.output.data(), m.workload.output_bytes);
  const auto t_compare = Clock::now();
  Validation v = rule.empty() ? m.family.compare(m.problem, m.expected, out)
                              : m.family.compare_rule(m.problem, m.workload, m.expected, out, rule);
  m.time.compare_ms += ms_since(t_compare);
  m.time.record(result_.metrics);
  if (!v.ok) {
    fail(Status::wrong_result, fmt::format("run {}: {}{}", seq + 1, v.detail, on_device));
    result_.metrics.push_back({kOutputHashMetric, "hash", -1, output_hash(out)});
    return false;
  }
  result_.validation = rule.empty() ? v.detail : v.detail + " (rule " + rule + ")";
  return true;
}

std::optional<RunTimes> PreparedPlan::run(std::int64_t seq) {
  if (failed_) return std::nullopt;
  Impl& m = *impl_;
  const std::uint8_t poison = kPoisonValues[seq % 2];
  try {
    if (!poison_buffers(seq, poison)) return std::nullopt;
    const std::optional<RunTimes> t = timed_launches(seq);
    if (!t) return std::nullopt;

    // Validate every run: the output was poisoned, so a skipped or stale pixel shows; the canaries after
    // the output and every scratch buffer must still hold the poison. On the device where it can (the
    // output is then downloaded only when something differs), else on the host.
    std::string on_device;
    if (m.device_compare) {
      const DeviceCheckOutcome checked = check_on_device(seq, poison, on_device);
      if (checked == DeviceCheckOutcome::failed) return std::nullopt;
      if (checked == DeviceCheckOutcome::passed) return t;
    }
    if (!check_on_host(seq, poison, on_device)) return std::nullopt;
    return t;
  } catch (const std::exception& e) {
    fail(Status::harness_error, fmt::format("run {}: {}", seq + 1, e.what()));
  } catch (...) {
    fail(Status::harness_error, fmt::format("run {}: an unknown exception", seq + 1));
  }
  return std::nullopt;
}


std::optional<BackToBack> PreparedPlan::back_to_back(double seconds) {
  if (failed_) return std::nullopt;
  Impl& m = *impl_;
  TimingMethod hot;  // no flush, launches as they come: the device kept busy, as a program running it in a loop
  hot.cold = false;
  hot.hide_launch = false;
  BackToBack b;
  std::int64_t batch = 1;
  const auto t0 = Clock::now();
  try {
    while (true) {
      for (const Step& step : m.steps)
        if (!step.host) m.device.prepare_launch(*step.program, step.plan, m.buffers);
      m.device.begin_timing(hot, m.region);
      std::string error;
      double launched_ms = 0;
      for (std::int64_t k = 0; k < batch && error.empty(); ++k)
        for (const Step& step : m.steps) {
          const LaunchResult l = m.launch(step);
          if (!l.ok) {
            error = m.where(step) + l.error;
            break;
          }
          launched_ms += l.kernel_ms;
        }
      std::optional<double> region_ms;
      try {
        region_ms = m.device.end_timing();
      } catch (const std::exception& e) {
        if (error.empty()) error = e.what();
      }
      if (!error.empty()) {
        fail(Status::launch_error, fmt::format("back-to-back runs: {}", error));
        return std::nullopt;
      }
      b.runs += batch;
      b.device_ms += region_ms ? *region_ms : launched_ms;
      b.seconds = ms_since(t0) / 1000.0;
      if (b.seconds >= seconds) break;
      // Batches of about kBatchMs of the device's time: one synchronisation each, so the device idles for a
      // few microseconds between batches only; at most kMaxBatch runs queued at once.
      const double per_run = b.device_ms / static_cast<double>(b.runs);
      batch = per_run > 0 ? std::clamp<std::int64_t>(static_cast<std::int64_t>(kBatchMs / per_run), 1, kMaxBatch)
                          : kMaxBatch;
    }
  } catch (const std::exception& e) {
    fail(Status::harness_error, fmt::format("back-to-back runs: {}", e.what()));
    return std::nullopt;
  }
  set_metric(result_.metrics, "time.window_ms", "ms", b.seconds * 1000.0);
  return b;
}

std::span<const std::uint8_t> PreparedPlan::output() const {
  if (!impl_) return {};
  // A run validated on the device left its output there: fetch it now (outside every timed region).
  if (!impl_->downloaded && !failed_ && impl_->time.runs > 0 && impl_->buffers.count("out")) {
    try {
      impl_->device.download(*impl_->buffers.at("out"), impl_->host_output());
      impl_->downloaded = true;
    } catch (const std::exception&) {
      return {};
    }
  }
  if (!impl_->downloaded) return {};
  return {impl_->output.data(), std::min(impl_->output.size(), impl_->workload.output_bytes)};
}

}  // namespace pimg
