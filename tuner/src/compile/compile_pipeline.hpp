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
class CompileWorker;

// A host's compile threads, shared by the pipelines of a run's tasks (the sequential runner's, one device's tasks
// after another; the distributed runner's, several tasks' compiles begun at once): each thread takes the next plan of the oldest pipeline that has one left (the task measured
// first), so pipelines begun ahead never add threads beyond the pool's; a thread keeps what a backend keeps per
// thread (an OpenCL context), or its compile worker process (a pipeline's `worker_exe`), from one task to the next.
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
  // strategy's asks, Strategy::ahead(); empty: index order). With `worker_exe` (a pimg-tune), each thread hands its
  // plans to a compile worker process of its own (`worker_exe compile-worker`, workers/compile_worker.hpp), for a
  // device whose compiler builds one program at a time within a process (DeviceCaps::serial_compiler).
  CompilePipeline(const Backend& backend, DeviceInfo device, KernelSource source,
                  std::vector<std::optional<LaunchPlan>> plans, int threads, std::vector<PointId> order = {},
                  std::string worker_exe = "");
  // The same on the threads of `pool`, shared with the other pipelines begun on it.
  CompilePipeline(const Backend& backend, DeviceInfo device, KernelSource source,
                  std::vector<std::optional<LaunchPlan>> plans, CompilePool& pool, std::vector<PointId> order = {},
                  std::string worker_exe = "");
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
  // milliseconds (its compile worker's, every thread of that process, where it has one); 0 for a plan found in the
  // cache or compiled by another plan of the same program.
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
  void compile(std::size_t k, CompileWorker* worker);  // the k-th plan in order, in `worker` where not null
  std::string program(std::size_t k) const;  // what identifies the k-th plan's program ("": nothing to compile)
  const Backend& backend_;
  const DeviceInfo device_;
  const KernelSource source_;
  const std::vector<std::optional<LaunchPlan>> plans_;
  const std::string worker_exe_;  // empty: compiled on the pool's threads in this process
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
