// The sequential runner. Everything that can be wrong with the input is checked before the first
// row is written; then each evaluation is stored in its own transaction as soon as it is measured.
#include "pimg/runner.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cctype>
#include <chrono>
#include <ctime>
#include <map>
#include <set>
#include <thread>
#include <tuple>

#include "pimg/errors.hpp"
#include "pimg/evaluator.hpp"
#include "pimg/isolation.hpp"
#include "pimg/store.hpp"
#include "run/attribution.hpp"
#include "pimg/device_selector.hpp"
#include "compile/compile_pipeline.hpp"
#include "workers/compile_worker.hpp"
#include "measure/plan_metrics.hpp"
#include "run/tuner_impl.hpp"
#include "pimg/executor.hpp"

namespace pimg {
namespace {

// Timed runs of each copy the ceiling tries (its median decides; the best copy of many is the ceiling).
constexpr int kCeilingRepeats = 30;

// Where a problem came from in the space file (the file alone for spaces built in code).
std::string problem_place(const Space& space, std::size_t problem) {
  return problem < space.problem_pos.size() ? space.problem_pos[problem].str() : space.file;
}

}  // namespace

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

RunInfo this_run(const std::string& command_line) {
  return {hostname(), utc_now(), git_commit(), command_line, PIMG_VERSION, build_id()};
}

std::vector<PriorResult> prior_results(const Store& store, const DeviceInfo& device, const Problem& problem,
                                       const std::string& variant) {
  RowFilter f;
  f.family = problem.family;
  std::vector<PriorResult> out;
  for (const auto& r : store.rows(f)) {
    const bool same_device = r.device.backend == device.backend && r.device.name == device.name;
    if (r.variant.name != variant || (same_device && r.problem == problem)) continue;
    std::optional<double> ms;
    if (r.result.status == Status::ok) ms = r.result.kernel.median;
    out.push_back({r.device.backend + ":" + r.device.name + " " + r.problem.label(), r.config, ms});
  }
  return out;
}

bool keeps(const TuneOptions& opt, const std::optional<ResultRow>& stored) {
  return stored && stored->result.status != Status::env_error && !opt.retry.count(stored->result.status);
}

// The plan of every configuration of the task not stored yet, by PointId (nullopt for the others).
std::vector<std::optional<LaunchPlan>> plans_to_compile(const Task& t, const Problem& problem, const Workload& workload,
                                                        const TuneOptions& opt, const DeviceInfo& device, Store& store,
                                                        const TaskRows& rows, const std::vector<PointId>& ahead) {
  std::vector<std::optional<LaunchPlan>> plans(t.space.size());
  const std::vector<ParamDecl> params = t.variant->parameters();
  for (const PointId i : ahead) {
    const Config c = t.space.config(i);
    if (opt.resume && keeps(opt, store.find(rows.device, rows.problem, rows.variant, c))) continue;
    try {
      plans[i] = t.variant->plan(PlanContext{problem, workload, c, device, params});
    } catch (const std::exception&) {  // stored by the evaluation that follows
    }
  }
  return plans;
}

int compile_threads() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

void precompile(const Task& t, const Problem& problem, const Workload& workload, const TuneOptions& opt,
                const Backend& backend, const DeviceInfo& device, const KernelSource& source, Store& store,
                std::int64_t device_row, std::int64_t problem_row, std::int64_t variant_row,
                const std::vector<PointId>& ahead, RunObserver& obs) {
  // One plan per program: configurations that differ only in what their plans set at run time (LaunchPlan::globals,
  // geometry, arguments) share a program, and two threads compiling it at once would both build it.
  std::vector<LaunchPlan> plans;
  std::set<std::tuple<std::string, std::vector<std::pair<std::string, std::string>>, std::vector<std::string>>> seen;
  for (auto& p : plans_to_compile(t, problem, workload, opt, device, store, {device_row, problem_row, variant_row}, ahead))
    if (p && seen.insert({p->entry, p->defines, p->options}).second) plans.push_back(std::move(*p));
  if (plans.size() < 2) return;
  const auto t0 = std::chrono::steady_clock::now();
  const int threads = compile_threads();
  const std::size_t compiled = backend.precompile(device, source, plans, threads);
  if (compiled > 0)
    obs.on_message(fmt::format("{} {}: {} programs compiled ahead on {} threads in {:.1f} s", device.id(),
                               t.variant->name(), compiled, threads,
                               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()));
}

std::vector<SelectedDevice> select_devices(const Registry& reg, const Space& space, const TuneOptions& opt,
                                           RunObserver& obs) {
  std::vector<BackendSelection> wanted = space.backends;
  if (!opt.backends.empty()) {
    std::vector<BackendSelection> chosen;
    for (const auto& name : opt.backends) {
      if (!reg.backend(name)) {
        std::string known;
        for (const auto* b : reg.backends()) known += (known.empty() ? "" : ", ") + b->name();
        throw UsageError(fmt::format("--backend {}: unknown backend (known: {})", name, known));
      }
      auto it = std::find_if(wanted.begin(), wanted.end(), [&](const auto& b) { return b.backend == name; });
      chosen.push_back(it != wanted.end() ? *it : BackendSelection{name, {}, {}});
    }
    wanted = chosen;
  }
  std::vector<std::string> backend_names;
  for (const Backend* b : reg.backends()) backend_names.push_back(b->name());
  auto matches = [&](const DeviceInfo& d, const std::string& s) { return device_matches(d, s, backend_names); };
  std::vector<SelectedDevice> out;
  std::vector<bool> selector_used(opt.devices.size(), false);
  for (const auto& sel : wanted) {
    const Backend* b = reg.backend(sel.backend);
    PIMG_CHECK(b, "space loader let an unknown backend through: " + sel.backend);
    BackendStatus st = b->status();
    if (!st.available) {
      if (!opt.backends.empty()) throw UsageError(fmt::format("--backend {}: unavailable: {}", sel.backend, st.reason));
      obs.on_message(fmt::format("{}: unavailable ({}), skipped", sel.backend, st.reason));
      continue;
    }
    std::vector<DeviceInfo> devices = b->devices();
    const std::vector<std::string>& selectors = opt.devices.empty() ? sel.devices : opt.devices;
    for (const auto& s : sel.devices) {
      if (!opt.devices.empty()) break;
      if (std::none_of(devices.begin(), devices.end(), [&](const DeviceInfo& d) { return matches(d, s); })) {
        std::string names;
        for (const auto& d : devices) names += fmt::format("{}{}: {}", names.empty() ? "" : ", ", d.index, d.name);
        throw UsageError(fmt::format("{}: {} device '{}' matches none of: {}", sel.pos.str(), sel.backend, s, names));
      }
    }
    for (const auto& d : devices) {
      bool take = selectors.empty();
      for (std::size_t i = 0; i < selectors.size(); ++i)
        if (matches(d, selectors[i])) {
          take = true;
          if (!opt.devices.empty()) selector_used[i] = true;
        }
      if (take) out.push_back({b, d});
    }
  }
  for (std::size_t i = 0; i < opt.devices.size(); ++i)
    if (!selector_used[i]) throw UsageError(fmt::format("--device {}: matches no device of the selected backends", opt.devices[i]));
  if (out.empty()) throw UsageError(fmt::format("{}: no device available for any selected backend", space.file));
  return out;
}

Tuner::Tuner(const Registry& reg, const Space& space, const TuneOptions& opt, RunObserver& obs)
    : impl_(std::make_unique<Impl>(reg, space, opt)) {
  Impl& m = *impl_;
  m.family = reg.family(space.family);
  PIMG_CHECK(m.family, "space loader let an unknown family through: " + space.family);
  const StrategyInfo* strategy = reg.strategy(space.strategy.name);
  PIMG_CHECK(strategy, "space loader let an unknown strategy through: " + space.strategy.name);
  const OptionValues strategy_options = resolve_options(*strategy, space.strategy.options);
  m.measure = space.measure;
  if (opt.repeats) {
    if (*opt.repeats < 1 || *opt.repeats > kMaxRepeats)
      throw UsageError(fmt::format("--repeats {}: must be from 1 to {}", *opt.repeats, kMaxRepeats));
    m.measure.repeats = m.measure.max_repeats = *opt.repeats;  // exactly that many: no noise-driven repetition
    // ... in the confirmation stage and the ladder too (their rounds are timed runs of each candidate), in one
    // session: a check that every stage stores valid rows (CI's seed ladders), not a timing.
    m.measure.confirm.rounds = m.measure.confirm.max_rounds = *opt.repeats;
    m.measure.confirm.sessions = m.measure.confirm.max_sessions = 1;
    m.measure.confirm.max_sessions_given = true;
  }
  m.devices = select_devices(reg, space, opt, obs);
  for (const auto& vs : space.variants) {
    const Variant* v = reg.variant(space.family, vs.variant);
    PIMG_CHECK(v, "space loader let an unknown variant through: " + vs.variant);
    bool on_some_device = false, nonempty = false;
    for (std::size_t d = 0; d < m.devices.size(); ++d) {
      if (m.devices[d].info.backend != v->backend()) continue;
      on_some_device = true;
      SearchSpace points = vs.search_space(m.devices[d].info);
      if (points.size() == 0) continue;
      if (points.sampled_from() > 0)
        obs.on_message(fmt::format("{}: {} has {} raw configurations, too many to list: its search draws from a uniform "
                                   "sample of {} valid ones", m.devices[d].info.id(), vs.variant, points.sampled_from(),
                                   points.size()));
      nonempty = true;
      for (std::size_t p = 0; p < space.problems.size(); ++p) m.tasks.push_back({d, p, v, points, nullptr});
    }
    if (on_some_device && !nonempty)
      throw UsageError(fmt::format("{}: variant {}: the constraints leave no valid configuration on any selected device",
                                   vs.pos.str(), vs.variant));
  }
  if (m.tasks.empty()) throw UsageError(fmt::format("{}: no variant runs on the selected devices", space.file));
  // Device-major order, so each device is opened once; strategies keep references into tasks, so
  // they are made only after the vector stops moving.
  std::stable_sort(m.tasks.begin(), m.tasks.end(), [](const Task& a, const Task& b) { return a.device < b.device; });
  // A problem whose buffers cannot fit on a device is refused before its inputs are made.
  for (const auto& t : m.tasks) {
    const DeviceInfo& d = m.devices[t.device].info;
    const Problem& p = space.problems[t.problem];
    const double bytes = m.family->traffic(p).bytes;  // each input and the output once
    if (d.global_mem_bytes > 0 && bytes > static_cast<double>(d.global_mem_bytes))
      throw UsageError(fmt::format("{}: problem {}x{}x{} needs {:.0f} MiB of buffers, more than {} ({}) has ({:.0f} MiB)",
                                   problem_place(space, t.problem), p.width, p.height, p.channels, bytes / 1048576.0,
                                   d.id(), d.name, static_cast<double>(d.global_mem_bytes) / 1048576.0));
  }
  // Inputs and references once per problem; input files are read here, before anything is written.
  for (const auto& p : space.problems) m.workloads.push_back(m.family->make_workload(p));
  // A variant none of whose configurations can launch (every plan() refused) on a device for any of
  // the space's problems is a mistake in the space. One that fits only some problems (a 3-channel
  // kernel beside a 1-channel problem) skips the others, said once each, nothing stored; single
  // impossible configurations of a problem it fits are stored as launch_error.
  // A device that lacks what the variant needs (DeviceLacks) skips it there, said once, nothing stored.
  std::vector<std::string> refusals(m.tasks.size()), lacks(m.tasks.size());
  for (std::size_t k = 0; k < m.tasks.size(); ++k) {
    const Task& t = m.tasks[k];
    std::string first_error;
    bool any = false;
    const std::vector<ParamDecl> params = t.variant->parameters();
    for (std::size_t i = 0; i < t.space.size(); ++i) {
      try {
        const Config c = t.space.config(static_cast<PointId>(i));
        t.variant->plan(PlanContext{space.problems[t.problem], m.workloads[t.problem], c, m.devices[t.device].info, params});
        any = true;
        break;
      } catch (const DeviceLacks& e) {
        lacks[k] = e.what();
        break;
      } catch (const PlanError& e) {
        if (first_error.empty()) first_error = e.what();
      } catch (const std::exception&) {
        any = true;  // the variant's own fault: each configuration is stored as harness_error, tuning goes on
        break;
      }
    }
    if (!any && lacks[k].empty()) refusals[k] = first_error.empty() ? "no configuration" : first_error;
  }
  std::set<std::pair<std::size_t, const Variant*>> said;
  for (std::size_t k = 0; k < m.tasks.size(); ++k) {
    const Task& t = m.tasks[k];
    if (!lacks[k].empty() && said.emplace(t.device, t.variant).second)
      obs.on_message(fmt::format("{}: {} skipped: {}", m.devices[t.device].info.id(), t.variant->name(), lacks[k]));
    if (refusals[k].empty()) continue;
    bool fits_another = false;
    for (std::size_t j = 0; j < m.tasks.size(); ++j)
      fits_another = fits_another || (refusals[j].empty() && m.tasks[j].device == t.device &&
                                      m.tasks[j].variant == t.variant);
    const DeviceInfo& d = m.devices[t.device].info;
    if (!fits_another) {
      const auto vs = std::find_if(space.variants.begin(), space.variants.end(),
                                   [&](const VariantSpace& v) { return v.variant == t.variant->name(); });
      throw UsageError(fmt::format("{}: variant {}: no configuration can launch on {} ({}) for {}: {}", vs->pos.str(),
                                   t.variant->name(), d.id(), d.name, space.problems[t.problem].size(), refusals[k]));
    }
    obs.on_message(fmt::format("{}: {} skips {}: {}", d.id(), t.variant->name(), space.problems[t.problem].label(),
                               refusals[k]));
  }
  std::vector<Task> fitting;
  for (std::size_t k = 0; k < m.tasks.size(); ++k)
    if (refusals[k].empty() && lacks[k].empty()) fitting.push_back(std::move(m.tasks[k]));
  m.tasks = std::move(fitting);
  for (auto& t : m.tasks) {
    t.strategy = strategy->make(t.space, strategy_options, space.strategy.seed);
    m.planned += t.strategy->planned();
  }
  for (const auto& t : m.tasks) {
    auto key = std::make_pair(t.problem, t.variant->validation_rule());
    if (!m.expected.count(key))
      m.expected[key] = m.family->reference(space.problems[t.problem], m.workloads[t.problem], key.second);
  }
}

Tuner::~Tuner() = default;

// Whether the task's configurations are compiled ahead (backends with a precompile pass, strategies that know
// their asks before the outcomes: Strategy::ahead()) and from which source; null: each evaluation compiles its own.
const KernelSource* ahead_source(const Tuner::Impl& m, const Task& t, const std::vector<PointId>& ahead) {
  if (t.variant->native() || ahead.empty()) return nullptr;
  const KernelSource* ks = kernel_source(t.variant->source());
  const Backend& backend = *m.devices[t.device].backend;
  return ks && backend.precompiles() ? ks : nullptr;
}

std::unique_ptr<CompilePipeline> start_pipeline(const Tuner::Impl& m, const Task& t, const DeviceInfo& device,
                                                Store& store, const TaskRows& rows, RunObserver& obs, int threads,
                                                CompilePool* pool) {
  std::vector<PointId> ahead = t.strategy->ahead();  // the whole rest of an exhaustive walk: computed once
  const KernelSource* ks = ahead_source(m, t, ahead);
  if (!ks) return nullptr;
  auto plans = plans_to_compile(t, m.space.problems[t.problem], m.workloads[t.problem], m.opt, device, store, rows, ahead);
  if (std::count_if(plans.begin(), plans.end(), [](const auto& p) { return p.has_value(); }) < 2) return nullptr;
  const Backend& backend = *m.devices[t.device].backend;
  // A compiler that builds one program at a time in a process builds in compile workers (pimg-tune processes, so only
  // where the run starts workers at all: not with --no-isolation); PIMG_COMPILE_WORKERS=0 keeps it on the threads.
  const char* env = std::getenv("PIMG_COMPILE_WORKERS");
  const bool allowed = !(env && std::string(env) == "0");
  const bool workers = device.caps.serial_compiler && m.opt.isolation && allowed;
  CompileElsewhere elsewhere = workers ? compile_workers(m.opt.worker_exe) : CompileElsewhere{};
  auto pipe = pool ? std::make_unique<CompilePipeline>(backend, device, *ks, std::move(plans), *pool, std::move(ahead),
                                                       std::move(elsewhere))
                   : std::make_unique<CompilePipeline>(backend, device, *ks, std::move(plans), std::max(1, threads),
                                                       std::move(ahead), std::move(elsewhere));
  obs.on_message(fmt::format("{} {}: compiling ahead of the measurements on {} threads{}", device.id(),
                             t.variant->name(), pipe->threads(), workers ? ", each in a compile worker process" : ""));
  return pipe;
}

TaskRows begin_task(Tuner::Impl& m, Task& t, const DeviceInfo& device, Store& store, RunObserver& obs,
                    bool compile_now) {
  const Problem& problem = m.space.problems[t.problem];
  const ProblemCost cost{m.family->work(problem), m.family->unit(), m.family->traffic(problem)};
  TaskRows rows;
  rows.device = store.device_id(device);
  rows.problem = store.problem_id(problem, cost);
  const bool native = t.variant->native().has_value();
  const KernelSource* ks = native ? nullptr : kernel_source(t.variant->source());
  PIMG_CHECK(ks || native, "missing kernel source " + t.variant->source());
  rows.variant = store.variant_id({m.family->name(), t.variant->name(), t.variant->backend(),
                                   variant_source_hash(*t.variant), t.variant->baseline()});
  const Backend& backend = *m.devices[t.device].backend;
  if (compile_now && ks)
    if (const std::vector<PointId> ahead = t.strategy->ahead(); ahead_source(m, t, ahead))
      precompile(t, problem, m.workloads[t.problem], m.opt, backend, device, *ks, store, rows.device, rows.problem,
                 rows.variant, ahead, obs);
  if (m.opt.transfer) {
    const auto priors = prior_results(store, device, problem, t.variant->name());
    obs.on_message(fmt::format("{} {}: {}", device.id(), t.variant->name(), priors_note(prior_groups(priors))));
    t.strategy->prior(priors);
  }
  return rows;
}

std::vector<std::pair<std::size_t, Ceiling>> read_ceilings(const Tuner::Impl& m, DeviceSession& session) {
  // A copy of N bytes moves 2N: half of each problem's least traffic. A problem that writes next to nothing also
  // gets the read ceiling at the bytes it reads (Traffic::mostly_read).
  const auto size = [](double bytes) { return std::max<std::size_t>(static_cast<std::size_t>(bytes) / 16 * 16, 64u << 10); };
  std::set<std::size_t> copies, reads;
  for (const Problem& p : m.space.problems) {
    const Traffic traffic = m.family->traffic(p);
    copies.insert(size(traffic.bytes / 2));
    if (traffic.mostly_read()) reads.insert(size(traffic.read()));
  }
  std::vector<std::pair<std::size_t, Ceiling>> out;
  for (std::size_t bytes : copies)
    if (auto c = session.ceiling(bytes, kCeilingRepeats, CeilingKind::copy)) out.emplace_back(bytes, std::move(*c));
  for (std::size_t bytes : reads)
    if (auto c = session.ceiling(bytes, kCeilingRepeats, CeilingKind::read)) out.emplace_back(bytes, std::move(*c));
  return out;
}

void store_ceilings(Store& store, std::int64_t run, std::int64_t device_row, const DeviceInfo& device,
                    const std::vector<std::pair<std::size_t, Ceiling>>& ceilings, RunObserver& obs) {
  for (const auto& [bytes, c] : ceilings) {
    store.save_bandwidth(device_row, static_cast<double>(bytes), c.gbs, run, c.method + "; " + c.how,
                         ceiling_kind_name(c.kind));
    obs.on_message(fmt::format("{} {}: {} ceiling {:.1f} GB/s at {:.1f} MB ({}, {})", device.id(), device.name,
                               ceiling_kind_name(c.kind), c.gbs, static_cast<double>(bytes) / 1e6, c.how, c.method));
  }
}

void measure_ceilings(const Tuner::Impl& m, Store& store, std::int64_t run, std::int64_t device_row,
                      DeviceSession& session, const DeviceInfo& device, RunObserver& obs) {
  store_ceilings(store, run, device_row, device, read_ceilings(m, session), obs);
}

bool same_device(const DeviceInfo& a, const DeviceInfo& b) {
  return a.backend == b.backend && a.name == b.name && a.driver == b.driver && a.platform == b.platform;
}

std::map<std::string, const Variant*> device_variants(const Tuner::Impl& m, std::size_t device) {
  std::map<std::string, const Variant*> variants;
  for (const Task& t : m.tasks)
    if (t.device == device) variants[t.variant->name()] = t.variant;
  return variants;
}

std::unique_ptr<DeviceSession> open_session(const Tuner::Impl& m, const SelectedDevice& sd) {
  const MeasureSpec measure = m.measure.for_device(sd.info.caps);  // the device class's noise target (NoiseTarget)
  return m.opt.isolation && m.measure.isolation ? open_worker(m.opt.worker_exe, *m.family, *sd.backend, sd.info, measure)
                                                : open_in_process(*m.family, *sd.backend, sd.info, measure,
                                                                  m.reg.make_observers(sd.info));
}

std::string current_identity(const Tuner::Impl& m, const Task& t, const Config& c) {
  const Problem& problem = m.space.problems[t.problem];
  LaunchPlan plan;
  try {
    plan = plan_for(*t.variant, problem, m.workloads[t.problem], c, m.devices[t.device].info);
  } catch (const std::exception&) {
    return "";  // a configuration that cannot be planned is stored without an identity
  }
  return plan_identity(plan, variant_source_hash(*t.variant), m.family->reference_version(t.variant->validation_rule()));
}

bool tell_if_stored(const Tuner::Impl& m, Task& t, PointId p, const TaskRows& rows, Store& store, RunObserver& obs,
                    TuneSummary& summary) {
  const Config c = t.space.config(p);
  const auto stored = store.find(rows.device, rows.problem, rows.variant, c);
  if (!keeps(m.opt, stored)) return false;
  // A row made by other code (another plan, build or reference) is not this configuration's result.
  if (stored->result.identity != current_identity(m, t, c)) return false;
  t.strategy->observe(p, {stored->result.status, stored->result.kernel.median});
  note_for_race(m, t, stored->result);
  ++summary.skipped;
  obs.on_result({&m.devices[t.device].info, &m.space.problems[t.problem], t.variant, &c, &stored->result, true});
  return true;
}

bool claim_unstored(const Tuner::Impl& m, Task& t, PointId p, const TaskRows& rows, Store& store, RunObserver& obs,
                    TuneSummary& summary) {
  const Config c = t.space.config(p);
  // Another tuner on this database is measuring it: wait for its result, saying for whom, and give up after
  // lease_wait_s() (a tuner stopped with Ctrl-Z keeps its claims; the run ends and can be resumed later).
  Store::LeaseHolder holder;
  const auto since = std::chrono::steady_clock::now();
  for (bool said = false; !store.claim(rows.device, rows.problem, rows.variant, c, &holder);) {
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
    if (!said) {
      obs.on_message(fmt::format("{} {}: another tuner ({}, claimed {:.0f} s ago) is measuring it; waiting for its "
                                 "result, at most {:.0f} s",
                                 t.variant->name(), c.brief(), holder.who, holder.age_s, lease_wait_s()));
      said = true;
    }
    if (waited > lease_wait_s())
      throw EnvironmentError(fmt::format("{} {} is claimed by another tuner on {} ({}, claimed {:.0f} s ago), which "
                                         "did not store it within {:.0f} s: is it stopped?",
                                         t.variant->name(), c.brief(), store.path(), holder.who, holder.age_s,
                                         lease_wait_s()));
    std::this_thread::sleep_for(std::chrono::milliseconds(kLeasePollMs));
  }
  if (!tell_if_stored(m, t, p, rows, store, obs, summary)) return true;
  store.release(rows.device, rows.problem, rows.variant, c);
  return false;
}

EvalResult evaluate_point(const Tuner::Impl& m, const Task& t, DeviceSession& session, const Config& c) {
  const auto& expected = m.expected.at({t.problem, t.variant->validation_rule()});
  const EvalJob job{m.space.problems[t.problem], m.workloads[t.problem], expected, *t.variant, c, race_bar(m, t)};
  // A result the supervisor made itself (the worker died or hung before answering) carries the identity
  // the configuration has, so resume knows it as this code's.
  auto identified = [&](EvalResult r) {
    if (r.identity.empty()) r.identity = current_identity(m, t, c);
    return r;
  };
  EvalResult r = session.evaluate(job);
  if (!environment_cause(r)) return identified(std::move(r));
  // A fault of the machine: measured once more (a dead worker is replaced by a fresh one); what
  // persists is stored as env_error, which resume measures again.
  EvalResult again = session.evaluate(job);
  const auto cause = environment_cause(again);
  return identified(cause ? as_environment_fault(std::move(again), *cause) : std::move(again));
}

void record(const Tuner::Impl& m, Task& t, PointId p, const Config& c, const EvalResult& r, const TaskRows& rows,
            Store& store, RunObserver& obs, TuneSummary& summary) {
  store.save(summary.run_id, rows.device, rows.problem, rows.variant, c, r);
  t.strategy->observe(p, {r.status, r.kernel.median});
  note_for_race(m, t, r);
  ++summary.measured;
  (r.status == Status::ok ? summary.ok : summary.failed)++;
  obs.on_result({&m.devices[t.device].info, &m.space.problems[t.problem], t.variant, &c, &r, false});
}

void end_device(const Tuner::Impl& m, std::size_t device, std::unique_ptr<DeviceSession>& session, Store& store,
                TuneSummary& summary, RunObserver& obs, bool confirm, bool cold) {
  if (confirm && !m.opt.ladder_only) confirm_device(m, device, session, store, summary, obs);
  ladder_device(m, device, *session, store, summary, obs);
  if (m.opt.ladder_only) return;
  if (cold) cold_stage(m, device, store, summary, obs);
  picture_stage(m, device, store, obs);
}

std::size_t Tuner::planned() const { return impl_->planned; }

TuneSummary Tuner::run(Store& store, RunObserver& obs) {
  Impl& m = *impl_;
  TuneSummary summary;
  summary.run_id = store.begin_run(this_run(m.opt.command_line));
  obs.on_start(m.planned);
  std::unique_ptr<DeviceSession> session;
  std::unique_ptr<WarmPass> warm;  // the open device's warm-pass workers, where it takes the pass
  std::unique_ptr<CompilePool> compile_pool;  // the open device's: made before its tasks' pipelines, outlives them
  std::size_t open_index = m.devices.size();
  for (auto& t : m.tasks) {
    const SelectedDevice& sd = m.devices[t.device];
    if (open_index != t.device) {
      warm.reset();
      compile_pool.reset();  // its threads' device contexts and compile workers are not kept through the stages
      if (session) end_device(m, open_index, session, store, summary, obs);
      session.reset();  // one device open at a time
      session = open_session(m, sd);
      if (WarmPass::applies(m, sd)) warm = std::make_unique<WarmPass>(m, sd);
      open_index = t.device;
      // The ladder alone reads no ceiling (the report's Ladders section prints times and speed-ups only).
      if (!m.opt.ladder_only)
        measure_ceilings(m, store, summary.run_id, store.device_id(sd.info), *session, sd.info, obs);
    }
    if (m.opt.ladder_only) continue;
    // A device that computes on the host's cores (OpenMP, a CPU OpenCL device) would measure the compilers
    // beside its kernels: there the task's programs are compiled on every core before its first measurement,
    // and none while it measures.
    const bool on_cpu = sd.info.caps.host_cores;
    const TaskRows rows = begin_task(m, t, sd.info, store, obs, on_cpu && !warm);
    if (warm) warm->run(t, store, rows, obs);
    // The device's compile threads, a core left to the measuring worker, are made once: what they keep from one task
    // to the next (a device context, a compile worker process) is not made again for every task.
    if (!on_cpu && !compile_pool) compile_pool = std::make_unique<CompilePool>(compile_threads() - 1);
    const std::unique_ptr<CompilePipeline> pipeline =
        on_cpu ? nullptr : start_pipeline(m, t, sd.info, store, rows, obs, 0, compile_pool.get());
    auto t_last = std::chrono::steady_clock::now();  // the end of the previous evaluation
    while (auto p = t.strategy->ask()) {
      if (m.opt.resume && tell_if_stored(m, t, *p, rows, store, obs, summary)) continue;
      const Config config = t.space.config(*p);
      if (m.opt.resume && !claim_unstored(m, t, *p, rows, store, obs, summary)) continue;
      // Where the configuration's wall time goes besides the executor's time.* metrics (docs/design.md): the
      // wait for its compile ahead, the session's round trip, and the tuner's own work since the last one.
      const double waited = pipeline ? pipeline->wait(*p) : 0;
      const auto t_eval = std::chrono::steady_clock::now();
      EvalResult r = evaluate_point(m, t, *session, config);
      const auto t_done = std::chrono::steady_clock::now();
      const auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
      set_metric(r.metrics, "time.compile_wait_ms", "ms", waited);
      if (pipeline) {  // what compiling this configuration ahead cost (0: cached, or another's program)
        const CompilePipeline::Cost c = pipeline->cost(*p);
        set_metric(r.metrics, "time.ahead_compile_ms", "ms", c.wall_ms);
        set_metric(r.metrics, "time.ahead_compile_cpu_ms", "ms", c.cpu_ms);
      }
      set_metric(r.metrics, "time.session_ms", "ms", ms(t_eval, t_done));
      set_metric(r.metrics, "time.tuner_ms", "ms", std::max(0.0, ms(t_last, t_eval) - waited));
      record(m, t, *p, config, r, rows, store, obs, summary);
      if (m.opt.resume) store.release(rows.device, rows.problem, rows.variant, config);
      t_last = std::chrono::steady_clock::now();
    }
    if (pipeline && pipeline->compiled() > 0) {
      const CompilePipeline::Totals c = pipeline->totals();
      obs.on_message(fmt::format("{} {}: {} programs compiled ahead on {} threads: {:.1f} s of compiles ({:.1f} CPU-s "
                                 "on their threads) in {:.1f} s",
                                 sd.info.id(), t.variant->name(), pipeline->compiled(), pipeline->threads(),
                                 c.compile_ms / 1000, c.cpu_ms / 1000, c.elapsed_ms / 1000));
    }
  }
  warm.reset();
  compile_pool.reset();
  if (session) end_device(m, open_index, session, store, summary, obs);
  obs.on_finish();
  return summary;
}

}  // namespace pimg
