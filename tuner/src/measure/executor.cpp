// The one executor of a plan (see executor.hpp): a configuration's identity, and its preparation (plan,
// compile, buffers with canaries, uploads, validation on the device). Its runs are in executor_run.cpp (alternating
// poison, timed region, validation of output and canaries), the parts both use in executor_impl.hpp, and the
// confirmation stage's interleaved rounds in confirm_rounds.cpp.
#include "pimg/executor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <sstream>

#include "measure/executor_impl.hpp"
#include "pimg/errors.hpp"
#include "pimg/evaluator.hpp"
#include "pimg/registry.hpp"
#include "measure/plan_metrics.hpp"
#include "measure/stopwatch.hpp"

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

// The plan and its programs: the plan's own, then each kernel step's (a host step runs on the host and takes
// its data mid-run, so the plan has no single timed region); the identity of what runs. False once failed.
bool PreparedPlan::compile_programs(const Config& config) {
  Impl& m = *impl_;
  const Family& family = m.family;
  const Problem& problem = m.problem;
  const Workload& workload = m.workload;
  Device& device = m.device;
  const MeasureSpec& measure = m.measure;
  const Variant& variant = m.variant;
  try {
    m.plan = plan_for(variant, problem, workload, config, device.info());
  } catch (const PlanError& e) {
    { fail(Status::launch_error, e.what()); return false; }
  }
  if (!m.plan.globals.empty() && !device.info().caps.program_globals) {
    fail(Status::harness_error, fmt::format("the {} plan sets variables of its program (LaunchPlan::globals), which "
                                            "{} cannot", variant.name(), device.info().id()));
    return false;
  }
  KernelSource builtin;
  const KernelSource& source = source_for(variant, builtin);
  result_.identity = plan_identity(m.plan, source.hash, family.reference_version(variant.validation_rule()));
  CompileResult compiled = device.compile(source, m.plan);
  result_.compile_ms = compiled.ms;
  result_.compile_cached = compiled.cached;
  result_.log = compiled.log;
  if (!compiled.program) { fail(Status::compile_error, compiled.log); return false; }
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
    if (!c.program) { fail(Status::compile_error, fmt::format("step {}: {}", s.entry, c.log)); return false; }
    m.steps.push_back({std::move(sp), std::move(c.program), nullptr});
  }
  result_.method = device.timing_method(measure.timing, m.region);
  return true;
}

// Device buffers: every workload input an argument names, the scratch buffers, and the output;
// output and scratch carry a canary region after their bytes. Throws where they cannot be set up.
void PreparedPlan::set_up_buffers() {
  Impl& m = *impl_;
  const Problem& problem = m.problem;
  const Workload& workload = m.workload;
  Device& device = m.device;
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
    if (!compile_programs(config)) return;

    try {
      set_up_buffers();
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

}  // namespace pimg
