// Replay spaces built from stored rows, the replay loop, and the strategy comparison over seeds.
#include "pimg/replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include "pimg/errors.hpp"
#include "pimg/search_strategy.hpp"

namespace pimg {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Every evaluation takes some time, also where none was stored (rows of old schemas).
constexpr double kMinEvalMs = 1e-3;
constexpr std::size_t kTimePoints = 100;    // samples of the time curves up to the time budget
constexpr std::size_t kBootstrap = 400;     // resamples of the time score's interval
constexpr double kCutoff = 0.95;            // the methodology's cutoff percentile

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

// A row's cost by the objective: +infinity for a failure.
double cost_of(const ResultRow& r, ReplayObjective o) {
  if (r.result.status != Status::ok) return kInf;
  if (o == ReplayObjective::writer)
    if (const auto w = writer_objective_ms(r.result)) return *w;
  return r.result.kernel.median;
}

// The objective in words, for `written` of `ok` rows with a recorded writer's objective.
std::string objective_words(ReplayObjective o, std::size_t written, std::size_t ok) {
  if (o == ReplayObjective::median) return "the median of the runs";
  if (written == 0) return "the writer's objective (the median of the runs)";
  if (written < ok) return "the writer's objective (its recorded time, else the median of the runs)";
  return "the writer's objective (its recorded time)";
}

}  // namespace

std::string ReplaySpace::label() const {
  return fmt::format("{}:{}, {}", device.backend, device.name, problem.label());
}

std::vector<ReplaySpace> replay_spaces(const std::vector<ResultRow>& rows, const ReplayOptions& options) {
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
    std::vector<double> cost, eval_ms;
    double optimum = kInf;
    std::size_t ok = 0, written = 0;
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
      const double ms = cost_of(*r, options.objective);
      ok += std::isfinite(ms);
      written += std::isfinite(ms) && writer_objective_ms(r->result).has_value();
      cost.push_back(ms);
      eval_ms.push_back(std::max(r->result.eval_ms, kMinEvalMs));
      optimum = std::min(optimum, ms);
    }
    if (!std::isfinite(optimum) || !(optimum > 0)) continue;
    ReplaySpace s;
    s.device = members.front()->device;
    s.problem = members.front()->problem;
    s.space = SearchSpace(std::move(params), std::move(coords));
    s.cost = std::move(cost);
    s.eval_ms = std::move(eval_ms);
    s.optimum_ms = optimum;
    s.objective = objective_words(options.objective, written, ok);
    for (const auto& r : rows) {
      if (!options.transfer || r.variant.baseline || group_of(r) == key || r.problem.family != s.problem.family ||
          !variants.count(r.variant.name))
        continue;
      Config c = r.config;
      c.set("variant", r.variant.name);
      std::optional<double> ms;
      if (const double v = cost_of(r, options.objective); std::isfinite(v)) ms = v;
      s.priors.push_back({r.device.backend + ":" + r.device.name + " " + r.problem.label(), std::move(c), ms});
    }
    out.push_back(std::move(s));
  }
  return out;
}

ReplayRun replay(const ReplaySpace& s, Strategy& strategy, std::size_t max_evals, double stop_at,
                 std::size_t min_evals, double min_time_ms) {
  ReplayRun run;
  run.best.reserve(std::min(max_evals, s.space.size()));
  double best = kInf, spent = 0;
  while (run.best.size() < max_evals) {
    auto p = strategy.ask();
    if (!p) break;
    const double c = s.cost[*p];
    strategy.observe(*p, std::isfinite(c) ? Outcome{Status::ok, c} : Outcome{Status::launch_error, 0});
    best = std::min(best, c);
    spent += *p < s.eval_ms.size() ? s.eval_ms[*p] : kMinEvalMs;
    run.best.push_back(best);
    run.time_ms.push_back(spent);
    if (best <= stop_at && run.best.size() >= min_evals && spent >= min_time_ms) break;
  }
  return run;
}

