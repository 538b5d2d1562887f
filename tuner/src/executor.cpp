// The one executor of a plan (see executor.hpp): preparation (plan, compile, buffers with canaries,
// uploads) and runs (alternating poison, timed region, validation of output and canaries).
#include "pimg/executor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <numeric>
#include <random>
#include <sstream>

#include "pimg/errors.hpp"
#include "pimg/evaluator.hpp"
#include "pimg/registry.hpp"
#include "plan_metrics.hpp"
#include "stopwatch.hpp"

namespace pimg {
namespace {

using Clock = std::chrono::steady_clock;

const KernelSource& source_for(const Variant& v, KernelSource& builtin) {
  if (const auto call = v.native()) {
    builtin = native_source(*call);
    return builtin;
  }
  const KernelSource* s = kernel_source(v.source());
  if (!s) throw std::runtime_error(fmt::format("variant {} names a missing kernel source {}", v.name(), v.source()));
  return *s;
}

void describe_args(std::ostringstream& o, const std::vector<KernelArg>& args) {
  for (const KernelArg& a : args)
    o << static_cast<int>(a.kind) << ':' << a.buffer << ':' << a.i << ':' << fmt::format("{}", a.f) << ':'
      << a.image_width << 'x' << a.image_height << ';';
}

void describe_geometry(std::ostringstream& o, int dims, const std::array<std::size_t, 3>& g,
                       const std::array<std::size_t, 3>& l) {
  o << dims << '|' << g[0] << ',' << g[1] << ',' << g[2] << '|' << l[0] << ',' << l[1] << ',' << l[2] << '|';
}

}  // namespace

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
std::string transfer_key(const Problem& problem, const LaunchPlan& plan) {
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

const char* host_code_hash();  // generated at build time (cmake/host_code_hash.cmake)

const std::string& build_id() {
  static const std::string id = host_code_hash();
  return id;
}

std::string variant_source_hash(const Variant& v) {
  KernelSource builtin;
  return source_for(v, builtin).hash;
}

std::string plan_identity(const LaunchPlan& plan, const std::string& source_hash, const std::string& reference_version) {
  std::ostringstream o;
  o << "source " << source_hash << "\nbuild " << build_id() << "\nreference " << reference_version << "\nentry "
    << plan.entry << "\n";
  for (const auto& [k, v] : plan.defines) o << "-D" << k << '=' << v << '\n';
  for (const auto& opt : plan.options) o << "opt " << opt << '\n';
  for (const auto& [k, v] : plan.globals) o << "global " << k << '=' << v << '\n';
  describe_geometry(o, plan.dims, plan.global, plan.local);
  describe_args(o, plan.args);
  for (const LaunchStep& s : plan.steps) {
    o << "\nstep " << s.entry << (s.host ? " host " + s.host_in + "->" + s.host_out : "") << '|';
    describe_geometry(o, s.dims, s.global, s.local);
    describe_args(o, s.args);
  }
  for (const ScratchBuffer& s : plan.scratch) o << "\nscratch " << s.name << ' ' << s.bytes;
  return hash128(o.str());
}

std::pair<double, double> median_interval(std::vector<double> v) {
  if (v.empty()) return {0, 0};
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  // The largest rank j with P(Binomial(n, 1/2) < j) <= 2.5%: X(j) and X(n+1-j) bound the median with at
  // least 95% confidence. Exact sums up to 1000 runs, the normal approximation beyond.
  std::size_t j = 0;
  if (n <= 1000) {
    const double log_total = std::lgamma(static_cast<double>(n) + 1) - static_cast<double>(n) * std::log(2.0);
    double below = 0;
    while (j < n) {
      const double term = std::exp(log_total - std::lgamma(static_cast<double>(j) + 1) -
                                   std::lgamma(static_cast<double>(n - j) + 1));
      if (below + term > 0.025) break;
      below += term;
      ++j;
    }
  } else {
    j = static_cast<std::size_t>(std::floor(n / 2.0 - 1.959964 * std::sqrt(static_cast<double>(n)) / 2.0));
  }
  if (j == 0) return {v.front(), v.back()};  // too few runs for 95%: the whole range
  return {v[j - 1], v[n - j]};
}

void finish_stats(EvalResult& r) {
  r.kernel = Stats::of(r.kernel_ms);
  std::tie(r.ci_low_ms, r.ci_high_ms) = median_interval(r.kernel_ms);
}

struct PreparedPlan::Impl {
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

// Sets up validation on the device where the device has check kernels and the family a device form of its
// comparison: the reference's device copy, and what compare() says of a passing output. Otherwise every run
// is downloaded and compared on the host, as on CPU backends.
void PreparedPlan::prepare_device_check() {
  Impl& m = *impl_;
  const std::string& rule = m.variant.validation_rule();
  std::optional<DeviceCompare> how = device_compare(m.family, m.problem, rule);
  const std::size_t lane = !how || how->kind == DeviceCompare::Kind::bytes ? 1
                           : how->kind == DeviceCompare::Kind::f32         ? 4
                                                                           : 8;
  if (!how || m.expected.size() != m.workload.output_bytes || m.workload.output_bytes == 0 ||
      m.workload.output_bytes / lane > DeviceChecker::kMaxElements || !m.residency->checker())
    return;
  const std::string key = m.problem.canonical() + "\n" + rule;
  if (!how->detail) {
    m.exact_detail = m.residency->exact_detail(key, [&] {
      return rule.empty() ? m.family.compare(m.problem, m.expected, m.expected)
                          : m.family.compare_rule(m.problem, m.workload, m.expected, m.expected, rule);
    });
    if (!m.exact_detail) return;
  }
  double uploaded_ms = 0;
  m.reference = m.residency->reference(key, m.expected, uploaded_ms);
  m.device_compare = std::move(how);
  // The output's download bandwidth, measured once per problem and device now that runs download nothing.
  std::vector<Metric>& shared = m.residency->transfer_metrics["download " + transfer_key(m.problem, m.plan)];
  if (shared.empty()) {
    const double ms = timed_download(m.device, *m.buffers["out"], m.host_output());
    record_downloads(shared, m.output.size(), {ms});
  }
  for (const Metric& x : shared) {
    result_.metrics.push_back(x);
    if (x.name == "transfer.d2h_ms") result_.d2h_ms = x.value;
  }
}

PreparedPlan::PreparedPlan(const Family& family, const Problem& problem, const Workload& workload,
                           const std::vector<std::uint8_t>& expected, Device& device, const MeasureSpec& measure,
                           const Variant& variant, const Config& config, DeviceResidency* resident) {
  const auto t_prepare = Clock::now();
  try {
    impl_ = std::make_unique<Impl>(Impl{family, problem, workload, expected, device, measure, variant});
    Impl& m = *impl_;
    if (!resident) m.own_residency = std::make_unique<DeviceResidency>(device);
    m.residency = resident ? resident : m.own_residency.get();
    // The check kernels are built before the plan's own program: a backend may take host-side settings from
    // the last compile (CUDA's pinned host memory).
    m.residency->checker();
    try {
      m.plan = variant.plan(problem, workload, config, device.info());
    } catch (const PlanError& e) {
      { fail(Status::launch_error, e.what()); return; }
    }
    if (!m.plan.globals.empty() && !device.info().caps.program_globals) {
      fail(Status::harness_error, fmt::format("the {} plan sets variables of its program (LaunchPlan::globals), which "
                                              "{} cannot", variant.name(), device.info().id()));
      return;
    }
    KernelSource builtin;
    const KernelSource& source = source_for(variant, builtin);
    result_.identity = plan_identity(m.plan, source.hash, family.reference_version(variant.validation_rule()));
    CompileResult compiled = device.compile(source, m.plan);
    result_.compile_ms = compiled.ms;
    result_.compile_cached = compiled.cached;
    result_.log = compiled.log;
    if (!compiled.program) { fail(Status::compile_error, compiled.log); return; }
    m.steps.push_back({m.plan, compiled.program, nullptr});
    for (const LaunchStep& s : m.plan.steps) {
      if (s.host) {
        m.steps.push_back({{}, nullptr, &s});
        m.region = false;
        continue;
      }
      LaunchPlan sp = step_plan(m.plan, s);
      CompileResult c = device.compile(source, sp);
      result_.compile_ms += c.ms;
      result_.compile_cached = result_.compile_cached && c.cached;
      if (!c.program) { fail(Status::compile_error, fmt::format("step {}: {}", s.entry, c.log)); return; }
      m.steps.push_back({std::move(sp), std::move(c.program), nullptr});
    }
    result_.method = device.timing_method(measure.timing, m.region);

    // Device buffers: every workload input an argument names, the scratch buffers, and the output;
    // output and scratch carry a canary region after their bytes.
    try {
      const auto t_alloc = Clock::now();
      PlanMemory memory;
      double upload_ms = 0;
      std::vector<std::pair<DeviceBuffer*, const HostBuffer*>> uploads;
      bool shared_inputs = false;  // some input came from the residency, uploaded by an earlier plan
      auto upload = [&](DeviceBuffer& dev, const HostBuffer& host) {
        upload_ms += timed_upload(device, dev, host.bytes);
        uploads.emplace_back(&dev, &host);
        memory.input_bytes += dev.size();
      };
      // A plain buffer input: the residency's device copy (uploaded once per problem and device).
      auto resident_input = [&](const HostBuffer& host) {
        double ms = 0;
        auto dev = m.residency->input(problem.canonical() + "\n" + host.name, host.bytes, ms);
        upload_ms += ms;
        uploads.emplace_back(dev.get(), &host);
        if (ms == 0) shared_inputs = true;
        memory.input_bytes += dev->size();
        return dev;
      };
      m.owned["out"] = device.alloc(workload.output_bytes + kCanaryBytes);
      m.buffers["out"] = m.owned["out"].get();
      m.poisoned.emplace_back("out", workload.output_bytes);
      if (!workload.output_initial.empty()) {
        if (workload.output_initial.size() != workload.output_bytes)
          throw std::runtime_error(fmt::format("the output's initial contents have {} bytes, the output {}",
                                               workload.output_initial.size(), workload.output_bytes));
        m.restored.emplace_back("out", &workload.output_initial);
      }
      for (const ScratchBuffer& s : m.plan.scratch) {
        const bool clash = std::any_of(workload.inputs.begin(), workload.inputs.end(),
                                       [&](const HostBuffer& b) { return b.name == s.name; });
        if (m.owned.count(s.name) || clash || s.bytes == 0)
          throw std::runtime_error(fmt::format("scratch buffer '{}' is empty or not uniquely named", s.name));
        m.owned[s.name] = device.alloc(s.bytes + kCanaryBytes);
        memory.scratch_bytes += s.bytes + kCanaryBytes;
        m.buffers[s.name] = m.owned[s.name].get();
        m.poisoned.emplace_back(s.name, s.bytes);
      }
      const auto t_up = Clock::now();
      for (const Step& step : m.steps) {
        if (step.host) continue;
        for (const auto& a : step.plan.args) {
          if (a.kind != ArgKind::Buffer && a.kind != ArgKind::Image2D) continue;
          if (m.owned.count(a.buffer)) continue;
          const HostBuffer& host = workload.input(a.buffer);
          std::shared_ptr<DeviceBuffer> dev;
          if (a.kind == ArgKind::Image2D) {
            dev = device.alloc_image(a.image_width, a.image_height);
            upload(*dev, host);
          } else if (m.residency->active() && !host.rewritten) {
            dev = resident_input(host);
          } else {
            dev = device.alloc(host.bytes.size());
            upload(*dev, host);
            if (host.rewritten) m.restored.emplace_back(a.buffer, &host.bytes);
          }
          m.buffers[a.buffer] = dev.get();
          m.owned[a.buffer] = std::move(dev);
        }
      }
      for (const auto& [symbol, name] : m.plan.symbols) {  // inputs only a device symbol reads
        if (m.owned.count(name)) continue;
        const HostBuffer& host = workload.input(name);
        std::shared_ptr<DeviceBuffer> dev;
        if (m.residency->active()) {
          dev = resident_input(host);
        } else {
          dev = device.alloc(host.bytes.size());
          upload(*dev, host);
        }
        m.buffers[name] = dev.get();
        m.owned[name] = std::move(dev);
      }
      result_.h2d_ms = ms_since(t_up);
      memory.output_bytes = workload.output_bytes + kCanaryBytes;
      memory.alloc_ms = ms_since(t_alloc) - upload_ms;
      m.time.upload_ms = upload_ms;
      // The upload's bandwidth, measured kUploadRepeats times into the same buffers once per problem and
      // host-side settings (the plan's options: pinned or pageable host memory) and kept by the residency for
      // the plans that share them; the first pass is the upload into fresh buffers where this plan made one.
      std::vector<Metric> own_upload;  // a plan whose inputs do not stay on the device measures its own
      std::vector<Metric>& shared_upload =
          m.residency->active() ? m.residency->transfer_metrics["upload " + transfer_key(problem, m.plan)] : own_upload;
      if (shared_upload.empty() && !uploads.empty()) {
        std::vector<double> passes;
        if (!shared_inputs) passes.push_back(upload_ms);
        while (passes.size() < static_cast<std::size_t>(kUploadRepeats)) {
          double ms = 0;
          for (const auto& [dev, host] : uploads) ms += timed_upload(device, *dev, host->bytes);
          passes.push_back(ms);
        }
        record_uploads(shared_upload, memory.input_bytes, passes);
      }
      for (const Metric& x : shared_upload) {
        result_.metrics.push_back(x);
        if (x.name == "transfer.h2d_first_ms" && shared_inputs) result_.h2d_ms = x.value;  // what a program's takes
      }
      set_metric(result_.metrics, "transfer.h2d_shared", "", shared_inputs ? 1 : 0);
      record_memory(result_.metrics, memory);
      for (const Step& step : m.steps)
        if (step.host && (!m.buffers.count(step.host->host_in) || !m.buffers.count(step.host->host_out)))
          throw std::runtime_error(fmt::format("host step reads '{}' and writes '{}': no such buffer",
                                               step.host->host_in, step.host->host_out));
    } catch (const std::exception& e) {
      { fail(Status::launch_error, fmt::format("buffer setup: {}", e.what())); return; }
    }
    m.canary.resize(kCanaryBytes);
    prepare_device_check();
    m.time.prepare_ms = ms_since(t_prepare);
    m.time.compile_ms = result_.compile_ms;
    m.time.record(result_.metrics);
  } catch (const std::exception& e) {
    fail(Status::harness_error, fmt::format("preparing the configuration: {}", e.what()));
  } catch (...) {
    fail(Status::harness_error, "preparing the configuration: an unknown exception");
  }
}

PreparedPlan::~PreparedPlan() = default;

void PreparedPlan::set_region_hooks(std::function<void()> begin, std::function<void()> end) {
  if (!impl_) return;
  impl_->region_begin = std::move(begin);
  impl_->region_end = std::move(end);
}

void PreparedPlan::fail(Status s, std::string log) {
  failed_ = true;
  result_.status = s;
  result_.log = std::move(log);
}

std::optional<RunTimes> PreparedPlan::run(std::int64_t seq) {
  if (failed_) return std::nullopt;
  Impl& m = *impl_;
  const std::uint8_t poison = kPoisonValues[seq % 2];
  try {
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
      return std::nullopt;
    }

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

    // Validate every run: the output was poisoned, so a skipped or stale pixel shows; the canaries after
    // the output and every scratch buffer must still hold the poison. On the device where it can (the
    // output is then downloaded only when something differs), else on the host.
    std::string on_device;
    if (m.device_compare) {
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
          return std::nullopt;
        }
      } catch (const std::exception& e) {
        fail(Status::launch_error, fmt::format("validation on the device: {}", e.what()));
        return std::nullopt;
      }
      if (c.mismatches == 0) {
        const std::string& rule = m.variant.validation_rule();
        const std::string detail = m.device_compare->detail ? m.device_compare->detail(c.worst) : *m.exact_detail;
        result_.validation = rule.empty() ? detail : detail + " (rule " + rule + ")";
        m.time.record(result_.metrics);
        return t;
      }
      on_device = fmt::format(" (on the device: {} {} differ, the first at {})", c.mismatches,
                              m.device_compare->kind == DeviceCompare::Kind::bytes ? "bytes" : "elements", c.first);
    }
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
          return std::nullopt;
        }
      }
    } catch (const std::exception& e) {
      fail(Status::launch_error, fmt::format("download: {}", e.what()));
      return std::nullopt;
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
      return std::nullopt;
    }
    result_.validation = rule.empty() ? v.detail : v.detail + " (rule " + rule + ")";
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

