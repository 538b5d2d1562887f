// Replay spaces built from stored rows, the replay loop, and the strategy comparison over seeds.
#include "pimg/replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "pimg/errors.hpp"

namespace pimg {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string group_of(const ResultRow& r) {
  return r.device.backend + ":" + r.device.name + " " + r.problem.canonical();
}

// Median of a sample where +infinity means "never": the middle value, or the mean of the two.
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  if (n == 0) return kInf;
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

std::string ReplaySpace::label() const {
  return fmt::format("{}:{}, {}", device.backend, device.name, problem.label());
}

std::vector<ReplaySpace> replay_spaces(const std::vector<ResultRow>& rows) {
  std::map<std::string, std::vector<const ResultRow*>> groups;
  for (const auto& r : rows)
    if (!r.variant.baseline) groups[group_of(r)].push_back(&r);
  std::vector<ReplaySpace> out;
  for (const auto& [key, members] : groups) {
    // Latest row per (variant, configuration): rows() already gives the latest per key, but the
    // same configuration may be stored under two kernel sources; the later row wins.
    std::map<std::pair<std::string, std::string>, const ResultRow*> latest;
    for (const ResultRow* r : members) {
      auto& slot = latest[{r->variant.name, r->config.canonical()}];
      if (!slot || r->id > slot->id) slot = r;
    }
    std::map<std::string, std::set<Value>> values;
    std::set<std::string> variants;
    for (const auto& [_, r] : latest) {
      variants.insert(r->variant.name);
      for (const auto& [k, v] : r->config.values()) values[k].insert(v);
    }
    if (values.count("variant")) continue;  // a parameter named like the tag: cannot be replayed
    std::vector<SpaceParam> params{{"variant", {}}};
    for (const auto& v : variants) params[0].values.emplace_back(v);
    for (const auto& [name, vals] : values) params.push_back({name, {vals.begin(), vals.end()}});
    std::vector<std::uint32_t> coords;
    std::vector<double> cost;
    double optimum = kInf;
    for (const auto& [_, r] : latest) {
      Config c = r->config;
      c.set("variant", r->variant.name);
      for (const auto& prm : params) {
        if (!c.has(prm.name)) {
          coords.push_back(SearchSpace::kAbsent);
          continue;
        }
        auto it = std::find(prm.values.begin(), prm.values.end(), c.at(prm.name));
        coords.push_back(static_cast<std::uint32_t>(it - prm.values.begin()));
      }
      const double ms = r->result.status == Status::ok ? r->result.kernel.median : kInf;
      cost.push_back(ms);
      optimum = std::min(optimum, ms);
    }
    if (!std::isfinite(optimum) || !(optimum > 0)) continue;
    ReplaySpace s;
    s.device = members.front()->device;
    s.problem = members.front()->problem;
    s.space = SearchSpace(std::move(params), std::move(coords));
    s.cost = std::move(cost);
    s.optimum_ms = optimum;
    for (const auto& r : rows) {
      if (r.variant.baseline || group_of(r) == key || r.problem.family != s.problem.family ||
          !variants.count(r.variant.name))
        continue;
      Config c = r.config;
      c.set("variant", r.variant.name);
      std::optional<double> ms;
      if (r.result.status == Status::ok) ms = r.result.kernel.median;
      s.priors.push_back({group_of(r), std::move(c), ms});
    }
    out.push_back(std::move(s));
  }
  return out;
}

ReplayRun replay(const ReplaySpace& s, Strategy& strategy, std::size_t max_evals, double stop_at) {
  ReplayRun run;
  run.best.reserve(std::min(max_evals, s.space.size()));
  double best = kInf;
  while (run.best.size() < max_evals) {
    auto p = strategy.ask();
    if (!p) break;
    const double c = s.cost[*p];
    strategy.observe(*p, std::isfinite(c) ? Outcome{Status::ok, c} : Outcome{Status::launch_error, 0});
    best = std::min(best, c);
    run.best.push_back(best);
    if (best <= stop_at) break;
  }
  return run;
}

std::vector<ReplayComparison> compare_strategies(const std::vector<ReplaySpace>& spaces, const Registry& reg,
                                                 std::size_t seeds, const std::vector<std::string>& names) {
  std::vector<const StrategyInfo*> infos;
  if (names.empty()) {
    infos = reg.strategies();
  } else {
    for (const auto& n : names) {
      const StrategyInfo* info = reg.strategy(n);
      if (!info) {
        std::string known;
        for (const auto* s : reg.strategies()) known += (known.empty() ? "" : ", ") + s->name;
        throw UsageError(fmt::format("--strategy {}: unknown strategy (strategies: {})", n, known));
      }
      infos.push_back(info);
    }
  }
  std::vector<ReplayComparison> out;
  for (const ReplaySpace& s : spaces) {
    ReplayComparison cmp;
    cmp.label = s.label();
    cmp.points = s.space.size();
    cmp.ok_points = static_cast<std::size_t>(std::count_if(s.cost.begin(), s.cost.end(), [](double c) {
      return std::isfinite(c);
    }));
    cmp.optimum_ms = s.optimum_ms;
    cmp.seeds = seeds;
    const double within5 = s.optimum_ms * 1.05, within1 = s.optimum_ms * 1.01;
    for (const StrategyInfo* info : infos) {
      std::map<std::string, std::string> given;
      auto declared = [&](const char* n) {
        return std::any_of(info->options.begin(), info->options.end(), [&](const OptionDecl& d) { return d.name == n; });
      };
      if (declared("budget")) given["budget"] = std::to_string(s.space.size());
      if (declared("time_s")) given["time_s"] = "0";
      if (declared("plateau")) given["plateau"] = "0";
      const OptionValues opts = resolve_options(*info, given);
      StrategyScore score;
      score.strategy = info->name;
      std::vector<double> to5, to1;
      std::vector<ReplayRun> runs;
      std::size_t longest = 0;
      for (std::size_t seed = 1; seed <= seeds; ++seed) {
        auto strategy = info->make(s.space, opts, seed);
        strategy->prior(s.priors);
        ReplayRun run = replay(s, *strategy, s.space.size(), within1);
        auto first = [&](double target) {
          for (std::size_t i = 0; i < run.best.size(); ++i)
            if (run.best[i] <= target) return static_cast<double>(i + 1);
          return kInf;
        };
        to5.push_back(first(within5));
        to1.push_back(first(within1));
        score.reached_5pct += std::isfinite(to5.back());
        score.reached_1pct += std::isfinite(to1.back());
        longest = std::max(longest, run.best.size());
        runs.push_back(std::move(run));
      }
      const double m5 = median(to5), m1 = median(to1);
      if (std::isfinite(m5)) score.median_to_5pct = m5;
      if (std::isfinite(m1)) score.median_to_1pct = m1;
      std::vector<double> at(runs.size());
      for (std::size_t i = 0; i < longest; ++i) {
        for (std::size_t k = 0; k < runs.size(); ++k) {
          const auto& b = runs[k].best;
          at[k] = b.empty() ? kInf : b[std::min(i, b.size() - 1)] / s.optimum_ms;
        }
        score.median_curve.push_back(median(at));
      }
      cmp.scores.push_back(std::move(score));
    }
    const auto random = std::find_if(cmp.scores.begin(), cmp.scores.end(),
                                     [](const StrategyScore& x) { return x.strategy == "random"; });
    if (random != cmp.scores.end() && random->median_to_5pct)
      for (auto& sc : cmp.scores)
        if (sc.median_to_5pct) sc.vs_random = *random->median_to_5pct / *sc.median_to_5pct;
    out.push_back(std::move(cmp));
  }
  return out;
}

}  // namespace pimg