namespace {

// The best found by `t` ms of tuning time (+infinity before the first evaluation ends).
double best_at_time(const ReplayRun& r, double t) {
  const auto it = std::upper_bound(r.time_ms.begin(), r.time_ms.end(), t);
  if (it == r.time_ms.begin()) return kInf;
  return r.best[static_cast<std::size_t>(it - r.time_ms.begin()) - 1];
}

double best_at_eval(const ReplayRun& r, std::size_t n) {  // after n >= 1 evaluations
  if (r.best.empty()) return kInf;
  return r.best[std::min(n, r.best.size()) - 1];
}

// What a run "has" before it found any ok point: the mean ok time of the space (what one random
// evaluation gives in expectation), so curves over time start where random search starts.
double space_mean(const ReplaySpace& s) {
  double sum = 0;
  std::size_t n = 0;
  for (double c : s.cost)
    if (std::isfinite(c)) sum += c, ++n;
  return n ? sum / static_cast<double>(n) : kInf;
}

// runs x time points: the best found at each time point, with `start` before anything was found.
std::vector<std::vector<double>> at_times(const std::vector<ReplayRun>& runs, const std::vector<double>& times,
                                          double start) {
  std::vector<std::vector<double>> out;
  for (const auto& r : runs) {
    std::vector<double> row;
    for (double t : times) row.push_back(std::min(start, best_at_time(r, t)));
    out.push_back(std::move(row));
  }
  return out;
}

// P = mean over time points of (random - strategy) / (random - optimum), with the mean best found
// over the given runs (indices into the matrices) at each point; points where random already sits
// at the optimum are left out.
double methodology_score(const std::vector<std::vector<double>>& strat, const std::vector<std::size_t>& si,
                         const std::vector<std::vector<double>>& rand, const std::vector<std::size_t>& ri,
                         double optimum) {
  double sum = 0;
  std::size_t n = 0;
  for (std::size_t k = 0; k < strat.front().size(); ++k) {
    double sv = 0, rv = 0;
    for (std::size_t i : si) sv += strat[i][k];
    for (std::size_t i : ri) rv += rand[i][k];
    sv /= static_cast<double>(si.size());
    rv /= static_cast<double>(ri.size());
    if (rv - optimum <= optimum * 1e-12) continue;
    sum += (rv - sv) / (rv - optimum);
    ++n;
  }
  return n ? sum / static_cast<double>(n) : 0;
}

}  // namespace

StrategyOptionOverrides parse_option_overrides(const std::vector<std::string>& items, const Registry& reg) {
  StrategyOptionOverrides out;
  for (const auto& item : items) {
    const auto dot = item.find('.'), eq = item.find('=');
    if (dot == std::string::npos || eq == std::string::npos || dot == 0 || eq < dot + 2)
      throw UsageError(fmt::format("--option {}: expected STRATEGY.OPTION=VALUE", item));
    const std::string name = item.substr(0, dot);
    const StrategyInfo* info = reg.strategy(name);
    if (!info) throw UsageError(fmt::format("--option {}: unknown strategy '{}'", item, name));
    auto& given = out[info->name];  // `default` under the strategy it stands for
    given[item.substr(dot + 1, eq - dot - 1)] = item.substr(eq + 1);
    try {
      resolve_options(*info, given);
    } catch (const std::invalid_argument& e) {
      throw UsageError(fmt::format("--option {}: {}", item, e.what()));
    }
  }
  return out;
}

