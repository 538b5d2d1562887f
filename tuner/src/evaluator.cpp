// One configuration, measured: plan -> compile -> upload -> warm-ups -> timed runs, each with the
// output poisoned before and validated after. Every failure becomes a status, never an exception.
#include "pimg/evaluator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "pimg/registry.hpp"

namespace pimg {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

EvalResult fail(EvalResult r, Status s, std::string log, Clock::time_point t0) {
  r.status = s;
  r.log = std::move(log);
  r.eval_ms = ms_since(t0);
  r.kernel = Stats::of(r.kernel_ms);
  return r;
}

const KernelSource& source_for(const Variant& v, KernelSource& builtin) {
  if (v.source().rfind("builtin:", 0) == 0) {
    builtin = {v.source(), "", hash128(v.source())};
    return builtin;
  }
  const KernelSource* s = kernel_source(v.source());
  if (!s) throw std::runtime_error(fmt::format("variant {} names a missing kernel source {}", v.name(), v.source()));
  return *s;
}

// One compiled kernel or host computation of the plan, in run order.
struct Step {
  LaunchPlan plan;                    // kernel steps
  std::shared_ptr<Program> program;   // null for a host step
  const LaunchStep* host = nullptr;   // host steps
};

}  // namespace

LaunchPlan step_plan(const LaunchPlan& plan, const LaunchStep& step) {
  LaunchPlan p;
  p.entry = step.entry;
  p.defines = plan.defines;
  p.options = plan.options;
  p.dims = step.dims;
  p.global = step.global;
  p.local = step.local;
  p.args = step.args;
  return p;
}

