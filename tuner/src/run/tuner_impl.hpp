// The runners' shared inside (not installed): what a Tuner prepares once, and the steps every way of
// running it takes (the sequential runner in runner.cpp, the distributed one in distributed_runner.cpp).
#pragma once
#include <cstdlib>
#include <cstdint>
#include <array>
#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <thread>
#include <utility>
#include <vector>

#include "pimg/isolation.hpp"
#include "pimg/registry.hpp"
#include "pimg/runner.hpp"
#include "pimg/search_space.hpp"
#include "pimg/store.hpp"
#include "pimg/strategy.hpp"

// The run's identity in the store (tuner/CMakeLists.txt defines the version and generates git_commit()).
#ifndef PIMG_VERSION
#define PIMG_VERSION "0"
#endif

namespace pimg {

// One strategy's walk: a variant on a device for a problem.
struct Task {
  std::size_t device = 0, problem = 0;
  const Variant* variant = nullptr;
  SearchSpace space;
  std::unique_ptr<Strategy> strategy;
};

struct Tuner::Impl {
  Impl(const Registry& r, const Space& s, const TuneOptions& o) : reg(r), space(s), opt(o) {}
  const Registry& reg;
  const Space& space;
  TuneOptions opt;
  const Family* family = nullptr;
  MeasureSpec measure;
  std::vector<SelectedDevice> devices;
  std::vector<Task> tasks;
  std::vector<Workload> workloads;
  std::map<std::pair<std::size_t, std::string>, std::vector<std::uint8_t>> expected;  // (problem, rule)
  std::size_t planned = 0;
  // Racing (MeasureSpec::race): per (device, problem), the lowest upper end of an ok search row's median interval
  // so far, this run's or resumed; what later configurations race against.
  mutable std::map<std::pair<std::size_t, std::size_t>, double> race_bars;
};

// A search result of task t the race bar learns from (record, tell_if_stored).
inline void note_for_race(const Tuner::Impl& m, const Task& t, const EvalResult& r) {
  if (r.status != Status::ok || (r.stage != "search" && r.stage != "confirm") || !(r.ci_high_ms > 0)) return;
  double& bar = m.race_bars[{t.device, t.problem}];
  if (bar == 0 || r.ci_high_ms < bar) bar = r.ci_high_ms;
}
// The bar task t's next configuration races against; 0 (no racing) before any result or with racing off.
inline double race_bar(const Tuner::Impl& m, const Task& t) {
  if (!(m.measure.race > 0)) return 0;
  const auto bar = m.race_bars.find({t.device, t.problem});
  return bar == m.race_bars.end() ? 0 : bar->second;
}


// Stored results of this variant on other problems or devices: prior knowledge for strategies.
std::vector<PriorResult> prior_results(const Store& store, const DeviceInfo& device, const Problem& problem,
                                       const std::string& variant);

// A strategy that visits the whole space: compile every configuration still to measure on all cores
// first (backends with a precompile pass: CUDA), so each evaluation loads its program from the cache.
void precompile(const Task& t, const Problem& problem, const Workload& workload, const TuneOptions& opt,
                const Backend& backend, const DeviceInfo& device, const KernelSource& source, Store& store,
                std::int64_t device_row, std::int64_t problem_row, std::int64_t variant_row,
                const std::vector<PointId>& ahead, RunObserver& obs);

// Threads (and warm-pass workers) that compile ahead: one per core.
int compile_threads();
struct TaskRows;
// Every configuration of task t still to measure, planned (nullopt where the plan fails: its evaluation stores why).
std::vector<std::optional<LaunchPlan>> plans_to_compile(const Task& t, const Problem& problem, const Workload& workload,
                                                        const TuneOptions& opt, const DeviceInfo& device, Store& store,
                                                        const TaskRows& rows, const std::vector<PointId>& ahead);
class CompilePipeline;
class CompilePool;
// The task's configurations still to measure compiled ahead, in the order its strategy will ask for them
// (compile_pipeline.hpp), on `threads` threads of its own or, given a pool, on the pool's; null where
// ahead_source() is null or fewer than two are to compile.
std::unique_ptr<CompilePipeline> start_pipeline(const Tuner::Impl& m, const Task& t, const DeviceInfo& device,
                                                Store& store, const TaskRows& rows, RunObserver& obs, int threads,
                                                CompilePool* pool = nullptr);
// Whether the task's configurations are compiled ahead (backends with a precompile pass, strategies that know their
// asks before the outcomes: `ahead`, its Strategy::ahead(), not empty) and from which source; null: each evaluation
// compiles its own.
const KernelSource* ahead_source(const Tuner::Impl& m, const Task& t, const std::vector<PointId>& ahead);

// Whether resume keeps a stored evaluation (skips its configuration): not an env_error, nor of a
// status named by --retry-failed.
bool keeps(const TuneOptions& opt, const std::optional<ResultRow>& stored);

// A task's rows in the store, its programs compiled ahead where the strategy visits the whole
// space, and its strategy given the stored results of other problems and devices.
struct TaskRows {
  std::int64_t device = 0, problem = 0, variant = 0;
};
// `compile_now`: compile every configuration ahead before returning (the distributed runner); the
// sequential runner passes false and compiles them in a pipeline beside its measurements instead.
TaskRows begin_task(Tuner::Impl& m, Task& t, const DeviceInfo& device, Store& store, RunObserver& obs,
                    bool compile_now = true);

// Resume: when configuration p of task t is stored, its outcome is told to the strategy and reported as
// skipped (true); false when it is not stored.
bool tell_if_stored(const Tuner::Impl& m, Task& t, PointId p, const TaskRows& rows, Store& store, RunObserver& obs,
                    TuneSummary& summary);
// Resume with other tuners on the database: claims configuration p of task t (waiting while another
// live tuner holds it), then true when it is still to be measured; false when it was stored
// meanwhile (told to the strategy and reported as skipped, the claim dropped).
inline constexpr int kLeasePollMs = 100;
// How long a tuner waits for another tuner's claim on a configuration before the run ends (seconds): 600, or
// PIMG_LEASE_WAIT_S (tests shorten it).
inline double lease_wait_s() {
  if (const char* env = std::getenv("PIMG_LEASE_WAIT_S"); env && *env) {
    const double v = std::strtod(env, nullptr);
    if (v > 0 && v <= 86400) return v;
  }
  return 600;
}
bool claim_unstored(const Tuner::Impl& m, Task& t, PointId p, const TaskRows& rows, Store& store, RunObserver& obs,
                    TuneSummary& summary);
// Configuration c of task t measured on an opened device, validated against the task's reference. A
// failure whose cause lies outside the configuration is measured once more, then stored as env_error.
EvalResult evaluate_point(const Tuner::Impl& m, const Task& t, DeviceSession& session, const Config& c);
// A measured configuration p (c): stored in its own transaction, told to the strategy, counted, reported.
void record(const Tuner::Impl& m, Task& t, PointId p, const Config& c, const EvalResult& r, const TaskRows& rows,
            Store& store, RunObserver& obs, TuneSummary& summary);

// The device's bandwidth ceilings at the working-set sizes of the space's problems, measured at the start
// of every run on the device and stored with the run.
// In two halves for a caller that measures on one thread and stores on another: read_ceilings measures on the
// session, store_ceilings stores what it measured and reports it.
std::vector<std::pair<std::size_t, Ceiling>> read_ceilings(const Tuner::Impl& m, DeviceSession& session);
void store_ceilings(Store& store, std::int64_t run, std::int64_t device_row, const DeviceInfo& device,
                    const std::vector<std::pair<std::size_t, Ceiling>>& ceilings, RunObserver& obs);
void measure_ceilings(const Tuner::Impl& m, Store& store, std::int64_t run, std::int64_t device_row,
                      DeviceSession& session, const DeviceInfo& device, RunObserver& obs);

// Whether two devices are one row of the store's devices table (backend, name, driver, platform).
bool same_device(const DeviceInfo& a, const DeviceInfo& b);
// The variants of the tasks on one device, by name.
std::map<std::string, const Variant*> device_variants(const Tuner::Impl& m, std::size_t device);

// The confirmation stage for every problem on one device (confirm_runner.cpp, docs/measurement.md): the top
// configurations of the search and every baseline measured again in interleaved rounds, in measure.confirm.sessions
// sessions, and more up to max_sessions for a problem whose sessions disagree (confirm_decisive_spread; `session` is
// replaced by a fresh one for each after the first and stays open), each candidate's sessions pooled into one row
// with stage "confirm".
void confirm_device(const Tuner::Impl& m, std::size_t device, std::unique_ptr<DeviceSession>& session, Store& store,
                    TuneSummary& summary, RunObserver& obs);
// How many of `tuned` (the ok search rows of one problem and device, fastest median first) the stage measures
// (docs/measurement.md, "The confirmation stage"): of the top spec.top, those that could still be tied with the
// fastest, then every further one within spec.within of it; at most spec.max, at least one.
std::size_t confirm_candidates_count(const std::vector<const ResultRow*>& tuned, const ConfirmSpec& spec);
// After a round of the confirmation stage: the count of `tuned` (fastest first, `kept` of them confirmed) whose
// search interval's lower end (else median) is within `within`, or within the best's session spread (how far its
// median moved between the stage's sessions) where that is larger, of the upper end of the confirmed best's pooled
// interval, `confirmed_high_ms`, at most `max`; `kept` when none is. What lies within the spread could be tied
// (pimg::tied), so it is confirmed. The search's order is no better than the
// confirmed interval: on a device whose processes differ more than one process's runs (PoCL's medians moved
// 15% between processes with 1% intervals within each), a row the first round left out could be tied too.
std::size_t confirm_widened_count(const std::vector<const ResultRow*>& tuned, std::size_t kept,
                                  double confirmed_high_ms, double session_spread, const ConfirmSpec& spec);
// How far one problem's confirmation sessions disagree where its answer is decided: the largest session spread
// (largest session median over smallest, minus one) of its winner (the fastest pooled of the first `kept`, the tuned
// candidates), of any tuned candidate within spec.within of the winner's pooled median, and of every baseline (the
// candidates after `kept`, whose ratios are reported). `sessions`: one result per candidate from each session; 0
// with fewer than two sessions. Above kSettleSpread, the stage confirms that problem in further sessions, up to
// spec.max_sessions in all (docs/measurement.md, "More sessions where they disagree").
double confirm_decisive_spread(const std::vector<std::vector<EvalResult>>& sessions, std::size_t kept,
                               const ConfirmSpec& spec);
// The whole-program stage on one device (pimg/cold_run.hpp): the top measure.cold.top configurations of each
// problem (confirmation-stage ranking where there is one) run once each in a fresh process, stored with stage
// "cold"; with resume, one whose cold row of the same identity is stored is not run again. Called after
// confirm_device().
void cold_stage(const Tuner::Impl& m, std::size_t device, Store& store, TuneSummary& summary, RunObserver& obs);
// The `top` ok rows of `problem` on `device` among `rows` whose variant is in `variants`, fastest first: the
// confirmation stage's where it ran, else the search's.
std::vector<const ResultRow*> top_rows(const std::vector<ResultRow>& rows, const DeviceInfo& device,
                                       const Problem& problem, const std::map<std::string, const Variant*>& variants,
                                       int top);
// The picture stage on one device (picture_stage.cpp, with TuneOptions::pictures_dir set and a family whose
// output is a picture): per problem, the input, the best configuration's output and, for up to
// kWrongPictures configurations stored as wrong_result, their output and its difference from the reference,
// as PNG files with thumbnails, listed in the directory's pictures.tsv. Each output comes from a cold run
// of its configuration (a fresh process), so a failing kernel cannot harm the tuner. Called after cold_stage().
inline constexpr int kWrongPictures = 2;
void picture_stage(const Tuner::Impl& m, std::size_t device, Store& store, RunObserver& obs);
// The stages after a device's search (the sequential and the distributed runner): confirmation, the ladder, whole
// programs, pictures; the ladder alone with --ladder-only. `confirm` and `cold` false leave the confirmation and the
// whole programs out (the distributed runner has run them on its ranks, confirm_jobs.hpp, cold_jobs.hpp).
void end_device(const Tuner::Impl& m, std::size_t device, std::unique_ptr<DeviceSession>& session, Store& store,
                TuneSummary& summary, RunObserver& obs, bool confirm = true, bool cold = true);
// The space's ladder on one device (ladder_runner.cpp): its steps that run there, per problem, measured by
// the confirmation stage's method and stored with stage "ladder" and their step (Store::save_ladder_step).
void ladder_device(const Tuner::Impl& m, std::size_t device, DeviceSession& session, Store& store,
                   TuneSummary& summary, RunObserver& obs);
// The warm pass on one device (warm_pass.cpp; DeviceCaps::compiles_at_first_launch): before a task is measured, one
// configuration of each of its programs (and work-group sizes) is built and launched once in worker processes, one
// per core, kept open for the device's tasks. Nothing is stored; a worker that fails leaves its share to the
// evaluations.
class WarmPass {
 public:
  WarmPass(const Tuner::Impl& m, const SelectedDevice& sd);
  ~WarmPass();
  // Whether the device takes the pass: its compiler finishes programs at their first launch, and evaluations run in
  // workers (with --no-isolation there is no other process to build in).
  static bool applies(const Tuner::Impl& m, const SelectedDevice& sd);
  // Programs per lane (worker process) at least: fewer do not repay a worker's start.
  static constexpr std::size_t kProgramsPerLane = 4;
  // Task t's programs still to measure, where the strategy visits the whole space; how many were warmed.
  std::size_t run(const Task& t, Store& store, const TaskRows& rows, RunObserver& obs);