namespace replay_steps {  // named: the target compiles its files in unity batches

// The strategies `names` asks for (every registered one when empty); UsageError for an unknown name.
std::vector<const StrategyInfo*> strategy_infos(const Registry& reg, const std::vector<std::string>& names) {
  if (names.empty()) return reg.strategies();
  std::vector<const StrategyInfo*> infos;
  for (const auto& n : names) {
    const StrategyInfo* info = reg.strategy(n);
    if (!info) {
      std::string known;
      for (const auto* s : reg.strategies()) known += (known.empty() ? "" : ", ") + s->name;
      known += ", default";
      throw UsageError(fmt::format("--strategy {}: unknown strategy (strategies: {})", n, known));
    }
    infos.push_back(info);
  }
  return infos;
}

// What every strategy of one space is replayed and scored against.
struct SpaceReplay {
  const ReplaySpace& s;
  std::size_t seeds, first_seed, max_evals, min_evals = 0;
  double opt = 0, within5 = 0, within1 = 0, start = 0;
  std::vector<std::pair<std::string, std::size_t>> budgets;  // label, evaluations
};

// One replay of `info` per seed, with the overrides given for it; min_time keeps a run going that long.
std::vector<ReplayRun> run_seeds(const SpaceReplay& sr, const StrategyInfo& info,
                                 const StrategyOptionOverrides& overrides, double min_time) {
  std::map<std::string, std::string> given;
  if (auto o = overrides.find(info.name); o != overrides.end()) given = o->second;
  auto declared = [&](const char* n) {
    return std::any_of(info.options.begin(), info.options.end(), [&](const OptionDecl& d) { return d.name == n; });
  };
  if (declared("budget")) given["budget"] = std::to_string(sr.s.space.size());
  if (declared("time_s")) given["time_s"] = "0";
  if (declared("plateau")) given["plateau"] = "0";
  const OptionValues opts = resolve_options(info, given);
  std::vector<ReplayRun> runs;
  for (std::size_t seed = sr.first_seed; seed < sr.first_seed + sr.seeds; ++seed) {
    auto strategy = info.make(sr.s.space, opts, seed);
    strategy->prior(sr.s.priors);
    const std::size_t cap = sr.max_evals ? std::min(sr.max_evals, sr.s.space.size()) : sr.s.space.size();
    runs.push_back(replay(sr.s, *strategy, cap, sr.within1, std::min(sr.min_evals, cap), min_time));
  }
  return runs;
}

// Random search's runs set the time budget (when its mean best reaches the cut-off between the optimum and the
// median) and the time points; returns random search's best at each of them.
std::vector<std::vector<double>> set_time_budget(const SpaceReplay& sr, const std::vector<ReplayRun>& random_runs,
                                                 const std::vector<double>& ok, ReplayComparison& cmp) {
  auto mean_at = [&](double t) {
    double sum = 0;
    for (const auto& r : random_runs) sum += std::min(sr.start, best_at_time(r, t));
    return sum / static_cast<double>(random_runs.size());
  };
  const double target = sr.opt + (1 - kCutoff) * (median(ok) - sr.opt);
  double hi = 0;
  for (const auto& r : random_runs)
    if (!r.time_ms.empty()) hi = std::max(hi, r.time_ms.back());
  double lo = 0;
  if (mean_at(hi) <= target)
    for (int it = 0; it < 60; ++it) {
      const double mid = (lo + hi) / 2;
      (mean_at(mid) <= target ? hi : lo) = mid;
    }
  cmp.time_budget_ms = hi;
  for (std::size_t k = 1; k <= kTimePoints; ++k)
    cmp.time_points.push_back(hi * static_cast<double>(k) / static_cast<double>(kTimePoints));
  return at_times(random_runs, cmp.time_points, sr.start);
}

// Each budget's mean, spread, worst and 10th-percentile fraction of the optimum over the seeds.
std::vector<BudgetScore> budget_scores(const SpaceReplay& sr, const std::vector<ReplayRun>& runs) {
  std::vector<BudgetScore> out;
  for (const auto& [label, n] : sr.budgets) {
    BudgetScore b;
    b.label = label;
    b.evaluations = n;
    std::vector<double> f;
    for (const auto& r : runs) {
      const double best = best_at_eval(r, n);
      f.push_back(std::isfinite(best) ? sr.opt / best : 0.0);
      b.found_optimum += best <= sr.opt;
    }
    for (double x : f) b.mean += x / static_cast<double>(f.size());
    for (double x : f) b.sd += (x - b.mean) * (x - b.mean);
    b.sd = f.size() > 1 ? std::sqrt(b.sd / static_cast<double>(f.size() - 1)) : 0;
    if (!f.empty()) {
      std::sort(f.begin(), f.end());
      b.worst = f.front();
      b.p10 = f[(f.size() + 9) / 10 - 1];
    }
    out.push_back(std::move(b));
  }
  return out;
}

// The time score against random search, with its 95% percentile bootstrap over both sets of seeds.
TimeScore time_score(const SpaceReplay& sr, const std::vector<ReplayRun>& runs,
                     const std::vector<ReplayRun>& random_runs, const std::vector<std::vector<double>>& random_at,
                     const std::vector<double>& time_points) {
  const auto strat_at = at_times(runs, time_points, sr.start);
  std::vector<std::size_t> si(runs.size()), ri(random_runs.size());
  std::iota(si.begin(), si.end(), std::size_t{0});
  std::iota(ri.begin(), ri.end(), std::size_t{0});
  TimeScore ts;
  ts.mean = methodology_score(strat_at, si, random_at, ri, sr.opt);
  Rng rng(0x5eed);
  std::vector<double> boot;
  for (std::size_t b = 0; b < kBootstrap; ++b) {
    for (auto& x : si) x = rng.below(runs.size());
    for (auto& x : ri) x = rng.below(random_runs.size());
    boot.push_back(methodology_score(strat_at, si, random_at, ri, sr.opt));
  }
  std::sort(boot.begin(), boot.end());
  ts.low = boot[static_cast<std::size_t>(0.025 * (kBootstrap - 1))];
  ts.high = boot[static_cast<std::size_t>(0.975 * (kBootstrap - 1))];
  return ts;
}

// One strategy's score from its runs: evaluations to 5% and 1% of the optimum, the curves, budgets and time.
StrategyScore score_runs(const SpaceReplay& sr, const std::string& name, const std::vector<ReplayRun>& runs,
                         const std::vector<double>& time_points) {
  StrategyScore score;
  score.strategy = name;
  std::vector<double> to5, to1;
  std::size_t longest = 0;
  for (const ReplayRun& run : runs) {
    auto first = [&](double target) {
      for (std::size_t i = 0; i < run.best.size(); ++i)
        if (run.best[i] <= target) return static_cast<double>(i + 1);
      return kInf;
    };
    to5.push_back(first(sr.within5));
    to1.push_back(first(sr.within1));
    score.reached_5pct += std::isfinite(to5.back());
    score.reached_1pct += std::isfinite(to1.back());
    longest = std::max(longest, run.best.size());
  }
  const double m5 = median(to5), m1 = median(to1);
  if (std::isfinite(m5)) score.median_to_5pct = m5;
  if (std::isfinite(m1)) score.median_to_1pct = m1;
  auto fraction = [&](double best) { return std::isfinite(best) ? sr.opt / best : 0.0; };
  std::vector<double> at(runs.size());
  for (std::size_t i = 1; i <= longest; ++i) {
    double sum = 0;
    for (std::size_t k = 0; k < runs.size(); ++k) {
      const double b = best_at_eval(runs[k], i);
      at[k] = b / sr.opt;
      sum += fraction(b);
    }
    score.median_curve.push_back(median(at));
    score.mean_fraction.push_back(sum / static_cast<double>(runs.size()));
  }
  score.budgets = budget_scores(sr, runs);
  for (double t : time_points) {
    double sum = 0;
    for (const auto& r : runs) sum += fraction(best_at_time(r, t));
    score.time_fraction.push_back(sum / static_cast<double>(runs.size()));
  }
  return score;
}

}  // namespace replay_steps

