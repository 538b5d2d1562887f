// Search-space construction and replay speed: a constrained space of about 10^6 valid points from
// 10^8 raw combinations built by the constraint tree (target under 1 s), and replayed evaluations
// per second on one core for each strategy (target at least 100,000/s for the replay loop itself).
#include <benchmark/benchmark.h>

#include <cmath>

#include "pimg/registry.hpp"
#include "pimg/replay.hpp"
#include "pimg/space.hpp"

using namespace pimg;

namespace {

// 8 parameters x 10 values = 10^8 raw; the constraints keep 1,235,520 (52 x 36 x 20 x 33) points
// (counter "valid"), pruned as soon as the parameters of each constraint are bound.
VariantSpace big_space() {
  VariantSpace v;
  v.variant = "synthetic";
  for (const char* n : {"a", "b", "c", "d", "e", "f", "g", "h"}) {
    ParamValues p{n, {}, {}};
    for (std::int64_t i = 1; i <= 10; ++i) p.values.emplace_back(i);
    v.params.push_back(std::move(p));
  }
  v.constraints = {{"a * b <= 24", {}}, {"c + d <= 9", {}}, {"e * f <= max_work_group_size / 128", {}},
                   {"(g + h) % 3 == 0", {}}};
  return v;
}

void BM_BuildConstrainedSpace(benchmark::State& state) {
  const VariantSpace v = big_space();
  DeviceInfo dev;
  dev.limits["max_work_group_size"] = 1024;
  std::size_t valid = 0;
  for (auto _ : state) {
    SearchSpace s = v.search_space(dev);
    valid = s.size();
    benchmark::DoNotOptimize(s);
  }
  state.counters["raw"] = static_cast<double>(v.raw_size());
  state.counters["valid"] = static_cast<double>(valid);
}
BENCHMARK(BM_BuildConstrainedSpace)->Unit(benchmark::kMillisecond)->Iterations(3);

// A replay space of 20,000 stored points with a smooth landscape.
ReplaySpace replay_space() {
  std::vector<SpaceParam> params{{"variant", {std::string("v")}}, {"x", {}}, {"y", {}}, {"z", {}}};
  for (std::int64_t i = 0; i < 40; ++i) params[1].values.emplace_back(i);
  for (std::int64_t i = 0; i < 25; ++i) params[2].values.emplace_back(i);
  for (std::int64_t i = 0; i < 20; ++i) params[3].values.emplace_back(i);
  std::vector<std::uint32_t> coords;
  ReplaySpace s;
  for (std::uint32_t x = 0; x < 40; ++x)
    for (std::uint32_t y = 0; y < 25; ++y)
      for (std::uint32_t z = 0; z < 20; ++z) {
        coords.insert(coords.end(), {0, x, y, z});
        s.cost.push_back((x + y) % 17 == 5 ? INFINITY : 1 + 0.01 * (x - 20.0) * (x - 20.0) + 0.02 * y + 0.05 * z);
        s.eval_ms.push_back(500);
      }
  s.space = SearchSpace(std::move(params), std::move(coords));
  s.optimum_ms = 1;
  return s;
}

void BM_Replay(benchmark::State& state, const std::string& name) {
  static const ReplaySpace s = replay_space();
  const StrategyInfo* info = Registry::builtin().strategy(name);
  const OptionValues opts = resolve_options(*info, info->options.empty() ? std::map<std::string, std::string>{}
                                                                          : std::map<std::string, std::string>{{"fraction", "1"}});
  std::size_t evals = 0;
  std::uint64_t seed = 1;
  for (auto _ : state) {
    auto st = info->make(s.space, opts, seed++);
    evals += replay(s, *st, 5000).best.size();
  }
  state.counters["evals_per_s"] = benchmark::Counter(static_cast<double>(evals), benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(BM_Replay, random, std::string("random"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Replay, annealing, std::string("annealing"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Replay, local, std::string("local"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Replay, genetic, std::string("genetic"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Replay, diffevo, std::string("diffevo"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Replay, forest, std::string("forest"))->Unit(benchmark::kMillisecond)->Iterations(2);

// The strategy's own time per proposal on a space of 10^5 points (100 x 50 x 20), over the first
// 400 proposals (the bar: under 1 ms).
void BM_ProposalTime(benchmark::State& state, const std::string& name) {
  static const ReplaySpace s = [] {
    std::vector<SpaceParam> params{{"x", {}}, {"y", {}}, {"z", {}}};
    for (std::int64_t i = 0; i < 100; ++i) params[0].values.emplace_back(i);
    for (std::int64_t i = 0; i < 50; ++i) params[1].values.emplace_back(i);
    for (std::int64_t i = 0; i < 20; ++i) params[2].values.emplace_back(i);
    std::vector<std::uint32_t> coords;
    ReplaySpace r;
    for (std::uint32_t x = 0; x < 100; ++x)
      for (std::uint32_t y = 0; y < 50; ++y)
        for (std::uint32_t z = 0; z < 20; ++z) {
          coords.insert(coords.end(), {x, y, z});
          r.cost.push_back(1 + 0.001 * (x - 60.0) * (x - 60.0) + 0.01 * ((y * 7) % 50) + 0.05 * z);
          r.eval_ms.push_back(500);
        }
    r.space = SearchSpace(std::move(params), std::move(coords));
    r.optimum_ms = 1;
    return r;
  }();
  const StrategyInfo* info = Registry::builtin().strategy(name);
  const OptionValues opts = resolve_options(*info, {{"budget", "400"}});
  std::size_t proposals = 0;
  std::uint64_t seed = 1;
  for (auto _ : state) {
    auto st = info->make(s.space, opts, seed++);
    proposals += replay(s, *st, 400).best.size();
  }
  state.counters["s_per_proposal"] =
      benchmark::Counter(static_cast<double>(proposals), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK_CAPTURE(BM_ProposalTime, gp, std::string("gp"))->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK_CAPTURE(BM_ProposalTime, forest, std::string("forest"))->Unit(benchmark::kMillisecond)->Iterations(2);

}  // namespace
