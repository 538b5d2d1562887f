// Compilation ahead of measurement (docs/design.md, "Compiling ahead: a pipeline"): a pool of threads
// compiles the plans of one task's configurations, in the order the strategy will ask for them, into the
// backend's disk cache (Backend::precompile, one plan per call) while the device measures the configurations
// already compiled; the runner waits for a configuration's compile just before evaluating it, and the
// evaluation loads it from the cache. Strategy, backend and runner stay apart: the pipeline knows only
// plans, and the runner only when a point is ready.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "pimg/backend.hpp"
#include "pimg/search_space.hpp"

namespace pimg {

class CompilePipeline;

// Where a pool thread compiles a pipeline's plans when not on the thread itself: in a compile worker process of its own
// (workers/compile_worker.hpp) for a device whose compiler builds one program at a time within a process
// (DeviceCaps::serial_compiler). A pool thread makes one at its first plan of such a pipeline and keeps it.
class PlanCompiler {
 public:
  virtual ~PlanCompiler() = default;
  struct Done {
    std::size_t compiled = 0;  // programs built (0: found in the cache, or the build failed)
    double cpu_ms = 0;         // the CPU time it took, every thread that worked on it
  };
  // nullopt: not compiled here (the compiler died or hung): the plan is left for compile() to report, as a failed
  // precompile on the thread leaves it.
  virtual std::optional<Done> compile(const DeviceInfo& device, const KernelSource& source, const LaunchPlan& plan) = 0;
  // True once it cannot compile at all (a worker that cannot be started): the thread compiles the plans itself.
  virtual bool unavailable() const = 0;
};

// A pipeline's compilers elsewhere: `make` gives a pool thread its compiler; a thread keeps it for the next plans of
// pipelines with the same `key`. An empty key: the plans are compiled on the pool's threads.
struct CompileElsewhere {
  std::string key;
  std::function<std::unique_ptr<PlanCompiler>()> make;
};

// A host's compile threads, shared by the pipelines of a run's tasks (the sequential runner's, one device's tasks
// after another; the distributed runner's, several tasks' compiles begun at once): each thread takes the next plan of the oldest pipeline that has one left (the task measured
// first), so pipelines begun ahead never add threads beyond the pool's; a thread keeps what a backend keeps per
// thread (an OpenCL context), or its PlanCompiler (a compile worker process), from one task to the next.
class CompilePool {
 public:
  explicit CompilePool(int threads);
  ~CompilePool();  // after every pipeline using it
  CompilePool(const CompilePool&) = delete;
  CompilePool& operator=(const CompilePool&) = delete;
  int threads() const { return static_cast<int>(pool_.size()); }
  // Whether no compile is in flight and no pipeline on the pool has a plan left (until another one is begun).
  bool idle();

 private:
  friend class CompilePipeline;
  void add(CompilePipeline* p);
  void remove(CompilePipeline* p);  // waits for p's compiles in flight
  void work();
  std::mutex mu_;
  std::condition_variable work_, ended_;
  std::vector<CompilePipeline*> pipes_;  // oldest first
  std::map<CompilePipeline*, int> in_flight_;
  // The programs a thread is building (CompilePipeline::program()): a thread handed a plan of one of them waits
  // until it is built and then finds it in the disk cache, rather than build it a second time beside the first.
  // Pipelines begun at once share many programs (a filter's every image size); on 4 GPUs, before this, 212 of
  // NVIDIA's OpenCL programs were built where 82 were distinct, in a compiler that builds one at a time.
  std::set<std::string> building_;
  std::condition_variable built_;
  bool stop_ = false;
  std::vector<std::thread> pool_;
};

class CompilePipeline {
 public:
  // Starts `threads` threads of its own over `plans` (index = the strategy's PointId; nullopt: nothing to compile,
  // such as a stored configuration or one that cannot be planned), each taking the next plan in `order` (the
  // strategy's asks, Strategy::ahead(); empty: index order). With `elsewhere`, each thread hands its plans to a
  // compiler of its own (a compile worker process: workers/compile_worker.hpp's compile_workers()).
  CompilePipeline(const Backend& backend, DeviceInfo device, KernelSource source,
                  std::vector<std::optional<LaunchPlan>> plans, int threads, std::vector<PointId> order = {},
                  CompileElsewhere elsewhere = {});
  // The same on the threads of `pool`, shared with the other pipelines begun on it.
  CompilePipeline(const Backend& backend, DeviceInfo device, KernelSource source,
                  std::vector<std::optional<LaunchPlan>> plans, CompilePool& pool, std::vector<PointId> order = {},
                  CompileElsewhere elsewhere = {});
  ~CompilePipeline();  // stops taking plans, waits for the compiles in flight
  CompilePipeline(const CompilePipeline&) = delete;
  CompilePipeline& operator=(const CompilePipeline&) = delete;

  // Blocks until plan `index` is compiled (or has nothing to compile); returns the milliseconds waited.
  double wait(std::size_t index);
  // Whether plan `index` is compiled (or has nothing to compile), without waiting.
  bool ready(std::size_t index) const;
  // Whether every plan has been taken by a thread: the pool's threads fall idle as their last compiles end.
  bool drained() const { return next_.load() >= order_.size(); }
  std::size_t compiled() const { return compiled_.load(); }  // programs the pool compiled (not cached before)
  int threads() const { return pool_->threads(); }
  // What compiling plan `index` cost the thread that did it (after wait(index)): wall and that thread's CPU
  // milliseconds (its PlanCompiler's, where it has one: every thread of a compile worker's process); 0 for a plan
  // found in the cache or compiled by another plan of the same program.
  struct Cost {
    double wall_ms = 0, cpu_ms = 0;
  };
  Cost cost(std::size_t index) const;
  // The pool's totals so far: its compiles' wall and CPU milliseconds summed over threads, and the wall
  // milliseconds since it started.
  struct Totals {
    double compile_ms = 0, cpu_ms = 0, elapsed_ms = 0;
  };
  Totals totals() const;

 private:
  friend class CompilePool;
  void start();
  void compile(std::size_t k, PlanCompiler* elsewhere);  // the k-th plan in order, there where not null
  std::string program(std::size_t k) const;  // what identifies the k-th plan's program ("": nothing to compile)
  const Backend& backend_;
  const DeviceInfo device_;
  const KernelSource source_;
  const std::vector<std::optional<LaunchPlan>> plans_;
  const CompileElsewhere elsewhere_;  // key empty: compiled on the pool's threads
  std::vector<PointId> order_;  // the plans' indices in the order they are taken
  std::vector<char> done_;
  std::vector<Cost> costs_;
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::atomic<std::size_t> next_{0}, compiled_{0};  // next_: taken by the pool's threads, under its lock
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::unique_ptr<CompilePool> own_;  // the pool of a pipeline with threads of its own
  CompilePool* pool_ = nullptr;
};

}  // namespace pimg