std::vector<ReplayComparison> compare_strategies(const std::vector<ReplaySpace>& spaces, const Registry& reg,
                                                 std::size_t seeds, const std::vector<std::string>& names,
                                                 const StrategyOptionOverrides& overrides, std::size_t max_evals,
                                                 std::size_t first_seed) {
  using namespace replay_steps;
  const std::vector<const StrategyInfo*> infos = strategy_infos(reg, names);
  const StrategyInfo* random_info = reg.strategy("random");
  std::vector<ReplayComparison> out;
  for (const ReplaySpace& s : spaces) {
    ReplayComparison cmp;
    cmp.label = s.label();
    cmp.points = s.space.size();
    std::vector<double> ok;
    for (double c : s.cost)
      if (std::isfinite(c)) ok.push_back(c);
    cmp.ok_points = ok.size();
    cmp.optimum_ms = s.optimum_ms;
    cmp.objective = s.objective;
    cmp.priors = prior_groups(s.priors);
    cmp.seeds = seeds;
    cmp.first_seed = first_seed;
    const double opt = s.optimum_ms;
    SpaceReplay sr{s, seeds, first_seed, max_evals, 0, opt, opt * 1.05, opt * 1.01, space_mean(s), {}};
    for (std::size_t b : kReplayBudgets)
      if (b <= s.space.size()) sr.budgets.emplace_back(std::to_string(b), b);
    for (double share : kReplayShares)
      sr.budgets.emplace_back(fmt::format("{:g}%", share * 100),
                              std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(share * static_cast<double>(s.space.size())))));
    for (const auto& budget : sr.budgets) sr.min_evals = std::max(sr.min_evals, budget.second);

    // Random search first: it sets the time budget and is the baseline of the time score.
    std::vector<ReplayRun> random_runs;
    std::vector<std::vector<double>> random_at;
    if (random_info) {
      random_runs = run_seeds(sr, *random_info, overrides, 0);
      random_at = set_time_budget(sr, random_runs, ok, cmp);
    }
    for (const StrategyInfo* info : infos) {
      const std::vector<ReplayRun> runs =
          info == random_info ? random_runs : run_seeds(sr, *info, overrides, cmp.time_budget_ms);
      StrategyScore score = score_runs(sr, info->name, runs, cmp.time_points);
      if (random_info && !runs.empty()) score.time_score = time_score(sr, runs, random_runs, random_at, cmp.time_points);
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