 private:
  // A program and work-group size: entry, defines, options, local size.
  using Key = std::tuple<std::string, std::vector<std::pair<std::string, std::string>>, std::vector<std::string>,
                         std::array<std::size_t, 3>>;
  void lane();
  const Tuner::Impl& m_;
  const SelectedDevice& sd_;
  MeasureSpec measure_;
  std::vector<std::thread> lanes_;  // one worker process each, kept for the device's tasks
  std::mutex mutex_;
  std::condition_variable wake_, finished_;
  bool closing_ = false;
  std::uint64_t generation_ = 0;  // one per run(): the lanes take its batch
  std::size_t done_ = 0;          // lanes through the current batch
  std::vector<Config> batch_;
  std::vector<Key> batch_keys_;
  std::set<Key> warm_;  // launched ok on this device
  const Problem* problem_ = nullptr;
  const Workload* workload_ = nullptr;
  const std::vector<std::uint8_t>* expected_ = nullptr;
  const Variant* variant_ = nullptr;
  std::atomic<std::size_t> next_{0}, failed_{0};
};

// The device opened for evaluations: in a supervised worker process, or in this one with
// --no-isolation or the space's measure.isolation off.
std::unique_ptr<DeviceSession> open_session(const Tuner::Impl& m, const SelectedDevice& sd);

std::string utc_now();
std::string hostname();
const char* git_commit();  // generated at build time (cmake/git_commit.cmake)


}  // namespace pimg