std::vector<EvalResult> confirm_candidates(const Family& family, const Problem& problem, const Workload& workload,
                                           Device& device, const MeasureSpec& measure,
                                           const std::vector<ConfirmCandidate>& candidates, std::uint64_t seed,
                                           const std::vector<Observer*>& observers) {
  const auto t0 = Clock::now();
  std::vector<Observer*> machine;
  for (Observer* o : observers)
    if (o->observes_the_machine()) machine.push_back(o);
  const ConfirmSpec& spec = measure.confirm;
  // Every candidate prepared `preps` times over, all alive at once (so each preparation has buffers of its
  // own); plans[c * preps + k] is candidate c's k-th. A candidate whose preparation fails keeps that failure.
  const std::size_t preps = static_cast<std::size_t>(std::max(1, spec.preparations));
  std::vector<std::unique_ptr<PreparedPlan>> plans;
  for (const ConfirmCandidate& c : candidates)
    for (std::size_t k = 0; k < preps; ++k)
      plans.push_back(std::make_unique<PreparedPlan>(family, problem, workload, *c.expected, device, measure,
                                                     *c.variant, c.config));
  auto candidate_failed = [&](std::size_t c) {
    for (std::size_t k = 0; k < preps; ++k)
      if (plans[c * preps + k]->failed()) return true;
    return false;
  };
  device.set_run_timeout(measure.timeout_s);
  for (Observer* o : machine) o->begin();
  std::vector<std::int64_t> seq(plans.size(), 0);
  const int warmups = std::clamp(measure.warmups, 1, kMaxWarmups);
  for (std::size_t i = 0; i < plans.size(); ++i)
    for (int w = 0; w < warmups && !plans[i]->failed(); ++w) plans[i]->run(seq[i]++);
  std::vector<std::size_t> order(plans.size());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(seed);
  for (int round = 0; round < std::max(spec.max_rounds, spec.rounds); ++round) {
    if (round >= spec.rounds) {
      bool settled = true;
      for (std::size_t c = 0; c < candidates.size(); ++c) {
        if (candidate_failed(c)) continue;
        std::vector<double> k;  // every preparation's samples
        for (std::size_t j = 0; j < preps; ++j) {
          const auto& own = plans[c * preps + j]->result().kernel_ms;
          k.insert(k.end(), own.begin(), own.end());
        }
        const auto [lo, hi] = median_interval(k);
        const double median = Stats::of(k).median;
        settled = settled && median > 0 && (hi - lo) <= 2.0 * measure.noise * median;
      }
      if (settled || ms_since(t0) >= spec.max_time_s * 1000.0) break;
    }
    std::shuffle(order.begin(), order.end(), rng);
    for (std::size_t i : order) {
      PreparedPlan& p = *plans[i];
      if (p.failed()) continue;
      const std::optional<RunTimes> t = p.run(seq[i]++);
      if (!t) continue;
      EvalResult& r = p.mutable_result();
      t->add_parts(r.metrics, static_cast<int>(r.kernel_ms.size()));
      r.kernel_ms.push_back(t->kernel_ms);
      r.wall_ms.push_back(t->wall_ms);
    }
  }
  std::vector<Metric> seen;  // what the machine's observers saw over the stage, for every candidate
  std::vector<std::string> flags;
  for (Observer* o : machine) o->end(seen, flags);
  std::vector<EvalResult> out;
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    // A failed preparation's result, else every preparation's samples pooled (pool_parts).
    std::vector<EvalResult> parts;
    for (std::size_t k = 0; k < preps; ++k) {
      EvalResult part = plans[c * preps + k]->result();
      if (!plans[c * preps + k]->failed())
        part.status = part.kernel_ms.empty() ? Status::harness_error : Status::ok;
      parts.push_back(std::move(part));
    }
    EvalResult r = pool_parts(parts, "preparation");
    if (r.status == Status::harness_error && r.log.empty()) r.log = "no timed run executed";
    r.stage = "confirm";
    finish_stats(r);
    r.eval_ms = ms_since(t0);
    r.metrics.insert(r.metrics.end(), seen.begin(), seen.end());
    for (const std::string& f : flags)
      if (std::find(r.flags.begin(), r.flags.end(), f) == r.flags.end()) r.flags.push_back(f);
    out.push_back(std::move(r));
  }
  return out;
}

