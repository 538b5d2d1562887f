// Compiling in processes of its own (docs/design.md, "Compiling ahead"): for a device whose compiler builds one
// program at a time within a process however many threads call it (DeviceCaps::serial_compiler), each thread of the
// compile pipeline hands its plans to a worker process of its own (`pimg-tune compile-worker`, compile_worker_main),
// which builds them into the backend's disk cache by Backend::precompile, as the thread would have in the tuner's
// process. A worker receives a plan's entry, defines and options only: what a precompile reads (backend.hpp).
#pragma once
#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>

#include "compile/compile_pipeline.hpp"
#include "pimg/backend.hpp"
#include "workers/wire.hpp"

namespace pimg {

class CompileWorker final : public PlanCompiler {
 public:
  explicit CompileWorker(std::string exe) : exe_(std::move(exe)) {}
  ~CompileWorker() override;  // closes the worker's stdin: it exits (killed if it does not within 2 s)
  CompileWorker(const CompileWorker&) = delete;
  CompileWorker& operator=(const CompileWorker&) = delete;

  // Builds `plan` for `device` in the worker, started on first use and again after it died; Done::cpu_ms is the
  // worker's CPU time for it, every thread of its process (drivers compile on threads of their own). nullopt when
  // the worker died, hung (kCompileTimeoutS) or could not open the device: the plan's failure is left for compile()
  // to report, as an in-process precompile leaves it, and the next plan starts a fresh worker.
  std::optional<Done> compile(const DeviceInfo& device, const KernelSource& source, const LaunchPlan& plan) override;
  // True once a worker could not be started at all (no such executable) or a fresh one could not open the device: the
  // caller compiles in its own process.
  bool unavailable() const override { return unavailable_; }

  static constexpr double kCompileTimeoutS = 300;  // for one plan, the worker's start and device included

 private:
  bool start();
  void stop(bool kill_now);
  std::optional<wire::Message> wait(double limit_s);

  std::string exe_;
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  wire::Decoder decoder_;
  bool unavailable_ = false;
};

// A pipeline's compilers in compile workers of `exe` (a pimg-tune), one per pool thread.
CompileElsewhere compile_workers(const std::string& exe);

// The request and its reading, apart for the wire's tests: {"compile", backend, device index, device name, source
// path, source hash, source text, entry, defines count, name, value..., options count, option...}.
wire::Message encode_compile(const DeviceInfo& device, const KernelSource& source, const LaunchPlan& plan);
struct CompileRequest {
  std::string backend;
  int device_index = 0;
  std::string device_name;
  KernelSource source;
  LaunchPlan plan;
};
CompileRequest decode_compile(const wire::Message& m);

}  // namespace pimg
