// Search-space construction and replay speed: a constrained space of about 10^6 valid points from
// 10^8 raw combinations built by the constraint tree (target under 1 s), and replayed evaluations
// per second on one core for each strategy (target at least 100,000/s for the replay loop itself).
#include <benchmark/benchmark.h>

#include <map>

#include <cmath>
#include <iterator>

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

// The strategy's own time per proposal on a space of 10^5 points of six parameters (20 x 10 x 10 x
// 5 x 5 x 2; one in 16 fails): `observed` outcomes are told first (not timed), then the next 20
// proposals (ask and tell) are timed. Counter s_per_proposal (CPU time); the bar is under 1 ms.
void BM_ProposalTime(benchmark::State& state, const std::string& name, std::map<std::string, std::string> options = {}) {
  static const ReplaySpace s = [] {
    const std::uint32_t n[] = {20, 10, 10, 5, 5, 2};
    std::vector<SpaceParam> params;
    for (std::size_t d = 0; d < std::size(n); ++d) {
      params.push_back({std::string(1, static_cast<char>('a' + d)), {}});
      for (std::uint32_t i = 0; i < n[d]; ++i) params.back().values.emplace_back(static_cast<std::int64_t>(i));
    }
    std::vector<std::uint32_t> coords;
    ReplaySpace r;
    for (std::uint32_t a = 0; a < n[0]; ++a)
      for (std::uint32_t b = 0; b < n[1]; ++b)
        for (std::uint32_t c = 0; c < n[2]; ++c)
          for (std::uint32_t d = 0; d < n[3]; ++d)
            for (std::uint32_t e = 0; e < n[4]; ++e)
              for (std::uint32_t f = 0; f < n[5]; ++f) {
                coords.insert(coords.end(), {a, b, c, d, e, f});
                const double ms = 1 + 0.01 * (a - 13.0) * (a - 13.0) + 0.03 * ((b * 7) % 10) + 0.02 * c * (f + 1) +
                                  0.05 * std::abs(d - 2.0) * e;
                r.cost.push_back((a + 3 * b + c) % 16 == 7 ? INFINITY : ms);
                r.eval_ms.push_back(500);
              }
    r.space = SearchSpace(std::move(params), std::move(coords));
    r.optimum_ms = 1;
    return r;
  }();
  const auto observed = static_cast<std::size_t>(state.range(0));
  constexpr std::size_t kTimed = 20;
  const StrategyInfo* info = Registry::builtin().strategy(name);
  options["budget"] = std::to_string(observed + kTimed);
  const OptionValues opts = resolve_options(*info, options);
  std::size_t proposals = 0;
  std::uint64_t seed = 1;
  auto step = [&](Strategy& st) {
    const auto p = st.ask();
    if (!p) return false;
    const double c = s.cost[*p];
    st.observe(*p, std::isfinite(c) ? Outcome{Status::ok, c} : Outcome{Status::launch_error, 0});
    return true;
  };
  for (auto _ : state) {
    state.PauseTiming();
    auto st = info->make(s.space, opts, seed++);
    for (std::size_t i = 0; i < observed && step(*st); ++i) {
    }
    state.ResumeTiming();
    for (std::size_t i = 0; i < kTimed && step(*st); ++i) ++proposals;
  }
  state.counters["s_per_proposal"] =
      benchmark::Counter(static_cast<double>(proposals), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK_CAPTURE(BM_ProposalTime, gp, std::string("gp"))->Arg(50)->Arg(200)->Arg(400)->Unit(benchmark::kMillisecond)->Iterations(3);
// gp as the portfolio runs it (its `candidates`, length scales learnt every 5 evaluations): the cost of
// the portfolio's model proposals alone.
BENCHMARK_CAPTURE(BM_ProposalTime, gp_in_portfolio, std::string("gp"), std::map<std::string, std::string>{{"candidates", "256"}, {"local", "0"}, {"learn", "5"}, {"pow2", "1"}})->Arg(50)->Arg(200)->Arg(400)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(BM_ProposalTime, portfolio, std::string("portfolio"))->Arg(50)->Arg(200)->Arg(400)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(BM_ProposalTime, forest, std::string("forest"))->Arg(50)->Arg(200)->Arg(400)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