EvalResult pool_parts(const std::vector<EvalResult>& parts, const std::string& part) {
  if (parts.empty()) throw std::invalid_argument("pool_parts: no " + part);
  for (const EvalResult& r : parts)
    if (r.status != Status::ok) return r;
  EvalResult out = parts.front();
  out.kernel_ms.clear();
  out.wall_ms.clear();
  out.eval_ms = 0;
  double lo = 0, hi = 0;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const EvalResult& r = parts[k];
    if (k > 0)  // the per-run metrics of the later parts, numbered on after the runs before them
      for (const Metric& x : r.metrics)
        if (x.seq >= 0 && x.name.rfind("confirm.", 0) != 0)
          out.metrics.push_back({x.name, x.unit, x.seq + static_cast<int>(out.kernel_ms.size()), x.value});
    out.kernel_ms.insert(out.kernel_ms.end(), r.kernel_ms.begin(), r.kernel_ms.end());
    out.wall_ms.insert(out.wall_ms.end(), r.wall_ms.begin(), r.wall_ms.end());
    out.eval_ms += r.eval_ms;
    for (const std::string& f : r.flags)  // a flag of any part qualifies the pooled row ("loaded", "remeasured")
      if (std::find(out.flags.begin(), out.flags.end(), f) == out.flags.end()) out.flags.push_back(f);
    const double median = Stats::of(r.kernel_ms).median;
    out.metrics.push_back({"confirm." + part + "_median_ms", "ms", static_cast<int>(k), median});
    lo = k == 0 ? median : std::min(lo, median);
    hi = std::max(hi, median);
  }
  out.metrics.push_back({"confirm." + part + "s", "count", -1, static_cast<double>(parts.size())});
  if (lo > 0) out.metrics.push_back({"confirm." + part + "_spread", "ratio", -1, hi / lo - 1});
  finish_stats(out);
  return out;
}

EvalResult pool_sessions(const std::vector<EvalResult>& sessions) { return pool_parts(sessions, "session"); }

}  // namespace pimg
