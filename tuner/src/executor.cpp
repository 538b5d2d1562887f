// The one executor of a plan (see executor.hpp): preparation (plan, compile, buffers with canaries,
// uploads) and runs (alternating poison, timed region, validation of output and canaries).
#include "pimg/executor.hpp"

#include <elf.h>
#include <fmt/format.h>
#include <link.h>

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

namespace pimg {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// The GNU build-id note of the main executable, as hex; empty when it has none.
int note_cb(dl_phdr_info* info, std::size_t, void* data) {
  auto* out = static_cast<std::string*>(data);
  if (info->dlpi_name && info->dlpi_name[0] != '\0') return 0;  // the main program comes first, unnamed
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const char* p = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
    const char* end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const auto* n = reinterpret_cast<const ElfW(Nhdr)*>(p);
      const char* name = p + sizeof(ElfW(Nhdr));
      const char* desc = name + ((n->n_namesz + 3) & ~3u);
      if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && std::string_view(name, 3) == "GNU") {
        for (unsigned k = 0; k < n->n_descsz; ++k) *out += fmt::format("{:02x}", static_cast<unsigned char>(desc[k]));
        return 1;
      }
      p = desc + ((n->n_descsz + 3) & ~3u);
    }
  }
  return 1;
}

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

// One compiled kernel or host computation of the plan, in run order.
struct Step {
  LaunchPlan plan;                    // kernel steps
  std::shared_ptr<Program> program;   // null for a host step
  const LaunchStep* host = nullptr;   // host steps
};

}  // namespace

const std::string& build_id() {
  static const std::string id = [] {
    std::string out;
    dl_iterate_phdr(note_cb, &out);
    if (!out.empty()) return out;
    std::ifstream exe("/proc/self/exe", std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(exe)), std::istreambuf_iterator<char>());
    return hash128(bytes);
  }();
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
  LaunchPlan plan;
  std::vector<Step> steps;
  bool region = true;  // false when a host step needs the device's results mid-run
  std::map<std::string, std::shared_ptr<DeviceBuffer>> owned;
  std::map<std::string, DeviceBuffer*> buffers;
  std::vector<std::pair<std::string, std::size_t>> poisoned;  // buffer, bytes before its canary
  std::vector<std::uint8_t> output, canary, host_in, host_out;
  std::function<void()> region_begin = {}, region_end = {};  // set_region_hooks
  std::vector<double> d2h_ms = {};                            // every run's download of the output
  bool downloaded = false;                                    // output holds a run's output
};