EvalResult evaluate(const EvalContext& ctx, const Variant& variant, const Config& config) {
  const auto t0 = Clock::now();
  EvalResult r;
  LaunchPlan plan;
  try {
    plan = variant.plan(ctx.problem, ctx.workload, config, ctx.device.info());
  } catch (const PlanError& e) {
    return fail(r, Status::launch_error, e.what(), t0);
  }

  KernelSource builtin;
  const KernelSource& source = source_for(variant, builtin);
  CompileResult compiled = ctx.device.compile(source, plan);
  r.compile_ms = compiled.ms;
  r.compile_cached = compiled.cached;
  if (!compiled.program) return fail(r, Status::compile_error, compiled.log, t0);
  std::vector<Step> steps{{plan, compiled.program, nullptr}};
  for (const LaunchStep& s : plan.steps) {
    if (s.host) {
      steps.push_back({{}, nullptr, &s});
      continue;
    }
    LaunchPlan sp = step_plan(plan, s);
    CompileResult c = ctx.device.compile(source, sp);
    r.compile_ms += c.ms;
    r.compile_cached = r.compile_cached && c.cached;
    if (!c.program) return fail(r, Status::compile_error, fmt::format("step {}: {}", s.entry, c.log), t0);
    steps.push_back({std::move(sp), std::move(c.program), nullptr});
  }

  // Device buffers: every workload input an argument names, the scratch buffers, and the output.
  std::map<std::string, std::shared_ptr<DeviceBuffer>> owned;
  std::map<std::string, DeviceBuffer*> buffers;
  std::vector<std::string> poisoned{"out"};
  try {
    owned["out"] = ctx.device.alloc(ctx.workload.output_bytes);
    buffers["out"] = owned["out"].get();
    for (const ScratchBuffer& s : plan.scratch) {
      const bool clash = std::any_of(ctx.workload.inputs.begin(), ctx.workload.inputs.end(),
                                     [&](const HostBuffer& b) { return b.name == s.name; });
      if (owned.count(s.name) || clash || s.bytes == 0)
        throw std::runtime_error(fmt::format("scratch buffer '{}' is empty or not uniquely named", s.name));
      owned[s.name] = ctx.device.alloc(s.bytes);
      buffers[s.name] = owned[s.name].get();
      poisoned.push_back(s.name);
    }
    const auto t_up = Clock::now();
    for (const Step& step : steps) {
      if (step.host) continue;
      for (const auto& a : step.plan.args) {
        if (a.kind != ArgKind::Buffer && a.kind != ArgKind::Image2D) continue;
        if (owned.count(a.buffer)) continue;
        const HostBuffer& host = ctx.workload.input(a.buffer);
        auto dev = a.kind == ArgKind::Image2D ? ctx.device.alloc_image(a.image_width, a.image_height)
                                              : ctx.device.alloc(host.bytes.size());
        ctx.device.upload(*dev, host.bytes);
        buffers[a.buffer] = dev.get();
        owned[a.buffer] = std::move(dev);
      }
    }
    for (const auto& [symbol, name] : plan.symbols) {  // inputs only a device symbol reads
      if (owned.count(name)) continue;
      const HostBuffer& host = ctx.workload.input(name);
      auto dev = ctx.device.alloc(host.bytes.size());
      ctx.device.upload(*dev, host.bytes);
      buffers[name] = dev.get();
      owned[name] = std::move(dev);
    }
    r.h2d_ms = ms_since(t_up);
    for (const Step& step : steps)
      if (step.host && (!buffers.count(step.host->host_in) || !buffers.count(step.host->host_out)))
        throw std::runtime_error(fmt::format("host step reads '{}' and writes '{}': no such buffer",
                                             step.host->host_in, step.host->host_out));
  } catch (const std::exception& e) {
    return fail(r, Status::launch_error, fmt::format("buffer setup: {}", e.what()), t0);
  }

  // A host step: download, compute, upload; its time (transfers included) counts as kernel time.
  std::vector<std::uint8_t> host_in, host_out;
  auto run_host = [&](const LaunchStep& s) -> LaunchResult {
    LaunchResult l;
    const auto t = Clock::now();
    try {
      host_in.resize(buffers[s.host_in]->size());
      host_out.resize(buffers[s.host_out]->size());
      ctx.device.download(*buffers[s.host_in], host_in);
      s.host(host_in, host_out);
      ctx.device.upload(*buffers[s.host_out], host_out);
      l.ok = true;
    } catch (const std::exception& e) {
      l.error = fmt::format("host step {} -> {}: {}", s.host_in, s.host_out, e.what());
    }
    l.kernel_ms = ms_since(t);
    return l;
  };

  const double timeout_ms = ctx.measure.timeout_s * 1000.0;
  ctx.device.set_run_timeout(ctx.measure.timeout_s);
  std::vector<std::uint8_t> output(ctx.workload.output_bytes);
  for (Observer* o : ctx.observers) o->begin();
  const int total = ctx.measure.warmups + ctx.measure.repeats;
  for (int run = 0; run < total; ++run) {
    const bool timed = run >= ctx.measure.warmups;
    if (ctx.on_run) ctx.on_run(run);
    try {
      for (const std::string& name : poisoned) ctx.device.fill(*buffers[name], kPoison);
    } catch (const std::exception& e) {
      return fail(r, Status::launch_error, fmt::format("poisoning the output: {}", e.what()), t0);
    }
    if (timed)
      for (Observer* o : ctx.observers) o->before_run(run - ctx.measure.warmups);
    const auto t_run = Clock::now();
    double kernel_ms = 0, comm_ms = 0;
    for (const Step& step : steps) {
      LaunchResult launched =
          step.host ? run_host(*step.host) : ctx.device.launch(*step.program, step.plan, buffers);
      if (!launched.ok) {
        const std::string where = steps.size() > 1 ? fmt::format("step {}: ", step.host ? "host" : step.plan.entry) : "";
        return fail(r, Status::launch_error, where + launched.error, t0);
      }
      kernel_ms += launched.kernel_ms;
      comm_ms += launched.comm_ms;
    }
    const double wall = ms_since(t_run);
    if (timed)
      for (Observer* o : ctx.observers) o->after_run(run - ctx.measure.warmups, r.metrics);
    if (wall > timeout_ms)
      return fail(r, Status::timeout,
                  fmt::format("run {} took {:.1f} ms, over the {:.1f} s timeout", run + 1, wall, ctx.measure.timeout_s),
                  t0);
    // Validate every run: the output was poisoned, so a skipped or stale pixel shows.
    const auto t_down = Clock::now();
    try {
      ctx.device.download(*buffers["out"], output);
    } catch (const std::exception& e) {
      return fail(r, Status::launch_error, fmt::format("download: {}", e.what()), t0);
    }
    if (run == ctx.measure.warmups) r.d2h_ms = ms_since(t_down);
    const std::string& rule = variant.validation_rule();
    Validation v = rule.empty() ? ctx.family.compare(ctx.problem, ctx.expected, output)
                                : ctx.family.compare_rule(ctx.problem, ctx.workload, ctx.expected, output, rule);
    if (!v.ok) return fail(r, Status::wrong_result, fmt::format("run {}: {}", run + 1, v.detail), t0);
    r.validation = variant.validation_rule().empty() ? v.detail : v.detail + " (rule " + variant.validation_rule() + ")";
    if (timed) {
      r.kernel_ms.push_back(kernel_ms);
      r.wall_ms.push_back(wall);
      r.comm_ms.push_back(comm_ms);
    }
  }
  for (Observer* o : ctx.observers) o->end(r.metrics, r.flags);
  r.status = Status::ok;
  r.log = compiled.log;
  r.kernel = Stats::of(r.kernel_ms);
  r.eval_ms = ms_since(t0);
  return r;
}

std::optional<double> measure_copy_bandwidth(const Backend& backend, Device& device, std::size_t bytes,
                                             int repeats) {
  auto copy = backend.copy_kernel(bytes);
  if (!copy) return std::nullopt;
  try {
    CompileResult c = device.compile(copy->source, copy->plan);
    if (!c.program) return std::nullopt;
    auto in = device.alloc(bytes);
    auto out = device.alloc(bytes);
    std::vector<std::uint8_t> pattern(bytes);
    for (std::size_t i = 0; i < bytes; ++i) pattern[i] = static_cast<std::uint8_t>(i * 131 + 7);
    device.upload(*in, pattern);
    std::map<std::string, DeviceBuffer*> buffers{{"in", in.get()}, {"out", out.get()}};
    std::vector<double> times;
    for (int i = 0; i < repeats + 1; ++i) {
      LaunchResult l = device.launch(*c.program, copy->plan, buffers);
      if (!l.ok) return std::nullopt;
      if (i > 0) times.push_back(l.kernel_ms);  // the first run warms up
    }
    std::vector<std::uint8_t> check(bytes);
    device.download(*out, check);
    if (check != pattern) return std::nullopt;
    double median = Stats::of(times).median;
    if (median <= 0) return std::nullopt;
    return 2.0 * static_cast<double>(bytes) / (median * 1e-3) / 1e9;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace pimg
