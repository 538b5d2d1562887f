// One configuration, measured: plan -> compile -> upload -> warm-ups -> timed runs, each with the
// output poisoned before and validated after. Every failure becomes a status, never an exception.
#include "pimg/evaluator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "pimg/executor.hpp"
#include "pimg/registry.hpp"
#include "measure/stopwatch.hpp"

namespace pimg {
namespace {

using Clock = std::chrono::steady_clock;

// The untimed run in which observers that count inside the timed region count (Observer::counts_region);
// true when there is none or it succeeded.
bool counted_run(PreparedPlan& prepared, const std::vector<Observer*>& observers, std::int64_t seq) {
  std::vector<Observer*> counting;
  for (Observer* o : observers)
    if (o->counts_region()) counting.push_back(o);
  if (counting.empty()) return true;
  prepared.set_region_hooks([&] { for (Observer* o : counting) o->region_begin(); },
                            [&] { for (Observer* o : counting) o->region_end(); });
  const bool ok = prepared.run(seq).has_value();
  prepared.set_region_hooks({}, {});
  return ok;
}

// The back-to-back window of the observers that need one (Observer::wants_window), then one more run validated
// as every run is (its poison and comparison), so that the window's work is known to be right; true when there
// is none or it succeeded.
bool window_runs(PreparedPlan& prepared, const std::vector<Observer*>& observers, double seconds, std::int64_t seq) {
  std::vector<Observer*> windowed;
  for (Observer* o : observers)
    if (o->wants_window()) windowed.push_back(o);
  if (windowed.empty() || seconds <= 0) return true;
  for (Observer* o : windowed) o->window_begin();
  const std::optional<BackToBack> b = prepared.back_to_back(seconds);
  if (!b) return false;
  for (Observer* o : windowed) o->window_end(b->runs, b->device_ms);
  return prepared.run(seq).has_value();
}

}  // namespace

LaunchPlan step_plan(const LaunchPlan& plan, const LaunchStep& step) {
  LaunchPlan p;
  p.entry = step.entry;
  p.defines = plan.defines;
  p.options = plan.options;
  p.globals = plan.globals;
  p.dims = step.dims;
  p.global = step.global;
  p.local = step.local;
  p.args = step.args;
  return p;
}

bool raced(const std::vector<double>& samples, std::size_t least, double bar_ms, double margin) {
  if (!(bar_ms > 0) || !(margin > 0) || samples.size() < std::max<std::size_t>(least, 1)) return false;
  return median_interval(samples).first > (1 + margin) * bar_ms;
}

EvalResult evaluate(const EvalContext& ctx, const Variant& variant, const Config& config) {
  const auto t0 = Clock::now();
  PreparedPlan prepared(ctx.family, ctx.problem, ctx.workload, ctx.expected, ctx.device, ctx.measure, variant, config,
                        ctx.resident);
  EvalResult& r = prepared.mutable_result();
  auto done = [&]() -> EvalResult {
    finish_stats(r);
    r.eval_ms = ms_since(t0);
    return r;
  };
  if (prepared.failed()) return done();
  try {
    ctx.device.set_run_timeout(ctx.measure.timeout_s);
    const MeasureSpec& m = ctx.measure;
    const std::int64_t warmups = std::clamp(m.warmups, 0, kMaxWarmups);
    const std::int64_t least = std::clamp(m.repeats, 1, kMaxRepeats);
    const std::int64_t most = std::max<std::int64_t>(least, std::min(m.max_repeats, kMaxRepeats));
    if (ctx.load_retries) ++ctx.load_retries->evaluations;
    const std::size_t metrics_before = r.metrics.size(), flags_before = r.flags.size();
    std::int64_t first_seq = 0;  // the first run's sequence number (poison pattern) of this attempt
    for (int attempt = 0;; ++attempt) {
      for (Observer* o : ctx.observers) o->begin();
      Clock::time_point t_timed{};
      for (std::int64_t run = 0;; ++run) {
        const bool timed = run >= warmups;
        const std::int64_t n = run - warmups;  // timed runs so far
        if (timed) {
          if (n == 0) t_timed = Clock::now();
          if (n >= most) break;
          if (n >= least) {
            const auto [lo, hi] = median_interval(r.kernel_ms);
            const double median = Stats::of(r.kernel_ms).median;
            if (median > 0 && (hi - lo) <= 2.0 * m.noise * median) break;
            if (raced(r.kernel_ms, static_cast<std::size_t>(least), ctx.race_bar_ms, m.race)) {
              r.flags.push_back("raced");
              break;
            }
            if (ms_since(t_timed) >= m.max_time_s * 1000.0) break;
          }
        }
        if (ctx.on_run) ctx.on_run(static_cast<int>(std::min<std::int64_t>(run, INT32_MAX)));
        if (timed)
          for (Observer* o : ctx.observers) o->before_run(static_cast<int>(n));
        const std::optional<RunTimes> t = prepared.run(first_seq + run);
        if (!t) return done();
        if (timed) {
          for (Observer* o : ctx.observers) o->after_run(static_cast<int>(n), r.metrics);
          t->add_parts(r.metrics, static_cast<int>(r.kernel_ms.size()));
          r.kernel_ms.push_back(t->kernel_ms);
          r.wall_ms.push_back(t->wall_ms);
        }
      }
      const std::int64_t untimed = first_seq + warmups + static_cast<std::int64_t>(r.kernel_ms.size());
      if (!counted_run(prepared, ctx.observers, untimed)) return done();
      if (!window_runs(prepared, ctx.observers, m.energy_s, untimed + 1)) return done();
      for (Observer* o : ctx.observers) o->end(r.metrics, r.flags);
      // Loaded (LoadRetries): measured once more, warm-ups included, after the other processes had a moment.
      const bool loaded = std::find(r.flags.begin() + static_cast<std::ptrdiff_t>(flags_before), r.flags.end(),
                                    "loaded") != r.flags.end();
      if (!loaded || attempt > 0 || !ctx.load_retries || !ctx.load_retries->allow()) break;
      ++ctx.load_retries->retries;
      r.kernel_ms.clear();
      r.wall_ms.clear();
      r.metrics.erase(r.metrics.begin() + static_cast<std::ptrdiff_t>(metrics_before), r.metrics.end());
      r.flags.resize(flags_before);
      r.flags.push_back("remeasured");
      first_seq = untimed + 2;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  } catch (const std::exception& e) {
    r.status = Status::harness_error;
    r.log = fmt::format("measuring the configuration: {}", e.what());
    return done();
  }
  // A configuration whose timed runs never executed can never be ok.
  if (r.kernel_ms.empty()) {
    r.status = Status::harness_error;
    r.log = "no timed run executed";
    return done();
  }
  r.status = Status::ok;
  return done();
}

namespace {

// Best (least) time of `repeats` runs of one copy (after one warm-up), each in its own timed region, as
// STREAM reports a bandwidth: the ceiling is the rate the copy reaches, not its typical run, so a kernel's
// median that moves the same bytes cannot pass it by the noise of the copy's own runs; nullopt when a run fails.
template <class Copy>
std::optional<double> best_copy_ms(Device& device, const TimingMethod& timing, int repeats, Copy&& copy) {
  std::vector<double> times;
  for (int i = 0; i <= repeats; ++i) {
    device.begin_timing(timing, true);
    LaunchResult l = copy();
    std::optional<double> region;
    try {
      region = device.end_timing();
    } catch (const std::exception&) {
      return std::nullopt;
    }
    if (!l.ok) return std::nullopt;
    if (i > 0) times.push_back(region ? *region : l.kernel_ms);
  }
  const double best = Stats::of(times).min;
  return best > 0 ? std::optional<double>(best) : std::nullopt;
}

}  // namespace

const char* ceiling_kind_name(CeilingKind k) { return k == CeilingKind::read ? "read" : "copy"; }

std::uint32_t word_sum(std::span<const std::uint8_t> bytes) {
  std::uint32_t s = 0;
  for (std::size_t i = 0; i + 4 <= bytes.size(); i += 4) {
    std::uint32_t w;
    std::memcpy(&w, bytes.data() + i, sizeof w);
    s += w;
  }
  return s;
}

std::vector<CopyWay> measure_copies(const Backend& backend, Device& device, std::size_t bytes, int repeats,
                                    const TimingMethod& timing, CeilingKind kind) {
  const bool read = kind == CeilingKind::read;
  if (read) bytes = bytes / 16 * 16;  // a read kernel reads whole 16-byte vectors
  std::vector<CopyWay> ways;
  try {
    auto in = device.alloc(bytes);
    // A read kernel writes one 32-bit sum per block or work item: at most one per 16-byte vector, plus a last partly
    // filled group of up to 1,024 items. Its output, allocated and downloaded for every plan's check, is a quarter of
    // the input and 4 KiB.
    const std::size_t out_bytes = read ? bytes / 4 + 4096 : bytes;
    auto out = device.alloc(out_bytes);
    std::vector<std::uint8_t> pattern(bytes), check(out_bytes);
    for (std::size_t i = 0; i < bytes; ++i) pattern[i] = static_cast<std::uint8_t>(i * 131 + 7);
    device.upload(*in, pattern);
    // A copy moves its bytes twice (read and written), a read once.
    const auto gbs = [&](double ms) { return (read ? 1.0 : 2.0) * static_cast<double>(bytes) / (ms * 1e-3) / 1e9; };
    // What a read kernel's partial sums add up to (the untouched words of "out" stay 0).
    const std::uint32_t expected_sum = word_sum(pattern);
    const auto right = [&] { return read ? word_sum(check) == expected_sum : check == pattern; };
    // The API's own device-to-device copy.
    if (!read)
      if (auto ms = best_copy_ms(device, timing, repeats, [&] { return device.copy_buffer(*out, *in); })) {
        device.fill(*out, 0);
        device.copy_buffer(*out, *in);
        device.download(*out, check);
        if (right()) ways.push_back({"native copy", "native copy", gbs(*ms)});
      }
    // The backend's copy (or read) kernel, at several launch geometries where it is a 1-D grid-stride loop, and its
    // further entries and geometries; a plan whose program does not build here (an entry of a newer GPU) or whose
    // result is wrong is left out.
    if (auto copy = read ? backend.read_kernel(bytes) : backend.copy_kernel(bytes)) {
      std::map<std::string, DeviceBuffer*> buffers{{"in", in.get()}, {"out", out.get()}};
      std::vector<LaunchPlan> plans{copy->plan};
      if (copy->plan.dims == 1 && copy->plan.local[0] > 0) {
        const std::size_t vectors = std::max<std::size_t>(bytes / 16, 1);
        const std::size_t units = static_cast<std::size_t>(std::max(device.info().compute_units, 1));
        for (std::size_t local : {128u, 256u, 512u, 1024u}) {
          if (static_cast<std::int64_t>(local) > device.info().max_work_group_size) continue;
          for (std::size_t groups : {units * 2, units * 4, units * 8, units * 16, (vectors + local - 1) / local}) {
            LaunchPlan p = copy->plan;
            p.local = {local, 1, 1};
            p.global = {std::min(groups, (vectors + local - 1) / local) * local, 1, 1};
            plans.push_back(p);
          }
        }
      }
      for (const LaunchPlan& p : copy->more)
        if (static_cast<std::int64_t>(p.local[0]) <= device.info().max_work_group_size) plans.push_back(p);
      std::map<std::string, std::shared_ptr<Program>> programs;  // one compile per entry point
      for (const LaunchPlan& p : plans) {
        const auto found = programs.find(p.entry);
        std::shared_ptr<Program> program =
            found != programs.end() ? found->second : (programs[p.entry] = device.compile(copy->source, p).program);
        if (!program) continue;
        auto ms = best_copy_ms(device, timing, repeats, [&] { return device.launch(*program, p, buffers); });
        if (!ms) continue;
        device.fill(*out, 0);
        if (!device.launch(*program, p, buffers).ok) continue;
        device.download(*out, check);
        if (!right()) continue;
        const auto blocks = [&](int d) { return p.global[d] / std::max<std::size_t>(p.local[d], 1); };
        ways.push_back({p.entry,
                        p.dims == 2 ? fmt::format("{} {}x{} blocks of {}x{}", p.entry, blocks(0), blocks(1), p.local[0],
                                                  p.local[1])
                                    : fmt::format("{} {}x{}", p.entry, blocks(0), p.local[0]),
                        gbs(*ms)});
      }
    }
  } catch (const std::exception&) {
  }
  return ways;
}

std::optional<Ceiling> measure_ceiling(const Backend& backend, Device& device, std::size_t bytes, int repeats,
                                       const TimingMethod& timing, CeilingKind kind) {
  const std::vector<CopyWay> ways = measure_copies(backend, device, bytes, repeats, timing, kind);
  if (ways.empty()) return std::nullopt;
  const auto best = std::max_element(ways.begin(), ways.end(), [](const CopyWay& a, const CopyWay& b) { return a.gbs < b.gbs; });
  Ceiling c{best->gbs, best->how, device.timing_method(timing, true), kind};
  const auto native = std::find_if(ways.begin(), ways.end(), [](const CopyWay& w) { return w.entry == "native copy"; });
  if (native != ways.end() && best->how != "native copy") c.how += fmt::format(" (native copy {:.1f} GB/s)", native->gbs);
  c.how += fmt::format(", best of {} runs", repeats);
  return c;
}

}  // namespace pimg
