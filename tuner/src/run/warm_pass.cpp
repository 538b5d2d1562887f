// The warm pass (DeviceCaps::compiles_at_first_launch; docs/design.md, "Compiling ahead"): on a device whose
// compiler builds one program at a time within a process and finishes a program only at its first launch, a
// task's programs are built and launched once in worker processes, one per core, before the worker that
// measures sees them. The compiles then run side by side instead of in line behind one lock, and the code
// generation of the first launch lands in the driver's own cache instead of in a measured evaluation's time.
// Nothing of the pass is stored: the evaluations that follow measure, validate and store every configuration as
// before, and a configuration that fails here fails there again with its reason.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>

#include "pimg/isolation.hpp"
#include "run/tuner_impl.hpp"

namespace pimg {

WarmPass::WarmPass(const Tuner::Impl& m, const SelectedDevice& sd) : m_(m), sd_(sd) {
  // One run of each program, hot and unraced: a launch is what the pass is for, not a time.
  measure_ = m.measure.for_device(sd.info.caps);
  measure_.warmups = 0;
  measure_.repeats = measure_.max_repeats = 1;
  measure_.timing.cold = false;
  measure_.energy_s = 0;
  measure_.race = 0;
}

WarmPass::~WarmPass() {
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
  }
  wake_.notify_all();
  for (auto& l : lanes_) l.join();
}

bool WarmPass::applies(const Tuner::Impl& m, const SelectedDevice& sd) {
  return sd.info.caps.compiles_at_first_launch && m.opt.isolation && m.measure.isolation;
}

// A lane's thread: its worker is started, and restarted after a crash, on this thread, which lives as long as the
// pass (a worker dies with the thread that started it: PR_SET_PDEATHSIG).
void WarmPass::lane() {
  std::unique_ptr<DeviceSession> worker;
  std::uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return closing_ || generation_ != seen; });
      if (closing_) return;
      seen = generation_;
    }
    try {
      if (!worker) worker = open_worker(m_.opt.worker_exe, *m_.family, *sd_.backend, sd_.info, measure_);
      for (std::size_t i = next_++; i < batch_.size(); i = next_++) {
        const EvalJob job{*problem_, *workload_, *expected_, *variant_, batch_[i], 0};
        if (worker->evaluate(job).status == Status::ok) {
          std::lock_guard lock(mutex_);
          warm_.insert(batch_keys_[i]);
        } else {
          ++failed_;
        }
      }
    } catch (const std::exception&) {
      // A worker that cannot start or answer leaves its share to the other lanes, and what is left to the
      // evaluations, which report it.
      worker.reset();
    }
    {
      std::lock_guard lock(mutex_);
      ++done_;
    }
    finished_.notify_all();
  }
}

std::size_t WarmPass::run(const Task& t, Store& store, const TaskRows& rows, RunObserver& obs) {
  const std::vector<PointId> ahead = t.strategy->ahead();
  if (!ahead_source(m_, t, ahead)) return 0;
  const Problem& problem = m_.space.problems[t.problem];
  const Workload& workload = m_.workloads[t.problem];
  // One configuration per program and work-group size: the driver generates code per size, and configurations
  // that differ only in what their plans set at run time share both.
  // A program an earlier task of the device warmed (the same variant on another problem size) is warm already.
  std::set<Key> seen;
  std::vector<Config> configs;
  std::vector<Key> keys;
  const auto plans = plans_to_compile(t, problem, workload, m_.opt, sd_.info, store, rows, ahead);
  for (std::size_t i = 0; i < plans.size(); ++i) {
    if (!plans[i]) continue;
    Key key{plans[i]->entry, plans[i]->defines, plans[i]->options, plans[i]->local};
    if (warm_.count(key) || !seen.insert(key).second) continue;
    configs.push_back(t.space.config(static_cast<PointId>(i)));
    keys.push_back(std::move(key));
  }
  if (configs.empty()) return 0;
  // A lane costs a worker's start (a process and the driver's start, about a second for PoCL) once per device, the
  // price of some 4-8 first launches: a lane per kProgramsPerLane programs, one per core at most, and none where
  // that leaves fewer than two (one lane moves the work without sharing it).
  const std::size_t n = std::min(configs.size() / kProgramsPerLane, static_cast<std::size_t>(compile_threads()));
  if (n < 2 && lanes_.size() < 2) return 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t k = lanes_.size(); k < std::max<std::size_t>(n, 2); ++k)
    lanes_.emplace_back(&WarmPass::lane, this);
  {
    std::lock_guard lock(mutex_);
    batch_ = std::move(configs);
    batch_keys_ = std::move(keys);
    problem_ = &problem;
    workload_ = &workload;
    expected_ = &m_.expected.at({t.problem, t.variant->validation_rule()});
    variant_ = t.variant;
    next_ = 0;
    failed_ = 0;
    done_ = 0;
    ++generation_;
  }
  wake_.notify_all();
  std::unique_lock lock(mutex_);
  finished_.wait(lock, [&] { return done_ == lanes_.size(); });
  const std::size_t warmed = std::min(next_.load(), batch_.size());
  obs.on_message(fmt::format("{} {}: {} programs built and launched once in {} worker processes in {:.1f} s{}",
                             sd_.info.id(), t.variant->name(), warmed, lanes_.size(),
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                             failed_ ? fmt::format(" ({} did not run; their evaluations say why)", failed_.load()) : ""));
  return warmed;
}

}  // namespace pimg
