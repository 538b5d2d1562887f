// The CPU bar for the semblance family: the tuned OpenMP configuration against the straight
// OpenMP port of seed 004 (omp_grid's defaults: schedule(dynamic) over A, helpers called, geometry
// recomputed from the headers for every point), both compiled by the OpenMP backend, validated once
// against the serial reference and then run alternately in the same process; the counters give each
// one's mean time and the ratio seed / tuned.
#include <benchmark/benchmark.h>

#include <map>
#include <optional>
#include <memory>

#include "pimg/registry.hpp"

using namespace pimg;

namespace {

// The configuration spaces/semblance.yaml ranked first on a 2-core CI machine (116x1200, grid 8).
Config tuned_config() {
  Config c;
  for (const auto& [name, value] : std::map<std::string, Value>{{"schedule", "static"},
                                                                {"chunk", std::int64_t{1}},
                                                                {"collapse", std::int64_t{1}},
                                                                {"vec_e", std::int64_t{1}},
                                                                {"precompute", "host"},
                                                                {"inline", std::int64_t{1}},
                                                                {"interp", "simplified"},
                                                                {"window", "sum"}})
    c.set(name, value);
  return c;
}

struct Compiled {
  LaunchPlan plan;
  std::shared_ptr<Program> program;
};

void BM_SemblanceOmpSeedPortVsTuned(benchmark::State& state) {
  const Registry& reg = Registry::builtin();
  const Family& family = *reg.family("semblance");
  const Problem p = family.make_problem(116, 1200, 1, {{"data", "synthetic"}, {"params", "synth"}, {"grid", "8"},
                                                      {"truth", "3,5,2,6,4"}});
  const Workload w = family.make_workload(p);
  const std::vector<std::uint8_t> expected = family.reference(p, w);
  const Backend* backend = reg.backend("openmp");
  if (!backend || backend->devices().empty()) {
    state.SkipWithError("no OpenMP device");
    return;
  }
  std::unique_ptr<Device> dev = backend->open(backend->devices().front());
  const Variant& v = *reg.variant("semblance", "omp_grid");
  const KernelSource& source = *kernel_source(v.source());

  std::map<std::string, std::shared_ptr<DeviceBuffer>> owned;
  std::map<std::string, DeviceBuffer*> buffers;
  for (const HostBuffer& in : w.inputs) {
    owned[in.name] = dev->alloc(in.bytes.size());
    dev->upload(*owned[in.name], in.bytes);
    buffers[in.name] = owned[in.name].get();
  }
  owned["out"] = dev->alloc(w.output_bytes);
  buffers["out"] = owned["out"].get();
  std::vector<std::uint8_t> output(w.output_bytes);

  auto prepare = [&](const Config& c, const char* what) -> std::optional<Compiled> {
    Compiled k{plan_for(v, p, w, c, dev->info()), nullptr};
    CompileResult r = dev->compile(source, k.plan);
    if (!r.program) {
      state.SkipWithError((std::string(what) + " does not compile: " + r.log).c_str());
      return std::nullopt;
    }
    k.program = r.program;
    dev->fill(*buffers["out"], 0xA5);
    const LaunchResult l = dev->launch(*k.program, k.plan, buffers);
    dev->download(*buffers["out"], output);
    const Validation val = family.compare(p, expected, output);
    if (!l.ok || !val.ok) {
      state.SkipWithError((std::string(what) + " is wrong: " + l.error + val.detail).c_str());
      return std::nullopt;
    }
    return k;
  };
  const auto seed = prepare(Config{}, "the seed's port");
  if (!seed) return;
  const auto tuned = prepare(tuned_config(), "the tuned configuration");
  if (!tuned) return;

  double seed_ms = 0, tuned_ms = 0;
  for (auto _ : state) {
    seed_ms += dev->launch(*seed->program, seed->plan, buffers).kernel_ms;
    tuned_ms += dev->launch(*tuned->program, tuned->plan, buffers).kernel_ms;
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["seed_port_ms"] = seed_ms / n;
  state.counters["tuned_ms"] = tuned_ms / n;
  state.counters["speedup"] = seed_ms / tuned_ms;
}

}  // namespace

BENCHMARK(BM_SemblanceOmpSeedPortVsTuned)->Unit(benchmark::kMillisecond)->Iterations(10);
