// The tuner's own cost: overhead per configuration outside compilation and kernel runs (target
// under 5 ms), in process (argument 0) and with each evaluation in the supervised worker (1, the
// default of pimg-tune), and compile time cold vs served from the disk and memory caches, as
// ratios measured in the same run.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "pimg/evaluator.hpp"
#include "pimg/isolation.hpp"
#include "pimg/registry.hpp"
#include "pimg/runner.hpp"
#include "pimg/space.hpp"
#include "pimg/store.hpp"

using namespace pimg;
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

class Silent final : public RunObserver {};

// A space of many cheap configurations: a 16x16 image, no warm-ups, so kernel time is tiny and
// whatever else the tuner does per configuration dominates.
const char* kOverheadSpace = R"(
family: conv
problems:
  - {filter: sharpen3, sizes: [16x16]}
backends: [openmp]
variants:
  omp_rows:
    threads: [1, 2]
    schedule: [static, dynamic, guided]
    chunk: [1, 4]
    arith: [mul, lut]
measure: {warmups: 0, repeats: 3, timeout_s: 10}
)";

void BM_TunerOverheadPerConfig(benchmark::State& state) {
  const Registry& reg = Registry::builtin();
  Space space = load_space_text(kOverheadSpace, "bench-overhead.yaml", reg);
  fs::path db = fs::temp_directory_path() / ("pimg-bench-" + std::to_string(::getpid()) + ".db");
  fs::remove(db);
  Silent quiet;
  TuneOptions opt;
  opt.command_line = "bench";
  opt.resume = false;  // measure every configuration again in each iteration
  opt.isolation = state.range(0) != 0;
  opt.worker_exe = PIMG_TUNE_EXE;
  Store store(db.string());
  // One untimed run first: compiles land in the cache, the device's bandwidth is measured once.
  Tuner(reg, space, opt, quiet).run(store, quiet);
  double overhead_sum = 0, configs = 0, compile_sum = 0, kernel_sum = 0;
  for (auto _ : state) {
    Tuner tuner(reg, space, opt, quiet);
    auto t0 = Clock::now();
    TuneSummary s = tuner.run(store, quiet);
    double total = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    double compile = 0, kernel = 0;
    for (const auto& r : store.rows_with_samples()) {  // the latest rows: this iteration's
      compile += r.result.compile_ms;
      for (double w : r.result.wall_ms) kernel += w;
    }
    overhead_sum += total - compile - kernel;
    compile_sum += compile;
    kernel_sum += kernel;
    configs += static_cast<double>(s.measured);
  }
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(db.string() + suffix);
  // A run starts one worker per device; what that costs, measured alone, and the overhead per
  // configuration once a worker is running.
  double start_ms = 0;
  if (opt.isolation) {
    const Backend& backend = *reg.backend("openmp");
    const DeviceInfo device = backend.devices().front();
    constexpr int kStarts = 5;
    auto t0 = Clock::now();
    for (int i = 0; i < kStarts; ++i) open_worker(PIMG_TUNE_EXE, *reg.family("conv"), backend, device, space.measure);
    start_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count() / kStarts;
  }
  state.counters["worker_start_ms"] = start_ms;
  state.counters["overhead_ms_per_config_running_worker"] =
      (overhead_sum - start_ms * static_cast<double>(state.iterations())) / configs;
  state.counters["isolated"] = static_cast<double>(state.range(0));
  state.counters["configs"] = configs / static_cast<double>(state.iterations());
  state.counters["overhead_ms_per_config"] = overhead_sum / configs;
  state.counters["compile_ms_per_config"] = compile_sum / configs;
  state.counters["kernel_ms_per_config"] = kernel_sum / configs;
}
BENCHMARK(BM_TunerOverheadPerConfig)->Unit(benchmark::kMillisecond)->Iterations(3)->Arg(0)->Arg(1);

// Compile time of one configuration: cold (a define no cache has seen), from the disk cache (a new
// device, so the memory cache is empty) and from the memory cache; ratios in the counters.
void compile_paths(benchmark::State& state, const std::string& backend_name, const std::string& variant_name) {
  const Registry& reg = Registry::builtin();
  const Backend* backend = reg.backend(backend_name);
  if (!backend || !backend->status().available) {
    state.SkipWithError((backend_name + " unavailable").c_str());
    return;
  }
  const Family& family = *reg.family("conv");
  const Variant& variant = *reg.variant("conv", variant_name);
  Problem p = family.make_problem(256, 256, 1, {{"filter", "sharpen3"}});
  Workload w = family.make_workload(p);
  DeviceInfo info = backend->devices().front();
  Config c;
  for (const auto& d : variant.parameters()) c.set(d.name, d.default_value);
  const KernelSource& src = *kernel_source(variant.source());
  double cold = 0, disk = 0, memory = 0;
  int n = 0;
  for (auto _ : state) {
    LaunchPlan plan = plan_for(variant, p, w, c, info);
    plan.defines.emplace_back("PIMG_BENCH_NONCE", std::to_string(::getpid()) + std::to_string(n) +
                                                      std::to_string(Clock::now().time_since_epoch().count() % 100000));
    auto d1 = backend->open(info);
    auto t0 = Clock::now();
    CompileResult r1 = d1->compile(src, plan);
    auto t1 = Clock::now();
    auto d2 = backend->open(info);
    CompileResult r2 = d2->compile(src, plan);
    auto t2 = Clock::now();
    CompileResult r3 = d2->compile(src, plan);
    auto t3 = Clock::now();
    if (!r1.program || r1.cached || !r2.cached || !r3.cached) {
      state.SkipWithError("unexpected cache behaviour");
      return;
    }
    cold += std::chrono::duration<double, std::milli>(t1 - t0).count();
    disk += std::chrono::duration<double, std::milli>(t2 - t1).count();
    memory += std::chrono::duration<double, std::milli>(t3 - t2).count();
    ++n;
  }
  state.counters["cold_ms"] = cold / n;
  state.counters["disk_cache_ms"] = disk / n;
  state.counters["memory_cache_ms"] = memory / n;
  state.counters["cold_over_disk"] = cold / disk;
  state.counters["cold_over_memory"] = cold / memory;
}

void BM_CompileOpenCL(benchmark::State& s) { compile_paths(s, "opencl", "cl_direct"); }
void BM_CompileOpenMP(benchmark::State& s) { compile_paths(s, "openmp", "omp_rows"); }
BENCHMARK(BM_CompileOpenCL)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_CompileOpenMP)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