PreparedPlan::PreparedPlan(const Family& family, const Problem& problem, const Workload& workload,
                           const std::vector<std::uint8_t>& expected, Device& device, const MeasureSpec& measure,
                           const Variant& variant, const Config& config) {
  try {
    impl_ = std::make_unique<Impl>(Impl{family, problem, workload, expected, device, measure, variant, {}, {}, true,
                                        {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, false});
    Impl& m = *impl_;
    try {
      m.plan = variant.plan(problem, workload, config, device.info());
    } catch (const PlanError& e) {
      { fail(Status::launch_error, e.what()); return; }
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
      auto upload = [&](DeviceBuffer& dev, const HostBuffer& host) {
        const auto t = Clock::now();
        device.upload(dev, host.bytes);
        upload_ms += ms_since(t);
        uploads.emplace_back(&dev, &host);
        memory.input_bytes += dev.size();
      };
      m.owned["out"] = device.alloc(workload.output_bytes + kCanaryBytes);
      m.buffers["out"] = m.owned["out"].get();
      m.poisoned.emplace_back("out", workload.output_bytes);
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
          auto dev = a.kind == ArgKind::Image2D ? device.alloc_image(a.image_width, a.image_height)
                                                : device.alloc(host.bytes.size());
          upload(*dev, host);
          m.buffers[a.buffer] = dev.get();
          m.owned[a.buffer] = std::move(dev);
        }
      }
      for (const auto& [symbol, name] : m.plan.symbols) {  // inputs only a device symbol reads
        if (m.owned.count(name)) continue;
        const HostBuffer& host = workload.input(name);
        auto dev = device.alloc(host.bytes.size());
        upload(*dev, host);
        m.buffers[name] = dev.get();
        m.owned[name] = std::move(dev);
      }
      result_.h2d_ms = ms_since(t_up);
      memory.output_bytes = workload.output_bytes + kCanaryBytes;
      memory.alloc_ms = ms_since(t_alloc) - upload_ms;
      std::vector<double> passes{upload_ms};
      for (int k = 1; k < kUploadRepeats && !uploads.empty(); ++k) {
        const auto t = Clock::now();
        for (const auto& [dev, host] : uploads) device.upload(*dev, host->bytes);
        passes.push_back(ms_since(t));
      }
      record_memory(result_.metrics, memory);
      record_uploads(result_.metrics, memory.input_bytes, passes);
      for (const Step& step : m.steps)
        if (step.host && (!m.buffers.count(step.host->host_in) || !m.buffers.count(step.host->host_out)))
          throw std::runtime_error(fmt::format("host step reads '{}' and writes '{}': no such buffer",
                                               step.host->host_in, step.host->host_out));
    } catch (const std::exception& e) {
      { fail(Status::launch_error, fmt::format("buffer setup: {}", e.what())); return; }
    }
    m.output.resize(workload.output_bytes + kCanaryBytes);
    m.canary.resize(kCanaryBytes);
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
      for (const auto& [name, bytes] : m.poisoned) m.device.fill(*m.buffers[name], poison);
      for (const Step& step : m.steps)
        if (!step.host) m.device.prepare_launch(*step.program, step.plan, m.buffers);
    } catch (const std::exception& e) {
      fail(Status::launch_error, fmt::format("poisoning the output: {}", e.what()));
      return std::nullopt;
    }

    // A buffer's own bytes: without the canary region after output and scratch buffers.
    auto own_bytes = [&](const std::string& name) {
      for (const auto& [poisoned, bytes] : m.poisoned)
        if (poisoned == name) return bytes;
      return m.buffers[name]->size();
    };
    // A host step: download, compute, upload; its time (transfers included) counts as kernel time.
    auto run_host = [&](const LaunchStep& s) -> LaunchResult {
      LaunchResult l;
      const auto t = Clock::now();
      try {
        m.host_in.resize(own_bytes(s.host_in));
        m.host_out.resize(own_bytes(s.host_out));
        m.device.download(*m.buffers[s.host_in], m.host_in);
        s.host(m.host_in, m.host_out);
        m.device.upload(*m.buffers[s.host_out], m.host_out);
        l.ok = true;
      } catch (const std::exception& e) {
        l.error = fmt::format("host step {} -> {}: {}", s.host_in, s.host_out, e.what());
      }
      l.kernel_ms = ms_since(t);
      return l;
    };

    RunTimes t;
    const auto t_run = Clock::now();
    m.device.begin_timing(m.measure.timing, m.region);
    if (m.region_begin) m.region_begin();
    std::string error;
    for (const Step& step : m.steps) {
      LaunchResult launched =
          step.host ? run_host(*step.host) : m.device.launch(*step.program, step.plan, m.buffers);
      if (!launched.ok) {
        const std::string where =
            m.steps.size() > 1 ? fmt::format("step {}: ", step.host ? "host" : step.plan.entry) : "";
        error = where + launched.error;
        break;
      }
      t.kernel_ms += launched.kernel_ms;
      t.comm_ms += launched.comm_ms;
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

    // Validate every run: the output was poisoned, so a skipped or stale pixel shows; the canaries after
    // the output and every scratch buffer must still hold the poison.
    const auto t_down = Clock::now();
    try {
      m.device.download(*m.buffers["out"], m.output);
      m.downloaded = true;
      m.d2h_ms.push_back(ms_since(t_down));
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
    if (result_.d2h_ms == 0) result_.d2h_ms = ms_since(t_down);
    const std::string& rule = m.variant.validation_rule();
    const std::span<const std::uint8_t> out(m.output.data(), m.workload.output_bytes);
    Validation v = rule.empty() ? m.family.compare(m.problem, m.expected, out)
                                : m.family.compare_rule(m.problem, m.workload, m.expected, out, rule);
    if (!v.ok) {
      fail(Status::wrong_result, fmt::format("run {}: {}", seq + 1, v.detail));
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

std::span<const std::uint8_t> PreparedPlan::output() const {
  if (!impl_ || !impl_->downloaded) return {};
  return {impl_->output.data(), std::min(impl_->output.size(), impl_->workload.output_bytes)};
}

std::vector<EvalResult> confirm_candidates(const Family& family, const Problem& problem, const Workload& workload,
                                           Device& device, const MeasureSpec& measure,
                                           const std::vector<ConfirmCandidate>& candidates, std::uint64_t seed) {
  const auto t0 = Clock::now();
  std::vector<std::unique_ptr<PreparedPlan>> plans;
  for (const ConfirmCandidate& c : candidates)
    plans.push_back(std::make_unique<PreparedPlan>(family, problem, workload, *c.expected, device, measure, *c.variant,
                                                   c.config));
  device.set_run_timeout(measure.timeout_s);
  std::vector<std::int64_t> seq(plans.size(), 0);
  const int warmups = std::clamp(measure.warmups, 1, kMaxWarmups);
  for (std::size_t i = 0; i < plans.size(); ++i)
    for (int w = 0; w < warmups && !plans[i]->failed(); ++w) plans[i]->run(seq[i]++);
  std::vector<std::size_t> order(plans.size());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(seed);
  const ConfirmSpec& spec = measure.confirm;
  for (int round = 0; round < std::max(spec.max_rounds, spec.rounds); ++round) {
    if (round >= spec.rounds) {
      bool settled = true;
      for (const auto& p : plans) {
        if (p->failed()) continue;
        const auto& k = p->result().kernel_ms;
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
      r.kernel_ms.push_back(t->kernel_ms);
      r.wall_ms.push_back(t->wall_ms);
      r.comm_ms.push_back(t->comm_ms);
    }
  }
  std::vector<EvalResult> out;
  for (auto& p : plans) {
    EvalResult r = p->result();
    if (!p->failed()) r.status = r.kernel_ms.empty() ? Status::harness_error : Status::ok;
    if (r.status == Status::harness_error && r.log.empty()) r.log = "no timed run executed";
    r.stage = "confirm";
    finish_stats(r);
    r.eval_ms = ms_since(t0);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace pimg
