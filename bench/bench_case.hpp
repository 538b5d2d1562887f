// One benchmark case of a family on the CPU: prepared once through the executor (the registry's
// backends), then each iteration one validated run (manual time = the run's kernel time). Used by the
// families' CPU benches (OpenMP configurations against OpenCV in the same run).
#pragma once
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>

#include "pimg/executor.hpp"
#include "pimg/registry.hpp"

namespace pimg::bench {

inline Device& device(const std::string& backend) {
  static std::map<std::string, std::unique_ptr<Device>> open;
  auto& d = open[backend];
  if (!d) {
    const Backend* b = Registry::builtin().backend(backend);
    d = b->open(b->devices().at(0));
  }
  return *d;
}

// Every iteration is one run of the plan through the executor (pimg/executor.hpp): steps, scratch,
// alternating poison, canaries, the timing method (hot: Google Benchmark repeats back to back) and the
// validation of that run's output.
inline void run_case(benchmark::State& state, const std::string& family, const std::string& variant,
                     std::initializer_list<std::pair<const char*, Value>> knobs, int channels) {
  const Registry& reg = Registry::builtin();
  const Variant* v = reg.variant(family, variant);
  if (!v) {
    state.SkipWithError((variant + " is not registered in this build").c_str());
    return;
  }
  const Family& f = *reg.family(family);
  const int size = static_cast<int>(state.range(0));
  const Problem p = f.make_problem(size, size, channels, {});
  const Workload w = f.make_workload(p);
  const std::vector<std::uint8_t> expected = f.reference(p, w, v->validation_rule());
  Config c;
  for (const auto& [k, value] : knobs) c.set(k, value);
  const MeasureSpec measure = MeasureSpec::fixed(0, 1, 600);
  PreparedPlan plan(f, p, w, expected, device(v->backend()), measure, *v, c);
  std::int64_t seq = 0;
  for (auto _ : state) {
    const std::optional<RunTimes> t = plan.run(seq++);
    if (!t) {
      state.SkipWithError(plan.result().log.c_str());
      return;
    }
    state.SetIterationTime(t->kernel_ms / 1e3);
  }
  state.SetLabel(plan.result().method);
}

}  // namespace pimg::bench
